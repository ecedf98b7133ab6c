/* put_reuse.c — a contiguous Put is written from the program's own buffer, so its local
 * completion must still hold: after MPI_Rput's request completes (and after MPI_Put returns
 * inside a fence epoch, until the fence) the target must get the values of the call, whatever
 * the program writes into its buffer afterwards.  The Puts are issued behind enough accumulates
 * to use up the target's receive credits, so some writes wait in the origin's queue when the
 * call returns; sizes from one int to 1 MiB. */
#include "../common/mpi_test.h"

#define NACC 200
#define MAXN (1 << 18) /* ints: 1 MiB */

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int *win_mem = xmalloc(MAXN * sizeof(int));
    long *acc_mem = xmalloc(sizeof(long));
    int *src = xmalloc(MAXN * sizeof(int));
    MPI_Win win, acc;
    MPI_Win_create(win_mem, MAXN * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_create(acc_mem, sizeof(long), sizeof(long), MPI_INFO_NULL, MPI_COMM_WORLD, &acc);
    int target = (rank_ + 1) % size_, from = (rank_ + size_ - 1) % size_;
    static const int sizes[] = { 1, 100, 4096, 65536, MAXN };
    for (int k = 0; k < (int)(sizeof sizes / sizeof sizes[0]); k++) {
        int n = sizes[k];
        for (int i = 0; i < n; i++)
            win_mem[i] = -1;
        *acc_mem = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        /* passive target: accumulates first (they take credits), then the Rput */
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, acc);
        MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win);
        long one = 1;
        for (int a = 0; a < NACC; a++)
            MPI_Accumulate(&one, 1, MPI_LONG, target, 0, 1, MPI_LONG, MPI_SUM, acc);
        for (int i = 0; i < n; i++)
            src[i] = rank_ * 1000003 + i * 7 + k;
        MPI_Request r;
        MPI_Rput(src, n, MPI_INT, target, 0, n, MPI_INT, win, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; i++) /* the buffer is the program's again */
            src[i] = -7;
        MPI_Win_unlock(target, win);
        MPI_Win_unlock(target, acc);
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            CHECK(win_mem[i] == from * 1000003 + i * 7 + k, "Rput of %d ints: element %d is %d",
                  n, i, win_mem[i]);
        CHECK(*acc_mem == NACC, "accumulates: %ld, want %d", *acc_mem, NACC);

        /* fence epoch: the buffer may change after the closing fence only; reuse it for a second
         * Put to the next element range after the first call returned is not allowed, so write
         * it between two fences instead */
        for (int i = 0; i < n; i++)
            win_mem[i] = -1;
        MPI_Win_fence(0, win);
        for (int i = 0; i < n; i++)
            src[i] = rank_ * 7919 + i + k;
        MPI_Put(src, n, MPI_INT, target, 0, n, MPI_INT, win);
        MPI_Win_fence(0, win);
        for (int i = 0; i < n; i++)
            src[i] = -9;
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            CHECK(win_mem[i] == from * 7919 + i + k, "fence Put of %d ints: element %d is %d", n,
                  i, win_mem[i]);
    }
    MPI_Win_free(&acc);
    MPI_Win_free(&win);
    free(src);
    free(acc_mem);
    free(win_mem);
    return finish();
}
