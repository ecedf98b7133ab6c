/* coll.h — the collectives' internal interface: the builders that add an algorithm's rounds to
 * a schedule (sched.h) without checking arguments, shared by the blocking, non-blocking and
 * persistent entry points, and the intercommunicator collectives of inter.c.
 *
 * Intracommunicator builders work on s->comm (move.c, reduce.c, barrier.c; the size-selected
 * algorithms are in algo.c).  Intercommunicator builders work on s->owner and may switch
 * s->comm to the hidden local communicator for some of their rounds. */
#ifndef SCTPMPI_COLL_H
#define SCTPMPI_COLL_H

#include "coll/sched.h"

/* per-peer counts, byte displacements and types of an Alltoall(v,w) (move.c) */
struct sm_a2a {
    int *sc, *rc;
    MPI_Aint *sd, *rd;
    MPI_Datatype *st, *rt;
};

/* ---- intracommunicator builders ---- */
void sm_build_barrier(struct sm_sched *s);
void sm_build_bcast(struct sm_sched *s, void *buf, int count, MPI_Datatype dt, int root);
void sm_build_reduce(struct sm_sched *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                     MPI_Op op, int root);
void sm_build_allreduce(struct sm_sched *s, const void *sbuf, void *rbuf, int count,
                        MPI_Datatype dt, MPI_Op op);
/* counts NULL: every rank gets rcount (Reduce_scatter_block) */
void sm_build_reduce_scatter(struct sm_sched *s, const void *sbuf, void *rbuf, const int *counts,
                             int rcount, MPI_Datatype dt, MPI_Op op);
void sm_build_scan(struct sm_sched *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                   MPI_Op op, int inclusive);
/* rcounts / scounts NULL: the non-v form (rcount / scount for every rank) */
void sm_build_gatherv(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                      void *rbuf, const int *rcounts, const int *displs, int rcount,
                      MPI_Datatype rt, int root);
void sm_build_scatterv(struct sm_sched *s, const void *sbuf, const int *scounts,
                       const int *displs, int scount, MPI_Datatype st, void *rbuf, int rcount,
                       MPI_Datatype rt, int root);
void sm_build_allgather(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                        void *rbuf, int rcount, MPI_Datatype rt);
void sm_build_allgatherv(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                         void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rt);
/* kind 0: Alltoall (scount/rcount, sts[0]/rts[0]), 1: Alltoallv (element displacements, one
 * type), 2: Alltoallw (byte displacements, one type per peer) */
void sm_build_alltoallw(struct sm_sched *s, int kind, const void *sbuf, int scount,
                        const int *scounts, const int *sdispls, const MPI_Datatype *sts,
                        void *rbuf, int rcount, const int *rcounts, const int *rdispls,
                        const MPI_Datatype *rts);

/* ---- the algorithms (algo.c) ---- */
void sm_algo_bcast_binomial(struct sm_sched *s, void *buf, int count, MPI_Datatype dt, int root);
void sm_algo_bcast_scatter_ring(struct sm_sched *s, void *buf, int count, MPI_Datatype dt,
                                int root);
void sm_algo_allgather_bruck(struct sm_sched *s, void *rbuf, int rcount, MPI_Datatype rt);
void sm_algo_allgather_recdbl(struct sm_sched *s, void *rbuf, int rcount, MPI_Datatype rt);
/* displs NULL: block i at i * rcount; rcounts NULL: rcount each */
void sm_algo_allgatherv_ring(struct sm_sched *s, void *rbuf, const int *rcounts,
                             const MPI_Aint *displs, int rcount, MPI_Datatype rt);
void sm_algo_alltoall_bruck(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                            void *rbuf, int rcount, MPI_Datatype rt);
void sm_algo_alltoallw_pairwise(struct sm_sched *s, const void *sbuf, const struct sm_a2a *a,
                                void *rbuf);
void sm_algo_reduce_scatter_pairwise(struct sm_sched *s, const void *sbuf, void *rbuf,
                                     const int *counts, MPI_Datatype dt, MPI_Op op);
void sm_algo_allreduce_recdbl(struct sm_sched *s, void *rbuf, int count, MPI_Datatype dt,
                              MPI_Op op);
void sm_algo_allreduce_rabenseifner(struct sm_sched *s, void *rbuf, int count, MPI_Datatype dt,
                                    MPI_Op op);
int sm_algo_pof2_below(int n); /* the largest power of two <= n */

/* ---- entry-point helpers ---- */
/* a non-blocking or persistent call: the communicator, then the request pointer */
int sm_coll_check_nb(MPI_Comm c, MPI_Request *req, const char *fn);

/* ---- intercommunicator collectives (inter.c).  how as sm_sched_run: NULL for the blocking
 * call, which waits; else start and return the request, or make the persistent one.  Arguments are checked here (communicator
 * and request pointer already checked); errors are reported as fn. ---- */
int sm_inter_ibarrier(MPI_Comm c, const struct sm_how *how, const char *fn);
int sm_inter_ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c,
                    const struct sm_how *how, const char *fn);
int sm_inter_ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm c, const struct sm_how *how, const char *fn);
int sm_inter_iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm c, const struct sm_how *how, const char *fn);
/* rcounts NULL: every local rank gets rcount (Reduce_scatter_block) */
int sm_inter_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, int rcount,
                             MPI_Datatype dt, MPI_Op op, MPI_Comm c, const struct sm_how *how,
                             const char *fn);
/* rcounts / scounts NULL: the non-v form */
int sm_inter_igatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      const int *rcounts, const int *displs, MPI_Datatype rt, int root,
                      MPI_Comm c, const struct sm_how *how, const char *fn);
int sm_inter_iscatterv(const void *sbuf, int scount, const int *scounts, const int *displs,
                       MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt, int root,
                       MPI_Comm c, const struct sm_how *how, const char *fn);
int sm_inter_iallgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                         const int *rcounts, const int *displs, MPI_Datatype rt, MPI_Comm c,
                         const struct sm_how *how, const char *fn);
/* kind as sm_build_alltoallw */
int sm_inter_ialltoallw(int kind, const void *sbuf, int scount, const int *scounts,
                        const int *sdispls, const MPI_Datatype *sts, void *rbuf, int rcount,
                        const int *rcounts, const int *rdispls, const MPI_Datatype *rts,
                        MPI_Comm c, const struct sm_how *how, const char *fn);

#endif
