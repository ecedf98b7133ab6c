/* coll_util.h — helpers shared by the collective files: typed point-to-point on a
 * communicator's collective context (ctx + 1), waits, buffer arithmetic. */
#ifndef SCTPMPI_COLL_UTIL_H
#define SCTPMPI_COLL_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

#define CCTX(c) ((c)->ctx + 1)

/* argument checks shared by the blocking and non-blocking collectives (coll_move.c) */
int sm_coll_check(MPI_Comm c, const char *fn);
int sm_coll_check_buf(MPI_Comm c, const void *buf, int count, MPI_Datatype dt, const char *fn);
int sm_coll_check_root(MPI_Comm c, int root, const char *fn);
/* root and buffers of (I)Gather(v) / (I)Scatter(v); the communicator is checked already.
 * Null counts/displs mean the non-v form (count scount or rcount for every rank). */
int sm_coll_check_gather_args(MPI_Comm c, const void *sbuf, int scount, MPI_Datatype st,
                              const void *rbuf, int rcount, const int *rcounts,
                              const int *displs, MPI_Datatype rt, int root, int is_v,
                              const char *fn);
int sm_coll_check_scatter_args(MPI_Comm c, const void *sbuf, int scount, const int *scounts,
                               const int *displs, MPI_Datatype st, const void *rbuf,
                               int rcount, MPI_Datatype rt, int root, int is_v,
                               const char *fn);

static inline int c_send(const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c)
{
    MPI_Request r;
    sm_isend_dt(b, n, t, dst, tag, c, CCTX(c), SM_MODE_STANDARD, &r);
    return sm_wait_one(&r, MPI_STATUS_IGNORE);
}

static inline int c_recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c)
{
    MPI_Request r;
    sm_irecv_dt(b, n, t, src, tag, c, CCTX(c), &r);
    return sm_wait_one(&r, MPI_STATUS_IGNORE);
}

static inline int c_sendrecv(const void *sb, int sn, MPI_Datatype st, int dst, void *rb, int rn,
                             MPI_Datatype rt, int src, int tag, MPI_Comm c)
{
    MPI_Request r[2];
    sm_irecv_dt(rb, rn, rt, src, tag, c, CCTX(c), &r[0]);
    sm_isend_dt(sb, sn, st, dst, tag, c, CCTX(c), SM_MODE_STANDARD, &r[1]);
    int e1 = sm_wait_one(&r[1], MPI_STATUS_IGNORE);
    int e0 = sm_wait_one(&r[0], MPI_STATUS_IGNORE);
    return e0 ? e0 : e1;
}

static inline int c_waitall(int n, MPI_Request *r)
{
    int err = 0;
    for (int i = 0; i < n; i++) {
        int e = sm_wait_one(&r[i], MPI_STATUS_IGNORE);
        if (e && !err)
            err = e;
    }
    return err;
}

/* address of element i of a buffer of type t */
/* element i of buf; integer arithmetic, as buf may be MPI_BOTTOM (absolute displacements) */
static inline void *at(const void *buf, MPI_Aint i, MPI_Datatype t)
{
    return (void *)((uintptr_t)buf + (uintptr_t)(i * t->extent));
}

/* buf + off bytes, MPI_BOTTOM included */
static inline void *at_bytes(const void *buf, MPI_Aint off)
{
    return (void *)((uintptr_t)buf + (uintptr_t)off);
}

/* size thresholds of the algorithm choices (coll_algo.c; docs/tunables.md) */
struct sm_coll_tun {
    size_t bcast_large;      /* SCTPMPI_COLL_BCAST_LARGE: bytes >= this (and > 2 ranks): van de Geijn */
    size_t ag_bruck;         /* SCTPMPI_COLL_ALLGATHER_BRUCK: block bytes <= this: Bruck */
    size_t ag_ring;          /* SCTPMPI_COLL_ALLGATHER_RING: total bytes >= this: ring */
    size_t a2a_bruck;        /* SCTPMPI_COLL_ALLTOALL_BRUCK: block bytes <= this (> 2 ranks): Bruck */
    size_t redscat_pairwise; /* SCTPMPI_COLL_REDSCAT_PAIRWISE: total bytes >= this: pairwise */
    size_t allreduce_rab;    /* SCTPMPI_COLL_ALLREDUCE_RABENSEIFNER: bytes >= this (commutative
                                op, count >= power of two below n): reduce-scatter + allgather */
};
const struct sm_coll_tun *sm_coll_tunables(void);
int sm_coll_allgather_bruck(void *rbuf, int rcount, MPI_Datatype rt, int tag, MPI_Comm c);
int sm_coll_bcast_scatter_ring(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c);
int sm_coll_alltoall_bruck(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                           int rcount, MPI_Datatype rt, MPI_Comm c);
/* Recursive-doubling allreduces on n ranks that are not a power of two (pof2 = the largest
 * power of two <= n): the first 2 (n - pof2) ranks pair up before the exchange — an even rank
 * hands its vector (rbuf) to its odd neighbour, which combines it as the lower rank's data
 * (tmp: count elements of scratch) — and after it the odd one hands the result back.
 * pof2_enter returns the rank's number within the power of two, or -1 for a rank that waits;
 * pof2_real maps that number back to a rank.  The first error is kept in *err. */
int sm_coll_pof2_enter(void *rbuf, void *tmp, int count, MPI_Datatype dt, MPI_Op op, int pof2,
                       int tag, MPI_Comm c, int *err);
void sm_coll_pof2_leave(void *rbuf, int count, MPI_Datatype dt, int pof2, int tag, MPI_Comm c,
                        int *err);
static inline int sm_coll_pof2_real(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}
/* rbuf holds this rank's contribution; on return the reduction over all ranks */
int sm_coll_allreduce_rabenseifner(void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int tag,
                                   MPI_Comm c);
int sm_coll_reduce_scatter_pairwise(const void *sbuf, void *rbuf, const int *counts,
                                    MPI_Datatype dt, MPI_Op op, MPI_Comm c);

/* intercommunicator collectives (coll_inter.c): full MPI semantics, report their own errors */
int sm_inter_check_root(MPI_Comm c, int root, const char *fn); /* MPI_ROOT, PROC_NULL or remote */
int sm_inter_no_in_place(MPI_Comm c, const void *buf, const char *fn);
int sm_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c);
int sm_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                    MPI_Comm c);
int sm_inter_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                       MPI_Comm c);
int sm_inter_allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                       MPI_Datatype rt, MPI_Comm c);
int sm_inter_gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                    MPI_Datatype rt, int root, MPI_Comm c);
int sm_inter_scatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                     MPI_Datatype rt, int root, MPI_Comm c);
int sm_inter_alltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      MPI_Datatype rt, MPI_Comm c);

#endif
