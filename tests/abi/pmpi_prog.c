/* pmpi_prog.c — linked with the count_wrap profiling library: makes a known number of calls of
 * each wrapped function and checks the wrapper saw exactly those, so calls the library makes
 * internally (the sends inside a broadcast, an allreduce or a barrier) are not seen by the
 * wrapper, and every wrapped call still works.  Prints " No Errors" on rank 0. */
#include <mpi.h>
#include <stdio.h>

int pmpi_count(const char *name);

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int right = (rank + 1) % size, left = (rank + size - 1) % size;

    /* 3 sends and 3 receives around the ring (even ranks send first) */
    for (int i = 0; i < 3; i++) {
        int out = rank * 10 + i, in = -1;
        if (size == 1) {
            MPI_Sendrecv(&out, 1, MPI_INT, 0, i, &in, 1, MPI_INT, 0, i, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        } else if (rank % 2 == 0) {
            MPI_Send(&out, 1, MPI_INT, right, i, MPI_COMM_WORLD);
            MPI_Recv(&in, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&in, 1, MPI_INT, left, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&out, 1, MPI_INT, right, i, MPI_COMM_WORLD);
        }
        if (in != left * 10 + i) {
            printf("rank %d: round %d got %d, expected %d\n", rank, i, in, left * 10 + i);
            errs++;
        }
    }
    /* collectives whose implementations send internally */
    int v = rank + 1, sum = 0;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size + 1) / 2)
        errs++, printf("rank %d: allreduce %d\n", rank, sum);
    int b = rank == 0 ? 42 : 0;
    MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (b != 42)
        errs++, printf("rank %d: bcast %d\n", rank, b);
    MPI_Barrier(MPI_COMM_WORLD);

    int sends = size == 1 ? 0 : 3, sendrecvs = size == 1 ? 3 : 0;
    struct { const char *name; int want; } expect[] = {
        {"MPI_Init", 1}, {"MPI_Send", sends}, {"MPI_Recv", sends}, {"MPI_Sendrecv", sendrecvs},
        {"MPI_Allreduce", 2}, {"MPI_Bcast", 1}, {"MPI_Barrier", 1}, {"MPI_Reduce", 0}};
    for (unsigned i = 0; i < sizeof expect / sizeof expect[0]; i++) {
        int got = pmpi_count(expect[i].name);
        if (got != expect[i].want) {
            printf("rank %d: the wrapper counted %d calls of %s, the program made %d\n", rank,
                   got, expect[i].name, expect[i].want);
            errs++;
        }
    }
    int all = 0;
    PMPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return all != 0;
}
