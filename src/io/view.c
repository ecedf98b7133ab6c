/* view.c — file views: MPI_File_set_view / get_view, MPI_File_get_byte_offset, and the
 * mapping every access uses from a range of view bytes (the data the view exposes, in order)
 * to pieces of the file.
 *
 * The filetype is flattened once, at set_view, into its runs of bytes (offset from the
 * element's origin, length) in type-map order, adjacent runs merged, with the running total
 * of data bytes before each run.  View byte v then lies in filetype element v / ft_data, in
 * the run found by binary search on the running totals; the file offset is
 * disp + element * ft_extent + run offset + the rest. */
#include "io/io.h"

#include <stdlib.h>
#include <string.h>

static void flatten(MPI_File fh, MPI_Datatype ft)
{
    free(fh->blk);
    free(fh->prefix);
    size_t n = ft->basic ? 1 : ft->nblocks;
    fh->blk = sm_xmalloc((n ? n : 1) * sizeof *fh->blk);
    fh->prefix = sm_xmalloc((n ? n : 1) * sizeof *fh->prefix);
    size_t k = 0;
    MPI_Offset total = 0;
    for (size_t i = 0; i < n; i++) {
        MPI_Offset off = ft->basic ? 0 : ft->blocks[i].disp;
        MPI_Offset len = ft->basic ? (MPI_Offset)ft->extent : (MPI_Offset)ft->blocks[i].len;
        if (len == 0)
            continue;
        if (k > 0 && fh->blk[k - 1].off + fh->blk[k - 1].len == off) {
            fh->blk[k - 1].len += len;
        } else {
            fh->blk[k].off = off;
            fh->blk[k].len = len;
            fh->prefix[k] = total;
            k++;
        }
        total += len;
    }
    fh->nblk = k;
    fh->ft_data = total;
    fh->ft_extent = ft->extent;
}

static void set_types(MPI_File fh, MPI_Datatype etype, MPI_Datatype filetype)
{
    if (!etype->basic)
        sm_dt_retain(etype);
    if (!filetype->basic)
        sm_dt_retain(filetype);
    if (fh->etype && !fh->etype->basic)
        sm_dt_release(fh->etype);
    if (fh->filetype && !fh->filetype->basic)
        sm_dt_release(fh->filetype);
    fh->etype = etype;
    fh->filetype = filetype;
    flatten(fh, filetype);
}

void sm_view_reset(MPI_File fh)
{
    fh->disp = 0;
    set_types(fh, MPI_BYTE, MPI_BYTE);
    strcpy(fh->datarep, "native");
    fh->rep = SM_REP_NATIVE;
    fh->urep = NULL;
    fh->esize = 1;
    fh->fp = 0;
}

