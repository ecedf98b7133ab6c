/* icoll.h — what the non-blocking collectives share: the intracommunicator schedule builders
 * of icoll.c that the intercommunicator ones reuse on the hidden local communicator, and the
 * intercommunicator collectives of icoll_inter.c (non-blocking ones, and the blocking v/w
 * variants and Reduce_scatter(_block), which run the same schedule and wait for it). */
#ifndef SCTPMPI_ICOLL_H
#define SCTPMPI_ICOLL_H

#include "coll/sched.h"

/* builders (icoll.c): add the rounds of an algorithm on s->comm to s */
void sm_sched_add_bcast(struct sm_sched *s, void *buf, int count, MPI_Datatype dt, int root);
void sm_sched_add_reduce(struct sm_sched *s, const void *sbuf, void *rbuf, int count,
                         MPI_Datatype dt, MPI_Op op, int root);
void sm_sched_add_scatterv(struct sm_sched *s, const void *sbuf, const int *scounts,
                           const int *displs, int scount, MPI_Datatype st, void *rbuf, int rcount,
                           MPI_Datatype rt, int root);

/* intercommunicator collectives (icoll_inter.c).  req non-NULL: start and return the request;
 * req NULL: the blocking call, which waits.  Arguments are checked here (communicator and
 * request pointer already checked); errors are reported as fn. */
int sm_inter_ibarrier(MPI_Comm c, MPI_Request *req, const char *fn);
int sm_inter_ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c,
                    MPI_Request *req, const char *fn);
int sm_inter_ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm c, MPI_Request *req, const char *fn);
int sm_inter_iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm c, MPI_Request *req, const char *fn);
/* rcounts NULL: every local rank gets rcount (Reduce_scatter_block) */
int sm_inter_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, int rcount,
                             MPI_Datatype dt, MPI_Op op, MPI_Comm c, MPI_Request *req,
                             const char *fn);
/* rcounts / scounts NULL: the non-v form */
int sm_inter_igatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      const int *rcounts, const int *displs, MPI_Datatype rt, int root,
                      MPI_Comm c, MPI_Request *req, const char *fn);
int sm_inter_iscatterv(const void *sbuf, int scount, const int *scounts, const int *displs,
                       MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt, int root,
                       MPI_Comm c, MPI_Request *req, const char *fn);
int sm_inter_iallgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                         const int *rcounts, const int *displs, MPI_Datatype rt, MPI_Comm c,
                         MPI_Request *req, const char *fn);
/* kind 0: Alltoall (scount/rcount), 1: Alltoallv (element displacements), 2: Alltoallw (byte
 * displacements, one type per peer) */
int sm_inter_ialltoallw(int kind, const void *sbuf, int scount, const int *scounts,
                        const int *sdispls, const MPI_Datatype *sts, void *rbuf, int rcount,
                        const int *rcounts, const int *rdispls, const MPI_Datatype *rts,
                        MPI_Comm c, MPI_Request *req, const char *fn);

#endif
