/* file.c — the file handle: MPI_File_open / close / delete, size (set, preallocate, get),
 * group, access mode, hints (set_info / get_info), sync and atomicity; the counted
 * pread / pwrite every data access ends in, and the fcntl byte-range locks of atomic mode.
 *
 * Every process opens the file itself (the file system is shared: one host's, or a directory
 * every emulated host sees); rank 0 creates it first when MPI_MODE_CREATE asks, so
 * MPI_MODE_EXCL is decided once, and the outcome is agreed so that every process returns
 * the same error class. */
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- counted low-level access ---------------------------------------------------------- */
ssize_t sm_io_pwrite(MPI_File fh, const void *buf, size_t n, MPI_Offset off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(fh->fd, (const char *)buf + done, n - done, (off_t)(off + done));
        fh->n_write++;
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (w == 0) {
            errno = ENOSPC;
            return -1;
        }
        done += (size_t)w;
    }
    fh->b_write += n;
    return (ssize_t)n;
}

ssize_t sm_io_pread(MPI_File fh, void *buf, size_t n, MPI_Offset off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fh->fd, (char *)buf + done, n - done, (off_t)(off + done));
        fh->n_read++;
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (r == 0)
            break; /* end of file */
        done += (size_t)r;
    }
    fh->b_read += done;
    return (ssize_t)done;
}

void sm_io_lock(MPI_File fh, int write, MPI_Offset off, MPI_Offset len)
{
    struct flock fl = { 0 };
    fl.l_type = write ? F_WRLCK : F_RDLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)off;
    fl.l_len = (off_t)len;
    while (fcntl(fh->fd, F_SETLKW, &fl) < 0 && errno == EINTR)
        ;
}

void sm_io_unlock(MPI_File fh, MPI_Offset off, MPI_Offset len)
{
    struct flock fl = { 0 };
    fl.l_type = F_UNLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = (off_t)off;
    fl.l_len = (off_t)len;
    fcntl(fh->fd, F_SETLK, &fl);
}

/* ---- hints ------------------------------------------------------------------------------ */
static void set_num(MPI_Info info, const char *key, long long v)
{
    char s[32];
    snprintf(s, sizeof s, "%lld", v);
    PMPI_Info_set(info, key, s);
}

static const char *cb_name(int v)
{
    return v == SM_CB_ENABLE ? "enable" : v == SM_CB_DISABLE ? "disable" : "automatic";
}

static int cb_parse(const char *s, int dflt)
{
    if (!s)
        return dflt;
    if (!strcmp(s, "enable") || !strcmp(s, "true"))
        return SM_CB_ENABLE;
    if (!strcmp(s, "disable") || !strcmp(s, "false"))
        return SM_CB_DISABLE;
    if (!strcmp(s, "automatic"))
        return SM_CB_AUTO;
    return dflt;
}

/* the hints the file uses, written back into fh->info so MPI_File_get_info reports them */
static void publish_hints(MPI_File fh)
{
    set_num(fh->info, "cb_buffer_size", fh->cb_buffer_size);
    set_num(fh->info, "cb_nodes", fh->cb_nodes);
    PMPI_Info_set(fh->info, "romio_cb_read", cb_name(fh->cb_read));
    PMPI_Info_set(fh->info, "romio_cb_write", cb_name(fh->cb_write));
    set_num(fh->info, "ind_rd_buffer_size", fh->ind_rd_buffer_size);
    set_num(fh->info, "ind_wr_buffer_size", fh->ind_wr_buffer_size);
    PMPI_Info_set(fh->info, "romio_ds_read", fh->ds_read ? "automatic" : "disable");
    PMPI_Info_set(fh->info, "romio_ds_write", fh->ds_write ? "automatic" : "disable");
    if (fh->striping_unit > 0)
        set_num(fh->info, "striping_unit", fh->striping_unit);
}

