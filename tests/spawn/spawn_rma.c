/* spawn_rma.c — a window over processes of two jobs (parents and the children they spawned,
 * merged into one intracommunicator) is refused on every member with
 * MPI_ERR_UNSUPPORTED_OPERATION, in bounded time, instead of hanging in the first lock; the
 * merged communicator keeps working afterwards (a barrier and an allreduce). */
#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm parent, inter, merged;
    MPI_Comm_get_parent(&parent);
    int is_parent = parent == MPI_COMM_NULL;
    if (is_parent)
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter,
                       MPI_ERRCODES_IGNORE);
    else
        inter = parent;
    MPI_Intercomm_merge(inter, is_parent ? 0 : 1, &merged);
    MPI_Comm_set_errhandler(merged, MPI_ERRORS_RETURN);
    int msize;
    MPI_Comm_size(merged, &msize);
    int buf[16] = { 0 };
    MPI_Win win = MPI_WIN_NULL;
    int rc = MPI_Win_create(buf, (MPI_Aint)sizeof buf, sizeof(int), MPI_INFO_NULL, merged, &win);
    int klass = MPI_SUCCESS;
    MPI_Error_class(rc, &klass);
    CHECK(klass == MPI_ERR_UNSUPPORTED_OPERATION,
          "MPI_Win_create over two jobs returned class %d, expected %d", klass,
          MPI_ERR_UNSUPPORTED_OPERATION);
    CHECK(win == MPI_WIN_NULL, "a refused window handle was set");
    MPI_Barrier(merged);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize, "allreduce over the merged communicator: %d of %d", sum, msize);
    MPI_Comm_free(&merged);
    MPI_Comm_disconnect(&inter);
    if (!is_parent) {
        MPI_Finalize();
        return 0;
    }
    return finish();
}
