/* comm.c — communicator queries (rank, size, predefined attributes; user attributes are in
 * attr.c) and MPI_Barrier (intercommunicators too). */
#include "api/api.h"

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_rank"));
    if (!rank)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_rank", "NULL rank pointer");
    *rank = comm->rank;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_size"));
    if (!size)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_size", "NULL size pointer");
    *size = comm->x && comm->x->is_inter ? comm->x->local_size : comm->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_attr = PMPI_Comm_get_attr
int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    static int tag_ub = SM_TAG_UB, host = MPI_PROC_NULL, io, wtime_global = 0, appnum = 0,
               universe, lastused;
    SM_TRY(sm_check_comm(comm, "MPI_Comm_get_attr"));
    if (!attribute_val || !flag)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_get_attr", "NULL output pointer");
    int *v = NULL;
    io = sm_world_rank();
    universe = sm_world_size();
    lastused = sm_last_used_code();
    switch (keyval) {
    case MPI_TAG_UB: v = &tag_ub; break;
    case MPI_HOST: v = &host; break;
    case MPI_IO: v = &io; break;
    case MPI_WTIME_IS_GLOBAL: v = &wtime_global; break;
    case MPI_APPNUM: v = &appnum; break;
    case MPI_UNIVERSE_SIZE: v = &universe; break;
    case MPI_LASTUSEDCODE: v = &lastused; break;
    default:
        return sm_comm_attr_get(comm, keyval, attribute_val, flag);
    }
    *(int **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}

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
