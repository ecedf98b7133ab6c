/* stripe_bulk — large messages over striped rails (SCTPMPI_TCP_STRIPE=1) arrive intact and in
 * MPI order.  Two ranks (extra ranks only join barriers):
 *  1. one message per size (odd sizes, the eager/rendezvous edge, up to argv[1] bytes, default
 *     64 MiB) from rank 0 to rank 1 and back, every byte checked;
 *  2. several concurrent rendezvous messages both ways at once, received in reverse tag order;
 *  3. large and small messages with different tags interleaved, received with MPI_ANY_TAG:
 *     they must come in send order although their segments travel different rails.
 * Striping itself (that every rail carried bytes) is checked by the script around it. */
#include "sm_test.h"

static void one_way(int from, int to, size_t n, uint32_t seed, unsigned char *buf)
{
    if (sm_rank == from) {
        sm_fill(buf, n, seed);
        SM_MPI(MPI_Send(buf, (int)n, MPI_BYTE, to, 1, MPI_COMM_WORLD));
    } else if (sm_rank == to) {
        MPI_Status st;
        memset(buf, 0, n);
        SM_MPI(MPI_Recv(buf, (int)n, MPI_BYTE, from, 1, MPI_COMM_WORLD, &st));
        SM_CHECK_STATUS(st, from, 1, n, "one_way");
        SM_VERIFY(buf, n, seed, "%zu bytes from rank %d", n, from);
    }
}

enum { NCONC = 5, NORDER = 12 };

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    SM_CHECK(sm_size >= 2, "needs 2 ranks");
    size_t max = argc > 1 ? (size_t)strtoull(argv[1], NULL, 0) : (size_t)64 << 20;
    const size_t sizes[] = {1, 65535, 65537, 262143, 300001, (1 << 20) - 7, (1 << 20) + 3,
                            7654321, (size_t)33 << 20, (size_t)64 << 20};
    unsigned char *buf = sm_malloc(max);
    const int peer = sm_rank == 0 ? 1 : 0;

    /* 1. each size, both directions */
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (sizes[i] > max)
            continue;
        one_way(0, 1, sizes[i], (uint32_t)(100 + i), buf);
        one_way(1, 0, sizes[i], (uint32_t)(200 + i), buf);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. concurrent messages both ways, receives posted in reverse tag order */
    const size_t csize[NCONC] = {3 * 1024 * 1024 + 1, 1024 * 1024 - 7, 5 * 1024 * 1024 + 123,
                                 300001, 70000};
    if (sm_rank < 2) {
        unsigned char *sb[NCONC], *rb[NCONC];
        MPI_Request rq[2 * NCONC];
        for (int k = 0; k < NCONC; k++) {
            size_t n = csize[k] <= max ? csize[k] : max;
            sb[k] = sm_malloc(n);
            rb[k] = sm_malloc(n);
            memset(rb[k], 0, n);
            sm_fill(sb[k], n, (uint32_t)(1000 + 10 * sm_rank + k));
        }
        for (int k = NCONC - 1; k >= 0; k--) {
            size_t n = csize[k] <= max ? csize[k] : max;
            SM_MPI(MPI_Irecv(rb[k], (int)n, MPI_BYTE, peer, 10 + k, MPI_COMM_WORLD, &rq[k]));
        }
        for (int k = 0; k < NCONC; k++) {
            size_t n = csize[k] <= max ? csize[k] : max;
            SM_MPI(MPI_Isend(sb[k], (int)n, MPI_BYTE, peer, 10 + k, MPI_COMM_WORLD,
                             &rq[NCONC + k]));
        }
        MPI_Status st[2 * NCONC];
        SM_MPI(MPI_Waitall(2 * NCONC, rq, st));
        for (int k = 0; k < NCONC; k++) {
            size_t n = csize[k] <= max ? csize[k] : max;
            SM_CHECK_STATUS(st[k], peer, 10 + k, n, "concurrent");
            SM_VERIFY(rb[k], n, (uint32_t)(1000 + 10 * peer + k), "concurrent tag %d", 10 + k);
            free(sb[k]);
            free(rb[k]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. order across rails: big and small, different tags, ANY_TAG receives */
    size_t big = (size_t)2 << 20 <= max ? (size_t)2 << 20 : max;
    if (sm_rank == 0) {
        MPI_Request rq[NORDER];
        unsigned char *sb[NORDER];
        for (int k = 0; k < NORDER; k++) {
            size_t n = k % 2 ? 100 + (size_t)k : big - (size_t)k;
            sb[k] = sm_malloc(n);
            sm_fill(sb[k], n, (uint32_t)(5000 + k));
            SM_MPI(MPI_Isend(sb[k], (int)n, MPI_BYTE, 1, 20 + k, MPI_COMM_WORLD, &rq[k]));
        }
        SM_MPI(MPI_Waitall(NORDER, rq, MPI_STATUSES_IGNORE));
        for (int k = 0; k < NORDER; k++)
            free(sb[k]);
    } else if (sm_rank == 1) {
        for (int k = 0; k < NORDER; k++) {
            size_t n = k % 2 ? 100 + (size_t)k : big - (size_t)k;
            MPI_Status st;
            SM_MPI(MPI_Recv(buf, (int)big, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            SM_CHECK_STATUS(st, 0, 20 + k, n, "ANY_TAG order");
            SM_VERIFY(buf, n, (uint32_t)(5000 + k), "ANY_TAG message %d", k);
        }
    }
    free(buf);
    return sm_finish();
}
