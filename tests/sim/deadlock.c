/* deadlock.c — both ranks receive first: a real deadlock.  Under mpiexec --sim the simulator
 * must find it (every rank blocked in MPI, nothing on its way) and stop the job with a message
 * instead of hanging; deadlock.sh checks that. */
#include <mpi.h>

int main(int argc, char **argv)
{
    int rank, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Recv(&x, 1, MPI_INT, 1 - rank, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
