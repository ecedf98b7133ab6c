/* access.c — data access: the argument checks every access shares, positioning (explicit
 * offsets, the individual file pointer, the shared one, the ordered collective position),
 * the independent path (the view turns the access into file pieces; writes go out one
 * pwrite per merged piece, reads of many small pieces are sieved: one pread of a window of
 * at most ind_rd_buffer_size bytes serves every piece inside it), atomic mode (an fcntl lock
 * over the bytes an access spans), and the blocking MPI entry points, MPI_File_seek and
 * MPI_File_get_position. */
#include "io/io.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

void sm_io_status(MPI_Status *st, MPI_Offset bytes)
{
    if (st == MPI_STATUS_IGNORE)
        return;
    st->MPI_SOURCE = MPI_ANY_SOURCE;
    st->MPI_TAG = MPI_ANY_TAG;
    st->sm_cancelled = 0;
    st->sm_count = (size_t)bytes;
}

/* what is wrong with an access (MPI_SUCCESS: nothing), without reporting it */
static int access_problem(MPI_File fh, int write, int where, MPI_Offset offset, MPI_Offset count,
                          MPI_Datatype dt, const void *buf, const char **why)
{
    if (count < 0)
        return *why = "negative count", MPI_ERR_COUNT;
    if (!dt || !dt->valid || (!dt->basic && !dt->committed))
        return *why = "invalid or uncommitted datatype", MPI_ERR_TYPE;
    if (!buf && count > 0 && dt->size > 0 && dt->basic)
        return *why = "NULL buffer", MPI_ERR_BUFFER;
    if (write && (fh->amode & MPI_MODE_RDONLY))
        return *why = "file opened with MPI_MODE_RDONLY", MPI_ERR_ACCESS;
    if (!write && (fh->amode & MPI_MODE_WRONLY))
        return *why = "file opened with MPI_MODE_WRONLY", MPI_ERR_ACCESS;
    if (where != SM_SHARED && (fh->amode & MPI_MODE_SEQUENTIAL))
        return *why = "file opened with MPI_MODE_SEQUENTIAL: only shared file pointers",
               MPI_ERR_UNSUPPORTED_OPERATION;
    if (sm_rep_size(fh, dt, count) % fh->esize != 0)
        return *why = "the data is not a whole number of etypes of the view", MPI_ERR_TYPE;
    if (where == SM_AT && offset < 0)
        return *why = "negative offset", MPI_ERR_ARG;
    return MPI_SUCCESS;
}

/* the stream bytes before the first piece that reaches past end of file size */
static MPI_Offset got_before_eof(const struct sm_seg *s, size_t ns, MPI_Offset size, MPI_Offset n)
{
    for (size_t i = 0; i < ns; i++)
        if (s[i].off + s[i].len > size)
            return s[i].soff + (size > s[i].off ? size - s[i].off : 0);
    return n;
}

/* pieces in ascending file order from i on that fit one window of at most max bytes */
static size_t window_end(const struct sm_seg *s, size_t ns, size_t i, MPI_Offset max,
                         MPI_Offset limit)
{
    size_t j = i + 1;
    while (j < ns && s[j].off >= s[j - 1].off + s[j - 1].len &&
           s[j].off + s[j].len - s[i].off <= max && s[j].off < limit)
        j++;
    return j;
}

/* Reads: data sieving.  Pieces close together are read with one pread of the window they
 * span (at most ind_rd_buffer_size bytes) and copied out; a piece alone is read directly. */
static int read_pieces(MPI_File fh, struct sm_seg *s, size_t ns, char *stream, MPI_Offset n,
                       MPI_Offset *got)
{
    struct stat st;
    if (fstat(fh->fd, &st) < 0)
        return sm_errno_class(errno);
    MPI_Offset size = (MPI_Offset)st.st_size;
    *got = got_before_eof(s, ns, size, n);
    size_t i = 0;
    char *win = NULL;
    while (i < ns && s[i].off < size) {
        size_t j = fh->ds_read ? window_end(s, ns, i, fh->ind_rd_buffer_size, size) : i + 1;
        if (j - i > 1) {
            MPI_Offset span = s[j - 1].off + s[j - 1].len - s[i].off;
            if (!win)
                win = sm_xmalloc((size_t)fh->ind_rd_buffer_size);
            ssize_t r = sm_io_pread(fh, win, (size_t)span, s[i].off);
            if (r < 0) {
                free(win);
                return sm_errno_class(errno);
            }
            memset(win + r, 0, (size_t)(span - r));
            for (size_t k = i; k < j; k++)
                memcpy(stream + s[k].soff, win + (s[k].off - s[i].off), (size_t)s[k].len);
            i = j;
            continue;
        }
        if (sm_io_pread(fh, stream + s[i].soff, (size_t)s[i].len, s[i].off) < 0) {
            free(win);
            return sm_errno_class(errno);
        }
        i++;
    }
    free(win);
    return MPI_SUCCESS;
}

/* Writes: pieces close together are written as one window (at most ind_wr_buffer_size
 * bytes) read first, updated and written back under an fcntl lock, so the bytes between the
 * pieces, which other processes may be writing, are not lost; a piece alone is written
 * directly. */
