/* send_modes — every send mode delivers the right data, for a small and a large
 * (> eager limit) message: Send, Ssend, Rsend (receive pre-posted, ordered by a barrier or by a
 * "ready" handshake), Bsend (attached buffer; must complete before the receiver posts), and
 * Isend, Issend, Irsend, Ibsend, and persistent Send_init / Ssend_init / Recv_init driven by
 * Start and Startall over several rounds.  Ranks are paired (0,1), (2,3), ...: the even rank
 * sends, the odd one receives; an odd last rank only joins the barriers. */
#include "sm_test.h"

enum { TAG_READY = 1, TAG_DONE = 2, TAG_DATA = 10 };

static int partner, active, sender;

static void fill_ints(int *b, int n, int seed)
{
    for (int i = 0; i < n; i++) b[i] = seed * 1000003 + i;
}

static void check_ints(const int *b, int n, int seed, const MPI_Status *st, int tag,
                       const char *what)
{
    int cnt = -1;
    MPI_Get_count(st, MPI_INT, &cnt);
    SM_CHECK(st->MPI_SOURCE == partner && st->MPI_TAG == tag && cnt == n,
             "%s (%d ints): status source %d tag %d count %d, want %d %d %d", what, n,
             st->MPI_SOURCE, st->MPI_TAG, cnt, partner, tag, n);
    for (int i = 0; i < n; i++)
        SM_CHECK(b[i] == seed * 1000003 + i, "%s (%d ints): element %d is %d, want %d", what, n,
                 i, b[i], seed * 1000003 + i);
}

