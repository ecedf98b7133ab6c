/* unsupported.c — the functions sctpmpi does not provide report MPI_ERR_UNSUPPORTED_OPERATION
 * through the error handler (here MPI_ERRORS_RETURN) instead of failing to link; under another
 * MPI (OPEN_MPI / MPICH defined) only the portable part runs.  Comm_get_parent gives
 * MPI_COMM_NULL. */
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
        CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "%s gave class %d", #call, cls);            \
    } while (0)
    EXPECT(MPI_File_open(MPI_COMM_WORLD, "x", 0, MPI_INFO_NULL, &f));
    EXPECT(MPI_File_read(f, &a, 1, MPI_INT, MPI_STATUS_IGNORE));
    EXPECT(MPI_Open_port(MPI_INFO_NULL, port));
    EXPECT(MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, rc));
    EXPECT(MPI_Comm_accept("p", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic));
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
#endif
    (void)xmalloc;
    return finish();
}
