/* protocol.c — the message protocols (docs/design.md "Protocols"):
 *   eager      EAGER frame with the data; SM_FL_SYNC asks for a SYNC_ACK when matched;
 *   rendezvous RTS -> CTS(receive id) -> DATA segments (receive id + offset, self-describing);
 *   cancel     CANCEL_REQ -> CANCEL_ACK for sends the receiver has not matched;
 *   credit     CREDIT returns eager buffer space (flowctl.c).
 * and the transport upcalls that feed arrivals into matching (match.c, order.c). */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "engine/rma_frames.h"

/* ---- sender side ------------------------------------------------------------------------- */
/* the communicators that match without the ordering rule (mpi_assert_allow_overtaking,
 * mpi_assert_no_any_tag), set when one is created: their EAGER and RTS frames carry
 * SM_FL_RELAXED, and the receiver goes by the flag, so a message that reaches a rank before
 * that rank has finished creating the communicator is matched the same way as the rest */
void sm_ctx_set_relaxed(uint32_t ctx, int relaxed)
{
    if (relaxed || sm_map_get(&sm_eng.relaxed, (uint64_t)ctx + 1))
        if (sm_map_put(&sm_eng.relaxed, (uint64_t)ctx + 1, relaxed ? (void *)1 : NULL))
            sm_die("out of memory in the context table");
}

static int is_relaxed(uint32_t ctx)
{
    return sm_eng.relaxed.used && sm_map_get(&sm_eng.relaxed, (uint64_t)ctx + 1);
}

static uint32_t next_send_seq(int wpeer, uint32_t ctx)
{
    uint64_t k = sm_key(wpeer, ctx);
    uintptr_t v = (uintptr_t)sm_map_get(&sm_eng.send_seq, k);
    /* stored as seq + 1 so that NULL means "never sent" */
    uint32_t seq = v ? (uint32_t)(v - 1) : 0;
    if (sm_map_put(&sm_eng.send_seq, k, (void *)(uintptr_t)((uint32_t)(seq + 1) + 1ull)))
        sm_die("out of memory in the sequence table");
    return seq;
}

void sm_send_maybe_complete(struct sm_req *r)
{
    if (r->io_pending || r->await_sync || r->await_cts || r->cancel_pending || r->complete)
        return;
    if (!sm_list_empty(&r->waiting))
        sm_list_remove(&r->waiting);
    sm_req_complete(r);
}

void sm_send_fail(struct sm_req *r, int err)
{
    r->status.MPI_ERROR = err;
    r->await_sync = r->await_cts = r->cancel_pending = 0;
    sm_send_maybe_complete(r);
}

void sm_send_track(int rc, struct sm_req *r)
{
    if (rc == 1)
        r->io_pending++;
    else if (rc < 0)
        sm_send_fail(r, -rc);
}

int sm_send_start(struct sm_req *r)
{
    struct sm_peer *p = &sm_eng.peers[r->wpeer];
    sm_list_init(&r->waiting);
    if (p->failed) {
        sm_send_fail(r, MPI_ERR_PROC_FAILED);
        return 0;
    }
    r->seq = next_send_seq(r->wpeer, r->ctx);
    struct sm_frame_hdr h;
    int self = r->wpeer == sm_eng.rank;
    int lane = sm_lane_for(r->wpeer, r->ctx, r->tag);
    int eager = r->bytes <= sm_eng.eager_limit &&
                (self || sm_credit_take(r->wpeer, sm_credit_cost(r->bytes)));
    sm_frame_init(&h, eager ? SM_F_EAGER : SM_F_RTS);
    h.tag = r->tag;
    h.context = r->ctx;
    h.seq = r->seq;
    h.size = r->bytes;
    h.sreq = r->id;
    if (is_relaxed(r->ctx))
        h.flags |= SM_FL_RELAXED;
    if (eager) {
        if (!self)
            h.flags |= SM_FL_CREDITED;
        if (r->mode == SM_MODE_SYNC) {
            h.flags |= SM_FL_SYNC;
            r->await_sync = 1;
            sm_list_push_back(&sm_eng.waiting_sends, &r->waiting);
        }
        sm_eng.stats_eager++;
        sm_send_track(sm_frame_send(r->wpeer, lane, &h, r->buf, r->bytes, r), r);
    } else {
        r->await_cts = 1;
        sm_list_push_back(&sm_eng.waiting_sends, &r->waiting);
        sm_eng.stats_rndv++;
        sm_timing_rts_sent(r);
        sm_send_track(sm_frame_send(r->wpeer, lane, &h, NULL, 0, r), r);
    }
    sm_send_maybe_complete(r);
    return 0;
}

