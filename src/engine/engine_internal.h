/* engine_internal.h — the engine's own objects and calls between its files: arrived messages,
 * per-(peer, context) ordering state, peers, the engine singleton, protocols, flow control and
 * frames.  Included by src/engine/ (and the engine's unit tests) only; the API layer sees
 * engine/engine.h. */
#ifndef SCTPMPI_ENGINE_INTERNAL_H
#define SCTPMPI_ENGINE_INTERNAL_H

#include "engine/engine.h"
#include "engine/timing.h"
#include "transport/transport.h"

/* ---- arrived, not yet matched messages --------------------------------------------------- */
struct sm_msg {
    struct sm_list link; /* unexpected queue (arrival order) */
    int src;             /* world rank of the sender */
    int tag;
    uint32_t ctx, seq;
    int is_rts;
    int sync;    /* EAGER with SM_FL_SYNC */
    int relaxed; /* SM_FL_RELAXED: matched as it arrives, no ordering rule */
    size_t size;
    uint64_t sreq;
    uint32_t credit; /* eager credit to return when consumed */
    void *data;      /* eager payload */
    uint64_t t_us;   /* timing.c: arrival / entry into the unexpected queue */
};

/* ---- the engine -------------------------------------------------------------------------- */
struct sm_peer {
    int64_t credit;      /* eager bytes we may still send to this peer */
    int64_t credit_owed; /* bytes consumed here, not yet returned to the peer */
    int failed;
    struct sm_msg *cur_msg; /* frame in flight from this peer (between begin and end) */
    struct sm_req *cur_req;
    uint64_t cur_dst_off;
};

struct sm_engine {
    int rank, size;
    int npeers; /* size + processes of other jobs (peers_dyn.c) */
    const struct sm_transport_ops *tp_ops;
    struct sm_transport *tp;
    int lanes;
    struct sm_peer *peers;
    size_t eager_limit;    /* SCTPMPI_EAGER_LIMIT */
    size_t segment;        /* SCTPMPI_RNDV_SEGMENT */
    int64_t credit_window; /* SCTPMPI_EAGER_CREDIT */
    size_t unexpected_max; /* SCTPMPI_UNEXPECTED_MAX: bytes of unexpected data before error */
    size_t unexpected_bytes, unexpected_peak_bytes;
    size_t unexpected_count, unexpected_peak, early_peak;
    long spin_ns, block_us;
    long spin_base_ns, spin_max_ns; /* the adaptive spin's floor and ceiling (progress.c) */
    long spin_cpu_limit;            /* more runnable tasks than this on the host: no long spin */
    uint64_t spin_grows, spin_shrinks; /* how often it changed (SCTPMPI_STATS) */
    struct sm_list posted;             /* posted receives in posting order */
    struct sm_list unexpected;         /* in-order arrivals without a receive */
    struct sm_map send_seq; /* (dst, ctx) -> next seq (stored as pointer-sized integer) */
    struct sm_map order;    /* (src, ctx) -> struct sm_order */
    struct sm_map relaxed;  /* ctx + 1 -> non-NULL: its sends carry SM_FL_RELAXED (no ordering) */
    struct sm_list self_q;  /* frames to self, delivered in progress */
    struct sm_list waiting_sends; /* sends that need an answer from their peer */
    uint64_t stats_eager, stats_rndv, stats_early_matched;
};
extern struct sm_engine sm_eng;

static inline uint64_t sm_key(int rank, uint32_t ctx)
{
    return ((uint64_t)(uint32_t)rank << 32) | ctx;
}

/* request.c */
struct sm_req *sm_req_by_id(uint64_t id);
void sm_req_pool_fini(void);

/* order.c: the ordering rule */
struct sm_order;
struct sm_order *sm_order_get(int src, uint32_t ctx);
uint32_t sm_order_next(const struct sm_order *o);
/* the missing (not arrived, not reserved) sequence numbers in [next, seq): returns how many,
 * writes the first max of them, lowest first, to out */
uint32_t sm_order_missing(const struct sm_order *o, uint32_t seq, uint32_t *out, uint32_t max);
/* 1 if a message below seq (with this tag; tag < 0: any) arrived early and still waits */
int sm_order_waiting_before(const struct sm_order *o, uint32_t seq, int tag);
void sm_order_reserve(struct sm_order *o, uint32_t seq, struct sm_req *r);
struct sm_req *sm_order_take_reservation(struct sm_order *o, uint32_t seq);
/* record an early arrival: msg may be NULL when it was matched at once */
void sm_order_add_early(struct sm_order *o, uint32_t seq, struct sm_msg *m);
/* the in-order message was handled: next++ */
void sm_order_advance(struct sm_order *o);
/* the early message that is now in order, if any (its caller handles it, then advances);
 * slots of messages matched when they arrived early are stepped over */
