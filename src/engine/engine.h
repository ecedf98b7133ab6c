/* engine.h — the engine's objects and internal interface: requests, communicators as the engine
 * sees them, arrived messages, per-(peer, context) ordering state, and the engine singleton.
 *
 * Files of the engine:
 *   request.c   request allocation, ids, completion
 *   order.c     per-(sender, context) sequence tracking, early arrivals, reservations (the ordering rule)
 *   match.c     posted-receive and unexpected queues, matching
 *   protocol.c  eager / synchronous / rendezvous / cancel senders and frame handlers
 *   flowctl.c   eager credits per peer
 *   frames.c    building frames and handing them to the transport (or the self path)
 *   progress.c  the progress loop (spin, then block) and engine start/stop
 * The engine works on contiguous byte buffers; the API layer turns (buf, count, datatype) into
 * bytes. */
#ifndef SCTPMPI_ENGINE_H
#define SCTPMPI_ENGINE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include "engine/timing.h"
#include "engine/wire.h"
#include "mpi.h"
#include "transport/transport.h"
#include "util/util.h"

/* ---- communicators (engine view) -------------------------------------------------------- */
struct sctpmpi_errhandler {
    int kind; /* SM_EH_FATAL, SM_EH_RETURN, SM_EH_ABORT, SM_EH_USER */
    MPI_Comm_errhandler_function *fn;
    int refcount;
};
enum { SM_EH_FATAL = 1, SM_EH_RETURN, SM_EH_ABORT, SM_EH_USER };

struct sctpmpi_comm {
    int valid;            /* 0 for freed/null objects */
    int rank, size;       /* this process in the communicator */
    uint32_t ctx;         /* point-to-point context id; ctx + 1 is the collective context */
    int *world_of;        /* comm rank -> world rank (NULL: identity) */
    struct sm_map rank_of;/* world rank + 1 -> comm rank + 1 (empty map: identity) */
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    int coll_tag;         /* sequence for internal collective tags */
    struct sm_comm_ext *x;/* API-layer state (groups, attributes, topology, info): api.h */
};

static inline int sm_comm_world_rank(const struct sctpmpi_comm *c, int r)
{
    return c->world_of ? c->world_of[r] : r;
}
int sm_comm_rank_of_world(const struct sctpmpi_comm *c, int world); /* -1 if not a member */

/* ---- requests ---------------------------------------------------------------------------- */
enum sm_req_kind { SM_REQ_SEND = 1, SM_REQ_RECV, SM_REQ_DONE /* pre-completed (PROC_NULL) */,
                   SM_REQ_GREQ /* generalized request (api/requests.c); owned_buf: callbacks */ };
enum sm_send_mode { SM_MODE_STANDARD, SM_MODE_SYNC, SM_MODE_READY, SM_MODE_BUFFERED };

struct sctpmpi_request {
    struct sm_list link;      /* posted queue / reservation list */
    uint64_t id;              /* wire id: slot index | generation << 32 */
    int kind;
    volatile int complete;
    int persistent, active;   /* persistent requests: active between Start and completion */
    int freed;                /* MPI_Request_free called while active */
    int cancel_pending;
    MPI_Status status;
    /* message spec */
    void *buf;                /* contiguous bytes (send: user buffer or bsend copy) */
    size_t bytes;
    int peer;                 /* rank in comm (or ANY_SOURCE / PROC_NULL) */
    int tag;
    struct sctpmpi_comm *comm;
    uint32_t ctx;
    int mode;
    /* API-layer conversion (e.g. a bsend copy to free, a pack buffer) */
    void *owned_buf;
    size_t bsend_charge;
    /* send state */
    int wpeer;                /* send: destination world rank; recv: source world rank or -1 */
    struct sm_list waiting;   /* in sm_eng.waiting_sends: needs CTS, sync ack or cancel answer */
    uint32_t seq;
    int io_pending;           /* transport sends still referencing buf */
    int await_sync;           /* synchronous eager: waiting for SYNC_ACK */
    int await_cts;            /* rendezvous: RTS sent, waiting for CTS */
    int matched;              /* the receiver matched this send (sync ack / CTS seen) */
    /* receive state */
    size_t msg_size;          /* size of the matched message */
    size_t received;          /* bytes placed so far (rendezvous) */
    int reserved;             /* bound to a missing message by the ordering rule */
    uint64_t t_us;            /* timing.c: RTS sent (send) / CTS sent (receive) */
    /* persistent-request template (arguments of *_init) */
    const void *p_buf;
    int p_count;
    MPI_Datatype p_dt;
    /* completion hook (API layer: unpack a derived-type receive, advance a collective);
     * called by sm_req_complete before a freed request is released */
    void (*on_complete)(struct sctpmpi_request *r);
    void *hook_buf;           /* user buffer to unpack into / owner object */
    int hook_count;
    MPI_Datatype hook_dt;
    /* streamed rendezvous of a non-contiguous buffer (API layer sets them; docs/design.md):
     * send: buf is NULL and each DATA segment is packed by pack_seg into a small ring of
     * segment buffers (protocol.c); receive: DATA segments bypass buf and unpack_seg puts
     * each at its packed offset straight into the user's layout */
    void (*pack_seg)(struct sctpmpi_request *r, size_t off, size_t n, void *out);
    void (*unpack_seg)(struct sctpmpi_request *r, size_t off, const void *in, size_t n);
};

