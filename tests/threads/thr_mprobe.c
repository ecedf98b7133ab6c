/* thr_mprobe.c — matched probes from several threads: rank 0's threads take the other ranks'
 * messages with MPI_Mprobe/MPI_Mrecv and MPI_Improbe/MPI_Imrecv (ANY_SOURCE, ANY_TAG, sizes
 * learnt from the probe); every message must be received exactly once, whole. */
#include <string.h>

#include "thr_common.h"

#define NTHR 4
#define PER_SENDER 80
static atomic_int claimed;
static int total;
static atomic_int *seen; /* [source * PER_SENDER + seq] */

static int msg_len(int src, int seq)
{
    return 1 + (src * 31 + seq * 17) % 3000; /* ints: up to 12 KB */
}

static void *receiver(void *arg)
{
    int t = (int)(long)arg;
    while (atomic_fetch_add(&claimed, 1) < total) {
        MPI_Message msg;
        MPI_Status st;
        if (t % 2 == 0) {
            THR_MPI(MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st));
        } else {
            int flag = 0;
            while (!flag)
                THR_MPI(
                    MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st));
        }
        int n = -1;
        MPI_Get_count(&st, MPI_INT, &n);
        int *buf = malloc(sizeof(int) * (size_t)(n > 0 ? n : 1));
        MPI_Status rst;
        if (t % 4 < 2) {
            THR_MPI(MPI_Mrecv(buf, n, MPI_INT, &msg, &rst));
        } else {
            MPI_Request rq;
            THR_MPI(MPI_Imrecv(buf, n, MPI_INT, &msg, &rq));
            THR_MPI(MPI_Wait(&rq, &rst));
        }
        int src = st.MPI_SOURCE, seq = st.MPI_TAG, rn = -1;
        MPI_Get_count(&rst, MPI_INT, &rn);
        THR_CHECK(rst.MPI_SOURCE == src && rst.MPI_TAG == seq && rn == n,
                  "probe said %d/%d/%d, receive %d/%d/%d", src, seq, n, rst.MPI_SOURCE,
                  rst.MPI_TAG, rn);
        if (src > 0 && src < thr_size && seq >= 0 && seq < PER_SENDER) {
            THR_CHECK(n == msg_len(src, seq), "message %d/%d has %d ints", src, seq, n);
            int bad = 0;
            for (int i = 0; i < n && !bad; i++)
                bad = buf[i] != src * 100000 + seq * 10 + i % 10;
            THR_CHECK(!bad, "message %d/%d corrupt", src, seq);
            THR_CHECK(atomic_fetch_add(&seen[src * PER_SENDER + seq], 1) == 0,
                      "message %d/%d received twice", src, seq);
        } else {
            THR_CHECK(0, "message from %d tag %d", src, seq);
        }
        free(buf);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    thr_init(&argc, &argv);
    total = PER_SENDER * (thr_size - 1);
    if (thr_rank == 0) {
        seen = calloc((size_t)(thr_size * PER_SENDER), sizeof *seen);
        thr_run(NTHR, receiver);
        for (int s = 1; s < thr_size; s++)
            for (int q = 0; q < PER_SENDER; q++)
                THR_CHECK(atomic_load(&seen[s * PER_SENDER + q]) == 1,
                          "message %d/%d received %d times", s, q,
                          atomic_load(&seen[s * PER_SENDER + q]));
        free(seen);
    } else {
        for (int q = 0; q < PER_SENDER; q++) {
            int n = msg_len(thr_rank, q);
            int *buf = malloc(sizeof(int) * (size_t)n);
            for (int i = 0; i < n; i++)
                buf[i] = thr_rank * 100000 + q * 10 + i % 10;
            THR_MPI(MPI_Send(buf, n, MPI_INT, 0, q, MPI_COMM_WORLD));
            free(buf);
        }
    }
    return thr_finish();
}
