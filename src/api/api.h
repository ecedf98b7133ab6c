/* api.h — what the MPI API layer shares: state of the library (initialised, finalised),
 * datatype objects, argument checking and error reporting through error handlers. */
#ifndef SCTPMPI_API_H
#define SCTPMPI_API_H

#include <stdarg.h>

#include "engine/engine.h"
#include "mpi.h"

#define SM_TAG_UB 0x3fffffff

/* one contiguous run of bytes of a derived type's element, relative to its start */
struct sm_dt_block {
    MPI_Aint disp;
    size_t len;
};
/* the type signature as runs of one predefined type */
struct sm_dt_sig {
    MPI_Datatype type;
    size_t count;
};

struct sctpmpi_datatype {
    int valid;
    int basic;   /* predefined */
    size_t size; /* bytes of data */
    MPI_Aint lb, extent;
    const char *name;
    /* derived types only (dtype.c); zero for predefined ones */
    int refcount; /* user handle + pending receives + containing types */
    int handles;  /* user handles: the constructor's + one per get_contents answer */
    int committed;
    MPI_Aint true_lb, true_extent;
    size_t psize; /* packed bytes of one element (predefined leaves travel as extent) */
    size_t nblocks;
    struct sm_dt_block *blocks;
    size_t
        *block_mark; /* packed offset of every SM_DT_MARK-th block (pack.c, built on first use) */
    size_t nsig;
    struct sm_dt_sig *sig;
    int combiner, ni, na, nt; /* get_envelope / get_contents */
    int *ints;
    MPI_Aint *aints;
    MPI_Datatype *types;
    char uname[MPI_MAX_OBJECT_NAME];
    struct sm_attr *attrs;
    struct sctpmpi_datatype *next_recycled; /* released objects awaiting reuse (dtype.c) */
};

struct sctpmpi_group {
    int valid;
    int size;
    int *world_of;
    int refcount;
};

/* internal reduction function: inout[i] = in[i] op inout[i] for count elements of dt */
typedef int sm_op_fn(const void *in, void *inout, int count,
                     MPI_Datatype dt); /* 0: type not supported */
struct sctpmpi_op {
    int valid;
    const char *name;
    int commute;
    sm_op_fn *fn;                /* predefined */
    MPI_User_function *user;     /* Op_create */
    MPI_User_function_c *user_c; /* Op_create_c (large_count_op.c): called instead of user */
    int refcount;                /* user ops: the handle + running non-blocking collectives */
};

/* API-layer state of a communicator (comm->x), allocated on demand */
struct sm_topo;
struct sm_comm_ext {
    int is_inter;
    int local_size;      /* intercomm: local group size (comm->size is the remote one) */
    int *local_world_of; /* intercomm: local rank -> world rank */
    struct sm_topo *topo;
    MPI_Info info;
    int assert_overtaking, assert_no_any_tag, assert_no_any_source;
    MPI_Comm local_comm; /* intercomm: hidden intracommunicator of the local group */
    uint32_t nbc_seq;    /* tags of non-blocking collectives */
    struct sm_attr *attrs;
};
struct sm_comm_ext *sm_comm_x(MPI_Comm c); /* allocates */
int sm_comm_is_inter(MPI_Comm c);

extern int sm_initialized, sm_finalized, sm_thread_level;

/* Report error class err from function fn on comm (MPI_COMM_NULL: COMM_WORLD's handler):
 * aborts for MPI_ERRORS_ARE_FATAL, else returns err. */
