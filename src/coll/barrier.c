/* barrier.c — MPI_Barrier and MPI_Ibarrier (dissemination: ceil(log2 n) rounds of empty
 * messages), and the dissemination barrier on an explicit context that MPI_Finalize uses. */
#include "coll/icoll.h"

/* dissemination barrier over point-to-point on the given context: ceil(log2 n) rounds */
int sm_barrier_ctx(MPI_Comm comm, uint32_t ctx)
{
    int n = comm->size, me = comm->rank, err = MPI_SUCCESS;
    char s = 0, r = 0;
    /* every round runs even after an error (a failed peer fails its round at once): a rank
     * that stopped early would leave its healthy successors waiting for good */
    for (int d = 1; d < n; d <<= 1) {
        MPI_Request rq[2];
        sm_irecv_ctx(&r, 1, (me - d + n) % n, d, comm, ctx, &rq[0]);
        sm_isend_ctx(&s, 1, (me + d) % n, d, comm, ctx, &rq[1]);
        int e1 = sm_wait_one(&rq[0], MPI_STATUS_IGNORE);
        int e2 = sm_wait_one(&rq[1], MPI_STATUS_IGNORE);
        if (!err)
            err = e1 ? e1 : e2;
    }
    return err;
}

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm)
{
    SM_TRY(sm_check_comm(comm, "MPI_Barrier"));
    int err;
    if (comm->x && comm->x->is_inter) { /* local barrier, leaders meet, local barrier */
        MPI_Comm local = comm->x->local_comm;
        err = sm_barrier_ctx(local, local->ctx + 1);
        if (!err && local->rank == 0) {
            MPI_Request rq[2];
            char s = 0, r = 0;
            sm_irecv_ctx(&r, 1, 0, 0x7ffffff0, comm, comm->ctx + 1, &rq[0]);
            sm_isend_ctx(&s, 1, 0, 0x7ffffff0, comm, comm->ctx + 1, &rq[1]);
            err = sm_wait_one(&rq[0], MPI_STATUS_IGNORE);
            sm_wait_one(&rq[1], MPI_STATUS_IGNORE);
        }
        if (!err)
            err = sm_barrier_ctx(local, local->ctx + 1);
    } else {
        err = sm_barrier_ctx(comm, comm->ctx + 1);
    }
    return err ? sm_error(comm, err, "MPI_Barrier", NULL) : MPI_SUCCESS;
}
