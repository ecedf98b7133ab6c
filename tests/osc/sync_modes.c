/* sync_modes.c — Put and Get under each synchronisation mode: fence, post/start/complete/wait,
 * lock/unlock (shared and exclusive, MPI_MODE_NOCHECK), lock_all/flush/unlock_all, Rget,
 * Win_test, the _c forms of Put/Get/Win_allocate, over
 * Win_create and Win_allocate windows, contiguous and strided (vector) datatypes on both sides,
 * transfers larger than one receive buffer, and two windows used at once. */
#include "../common/mpi_test.h"

#define N 4096

static void fill(int *b, int n, int v)
{
    for (int i = 0; i < n; i++)
        b[i] = v;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int *mem = malloc(N * sizeof(int)), *loc = malloc(N * sizeof(int));
    int *amem;
    MPI_Win w1, w2;
    fill(mem, N, -1);
    MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &w1);
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &amem, &w2);
    fill(amem, N, -2);
    int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;

    /* fence: a whole-window Put to the right neighbour (several receive buffers' worth) */
    for (int i = 0; i < N; i++)
        loc[i] = rank_ * 100000 + i;
    MPI_Win_fence(MPI_MODE_NOPRECEDE, w1);
    MPI_Put(loc, N, MPI_INT, right, 0, N, MPI_INT, w1);
    MPI_Win_fence(0, w1);
    for (int i = 0; i < N; i++)
        CHECK(mem[i] == left * 100000 + i, "fence put [%d] = %d", i, mem[i]);
    /* fence: strided Get (every 3rd int of the left neighbour into a contiguous buffer) */
    MPI_Datatype vec;
    MPI_Type_vector(N / 3, 1, 3, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    fill(loc, N, 0);
    MPI_Get(loc, N / 3, MPI_INT, left, 0, 1, vec, w1);
    MPI_Win_fence(MPI_MODE_NOSUCCEED, w1);
    int ll = (left + size_ - 1) % size_;
    for (int i = 0; i < N / 3; i++)
        CHECK(loc[i] == ll * 100000 + 3 * i, "strided get [%d] = %d", i, loc[i]);

    /* post/start/complete/wait on the allocated window: everybody writes one int to the right */
    MPI_Group world, g;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    int nb[2] = {left, right};
    MPI_Group_incl(world, size_ == 1 ? 1 : (left == right ? 1 : 2), nb, &g);
    MPI_Win_post(g, 0, w2);
    MPI_Win_start(g, 0, w2);
    int v = 7000 + rank_;
    MPI_Put(&v, 1, MPI_INT, right, 1, 1, MPI_INT, w2);
    MPI_Win_complete(w2);
    MPI_Win_wait(w2);
    CHECK(amem[1] == 7000 + left, "pscw put %d", amem[1]);
    MPI_Group_free(&g);
    MPI_Group_free(&world);

    /* exclusive locks: every rank adds to rank 0's slot in turn with Get + Put */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w2);
        amem[2] = 0;
        MPI_Win_unlock(0, w2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < 5; k++) {
        int cur;
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, w2);
        MPI_Get(&cur, 1, MPI_INT, 0, 2, 1, MPI_INT, w2);
        MPI_Win_flush(0, w2);
        cur += 1;
        MPI_Put(&cur, 1, MPI_INT, 0, 2, 1, MPI_INT, w2);
        MPI_Win_unlock(0, w2);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, w2);
        CHECK(amem[2] == 5 * size_, "exclusive-lock counter %d, want %d", amem[2], 5 * size_);
        MPI_Win_unlock(0, w2);
    }

    /* lock_all + flush: Put into every rank, flush, Get it back */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, w2);
    for (int r = 0; r < size_; r++) {
        int x = rank_ * 10 + r;
        MPI_Put(&x, 1, MPI_INT, r, 10 + rank_, 1, MPI_INT, w2);
    }
    MPI_Win_flush_all(w2);
    for (int r = 0; r < size_; r++) {
        int y = -1;
        MPI_Get(&y, 1, MPI_INT, r, 10 + rank_, 1, MPI_INT, w2);
        MPI_Win_flush_local(r, w2);
        CHECK(y == rank_ * 10 + r, "lock_all get from %d: %d", r, y);
    }
    /* request-based Get and the large-count forms */
    int z = -1;
    MPI_Request rq;
    MPI_Rget(&z, 1, MPI_INT, right, 10 + rank_, 1, MPI_INT, w2, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(z == rank_ * 10 + right, "rget %d", z);
    /* several requests in flight at once, completed by one Waitall (some after a flush) */
    int zz[4] = {-1, -1, -1, -1}, one4 = 1;
    MPI_Request rqs[4];
    for (int k = 0; k < 3; k++)
        MPI_Rget(&zz[k], 1, MPI_INT, (rank_ + k) % size_, 10 + rank_, 1, MPI_INT, w2, &rqs[k]);
    MPI_Rget_accumulate(&one4, 1, MPI_INT, &zz[3], 1, MPI_INT, right, 30, 1, MPI_INT, MPI_NO_OP,
                        w2, &rqs[3]);
    MPI_Win_flush((rank_ + 1) % size_, w2);
    MPI_Waitall(4, rqs, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 3; k++)
        CHECK(zz[k] == rank_ * 10 + (rank_ + k) % size_, "rget %d: %d", k, zz[k]);
    CHECK(zz[3] == -2, "rget_accumulate(NO_OP) %d", zz[3]);
    int zc = rank_ + 300;
    MPI_Put_c(&zc, 1, MPI_INT, right, 20 + rank_, 1, MPI_INT, w2);
    MPI_Win_flush(right, w2);
    zc = -1;
    MPI_Get_c(&zc, 1, MPI_INT, right, 20 + rank_, 1, MPI_INT, w2);
    MPI_Win_flush(right, w2);
    CHECK(zc == rank_ + 300, "put_c/get_c %d", zc);
    MPI_Win_unlock_all(w2);

    /* Win_test polls until the exposure epoch ends */
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, size_ == 1 ? 1 : (left == right ? 1 : 2), nb, &g);
    MPI_Win_post(g, MPI_MODE_NOPUT, w1);
    MPI_Win_start(g, 0, w1);
    MPI_Win_complete(w1);
    int done = 0, polls = 0;
    while (!done && polls < 10000000) {
        MPI_Win_test(w1, &done);
        polls++;
    }
    CHECK(done, "Win_test never finished");
    MPI_Group_free(&g);
    MPI_Group_free(&world);
    int *cmem;
    MPI_Win w3;
    MPI_Win_allocate_c(64, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &cmem, &w3);
    int *du, flag;
    MPI_Win_get_attr(w3, MPI_WIN_DISP_UNIT, &du, &flag);
    CHECK(flag && *du == 4, "Win_allocate_c disp unit");
    MPI_Win_free(&w3);

    /* MPI_MODE_NOCHECK shared lock on both windows at once */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, w1);
    MPI_Win_lock(MPI_LOCK_SHARED, right, MPI_MODE_NOCHECK, w2);
    int a = 11 + rank_, b = 22 + rank_;
    MPI_Put(&a, 1, MPI_INT, right, N - 1, 1, MPI_INT, w1);
    MPI_Put(&b, 1, MPI_INT, right, N - 1, 1, MPI_INT, w2);
    MPI_Win_unlock(right, w2);
    MPI_Win_unlock(right, w1);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, w1);
    CHECK(mem[N - 1] == 11 + left && amem[N - 1] == 22 + left, "nocheck puts %d %d",
          mem[N - 1], amem[N - 1]);
    MPI_Win_unlock(rank_, w1);

    MPI_Type_free(&vec);
    MPI_Win_free(&w1);
    MPI_Win_free(&w2);
    free(mem);
    free(loc);
    return finish();
}