int sm_error(MPI_Comm comm, int err, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* argument checks: each returns MPI_SUCCESS or reports through sm_error */
int sm_check_init(const char *fn);
int sm_check_comm(MPI_Comm comm, const char *fn);
void sm_errh_retain(MPI_Errhandler e); /* user handlers are reference counted (errors.c) */
void sm_errh_release(MPI_Errhandler e);
/* the error path of every object kind that carries a handler (errors.c): eh RETURN gives err
 * back, a user handler is called with obj (an MPI_Comm *, MPI_Win *, MPI_File * or
 * MPI_Session * as kind says), any other handler prints "fn: class text: detail" and aborts
 * abort_comm */
enum sm_errh_obj { SM_ERRH_COMM, SM_ERRH_WIN, SM_ERRH_FILE, SM_ERRH_SESSION };
int sm_errh_vraise(MPI_Errhandler eh, enum sm_errh_obj kind, void *obj, int err,
                   MPI_Comm abort_comm, const char *fn, const char *fmt, va_list ap);
/* *slot takes e (its reference counted); the old handler is released */
void sm_errh_set(MPI_Errhandler *slot, MPI_Errhandler e);
/* a new handle on e for the caller, who frees it with MPI_Errhandler_free */
void sm_errh_get(MPI_Errhandler e, MPI_Errhandler *out);
/* the handler object of a user function of any kind (MPI_*_create_errhandler) */
MPI_Errhandler sm_errh_new_user(void (*fn)(void));
int sm_check_buffer(MPI_Comm c, const void *buf, int count, MPI_Datatype dt, const char *fn);
int sm_check_dest(MPI_Comm c, int rank, const char *fn);   /* PROC_NULL allowed */
int sm_check_source(MPI_Comm c, int rank, const char *fn); /* + ANY_SOURCE */
int sm_check_send_tag(MPI_Comm c, int tag, const char *fn);
int sm_check_recv_tag(MPI_Comm c, int tag, const char *fn); /* + ANY_TAG */

#define SM_TRY(expr)                                                                             \
    do {                                                                                         \
        int sm_rc_ = (expr);                                                                     \
        if (sm_rc_ != MPI_SUCCESS)                                                               \
            return sm_rc_;                                                                       \
    } while (0)

/* ---- requests (MPI_Request): the engine's request and what only the API layer needs ---- */
struct sctpmpi_request {
    struct sm_req base;     /* the engine's part (engine/engine.h); first member */
    int persistent, active; /* persistent requests: active between Start and completion */
    void *owned_buf;        /* memory the request owns: a packed copy, a generalized
                               * request's callbacks; freed with the request */
    size_t bsend_charge;    /* attached-buffer space a buffered send holds until it completes */
    /* persistent-request template (arguments of *_init) */
    const void *p_buf;
    int p_count;
    MPI_Datatype p_dt;
    /* what the completion hooks work on: the user's buffer or the owner object, count, type */
    void *hook_buf;
    int hook_count;
    MPI_Datatype hook_dt;
};
static inline struct sctpmpi_request *sm_request_of(struct sm_req *e)
{
    return sm_container_of(e, struct sctpmpi_request, base);
}
/* the one allocator of API requests (requests.c); sm_request_done: already complete */
struct sctpmpi_request *sm_request_alloc(int kind);
struct sctpmpi_request *sm_request_done(int source);

/* requests built from user arguments (p2p.c) */
int sm_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
             int mode, MPI_Request *req, const char *fn);
int sm_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Request *req, const char *fn);
int sm_isend_ctx(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm, uint32_t ctx,
                 MPI_Request *req);
int sm_irecv_ctx(void *buf, size_t bytes, int source, int tag, MPI_Comm comm, uint32_t ctx,
                 MPI_Request *req);
int sm_bsend_start(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   const char *fn);
/* completes and returns the request's error class (0) after filling status */
int sm_wait_one(MPI_Request *req, MPI_Status *status);
void sm_status_empty(MPI_Status *s);
void sm_bsend_drain(void); /* wait for every buffered send */
int sm_barrier_ctx(MPI_Comm comm, uint32_t ctx);

#define SM_CTX_FINALIZE 0xfffffff0u

/* ---- datatypes (dtype.c, pack.c) ---- */
static inline size_t sm_dt_psize(MPI_Datatype dt)
{
    return dt->basic ? (size_t)dt->extent : dt->psize;
}
/* 1 if count elements of dt are one contiguous run starting at buf + *off */
int sm_dt_contig(MPI_Datatype dt, int count, MPI_Aint *off);
void sm_dt_pack(const void *buf, int count, MPI_Datatype dt, void *out);
/* unpack at most bytes bytes (whole blocks, then a partial one) */
void sm_dt_unpack(const void *in, size_t bytes, void *buf, int count, MPI_Datatype dt);
/* bytes [off, off + n) of the packed form of (buf, count, dt), in any order of ranges:
 * pack them to out / unpack them from in (rendezvous segments of non-contiguous buffers) */
void sm_dt_pack_range(const void *buf, int count, MPI_Datatype dt, size_t off, size_t n,
                      void *out);
void sm_dt_unpack_range(const void *in, size_t off, size_t n, void *buf, int count,
                        MPI_Datatype dt);
void sm_dt_retain(MPI_Datatype dt);
void sm_dt_release(MPI_Datatype dt);
/* get_contents: the constituent types as new user handles (revived if the program freed them) */
void sm_dt_hand_out(MPI_Datatype *out, MPI_Datatype const *types, int n);
int sm_check_dt(MPI_Comm c, MPI_Datatype dt, const char *fn); /* valid (and committed) */
/* requests for (buf, count, dt) on an explicit context; derived types are packed / unpacked */
int sm_isend_dt(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                uint32_t ctx, int mode, MPI_Request *req);
int sm_irecv_dt(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                uint32_t ctx, MPI_Request *req);
/* bsend.c: attached-buffer space a completed buffered send held is free again */
void sm_bsend_uncharge(size_t charge);
/* a standard send of a private copy of the data (buffered sends), charging bsend_charge */
int sm_isend_copy(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  size_t bsend_charge, MPI_Request *req);
/* set a request's engine buffer from (buf, count, dt), packing / arranging the unpack */
void sm_req_send_buffer(struct sctpmpi_request *r, const void *buf, int count, MPI_Datatype dt);
void sm_req_recv_buffer(struct sctpmpi_request *r, void *buf, int count, MPI_Datatype dt);
/* copy count elements of st at src to rt at dst (type signatures assumed equal) */
void sm_dt_copy(const void *src, int scount, MPI_Datatype st, void *dst, int rcount,
                MPI_Datatype rt);