/* ---- arrived, not yet matched messages --------------------------------------------------- */
struct sm_msg {
    struct sm_list link;      /* unexpected queue (arrival order) */
    int src;                  /* world rank of the sender */
    int tag;
    uint32_t ctx, seq;
    int is_rts;
    int sync;                 /* EAGER with SM_FL_SYNC */
    int relaxed;              /* SM_FL_RELAXED: matched as it arrives, no ordering rule */
    size_t size;
    uint64_t sreq;
    uint32_t credit;          /* eager credit to return when consumed */
    void *data;               /* eager payload */
    uint64_t t_us;            /* timing.c: arrival / entry into the unexpected queue */
};

struct sctpmpi_message { struct sm_msg *msg; int is_no_proc; struct sctpmpi_comm *comm; };

/* ---- the engine -------------------------------------------------------------------------- */
struct sm_peer {
    int64_t credit;           /* eager bytes we may still send to this peer */
    int64_t credit_owed;      /* bytes consumed here, not yet returned to the peer */
    int failed;
    struct sm_msg *cur_msg;   /* frame in flight from this peer (between begin and end) */
    struct sctpmpi_request *cur_req;
    uint64_t cur_dst_off;
};

struct sm_engine {
    int rank, size;
    const struct sm_transport_ops *tp_ops;
    struct sm_transport *tp;
    int lanes;
    struct sm_peer *peers;
    size_t eager_limit;       /* SCTPMPI_EAGER_LIMIT */
    size_t segment;           /* SCTPMPI_RNDV_SEGMENT */
    int64_t credit_window;    /* SCTPMPI_EAGER_CREDIT */
    size_t unexpected_max;    /* SCTPMPI_UNEXPECTED_MAX: bytes of unexpected data before error */
    size_t unexpected_bytes, unexpected_peak_bytes;
    size_t unexpected_count, unexpected_peak, early_peak;
    long spin_ns, block_us;
    struct sm_list posted;    /* posted receives in posting order */
    struct sm_list unexpected;/* in-order arrivals without a receive */
    struct sm_map send_seq;   /* (dst, ctx) -> next seq (stored as pointer-sized integer) */
    struct sm_map order;      /* (src, ctx) -> struct sm_order */
    struct sm_map relaxed;    /* ctx + 1 -> non-NULL: its sends carry SM_FL_RELAXED (no ordering) */
    struct sm_list self_q;    /* frames to self, delivered in progress */
    struct sm_list waiting_sends; /* sends that need an answer from their peer */
    int in_progress;
    uint64_t stats_eager, stats_rndv, stats_early_matched;
};
extern struct sm_engine sm_eng;

static inline uint64_t sm_key(int rank, uint32_t ctx)
{
    return ((uint64_t)(uint32_t)rank << 32) | ctx;
}

/* request.c */
struct sctpmpi_request *sm_req_alloc(int kind);
void sm_req_release(struct sctpmpi_request *r); /* back to the pool */
struct sctpmpi_request *sm_req_by_id(uint64_t id);
void sm_req_complete(struct sctpmpi_request *r);
void sm_req_pool_fini(void);
void sm_bsend_uncharge(size_t bytes); /* api/bsend.c: attached-buffer space is free again */

