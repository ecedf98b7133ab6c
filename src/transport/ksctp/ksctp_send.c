/* ksctp_send.c — frames to the kernel: lane -> stream, the hello first on every stream of an
 * association, one sendmsg (SCTP_SNDINFO) per frame, and the per-peer queue of frames the
 * kernel could not take yet (send buffer full), retried from progress(). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "mpi.h"
#include "transport/ksctp/ksctp_internal.h"
#include "util/util.h"

#define KS_COPY_SMALL 4096 /* queued frames up to this size are copied (send returns 0) */

/* 0 sent, 1 the kernel has no room now, -1 error (errno) */
int ks_sendmsg(struct ks_transport *t, struct ks_peer *p, uint16_t sid, uint32_t ppid,
               const struct iovec *iov, int iovcnt)
{
    char cbuf[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
    memset(cbuf, 0, sizeof cbuf);
    struct msghdr mh = { .msg_iov = (struct iovec *)iov,
                         .msg_iovlen = (size_t)iovcnt,
                         .msg_control = cbuf,
                         .msg_controllen = sizeof cbuf };
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = IPPROTO_SCTP;
    c->cmsg_type = SCTP_SNDINFO;
    c->cmsg_len = CMSG_LEN(sizeof(struct sctp_sndinfo));
    /* the kernel puts the PPID on the wire as it is given: network order, as our engine and
     * usrsctp send it ("SMF1" reads as such in a capture) */
    struct sctp_sndinfo si = { .snd_sid = sid, .snd_ppid = htonl(ppid) };
    sctp_assoc_t id = ks_assoc_of(t, p);
    if (id)
        si.snd_assoc_id = id;
    else { /* association still being set up and its id unknown: name it by address */
        mh.msg_name = &p->addrs[0];
        mh.msg_namelen = sizeof p->addrs[0];
    }
    memcpy(CMSG_DATA(c), &si, sizeof si);
    if (sendmsg(t->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) >= 0)
        return 0;
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS)
        return 1;
    return -1;
}

/* queue a frame; returns what send() returns: 0 (copied) or 1 (send_done later) */
static int enqueue(struct ks_transport *t, struct ks_peer *p, uint16_t sid, uint32_t ppid,
                   const struct iovec *iov, int iovcnt, void *cookie)
{
    /* hellos (no cookie) and small frames are copied (txq.h) */
    struct sm_txq_item *it = sm_txq_item_new(iov, iovcnt, cookie, KS_COPY_SMALL);
    if (!it)
        return -MPI_ERR_NO_MEM;
    it->stream = sid;
    it->ppid = ppid;
    sm_txq_push(&p->txq, it);
    p->txq_len++;
    t->txq_total++;
    return it->cookie ? 1 : 0;
}

static int send_or_queue(struct ks_transport *t, struct ks_peer *p, uint16_t sid, uint32_t ppid,
                         const struct iovec *iov, int iovcnt, void *cookie)
{
    if (!p->txq.head && p->state == KS_UP) {
        int rc = ks_sendmsg(t, p, sid, ppid, iov, iovcnt);
        if (rc == 0) {
            if (ppid == KS_PPID_FRAME) {
                sm_stream_sent(&p->st[sid], sm_iov_len(iov, iovcnt));
            }
            return 0;
        }
        if (rc < 0) {
            char why[96];
            snprintf(why, sizeof why, "kernel SCTP send failed: %s", strerror(errno));
            ks_log("rank %d: to rank %d: %s", t->rank, p->rank, why);
            ks_fail_peer(t, p, why);
            return -MPI_ERR_OTHER;
        }
    }
    return enqueue(t, p, sid, ppid, iov, iovcnt, cookie);
}

int ks_send(struct sm_transport *handle, int peer, int lane, const struct iovec *iov, int iovcnt,
            void *cookie)
{
    struct ks_transport *t = (struct ks_transport *)handle;
    if (peer < 0 || peer >= t->size || peer == t->rank || lane < 0 || lane >= t->nstreams ||
        iovcnt < 1)
        return -MPI_ERR_INTERN;
    struct ks_peer *p = &t->peers[peer];
    if (p->state == KS_FAILED)
        return -MPI_ERR_PROC_FAILED;
    if (p->state == KS_IDLE || p->state == KS_CLOSED) {
        if (!p->reconnect) /* a new association (a retried set-up keeps its queued hellos) */
            memset(p->hello_sent, 0, (size_t)t->nstreams);
        p->reconnect = 0;
        if (ks_connect(t, p) < 0) {
            ks_fail_peer(t, p, "association set-up failed");
            return -MPI_ERR_OTHER;
        }
    }
    uint16_t sid = (uint16_t)lane;
    int rc;
    if (!p->hello_sent[sid]) {
        struct sm_hello h;
        sm_hello_make(&h, KS_PPID_HELLO, t->rank, t->size, (uint32_t)t->nstreams, t->secret);
        struct iovec hv = { .iov_base = &h, .iov_len = sizeof h };
        rc = send_or_queue(t, p, sid, KS_PPID_HELLO, &hv, 1, NULL);
        if (rc < 0)
            return rc;
        p->hello_sent[sid] = 1;
    }
    rc = send_or_queue(t, p, sid, KS_PPID_FRAME, iov, iovcnt, cookie);
    if (rc >= 0 && t->tu.debug > 1)
        ks_debug("rank %d: frame to %d on stream %u (%zu bytes)%s", t->rank, peer, sid,
                 sm_iov_len(iov, iovcnt), rc ? " queued" : "");
    return rc;
}

/* push queued frames; returns the number sent, -1 on a full send buffer (stop polling) */
int ks_send_retry(struct ks_transport *t, int *handled)
{
    int sent = 0;
    for (int r = 0; r < t->size && t->txq_total; r++) {
        struct ks_peer *p = &t->peers[r];
        if (p->reconnect) { /* the last set-up failed: start another, frames still queued */
            p->reconnect = 0;
            if (ks_connect(t, p) < 0)
                ks_fail_peer(t, p, "association set-up failed");
        }
        if (p->state != KS_UP)
            continue; /* frames wait until the association is up */
        while (p->txq.head) {
            struct sm_txq_item *it = p->txq.head;
            uint16_t sid = (uint16_t)it->stream;
            int rc = ks_sendmsg(t, p, sid, it->ppid, it->iov, it->iovcnt);
            if (rc == 1) {
                *handled += sent;
                return -1;
            }
            if (rc < 0) {
                char why[96];
                snprintf(why, sizeof why, "kernel SCTP send failed: %s", strerror(errno));
                ks_fail_peer(t, p, why);
            } else if (it->ppid == KS_PPID_FRAME) {
                sm_stream_sent(&p->st[sid], it->len);
            }
            sm_txq_pop(&p->txq);
            p->txq_len--;
            t->txq_total--;
            if (it->cookie)
                t->up->send_done(t->up->ctx, it->cookie);
            sm_txq_item_free(it);
            sent++;
        }
    }
    *handled += sent;
    return sent;
}
