/* datarep.c — data representations of file views: "native" and "internal" (the bytes as
 * memory holds them, packed), "external32" (big-endian, the standard's sizes: the converter
 * of MPI_Pack_external does the work), and the ones programs add with MPI_Register_datarep
 * (their conversion and extent callbacks).  Converts between the program's
 * (buf, count, datatype) and the contiguous stream of file-form bytes an access moves; also
 * MPI_File_get_type_extent. */
#include "io/io.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct sm_datarep {
    struct sm_datarep *next;
    char name[MPI_MAX_DATAREP_STRING];
    MPI_Datarep_conversion_function *rd, *wr;
    MPI_Datarep_conversion_function_c *rd_c, *wr_c; /* MPI_Register_datarep_c */
    MPI_Datarep_extent_function *ext;
    void *extra;
};
static struct sm_datarep *reps;

int sm_rep_lookup(const char *name, int *rep, struct sm_datarep **urep)
{
    *urep = NULL;
    if (!strcmp(name, "native")) {
        *rep = SM_REP_NATIVE;
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "internal")) {
        *rep = SM_REP_INTERNAL;
        return MPI_SUCCESS;
    }
    if (!strcmp(name, "external32")) {
        *rep = SM_REP_EXTERNAL32;
        return MPI_SUCCESS;
    }
    for (struct sm_datarep *r = reps; r; r = r->next)
        if (!strcmp(r->name, name)) {
            *rep = SM_REP_USER;
            *urep = r;
            return MPI_SUCCESS;
        }
    return MPI_ERR_UNSUPPORTED_DATAREP;
}

static MPI_Offset user_leaf(struct sm_datarep *u, MPI_Datatype leaf)
{
    MPI_Aint e = 0;
    if (u->ext(leaf, &e, u->extra) != MPI_SUCCESS)
        return (MPI_Offset)leaf->extent;
    return e;
}

static MPI_Offset elem_size(MPI_File fh, MPI_Datatype dt)
{
    switch (fh->rep) {
    case SM_REP_EXTERNAL32: {
        MPI_Aint s = 0;
        PMPI_Pack_external_size("external32", 1, dt, &s);
        return s;
    }
    case SM_REP_USER: {
        if (dt->basic)
            return user_leaf(fh->urep, dt);
        MPI_Offset s = 0;
        for (size_t k = 0; k < dt->nsig; k++)
            s += (MPI_Offset)dt->sig[k].count * user_leaf(fh->urep, dt->sig[k].type);
        return s;
    }
    default: return (MPI_Offset)sm_dt_psize(dt);
    }
}

MPI_Offset sm_rep_size(MPI_File fh, MPI_Datatype dt, MPI_Offset count)
{
    return elem_size(fh, dt) * count;
}

/* count elements as one contiguous run starting at buf + *off (int-range safe) */
static int contig(MPI_Datatype dt, MPI_Offset count, MPI_Aint *off)
{
    return sm_dt_contig(dt, count > 1 ? 2 : (int)count, off);
}

/* pack / unpack counts beyond INT_MAX in pieces */
static void pack_n(const void *buf, MPI_Offset count, MPI_Datatype dt, void *out)
{
    const MPI_Offset step = INT_MAX / 2;
    size_t ps = sm_dt_psize(dt);
    for (MPI_Offset i = 0; i < count; i += step) {
        MPI_Offset c = count - i < step ? count - i : step;
        sm_dt_pack((const char *)buf + i * dt->extent, (int)c, dt, (char *)out + i * ps);
    }
}

static void unpack_n(const void *in, MPI_Offset bytes, void *buf, MPI_Offset count,
                     MPI_Datatype dt)
{
    const MPI_Offset step = INT_MAX / 2;
    MPI_Offset ps = (MPI_Offset)sm_dt_psize(dt);
    for (MPI_Offset i = 0; i < count && i * ps < bytes; i += step) {
        MPI_Offset c = count - i < step ? count - i : step;
        MPI_Offset b = bytes - i * ps < c * ps ? bytes - i * ps : c * ps;
        sm_dt_unpack((const char *)in + i * ps, (size_t)b, (char *)buf + i * dt->extent, (int)c,
                     dt);
    }
}

