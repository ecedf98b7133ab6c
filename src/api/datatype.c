/* datatype.c — datatype queries for the predefined types and element counts of statuses. */
#include "api/api.h"

static int check_dt(MPI_Datatype dt, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!dt || !dt->valid)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "null or freed datatype");
    return MPI_SUCCESS;
}

int MPI_Type_size(MPI_Datatype dt, int *size)
{
    SM_TRY(check_dt(dt, "MPI_Type_size"));
    *size = (int)dt->size;
    return MPI_SUCCESS;
}

int MPI_Type_get_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent)
{
    SM_TRY(check_dt(dt, "MPI_Type_get_extent"));
    *lb = dt->lb;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

int MPI_Get_count(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    SM_TRY(check_dt(dt, "MPI_Get_count"));
    if (!status || !count)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_count", "NULL argument");
    if (dt->extent == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    size_t e = (size_t)dt->extent;
    *count = status->sm_count % e ? MPI_UNDEFINED : (int)(status->sm_count / e);
    return MPI_SUCCESS;
}

int MPI_Get_elements(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    /* for basic types elements and count agree */
    return MPI_Get_count(status, dt, count);
}
