// hello.cpp — a C++ program against mpi.h, built with mpicxx / mpic++ or through pkg-config:
// each rank contributes its rank with MPI_Allreduce into a std::vector; " No Errors" on rank 0.
#include <mpi.h>

#include <cstdio>
#include <vector>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    std::vector<int> mine(4, rank), sum(4, -1);
    MPI_Allreduce(mine.data(), sum.data(), 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int errs = 0;
    for (int v : sum)
        if (v != size * (size - 1) / 2)
            errs++;
    if (rank == 0) {
        if (errs)
            std::printf("%d wrong sums\n", errs);
        else
            std::printf(" No Errors\n");
    }
    MPI_Finalize();
    return errs != 0;
}
