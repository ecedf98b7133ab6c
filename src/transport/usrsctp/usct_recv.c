/* usct_recv.c — the receive path: usrsctp's receive callback (runs inside our usrsctp calls,
 * under the stack lock) checks each stream's hello, reassembles messages delivered in parts and
 * queues complete frames ("arrivals"); in the multihomed mode usrsctp's own threads call
 * usct_inet_callback instead, which defers to the same processing under the lock; progress()
 * hands them to the engine without the lock, one whole frame at a time (frame_begin, copy,
 * frame_end), so the engine never sees two frames of one peer interleaved.
 *
 * Whole SM_F_RMA frames (when the engine has rma_frame) wait in a queue of their own instead,
 * handed to rma_frame under the RMA lock by progress() or by the transport's thread while the
 * application computes (strong progress).  Taking frames off that queue and handing them over
 * happen under the same lock, so they reach the engine in arrival order (per stream, too). */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "transport/usrsctp/usct_internal.h"

void usct_recv_queue(struct usct_transport *t, struct usct_arrival *a)
{
    a->next = NULL;
    if (t->arr_tail)
        t->arr_tail->next = a;
    else
        t->arr_head = a;
    t->arr_tail = a;
    t->arr_bytes += a->len + sizeof *a;
}

void usct_recv_free_list(struct usct_arrival *list)
{
    while (list) {
        struct usct_arrival *next = list->next;
        free(list->data);
        free(list);
        list = next;
    }
}

/* append a part of a message; returns the whole message (ours to free) at its end, else NULL */
static char *assemble(struct usct_rx_stream *rx, char *data, size_t len, int eor, size_t *total)
{
    if (rx->part_len + len > rx->part_cap) {
        size_t cap = rx->part_cap ? rx->part_cap : 65536;
        while (cap < rx->part_len + len)
            cap *= 2;
        char *n = realloc(rx->part, cap);
        if (!n) {
            free(data);
            return NULL;
        }
        rx->part = n;
        rx->part_cap = cap;
    }
    memcpy(rx->part + rx->part_len, data, len);
    rx->part_len += len;
    free(data);
    if (!eor)
        return NULL;
    char *whole = rx->part;
    *total = rx->part_len;
    rx->part = NULL;
    rx->part_len = rx->part_cap = 0;
    return whole;
}

int usct_recv_callback(struct socket *sock, union sctp_sockstore addr, void *data, size_t datalen,
                       struct sctp_rcvinfo rcv, int flags, void *ulp_info)
{
    (void)sock;
    if (data)
        usct_recv_process(ulp_info, addr, data, datalen, rcv, flags);
    return 1;
}

