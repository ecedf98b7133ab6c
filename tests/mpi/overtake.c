/* overtake — out-of-order delivery across SCTP streams, for real (run with packet loss:
 * SCTPMPI_SCTP_TEST_DROP=2).  Rank 0 sends pairs (large message, tag 1; small message, tag 2)
 * while rank 1 waits for the small one first: when a packet of the large one is lost, the small
 * one overtakes it on its own stream and its tag-specific receive completes at once (the engine
 * counts these "early-matched"; tests/mpi/overtake.sh checks the count is > 0).  Then 100,000
 * messages on 8 tags are received with MPI_ANY_TAG: each must come in send order, none lost or
 * duplicated.  Rank 0 prints " No Errors". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PAIRS
#define PAIRS 2000
#endif
#define BIG 32768
#ifndef FLOOD
#define FLOOD 100000
#endif

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static unsigned char big[BIG];
    int small;
    for (int i = 0; i < PAIRS && rank < 2; i++) {
        if (rank == 0) {
            memset(big, i & 0xff, BIG);
            small = i;
            MPI_Request r[2];
            MPI_Isend(big, BIG, MPI_BYTE, 1, 1, MPI_COMM_WORLD, &r[0]);
            MPI_Isend(&small, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else {
            MPI_Recv(&small, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Recv(big, BIG, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (small != i || big[0] != (unsigned char)i || big[BIG - 1] != (unsigned char)i)
                errors++;
        }
    }
    /* many small messages on 8 tags, received with ANY_TAG: must be in send order */
    const int window = 1000;
    if (rank == 0) {
        int *v = malloc(sizeof(int) * window);
        MPI_Request *rq = malloc(sizeof *rq * window);
        for (int base = 0; base < FLOOD; base += window) {
            for (int j = 0; j < window; j++) {
                v[j] = base + j;
                MPI_Isend(&v[j], 1, MPI_INT, 1, (base + j) % 8, MPI_COMM_WORLD, &rq[j]);
            }
            MPI_Waitall(window, rq, MPI_STATUSES_IGNORE);
        }
        free(v);
        free(rq);
    } else if (rank == 1) {
        for (int i = 0; i < FLOOD; i++) {
            int x;
            MPI_Status st;
            MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (x != i || st.MPI_TAG != i % 8) {
                if (errors++ < 5)
                    printf("rank 1: message %d arrived as %d (tag %d)\n", i, x, st.MPI_TAG);
            }
        }
    }
    int total;
    MPI_Reduce(&errors, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (total)
            printf("%d errors\n", total);
        else
            printf(" No Errors\n");
    }
    MPI_Finalize();
    return total ? 1 : 0;
}
