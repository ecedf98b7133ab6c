/* status.c — the MPI-4.1 accessors of a status's public fields (source, tag, error), for
 * languages and tools that cannot reach the struct's members directly. */
#include "api/api.h"

static int check_status(const MPI_Status *status, const void *out, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!status || !out)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL status or result pointer");
    return MPI_SUCCESS;
}

int PMPI_Status_get_source(MPI_Status *status, int *source)
{
    SM_TRY(check_status(status, source, "MPI_Status_get_source"));
    *source = status->MPI_SOURCE;
    return MPI_SUCCESS;
}

int PMPI_Status_set_source(MPI_Status *status, int source)
{
    SM_TRY(check_status(status, status, "MPI_Status_set_source"));
    status->MPI_SOURCE = source;
    return MPI_SUCCESS;
}

int PMPI_Status_get_tag(MPI_Status *status, int *tag)
{
    SM_TRY(check_status(status, tag, "MPI_Status_get_tag"));
    *tag = status->MPI_TAG;
    return MPI_SUCCESS;
}

int PMPI_Status_set_tag(MPI_Status *status, int tag)
{
    SM_TRY(check_status(status, status, "MPI_Status_set_tag"));
    status->MPI_TAG = tag;
    return MPI_SUCCESS;
}

int PMPI_Status_get_error(MPI_Status *status, int *error)
{
    SM_TRY(check_status(status, error, "MPI_Status_get_error"));
    *error = status->MPI_ERROR;
    return MPI_SUCCESS;
}

int PMPI_Status_set_error(MPI_Status *status, int error)
{
    SM_TRY(check_status(status, status, "MPI_Status_set_error"));
    status->MPI_ERROR = error;
    return MPI_SUCCESS;
}
