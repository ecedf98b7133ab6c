/* no_any_tag — a communicator created with mpi_assert_no_any_tag=true (Comm_dup_with_info) skips
 * the ordering rule's per-sender bookkeeping, and MPI's ordering still holds for everything such a
 * communicator can receive.  Run over SCTP with packets dropped (tests/mpi/no_any_tag.sh): rank 0
 * sends pairs (large message on tag 1, small on tag 2) that rank 1 receives small first, then a
 * flood on 8 tags that rank 1 receives tag by tag in send order; each message must be the next one
 * of its tag.  Rank 1's statistics then show no early arrivals were tracked on it (the script runs
 * the same program on a plain communicator too, where they are).  Argument "plain": use
 * MPI_Comm_dup instead.  Also checks an MPI_ANY_TAG receive is refused there.  Rank 0 prints
 * " No Errors". */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PAIRS 1500
#define BIG 32768
#define FLOOD 20000

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int plain = argc > 1 && strcmp(argv[1], "plain") == 0;
    MPI_Comm c;
    if (plain) {
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
    } else {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
        MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
        MPI_Info_free(&info);
        /* the assertion is enforced: a wildcard-tag receive fails */
        MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
        int x, cls = MPI_SUCCESS;
        MPI_Request rq;
        int rc = MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &rq);
        if (rc != MPI_SUCCESS)
            MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_TAG) {
            printf("rank %d: ANY_TAG receive on a no_any_tag communicator returned class %d\n", rank, cls);
            errors++;
            if (rc == MPI_SUCCESS) {
                MPI_Cancel(&rq);
                MPI_Wait(&rq, MPI_STATUS_IGNORE);
            }
        }
    }
    static unsigned char big[BIG];
    for (int i = 0; i < PAIRS && rank < 2; i++) {
        int small;
        if (rank == 0) {
            memset(big, i & 0xff, BIG);
            small = i;
            MPI_Request r[2];
            MPI_Isend(big, BIG, MPI_BYTE, 1, 1, c, &r[0]);
            MPI_Isend(&small, 1, MPI_INT, 1, 2, c, &r[1]);
            MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
        } else {
            MPI_Recv(&small, 1, MPI_INT, 0, 2, c, MPI_STATUS_IGNORE);
            MPI_Recv(big, BIG, MPI_BYTE, 0, 1, c, MPI_STATUS_IGNORE);
            if (small != i || big[0] != (unsigned char)i || big[BIG - 1] != (unsigned char)i)
                errors++;
        }
    }
    /* a flood on 8 tags: message i goes on tag i % 8 and must be the next one of its tag */
    const int window = 1000;
    if (rank == 0) {
        int *v = malloc(sizeof(int) * window);
        MPI_Request *rq = malloc(sizeof *rq * window);
        for (int base = 0; base < FLOOD; base += window) {
            for (int j = 0; j < window; j++) {
                v[j] = base + j;
                MPI_Isend(&v[j], 1, MPI_INT, 1, (base + j) % 8, c, &rq[j]);
            }
            MPI_Waitall(window, rq, MPI_STATUSES_IGNORE);
        }
        free(v);
        free(rq);
    } else if (rank == 1) {
        /* receive tag 7 first for each group of 8, then 0..6: later tags overtake earlier ones
         * at the receiver, yet each tag's messages must come in send order */
        for (int base = 0; base < FLOOD; base += 8) {
            for (int k = 0; k < 8; k++) {
                int tag = (k + 7) % 8, x;
                MPI_Status st;
                MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, tag, c, &st);
                if (x != base + tag || st.MPI_TAG != tag || st.MPI_SOURCE != 0) {
                    if (errors++ < 5)
                        printf("rank 1: expected %d on tag %d, got %d (tag %d)\n", base + tag, tag, x,
                               st.MPI_TAG);
                }
            }
        }
    }
    MPI_Comm_free(&c);
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
