/* thr_comm.c — concurrent communicator creation: every thread duplicates and splits its own
 * parent communicator and frees the results, all at once; the new communicators must work
 * (distinct context ids: a message on one is never received on another); and every thread
 * calls MPI_Comm_create_group on MPI_COMM_WORLD at once with its own tag. */
#include "thr_common.h"

#define NTHR 4
#define ITERS 25
static MPI_Comm parent[NTHR];
static MPI_Group world_group;

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    for (int it = 0; it < ITERS; it++) {
        MPI_Comm d, s;
        THR_MPI(MPI_Comm_dup(parent[t], &d));
        THR_MPI(MPI_Comm_split(parent[t], thr_rank % 2, -thr_rank, &s));
        int v = t * 1000 + it, got = -1;
        THR_MPI(MPI_Allreduce(&v, &got, 1, MPI_INT, MPI_MAX, d));
        THR_CHECK(got == v, "thread %d iter %d: allreduce on the dup gave %d", t, it, got);
        int ssize = -1, srank = -1, sum = -1;
        MPI_Comm_size(s, &ssize);
        MPI_Comm_rank(s, &srank);
        int want_size = (thr_size + 1 - thr_rank % 2) / 2;
        THR_CHECK(ssize == want_size, "thread %d: split size %d, want %d", t, ssize, want_size);
        THR_MPI(MPI_Allreduce(&t, &sum, 1, MPI_INT, MPI_SUM, s));
        THR_CHECK(sum == t * ssize, "thread %d iter %d: allreduce on the split gave %d", t, it,
                  sum);
        /* point-to-point on the dup with the same tag every thread uses */
        int right = (thr_rank + 1) % thr_size, left = (thr_rank + thr_size - 1) % thr_size;
        int out = t * 100 + it + thr_rank * 10000, in = -1;
        THR_MPI(MPI_Sendrecv(&out, 1, MPI_INT, right, 0, &in, 1, MPI_INT, left, 0, d,
                             MPI_STATUS_IGNORE));
        THR_CHECK(in == t * 100 + it + left * 10000, "thread %d iter %d: got %d", t, it, in);
        THR_MPI(MPI_Comm_free(&s));
        THR_MPI(MPI_Comm_free(&d));
        /* every thread creates from the same parent at once, told apart by its tag */
        MPI_Comm g;
        THR_MPI(MPI_Comm_create_group(MPI_COMM_WORLD, world_group, t, &g));
        int gs = -1;
        THR_MPI(MPI_Allreduce(&t, &gs, 1, MPI_INT, MPI_SUM, g));
        THR_CHECK(gs == t * thr_size, "thread %d iter %d: allreduce on create_group gave %d", t,
                  it, gs);
        THR_MPI(MPI_Comm_free(&g));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    thr_init(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int t = 0; t < NTHR; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &parent[t]);
    thr_run(NTHR, worker);
    for (int t = 0; t < NTHR; t++)
        MPI_Comm_free(&parent[t]);
    MPI_Group_free(&world_group);
    return thr_finish();
}
