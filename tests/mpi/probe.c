/* probe — MPI_Probe, MPI_Iprobe, MPI_Mprobe, MPI_Improbe, MPI_Mrecv and MPI_Imrecv:
 *  - Probe / Iprobe report source, tag and size, then a Recv gets that very message;
 *  - Probe(ANY_SOURCE, ANY_TAG) from several senders, then Recv(status.MPI_SOURCE,
 *    status.MPI_TAG) receives the probed message;
 *  - probing large (rendezvous, > eager limit) messages reports their full size;
 *  - a matched probe removes the message from matching: a later Recv gets the next one;
 *  - Iprobe / Improbe report nothing for a tag that is never sent;
 *  - Mprobe / Improbe on MPI_PROC_NULL give MPI_MESSAGE_NO_PROC.
 * Rank 0 is the prober; every other rank sends to it. */
#include "sm_test.h"

enum { TAG_A = 11, TAG_B = 12, TAG_BIG = 13, TAG_NEVER = 999, TAG_MULTI = 20, NMULTI = 4 };
static const long POLL_MAX = 2000000; /* bounded polling (~200 s with the naps) */

static size_t multi_size(int r, int i, int eager)
{
    return (i % 2) ? (size_t)eager * 2 + (size_t)r : (size_t)(r * 10 + i);
}

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    SM_CHECK(sm_size >= 2, "needs at least 2 ranks");
    const int eager = sm_eager_limit();
    const size_t big = (size_t)eager * 4 + 7;
    unsigned char *buf = sm_malloc(big + 64);
    unsigned char *buf2 = sm_malloc(big + 64);

    if (sm_rank == 1) {
        /* A: small, B: large (rendezvous) — first for Probe / Iprobe */
        sm_fill(buf, 33, 1);
        MPI_Send(buf, 33, MPI_BYTE, 0, TAG_A, MPI_COMM_WORLD);
        sm_fill(buf, big, 2);
        MPI_Send(buf, (int)big, MPI_BYTE, 0, TAG_BIG, MPI_COMM_WORLD);
        /* for Mprobe / Mrecv: two messages on the same tag */
        sm_fill(buf, 40, 3);
        MPI_Send(buf, 40, MPI_BYTE, 0, TAG_B, MPI_COMM_WORLD);
        sm_fill(buf, 41, 4);
        MPI_Send(buf, 41, MPI_BYTE, 0, TAG_B, MPI_COMM_WORLD);
        /* for Improbe / Imrecv: a large then a small message on the same tag */
        /* (nonblocking: rank 0 probes both before receiving either) */
        MPI_Request rq[2];
        sm_fill(buf, big, 5);
        MPI_Isend(buf, (int)big, MPI_BYTE, 0, TAG_B, MPI_COMM_WORLD, &rq[0]);
        sm_fill(buf2, 3, 6);
        MPI_Isend(buf2, 3, MPI_BYTE, 0, TAG_B, MPI_COMM_WORLD, &rq[1]);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    }
    if (sm_rank == 0) {
        MPI_Status st;
        int flag = 0, cnt = -1;

        /* Iprobe of a tag nobody sends */
        MPI_Iprobe(1, TAG_NEVER, MPI_COMM_WORLD, &flag, &st);
        SM_CHECK(!flag, "Iprobe found a message with a tag that is never sent");

        /* Probe, then Recv the probed message */
        MPI_Probe(1, TAG_A, MPI_COMM_WORLD, &st);
        SM_CHECK_STATUS(st, 1, TAG_A, 33, "Probe(1, A)");
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st); /* probing twice: same one */
        SM_CHECK_STATUS(st, 1, TAG_A, 33, "second Probe(ANY, ANY)");
        MPI_Recv(buf, 33, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
        SM_CHECK_STATUS(st, 1, TAG_A, 33, "Recv after Probe");
        SM_VERIFY(buf, 33, 1, "message A");

        /* Iprobe loop for the large message, then size the receive from the status */
        long polls;
        for (polls = 0, flag = 0; !flag && polls < POLL_MAX; polls++) {
            MPI_Iprobe(MPI_ANY_SOURCE, TAG_BIG, MPI_COMM_WORLD, &flag, &st);
            if (!flag) sm_nap();
        }
        SM_CHECK(flag, "Iprobe never saw the large message");
        SM_CHECK_STATUS(st, 1, TAG_BIG, big, "Iprobe of large message");
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        memset(buf, 0, big + 64);
        MPI_Recv(buf, cnt, MPI_BYTE, st.MPI_SOURCE, TAG_BIG, MPI_COMM_WORLD, &st);
        SM_CHECK_STATUS(st, 1, TAG_BIG, big, "Recv of large message");
        SM_VERIFY(buf, big, 2, "large message after Iprobe");

        /* Mprobe takes message 3 out of matching; Recv on the same tag gets message 4 */
        MPI_Message m1 = MPI_MESSAGE_NULL;
        MPI_Mprobe(1, TAG_B, MPI_COMM_WORLD, &m1, &st);
        SM_CHECK(m1 != MPI_MESSAGE_NULL && m1 != MPI_MESSAGE_NO_PROC, "Mprobe gave no message");
        SM_CHECK_STATUS(st, 1, TAG_B, 40, "Mprobe");
        MPI_Recv(buf2, 64, MPI_BYTE, 1, TAG_B, MPI_COMM_WORLD, &st);
        SM_CHECK_STATUS(st, 1, TAG_B, 41, "Recv after Mprobe (must skip the matched message)");
        SM_VERIFY(buf2, 41, 4, "message 4");
        MPI_Mrecv(buf, 40, MPI_BYTE, &m1, &st);
        SM_CHECK(m1 == MPI_MESSAGE_NULL, "Mrecv did not set the message to MPI_MESSAGE_NULL");
        SM_CHECK_STATUS(st, 1, TAG_B, 40, "Mrecv");
        SM_VERIFY(buf, 40, 3, "message 3 via Mrecv");

        /* Improbe (polled) the large message, Improbe the small one, Imrecv both (small first) */
        MPI_Message mb = MPI_MESSAGE_NULL, ms = MPI_MESSAGE_NULL;
        for (polls = 0, flag = 0; !flag && polls < POLL_MAX; polls++) {
            MPI_Improbe(MPI_ANY_SOURCE, TAG_B, MPI_COMM_WORLD, &flag, &mb, &st);
            if (!flag) sm_nap();
        }
        SM_CHECK(flag, "Improbe never found the large message");
        SM_CHECK_STATUS(st, 1, TAG_B, big, "Improbe of large message");
        for (polls = 0, flag = 0; !flag && polls < POLL_MAX; polls++) {
            MPI_Improbe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &ms, &st);
            if (!flag) sm_nap();
        }
        SM_CHECK(flag, "Improbe never found the small message");
        SM_CHECK_STATUS(st, 1, TAG_B, 3, "Improbe of the small message after the large one");
        MPI_Request rq[2];
        memset(buf, 0, big + 64);
        MPI_Imrecv(buf2, 3, MPI_BYTE, &ms, &rq[0]);
        MPI_Imrecv(buf, (int)big + 64, MPI_BYTE, &mb, &rq[1]);
        SM_CHECK(ms == MPI_MESSAGE_NULL && mb == MPI_MESSAGE_NULL,
                 "Imrecv did not set the message to MPI_MESSAGE_NULL");
        MPI_Status sts[2];
        MPI_Waitall(2, rq, sts);
        SM_CHECK_STATUS(sts[0], 1, TAG_B, 3, "Imrecv small");
        SM_CHECK_STATUS(sts[1], 1, TAG_B, big, "Imrecv large");
        SM_VERIFY(buf2, 3, 6, "small message via Imrecv");
        SM_VERIFY(buf, big, 5, "large message via Imrecv");

        /* Nothing from rank 1 is left */
        MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st);
        SM_CHECK(!flag, "Iprobe found a message from rank 1 after all were received (tag %d)",
                 st.MPI_TAG);
        MPI_Message mn = MPI_MESSAGE_NULL;
        MPI_Improbe(1, TAG_NEVER, MPI_COMM_WORLD, &flag, &mn, &st);
        SM_CHECK(!flag, "Improbe matched a message with a tag that is never sent");

        /* PROC_NULL */
        MPI_Mprobe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &mn, &st);
        SM_CHECK(mn == MPI_MESSAGE_NO_PROC, "Mprobe(PROC_NULL) did not give MESSAGE_NO_PROC");
        SM_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
                 "Mprobe(PROC_NULL) status source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
        MPI_Mrecv(buf, 10, MPI_BYTE, &mn, &st);
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        SM_CHECK(mn == MPI_MESSAGE_NULL && st.MPI_SOURCE == MPI_PROC_NULL && cnt == 0,
                 "Mrecv(MESSAGE_NO_PROC): message not nulled or status source %d count %d",
                 st.MPI_SOURCE, cnt);
        flag = 0;
        MPI_Improbe(MPI_PROC_NULL, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &mn, &st);
        SM_CHECK(flag && mn == MPI_MESSAGE_NO_PROC, "Improbe(PROC_NULL): flag %d", flag);
        MPI_Imrecv(buf, 10, MPI_BYTE, &mn, &rq[0]);
        MPI_Wait(&rq[0], &st);
        SM_CHECK(st.MPI_SOURCE == MPI_PROC_NULL, "Imrecv(NO_PROC) status source %d",
                 st.MPI_SOURCE);
        flag = 0;
        MPI_Iprobe(MPI_PROC_NULL, 3, MPI_COMM_WORLD, &flag, &st);
        SM_CHECK(flag && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG,
                 "Iprobe(PROC_NULL): flag %d source %d tag %d", flag, st.MPI_SOURCE, st.MPI_TAG);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Several senders: Probe(ANY_SOURCE, ANY_TAG) then Recv(status.MPI_SOURCE, status.MPI_TAG),
     * and Mprobe(ANY_SOURCE) + Mrecv; each rank r > 0 sends NMULTI messages of alternating
     * small / large size.  Per sender the tags come in send order. */
    if (sm_rank != 0) {
        for (int i = 0; i < NMULTI; i++) {
            size_t n = multi_size(sm_rank, i, eager);
            sm_fill(buf, n, (uint32_t)(100 * sm_rank + i));
            MPI_Send(buf, (int)n, MPI_BYTE, 0, TAG_MULTI + i, MPI_COMM_WORLD);
        }
    } else {
        int *next = sm_malloc(sizeof(int) * (size_t)sm_size);
        for (int r = 0; r < sm_size; r++) next[r] = 0;
        for (int m = 0; m < (sm_size - 1) * NMULTI; m++) {
            MPI_Status st, st2;
            int cnt = -1;
            if (m % 2 == 0) {
                MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            } else {
                MPI_Message msg;
                MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &msg, &st);
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                MPI_Mrecv(buf, cnt, MPI_BYTE, &msg, &st2);
            }
            const int r = st.MPI_SOURCE, i = st.MPI_TAG - TAG_MULTI;
            SM_CHECK(r > 0 && r < sm_size && i == next[r],
                     "probe %d: source %d tag %d, expected next tag from that source %d", m, r,
                     st.MPI_TAG, r > 0 && r < sm_size ? TAG_MULTI + next[r] : -1);
            next[r]++;
            const size_t n = multi_size(r, i, eager);
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            SM_CHECK(cnt == (int)n, "probe of (%d,%d): count %d, want %zu", r, i, cnt, n);
            if (m % 2 == 0) {
                MPI_Recv(buf, cnt, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st2);
            }
            SM_CHECK_STATUS(st2, r, st.MPI_TAG, n, "receive after probe");
            SM_VERIFY(buf, n, (uint32_t)(100 * r + i), "message (%d,%d) after probe", r, i);
        }
        free(next);
    }
    free(buf);
    free(buf2);
    return sm_finish();
}