static int write_pieces(MPI_File fh, const struct sm_seg *s, size_t ns, const char *stream)
{
    size_t i = 0;
    char *win = NULL;
    int err = MPI_SUCCESS;
    while (i < ns && err == MPI_SUCCESS) {
        size_t j = fh->ds_write && fh->can_read && !fh->atomic
                       ? window_end(s, ns, i, fh->ind_wr_buffer_size, INT64_MAX)
                       : i + 1;
        if (j - i > 1) {
            MPI_Offset lo = s[i].off, span = s[j - 1].off + s[j - 1].len - lo;
            if (!win)
                win = sm_xmalloc((size_t)fh->ind_wr_buffer_size);
            sm_io_lock(fh, 1, lo, span);
            ssize_t r = sm_io_pread(fh, win, (size_t)span, lo);
            if (r < 0) {
                err = sm_errno_class(errno);
            } else {
                memset(win + r, 0, (size_t)(span - r));
                for (size_t k = i; k < j; k++)
                    memcpy(win + (s[k].off - lo), stream + s[k].soff, (size_t)s[k].len);
                if (sm_io_pwrite(fh, win, (size_t)span, lo) < 0)
                    err = sm_errno_class(errno);
            }
            sm_io_unlock(fh, lo, span);
            i = j;
            continue;
        }
        if (sm_io_pwrite(fh, stream + s[i].soff, (size_t)s[i].len, s[i].off) < 0)
            err = sm_errno_class(errno);
        i++;
    }
    free(win);
    return err;
}

static void span_of(const struct sm_seg *s, size_t ns, MPI_Offset *lo, MPI_Offset *hi)
{
    *lo = s[0].off;
    *hi = s[0].off + s[0].len;
    for (size_t i = 1; i < ns; i++) {
        if (s[i].off < *lo)
            *lo = s[i].off;
        if (s[i].off + s[i].len > *hi)
            *hi = s[i].off + s[i].len;
    }
}

int sm_io_indep(MPI_File fh, int write, MPI_Offset offset, void *buf, MPI_Offset count,
                MPI_Datatype dt, MPI_Status *status, const char *fn)
{
    MPI_Offset n = sm_rep_size(fh, dt, count);
    struct sm_seg *s;
    size_t ns = sm_view_segments(fh, offset * fh->esize, n, &s);
    MPI_Offset lo = 0, hi = 0;
    if (ns && fh->atomic) {
        span_of(s, ns, &lo, &hi);
        sm_io_lock(fh, write, lo, hi - lo);
    }
    int err = MPI_SUCCESS;
    void *tmp = NULL;
    if (write) {
        const void *stream;
        err = sm_rep_to_file(fh, buf, count, dt, offset, &stream, &tmp);
        if (err == MPI_SUCCESS)
            err = write_pieces(fh, s, ns, stream);
        if (err == MPI_SUCCESS)
            sm_io_status(status, (MPI_Offset)sm_dt_psize(dt) * count);
    } else {
        char *stream = sm_rep_read_buffer(fh, buf, count, dt, &tmp);
        MPI_Offset got = 0;
        err = read_pieces(fh, s, ns, stream, n, &got);
        if (err == MPI_SUCCESS)
            err = sm_rep_from_file(fh, buf, count, dt, offset, stream, got, status);
    }
    if (ns && fh->atomic)
        sm_io_unlock(fh, lo, hi - lo);
    free(tmp);
    free(s);
    if (err != MPI_SUCCESS)
        return sm_file_error(fh, err, fn, "%s failed", write ? "write" : "read");
    return MPI_SUCCESS;
}

/* the collective access at the shared pointer: ranks in order, one after another */
static int ordered(MPI_File fh, int write, void *buf, MPI_Offset count, MPI_Datatype dt,
                   MPI_Status *status, const char *fn)
{
    long long mine = (long long)(sm_rep_size(fh, dt, count) / fh->esize), before = 0, total = 0;
    PMPI_Exscan(&mine, &before, 1, MPI_LONG_LONG, MPI_SUM, fh->comm);
    if (fh->comm->rank == 0)
        before = 0;
    PMPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG, MPI_SUM, fh->comm);
    long long base[2] = { 0, MPI_SUCCESS };
    if (fh->comm->rank == 0) {
        MPI_Offset old = 0;
        base[1] = sm_shfp_fetch_add(fh, total, &old);
        base[0] = old;
    }
    PMPI_Bcast(base, 2, MPI_LONG_LONG, 0, fh->comm);
    if (base[1] != MPI_SUCCESS)
        return sm_file_error(fh, (int)base[1], fn, "shared file pointer");
    return sm_io_coll(fh, write, base[0] + before, buf, count, dt, status, fn);
}

