/* timing_stats.c — a known wait for the time accounting (SCTPMPI_TIMING, checked by
 * timing_stats.sh from the SCTPMPI_STATS lines): rank 1 sends a small message and a 200 KB
 * (rendezvous) message to rank 0, which posts its receives only after sleeping 100 ms, the big
 * one first: rank 1's RTS waits about 100 ms for its CTS, and the small message waits unexpected
 * at rank 0 at least while the big one is received.
 * Asserts the data; prints " No Errors" from rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BIG (200 * 1024)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "timing_stats needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    char *big = malloc(BIG);
    int small = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        small = 4711;
        for (int i = 0; i < BIG; i++)
            big[i] = (char)(i * 7);
        MPI_Send(&small, 1, MPI_INT, 0, 1, MPI_COMM_WORLD);
        MPI_Send(big, BIG, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    } else {
        struct timespec ts = {0, 100 * 1000000L};
        while (nanosleep(&ts, &ts))
            ;
        /* the big one first: the small one, sent first, waits unexpected meanwhile */
        MPI_Recv(big, BIG, MPI_CHAR, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Recv(&small, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (small != 4711)
            errs++;
        for (int i = 0; i < BIG; i++)
            if (big[i] != (char)(i * 7)) {
                errs++;
                break;
            }
        if (errs)
            printf("timing_stats: wrong data\n");
        else
            printf(" No Errors\n");
    }
    free(big);
    MPI_Finalize();
    return errs != 0;
}
