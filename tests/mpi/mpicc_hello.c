/* mpicc_hello — built by mpicc_check.sh with our mpicc wrapper: ranks exchange their rank with
 * neighbours, check it, rank 0 prints " No Errors". */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, left, got = -1;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    left = (rank - 1 + size) % size;
    MPI_Sendrecv(&rank, 1, MPI_INT, (rank + 1) % size, 0, &got, 1, MPI_INT, left, 0,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (got != left) {
        printf("sm-test FAILED rank %d: got %d from the left neighbour, want %d\n", rank, got, left);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