/* Receives one message of n ints with the given tag and checks it. */
static void recv_check(int *b, int n, int seed, int tag, const char *what)
{
    MPI_Status st;
    memset(b, 0, (size_t)n * sizeof(int));
    MPI_Recv(b, n, MPI_INT, partner, tag, MPI_COMM_WORLD, &st);
    check_ints(b, n, seed, &st, tag, what);
}

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    const int eager = sm_eager_limit();
    partner = (sm_rank % 2 == 0) ? sm_rank + 1 : sm_rank - 1;
    active = partner < sm_size;
    sender = sm_rank % 2 == 0;
    const int sizes[2] = {25, 2 * (eager / (int)sizeof(int)) + 3};
    const int maxn = sizes[1];
    enum { NB = 4 };
    int *buf[NB];
    for (int i = 0; i < NB; i++) buf[i] = sm_malloc((size_t)maxn * sizeof(int));

    /* Buffer for Bsend/Ibsend: room for NB messages of the largest size. */
    const int bsize = NB * (maxn * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *bbuf = sm_malloc((size_t)bsize);
    MPI_Buffer_attach(bbuf, bsize);

    for (int si = 0; si < 2; si++) {
        const int n = sizes[si];
        int seed = 1 + si * 100;
        MPI_Request rq[NB];
        MPI_Status st[NB];

        /* 1. MPI_Send */
        if (active && sender) {
            fill_ints(buf[0], n, seed);
            MPI_Send(buf[0], n, MPI_INT, partner, TAG_DATA, MPI_COMM_WORLD);
        } else if (active) {
            recv_check(buf[0], n, seed, TAG_DATA, "Send");
        }
        seed++;

        /* 2. MPI_Ssend */
        if (active && sender) {
            fill_ints(buf[0], n, seed);
            MPI_Ssend(buf[0], n, MPI_INT, partner, TAG_DATA + 1, MPI_COMM_WORLD);
        } else if (active) {
            recv_check(buf[0], n, seed, TAG_DATA + 1, "Ssend");
        }
        seed++;

        /* 3. MPI_Rsend, receive posted before a barrier that precedes the send */
        if (active && !sender) MPI_Irecv(buf[0], n, MPI_INT, partner, TAG_DATA + 2,
                                         MPI_COMM_WORLD, &rq[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        if (active && sender) {
            fill_ints(buf[0], n, seed);
            MPI_Rsend(buf[0], n, MPI_INT, partner, TAG_DATA + 2, MPI_COMM_WORLD);
        } else if (active) {
            MPI_Wait(&rq[0], &st[0]);
            check_ints(buf[0], n, seed, &st[0], TAG_DATA + 2, "Rsend after barrier");
        }
        seed++;

        /* 4. MPI_Rsend, receive posted before a "ready" message to the sender */
        if (active && sender) {
            fill_ints(buf[0], n, seed);
            MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Rsend(buf[0], n, MPI_INT, partner, TAG_DATA + 3, MPI_COMM_WORLD);
        } else if (active) {
            MPI_Irecv(buf[0], n, MPI_INT, partner, TAG_DATA + 3, MPI_COMM_WORLD, &rq[0]);
            MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_READY, MPI_COMM_WORLD);
            MPI_Wait(&rq[0], &st[0]);
            check_ints(buf[0], n, seed, &st[0], TAG_DATA + 3, "Rsend after handshake");
        }
        seed++;

        /* 5. MPI_Bsend: all NB sends complete before the receiver posts anything (the
         *    receiver waits for the DONE message first). */
        if (active && sender) {
            for (int k = 0; k < NB; k++) {
                fill_ints(buf[k], n, seed + k);
                MPI_Bsend(buf[k], n, MPI_INT, partner, TAG_DATA + 4, MPI_COMM_WORLD);
                memset(buf[k], 0xee, (size_t)n * sizeof(int)); /* the buffer is free again */
            }
            MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD);
        } else if (active) {
            MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int k = 0; k < NB; k++) recv_check(buf[k], n, seed + k, TAG_DATA + 4, "Bsend");
        }
        seed += NB;
        /* Detach waits for buffered messages to be delivered; re-attach for the next use. */
        {
            void *addr = NULL;
            int sz = 0;
            MPI_Buffer_detach(&addr, &sz);
            SM_CHECK(addr == bbuf && sz == bsize, "Buffer_detach gave %p/%d, want %p/%d", addr,
                     sz, (void *)bbuf, bsize);
            MPI_Buffer_attach(bbuf, bsize);
        }

        /* 6. Ibsend, also complete before the receiver posts */
        if (active && sender) {
            for (int k = 0; k < NB; k++) {
                fill_ints(buf[k], n, seed + k);
                MPI_Ibsend(buf[k], n, MPI_INT, partner, TAG_DATA + 5, MPI_COMM_WORLD, &rq[k]);
            }
            MPI_Waitall(NB, rq, MPI_STATUSES_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD);
        } else if (active) {
            MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int k = 0; k < NB; k++) recv_check(buf[k], n, seed + k, TAG_DATA + 5, "Ibsend");
        }
        seed += NB;

        /* 7. Isend, Issend, Irsend (receive pre-posted, handshake) and Ibsend at once, each on
         *    its own tag; the receiver posts in reverse order. */
        if (active && sender) {
            for (int k = 0; k < NB; k++) fill_ints(buf[k], n, seed + k);
            MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Isend(buf[0], n, MPI_INT, partner, TAG_DATA + 6, MPI_COMM_WORLD, &rq[0]);
            MPI_Issend(buf[1], n, MPI_INT, partner, TAG_DATA + 7, MPI_COMM_WORLD, &rq[1]);
            MPI_Irsend(buf[2], n, MPI_INT, partner, TAG_DATA + 8, MPI_COMM_WORLD, &rq[2]);
            MPI_Ibsend(buf[3], n, MPI_INT, partner, TAG_DATA + 9, MPI_COMM_WORLD, &rq[3]);
            MPI_Waitall(NB, rq, st);
            for (int k = 0; k < NB; k++) SM_CHECK(rq[k] == MPI_REQUEST_NULL, "request not freed");
        } else if (active) {
            for (int k = NB - 1; k >= 0; k--) {
                memset(buf[k], 0, (size_t)n * sizeof(int));
                MPI_Irecv(buf[k], n, MPI_INT, partner, TAG_DATA + 6 + k, MPI_COMM_WORLD, &rq[k]);
            }
            MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_READY, MPI_COMM_WORLD);
            MPI_Waitall(NB, rq, st);
            const char *names[NB] = {"Isend", "Issend", "Irsend", "Ibsend"};
            for (int k = 0; k < NB; k++)
                check_ints(buf[k], n, seed + k, &st[k], TAG_DATA + 6 + k, names[k]);
        }
        seed += NB;

        /* 8. Persistent requests: Send_init + Ssend_init against Recv_init, 3 rounds with
         *    Startall, then 2 rounds with Start on each; the requests stay valid until freed. */
        if (active) {
            MPI_Request p[2];
            if (sender) {
                MPI_Send_init(buf[0], n, MPI_INT, partner, TAG_DATA + 20, MPI_COMM_WORLD, &p[0]);
                MPI_Ssend_init(buf[1], n, MPI_INT, partner, TAG_DATA + 21, MPI_COMM_WORLD, &p[1]);
            } else {
                MPI_Recv_init(buf[0], n, MPI_INT, partner, TAG_DATA + 20, MPI_COMM_WORLD, &p[0]);
                MPI_Recv_init(buf[1], n, MPI_INT, partner, TAG_DATA + 21, MPI_COMM_WORLD, &p[1]);
            }
            for (int round = 0; round < 5; round++) {
                const int s0 = seed + 2 * round, s1 = seed + 2 * round + 1;
                if (sender) {
                    fill_ints(buf[0], n, s0);
                    fill_ints(buf[1], n, s1);
                } else {
                    memset(buf[0], 0, (size_t)n * sizeof(int));
                    memset(buf[1], 0, (size_t)n * sizeof(int));
                }
                if (round < 3) {
                    MPI_Startall(2, p);
                    MPI_Waitall(2, p, st);
                } else {
                    MPI_Start(&p[1]);
                    MPI_Start(&p[0]);
                    MPI_Wait(&p[0], &st[0]);
                    MPI_Wait(&p[1], &st[1]);
                }
                SM_CHECK(p[0] != MPI_REQUEST_NULL && p[1] != MPI_REQUEST_NULL,
                         "persistent request became MPI_REQUEST_NULL after completion");
                if (!sender) {
                    check_ints(buf[0], n, s0, &st[0], TAG_DATA + 20, "Send_init/Recv_init");
                    check_ints(buf[1], n, s1, &st[1], TAG_DATA + 21, "Ssend_init/Recv_init");
                }
            }
            MPI_Request_free(&p[0]);
            MPI_Request_free(&p[1]);
            SM_CHECK(p[0] == MPI_REQUEST_NULL && p[1] == MPI_REQUEST_NULL,
                     "Request_free did not set MPI_REQUEST_NULL");
            seed += 10;
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
    {
        void *addr = NULL;
        int sz = 0;
        MPI_Buffer_detach(&addr, &sz);
        SM_CHECK(addr == bbuf && sz == bsize, "final Buffer_detach gave %p/%d", addr, sz);
    }
    free(bbuf);
    for (int i = 0; i < NB; i++) free(buf[i]);
    return sm_finish();
}
