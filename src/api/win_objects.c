/* win_objects.c — window and file calls that need no window or file: creating their error
 * handlers (MPI_Win_create_errhandler, MPI_File_create_errhandler) and the default error
 * handler of files (MPI_File_set/get_errhandler on MPI_FILE_NULL).  The handlers are real
 * objects (freed with MPI_Errhandler_free); windows take them with MPI_Win_set_errhandler
 * (osc/osc_win.c), while no file exists to call them on (MPI-IO is not supported). */
#include "api/api.h"

static int create(void (*fn)(void), MPI_Errhandler *errhandler, const char *name)
{
    SM_TRY(sm_check_init(name));
    if (!fn || !errhandler)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, name, "NULL argument");
    struct sctpmpi_errhandler *e = sm_xcalloc(1, sizeof *e);
    e->kind = SM_EH_USER;
    e->fn = (MPI_Comm_errhandler_function *)fn;
    e->refcount = 1;
    *errhandler = e;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create_errhandler = PMPI_Win_create_errhandler
int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return create((void (*)(void))fn, errhandler, "MPI_Win_create_errhandler");
}

#pragma weak MPI_File_create_errhandler = PMPI_File_create_errhandler
int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return create((void (*)(void))fn, errhandler, "MPI_File_create_errhandler");
}

/* The error handler of MPI_FILE_NULL is the one files get when opened (MPI_ERRORS_RETURN
 * until changed).  No file can be opened, so any other file handle is invalid. */
static MPI_Errhandler file_default = MPI_ERRORS_RETURN;

#pragma weak MPI_File_set_errhandler = PMPI_File_set_errhandler
int PMPI_File_set_errhandler(MPI_File file, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_File_set_errhandler";
    SM_TRY(sm_check_init(fn));
    if (file != MPI_FILE_NULL)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_FILE, fn,
                        "invalid file (MPI-IO is not supported)");
    if (!errhandler)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "null error handler");
    sm_errh_retain(errhandler);
    sm_errh_release(file_default);
    file_default = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_File_get_errhandler = PMPI_File_get_errhandler
int PMPI_File_get_errhandler(MPI_File file, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_File_get_errhandler";
    SM_TRY(sm_check_init(fn));
    if (file != MPI_FILE_NULL)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_FILE, fn,
                        "invalid file (MPI-IO is not supported)");
    if (!errhandler)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    sm_errh_retain(file_default); /* the caller frees it with MPI_Errhandler_free */
    *errhandler = file_default;
    return MPI_SUCCESS;
}