/* temp buffer able to hold count elements of dt; *base is what to free */
void *sm_dt_tmp(int count, MPI_Datatype dt, void **base);
/* basic elements in `bytes` packed bytes of dt (a pair type's element counts two), and the
 * packed bytes of the first `count` basic elements (pack.c) */
MPI_Count sm_dt_elements(MPI_Datatype dt, size_t bytes);
size_t sm_dt_elements_bytes(MPI_Datatype dt, MPI_Count count);

/* ---- reductions (op.c) ---- */
/* the predefined type a predefined op works on: dt itself, the only type of a derived type's
 * signature (MPI_BYTE for an empty one), or NULL when dt mixes types */
MPI_Datatype sm_op_leaf_type(MPI_Datatype dt);
int sm_op_check(MPI_Comm c, MPI_Op op, MPI_Datatype dt, const char *fn);
void sm_op_apply(MPI_Op op, const void *in, void *inout, int count, MPI_Datatype dt);
void sm_op_retain(MPI_Op op);  /* user ops only; predefined ones are left alone */
void sm_op_release(MPI_Op op); /* frees a user op after MPI_Op_free and the last release */

/* ---- communicators (comm_create.c) ---- */
uint32_t sm_ctx_agree(MPI_Comm parent); /* collective over parent */
/* freed communicators that pending requests still use are destroyed when the last one is
 * released (checked at every progress poll); at MPI_Finalize, whatever is left */
void sm_comm_reap_all(void);
MPI_Comm sm_comm_new(int rank, int size, const int *world_of, uint32_t ctx);
int sm_coll_tag(MPI_Comm c); /* next tag of a blocking collective on c */

/* ---- collectives used internally (src/coll/) on comm's collective context ---- */
int sm_coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c);
int sm_coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm c);
int sm_coll_allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      MPI_Datatype rt, MPI_Comm c);
int sm_coll_gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                   MPI_Datatype rt, int root, MPI_Comm c);

/* ---- groups (group.c) ---- */
MPI_Group sm_group_new(int size, const int *world_of); /* world_of NULL: identity */
MPI_Group sm_comm_local_group(MPI_Comm c);
int sm_group_compare(MPI_Group a, MPI_Group b);

/* ---- attributes (attr.c) ---- */
struct sm_attr;
int sm_attr_copy_all(MPI_Comm old, MPI_Comm newc); /* Comm_dup */
int sm_attr_delete_all(MPI_Comm c);                /* Comm_free */
int sm_attr_finalize(void);                        /* start of Finalize: SELF, WORLD */
int sm_type_attr_delete_all(MPI_Datatype t);
int sm_type_attr_copy_all(MPI_Datatype old, MPI_Datatype newt);

/* ---- info (info.c) ---- */
MPI_Info sm_info_dup(MPI_Info in);
void sm_info_free(MPI_Info in);
const char *sm_info_lookup(MPI_Info in, const char *key);

/* ---- topologies (topo.c) ---- */
void sm_topo_free(struct sm_topo *t);
struct sm_topo *sm_topo_dup(const struct sm_topo *t);
/* the neighbour lists of c's topology (MPI_ERR_TOPOLOGY without one), in the order the
 * neighbour collectives use; *in and *out are malloc'd */
int sm_topo_neighbors(MPI_Comm c, const char *fn, int *kind, int *indeg, int **in, int *outdeg,
                      int **out);

/* ---- non-blocking collectives (src/coll/sched.c) ---- */
int sm_nbc_is_request(MPI_Request r); /* MPI_Cancel must refuse these */

/* attr.c: a communicator attribute of a user keyval; misc.c: MPI_LASTUSEDCODE's value */
int sm_comm_attr_get(MPI_Comm comm, int keyval, void *out, int *flag);
int sm_last_used_code(void);

/* ---- MPI-4 requests (preq.c): persistent requests of kind SM_REQ_DONE whose
 * hook_buf points to an object that starts with its operations (persistent collectives,
 * partitioned requests); MPI_Start and MPI_Request_free dispatch to them */
struct sm_preq_ops {
    int (*start)(MPI_Request r);
    int (*free)(MPI_Request r); /* MPI_Request_free: releases r, or reports an error */
};
MPI_Request sm_preq_new(MPI_Comm comm, void *obj);
const struct sm_preq_ops *sm_preq_ops_of(MPI_Request r); /* NULL: not one of these */
/* composite requests polled from one progress hook until poll returns 1; then done runs */
struct sm_waiter {
    struct sm_waiter *next;
    int queued;
    int (*poll)(struct sm_waiter *w);
    void (*done)(struct sm_waiter *w);
};
void sm_waiter_add(struct sm_waiter *w);
void sm_waiter_remove(struct sm_waiter *w);
int sm_info_valid(MPI_Info info);           /* info.c */
void sm_bsend_session_freed(MPI_Session s); /* bsend.c: the session's buffer is forgotten */

#endif
