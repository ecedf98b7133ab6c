/* rma_passive.c — passive-target progress: rank 0 computes for 2 s without any MPI call while
 * every other rank, one after the other, does lock(exclusive) / Put / Flush / Get / Accumulate /
 * Fetch_and_op / unlock on rank 0's window (allocate and create flavours, then lock_all on a
 * dynamic window).  Each origin's whole epoch must finish well before rank 0 is back in MPI
 * (asserted: under 1 s, the compute phase being 2 s), and rank 0 then finds every update. */
#include "rma_test.h"

#define WORDS 64
#define COMPUTE_S 2.0
#define LIMIT_S 1.0

static volatile double sink;

static void compute(double secs) /* no MPI call in here */
{
    double t0 = rt_now(), x = 1.0;
    while (rt_now() - t0 < secs)
        for (int i = 0; i < 10000; i++) x = x * 1.0000001 + 1e-9;
    sink = x;
}

static void run(int flavour)
{
    static const char *name[] = {"allocate", "create", "dynamic"};
    long long *mem = NULL, *heap = NULL;
    MPI_Aint base = 0;
    MPI_Win win;
    MPI_Aint bytes = WORDS * (MPI_Aint)sizeof(long long);
    if (flavour == 0) {
        MPI_OK(MPI_Win_allocate(bytes, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
    } else if (flavour == 1) {
        heap = mem = rt_malloc((size_t)bytes);
        MPI_OK(MPI_Win_create(mem, bytes, sizeof(long long), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    } else {
        heap = mem = rt_malloc((size_t)bytes);
        MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
        MPI_OK(MPI_Win_attach(win, mem, bytes));
        MPI_Get_address(mem, &base);
        MPI_Bcast(&base, 1, MPI_AINT, 0, MPI_COMM_WORLD);
    }
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Aint du = flavour == 2 ? (MPI_Aint)sizeof(long long) : 1; /* dynamic: byte displacements */
    if (rank_ == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        for (int i = 0; i < WORDS; i++) mem[i] = i;
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double took = 0;
    if (rank_ == 0) {
        compute(COMPUTE_S);
    } else {
        /* origins take turns (a token passed among ranks 1..n-1), so each epoch's time is its own */
        int tok = 0;
        if (rank_ > 1) MPI_Recv(&tok, 1, MPI_INT, rank_ - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        long long v[4] = {1000 * rank_, 1000 * rank_ + 1, 1000 * rank_ + 2, 1000 * rank_ + 3};
        long long g[4] = {-1, -1, -1, -1}, one = 1, old = -1;
        int slot = 4 * rank_;
        double t0 = rt_now();
        if (flavour == 2) MPI_OK(MPI_Win_lock_all(0, win));
        else MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win));
        MPI_OK(MPI_Put(v, 4, MPI_LONG_LONG, 0, base + du * slot, 4, MPI_LONG_LONG, win));
        MPI_OK(MPI_Win_flush(0, win));
        MPI_OK(MPI_Get(g, 4, MPI_LONG_LONG, 0, base + du * slot, 4, MPI_LONG_LONG, win));
        MPI_OK(MPI_Accumulate(&one, 1, MPI_LONG_LONG, 0, base + du * 0, 1, MPI_LONG_LONG, MPI_SUM, win));
        MPI_OK(MPI_Fetch_and_op(&one, &old, MPI_LONG_LONG, 0, base + du * 1, MPI_SUM, win));
        if (flavour == 2) MPI_OK(MPI_Win_unlock_all(win));
        else MPI_OK(MPI_Win_unlock(0, win));
        took = rt_now() - t0;
        if (rank_ + 1 < size_) MPI_Send(&tok, 1, MPI_INT, rank_ + 1, 0, MPI_COMM_WORLD);
        for (int j = 0; j < 4; j++) CHECK(g[j] == v[j], "%s: Get after Put+Flush: %lld", name[flavour], g[j]);
        CHECK(old >= 1 && old < size_, "%s: Fetch_and_op fetched %lld", name[flavour], old);
        printf("rank %d (%s): lock/put/flush/get/acc/fop/unlock while the target computes: %.3f s\n",
               rank_, name[flavour], took);
        fflush(stdout);
        CHECK(took < LIMIT_S, "%s: the passive-target epoch took %.3f s while the target was "
              "computing without MPI calls (limit %.1f s): no asynchronous progress",
              name[flavour], took, LIMIT_S);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win));
        CHECK(mem[0] == size_ - 1, "%s: Accumulate count %lld, expected %d", name[flavour], mem[0], size_ - 1);
        CHECK(mem[1] == 1 + size_ - 1, "%s: Fetch_and_op count %lld", name[flavour], mem[1]);
        for (int r = 1; r < size_; r++)
            for (int j = 0; j < 4; j++)
                CHECK(mem[4 * r + j] == 1000 * r + j, "%s: word %d is %lld", name[flavour], 4 * r + j,
                      mem[4 * r + j]);
        MPI_OK(MPI_Win_unlock(0, win));
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (flavour == 2) MPI_OK(MPI_Win_detach(win, mem));
    MPI_OK(MPI_Win_free(&win));
    free(heap);
}

int main(int argc, char **argv)
{
    rt_start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(size_ >= 2 && size_ <= WORDS / 4, "run with 2..16 ranks");
    for (int f = 0; f < 3; f++) run(f);
    return rt_finish();
}
