/* nonblock.c — non-blocking data access (MPI_File_i*) and split collectives
 * (MPI_File_*_begin / _end).  The access itself is made at once, inside the starting call
 * (collective ones with the others, in the order every process starts them, as the standard
 * requires); the call returns a real request, already complete and carrying the access's
 * status, that MPI_Wait / MPI_Test and friends retire like any other.  A split collective
 * keeps the status on the file until the matching _end. */
#include "io/io.h"

#include <limits.h>

MPI_Request sm_io_request(const MPI_Status *st, int err)
{
    struct sctpmpi_request *r = sm_request_done(MPI_ANY_SOURCE);
    r->base.status = *st;
    r->base.status.MPI_ERROR = err;
    return r;
}

int sm_io_irw(MPI_File fh, int write, int where, int coll, MPI_Offset offset, void *buf,
              MPI_Offset count, MPI_Datatype dt, MPI_Request *req, const char *fn)
{
    SM_TRY(sm_file_check(fh, fn));
    if (!req)
        return sm_file_error(fh, MPI_ERR_REQUEST, fn, "NULL request pointer");
    MPI_Status st;
    sm_io_status(&st, 0);
    st.MPI_ERROR = MPI_SUCCESS;
    int rc = sm_io_rw(fh, write, where, coll, offset, buf, count, dt, &st, fn);
    if (rc != MPI_SUCCESS) {
        *req = MPI_REQUEST_NULL;
        return rc;
    }
    *req = sm_io_request(&st, MPI_SUCCESS);
    return MPI_SUCCESS;
}

int sm_io_split_begin(MPI_File fh, int write, int where, MPI_Offset offset, const void *buf,
                      MPI_Offset count, MPI_Datatype dt, const char *fn)
{
    SM_TRY(sm_file_check(fh, fn));
    if (fh->split_active)
        return sm_file_error(fh, MPI_ERR_OTHER, fn,
                             "a split collective is already active on this file");
    sm_io_status(&fh->split_status, 0);
    fh->split_status.MPI_ERROR = MPI_SUCCESS;
    int rc = sm_io_rw(fh, write, where, 1, offset, (void *)buf, count, dt, &fh->split_status, fn);
    if (rc != MPI_SUCCESS)
        return rc;
    fh->split_active = 1 + write;
    fh->split_buf = buf;
    return MPI_SUCCESS;
}

int sm_io_split_end(MPI_File fh, int write, int where, const void *buf, MPI_Status *status,
                    const char *fn)
{
    (void)where;
    SM_TRY(sm_file_check(fh, fn));
    if (fh->split_active != 1 + write)
        return sm_file_error(fh, MPI_ERR_OTHER, fn, "no matching split collective begun");
    if (buf != fh->split_buf)
        return sm_file_error(fh, MPI_ERR_BUFFER, fn, "buffer differs from the _begin call's");
    fh->split_active = 0;
    if (status != MPI_STATUS_IGNORE)
        *status = fh->split_status;
    return MPI_SUCCESS;
}

static int int_count(MPI_File fh, int count, const char *fn)
{
    if (count < 0)
        return sm_file_error(fh && fh->valid ? fh : MPI_FILE_NULL, MPI_ERR_COUNT, fn,
                             "negative count");
    return MPI_SUCCESS;
}

/* ---- MPI_File_i* ------------------------------------------------------------------------ */
#define IRW(Name, W, Where, Coll, CONST)                                                         \
    int PMPI_File_##Name(MPI_File fh, CONST void *buf, int count, MPI_Datatype datatype,         \
                         MPI_Request *request)                                                   \
    {                                                                                            \
        SM_TRY(int_count(fh, count, "MPI_File_" #Name));                                         \
        return sm_io_irw(fh, W, Where, Coll, 0, (void *)buf, count, datatype, request,           \
                         "MPI_File_" #Name);                                                     \
    }
#define IRW_AT(Name, W, Coll, CONST)                                                             \
    int PMPI_File_##Name(MPI_File fh, MPI_Offset offset, CONST void *buf, int count,             \
                         MPI_Datatype datatype, MPI_Request *request)                            \
    {                                                                                            \
        SM_TRY(int_count(fh, count, "MPI_File_" #Name));                                         \
        return sm_io_irw(fh, W, SM_AT, Coll, offset, (void *)buf, count, datatype, request,      \
                         "MPI_File_" #Name);                                                     \
    }
#define NOCONST

IRW(iread, 0, SM_INDIV, 0, NOCONST)
IRW(iwrite, 1, SM_INDIV, 0, const)
IRW(iread_all, 0, SM_INDIV, 1, NOCONST)
IRW(iwrite_all, 1, SM_INDIV, 1, const)
IRW(iread_shared, 0, SM_SHARED, 0, NOCONST)
IRW(iwrite_shared, 1, SM_SHARED, 0, const)
IRW_AT(iread_at, 0, 0, NOCONST)
IRW_AT(iwrite_at, 1, 0, const)
IRW_AT(iread_at_all, 0, 1, NOCONST)
IRW_AT(iwrite_at_all, 1, 1, const)

/* ---- split collectives ------------------------------------------------------------------ */
#define SPLIT(Name, W, Where, CONST)                                                             \
    int PMPI_File_##Name##_begin(MPI_File fh, CONST void *buf, int count, MPI_Datatype datatype) \
    {                                                                                            \
        SM_TRY(int_count(fh, count, "MPI_File_" #Name "_begin"));                                \
        return sm_io_split_begin(fh, W, Where, 0, buf, count, datatype,                          \
                                 "MPI_File_" #Name "_begin");                                    \
    }                                                                                            \
    int PMPI_File_##Name##_end(MPI_File fh, CONST void *buf, MPI_Status *status)                 \
    {                                                                                            \
        return sm_io_split_end(fh, W, Where, buf, status, "MPI_File_" #Name "_end");             \
    }

SPLIT(read_all, 0, SM_INDIV, NOCONST)
SPLIT(write_all, 1, SM_INDIV, const)
SPLIT(read_ordered, 0, SM_SHARED, NOCONST)
SPLIT(write_ordered, 1, SM_SHARED, const)

int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype datatype)
{
    SM_TRY(int_count(fh, count, "MPI_File_read_at_all_begin"));
    return sm_io_split_begin(fh, 0, SM_AT, offset, buf, count, datatype,
                             "MPI_File_read_at_all_begin");
}

int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return sm_io_split_end(fh, 0, SM_AT, buf, status, "MPI_File_read_at_all_end");
}

int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype)
{
    SM_TRY(int_count(fh, count, "MPI_File_write_at_all_begin"));
    return sm_io_split_begin(fh, 1, SM_AT, offset, buf, count, datatype,
                             "MPI_File_write_at_all_begin");
}

int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return sm_io_split_end(fh, 1, SM_AT, buf, status, "MPI_File_write_at_all_end");
}
