/* engine.h — the engine's public interface, the one header the API layer (src/api/, src/coll/)
 * uses: communicators as the engine sees them, requests, matched-probe messages, starting
 * sends and receives, cancelling, probing, completion and progress.  Everything else of the
 * engine (arrived messages, ordering state, protocols, the engine singleton) is internal:
 * engine/engine_internal.h, included only by src/engine/ and its unit tests.
 *
 * Files of the engine:
 *   request.c   request allocation, ids, completion, failing receives of a lost rank
 *   order.c     per-(sender, context) sequence tracking, early arrivals, reservations (the ordering rule)
 *   match.c     posted-receive and unexpected queues, matching, probes
 *   protocol.c  eager / synchronous / rendezvous / cancel senders, frame checks and handlers
 *   stripe.c    a rendezvous's DATA segments: at once, striped over rails, or through a pack ring
 *   flowctl.c   eager credits per peer
 *   frames.c    building frames and handing them to the transport (or the self path)
 *   world.c     world rank and size, the eager limit, world -> communicator ranks
 *   progress.c  the progress loop (spin, then block) and engine start/stop (src/boot/ boots)
 * The engine works on contiguous byte buffers; the API layer turns (buf, count, datatype) into
 * bytes. */
#ifndef SCTPMPI_ENGINE_H
#define SCTPMPI_ENGINE_H

#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include "engine/wire.h"
#include "mpi.h"
#include "util/util.h"

/* ---- communicators (engine view) -------------------------------------------------------- */
struct sctpmpi_errhandler {
    int kind; /* SM_EH_FATAL, SM_EH_RETURN, SM_EH_ABORT, SM_EH_USER */
    MPI_Comm_errhandler_function *fn;
    int refcount;
};
enum { SM_EH_FATAL = 1, SM_EH_RETURN, SM_EH_ABORT, SM_EH_USER };

struct sctpmpi_comm {
    int valid;             /* 0 for freed/null objects */
    int rank, size;        /* this process in the communicator */
    uint32_t ctx;          /* point-to-point context id; ctx + 1 is the collective context */
    int *world_of;         /* comm rank -> world rank (NULL: identity) */
    struct sm_map rank_of; /* world rank + 1 -> comm rank + 1 (empty map: identity) */
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    int coll_tag;          /* sequence for internal collective tags */
    struct sm_comm_ext *x; /* API-layer state (groups, attributes, topology, info): api.h */
};

static inline int sm_comm_world_rank(const struct sctpmpi_comm *c, int r)
{
    return c->world_of ? c->world_of[r] : r;
}
int sm_comm_rank_of_world(const struct sctpmpi_comm *c, int world); /* -1 if not a member */

/* ---- requests ---------------------------------------------------------------------------- */
enum sm_req_kind {
    SM_REQ_SEND = 1,
    SM_REQ_RECV,
    SM_REQ_DONE /* pre-completed (PROC_NULL) */,
    SM_REQ_GREQ /* generalized request (api/requests.c) */
};
enum sm_send_mode { SM_MODE_STANDARD, SM_MODE_SYNC, SM_MODE_READY, SM_MODE_BUFFERED };

/* The engine's request.  The API layer's request (MPI_Request, struct sm_req in
 * api/api.h) embeds it as its first member `base` and adds what only the API needs (owned
 * buffers, persistent arguments, datatype hooks); the engine sees only this part. */
struct sm_req {
    struct sm_list link; /* posted queue / reservation list */
    uint64_t id;         /* wire id: slot index | generation << 32 */
    int kind;
    volatile int complete;
    int freed; /* MPI_Request_free called while active */
    int cancel_pending;
    MPI_Status status;
    /* message spec */
    void *buf; /* contiguous bytes (send: user buffer or bsend copy) */
    size_t bytes;
    int peer; /* rank in comm (or ANY_SOURCE / PROC_NULL) */
    int tag;
    struct sctpmpi_comm *comm;
    uint32_t ctx;
    int mode;
    /* send state */
    int wpeer;              /* send: destination world rank; recv: source world rank or -1 */
    struct sm_list waiting; /* in sm_eng.waiting_sends: needs CTS, sync ack or cancel answer */
    uint32_t seq;
    int io_pending; /* transport sends still referencing buf */
    int await_sync; /* synchronous eager: waiting for SYNC_ACK */
    int await_cts;  /* rendezvous: RTS sent, waiting for CTS */
    int matched;    /* the receiver matched this send (sync ack / CTS seen) */
    /* receive state */
    size_t msg_size; /* size of the matched message */
    size_t received; /* bytes placed so far (rendezvous) */
    int reserved;    /* bound to a missing message by the ordering rule */
    uint64_t t_us;   /* timing.c: RTS sent (send) / CTS sent (receive) */
    /* completion hook (API layer: unpack a derived-type receive, advance a collective, give
     * back buffered-send space); called by sm_req_complete before a freed request is released */
    void (*on_complete)(struct sm_req *r);
    /* release hook (API layer: free what the request owns); called by sm_req_release */
    void (*on_release)(struct sm_req *r);
    /* streamed rendezvous of a non-contiguous buffer (API layer sets them; docs/design.md):
     * send: buf is NULL and each DATA segment is packed by pack_seg into a small ring of
     * segment buffers (stripe.c); receive: DATA segments bypass buf and unpack_seg puts
     * each at its packed offset straight into the user's layout */
    void (*pack_seg)(struct sm_req *r, size_t off, size_t n, void *out);
    void (*unpack_seg)(struct sm_req *r, size_t off, const void *in, size_t n);
};