struct sm_msg *sm_order_pop_ready(struct sm_order *o, int *found);
/* find an early message that a named-tag receive may take */
struct sm_msg *sm_order_find_early(int src_world /* -1 any */, uint32_t ctx, int tag,
                                   struct sm_order **owner);
void sm_order_consume_early(struct sm_order *o, struct sm_msg *m);
size_t sm_order_early_count(void);
void sm_order_fini(void);

/* match.c */
struct sm_req *sm_match_in_order(struct sm_order *o, const struct sm_msg *m);
struct sm_req *sm_match_early(struct sm_order *o, const struct sm_msg *m);
struct sm_msg *sm_unexpected_find(int src_world, uint32_t ctx, int tag, int remove);
void sm_unexpected_add(struct sm_msg *m);
void sm_unexpected_remove(struct sm_msg *m);
void sm_unexpected_charge(size_t bytes);
void sm_unexpected_uncharge(size_t bytes);
void sm_msg_free(struct sm_msg *m);
void sm_recv_set_envelope(struct sm_req *r, int src_world, int tag, size_t size);
int sm_cancel_arrived(int src, uint32_t ctx, uint32_t seq);
/* a rank is gone: fail every receive that waits for it or that it was still feeding */
void sm_fail_receives_from(int world);
void sm_recv_deliver(struct sm_req *r, struct sm_msg *m); /* consume m into r */
int sm_recv_matches(const struct sm_req *r, const struct sm_msg *m);

/* protocol.c */
void *sm_up_frame_begin(void *ctx, int peer, const struct sm_frame_hdr *h);
void sm_up_frame_end(void *ctx, int peer, const struct sm_frame_hdr *h, void *payload);
void sm_up_send_done(void *ctx, void *cookie);
void sm_up_peer_failed(void *ctx, int peer, const char *why);
void sm_send_cts(struct sm_req *r, struct sm_msg *m);
void sm_send_sync_ack(int peer, uint64_t sreq);
/* a send's frame was handed over: rc as sm_frame_send returns it (1 pending, < 0 failed) */
void sm_send_track(int rc, struct sm_req *r);
void sm_send_fail(struct sm_req *r, int err);
/* complete the send once nothing more is pending for it */
void sm_send_maybe_complete(struct sm_req *r);

/* stripe.c: rendezvous DATA segments after the CTS */
void sm_rndv_send_data(struct sm_req *r, int peer, uint64_t rreq);
/* send_done for a ring buffer of a streamed send; 0 if cookie is not one */
int sm_rndv_ring_send_done(void *cookie);

/* flowctl.c */
int sm_credit_take(int peer, uint32_t bytes);
void sm_credit_consumed(int peer, uint32_t bytes);
void sm_credit_returned(int peer, uint64_t bytes);
static inline uint32_t sm_credit_cost(size_t payload)
{
    return (uint32_t)payload + 64;
}

/* frames.c */
/* returns 0 sent, 1 pending (send_done(cookie) later), < 0 MPI error class */
int sm_frame_send(int peer, int lane, struct sm_frame_hdr *h, const void *payload, size_t len,
                  void *cookie);
void sm_frame_init(struct sm_frame_hdr *h, int type);
int sm_lane_for(int peer, uint32_t ctx, int tag); /* lane with the rail (transport.h) */
#define SM_MAX_RAILS 8
int sm_rails(int peer, struct sm_rail_load *load, int max);
int sm_stripe_lane(int peer, int lane, size_t window); /* -1: every rail is busy */
int sm_self_progress(void);
/* One step of a wait, by the waiting policy above progress.c's loop: poll; while within
 * the current (adaptive) spin time of *since_ns (0: now) or of the last arrival return; else
 * block in the transport up to block_us.  An arrival restarts the spin.  -1 if the transport
 * failed. */
int sm_wait_step(uint64_t *since_ns, long block_us);

/* peers_dyn.c: processes of other jobs */
int sm_up_peer_lookup(void *ctx, uint32_t job, int rank);
void sm_dyn_fini(void);

/* progress.c */
int sm_engine_transport_start(void); /* 0, or dies with a message */
void sm_engine_free_state(void);     /* queues, ordering state, requests (after the transport) */
void sm_engine_stats(FILE *f);

#endif