/* one message or notification from usrsctp (ours to free); under the stack lock */
void usct_recv_process(struct usct_transport *t, union sctp_sockstore addr, void *data,
                       size_t datalen, struct sctp_rcvinfo rcv, int flags)
{
    if (flags & MSG_NOTIFICATION) {
        usct_assoc_notification(t, data, datalen);
        free(data);
        return;
    }
    struct usct_peer *p = NULL;
    if (addr.sa.sa_family == AF_CONN)
        p = usct_assoc_peer_of_addr(t, addr.sconn.sconn_addr);
    else if (addr.sa.sa_family == AF_INET)
        p = usct_udp_peer_of(t, &addr.sin);
    if (!p)
        p = usct_assoc_peer_of_id(t, rcv.rcv_assoc_id);
    if (!p || p->state == SCTP_PEER_FAILED ||
        (p->rejected_id && rcv.rcv_assoc_id == p->rejected_id)) {
        free(data);
        return;
    }
    if (!p->assoc_id)
        p->assoc_id = rcv.rcv_assoc_id;
    int sid = rcv.rcv_sid;
    if (sid >= USCT_MAX_STREAMS) {
        free(data);
        usct_assoc_abort(t, p, "stream number out of range");
        return;
    }
    struct usct_rx_stream *rx = &p->rx[sid];
    char *msg = data;
    size_t len = datalen;
    int eor = (flags & MSG_EOR) != 0;
    if (!eor || rx->part_len) {
        msg = assemble(rx, data, datalen, eor, &len);
        if (!msg)
            return;
    }
    uint32_t ppid = ntohl(rcv.rcv_ppid);
    if (ppid == USCT_PPID_HELLO) {
        usct_assoc_check_hello(t, p, sid, msg, len);
        free(msg);
        return;
    }
    const char *bad = NULL;
    struct sm_frame_hdr h;
    if (ppid != USCT_PPID_FRAME)
        bad = "unknown payload protocol";
    else if (!rx->authed)
        bad = "frame before the hello on its stream";
    else if (len < sizeof h)
        bad = "frame shorter than its header";
    else {
        memcpy(&h, msg, sizeof h);
        if (h.payload_len != len - sizeof h)
            bad = "frame length does not match its header";
    }
    if (bad) {
        free(msg);
        usct_assoc_abort(t, p, bad);
        return;
    }
    struct usct_arrival *a = malloc(sizeof *a);
    if (!a) {
        free(msg);
        return;
    }
    a->kind = SCTP_ARR_DATA;
    a->peer = p->rank;
    a->sid = (uint16_t)sid;
    a->eor = 1;
    a->data = msg;
    a->len = len;
    sm_stream_received(&p->st[sid < t->nstreams ? sid : 0], len);
    if (h.type == SM_F_RMA && t->up->rma_frame) {
        a->next = NULL;
        if (t->rma_tail)
            t->rma_tail->next = a;
        else
            t->rma_head = a;
        t->rma_tail = a;
        return;
    }
    usct_recv_queue(t, a);
}

int usct_recv_deliver_rma(struct usct_transport *t, int try)
{
    const struct sm_upcalls *up = t->up;
    if (try) {
        if (pthread_mutex_trylock(&t->rma_lock) != 0)
            return -1;
    } else {
        pthread_mutex_lock(&t->rma_lock);
    }
    int n = 0;
    for (;;) {
        pthread_mutex_lock(&t->stack_lock);
        struct usct_arrival *list = t->rma_head;
        t->rma_head = t->rma_tail = NULL;
        pthread_mutex_unlock(&t->stack_lock);
        if (!list)
            break;
        while (list) {
            struct usct_arrival *a = list;
            list = a->next;
            const struct sm_frame_hdr *h = (const struct sm_frame_hdr *)a->data;
            if (t->tu.debug > 1)
                usct_log("rank %d: RMA frame from %d stream %u: len %u", t->rank, a->peer, a->sid,
                         h->payload_len);
            up->rma_frame(up->ctx, a->peer, h, a->data + sizeof *h);
            free(a->data);
            free(a);
            n++;
        }
    }
    pthread_mutex_unlock(&t->rma_lock);
    return n;
}

int usct_recv_deliver(struct usct_transport *t, struct usct_arrival *list)
{
    const struct sm_upcalls *up = t->up;
    int n = 0;
    while (list) {
        struct usct_arrival *a = list;
        list = a->next;
        if (a->kind == SCTP_ARR_DATA) {
            const struct sm_frame_hdr *h = (const struct sm_frame_hdr *)a->data;
            char *payload = a->data + sizeof *h;
            if (t->tu.debug > 1)
                usct_log("rank %d: delivered from %d stream %u: type %u ctx %u tag %d seq %u "
                         "len %u",
                         t->rank, a->peer, a->sid, h->type, h->context, h->tag, h->seq,
                         h->payload_len);
            void *dest = up->frame_begin(up->ctx, a->peer, h);
            if (dest && h->payload_len)
                memcpy(dest, payload, h->payload_len);
            up->frame_end(up->ctx, a->peer, h, dest ? dest : payload);
        } else {
            up->peer_failed(up->ctx, a->peer, a->why);
        }
        free(a->data);
        free(a);
        n++;
    }
    return n;
}
