/* osc_shm.c — shared-memory windows: MPI_Win_allocate_shared maps one POSIX shared-memory
 * object holding every rank's part, contiguous in rank order (rank 0 creates it and sends its
 * name through the communicator; the name is unlinked once every rank has mapped it), and
 * MPI_Win_shared_query returns a rank's part in this process's mapping.  The window is also
 * an ordinary window: each rank registers its own part for RDMA like Win_create does. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "osc/osc.h"

int sm_osc_shm_alloc(MPI_Comm comm, MPI_Aint size, void **base, void **shm_base, size_t *shm_len,
                     MPI_Aint **sizes)
{
    int n = comm->size, me = comm->rank;
    MPI_Aint *sz = sm_xcalloc((size_t)n, sizeof *sz);
    int rc = PMPI_Allgather(&size, 1, MPI_AINT, sz, 1, MPI_AINT, comm);
    if (rc != MPI_SUCCESS) {
        free(sz);
        return rc;
    }
    size_t total = 0, off = 0;
    for (int r = 0; r < n; r++) {
        if (r == me)
            off = total;
        total += (size_t)sz[r];
    }
    size_t len = total ? total : 1;
    char name[64] = "";
    int fd = -1, ok = 1;
    if (me == 0) {
        static int seq;
        snprintf(name, sizeof name, "/sctpmpi-win-%d-%d-%d", (int)getpid(), sm_world_rank(),
                 seq++);
        fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
            ok = 0;
    }
    rc = PMPI_Bcast(name, sizeof name, MPI_CHAR, 0, comm);
    if (rc == MPI_SUCCESS && me != 0) {
        fd = shm_open(name, O_RDWR, 0600);
        if (fd < 0)
            ok = 0;
    }
    void *map = MAP_FAILED;
    if (ok && fd >= 0)
        map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    if (map == MAP_FAILED)
        ok = 0;
    int all = 0;
    PMPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm);
    if (me == 0 && name[0])
        shm_unlink(name);
    if (!all) {
        if (map != MAP_FAILED)
            munmap(map, len);
        free(sz);
        return MPI_ERR_NO_MEM;
    }
    *shm_base = map;
    *shm_len = len;
    *base = (char *)map + off;
    *sizes = sz;
    return MPI_SUCCESS;
}

void sm_osc_shm_free(void *shm_base, size_t len)
{
    if (shm_base)
        munmap(shm_base, len);
}

int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    const char *fn = "MPI_Win_allocate_shared";
    SM_TRY(sm_check_comm(comm, fn));
    if (!baseptr || !win)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL argument");
    if (size < 0)
        return sm_error(comm, MPI_ERR_SIZE, fn, "negative size %zd", (ssize_t)size);
    if (sm_comm_is_inter(comm))
        return sm_error(comm, MPI_ERR_COMM, fn, "windows need an intracommunicator");
    void *base, *shm;
    size_t len;
    MPI_Aint *sizes;
    int rc = sm_osc_shm_alloc(comm, size, &base, &shm, &len, &sizes);
    if (rc != MPI_SUCCESS)
        return sm_error(comm, rc, fn, "could not map shared memory");
    rc = sm_osc_win_setup(comm, base, size, disp_unit, info, MPI_WIN_FLAVOR_SHARED, win, fn);
    if (rc != MPI_SUCCESS) {
        sm_osc_shm_free(shm, len);
        free(sizes);
        return rc;
    }
    (*win)->shm_base = shm;
    (*win)->shm_len = len;
    /* peers[r].base: the offset of rank r's part in the mapping */
    size_t off = 0;
    for (int r = 0; r < comm->size; r++) {
        (*win)->peers[r].base = off;
        off += (size_t)sizes[r];
    }
    free(sizes);
    *(void **)baseptr = base;
    return MPI_SUCCESS;
}

int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    const char *fn = "MPI_Win_shared_query";
    SM_TRY(sm_osc_check_win(win, fn));
    if (!size || !disp_unit || !baseptr)
        return sm_osc_error(win, MPI_ERR_ARG, fn, "NULL argument");
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= win->size))
        return sm_osc_error(win, MPI_ERR_RANK, fn, "rank %d of %d", rank, win->size);
    if (win->flavor != MPI_WIN_FLAVOR_SHARED) {
        /* other flavours (MPI-4.1): only the own memory is reachable by load/store */
        int own = rank == win->rank;
        *size = own ? win->wsize : 0;
        *disp_unit = win->peers[rank == MPI_PROC_NULL ? win->rank : rank].disp_unit;
        *(void **)baseptr = own ? win->base : NULL;
        return MPI_SUCCESS;
    }
    if (rank == MPI_PROC_NULL) {
        rank = -1;
        for (int r = 0; r < win->size && rank < 0; r++)
            if (win->peers[r].size > 0)
                rank = r;
        if (rank < 0) {
            *size = 0;
            *disp_unit = win->peers[0].disp_unit;
            *(void **)baseptr = NULL;
            return MPI_SUCCESS;
        }
    }
    *size = (MPI_Aint)win->peers[rank].size;
    *disp_unit = win->peers[rank].disp_unit;
    *(void **)baseptr =
        win->peers[rank].size ? (char *)win->shm_base + win->peers[rank].base : NULL;
    return MPI_SUCCESS;
}