static void on_cts(int peer, const struct sm_frame_hdr *h)
{
    struct sm_req *r = sm_req_by_id(h->sreq);
    if (!r || r->kind != SM_REQ_SEND || !r->await_cts || r->wpeer != peer) {
        SM_WARN("dropping CTS from rank %d for unknown send %#llx", peer,
                (unsigned long long)h->sreq);
        return;
    }
    r->await_cts = 0;
    r->matched = 1;
    sm_timing_cts_in(r);
    sm_rndv_send_data(r, peer, h->rreq);
}

static void on_sync_ack(int peer, const struct sm_frame_hdr *h)
{
    struct sm_req *r = sm_req_by_id(h->sreq);
    if (!r || r->kind != SM_REQ_SEND || !r->await_sync || r->wpeer != peer) {
        SM_WARN("dropping SYNC_ACK from rank %d for unknown send", peer);
        return;
    }
    r->await_sync = 0;
    r->matched = 1;
    sm_send_maybe_complete(r);
}

void sm_up_send_done(void *ctx, void *cookie)
{
    (void)ctx;
    struct sm_req *r = cookie;
    if (!r || sm_rndv_ring_send_done(cookie))
        return;
    if (r->io_pending > 0)
        r->io_pending--;
    sm_send_maybe_complete(r);
}

int sm_cancel_send(struct sm_req *r)
{
    if (r->complete || r->matched || r->cancel_pending || (!r->await_cts && !r->await_sync))
        return 0;
    struct sm_frame_hdr h;
    sm_frame_init(&h, SM_F_CANCEL_REQ);
    h.context = r->ctx;
    h.seq = r->seq;
    h.sreq = r->id;
    r->cancel_pending = 1;
    int rc = sm_frame_send(r->wpeer, 0, &h, NULL, 0, NULL);
    if (rc < 0)
        r->cancel_pending = 0;
    return 0;
}

static void on_cancel_ack(int peer, const struct sm_frame_hdr *h)
{
    struct sm_req *r = sm_req_by_id(h->sreq);
    if (!r || r->kind != SM_REQ_SEND || !r->cancel_pending || r->wpeer != peer)
        return;
    r->cancel_pending = 0;
    if (h->flags & SM_FL_CANCELLED) {
        r->status.sm_cancelled = 1;
        r->await_cts = r->await_sync = 0;
    }
    sm_send_maybe_complete(r);
}

/* ---- receiver side ------------------------------------------------------------------------ */
void sm_send_cts(struct sm_req *r, struct sm_msg *m)
{
    struct sm_frame_hdr h;
    sm_frame_init(&h, SM_F_CTS);
    h.sreq = m->sreq;
    h.rreq = r->id;
    r->received = 0;
    r->status.sm_count = m->size < r->bytes ? m->size : r->bytes;
    sm_timing_cts_sent(r);
    sm_frame_send(m->src, 0, &h, NULL, 0, NULL);
    if (m->size == 0)
        sm_req_complete(r);
}

void sm_send_sync_ack(int peer, uint64_t sreq)
{
    struct sm_frame_hdr h;
    sm_frame_init(&h, SM_F_SYNC_ACK);
    h.sreq = sreq;
    sm_frame_send(peer, 0, &h, NULL, 0, NULL);
}

static struct sm_msg *msg_from_header(int peer, const struct sm_frame_hdr *h)
{
    struct sm_msg *m = sm_xcalloc(1, sizeof *m);
    sm_list_init(&m->link);
    m->src = peer;
    m->tag = h->tag;
    m->ctx = h->context;
    m->seq = h->seq;
    m->is_rts = h->type == SM_F_RTS;
    m->sync = !!(h->flags & SM_FL_SYNC);
    m->relaxed = !!(h->flags & SM_FL_RELAXED);
    m->size = m->is_rts ? h->size : h->payload_len;
    m->sreq = h->sreq;
    m->credit = (h->flags & SM_FL_CREDITED) ? sm_credit_cost(h->payload_len) : 0;
    sm_timing_arrived(m);
    return m;
}

/* an in-order message (or one made in-order by earlier arrivals) that found no receive */
static void hold_unexpected(struct sm_msg *m)
{
    sm_unexpected_add(m);
}

/* a receive r was found for message m at header time */
static void deliver_matched(struct sm_req *r, struct sm_msg *m)
{
    sm_recv_deliver(r, m); /* copies eager data from m->data, or sends CTS */
}

/* handle a message whose turn has come (seq == next); loops over early arrivals it unblocks */
static void arrived_in_order(struct sm_order *o, struct sm_msg *m, struct sm_req *r)
{
    for (;;) {
        if (!r)
            r = sm_match_in_order(o, m);
        if (r)
            deliver_matched(r, m);
        else
            hold_unexpected(m);
        sm_order_advance(o);
        int found;
        m = sm_order_pop_ready(o, &found);
        if (!m)
            return;
        r = NULL;
    }
}

