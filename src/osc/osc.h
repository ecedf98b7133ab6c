/* osc.h — internal interface of one-sided communication (MPI RMA windows) over the RDMA layer.
 *
 * Files of src/osc/ (docs/rma.md describes the protocol):
 *   osc_peer.c    one sm_rdma queue pair per peer (lazy), receive pools, credits, the send
 *                 queue, the channel receiver and the waiting loop of the application thread
 *   osc_target.c  the target side: the MPI messages carried by RDMAP Sends, applied under the
 *                 channel lock (accumulates, fetches, flush, lock, PSCW)
 *   osc_win.c     window creation flavours, free, group, attributes, info, name, error handler
 *   osc_shm.c     shared-memory windows (Win_allocate_shared, Win_shared_query)
 *   osc_ops.c     origin side of Put/Get/Accumulate/Get_accumulate/Fetch_and_op/CAS and the
 *                 request-based variants: checks, flattening, RDMA Writes/Reads and messages
 *   osc_fence.c, osc_pscw.c, osc_lock.c   the three synchronisation modes, flush, sync
 *   osc_large.c   the MPI-4 _c variants
 *
 * Locking: every field that the channel receiver touches (peers, queues, counters in windows,
 * lock state, pending operations) is guarded by sm_rma_chan_lock().  The application thread
 * takes it once around its work and drops it only to call sm_rma_chan_progress(). */
#ifndef SCTPMPI_OSC_H
#define SCTPMPI_OSC_H

#include <stdint.h>

#include "api/api.h"
#include "engine/rma_channel.h"
#include "rdma.h"

/* receive pool per peer: OSC_POOL buffers of OSC_BUFSZ bytes; a Send never exceeds OSC_BUFSZ */
#define OSC_POOL 32
#define OSC_BUFSZ 16384
#define OSC_MAX_WINDOWS 4096
/* Writes/Reads to one peer between two Sends (see osc_peer.c enqueue) */
#define OSC_NONSEND_MAX 1024
/* a target datatype of more than this many blocks averaging under OSC_SMALL_BLOCK bytes goes
 * as messages that carry the block list instead of one RDMA Write/Read per block */
#define OSC_MANY_BLOCKS 64
#define OSC_SMALL_BLOCK 1024

/* message types (first byte of every RDMAP Send between osc layers) */
enum {
    OSC_M_ACC = 1,    /* apply op to target blocks with the data that follows */
    OSC_M_GACC,       /* same, replying with the previous contents (GACC_REPLY) */
    OSC_M_GACC_REPLY, /* origin: data for an operation record at an offset */
    OSC_M_CAS,        /* compare-and-swap of one element: origin value, compare value */
    OSC_M_FLUSH,      /* target: answer FLUSH_ACK once everything before is applied */
    OSC_M_FLUSH_ACK,
    OSC_M_LOCK, /* flags: 1 exclusive, 2 shared */
    OSC_M_LOCK_GRANT,
    OSC_M_UNLOCK, /* release, then UNLOCK_ACK */
    OSC_M_UNLOCK_ACK,
    OSC_M_POST,     /* PSCW: the target exposes its window to this origin */
    OSC_M_COMPLETE, /* PSCW: the origin's access epoch to this target ended */
    OSC_M_NOP       /* nothing (bounds the Writes/Reads in flight; no window) */
};

/* the header of every message (little room: 40 bytes), then nblk blocks, then data */
struct osc_msg {
    uint8_t type, op, dtype, flags;
    uint32_t win;   /* the receiver's local window id */
    int32_t origin; /* the sender's rank in the window */
    uint32_t nblk;  /* target blocks following the header */
    uint64_t tag;   /* GACC/CAS: the origin's operation record; REPLY: the same */
    uint64_t off;   /* REPLY: offset of the data in the record's buffer */
    uint64_t len;   /* data bytes after the blocks */
};
struct osc_blk {
    uint64_t disp; /* byte offset from the window base (dynamic windows: absolute address) */
    uint64_t len;
};

/* what each rank tells the others about its part of a window (allgather at creation) */
struct osc_rinfo {
    uint64_t size;
    uint64_t base; /* address (shared windows, dynamic windows) */
    int32_t disp_unit;
    uint32_t stag;
    uint32_t id;
    uint32_t credit_stag;
    int32_t world;
    int32_t pad;
};

/* origin-side state of the window towards one target rank */
struct osc_tstate {
    int lock_type; /* 0, MPI_LOCK_EXCLUSIVE or MPI_LOCK_SHARED (this origin holds it) */
    int granted;
    uint64_t acks; /* FLUSH_ACK + UNLOCK_ACK received */
    uint64_t acks_wanted;
    int posts;      /* POST messages received, not yet consumed by Win_start */
    int dirty;      /* operations issued since the last flush */
    int fetch_last; /* the last one was answered (Get, fetching accumulate): its answer
                            proves every earlier one complete, no FLUSH needed */
    int in_access;  /* PSCW access group member */
};

/* an operation whose data comes back (Get, Get_accumulate, Fetch_and_op, CAS) */
struct osc_op {
    struct osc_op *next;
    int target;
    int outstanding; /* reads / replies not yet arrived (channel lock) */
    uint8_t *tmp;    /* packed result (or the program's buffer itself when direct) */
    int direct;      /* a contiguous RDMA Get reads straight into the program's buffer */
    size_t tmp_len;
    uint32_t tmp_stag; /* registered for RDMA Read sinks (0: not registered) */
    void *ubuf;        /* where the result goes */
    int ucount;
    MPI_Datatype udt;
    int failed;
    struct sctpmpi_request *req; /* Rget / Rget_accumulate: completed by a waiter (osc_ops.c) */
    int settled;                 /* unpacked and off the window's list; the waiter frees it */
};