/* ---- matched probes (MPI_Mprobe/Improbe): a message taken off the unexpected queue ------ */
struct sm_msg; /* engine-internal */
struct sctpmpi_message {
    struct sm_msg *msg;
    int is_no_proc;
    struct sctpmpi_comm *comm;
};

/* the envelope of an arrived message, as a probe reports it */
struct sm_envelope {
    int src; /* world rank of the sender */
    int tag;
    size_t size; /* bytes */
};

/* ---- the engine's public calls ------------------------------------------------------------ */
/* requests (request.c) */
/* a request of kind in an object of obj_size bytes (>= sizeof(struct sm_req), zeroed) whose
 * first member is the engine's request: the API layer allocates its wrapper here */
struct sm_req *sm_req_alloc(int kind, size_t obj_size);
/* a request that completes at once (MPI_PROC_NULL peers, buffered sends already copied) */
struct sm_req *sm_req_done(int source, size_t obj_size);
void sm_req_release(struct sm_req *r); /* back to the pool */
void sm_req_complete(struct sm_req *r);
/* 1 if a request not yet released refers to communicator c */
int sm_req_any_for_comm(const struct sctpmpi_comm *c);
/* the message spec of a send or receive: peer is a rank of comm (ANY_SOURCE for a receive),
 * ctx the context id it travels in; sets the world rank and, for sends, the status */
void sm_req_init(struct sm_req *r, struct sctpmpi_comm *comm, uint32_t ctx, int peer, int tag,
                 int mode);
/* a persistent request starts again: its protocol state is reset (the status is the caller's) */
void sm_req_restart(struct sm_req *r);

/* point-to-point (protocol.c, match.c) */
int sm_send_start(struct sm_req *r);
int sm_recv_post(struct sm_req *r);
int sm_cancel_send(struct sm_req *r);
int sm_cancel_recv(struct sm_req *r);
/* the first in-order unexpected message from src_world (-1: any) in ctx with tag (ANY_TAG:
 * any): 1 and its envelope in *env if there is one; with take, it leaves the queue and *msg
 * is the engine's handle for sm_recv_matched */
int sm_probe(int src_world, uint32_t ctx, int tag, int take, struct sm_envelope *env,
             struct sm_msg **msg);
/* receive r (buffer set, comm set) takes the message a matched probe took */
void sm_recv_matched(struct sm_req *r, struct sm_msg *m);

/* contexts whose communicator asserted mpi_assert_allow_overtaking: arrivals are matched
 * as they come, without sequence bookkeeping (protocol.c) */
void sm_ctx_set_relaxed(uint32_t ctx, int relaxed);

/* the job and the engine's limits */
int sm_world_rank(void);
int sm_world_size(void);
size_t sm_eager_limit(void); /* largest message sent eagerly (bytes) */

/* processes of other jobs: dynamic processes (peers_dyn.c) */
int sm_peer_count(void); /* this job's ranks and the other jobs' processes known */
uint32_t sm_job_id(void);
/* peer index w's universe identity (job id, rank in that job), its job's secret and its
 * business card: 0, or -1 if there is no such peer */
int sm_peer_describe(int w, uint32_t *job, int *rank, const char **secret, const char **card);
/* the peer index of process rank of job (added when new; card and secret may be NULL when
 * not known yet); < 0: minus an MPI error class */
int sm_peer_add(uint32_t job, int rank, const char *card, const char *secret);
/* a transport that can reach other jobs is up: 0, or minus an MPI error class */
int sm_dyn_transport_ready(void);
const char *sm_dyn_transport_name(void); /* "" while there is no transport */

/* start, stop and progress (progress.c) */
int sm_engine_start(void);
int sm_engine_stop(void);
int sm_progress_poll(void);
/* fn runs at every progress poll, outside transport upcalls (it may start and test requests,
 * never block); returns how many things it advanced */
void sm_progress_hook_add(int (*fn)(void));
/* progress until done(arg) is true */
int sm_progress_until(int (*done)(void *), void *arg);

#endif
