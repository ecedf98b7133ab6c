/* thr_wildcard.c — wildcard receives posted from several threads keep MPI's ordering: rank 0's
 * threads post MPI_ANY_SOURCE/MPI_ANY_TAG receives (the posting order recorded under a mutex),
 * the other ranks send numbered messages with varying tags (so over SCTP they travel on
 * different streams); from each sender, the receives posted earlier must get the earlier
 * messages. */
#include "thr_common.h"

#define NTHR 4
#define PER_SENDER 96
static pthread_mutex_t post_mu = PTHREAD_MUTEX_INITIALIZER;
static int next_post;
static int *got_src, *got_seq; /* indexed by posting order */
static int per_thread;

static void *receiver(void *arg)
{
    (void)arg;
    for (int k = 0; k < per_thread; k++) {
        int buf[2] = { -1, -1 }, me;
        MPI_Request rq;
        pthread_mutex_lock(&post_mu);
        me = next_post++;
        THR_MPI(MPI_Irecv(buf, 2, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
        pthread_mutex_unlock(&post_mu);
        MPI_Status st;
        THR_MPI(MPI_Wait(&rq, &st));
        THR_CHECK(buf[0] == st.MPI_SOURCE && st.MPI_TAG == buf[1] % 13,
                  "receive %d: payload (%d,%d) from %d tag %d", me, buf[0], buf[1], st.MPI_SOURCE,
                  st.MPI_TAG);
        got_src[me] = st.MPI_SOURCE;
        got_seq[me] = buf[1];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    thr_init(&argc, &argv);
    if (thr_size < 2) {
        THR_CHECK(0, "needs 2 ranks");
        return thr_finish();
    }
    int total = PER_SENDER * (thr_size - 1);
    if (thr_rank == 0) {
        per_thread = total / NTHR;
        got_src = calloc((size_t)total, sizeof(int));
        got_seq = calloc((size_t)total, sizeof(int));
        MPI_Barrier(MPI_COMM_WORLD);
        thr_run(NTHR, receiver);
        int *last = malloc(sizeof(int) * (size_t)thr_size), *n = calloc((size_t)thr_size, 4);
        for (int r = 0; r < thr_size; r++)
            last[r] = -1;
        for (int k = 0; k < total; k++) {
            int s = got_src[k];
            THR_CHECK(s > 0 && s < thr_size, "receive %d from %d", k, s);
            if (s <= 0 || s >= thr_size)
                continue;
            THR_CHECK(got_seq[k] > last[s], "receive %d (posted after one that got %d) got %d", k,
                      last[s], got_seq[k]);
            last[s] = got_seq[k];
            n[s]++;
        }
        for (int r = 1; r < thr_size; r++)
            THR_CHECK(n[r] == PER_SENDER, "%d messages from %d", n[r], r);
        free(last);
        free(n);
        free(got_src);
        free(got_seq);
    } else {
        MPI_Barrier(MPI_COMM_WORLD);
        for (int i = 0; i < PER_SENDER; i++) {
            int m[2] = { thr_rank, i };
            THR_MPI(MPI_Send(m, 2, MPI_INT, 0, i % 13, MPI_COMM_WORLD));
        }
    }
    return thr_finish();
}