struct osc_region {
    uint64_t base, len;
    struct osc_region *next;
}; /* dynamic windows */

struct osc_lockwait {
    int origin, type;
};

struct sctpmpi_win {
    int valid;
    uint32_t id;
    int flavor, model;
    MPI_Comm comm; /* private duplicate of the creating communicator */
    int rank, size;
    void *base;
    MPI_Aint wsize;
    int disp_unit;
    uint32_t stag; /* this rank's window region (0 size: none) */
    int have_stag;
    struct osc_rinfo *peers; /* per window rank */
    struct osc_tstate *t;    /* per window rank */
    MPI_Errhandler errh;
    char name[MPI_MAX_OBJECT_NAME];
    MPI_Info info;
    struct sm_attr *attrs;
    MPI_Aint attr_size;
    int attr_disp_unit, attr_flavor, attr_model;
    /* epochs (application thread) */
    int fence_open; /* between fences that open an access epoch */
    int lock_all;
    int pscw_access;   /* between Win_start and Win_complete */
    int pscw_exposure; /* between Win_post and Win_wait */
    int expose_count;  /* origins in the post group */
    int *access_ranks; /* the start group as window ranks */
    int naccess;
    int nlocks; /* Win_lock epochs open */
    /* target side (channel lock) */
    int excl_holder; /* -1 none */
    int shared_count;
    struct osc_lockwait *waitq;
    int nwait, capwait;
    int completes;              /* COMPLETE messages received */
    struct osc_region *regions; /* dynamic windows: attached memory */
    struct osc_op *ops;         /* pending operations (origin side) */
    /* shared windows */
    void *shm_base;
    size_t shm_len;
};

/* ---- osc_peer.c ---- */
int sm_osc_init(void); /* first window: domain, queues, channel */
extern sm_rdma_pd *sm_osc_pd;
uint32_t sm_osc_credit_stag(void);
void sm_osc_learn_peer(int world, uint32_t credit_stag);
/* queue a message (header + blocks + data copied) to world rank peer */
int sm_osc_send(int peer, const struct osc_msg *h, const void *blocks, size_t blen,
                const void *data, size_t dlen);
/* queue an RDMA Write from a staging buffer / a Read into an operation's sink */
struct osc_stage;
/* data: a malloc'ed buffer the stage adopts (borrowed 0) or origin memory it only reads
 * (borrowed 1) */
struct osc_stage *sm_osc_stage_new(void *data, size_t len, int borrowed);
void sm_osc_stage_put(struct osc_stage *s);  /* drop a reference */
void sm_osc_stage_done(struct osc_stage *s); /* drop the creator's: the Put call returns */
int sm_osc_write(int peer, struct osc_stage *s, size_t off, size_t len, uint32_t rstag,
                 uint64_t rto);
int sm_osc_read(int peer, struct osc_op *op, size_t off, size_t len, uint32_t rstag,
                uint64_t rto);
int sm_osc_peer_failed(int peer);
/* one step of waiting: drops the channel lock, runs progress, retakes it, polls */
void sm_osc_step(int *spins);
struct sctpmpi_win *sm_osc_win_by_id(uint32_t id);
uint32_t sm_osc_win_register(struct sctpmpi_win *w);
void sm_osc_win_unregister(struct sctpmpi_win *w);

/* ---- osc_target.c ---- */
void sm_osc_handle(int peer, const uint8_t *msg, size_t len);
/* apply one message's blocks to local memory; out (may be NULL) receives the old bytes */
int sm_osc_apply(struct sctpmpi_win *w, int op, int dtype, const struct osc_blk *b, uint32_t nblk,
                 const uint8_t *data, uint8_t *out);
void sm_osc_lock_request(struct sctpmpi_win *w, int origin, int type);
void sm_osc_lock_release(struct sctpmpi_win *w, int origin);
MPI_Op sm_osc_op_of(int code);
int sm_osc_op_code(MPI_Op op);
MPI_Datatype sm_osc_dt_of(int code);
int sm_osc_dt_code(MPI_Datatype dt);

/* ---- osc_win.c ---- */
int sm_osc_check_win(MPI_Win win, const char *fn);
int sm_osc_error(MPI_Win win, int err, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int sm_osc_win_setup(MPI_Comm comm, void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                     int flavor, MPI_Win *win, const char *fn);

/* ---- osc_ops.c ---- */
/* wait for the pending operations to target (-1: all) and finish them (unpack results) */
int sm_osc_complete_ops(struct sctpmpi_win *w, int target);
/* flush: every operation to target (-1: every dirty target) is complete there */
int sm_osc_flush(struct sctpmpi_win *w, int target, int only_dirty);
int sm_osc_rma(MPI_Win win, int kind, const void *oaddr, int ocount, MPI_Datatype odt,
               void *raddr, int rcount, MPI_Datatype rdt, const void *caddr, int target,
               MPI_Aint tdisp, int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Request *req,
               const char *fn);
enum { OSC_PUT = 1, OSC_GET, OSC_ACC, OSC_GACC, OSC_FOP, OSC_CAS };

/* ---- osc_shm.c ---- */
int sm_osc_shm_alloc(MPI_Comm comm, MPI_Aint size, void **base, void **shm_base, size_t *shm_len,
                     MPI_Aint **sizes);
void sm_osc_shm_free(void *shm_base, size_t len);

/* ---- attr.c: window attributes ---- */
int sm_win_attr_set(MPI_Win w, int keyval, void *val, const char *fn);
int sm_win_attr_get(MPI_Win w, int keyval, void *val, int *flag, const char *fn);
int sm_win_attr_delete(MPI_Win w, int keyval, const char *fn);
int sm_win_attr_delete_all(MPI_Win w);

#endif
