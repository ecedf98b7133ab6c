/* shared.c — the shared file pointer: an 8-byte counter (in etypes of the current view) in a
 * small sidecar file next to the data file, ".<name>.<id>.shfp", created by rank 0 at open and
 * removed at close.  Every update takes an fcntl write lock on the counter, reads it and
 * writes it back, so independent MPI_File_*_shared calls from any process serialise.
 * Assumption: all processes of the file see one file system (one host's, or a directory
 * every emulated host mounts) where fcntl locks work; when the data file's directory is not
 * writable the counter lives in the temporary directory instead (one host only). Also
 * MPI_File_seek_shared and MPI_File_get_position_shared. */
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int lock(int fd, int type)
{
    struct flock fl = { 0 };
    fl.l_type = (short)type;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0;
    fl.l_len = 8;
    int rc;
    while ((rc = fcntl(fd, type == F_UNLCK ? F_SETLK : F_SETLKW, &fl)) < 0 && errno == EINTR)
        ;
    return rc;
}

static int rd(int fd, MPI_Offset *v)
{
    int64_t x = 0;
    ssize_t r = pread(fd, &x, sizeof x, 0);
    if (r < 0)
        return -1;
    *v = r == (ssize_t)sizeof x ? x : 0;
    return 0;
}

static int wr(int fd, MPI_Offset v)
{
    int64_t x = v;
    return pwrite(fd, &x, sizeof x, 0) == (ssize_t)sizeof x ? 0 : -1;
}

static char *sidecar_name(const char *path, unsigned long long id, int in_tmp)
{
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    size_t dirlen = slash ? (size_t)(slash - path + 1) : 0;
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir)
        tmpdir = "/tmp";
    size_t n = strlen(path) + strlen(tmpdir) + 64;
    char *s = sm_xmalloc(n);
    if (in_tmp)
        snprintf(s, n, "%s/.%s.%llx.shfp", tmpdir, base, id);
    else
        snprintf(s, n, "%.*s.%s.%llx.shfp", (int)dirlen, path, base, id);
    return s;
}

int sm_shfp_create(MPI_File fh)
{
    unsigned long long hdr[2] = { 0, 0 }; /* id, where (0: next to the file, 1: tmp, 2: error) */
    if (fh->comm->rank == 0) {
        hdr[0] = ((unsigned long long)getpid() << 20) ^ (unsigned long long)time(NULL) ^
                 ((unsigned long long)(uintptr_t)fh >> 4);
        for (int where = 0; where < 2; where++) {
            char *p = sidecar_name(fh->path, hdr[0], where);
            int fd = open(p, O_RDWR | O_CREAT | O_TRUNC, 0600);
            if (fd >= 0 && wr(fd, 0) == 0) {
                fh->shfp_fd = fd;
                fh->shfp_path = p;
                hdr[1] = (unsigned long long)where;
                break;
            }
            if (fd >= 0)
                close(fd);
            free(p);
            hdr[1] = 2;
        }
    }
    PMPI_Bcast(hdr, 2, MPI_UNSIGNED_LONG_LONG, 0, fh->comm);
    if (hdr[1] == 2)
        return MPI_ERR_IO;
    int err = MPI_SUCCESS, any;
    if (fh->comm->rank != 0) {
        fh->shfp_path = sidecar_name(fh->path, hdr[0], (int)hdr[1]);
        fh->shfp_fd = open(fh->shfp_path, O_RDWR);
        if (fh->shfp_fd < 0)
            err = MPI_ERR_IO;
    }
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, fh->comm);
    return any;
}

void sm_shfp_destroy(MPI_File fh)
{
    if (fh->shfp_fd >= 0)
        close(fh->shfp_fd);
    fh->shfp_fd = -1;
    PMPI_Barrier(fh->comm);
    if (fh->comm->rank == 0 && fh->shfp_path)
        unlink(fh->shfp_path);
    free(fh->shfp_path);
    fh->shfp_path = NULL;
}

int sm_shfp_fetch_add(MPI_File fh, MPI_Offset add, MPI_Offset *old)
{
    if (fh->shfp_fd < 0)
        return MPI_ERR_IO;
    if (lock(fh->shfp_fd, F_WRLCK) < 0)
        return MPI_ERR_IO;
    MPI_Offset v = 0;
    int rc = rd(fh->shfp_fd, &v);
    if (rc == 0 && add != 0)
        rc = wr(fh->shfp_fd, v + add);
    lock(fh->shfp_fd, F_UNLCK);
    if (rc < 0)
        return MPI_ERR_IO;
    *old = v;
    return MPI_SUCCESS;
}

int sm_shfp_set(MPI_File fh, MPI_Offset val)
{
    if (fh->shfp_fd < 0)
        return MPI_ERR_IO;
    if (lock(fh->shfp_fd, F_WRLCK) < 0)
        return MPI_ERR_IO;
    int rc = wr(fh->shfp_fd, val);
    lock(fh->shfp_fd, F_UNLCK);
    return rc < 0 ? MPI_ERR_IO : MPI_SUCCESS;
}

int sm_shfp_get(MPI_File fh, MPI_Offset *val)
{
    return sm_shfp_fetch_add(fh, 0, val);
}

int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *fn = "MPI_File_seek_shared";
    SM_TRY(sm_file_check(fh, fn));
    /* collective: every process must ask for the same position */
    long long a[4] = { offset, -offset, whence, -whence }, r[4];
    PMPI_Allreduce(a, r, 4, MPI_LONG_LONG, MPI_MAX, fh->comm);
    if (r[0] != -r[1] || r[2] != -r[3])
        return sm_file_error(fh, MPI_ERR_NOT_SAME, fn, "offset or whence differ");
    int err = MPI_SUCCESS;
    if (fh->comm->rank == 0) {
        MPI_Offset cur = 0, t = 0;
        err = sm_shfp_get(fh, &cur);
        if (err == MPI_SUCCESS) {
            err = sm_io_seek_target(fh, cur, offset, whence, &t, fn);
            if (err == MPI_SUCCESS)
                err = sm_shfp_set(fh, t);
        }
    }
    PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
    if (err != MPI_SUCCESS)
        return fh->comm->rank == 0 ? err : sm_file_error(fh, err, fn, "seek failed");
    return MPI_SUCCESS;
}

int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    const char *fn = "MPI_File_get_position_shared";
    SM_TRY(sm_file_check(fh, fn));
    if (!offset)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    int rc = sm_shfp_get(fh, offset);
    if (rc != MPI_SUCCESS)
        return sm_file_error(fh, rc, fn, "shared file pointer");
    return MPI_SUCCESS;
}
