/* ksctp_recv.c — progress(): reading messages and notifications from the kernel socket, the
 * hello check per stream, handing frames to the engine (frame_begin/frame_end, or rma_frame
 * for SM_F_RMA frames), association and path events, and waiting in poll() when idle. */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "transport/ksctp/ksctp_internal.h"
#include "util/util.h"

static struct ks_peer *peer_of_assoc(struct ks_transport *t, sctp_assoc_t id)
{
    for (int r = 0; r < t->size && id; r++)
        if (r != t->rank && t->peers[r].assoc == id)
            return &t->peers[r];
    return NULL;
}

static void on_hello(struct ks_transport *t, struct ks_peer *p, sctp_assoc_t id, uint16_t sid,
                     const char *data, size_t len)
{
    struct sm_hello h;
    const char *bad = sm_hello_check(data, len, KS_PPID_HELLO, t->rank, t->size, p ? p->rank : -1,
                                     t->secret, &h);
    if (bad) {
        t->rogue_msgs++;
        ks_abort(t, id, bad);
        return;
    }
    p = &t->peers[h.rank];
    if (p->state == KS_FAILED)
        return;
    if (p->assoc != id) /* an association the peer set up (ours count at COMM_UP) */
        p->assocs++;
    p->assoc = id;
    if (p->state != KS_UP) {
        if (p->state == KS_CLOSED)
            memset(p->hello_sent, 0, (size_t)t->nstreams);
        p->state = KS_UP;
    }
    p->authed[sid] = 1;
}

static void on_frame(struct ks_transport *t, struct ks_peer *p, sctp_assoc_t id, uint16_t sid,
                     char *data, size_t len)
{
    if (!p || !p->authed[sid]) {
        t->rogue_msgs++;
        ks_abort(t, id, "a frame before the hello on its stream");
        return;
    }
    struct sm_frame_hdr h;
    if (len < sizeof h) {
        ks_abort(t, id, "a message shorter than a frame header");
        return;
    }
    memcpy(&h, data, sizeof h);
    if ((size_t)h.payload_len != len - sizeof h) {
        ks_abort(t, id, "a frame whose length does not match its message");
        ks_fail_peer(t, p, "malformed frame");
        return;
    }
    char *payload = data + sizeof h;
    sm_stream_received(&p->st[sid], len);
    if (h.type == SM_F_RMA && t->up->rma_frame) {
        pthread_mutex_lock(&t->lock);
        t->up->rma_frame(t->up->ctx, p->rank, &h, payload);
        pthread_mutex_unlock(&t->lock);
        return;
    }
    void *dst = t->up->frame_begin(t->up->ctx, p->rank, &h);
    if (dst && h.payload_len)
        memcpy(dst, payload, h.payload_len);
    t->up->frame_end(t->up->ctx, p->rank, &h, dst ? dst : payload);
}

static void on_notification(struct ks_transport *t, const char *data, size_t len)
{
    const union sctp_notification *n = (const void *)data;
    if (len < sizeof n->sn_header)
        return;
    switch (n->sn_header.sn_type) {
    case SCTP_ASSOC_CHANGE: {
        const struct sctp_assoc_change *ac = &n->sn_assoc_change;
        struct ks_peer *p = peer_of_assoc(t, ac->sac_assoc_id);
        if (t->tu.debug)
            ks_debug("rank %d: association %d (rank %d, error %u): %s", t->rank,
                     (int)ac->sac_assoc_id, p ? p->rank : -1, ac->sac_error,
                     ac->sac_state == SCTP_COMM_UP          ? "up"
                     : ac->sac_state == SCTP_COMM_LOST      ? "lost"
                     : ac->sac_state == SCTP_RESTART        ? "restart"
                     : ac->sac_state == SCTP_SHUTDOWN_COMP  ? "shut down"
                     : ac->sac_state == SCTP_CANT_STR_ASSOC ? "could not start"
                                                            : "?");
        switch (ac->sac_state) {
        case SCTP_COMM_UP:
            if (p) {
                p->assocs++;
                if (p->state == KS_CONNECTING)
                    p->state = KS_UP;
            }
            break;
        case SCTP_RESTART: t->restarts++; break;
        case SCTP_CANT_STR_ASSOC:
            if (p && !t->finalizing && p->state == KS_CONNECTING && ++p->connect_tries <= 3) {
                /* nothing was sent on it (frames wait for COMM_UP): try again */
                if (t->tu.debug)
                    ks_debug("rank %d: association to rank %d could not start; trying again",
                             t->rank, p->rank);
                p->assoc = 0;
                p->state = KS_IDLE;
                p->reconnect = 1;
                break;
            }
            /* fall through */
        case SCTP_COMM_LOST:
            if (p && !t->finalizing)
                ks_fail_peer(t, p,
                             ac->sac_state == SCTP_COMM_LOST
                                 ? "SCTP association lost (no acknowledgement on any path)"
                                 : "SCTP association could not be set up");
            if (p)
                p->assoc = 0;
            break;
        case SCTP_SHUTDOWN_COMP:
            if (p && p->state != KS_FAILED) {
                p->state = KS_CLOSED;
                p->assoc = 0;
                memset(p->authed, 0, KS_MAX_STREAMS);
            }
            break;
        default: break;
        }
        break;
    }
    case SCTP_SHUTDOWN_EVENT: {
        struct ks_peer *p = peer_of_assoc(t, n->sn_shutdown_event.sse_assoc_id);
        if (p && p->state != KS_FAILED)
            p->state = KS_CLOSED;
        break;
    }
    case SCTP_PEER_ADDR_CHANGE: {
        const struct sctp_paddr_change *pc = &n->sn_paddr_change;
        struct ks_peer *p = peer_of_assoc(t, pc->spc_assoc_id);
        int k = pc->spc_state == SCTP_ADDR_AVAILABLE            ? 0
                : pc->spc_state == SCTP_ADDR_UNREACHABLE        ? 1
                : pc->spc_state == SCTP_ADDR_POTENTIALLY_FAILED ? 2
                                                                : 3;
        if (p)
            p->path_events[k]++;
        if (t->tu.debug) {
            char ip[INET_ADDRSTRLEN] = "?";
            const struct sockaddr_in *sa = (const void *)&pc->spc_aaddr;
            if (sa->sin_family == AF_INET)
                inet_ntop(AF_INET, &sa->sin_addr, ip, sizeof ip);
            ks_debug("rank %d: path %s of rank %d: %s", t->rank, ip, p ? p->rank : -1,
                     k == 0   ? "available"
                     : k == 1 ? "unreachable"
                     : k == 2 ? "potentially failed"
                              : "other change");
        }
        break;
    }
    case SCTP_SEND_FAILED_EVENT: t->send_failed_events++; break;
    default: break;
    }
}