/* the receive an arriving message goes to now, if any: in order, or early by the rule */
static struct sm_req *match_arrival(struct sm_order *o, const struct sm_msg *m)
{
    if (m->seq == sm_order_next(o) || m->relaxed)
        return sm_match_in_order(o, m);
    struct sm_req *r = sm_order_take_reservation(o, m->seq);
    return r ? r : sm_match_early(o, m);
}

/* Frames are checked here, not in the transports (transport.h): a frame of another wire
 * version, of no known type or longer than any frame may be is dropped, and the peer that
 * sent it is failed (it does not speak this protocol: nothing more from it can be trusted). */
static int frame_ok(int peer, const struct sm_frame_hdr *h, int at_begin)
{
    if (h->version == SM_WIRE_VERSION && h->type >= 1 && h->type <= SM_F_TYPE_MAX &&
        h->payload_len <= SM_WIRE_MAX_PAYLOAD)
        return 1;
    if (at_begin) {
        SM_ERR("malformed frame from rank %d (version %u, type %u, length %u)", peer, h->version,
               h->type, h->payload_len);
        sm_up_peer_failed(NULL, peer, "malformed frame");
    }
    return 0;
}

static int valid_envelope(int peer, const struct sm_frame_hdr *h)
{
    if (h->tag < 0) {
        SM_WARN("dropping frame from rank %d with negative tag %d", peer, h->tag);
        return 0;
    }
    if (h->type == SM_F_EAGER && h->payload_len > sm_eng.eager_limit) {
        SM_WARN("dropping eager frame from rank %d: %u bytes > eager limit", peer,
                h->payload_len);
        return 0;
    }
    return 1;
}

/* the receive a DATA frame fills, or NULL.  Looked up from the header at both frame_begin and
 * frame_end: a transport with several rails may interleave DATA frames of one peer. */
static struct sm_req *data_target(int peer, const struct sm_frame_hdr *h)
{
    struct sm_req *r = sm_req_by_id(h->rreq);
    if (!r || r->kind != SM_REQ_RECV || r->complete ||
        sm_comm_world_rank(r->comm, r->status.MPI_SOURCE) != peer)
        return NULL;
    return r;
}

void *sm_up_frame_begin(void *ctx, int peer, const struct sm_frame_hdr *h)
{
    (void)ctx;
    struct sm_peer *p = &sm_eng.peers[peer];
    p->cur_msg = NULL;
    p->cur_req = NULL;
    if (!frame_ok(peer, h, 1))
        return NULL;
    if (h->type == SM_F_EAGER) {
        if (!valid_envelope(peer, h))
            return NULL;
        struct sm_msg *m = msg_from_header(peer, h);
        struct sm_order *o = sm_order_get(peer, h->context);
        struct sm_req *r = match_arrival(o, m);
        p->cur_msg = m;
        p->cur_req = r;
        if (r) {
            sm_recv_set_envelope(r, m->src, m->tag, m->size);
            if (m->size <= r->bytes)
                return r->buf; /* straight into the user's buffer */
        }
        m->data = sm_xmalloc(m->size);
        sm_unexpected_charge(sizeof *m + m->size);
        return m->data;
    }
    if (h->type == SM_F_DATA) {
        struct sm_req *r = data_target(peer, h);
        if (!r) {
            SM_WARN("dropping DATA from rank %d for unknown receive", peer);
            return NULL;
        }
        p->cur_req = r;
        if (!r->unpack_seg && h->size + h->payload_len <= r->bytes)
            return (char *)r->buf + h->size;
        return NULL; /* the transport's memory; streamed receives unpack it at frame_end */
    }
    return NULL;
}

/* the eager payload went straight into r's buffer: complete r and retire m */
static void complete_in_place(int peer, struct sm_req *r, struct sm_msg *m)
{
    r->status.sm_count = m->size;
    if (m->credit)
        sm_credit_consumed(peer, m->credit);
    if (m->sync)
        sm_send_sync_ack(peer, m->sreq);
    sm_req_complete(r);
    sm_unexpected_charge(sizeof *m); /* balances sm_msg_free: m had no data of its own */
    sm_msg_free(m);
}

/* An EAGER message (at frame end) or an RTS, with r the receive it matched when it arrived
 * (NULL: none yet).  For an EAGER frame that frame_begin put straight into r's buffer (no data
 * of its own) the receive just completes; otherwise the message goes by the ordering rule:
 * relaxed contexts match as messages come, the next in sequence is handled with the early
 * arrivals it unblocks, and an early one either took r or waits. */