static int count_hosts(MPI_Comm comm)
{
    char me[64] = "";
    gethostname(me, sizeof me - 1);
    int n = comm->size;
    char *all = sm_xmalloc((size_t)n * 64);
    PMPI_Allgather(me, 64, MPI_CHAR, all, 64, MPI_CHAR, comm);
    int hosts = 0;
    for (int i = 0; i < n; i++) {
        int seen = 0;
        for (int j = 0; j < i && !seen; j++)
            seen = !memcmp(all + 64 * i, all + 64 * j, 64);
        hosts += !seen;
    }
    free(all);
    return hosts;
}

void sm_file_hints_defaults(MPI_File fh)
{
    fh->cb_buffer_size = sm_env_range("SCTPMPI_IO_CB_BUFFER_SIZE", 16 << 20, 4096, 1LL << 30);
    long long nodes = sm_env_int("SCTPMPI_IO_CB_NODES", 0);
    fh->cb_nodes = nodes > 0 ? (int)nodes : count_hosts(fh->comm);
    if (fh->cb_nodes > fh->comm->size)
        fh->cb_nodes = fh->comm->size;
    const char *const cbn[] = { "automatic", "enable", "disable" };
    int cb = sm_env_choice("SCTPMPI_IO_CB", cbn, 3, SM_CB_AUTO);
    fh->cb_read = fh->cb_write = cb;
    fh->striping_unit = 0;
    fh->ind_rd_buffer_size = 4 << 20;
    fh->ind_wr_buffer_size = 512 << 10;
    fh->ds_read = fh->ds_write = sm_env_bool("SCTPMPI_IO_DS", 1);
}

/* apply the hints of info (keys the file does not know are kept for get_info) */
void sm_file_apply_info(MPI_File fh, MPI_Info info)
{
    if (!info || info == MPI_INFO_NULL)
        return;
    int nkeys = 0;
    PMPI_Info_get_nkeys(info, &nkeys);
    for (int i = 0; i < nkeys; i++) {
        char key[MPI_MAX_INFO_KEY + 1];
        PMPI_Info_get_nthkey(info, i, key);
        const char *v = sm_info_lookup(info, key);
        if (!v)
            continue;
        long long n = atoll(v);
        if (!strcmp(key, "cb_buffer_size")) {
            if (n >= 4096)
                fh->cb_buffer_size = n;
        } else if (!strcmp(key, "cb_nodes")) {
            if (n > 0)
                fh->cb_nodes = n > fh->comm->size ? fh->comm->size : (int)n;
        } else if (!strcmp(key, "romio_cb_read")) {
            fh->cb_read = cb_parse(v, fh->cb_read);
        } else if (!strcmp(key, "romio_cb_write")) {
            fh->cb_write = cb_parse(v, fh->cb_write);
        } else if (!strcmp(key, "striping_unit")) {
            if (n > 0)
                fh->striping_unit = n;
        } else if (!strcmp(key, "ind_rd_buffer_size")) {
            if (n >= 4096)
                fh->ind_rd_buffer_size = n;
        } else if (!strcmp(key, "ind_wr_buffer_size")) {
            if (n >= 4096)
                fh->ind_wr_buffer_size = n;
        } else if (!strcmp(key, "romio_ds_read")) {
            fh->ds_read = strcmp(v, "disable") != 0;
        } else if (!strcmp(key, "romio_ds_write")) {
            fh->ds_write = strcmp(v, "disable") != 0;
        } else {
            PMPI_Info_set(fh->info, key, v);
            continue;
        }
    }
    publish_hints(fh);
}

/* ---- open / close / delete -------------------------------------------------------------- */
static int amode_ok(int amode)
{
    int rw =
        !!(amode & MPI_MODE_RDONLY) + !!(amode & MPI_MODE_WRONLY) + !!(amode & MPI_MODE_RDWR);
    if (rw != 1)
        return 0;
    if ((amode & MPI_MODE_RDONLY) && (amode & (MPI_MODE_CREATE | MPI_MODE_EXCL)))
        return 0;
    if ((amode & MPI_MODE_RDWR) && (amode & MPI_MODE_SEQUENTIAL))
        return 0;
    int all = MPI_MODE_CREATE | MPI_MODE_RDONLY | MPI_MODE_WRONLY | MPI_MODE_RDWR |
              MPI_MODE_DELETE_ON_CLOSE | MPI_MODE_UNIQUE_OPEN | MPI_MODE_EXCL | MPI_MODE_APPEND |
              MPI_MODE_SEQUENTIAL;
    return (amode & ~all) == 0;
}