int sm_rep_to_file(MPI_File fh, const void *buf, MPI_Offset count, MPI_Datatype dt,
                   MPI_Offset position, const void **stream, void **tmp)
{
    *tmp = NULL;
    MPI_Aint off;
    MPI_Offset n = sm_rep_size(fh, dt, count);
    if (fh->rep == SM_REP_NATIVE || fh->rep == SM_REP_INTERNAL ||
        (fh->rep == SM_REP_USER && !fh->urep->wr && !fh->urep->wr_c)) {
        if (contig(dt, count, &off)) {
            *stream = (const char *)buf + off;
            return MPI_SUCCESS;
        }
        *tmp = sm_xmalloc(n ? (size_t)n : 1);
        pack_n(buf, count, dt, *tmp);
        *stream = *tmp;
        return MPI_SUCCESS;
    }
    *tmp = sm_xmalloc(n ? (size_t)n : 1);
    *stream = *tmp;
    if (fh->rep == SM_REP_EXTERNAL32) {
        MPI_Offset es = elem_size(fh, dt), step = INT_MAX / 2 / (es ? es : 1);
        if (step < 1)
            step = 1;
        for (MPI_Offset i = 0; i < count; i += step) {
            MPI_Offset c = count - i < step ? count - i : step;
            MPI_Aint pos = 0;
            int rc = PMPI_Pack_external("external32", (const char *)buf + i * dt->extent, (int)c,
                                        dt, (char *)*tmp + i * es, (MPI_Aint)(c * es), &pos);
            if (rc != MPI_SUCCESS)
                return MPI_ERR_CONVERSION;
        }
        return MPI_SUCCESS;
    }
    if (fh->urep->wr_c)
        return fh->urep->wr_c((void *)buf, dt, count, *tmp, position, fh->urep->extra) ==
                       MPI_SUCCESS
                   ? MPI_SUCCESS
                   : MPI_ERR_CONVERSION;
    if (count > INT_MAX)
        return MPI_ERR_COUNT;
    if (fh->urep->wr((void *)buf, dt, (int)count, *tmp, position, fh->urep->extra) != MPI_SUCCESS)
        return MPI_ERR_CONVERSION;
    return MPI_SUCCESS;
}

void *sm_rep_read_buffer(MPI_File fh, void *buf, MPI_Offset count, MPI_Datatype dt, void **tmp)
{
    *tmp = NULL;
    MPI_Aint off;
    if ((fh->rep == SM_REP_NATIVE || fh->rep == SM_REP_INTERNAL ||
         (fh->rep == SM_REP_USER && !fh->urep->rd && !fh->urep->rd_c)) &&
        contig(dt, count, &off))
        return (char *)buf + off;
    MPI_Offset n = sm_rep_size(fh, dt, count);
    *tmp = sm_xmalloc(n ? (size_t)n : 1);
    return *tmp;
}

int sm_rep_from_file(MPI_File fh, void *buf, MPI_Offset count, MPI_Datatype dt,
                     MPI_Offset position, const void *stream, MPI_Offset got, MPI_Status *status)
{
    MPI_Aint off;
    MPI_Offset ps = (MPI_Offset)sm_dt_psize(dt);
    if (fh->rep == SM_REP_NATIVE || fh->rep == SM_REP_INTERNAL ||
        (fh->rep == SM_REP_USER && !fh->urep->rd && !fh->urep->rd_c)) {
        if (!(contig(dt, count, &off) && stream == (const char *)buf + off))
            unpack_n(stream, got, buf, count, dt);
        sm_io_status(status, got);
        return MPI_SUCCESS;
    }
    MPI_Offset es = elem_size(fh, dt);
    MPI_Offset whole = es ? got / es : 0;
    if (fh->rep == SM_REP_EXTERNAL32) {
        MPI_Offset step = INT_MAX / 2 / (es ? es : 1);
        if (step < 1)
            step = 1;
        for (MPI_Offset i = 0; i < whole; i += step) {
            MPI_Offset c = whole - i < step ? whole - i : step;
            MPI_Aint pos = 0;
            int rc = PMPI_Unpack_external("external32", (const char *)stream + i * es,
                                          (MPI_Aint)(c * es), &pos, (char *)buf + i * dt->extent,
                                          (int)c, dt);
            if (rc != MPI_SUCCESS)
                return MPI_ERR_CONVERSION;
        }
    } else if (whole > 0 && fh->urep->rd_c) {
        if (fh->urep->rd_c(buf, dt, whole, (void *)stream, position, fh->urep->extra) !=
            MPI_SUCCESS)
            return MPI_ERR_CONVERSION;
    } else if (whole > 0) {
        if (whole > INT_MAX)
            return MPI_ERR_COUNT;
        if (fh->urep->rd(buf, dt, (int)whole, (void *)stream, position, fh->urep->extra) !=
            MPI_SUCCESS)
            return MPI_ERR_CONVERSION;
    }
    sm_io_status(status, whole * ps);
    return MPI_SUCCESS;
}

