/* datatype.c — datatype queries for the predefined types and element counts of statuses. */
#include <limits.h>

#include "api/api.h"

static int check_dt(MPI_Datatype dt, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!dt || !dt->valid)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "null or freed datatype");
    return MPI_SUCCESS;
}

int PMPI_Type_size(MPI_Datatype dt, int *size)
{
    SM_TRY(check_dt(dt, "MPI_Type_size"));
    *size = (int)dt->size;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent)
{
    SM_TRY(check_dt(dt, "MPI_Type_get_extent"));
    *lb = dt->lb;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

int PMPI_Get_count(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    SM_TRY(check_dt(dt, "MPI_Get_count"));
    if (!status || !count)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_count", "NULL argument");
    size_t e = sm_dt_psize(dt); /* bytes one element occupies on the wire */
    if (e == 0) {
        *count = 0;
        return MPI_SUCCESS;
    }
    size_t n = status->sm_count / e;
    *count = status->sm_count % e || n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return MPI_SUCCESS;
}

int PMPI_Get_elements_x(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    SM_TRY(check_dt(dt, "MPI_Get_elements"));
    if (!status || !count)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_elements", "NULL argument");
    MPI_Count c = sm_dt_elements(dt, status->sm_count);
    /* bytes that do not end on a basic element's boundary */
    *count = sm_dt_elements_bytes(dt, c) == status->sm_count ? c : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int PMPI_Get_elements(const MPI_Status *status, MPI_Datatype dt, int *count)
{
    MPI_Count c;
    SM_TRY(PMPI_Get_elements_x(status, dt, &c));
    *count = c > INT_MAX ? MPI_UNDEFINED : (int)c;
    return MPI_SUCCESS;
}