/* read up to budget messages; returns how many were handled (frames and notifications) */
int ks_recv_some(struct ks_transport *t, int budget)
{
    int handled = 0;
    while (handled < budget) {
        if (t->rx_len == t->rx_cap) { /* a message longer than the buffer: grow it */
            size_t cap = t->rx_cap * 2;
            char *nb = realloc(t->rx, cap);
            if (!nb)
                return -1;
            t->rx = nb;
            t->rx_cap = cap;
        }
        char cbuf[CMSG_SPACE(sizeof(struct sctp_rcvinfo))];
        struct iovec iov = { .iov_base = t->rx + t->rx_len, .iov_len = t->rx_cap - t->rx_len };
        struct sockaddr_in from;
        struct msghdr mh = { .msg_name = &from,
                             .msg_namelen = sizeof from,
                             .msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = cbuf,
                             .msg_controllen = sizeof cbuf };
        ssize_t n = recvmsg(t->fd, &mh, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
                break;
            ks_log("rank %d: recvmsg: %s", t->rank, strerror(errno));
            return -1;
        }
        t->rx_len += (size_t)n;
        if (!(mh.msg_flags & MSG_EOR)) {
            if (t->rx_len > SM_WIRE_MAX_PAYLOAD + sizeof(struct sm_frame_hdr) + 4096) {
                ks_log("rank %d: a message above the largest frame: dropping the socket's "
                       "input is not possible, giving up",
                       t->rank);
                return -1;
            }
            continue; /* partial delivery: the rest follows (no other message in between) */
        }
        size_t len = t->rx_len;
        t->rx_len = 0;
        handled++;
        if (mh.msg_flags & MSG_NOTIFICATION) {
            on_notification(t, t->rx, len);
            continue;
        }
        struct sctp_rcvinfo ri;
        memset(&ri, 0, sizeof ri);
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
            if (c->cmsg_level == IPPROTO_SCTP && c->cmsg_type == SCTP_RCVINFO)
                memcpy(&ri, CMSG_DATA(c), sizeof ri);
        if (ri.rcv_sid >= KS_MAX_STREAMS) {
            ks_abort(t, ri.rcv_assoc_id, "a message on a stream we did not offer");
            continue;
        }
        struct ks_peer *p = peer_of_assoc(t, ri.rcv_assoc_id);
        uint32_t ppid = ntohl(ri.rcv_ppid); /* as it was on the wire (ks_sendmsg) */
        if (ppid == KS_PPID_HELLO)
            on_hello(t, p, ri.rcv_assoc_id, ri.rcv_sid, t->rx, len);
        else if (ppid == KS_PPID_FRAME)
            on_frame(t, p, ri.rcv_assoc_id, ri.rcv_sid, t->rx, len);
        else {
            t->rogue_msgs++;
            ks_abort(t, ri.rcv_assoc_id, "a message with an unknown payload protocol id");
        }
    }
    return handled;
}

static int report_failures(struct ks_transport *t)
{
    int n = 0;
    t->fails_pending = 0;
    for (int r = 0; r < t->size; r++) {
        struct ks_peer *p = &t->peers[r];
        if (!p->fail_pending)
            continue;
        p->fail_pending = 0;
        /* frames still queued for it will never leave: release them */
        struct sm_txq_item *it;
        while ((it = sm_txq_pop(&p->txq))) {
            t->txq_total--;
            if (it->cookie)
                t->up->send_done(t->up->ctx, it->cookie);
            sm_txq_item_free(it);
        }
        p->txq_len = 0;
        t->up->peer_failed(t->up->ctx, r, p->why);
        n++;
    }
    return n;
}

int ks_progress(struct sm_transport *handle, long timeout_us)
{
    struct ks_transport *t = (struct ks_transport *)handle;
    int handled = 0;
    for (int round = 0; round < 2; round++) {
        if (t->txq_total)
            ks_send_retry(t, &handled);
        int n = ks_recv_some(t, KS_RX_BUDGET);
        if (n < 0)
            return -1;
        handled += n;
        if (t->fails_pending)
            handled += report_failures(t);
        if (handled || timeout_us == 0 || round == 1)
            break;
        struct pollfd pf = { .fd = t->fd, .events = POLLIN | (t->txq_total ? POLLOUT : 0) };
        struct timespec ts = { .tv_sec = timeout_us / 1000000,
                               .tv_nsec = (timeout_us % 1000000) * 1000 };
        if (ppoll(&pf, 1, timeout_us < 0 ? NULL : &ts, NULL) < 0 && errno != EINTR)
            return -1;
    }
    return handled;
}
