/* comm.c — communicator queries (rank, size, predefined attributes; user attributes are in
 * attr.c). */
#include "api/api.h"
#include "api/dynamic.h"

int PMPI_Comm_rank(MPI_Comm comm, int *rank)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_rank"));
    if (!rank)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_rank", "NULL rank pointer");
    *rank = comm->rank;
    return MPI_SUCCESS;
}

int PMPI_Comm_size(MPI_Comm comm, int *size)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_size"));
    if (!size)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_size", "NULL size pointer");
    *size = comm->x && comm->x->is_inter ? comm->x->local_size : comm->size;
    return MPI_SUCCESS;
}

int PMPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag)
{
    static int tag_ub = SM_TAG_UB, host = MPI_PROC_NULL, io, wtime_global = 0, appnum = 0,
               universe, lastused;
    SM_TRY(sm_check_comm(comm, "MPI_Comm_get_attr"));
    if (!attribute_val || !flag)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_get_attr", "NULL output pointer");
    int *v = NULL;
    io = sm_world_rank();
    universe = sm_dyn_universe_size();
    appnum = sm_dyn_appnum();
    lastused = sm_last_used_code();
    switch (keyval) {
    case MPI_TAG_UB: v = &tag_ub; break;
    case MPI_HOST: v = &host; break;
    case MPI_IO: v = &io; break;
    case MPI_WTIME_IS_GLOBAL: v = &wtime_global; break;
    case MPI_APPNUM: v = &appnum; break;
    case MPI_UNIVERSE_SIZE: /* unknown unless SCTPMPI_UNIVERSE_SIZE says: not set */
        if (universe < 0) {
            *flag = 0;
            return MPI_SUCCESS;
        }
        v = &universe;
        break;
    case MPI_LASTUSEDCODE: v = &lastused; break;
    default: return sm_comm_attr_get(comm, keyval, attribute_val, flag);
    }
    *(int **)attribute_val = v;
    *flag = 1;
    return MPI_SUCCESS;
}
