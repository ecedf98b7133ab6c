/* coll_util.h — helpers shared by the collective files: the collective context of a
 * communicator (ctx + 1), argument checks, buffer arithmetic and the algorithms' size
 * thresholds. */
#ifndef SCTPMPI_COLL_UTIL_H
#define SCTPMPI_COLL_UTIL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

#define CCTX(c) ((c)->ctx + 1)

/* argument checks shared by the collectives (move.c) */
int sm_coll_check(MPI_Comm c, const char *fn); /* a valid intracommunicator */
int sm_coll_check_buf(MPI_Comm c, const void *buf, int count, MPI_Datatype dt, const char *fn);
int sm_coll_check_root(MPI_Comm c, int root, const char *fn);
/* root and buffers of (I)Gather(v) / (I)Scatter(v); the communicator is checked already.
 * Null counts/displs mean the non-v form (count scount or rcount for every rank). */
int sm_coll_check_gather_args(MPI_Comm c, const void *sbuf, int scount, MPI_Datatype st,
                              const void *rbuf, int rcount, const int *rcounts, const int *displs,
                              MPI_Datatype rt, int root, int is_v, const char *fn);
int sm_coll_check_scatter_args(MPI_Comm c, const void *sbuf, int scount, const int *scounts,
                               const int *displs, MPI_Datatype st, const void *rbuf, int rcount,
                               MPI_Datatype rt, int root, int is_v, const char *fn);
/* intercommunicators (inter.c) */
int sm_inter_check_root(MPI_Comm c, int root, const char *fn); /* MPI_ROOT, PROC_NULL or remote */
int sm_inter_no_in_place(MPI_Comm c, const void *buf, const char *fn);

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

/* size thresholds of the algorithm choices (algo.c; docs/tunables.md) */
struct sm_coll_tun {
    size_t
        bcast_large;  /* SCTPMPI_COLL_BCAST_LARGE: bytes >= this (and > 2 ranks): van de Geijn */
    size_t ag_bruck;  /* SCTPMPI_COLL_ALLGATHER_BRUCK: block bytes <= this: Bruck */
    size_t ag_ring;   /* SCTPMPI_COLL_ALLGATHER_RING: total bytes >= this: ring */
    size_t a2a_bruck; /* SCTPMPI_COLL_ALLTOALL_BRUCK: block bytes <= this (> 2 ranks): Bruck */
    size_t redscat_pairwise; /* SCTPMPI_COLL_REDSCAT_PAIRWISE: total bytes >= this: pairwise */
    size_t allreduce_rab;    /* SCTPMPI_COLL_ALLREDUCE_RABENSEIFNER: bytes >= this (commutative
                                op, count >= power of two below n): reduce-scatter + allgather */
};
const struct sm_coll_tun *sm_coll_tunables(void);

#endif
