/* thr_p2p.c — N threads per rank exchange messages with the same thread of the neighbour
 * ranks, on their own tags of MPI_COMM_WORLD and on their own duplicated communicators, with
 * blocking and non-blocking calls and sizes across the eager/rendezvous boundary. */
#include <string.h>

#include "thr_common.h"

#define NTHR 4
#define ITERS 40
static MPI_Comm own[NTHR];

static void exchange(MPI_Comm comm, int tag, int t, int it)
{
    int right = (thr_rank + 1) % thr_size, left = (thr_rank + thr_size - 1) % thr_size;
    int n = (it % 4 == 3) ? 40000 : 1 + it * 7; /* ints: 160 KB crosses the eager limit */
    int *out = malloc(sizeof(int) * (size_t)n), *in = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        out[i] = thr_rank * 1000000 + t * 10000 + it * 100 + i % 100;
    memset(in, 0xff, sizeof(int) * (size_t)n);
    MPI_Status st;
    if (it % 2) {
        MPI_Request rq[2];
        THR_MPI(MPI_Irecv(in, n, MPI_INT, left, tag, comm, &rq[0]));
        THR_MPI(MPI_Isend(out, n, MPI_INT, right, tag, comm, &rq[1]));
        MPI_Status sts[2];
        THR_MPI(MPI_Waitall(2, rq, sts));
        st = sts[0];
    } else {
        THR_MPI(MPI_Sendrecv(out, n, MPI_INT, right, tag, in, n, MPI_INT, left, tag, comm, &st));
    }
    int cnt = -1;
    MPI_Get_count(&st, MPI_INT, &cnt);
    THR_CHECK(cnt == n && st.MPI_SOURCE == left && st.MPI_TAG == tag,
              "thread %d iter %d: count %d source %d tag %d", t, it, cnt, st.MPI_SOURCE,
              st.MPI_TAG);
    for (int i = 0; i < n; i++)
        if (in[i] != left * 1000000 + t * 10000 + it * 100 + i % 100) {
            THR_CHECK(0, "thread %d iter %d: element %d is %d", t, it, i, in[i]);
            break;
        }
    free(out);
    free(in);
}

static void *worker(void *arg)
{
    int t = (int)(long)arg;
    for (int it = 0; it < ITERS; it++) {
        exchange(MPI_COMM_WORLD, 100 + t, t, it);
        exchange(own[t], 7, t, it); /* the same tag on every communicator */
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
