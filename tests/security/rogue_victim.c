/* rogue_victim.c — an MPI job that keeps progressing while a test script attacks its ports
 * (tests/security/rogue_peer.sh): every rank waits, polling MPI, until the file named by
 * $SM_GO_FILE exists, then all ranks exchange data in a ring and rank 0 prints " No Errors". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *go = getenv("SM_GO_FILE");
    /* connect every pair first, so the attack meets established connections too */
    int token = rank, got = -1;
    MPI_Sendrecv(&token, 1, MPI_INT, (rank + 1) % size, 1, &got, 1, MPI_INT,
                 (rank + size - 1) % size, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (int i = 0; go && access(go, F_OK) != 0 && i < 60000; i++) {
        int flag;
        MPI_Iprobe(MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    int errors = 0;
    for (int round = 0; round < 100; round++) {
        int v[256], w[256];
        for (int i = 0; i < 256; i++)
            v[i] = rank * 1000 + round + i;
        MPI_Sendrecv(v, 256, MPI_INT, (rank + 1) % size, 2, w, 256, MPI_INT,
                     (rank + size - 1) % size, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        int from = (rank + size - 1) % size;
        for (int i = 0; i < 256; i++)
            if (w[i] != from * 1000 + round + i)
                errors++;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (errors)
        printf("rank %d: %d wrong values\n", rank, errors);
    else if (rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return errors ? 1 : 0;
}
