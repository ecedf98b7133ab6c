/* passive_progress.c — a passive-target epoch completes while the target computes and makes no
 * MPI call: rank 0 locks rank 1's window, accumulates into it, puts a flag and unlocks; rank 1
 * meanwhile only polls its own memory (no MPI call) until the flag and the sum are there, for
 * at most 30 s.  Without progress independent of the target's MPI calls the flag could never
 * arrive and the test fails. */
#include <time.h>

#include "../common/mpi_test.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int *mem;
    MPI_Win win;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    mem[0] = mem[1] = mem[2] = mem[3] = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    if (size_ >= 2) {
        if (rank_ == 0) {
            for (int k = 0; k < 3; k++) {
                int one = 1;
                MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 1, 0, win);
                MPI_Accumulate(&one, 1, MPI_INT, 1, 1, 1, MPI_INT, MPI_SUM, win);
                MPI_Win_unlock(1, win);
            }
            int flag = 1;
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            MPI_Put(&flag, 1, MPI_INT, 1, 0, 1, MPI_INT, win);
            MPI_Win_flush(1, win);
            int back = 0;
            MPI_Get(&back, 1, MPI_INT, 1, 1, 1, MPI_INT, win);
            MPI_Win_unlock(1, win);
            CHECK(back == 3, "sum read back %d", back);
        } else if (rank_ == 1) {
            volatile int *v = mem;
            double t0 = now();
            while (v[0] == 0 && now() - t0 < 30)
                ; /* computing: no MPI call */
            CHECK(v[0] == 1, "the put did not arrive while the target computed");
            CHECK(v[1] == 3, "accumulates applied while the target computed: %d", v[1]);
        }
    }
    MPI_Win_free(&win);
    return finish();
}