static void dispatch_arrival(int peer, struct sm_msg *m, struct sm_req *r)
{
    struct sm_order *o = sm_order_get(peer, m->ctx);
    int in_place = r && !m->is_rts && !m->data;
    uint32_t seq = m->seq;
    if (m->relaxed) { /* no ordering on this communicator */
        if (in_place)
            complete_in_place(peer, r, m);
        else if (r)
            deliver_matched(r, m);
        else
            hold_unexpected(m);
        return;
    }
    if (seq != sm_order_next(o)) { /* early */
        if (r)
            sm_eng.stats_early_matched++;
        if (in_place) {
            complete_in_place(peer, r, m);
            sm_order_add_early(o, seq, NULL);
        } else {
            sm_order_add_early(o, seq, r ? NULL : m);
            if (r)
                deliver_matched(r, m);
        }
        return;
    }
    if (!in_place) {
        arrived_in_order(o, m, r);
        return;
    }
    complete_in_place(peer, r, m);
    sm_order_advance(o);
    int found;
    struct sm_msg *nm = sm_order_pop_ready(o, &found);
    if (nm)
        arrived_in_order(o, nm, NULL);
}

static void on_eager_end(struct sm_peer *p, int peer)
{
    struct sm_msg *m = p->cur_msg;
    struct sm_req *r = p->cur_req;
    p->cur_msg = NULL;
    p->cur_req = NULL;
    if (m) /* else an invalid frame, dropped in frame_begin */
        dispatch_arrival(peer, m, r);
}

static void on_rts(int peer, const struct sm_frame_hdr *h)
{
    if (!valid_envelope(peer, h))
        return;
    struct sm_msg *m = msg_from_header(peer, h);
    sm_unexpected_charge(sizeof *m);
    dispatch_arrival(peer, m, match_arrival(sm_order_get(peer, m->ctx), m));
}

static void on_data_end(int peer, struct sm_peer *p, const struct sm_frame_hdr *h, void *payload)
{
    struct sm_req *r = data_target(peer, h);
    p->cur_req = NULL;
    if (!r)
        return;
    size_t off = h->size, n = h->payload_len;
    if (r->unpack_seg) {
        if (off < r->bytes && n)
            r->unpack_seg(r, off, payload, r->bytes - off < n ? r->bytes - off : n);
    } else if (payload != (char *)r->buf + off && off < r->bytes) {
        size_t c = r->bytes - off < n ? r->bytes - off : n;
        memcpy((char *)r->buf + off, payload, c);
    }
    r->received += n;
    if (r->received >= r->msg_size) {
        sm_timing_rndv_done(r);
        sm_req_complete(r);
    }
}

static void on_cancel_req(int peer, const struct sm_frame_hdr *h)
{
    struct sm_frame_hdr a;
    sm_frame_init(&a, SM_F_CANCEL_ACK);
    a.sreq = h->sreq;
    if (sm_cancel_arrived(peer, h->context, h->seq))
        a.flags |= SM_FL_CANCELLED;
    sm_frame_send(peer, 0, &a, NULL, 0, NULL);
}

void sm_up_frame_end(void *ctx, int peer, const struct sm_frame_hdr *h, void *payload)
{
    (void)ctx;
    struct sm_peer *p = &sm_eng.peers[peer];
    if (!frame_ok(peer, h, 0))
        return;
    switch (h->type) {
    case SM_F_EAGER: on_eager_end(p, peer); break;
    case SM_F_RTS: on_rts(peer, h); break;
    case SM_F_CTS: on_cts(peer, h); break;
    case SM_F_DATA: on_data_end(peer, p, h, payload); break;
    case SM_F_SYNC_ACK: on_sync_ack(peer, h); break;
    case SM_F_CANCEL_REQ: on_cancel_req(peer, h); break;
    case SM_F_CANCEL_ACK: on_cancel_ack(peer, h); break;
    case SM_F_CREDIT: sm_credit_returned(peer, h->size); break;
    case SM_F_RMA: sm_rma_frame_in(peer, h, payload); break;
    default: SM_WARN("dropping frame of unknown type %u from rank %d", h->type, peer);
    }
}

void sm_up_peer_failed(void *ctx, int peer, const char *why)
{
    (void)ctx;
    if (peer < 0 || peer >= sm_eng.npeers || sm_eng.peers[peer].failed)
        return;
    sm_eng.peers[peer].failed = 1;
    SM_ERR("lost the connection to rank %d: %s", peer, why);
    sm_fail_receives_from(peer);
    struct sm_list *l, *t;
    sm_list_for_each_safe(l, t, &sm_eng.waiting_sends)
    {
        struct sm_req *r = sm_container_of(l, struct sm_req, waiting);
        if (r->wpeer == peer) {
            r->io_pending = 0;
            sm_send_fail(r, MPI_ERR_PROC_FAILED);
        }
    }
    sm_rma_peer_failed(peer, why);
}