/* strip a file-system prefix such as "ufs:" (two or more letters and a colon) */
static const char *strip_prefix(const char *name)
{
    const char *c = strchr(name, ':');
    if (c && c - name >= 2 && c - name <= 8) {
        for (const char *p = name; p < c; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
                return name;
        return c + 1;
    }
    return name;
}

static int open_fd(const char *path, int amode, int create)
{
    int flags = 0;
    if (create && (amode & MPI_MODE_CREATE))
        flags |= O_CREAT;
    if (create && (amode & MPI_MODE_EXCL))
        flags |= O_EXCL;
    if (amode & MPI_MODE_RDONLY) {
        int fd = open(path, flags | O_RDONLY, 0666);
        struct stat st;
        if (fd >= 0 && fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
            close(fd);
            errno = EISDIR; /* a directory is not a file MPI can access */
            return -1;
        }
        return fd;
    }
    /* write-only files are opened for reading too where possible: collective buffering
     * reads the holes of a domain before writing it back in one piece */
    int fd = open(path, flags | O_RDWR, 0666);
    if (fd < 0 && (amode & MPI_MODE_WRONLY) && errno == EACCES)
        fd = open(path, (flags & ~O_EXCL) | O_WRONLY, 0666);
    return fd;
}

int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    const char *fn = "MPI_File_open";
    SM_TRY(sm_check_comm(comm, fn));
    if (!fh)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_ARG, fn, "NULL file handle pointer");
    *fh = MPI_FILE_NULL;
    if (sm_comm_is_inter(comm))
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_COMM, fn, "intercommunicator");
    if (!filename)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_BAD_FILE, fn, "NULL file name");
    if (info != MPI_INFO_NULL && !sm_info_valid(info))
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_INFO, fn, "invalid info");
    /* the access mode must be valid and the same everywhere */
    int local_bad = !amode_ok(amode);
    int v[3] = { amode, -amode, local_bad }, r[3];
    PMPI_Allreduce(v, r, 3, MPI_INT, MPI_MAX, comm);
    if (local_bad)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_AMODE, fn, "invalid access mode %#x", amode);
    if (r[2])
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_AMODE, fn,
                             "invalid access mode on another process");
    if (r[0] != -r[1])
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_NOT_SAME, fn,
                             "access mode differs between processes");
    const char *path = strip_prefix(filename);
    MPI_Comm dup;
    int rc = PMPI_Comm_dup(comm, &dup);
    if (rc != MPI_SUCCESS)
        return sm_file_error(MPI_FILE_NULL, rc, fn, "cannot duplicate the communicator");
    /* rank 0 creates (and decides MPI_MODE_EXCL), then the others open */
    int fd = -1, err = MPI_SUCCESS;
    if (dup->rank == 0) {
        fd = open_fd(path, amode, 1);
        if (fd < 0)
            err = sm_errno_class(errno);
    }
    PMPI_Bcast(&err, 1, MPI_INT, 0, dup);
    if (err == MPI_SUCCESS && dup->rank != 0) {
        fd = open_fd(path, amode, 0);
        if (fd < 0)
            err = sm_errno_class(errno);
    }
    int any;
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, dup);
    if (any != MPI_SUCCESS) {
        if (fd >= 0)
            close(fd);
        PMPI_Comm_free(&dup);
        return sm_file_error(MPI_FILE_NULL, err != MPI_SUCCESS ? err : any, fn,
                             "cannot open '%s'", path);
    }
    struct sctpmpi_file *f = sm_xcalloc(1, sizeof *f);
    f->valid = 1;
    f->comm = dup;
    size_t pl = strlen(path) + 1;
    f->path = sm_xmalloc(pl);
    memcpy(f->path, path, pl);
    f->fd = fd;
    f->amode = amode;
    f->can_read = (fcntl(fd, F_GETFL) & O_ACCMODE) != O_WRONLY;
    f->shfp_fd = -1;
    f->errh = sm_file_default_errh();
    sm_errh_retain(f->errh);
    PMPI_Info_create(&f->info);
    sm_file_hints_defaults(f);
    sm_file_apply_info(f, info);
    publish_hints(f);
    sm_view_reset(f);
    rc = sm_shfp_create(f);
    if (rc == MPI_SUCCESS && (amode & MPI_MODE_APPEND)) {
        struct stat st;
        MPI_Offset end = fstat(fd, &st) == 0 ? (MPI_Offset)st.st_size : 0;
        f->fp = end;
        if (dup->rank == 0)
            rc = sm_shfp_set(f, end);
        PMPI_Barrier(dup);
    }
    if (rc != MPI_SUCCESS) {
        PMPI_File_close(&f);
        return sm_file_error(MPI_FILE_NULL, rc, fn, "cannot set up the shared file pointer");
    }
    *fh = f;
    return MPI_SUCCESS;
}

