/* unsupported.c — functions that fail report a clear error class through the error handler
 * (here MPI_ERRORS_RETURN) instead of failing to link or hanging; under another MPI
 * (OPEN_MPI / MPICH defined) only the portable part runs.  Comm_get_parent gives
 * MPI_COMM_NULL in a process that was not spawned; accepting on something that is not a
 * port of this process is MPI_ERR_PORT (dynamic processes: tests/spawn). */
#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm parent;
    CHECK(MPI_Comm_get_parent(&parent) == MPI_SUCCESS && parent == MPI_COMM_NULL, "parent");
#if !defined(OPEN_MPI) && !defined(MPICH)
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int a = 1, cls;
    MPI_File f = MPI_FILE_NULL;
    char port[MPI_MAX_PORT_NAME];
    MPI_Comm ic;
    int rc[8];
#define EXPECT(call)                                                                             \
    do {                                                                                         \
        int e_ = (call);                                                                         \
        MPI_Error_class(e_, &cls);                                                               \
        CHECK(cls == MPI_ERR_PORT, "%s gave class %d", #call, cls);                              \
    } while (0)
    /* MPI-IO is provided (src/io): a bad access mode and a null file are plain errors */
    MPI_File_open(MPI_COMM_WORLD, "x", 0, MPI_INFO_NULL, &f);
    CHECK(f == MPI_FILE_NULL, "File_open with amode 0 gave a file");
    MPI_Error_class(MPI_File_read(f, &a, 1, MPI_INT, MPI_STATUS_IGNORE), &cls);
    CHECK(cls == MPI_ERR_FILE, "File_read on MPI_FILE_NULL gave class %d", cls);
    EXPECT(MPI_Comm_accept("p", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
    EXPECT(MPI_Comm_connect("not-a-port", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
    (void)port;
    (void)rc;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
    (void)xmalloc;
    return finish();
}
