/* overtake — out-of-order delivery across SCTP streams, for real (run with packet loss:
 * SCTPMPI_SCTP_TEST_DROP=2).  Rank 0 sends pairs (large message, tag 1; small message, tag 2)
 * while rank 1 waits for the small one first: when a packet of the large one is lost, the small
 * one overtakes it on its own stream and its tag-specific receive completes at once (the engine
 * counts these "early-matched"; tests/mpi/overtake.sh checks the count is > 0).  Then a flood of
 * small messages on 8 tags.  Rank 0 prints " No Errors".
 *
 * Modes (argv[1]):
 *   (none)  on MPI_COMM_WORLD; 100,000 flood messages received with MPI_ANY_TAG: each must come
 *           in send order, none lost or duplicated;
 *   plain   on a duplicate of MPI_COMM_WORLD, and
 *   assert  on one created with mpi_assert_no_any_tag=true (Comm_dup_with_info), which skips the
 *           ordering rule's bookkeeping: 20,000 flood messages received tag by tag (tag 7 first
 *           in each group of 8, so later tags overtake earlier ones at the receiver); each must be
 *           the next one of its tag.  `assert` also checks an ANY_TAG receive fails with
 *           MPI_ERR_TAG there.  tests/mpi/no_any_tag.sh compares the two modes' statistics. */
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
#define FLOOD_NAMED 20000

/* rank 0 sends (big on tag 1, small on tag 2) pairs; rank 1 takes the small one first */
static int pairs(MPI_Comm c, int rank, int n)
{
    static unsigned char big[BIG];
    int errors = 0, small;
    for (int i = 0; i < n && rank < 2; i++) {
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
            if (small != i || big[0] != (unsigned char)i || big[BIG - 1] != (unsigned char)i) {
                if (errors++ < 5)
                    printf("rank 1: pair %d: small %d, big starts %d ends %d\n", i, small, big[0],
                           big[BIG - 1]);
            }
        }
    }
    return errors;
}

/* rank 0: message i carries i on tag i % 8, in windows of 1000 outstanding sends */
static void flood_send(MPI_Comm c, int n)
{
    const int window = 1000;
    int *v = malloc(sizeof(int) * window);
    MPI_Request *rq = malloc(sizeof *rq * window);
    for (int base = 0; base < n; base += window) {
        for (int j = 0; j < window; j++) {
            v[j] = base + j;
            MPI_Isend(&v[j], 1, MPI_INT, 1, (base + j) % 8, c, &rq[j]);
        }
        MPI_Waitall(window, rq, MPI_STATUSES_IGNORE);
    }
    free(v);
    free(rq);
}

static int check(int x, int want, const MPI_Status *st, int tag, int *errors)
{
    if (x != want || st->MPI_TAG != tag || st->MPI_SOURCE != 0) {
        if ((*errors)++ < 5)
            printf("rank 1: expected %d on tag %d, got %d (tag %d)\n", want, tag, x, st->MPI_TAG);
        return 1;
    }
    return 0;
}

/* rank 1, world mode: every message with MPI_ANY_TAG, in send order */
static int flood_recv_any(MPI_Comm c, int n)
{
    int errors = 0;
    for (int i = 0; i < n; i++) {
        int x;
        MPI_Status st;
        MPI_Recv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, c, &st);
        check(x, i, &st, i % 8, &errors);
    }
    return errors;
}

/* rank 1, plain / assert modes: named tags, tag 7 first in each group of 8 */
static int flood_recv_named(MPI_Comm c, int n)
{
    int errors = 0;
    for (int base = 0; base < n; base += 8) {
        for (int k = 0; k < 8; k++) {
            int tag = (k + 7) % 8, x;
            MPI_Status st;
            MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, tag, c, &st);
            check(x, base + tag, &st, tag, &errors);
        }
    }
    return errors;
}

/* a communicator asserting mpi_assert_no_any_tag; an ANY_TAG receive on it must fail */
static MPI_Comm no_any_tag_comm(int rank, int *errors)
{
    MPI_Comm c;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int x, cls = MPI_SUCCESS;
    MPI_Request rq;
    int rc = MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &rq);
    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &cls);
    if (cls != MPI_ERR_TAG) {
        printf("rank %d: ANY_TAG receive on a no_any_tag communicator returned class %d\n", rank, cls);
        (*errors)++;
        if (rc == MPI_SUCCESS) {
            MPI_Cancel(&rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
    }
    return c;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, errors = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const char *mode = argc > 1 ? argv[1] : "";
    int world = !*mode;
    MPI_Comm c = MPI_COMM_WORLD;
    if (!strcmp(mode, "plain"))
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
    else if (!strcmp(mode, "assert"))
        c = no_any_tag_comm(rank, &errors);
    else if (!world) {
        if (rank == 0)
            printf("unknown mode %s (plain or assert)\n", mode);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    errors += pairs(c, rank, world ? PAIRS : 1500);
    int n = world ? FLOOD : FLOOD_NAMED;
    if (rank == 0)
        flood_send(c, n);
    else if (rank == 1)
        errors += world ? flood_recv_any(c, n) : flood_recv_named(c, n);
    if (!world)
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