/* the run of the filetype element holding data byte r (0 <= r < ft_data) */
static size_t find_block(MPI_File fh, MPI_Offset r)
{
    size_t lo = 0, hi = fh->nblk;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (fh->prefix[mid] <= r)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

MPI_Offset sm_view_byte(MPI_File fh, MPI_Offset vbyte)
{
    if (fh->ft_data == 0)
        return fh->disp;
    MPI_Offset el = vbyte / fh->ft_data, r = vbyte % fh->ft_data;
    size_t k = find_block(fh, r);
    return fh->disp + el * fh->ft_extent + fh->blk[k].off + (r - fh->prefix[k]);
}

size_t sm_view_segments(MPI_File fh, MPI_Offset vbyte, MPI_Offset n, struct sm_seg **out)
{
    *out = NULL;
    if (n <= 0 || fh->ft_data == 0)
        return 0;
    /* contiguous filetype: one piece */
    if (fh->nblk == 1 && fh->blk[0].len == fh->ft_extent) {
        struct sm_seg *s = sm_xmalloc(sizeof *s);
        s->off = sm_view_byte(fh, vbyte);
        s->len = n;
        s->soff = 0;
        *out = s;
        return 1;
    }
    size_t cap = 16, ns = 0;
    struct sm_seg *s = sm_xmalloc(cap * sizeof *s);
    MPI_Offset el = vbyte / fh->ft_data, r = vbyte % fh->ft_data;
    size_t k = find_block(fh, r);
    MPI_Offset in_blk = r - fh->prefix[k], done = 0;
    while (done < n) {
        MPI_Offset off = fh->disp + el * fh->ft_extent + fh->blk[k].off + in_blk;
        MPI_Offset len = fh->blk[k].len - in_blk;
        if (len > n - done)
            len = n - done;
        if (ns > 0 && s[ns - 1].off + s[ns - 1].len == off) {
            s[ns - 1].len += len;
        } else {
            if (ns == cap) {
                cap *= 2;
                struct sm_seg *t = sm_xmalloc(cap * sizeof *s);
                memcpy(t, s, ns * sizeof *s);
                free(s);
                s = t;
            }
            s[ns].off = off;
            s[ns].len = len;
            s[ns].soff = done;
            ns++;
        }
        done += len;
        in_blk = 0;
        if (++k == fh->nblk) {
            k = 0;
            el++;
        }
    }
    *out = s;
    return ns;
}

/* an etype or filetype must place its data at non-negative, non-decreasing displacements,
 * without overlaps unless the file is only read */
static int type_ok(MPI_Datatype t, int allow_overlap)
{
    if (t->basic)
        return 1;
    MPI_Aint prev = 0, prev_end = 0;
    for (size_t k = 0; k < t->nblocks; k++) {
        MPI_Aint d = t->blocks[k].disp, e = d + (MPI_Aint)t->blocks[k].len;
        if (t->blocks[k].len == 0)
            continue;
        if (d < 0 || (k > 0 && d < prev) || (k > 0 && !allow_overlap && d < prev_end))
            return 0;
        prev = d;
        if (e > prev_end)
            prev_end = e;
    }
    return 1;
}

int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    const char *fn = "MPI_File_set_view";
    SM_TRY(sm_file_check(fh, fn));
    /* every check is local; the outcome is agreed below so that all processes return */
    int err = MPI_SUCCESS, rep = SM_REP_NATIVE;
    const char *why = "the same call failed on another process";
    struct sm_datarep *urep = NULL;
    size_t esz_native = 0;
    int ro = (fh->amode & MPI_MODE_RDONLY) != 0;
    if (!etype || !etype->valid || (!etype->basic && !etype->committed))
        err = MPI_ERR_TYPE, why = "invalid or uncommitted etype";
    else if (!filetype || !filetype->valid || (!filetype->basic && !filetype->committed))
        err = MPI_ERR_TYPE, why = "invalid or uncommitted filetype";
    else if (!datarep || sm_rep_lookup(datarep, &rep, &urep) != MPI_SUCCESS)
        err = MPI_ERR_UNSUPPORTED_DATAREP, why = "unknown data representation";
    else if (info != MPI_INFO_NULL && !sm_info_valid(info))
        err = MPI_ERR_INFO, why = "invalid info";
    else if (disp == MPI_DISPLACEMENT_CURRENT && !(fh->amode & MPI_MODE_SEQUENTIAL))
        err = MPI_ERR_ARG, why = "MPI_DISPLACEMENT_CURRENT needs MPI_MODE_SEQUENTIAL";
    else if (disp < 0 && disp != MPI_DISPLACEMENT_CURRENT)
        err = MPI_ERR_ARG, why = "negative displacement";
    else if (etype->size == 0 || (esz_native = sm_dt_psize(etype)) == 0)
        err = MPI_ERR_TYPE, why = "etype has no data";
    else if (!type_ok(etype, ro) || !type_ok(filetype, ro))
        err = MPI_ERR_IO,
        why = "etype or filetype with negative, decreasing or overlapping displacements";
    else if ((filetype->basic ? (size_t)filetype->extent : filetype->psize) % esz_native != 0)
        err = MPI_ERR_TYPE, why = "the filetype's data is not a whole number of etypes";
    else if (filetype->extent < 0)
        err = MPI_ERR_TYPE, why = "the filetype has a negative extent";
    /* every process must pass the same datarep and etype size (MPI_ERR_NOT_SAME otherwise) */
    long long dl = datarep ? (long long)strlen(datarep) : 0;
    long long chk[5] = { err, (long long)esz_native, -(long long)esz_native, dl, -dl }, r[5];
    PMPI_Allreduce(chk, r, 5, MPI_LONG_LONG, MPI_MAX, fh->comm);
    if (err != MPI_SUCCESS || r[0] != MPI_SUCCESS)
        return sm_file_error(fh, err != MPI_SUCCESS ? err : (int)r[0], fn, "%s", why);
    if (r[1] != -r[2] || r[3] != -r[4])
        return sm_file_error(fh, MPI_ERR_NOT_SAME, fn,
                             "etype size or data representation differs between processes");
    if (disp == MPI_DISPLACEMENT_CURRENT) {
        MPI_Offset cur = 0;
        sm_shfp_get(fh, &cur);
        disp = sm_view_byte(fh, cur * fh->esize); /* byte position of the shared pointer */
    }
    PMPI_Barrier(fh->comm); /* everyone has read the old shared pointer */
    fh->disp = disp;
    set_types(fh, etype, filetype);
    snprintf(fh->datarep, sizeof fh->datarep, "%s", datarep);
    fh->rep = rep;
    fh->urep = urep;
    fh->esize = sm_rep_size(fh, etype, 1);
    fh->fp = 0;
    sm_file_apply_info(fh, info);
    if (fh->comm->rank == 0)
        sm_shfp_set(fh, 0);
    PMPI_Barrier(fh->comm);
    return MPI_SUCCESS;
}

int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    const char *fn = "MPI_File_get_view";
    SM_TRY(sm_file_check(fh, fn));
    if (!disp || !etype || !filetype || !datarep)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    *disp = fh->disp;
    /* derived types come back as new handles the program frees */
    sm_dt_hand_out(etype, &fh->etype, 1);
    sm_dt_hand_out(filetype, &fh->filetype, 1);
    strcpy(datarep, fh->datarep);
    return MPI_SUCCESS;
}

int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    const char *fn = "MPI_File_get_byte_offset";
    SM_TRY(sm_file_check(fh, fn));
    if (!disp)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    if (offset < 0)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "negative offset");
    if (fh->amode & MPI_MODE_SEQUENTIAL)
        return sm_file_error(fh, MPI_ERR_UNSUPPORTED_OPERATION, fn, "sequential file");
    *disp = sm_view_byte(fh, offset * fh->esize);
    return MPI_SUCCESS;
}
