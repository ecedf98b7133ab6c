/* win_objects.c — window and file calls that need no window or file: creating their error
 * handlers (MPI_Win_create_errhandler, MPI_File_create_errhandler).  The handlers are real
 * objects (freed with MPI_Errhandler_free); windows take them with MPI_Win_set_errhandler
 * (osc/osc_win.c), files with MPI_File_set_errhandler (io/errhandler.c). */
#include "api/api.h"

static int create(void (*fn)(void), MPI_Errhandler *errhandler, const char *name)
{
    SM_TRY(sm_check_init(name));
    if (!fn || !errhandler)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, name, "NULL argument");
    *errhandler = sm_errh_new_user(fn);
    return MPI_SUCCESS;
}

int PMPI_Win_create_errhandler(MPI_Win_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return create((void (*)(void))fn, errhandler, "MPI_Win_create_errhandler");
}

int PMPI_File_create_errhandler(MPI_File_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    return create((void (*)(void))fn, errhandler, "MPI_File_create_errhandler");
}
