/* rma_sync_more.c — synchronisation semantics beyond "the data arrived":
 *   exclusive locks exclude: every rank increments a counter on rank 0 NITER times by
 *     lock(exclusive) / Get / flush / Put / unlock (a read-modify-write that only an exclusive
 *     lock makes atomic); the final count must be size * NITER;
 *   accumulate ordering (the default "rar,raw,war,waw"): Accumulate(REPLACE) a, then b, then
 *     Get_accumulate(NO_OP) in one epoch without flushes must fetch b, and Fetch_and_op(SUM)
 *     after an Accumulate(SUM) sees it;
 *   fence assertions (MPI_MODE_NOPRECEDE, NOSTORE, NOPUT, NOSUCCEED) on a correct program;
 *   PSCW with neighbour-only groups, completed by polling MPI_Win_test;
 *   MPI_MODE_NOCHECK locks and lock_all. */
#include "rma_test.h"

#define NITER 20

int main(int argc, char **argv)
{
    rt_start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int *mem;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate(64 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
    for (int i = 0; i < 64; i++) mem[i] = 0;
    MPI_OK(MPI_Win_unlock(rank_, win));
    MPI_Barrier(MPI_COMM_WORLD);

    /* exclusive locks exclude */
    for (int i = 0; i < NITER; i++) {
        int v = -1;
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_OK(MPI_Get(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_flush(0, win));
        v++;
        MPI_OK(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win));
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(mem[0] == size_ * NITER, "exclusive-lock counter is %d, expected %d (lost updates: "
              "two exclusive epochs overlapped)", mem[0], size_ * NITER);
        MPI_OK(MPI_Win_unlock(0, win));
    }

    /* accumulate ordering, each rank on its own int of its right neighbour */
    int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
    int a = 1000 + rank_, b = 2000 + rank_, got = -1, one = 5, fetched = -1, add = 7;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MPI_OK(MPI_Accumulate(&a, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_REPLACE, win));
    MPI_OK(MPI_Accumulate(&b, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_REPLACE, win));
    MPI_OK(MPI_Get_accumulate(NULL, 0, MPI_INT, &got, 1, MPI_INT, right, 1, 1, MPI_INT, MPI_NO_OP, win));
    MPI_OK(MPI_Accumulate(&add, 1, MPI_INT, right, 2, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Fetch_and_op(&one, &fetched, MPI_INT, right, 2, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock(right, win));
    CHECK(got == b, "Get_accumulate(NO_OP) after two ordered REPLACEs fetched %d, expected %d", got, b);
    CHECK(fetched == 7, "Fetch_and_op after Accumulate(SUM 7) fetched %d, expected 7", fetched);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
    CHECK(mem[1] == 2000 + left && mem[2] == 12, "ordered accumulates from %d left %d, %d", left,
          mem[1], mem[2]);
    MPI_OK(MPI_Win_unlock(rank_, win));
    MPI_Barrier(MPI_COMM_WORLD);

    /* fence with assertions: epoch 1 puts; epoch 2 only gets (no local stores before either
     * fence: NOSTORE; no puts in the epoch the last fence would open: NOSUCCEED, NOPUT) */
    int v1 = 300 + rank_, g1 = -1;
    MPI_OK(MPI_Win_fence(MPI_MODE_NOPRECEDE, win));
    MPI_OK(MPI_Put(&v1, 1, MPI_INT, right, 3, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSTORE, win));
    MPI_OK(MPI_Get(&g1, 1, MPI_INT, right, 3, 1, MPI_INT, win));
    MPI_OK(MPI_Win_fence(MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOSUCCEED, win));
    CHECK(g1 == v1, "Get after fence returned %d, expected my Put %d", g1, v1);
    CHECK(mem[3] == 300 + left, "fence Put from %d: %d", left, mem[3]);

    /* PSCW with neighbour groups, Win_test polling */
    MPI_Group world, nb;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int ranks[2] = {left, right};
    MPI_Group_incl(world, left == right ? 1 : 2, ranks, &nb);
    int pv[2] = {400 + rank_, 500 + rank_};
    MPI_OK(MPI_Win_post(nb, 0, win));
    MPI_OK(MPI_Win_start(nb, 0, win));
    MPI_OK(MPI_Put(&pv[0], 1, MPI_INT, right, 4, 1, MPI_INT, win));
    MPI_OK(MPI_Put(&pv[1], 1, MPI_INT, left, 5, 1, MPI_INT, win));
    MPI_OK(MPI_Win_complete(win));
    int flag = 0;
    double t0 = rt_now();
    while (!flag) {
        MPI_OK(MPI_Win_test(win, &flag));
        CHECK(rt_now() - t0 < 60, "MPI_Win_test never reported the exposure epoch complete");
    }
    CHECK(mem[4] == 400 + left && mem[5] == 500 + right, "PSCW neighbours: %d %d", mem[4], mem[5]);
    MPI_Group_free(&nb);
    MPI_Group_free(&world);
    MPI_Barrier(MPI_COMM_WORLD);

    /* MPI_MODE_NOCHECK: no other rank locks concurrently during this phase (barriers around) */
    int nc = 600 + rank_;
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, win));
    MPI_OK(MPI_Put(&nc, 1, MPI_INT, right, 6, 1, MPI_INT, win));
    MPI_OK(MPI_Win_unlock(right, win));
    MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, left, 7, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_unlock_all(win));
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
    CHECK(mem[6] == 600 + left && mem[7] == 5, "NOCHECK epochs: %d %d",
          mem[6], mem[7]);
    MPI_OK(MPI_Win_unlock(rank_, win));
    MPI_OK(MPI_Win_free(&win));
    return rt_finish();
}
