/* usct_send.c — the send path: one engine frame = one SCTP message on the stream of its lane,
 * preceded on every new (association, stream) by the hello; frames that find the association's
 * send buffer full wait in a per-(peer, lane) queue (keeping their order) and are pushed again
 * from progress(); the queues of RMA lanes (frames without a completion cookie) also from the
 * watchdog/receive thread, so one-sided answers leave while the application computes. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "transport/usrsctp/usct_internal.h"

#define USCT_COPY_MAX 4096 /* frames up to this size are copied when they must wait */

static int stream_of(struct usct_transport *t, struct usct_peer *p, int lane)
{
    if (t->nstreams <= 1)
        return 0;
    int n = p->out_streams > 0 ? p->out_streams : t->nstreams;
    if (n > t->nstreams)
        n = t->nstreams;
    return lane % n;
}

/* 0 sent, 1 no room now (EWOULDBLOCK), < 0 error */
static int try_send(struct usct_transport *t, struct usct_peer *p, int lane,
                    const struct iovec *iov, int iovcnt, size_t len)
{
    int sid = stream_of(t, p, lane);
    if (!p->hello_sent[sid] && usct_assoc_send_hello(t, p, sid) < 0)
        return (errno == EWOULDBLOCK || errno == EAGAIN) ? 1 : -1;
    const void *data = iov[0].iov_base;
    if (iovcnt > 1) {
        if (t->gather_size < len) {
            char *g = realloc(t->gather, len);
            if (!g)
                return -1;
            t->gather = g;
            t->gather_size = len;
        }
        size_t off = 0;
        for (int i = 0; i < iovcnt; i++) {
            if (iov[i].iov_len)
                memcpy(t->gather + off, iov[i].iov_base, iov[i].iov_len);
            off += iov[i].iov_len;
        }
        data = t->gather;
    }
    struct sctp_sndinfo si;
    memset(&si, 0, sizeof si);
    si.snd_sid = (uint16_t)sid;
    si.snd_ppid = htonl(USCT_PPID_FRAME);
    si.snd_assoc_id = p->assoc_id;
    if (t->tu.sack_immediately && len <= t->tu.sack_immediately_max)
        si.snd_flags |= SCTP_SACK_IMMEDIATELY;
    union sctp_sockstore dest;
    usct_assoc_fill_dest(p, &dest);
    if (usrsctp_sendv(t->sock, data, len, &dest.sa, 1, &si, sizeof si, SCTP_SENDV_SNDINFO, 0) < 0)
        return (errno == EWOULDBLOCK || errno == EAGAIN) ? 1 : -1;
    sm_stream_sent(&p->st[sid], len);
    if (t->tu.debug > 1 && len >= sizeof(struct sm_frame_hdr)) {
        struct sm_frame_hdr h;
        memcpy(&h, data, sizeof h);
        usct_log("rank %d: sent to %d lane %d stream %d: type %u ctx %u tag %d seq %u len %u",
                 t->rank, p->rank, lane, sid, h.type, h.context, h.tag, h.seq, h.payload_len);
    }
    return 0;
}

/* queue a frame behind others of its lane; returns what send() returns (0 or 1) or < 0 */
static int enqueue(struct usct_transport *t, struct usct_peer *p, int lane,
                   const struct iovec *iov, int iovcnt, void *cookie)
{
    struct sm_txq_item *it = sm_txq_item_new(iov, iovcnt, cookie, USCT_COPY_MAX);
    if (!it)
        return -MPI_ERR_NO_MEM;
    sm_txq_push(&p->txq[lane % t->nlanes], it);
    p->txq_len++;
    t->txq_total++;
    return it->cookie ? 1 : 0;
}

int usct_send_frame(struct sm_transport *handle, int peer, int lane, const struct iovec *iov,
                    int iovcnt, void *cookie)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    if (peer < 0 || peer >= t->size || peer == t->rank || !t->peers_known || iovcnt < 1)
        return -MPI_ERR_INTERN;
    if (lane < 0)
        lane = 0;
    struct usct_peer *p = &t->peers[peer];
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    if (len > t->max_payload + sizeof(struct sm_frame_hdr))
        return -MPI_ERR_INTERN;
    int rc;
    pthread_mutex_lock(&t->stack_lock);
    int q = lane % t->nlanes;
    if (p->state == SCTP_PEER_FAILED) {
        rc = -MPI_ERR_PROC_FAILED;
    } else if (p->txq[q].head) {
        rc = enqueue(t, p, lane, iov, iovcnt, cookie);
    } else {
        rc = try_send(t, p, lane, iov, iovcnt, len);
        if (rc == 1)
            rc = enqueue(t, p, lane, iov, iovcnt, cookie);
        else if (rc < 0) {
            usct_log("rank %d: send of %zu bytes to rank %d failed: %s", t->rank, len, peer,
                     strerror(errno));
            rc = -MPI_ERR_OTHER;
        }
    }
    usct_udp_flush(t);
    pthread_mutex_unlock(&t->stack_lock);
    return rc;
}

/* drop the queue of a failed peer without send_done: the engine fails those requests itself */
static void drop_queue(struct usct_transport *t, struct usct_peer *p)
{
    for (int q = 0; q < t->nlanes; q++) {
        struct sm_txq_item *it;
        while ((it = sm_txq_pop(&p->txq[q]))) {
            sm_txq_item_free(it);
            p->txq_len--;
            t->txq_total--;
        }
    }
}

int usct_send_retry_rma(struct usct_transport *t)
{
    int sent = 0;
    if (t->txq_total == 0 || t->nstreams <= 1)
        return 0; /* single-stream variant: RMA frames share lane 0's queue (caller pushes) */
    for (int r = 0; r < t->size; r++) {
        struct usct_peer *p = &t->peers[r];
        if (!p->txq_len || p->state == SCTP_PEER_FAILED)
            continue;
        for (int q = t->p2p_lanes; q < t->nlanes; q++) {
            struct sm_txq_item *it;
            while ((it = p->txq[q].head) && !it->cookie) {
                int rc = try_send(t, p, q, it->iov, it->iovcnt, it->len);
                if (rc == 1)
                    break;
                if (rc < 0)
                    usct_log("rank %d: queued RMA send of %zu bytes to rank %d failed: %s",
                             t->rank, it->len, r, strerror(errno));
                sm_txq_pop(&p->txq[q]);
                p->txq_len--;
                t->txq_total--;
                sm_txq_item_free(it);
                sent++;
            }
        }
    }
    return sent;
}

int usct_send_retry_queued(struct usct_transport *t, void **done, int maxdone)
{
    int ndone = 0;
    if (t->txq_total == 0)
        return 0;
    for (int r = 0; r < t->size && ndone < maxdone; r++) {
        struct usct_peer *p = &t->peers[r];
        if (!p->txq_len)
            continue;
        if (p->state == SCTP_PEER_FAILED) {
            drop_queue(t, p);
            continue;
        }
        for (int q = 0; q < t->nlanes && ndone < maxdone; q++) {
            while (p->txq[q].head && ndone < maxdone) {
                struct sm_txq_item *it = p->txq[q].head;
                int rc = try_send(t, p, q, it->iov, it->iovcnt, it->len);
                if (rc == 1)
                    break;
                if (rc < 0)
                    usct_log("rank %d: queued send of %zu bytes to rank %d failed: %s", t->rank,
                             it->len, r, strerror(errno));
                sm_txq_pop(&p->txq[q]);
                p->txq_len--;
                t->txq_total--;
                if (it->cookie)
                    done[ndone++] = it->cookie;
                sm_txq_item_free(it);
            }
        }
    }
    return ndone;
}