static void free_file(MPI_File f)
{
    if (f->etype && !f->etype->basic)
        sm_dt_release(f->etype);
    if (f->filetype && !f->filetype->basic)
        sm_dt_release(f->filetype);
    free(f->blk);
    free(f->prefix);
    free(f->path);
    PMPI_Info_free(&f->info);
    sm_errh_release(f->errh);
    f->valid = 0;
    free(f);
}

int PMPI_File_close(MPI_File *fhp)
{
    const char *fn = "MPI_File_close";
    SM_TRY(sm_check_init(fn));
    if (!fhp)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_ARG, fn, "NULL argument");
    SM_TRY(sm_file_check(*fhp, fn));
    MPI_File f = *fhp;
    int err = MPI_SUCCESS;
    PMPI_Barrier(f->comm);
    sm_shfp_destroy(f);
    if (f->fd >= 0 && close(f->fd) < 0)
        err = sm_errno_class(errno);
    f->fd = -1;
    if (f->amode & MPI_MODE_DELETE_ON_CLOSE) {
        PMPI_Barrier(f->comm);
        if (f->comm->rank == 0)
            unlink(f->path);
    }
    PMPI_Barrier(f->comm);
    if (sm_env_bool("SCTPMPI_STATS", 0))
        fprintf(stderr,
                "sctpmpi[%d] io: %s: %llu write calls (%llu bytes), %llu read calls (%llu "
                "bytes)\n",
                sm_log_rank, f->path, f->n_write, f->b_write, f->n_read, f->b_read);
    PMPI_Comm_free(&f->comm);
    free_file(f);
    *fhp = MPI_FILE_NULL;
    if (err != MPI_SUCCESS)
        return sm_file_error(MPI_FILE_NULL, err, fn, "close failed");
    return MPI_SUCCESS;
}

int PMPI_File_delete(const char *filename, MPI_Info info)
{
    const char *fn = "MPI_File_delete";
    SM_TRY(sm_check_init(fn));
    (void)info;
    if (!filename)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_BAD_FILE, fn, "NULL file name");
    const char *path = strip_prefix(filename);
    if (unlink(path) < 0)
        return sm_file_error(MPI_FILE_NULL, sm_errno_class(errno), fn, "cannot delete '%s'",
                             path);
    return MPI_SUCCESS;
}

/* ---- size ------------------------------------------------------------------------------- */
static int same_everywhere(MPI_File fh, MPI_Offset v)
{
    long long a[2] = { v, -v }, r[2];
    PMPI_Allreduce(a, r, 2, MPI_LONG_LONG, MPI_MAX, fh->comm);
    return r[0] == -r[1];
}

static int writable(MPI_File fh)
{
    return !(fh->amode & MPI_MODE_RDONLY);
}

