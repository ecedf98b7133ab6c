/* pmpi_free.c — a plain C program (no wrapper library): a ring exchange and an allreduce, for
 * the build-system tests (pkg-config, CMake's FindMPI).  " No Errors" on rank 0. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int out = rank, in = -1;
    MPI_Sendrecv(&out, 1, MPI_INT, (rank + 1) % size, 0, &in, 1, MPI_INT,
                 (rank + size - 1) % size, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in != (rank + size - 1) % size)
        errs++;
    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "%d errors\n" : " No Errors\n", all);
    MPI_Finalize();
    return all != 0;
}
