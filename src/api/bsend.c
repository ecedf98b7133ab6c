/* bsend.c — buffered sends.  The attached buffer's size is the budget (each message costs its
 * bytes + MPI_BSEND_OVERHEAD); the copy itself lives in library memory until the internal send
 * completes, which is equivalent for the program and keeps the engine's requests simple. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

static void *attached;
static size_t attached_size, used;

void sm_bsend_uncharge(size_t bytes) { used -= bytes; }

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    SM_TRY(sm_check_init("MPI_Buffer_attach"));
    if (size < 0 || (!buffer && size > 0))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_attach", "bad buffer or size");
    if (attached)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, "MPI_Buffer_attach",
                        "a buffer is already attached");
    attached = buffer;
    attached_size = (size_t)size;
    return MPI_SUCCESS;
}

static int bsend_idle(void *a)
{
    (void)a;
    return used == 0;
}

void sm_bsend_drain(void) { sm_progress_until(bsend_idle, NULL); }

#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    SM_TRY(sm_check_init("MPI_Buffer_detach"));
    if (!buffer_addr || !size)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_detach", "NULL argument");
    sm_bsend_drain();
    *(void **)buffer_addr = attached;
    *size = (int)attached_size;
    attached = NULL;
    attached_size = 0;
    return MPI_SUCCESS;
}

int sm_bsend_start(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, const char *fn)
{
    size_t n = sm_dt_psize(dt) * (size_t)count;
    size_t charge = n + MPI_BSEND_OVERHEAD;
    if (used + charge > attached_size)
        return sm_error(comm, MPI_ERR_BUFFER, fn,
                        "attached buffer too small: %zu bytes needed, %zu of %zu free", charge,
                        attached_size - used, attached_size);
    used += charge;
    MPI_Request r;
    sm_isend_copy(buf, count, dt, dest, tag, comm, charge, &r);
    if (r->complete)
        sm_req_release(r);
    else
        r->freed = 1;
    return MPI_SUCCESS;
}