int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    const char *fn = "MPI_File_set_size";
    SM_TRY(sm_file_check(fh, fn));
    if (!same_everywhere(fh, size))
        return sm_file_error(fh, MPI_ERR_NOT_SAME, fn, "size differs between processes");
    if (size < 0)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "negative size");
    if (!writable(fh))
        return sm_file_error(fh, MPI_ERR_ACCESS, fn, "file opened read-only");
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return sm_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn, "sequential file");
    int err = MPI_SUCCESS;
    if (fh->comm->rank == 0 && ftruncate(fh->fd, (off_t)size) < 0)
        err = sm_errno_class(errno);
    PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
    if (err != MPI_SUCCESS)
        return sm_file_error(fh, err, fn, "ftruncate failed");
    return MPI_SUCCESS;
}

int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    const char *fn = "MPI_File_preallocate";
    SM_TRY(sm_file_check(fh, fn));
    if (!same_everywhere(fh, size))
        return sm_file_error(fh, MPI_ERR_NOT_SAME, fn, "size differs between processes");
    if (size < 0)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "negative size");
    if (!writable(fh))
        return sm_file_error(fh, MPI_ERR_ACCESS, fn, "file opened read-only");
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return sm_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn, "sequential file");
    int err = MPI_SUCCESS;
    if (fh->comm->rank == 0) {
        struct stat st;
        if (fstat(fh->fd, &st) == 0 && (MPI_Offset)st.st_size < size) {
            int e = posix_fallocate(fh->fd, 0, (off_t)size);
            if (e != 0 && ftruncate(fh->fd, (off_t)size) < 0)
                err = sm_errno_class(errno);
        }
    }
    PMPI_Bcast(&err, 1, MPI_INT, 0, fh->comm);
    if (err != MPI_SUCCESS)
        return sm_file_error(fh, err, fn, "preallocation failed");
    return MPI_SUCCESS;
}

int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    const char *fn = "MPI_File_get_size";
    SM_TRY(sm_file_check(fh, fn));
    if (!size)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    struct stat st;
    if (fstat(fh->fd, &st) < 0)
        return sm_file_error(fh, sm_errno_class(errno), fn, "fstat failed");
    *size = (MPI_Offset)st.st_size;
    return MPI_SUCCESS;
}

/* ---- group, mode, info ------------------------------------------------------------------ */
int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    const char *fn = "MPI_File_get_group";
    SM_TRY(sm_file_check(fh, fn));
    if (!group)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    return PMPI_Comm_group(fh->comm, group);
}

int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    const char *fn = "MPI_File_get_amode";
    SM_TRY(sm_file_check(fh, fn));
    if (!amode)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    *amode = fh->amode;
    return MPI_SUCCESS;
}

int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    const char *fn = "MPI_File_set_info";
    SM_TRY(sm_file_check(fh, fn));
    if (info != MPI_INFO_NULL && !sm_info_valid(info))
        return sm_file_error(fh, MPI_ERR_INFO, fn, "invalid info");
    sm_file_apply_info(fh, info);
    return MPI_SUCCESS;
}

int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    const char *fn = "MPI_File_get_info";
    SM_TRY(sm_file_check(fh, fn));
    if (!info_used)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    *info_used = sm_info_dup(fh->info);
    return MPI_SUCCESS;
}

/* ---- consistency ------------------------------------------------------------------------ */
int PMPI_File_sync(MPI_File fh)
{
    const char *fn = "MPI_File_sync";
    SM_TRY(sm_file_check(fh, fn));
    int err = MPI_SUCCESS, any;
    if (writable(fh) && fsync(fh->fd) < 0 && errno != EINVAL && errno != EROFS)
        err = sm_errno_class(errno);
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, fh->comm);
    if (any != MPI_SUCCESS)
        return sm_file_error(fh, any, fn, "fsync failed");
    return MPI_SUCCESS;
}

int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    const char *fn = "MPI_File_set_atomicity";
    SM_TRY(sm_file_check(fh, fn));
    flag = flag != 0;
    if (!same_everywhere(fh, flag))
        return sm_file_error(fh, MPI_ERR_NOT_SAME, fn, "flag differs between processes");
    fh->atomic = flag;
    return MPI_SUCCESS;
}

int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    const char *fn = "MPI_File_get_atomicity";
    SM_TRY(sm_file_check(fh, fn));
    if (!flag)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    *flag = fh->atomic;
    return MPI_SUCCESS;
}
