/* nonovertaking — MPI's ordering rules for one sender and one receiver on one communicator:
 *  1. messages with varying tags and sizes straddling the eager limit (eager and rendezvous
 *     interleaved) are received in send order by MPI_ANY_TAG receives;
 *  2. receives posted before any message is sent (tag-specific and ANY_TAG mixed): each message,
 *     in send order, goes to the first posted pending receive that matches it;
 *  3. all messages sent before any receive is posted (unexpected queue): each receive, in post
 *     order, gets the earliest sent message that matches it.
 * The expected matching is computed by the same deterministic simulation on both sides.  Ranks
 * are paired (0,1), (2,3), ...; the even rank sends; an odd last rank only joins barriers. */
#include "sm_test.h"

enum { N1 = 300, N2 = 64, N3 = 64, NTAGS = 4, TAG_READY = 90, TAG_DONE = 91 };

static uint32_t lcg_state;
static uint32_t lcg(void)
{
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state >> 8;
}

static int eager;
static int size_of(int i)
{
    const int choice[8] = {0, 8, 100, eager - 1, eager, eager + 1, 3 * eager, 16};
    return choice[(i * 5 + i / 8) % 8];
}
static int max_size(void) { return 3 * eager; }

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    eager = sm_eager_limit();
    const int partner = (sm_rank % 2 == 0) ? sm_rank + 1 : sm_rank - 1;
    const int active = partner < sm_size;
    const int sender = sm_rank % 2 == 0;
    const int maxn = max_size();
    const int nbuf = N1 > N2 ? N1 : N2;
    unsigned char **buf = sm_malloc(sizeof(unsigned char *) * (size_t)nbuf);
    for (int i = 0; i < nbuf; i++) buf[i] = sm_malloc((size_t)maxn);
    MPI_Request *rq = sm_malloc(sizeof(MPI_Request) * (size_t)nbuf);
    MPI_Status *st = sm_malloc(sizeof(MPI_Status) * (size_t)nbuf);

    /* ---- 1. ANY_TAG receives see send order ---- */
    if (active && sender) {
        for (int i = 0; i < N1; i++) {
            sm_fill(buf[i], (size_t)size_of(i), 1000u + (uint32_t)i);
            if (i < N1 / 2)
                MPI_Isend(buf[i], size_of(i), MPI_BYTE, partner, i % 7, MPI_COMM_WORLD, &rq[i]);
            else
                MPI_Send(buf[i], size_of(i), MPI_BYTE, partner, i % 7, MPI_COMM_WORLD);
        }
        MPI_Waitall(N1 / 2, rq, st);
    } else if (active) {
        for (int i = 0; i < N1; i++) {
            MPI_Status s;
            MPI_Recv(buf[0], maxn, MPI_BYTE, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &s);
            int cnt = -1;
            MPI_Get_count(&s, MPI_BYTE, &cnt);
            SM_CHECK(s.MPI_TAG == i % 7 && cnt == size_of(i) && s.MPI_SOURCE == partner,
                     "phase 1: receive %d got tag %d count %d source %d, want tag %d count %d "
                     "(message overtaken?)", i, s.MPI_TAG, cnt, s.MPI_SOURCE, i % 7, size_of(i));
            SM_VERIFY(buf[0], (size_t)cnt, 1000u + (uint32_t)i, "phase 1: message %d", i);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- 2. pre-posted receives, mixed specific and ANY_TAG ---- */
    {
        int spec[N2], mtag[N2], match_of_msg[N2], used[N2];
        lcg_state = 12345u + (uint32_t)(sm_rank / 2);
        for (int j = 0; j < N2; j++) spec[j] = (lcg() % 3 == 0) ? MPI_ANY_TAG : (int)(lcg() % NTAGS);
        memset(used, 0, sizeof used);
        for (int k = 0; k < N2; k++) {
            int t = (int)(lcg() % NTAGS), j;
            for (j = 0; j < N2; j++)
                if (!used[j] && (spec[j] == MPI_ANY_TAG || spec[j] == t)) break;
            if (j == N2) { /* no receive left for t: take the tag of the first pending receive */
                for (j = 0; used[j]; j++) {
                }
                t = spec[j];
            }
            used[j] = 1;
            mtag[k] = t;
            match_of_msg[k] = j;
        }
        if (active && sender) {
            MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_READY, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int k = 0; k < N2; k++) {
                sm_fill(buf[k], (size_t)size_of(k + 3), 2000u + (uint32_t)k);
                MPI_Isend(buf[k], size_of(k + 3), MPI_BYTE, partner, mtag[k], MPI_COMM_WORLD,
                          &rq[k]);
            }
            MPI_Waitall(N2, rq, st);
        } else if (active) {
            for (int j = 0; j < N2; j++)
                MPI_Irecv(buf[j], maxn, MPI_BYTE, partner, spec[j], MPI_COMM_WORLD, &rq[j]);
            MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_READY, MPI_COMM_WORLD);
            MPI_Waitall(N2, rq, st);
            for (int k = 0; k < N2; k++) {
                const int j = match_of_msg[k];
                int cnt = -1;
                MPI_Get_count(&st[j], MPI_BYTE, &cnt);
                SM_CHECK(st[j].MPI_TAG == mtag[k] && cnt == size_of(k + 3),
                         "phase 2: posted receive %d (tag spec %d) should get message %d (tag "
                         "%d, %d bytes) but got tag %d, %d bytes", j, spec[j], k, mtag[k],
                         size_of(k + 3), st[j].MPI_TAG, cnt);
                SM_VERIFY(buf[j], (size_t)cnt, 2000u + (uint32_t)k,
                          "phase 2: receive %d should hold message %d", j, k);
            }
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* ---- 3. all messages unexpected, receives posted afterwards ---- */
    {
        int mtag[N3], spec[N3], msg_of_recv[N3], taken[N3];
        lcg_state = 777u + (uint32_t)(sm_rank / 2);
        for (int k = 0; k < N3; k++) mtag[k] = (int)(lcg() % NTAGS);
        memset(taken, 0, sizeof taken);
        for (int j = 0; j < N3; j++) {
            int k;
            if (lcg() % 3 == 0) {
                spec[j] = MPI_ANY_TAG;
            } else { /* the tag of a random message still pending */
                int pick = (int)(lcg() % (uint32_t)(N3 - j));
                for (k = 0; taken[k] || pick-- > 0; k++) {
                }
                spec[j] = mtag[k];
            }
            for (k = 0; k < N3; k++)
                if (!taken[k] && (spec[j] == MPI_ANY_TAG || spec[j] == mtag[k])) break;
            taken[k] = 1;
            msg_of_recv[j] = k;
        }
        if (active && sender) {
            for (int k = 0; k < N3; k++) {
                sm_fill(buf[k], (size_t)size_of(k + 5), 3000u + (uint32_t)k);
                MPI_Isend(buf[k], size_of(k + 5), MPI_BYTE, partner, mtag[k], MPI_COMM_WORLD,
                          &rq[k]);
            }
            MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD);
            MPI_Waitall(N3, rq, st);
        } else if (active) {
            MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sm_nap_us(20000); /* let the eager ones arrive (not needed for correctness) */
            /* first half: blocking receives; second half: Irecv all, then Waitall */
            for (int j = 0; j < N3; j++) {
                if (j < N3 / 2)
                    MPI_Recv(buf[j], maxn, MPI_BYTE, partner, spec[j], MPI_COMM_WORLD, &st[j]);
                else
                    MPI_Irecv(buf[j], maxn, MPI_BYTE, partner, spec[j], MPI_COMM_WORLD,
                              &rq[j - N3 / 2]);
            }
            MPI_Waitall(N3 - N3 / 2, rq, st + N3 / 2);
            for (int j = 0; j < N3; j++) {
                const int k = msg_of_recv[j];
                int cnt = -1;
                MPI_Get_count(&st[j], MPI_BYTE, &cnt);
                SM_CHECK(st[j].MPI_TAG == mtag[k] && cnt == size_of(k + 5),
                         "phase 3: receive %d (tag spec %d) should get message %d (tag %d, %d "
                         "bytes) but got tag %d, %d bytes", j, spec[j], k, mtag[k],
                         size_of(k + 5), st[j].MPI_TAG, cnt);
                SM_VERIFY(buf[j], (size_t)cnt, 3000u + (uint32_t)k,
                          "phase 3: receive %d should hold message %d", j, k);
            }
        }
    }

    for (int i = 0; i < nbuf; i++) free(buf[i]);
    free(buf);
    free(rq);
    free(st);
    return sm_finish();
}