int sm_io_type_extent(MPI_File fh, MPI_Datatype dt, MPI_Count *extent, const char *fn)
{
    SM_TRY(sm_file_check(fh, fn));
    if (!dt || !dt->valid)
        return sm_file_error(fh, MPI_ERR_TYPE, fn, "invalid datatype");
    if (!extent)
        return sm_file_error(fh, MPI_ERR_ARG, fn, "NULL argument");
    if (fh->rep == SM_REP_NATIVE || fh->rep == SM_REP_INTERNAL) {
        *extent = dt->extent;
        return MPI_SUCCESS;
    }
    /* other representations: the file bytes of the type's data, scaled for its holes */
    MPI_Offset data = elem_size(fh, dt), native = (MPI_Offset)sm_dt_psize(dt);
    *extent = native ? (MPI_Count)((double)dt->extent * (double)data / (double)native) : data;
    if (dt->basic || (MPI_Offset)dt->extent == native)
        *extent = data;
    return MPI_SUCCESS;
}

int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    MPI_Count e;
    SM_TRY(sm_io_type_extent(fh, datatype, &e, "MPI_File_get_type_extent"));
    *extent = (MPI_Aint)e;
    return MPI_SUCCESS;
}

static int reg(const char *datarep, MPI_Datarep_conversion_function *rd,
               MPI_Datarep_conversion_function *wr, MPI_Datarep_conversion_function_c *rd_c,
               MPI_Datarep_conversion_function_c *wr_c, MPI_Datarep_extent_function *ext,
               void *extra, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!datarep || !*datarep || strlen(datarep) >= MPI_MAX_DATAREP_STRING)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_ARG, fn, "bad representation name");
    if (!ext)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_ARG, fn, "NULL extent function");
    int rep;
    struct sm_datarep *u;
    if (sm_rep_lookup(datarep, &rep, &u) == MPI_SUCCESS)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_DUP_DATAREP, fn,
                             "representation '%s' already defined", datarep);
    u = sm_xcalloc(1, sizeof *u);
    snprintf(u->name, sizeof u->name, "%s", datarep);
    u->rd = rd;
    u->wr = wr;
    u->rd_c = rd_c;
    u->wr_c = wr_c;
    u->ext = ext;
    u->extra = extra;
    u->next = reps;
    reps = u;
    return MPI_SUCCESS;
}

int PMPI_Register_datarep(const char *datarep,
                          MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return reg(datarep, read_conversion_fn, write_conversion_fn, NULL, NULL, dtype_file_extent_fn,
               extra_state, "MPI_Register_datarep");
}

int PMPI_Register_datarep_c(const char *datarep,
                            MPI_Datarep_conversion_function_c *read_conversion_fn,
                            MPI_Datarep_conversion_function_c *write_conversion_fn,
                            MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return reg(datarep, NULL, NULL, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn,
               extra_state, "MPI_Register_datarep_c");
}

int PMPI_File_get_type_extent_c(MPI_File fh, MPI_Datatype datatype, MPI_Count *extent)
{
    return sm_io_type_extent(fh, datatype, extent, "MPI_File_get_type_extent_c");
}
