/* thr_coll.c — concurrent collectives: every thread runs blocking and non-blocking
 * collectives on its own duplicate of MPI_COMM_WORLD at the same time as the others. */
#include "thr_common.h"

#define NTHR 4
#define ITERS 30
static MPI_Comm own[NTHR];

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    MPI_Comm c = own[t];
    for (int it = 0; it < ITERS; it++) {
        int v = thr_rank + t * 100 + it, sum = -1;
        THR_MPI(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c));
        int want = thr_size * (thr_size - 1) / 2 + thr_size * (t * 100 + it);
        THR_CHECK(sum == want, "thread %d iter %d: allreduce %d, want %d", t, it, sum, want);
        int root = (t + it) % thr_size, b = thr_rank == root ? 5000 + t * 10 + it : -1;
        THR_MPI(MPI_Bcast(&b, 1, MPI_INT, root, c));
        THR_CHECK(b == 5000 + t * 10 + it, "thread %d iter %d: bcast %d", t, it, b);
        int *all = malloc(sizeof(int) * (size_t)thr_size);
        int mine = thr_rank * 7 + t;
        MPI_Request rq;
        THR_MPI(MPI_Iallgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c, &rq));
        THR_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        for (int r = 0; r < thr_size; r++)
            THR_CHECK(all[r] == r * 7 + t, "thread %d iter %d: allgather[%d] = %d", t, it, r,
                      all[r]);
        free(all);
        THR_MPI(MPI_Barrier(c));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    thr_init(&argc, &argv);
    for (int t = 0; t < NTHR; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &own[t]);
    thr_run(NTHR, worker);
    for (int t = 0; t < NTHR; t++)
        MPI_Comm_free(&own[t]);
    return thr_finish();
}
