/* errhandler.c — error handling of files: the handler each file carries (MPI_ERRORS_RETURN
 * by default, as the standard specifies for files), the default one kept on MPI_FILE_NULL
 * (used for MPI_File_open / MPI_File_delete failures and given to new files),
 * MPI_File_set/get/call_errhandler, and the errno -> MPI error class mapping. */
#include "io/io.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

static MPI_Errhandler file_default = MPI_ERRORS_RETURN;

MPI_Errhandler sm_file_default_errh(void)
{
    return file_default;
}

int sm_file_error(MPI_File fh, int err, const char *fn, const char *fmt, ...)
{
    int valid = fh && fh->valid;
    MPI_Errhandler eh = valid ? fh->errh : file_default;
    if (!eh)
        return err;
    MPI_File f = valid ? fh : MPI_FILE_NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = sm_errh_vraise(eh, SM_ERRH_FILE, &f, err, MPI_COMM_WORLD, fn, fmt, ap);
    va_end(ap);
    return rc;
}

int sm_file_check(MPI_File fh, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!fh || !fh->valid)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_FILE, fn, "null or closed file handle");
    return MPI_SUCCESS;
}

int sm_errno_class(int e)
{
    switch (e) {
    case ENOENT:
    case ENOTDIR: return MPI_ERR_NO_SUCH_FILE;
    case EACCES:
    case EPERM: return MPI_ERR_ACCESS;
    case EEXIST: return MPI_ERR_FILE_EXISTS;
    case EROFS: return MPI_ERR_READ_ONLY;
    case ENOSPC:
    case EFBIG: return MPI_ERR_NO_SPACE;
#ifdef EDQUOT
    case EDQUOT: return MPI_ERR_QUOTA;
#endif
    case ENAMETOOLONG:
    case EISDIR:
    case ELOOP: return MPI_ERR_BAD_FILE;
    case ETXTBSY:
    case EBUSY: return MPI_ERR_FILE_IN_USE;
    default: return MPI_ERR_IO;
    }
}

int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_File_set_errhandler";
    SM_TRY(sm_check_init(fn));
    if (file != MPI_FILE_NULL && !file->valid)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_FILE, fn, "closed file handle");
    if (!errhandler)
        return sm_file_error(file, MPI_ERR_ARG, fn, "null error handler");
    sm_errh_set(file == MPI_FILE_NULL ? &file_default : &file->errh, errhandler);
    return MPI_SUCCESS;
}

int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_File_get_errhandler";
    SM_TRY(sm_check_init(fn));
    if (file != MPI_FILE_NULL && !file->valid)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_FILE, fn, "closed file handle");
    if (!errhandler)
        return sm_file_error(file, MPI_ERR_ARG, fn, "NULL argument");
    sm_errh_get(file == MPI_FILE_NULL ? file_default : file->errh, errhandler);
    return MPI_SUCCESS;
}

int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    const char *fn = "MPI_File_call_errhandler";
    SM_TRY(sm_check_init(fn));
    if (fh != MPI_FILE_NULL && !fh->valid)
        return sm_file_error(MPI_FILE_NULL, MPI_ERR_FILE, fn, "closed file handle");
    sm_file_error(fh, errorcode, fn, NULL);
    return MPI_SUCCESS;
}