/* order.c: the ordering rule */
struct sm_order;
struct sm_order *sm_order_get(int src, uint32_t ctx);
uint32_t sm_order_next(const struct sm_order *o);
/* an EAGER/RTS header arrived; returns 1 if in order */
int sm_order_is_next(const struct sm_order *o, uint32_t seq);
/* the missing (not arrived, not reserved) sequence numbers in [next, seq): returns how many,
 * writes the first max of them, lowest first, to out */
uint32_t sm_order_missing(const struct sm_order *o, uint32_t seq, uint32_t *out, uint32_t max);
/* 1 if a message below seq (with this tag; tag < 0: any) arrived early and still waits */
int sm_order_waiting_before(const struct sm_order *o, uint32_t seq, int tag);
void sm_order_reserve(struct sm_order *o, uint32_t seq, struct sctpmpi_request *r);
struct sctpmpi_request *sm_order_take_reservation(struct sm_order *o, uint32_t seq);
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
struct sctpmpi_request *sm_match_in_order(struct sm_order *o, const struct sm_msg *m);
struct sctpmpi_request *sm_match_early(struct sm_order *o, const struct sm_msg *m);
struct sm_msg *sm_unexpected_find(int src_world, uint32_t ctx, int tag, int remove);
void sm_unexpected_add(struct sm_msg *m);
void sm_unexpected_remove(struct sm_msg *m);
void sm_unexpected_charge(size_t bytes);
void sm_unexpected_uncharge(size_t bytes);
void sm_msg_free(struct sm_msg *m);
void sm_recv_set_envelope(struct sctpmpi_request *r, int src_world, int tag, size_t size);
int sm_cancel_arrived(int src, uint32_t ctx, uint32_t seq);
void sm_fail_receives_from(int world);
int sm_recv_post(struct sctpmpi_request *r);
void sm_req_fail_recvs_from(int world); /* rank gone: fail receives it was feeding */  /* match against unexpected or queue */
void sm_recv_deliver(struct sctpmpi_request *r, struct sm_msg *m); /* consume m into r */
int sm_recv_matches(const struct sctpmpi_request *r, const struct sm_msg *m);
int sm_cancel_recv(struct sctpmpi_request *r);

/* protocol.c */
int sm_send_start(struct sctpmpi_request *r);
int sm_cancel_send(struct sctpmpi_request *r);
void *sm_up_frame_begin(void *ctx, int peer, const struct sm_frame_hdr *h);
void sm_up_frame_end(void *ctx, int peer, const struct sm_frame_hdr *h, void *payload);
void sm_up_send_done(void *ctx, void *cookie);
void sm_up_peer_failed(void *ctx, int peer, const char *why);
void sm_send_cts(struct sctpmpi_request *r, struct sm_msg *m);
void sm_send_sync_ack(int peer, uint64_t sreq);

/* contexts whose communicator asserted mpi_assert_allow_overtaking: arrivals are matched
 * as they come, without sequence bookkeeping (protocol.c) */
void sm_ctx_set_relaxed(uint32_t ctx, int relaxed);

/* flowctl.c */
int sm_credit_take(int peer, uint32_t bytes);
void sm_credit_consumed(int peer, uint32_t bytes);
void sm_credit_returned(int peer, uint64_t bytes);
static inline uint32_t sm_credit_cost(size_t payload) { return (uint32_t)payload + 64; }

/* frames.c */
/* returns 0 sent, 1 pending (send_done(cookie) later), < 0 MPI error class */
int sm_frame_send(int peer, int lane, struct sm_frame_hdr *h, const void *payload, size_t len,
                  void *cookie);
void sm_frame_init(struct sm_frame_hdr *h, int type);
int sm_lane_for(int peer, uint32_t ctx, int tag);   /* lane with the rail (transport.h) */
#define SM_MAX_RAILS 8
int sm_rails(int peer, struct sm_rail_load *load, int max);
int sm_stripe_lane(int peer, int lane, size_t window); /* -1: every rail is busy */
int sm_self_progress(void);

/* progress.c */
int sm_engine_start(void);
int sm_engine_stop(void);
void sm_engine_free_state(void); /* queues, ordering state, requests (after the transport) */
int sm_progress_poll(void);
/* fn runs at every progress poll, outside transport upcalls (it may start and test requests,
 * never block); returns how many things it advanced */
void sm_progress_hook_add(int (*fn)(void));
/* progress until done(arg) is true */
int sm_progress_until(int (*done)(void *), void *arg);
void sm_engine_stats(FILE *f);

#endif