int sm_io_rw(MPI_File fh, int write, int where, int coll, MPI_Offset offset, void *buf,
             MPI_Offset count, MPI_Datatype dt, MPI_Status *status, const char *fn)
{
    SM_TRY(sm_file_check(fh, fn));
    const char *why = "the same call failed on another process";
    int err = access_problem(fh, write, where, offset, count, dt, buf, &why);
    if (coll && err == MPI_SUCCESS && fh->split_active)
        err = MPI_ERR_OTHER, why = "a split collective is active on this file";
    if (coll) {
        /* a collective call: every process learns whether any argument was wrong, so none
         * waits in the exchange for one that has already returned */
        int any = err;
        PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, fh->comm);
        err = any;
    }
    if (err != MPI_SUCCESS)
        return sm_file_error(fh, err, fn, "%s", why);
    MPI_Offset etypes = sm_rep_size(fh, dt, count) / fh->esize;
    switch (where) {
    case SM_AT: break;
    case SM_INDIV:
        offset = fh->fp;
        fh->fp += etypes;
        break;
    case SM_SHARED:
        if (coll)
            return ordered(fh, write, buf, count, dt, status, fn);
        {
            int rc = sm_shfp_fetch_add(fh, etypes, &offset);
            if (rc != MPI_SUCCESS)
                return sm_file_error(fh, rc, fn, "shared file pointer");
        }
        break;
    }
    if (coll)
        return sm_io_coll(fh, write, offset, buf, count, dt, status, fn);
    return sm_io_indep(fh, write, offset, buf, count, dt, status, fn);
}

/* ---- the blocking entry points -------------------------------------------------------- */
#define RW(Name, W, Where, Coll, CONST)                                                          \
    int PMPI_File_##Name(MPI_File fh, CONST void *buf, int count, MPI_Datatype datatype,         \
                         MPI_Status *status)                                                     \
    {                                                                                            \
        return sm_io_rw(fh, W, Where, Coll, 0, (void *)buf, count, datatype, status,             \
                        "MPI_File_" #Name);                                                      \
    }
#define RW_AT(Name, W, Coll, CONST)                                                              \
    int PMPI_File_##Name(MPI_File fh, MPI_Offset offset, CONST void *buf, int count,             \
                         MPI_Datatype datatype, MPI_Status *status)                              \
    {                                                                                            \
        return sm_io_rw(fh, W, SM_AT, Coll, offset, (void *)buf, count, datatype, status,        \
                        "MPI_File_" #Name);                                                      \
    }
#define NOCONST

RW(read, 0, SM_INDIV, 0, NOCONST)
RW(write, 1, SM_INDIV, 0, const)
RW(read_all, 0, SM_INDIV, 1, NOCONST)
RW(write_all, 1, SM_INDIV, 1, const)
RW(read_shared, 0, SM_SHARED, 0, NOCONST)
RW(write_shared, 1, SM_SHARED, 0, const)
RW(read_ordered, 0, SM_SHARED, 1, NOCONST)
RW(write_ordered, 1, SM_SHARED, 1, const)
RW_AT(read_at, 0, 0, NOCONST)
RW_AT(write_at, 1, 0, const)
RW_AT(read_at_all, 0, 1, NOCONST)
RW_AT(write_at_all, 1, 1, const)

/* ---- the individual file pointer ------------------------------------------------------- */
/* the view position (etypes) of end of file: the data bytes of the view that lie before it */
static MPI_Offset view_eof(MPI_File fh, MPI_Offset size)
{
    if (size <= fh->disp || fh->ft_data == 0 || fh->ft_extent <= 0)
        return 0;
    MPI_Offset rel = size - fh->disp, el = rel / fh->ft_extent, rem = rel % fh->ft_extent;
    MPI_Offset data = el * fh->ft_data;
    for (size_t k = 0; k < fh->nblk; k++) {
        MPI_Offset in = rem - fh->blk[k].off;
        if (in > 0)
            data += in < fh->blk[k].len ? in : fh->blk[k].len;
    }
    return (data + fh->esize - 1) / fh->esize;
}

int sm_io_seek_target(MPI_File fh, MPI_Offset cur, MPI_Offset offset, int whence, MPI_Offset *out,
                      const char *fn)
{
    MPI_Offset t;
    switch (whence) {
    case MPI_SEEK_SET: t = offset; break;
    case MPI_SEEK_CUR: t = cur + offset; break;
    case MPI_SEEK_END: {
        struct stat st;
        if (fstat(fh->fd, &st) < 0)
            return sm_file_error(fh, sm_errno_class(errno), fn, "fstat failed");
        t = view_eof(fh, (MPI_Offset)st.st_size) + offset;
        break;
    }
    default: return sm_file_error(fh, MPI_ERR_ARG, fn, "bad whence %d", whence);
    }
    if (t < 0)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "seek to a negative position");
    *out = t;
    return MPI_SUCCESS;
}

int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    const char *fn = "MPI_File_seek";
    SM_TRY(sm_file_check(fh, fn));
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return sm_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn, "sequential file");
    return sm_io_seek_target(fh, fh->fp, offset, whence, &fh->fp, fn);
}

int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    const char *fn = "MPI_File_get_position";
    SM_TRY(sm_file_check(fh, fn));
    if (!offset)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return sm_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn, "sequential file");
    *offset = fh->fp;
    return MPI_SUCCESS;
}
