/* cancel — MPI_Cancel and MPI_Test_cancelled:
 *  - a posted receive that can never match is cancelled (Test_cancelled true), also with
 *    ANY_SOURCE and for a started persistent receive (which stays usable afterwards);
 *  - a receive that has already matched (its Issend partner completed) cannot be cancelled
 *    (Test_cancelled false) and holds the data;
 *  - cancelling an unmatched send (small and large): either outcome is legal, but it must be
 *    consistent: if cancelled the receiver never gets it, otherwise it is received.  The sender
 *    then sends a marker on the same tag, so the receiver's next receive on that tag tells which.
 *  - at the end, with all traffic done, an (ANY_SOURCE, ANY_TAG) receive is cancelled.
 * Ranks are paired (0,1), (2,3), ...; an odd last rank only joins barriers. */
#include "sm_test.h"

enum { TAG_NEVER = 500, TAG_X = 10, TAG_DONE = 11, TAG_INFO = 12, TAG_Z = 13 };
static const long POLL_MAX = 2000000;

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    const int eager = sm_eager_limit();
    const int partner = (sm_rank % 2 == 0) ? sm_rank + 1 : sm_rank - 1;
    const int active = partner < sm_size;
    const int even = sm_rank % 2 == 0;
    const size_t big = (size_t)eager * 2 + 5;
    unsigned char *buf = sm_malloc(big), *rbuf = sm_malloc(big);
    MPI_Request rq;
    MPI_Status st;
    int flag;

    /* 1. unmatched receives get cancelled */
    if (active) {
        MPI_Irecv(rbuf, 10, MPI_BYTE, partner, TAG_NEVER, MPI_COMM_WORLD, &rq);
        MPI_Cancel(&rq);
        SM_CHECK(rq != MPI_REQUEST_NULL, "Cancel freed the request");
        MPI_Wait(&rq, &st);
        flag = 0;
        MPI_Test_cancelled(&st, &flag);
        SM_CHECK(flag, "cancelled unmatched receive: Test_cancelled false");

        MPI_Irecv(rbuf, 10, MPI_BYTE, MPI_ANY_SOURCE, TAG_NEVER + 1, MPI_COMM_WORLD, &rq);
        MPI_Cancel(&rq);
        flag = 0;
        long polls;
        for (polls = 0; !flag && polls < POLL_MAX; polls++) {
            MPI_Test(&rq, &flag, &st);
            if (!flag) sm_nap();
        }
        SM_CHECK(flag, "cancelled ANY_SOURCE receive never completed under MPI_Test");
        flag = 0;
        MPI_Test_cancelled(&st, &flag);
        SM_CHECK(flag, "cancelled ANY_SOURCE receive: Test_cancelled false");

        /* persistent receive: start, cancel, then reuse it for a real message */
        MPI_Recv_init(rbuf, 10, MPI_BYTE, partner, TAG_NEVER + 2, MPI_COMM_WORLD, &rq);
        MPI_Start(&rq);
        MPI_Cancel(&rq);
        MPI_Wait(&rq, &st);
        flag = 0;
        MPI_Test_cancelled(&st, &flag);
        SM_CHECK(flag, "cancelled persistent receive: Test_cancelled false");
        SM_CHECK(rq != MPI_REQUEST_NULL, "persistent request freed by Wait");
    }
    /* (the barrier keeps the partner's real message below from matching the first start) */
    MPI_Barrier(MPI_COMM_WORLD);
    if (active) {
        MPI_Start(&rq);
        unsigned char b7[7];
        sm_fill(b7, 7, 70u + (uint32_t)sm_rank);
        MPI_Send(b7, 7, MPI_BYTE, partner, TAG_NEVER + 2, MPI_COMM_WORLD);
        MPI_Wait(&rq, &st);
        flag = 1;
        MPI_Test_cancelled(&st, &flag);
        SM_CHECK(!flag, "persistent receive restarted after a cancel: Test_cancelled true");
        SM_CHECK_STATUS(st, partner, TAG_NEVER + 2, 7, "restarted persistent receive");
        SM_VERIFY(rbuf, 7, 70u + (uint32_t)partner, "restarted persistent receive");
        MPI_Request_free(&rq);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 2. cancel after match: the sender's Issend completes only once the receive matched; it
     *    then says so (TAG_DONE); the receiver cancels afterwards: must be "not cancelled". */
    for (int pass = 0; pass < 2 && active; pass++) {
        const size_t n = pass == 0 ? 20 : big;
        if (even) {
            sm_fill(buf, n, 200u + (uint32_t)pass);
            MPI_Issend(buf, (int)n, MPI_BYTE, partner, TAG_X, MPI_COMM_WORLD, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
            MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD);
        } else {
            MPI_Irecv(rbuf, (int)n, MPI_BYTE, partner, TAG_X, MPI_COMM_WORLD, &rq);
            MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_DONE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Cancel(&rq);
            MPI_Wait(&rq, &st);
            flag = 1;
            MPI_Test_cancelled(&st, &flag);
            SM_CHECK(!flag, "receive of %zu bytes cancelled after it matched", n);
            SM_CHECK_STATUS(st, partner, TAG_X, n, "matched receive after Cancel");
            SM_VERIFY(rbuf, n, 200u + (uint32_t)pass, "matched receive after Cancel");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* 3. cancel an unmatched send.  Sender: Isend/Issend on TAG_Z, Cancel, tell the receiver
     *    (TAG_INFO, "cancel requested"), Wait, send the outcome (TAG_INFO), then a marker on
     *    TAG_Z.  Receiver: after "cancel requested" receives on TAG_Z: it must get the original
     *    if the send was not cancelled, the marker if it was.  (Open MPI and MPICH complete a
     *    rendezvous send only once received, so the receive is posted before the sender Waits.) */
    for (int pass = 0; pass < 4 && active; pass++) {
        const size_t n = (pass % 2 == 0) ? 16 : big;
        const int sync = pass >= 2; /* Issend for passes 2 and 3 */
        int cancelled = -1;
        if (even) {
            sm_fill(buf, n, 300u + (uint32_t)pass);
            if (sync)
                MPI_Issend(buf, (int)n, MPI_BYTE, partner, TAG_Z, MPI_COMM_WORLD, &rq);
            else
                MPI_Isend(buf, (int)n, MPI_BYTE, partner, TAG_Z, MPI_COMM_WORLD, &rq);
            MPI_Cancel(&rq);
            MPI_Send(NULL, 0, MPI_BYTE, partner, TAG_INFO, MPI_COMM_WORLD);
            MPI_Wait(&rq, &st);
            flag = -1;
            MPI_Test_cancelled(&st, &flag);
            SM_CHECK(flag == 0 || flag == 1, "Test_cancelled gave %d", flag);
            cancelled = flag;
            MPI_Send(&cancelled, 1, MPI_INT, partner, TAG_INFO, MPI_COMM_WORLD);
            unsigned char marker[3] = {0xde, 0xad, (unsigned char)pass};
            MPI_Send(marker, 3, MPI_BYTE, partner, TAG_Z, MPI_COMM_WORLD);
        } else {
            MPI_Recv(NULL, 0, MPI_BYTE, partner, TAG_INFO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            memset(rbuf, 0, n);
            MPI_Recv(rbuf, (int)n, MPI_BYTE, partner, TAG_Z, MPI_COMM_WORLD, &st);
            int cnt = -1;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            MPI_Recv(&cancelled, 1, MPI_INT, partner, TAG_INFO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (cancelled) {
                SM_CHECK(cnt == 3 && rbuf[0] == 0xde && rbuf[1] == 0xad && rbuf[2] == pass,
                         "send of %zu bytes (%s) reported cancelled, yet the receiver got a "
                         "message of %d bytes instead of the marker", n, sync ? "Issend" : "Isend",
                         cnt);
            } else {
                SM_CHECK(cnt == (int)n, "send of %zu bytes (%s) not cancelled, but the receiver "
                         "got %d bytes", n, sync ? "Issend" : "Isend", cnt);
                SM_VERIFY(rbuf, n, 300u + (uint32_t)pass, "uncancelled send");
                MPI_Recv(rbuf, 3, MPI_BYTE, partner, TAG_Z, MPI_COMM_WORLD, &st);
                SM_CHECK(rbuf[0] == 0xde && rbuf[1] == 0xad && rbuf[2] == pass, "marker wrong");
            }
        }
        if (sm_rank == 1 && getenv("SM_TEST_VERBOSE"))
            printf("send cancel pass %d (%zu bytes, %s): %s\n", pass, n, sync ? "Issend" : "Isend",
                   cancelled ? "cancelled" : "not cancelled");
    }

    /* 4. nothing is in flight any more: a full wildcard receive gets cancelled */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Irecv(rbuf, 10, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
    MPI_Cancel(&rq);
    MPI_Wait(&rq, &st);
    flag = 0;
    MPI_Test_cancelled(&st, &flag);
    SM_CHECK(flag, "wildcard receive with no traffic left: Test_cancelled false (source %d tag %d)",
             st.MPI_SOURCE, st.MPI_TAG);

    free(buf);
    free(rbuf);
    return sm_finish();
}
