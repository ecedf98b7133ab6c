/* ssend_sync — a synchronous send must not complete before the receiver has posted the
 * matching receive.  The sender starts MPI_Issend (also Ssend_init + Start), tests it NTESTS
 * times with short sleeps and requires flag == 0 each time, then tells the receiver on another
 * tag "I tested N times and it was incomplete"; only then does the receiver post the matching
 * receive, after which the send must complete.  No timing assertions: the receiver provably has
 * not posted while the sender tests.  Small and large (> eager limit) messages.  Ranks are paired
 * (0,1), (2,3), ...; the even rank sends; an odd last rank only joins the barriers. */
#include "sm_test.h"

enum { TAG_DATA = 1, TAG_TESTED = 2, NTESTS = 20 };

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    const int eager = sm_eager_limit();
    const int partner = (sm_rank % 2 == 0) ? sm_rank + 1 : sm_rank - 1;
    const int active = partner < sm_size;
    const int sender = sm_rank % 2 == 0;
    const size_t sizes[] = {0, 8, (size_t)eager - 1, (size_t)eager + 1, (size_t)eager * 3};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    unsigned char *buf = sm_malloc((size_t)eager * 3);

    for (int pass = 0; pass < 2 * nsizes; pass++) {
        const size_t n = sizes[pass % nsizes];
        const int persistent = pass >= nsizes;
        const uint32_t seed = 50u + (uint32_t)pass;
        if (active && sender) {
            MPI_Request rq;
            MPI_Status st;
            int flag = 0, tested = 0;
            sm_fill(buf, n, seed);
            if (persistent) {
                MPI_Ssend_init(buf, (int)n, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &rq);
                MPI_Start(&rq);
            } else {
                MPI_Issend(buf, (int)n, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &rq);
            }
            for (tested = 0; tested < NTESTS; tested++) {
                if (tested % 2 == 0) {
                    MPI_Test(&rq, &flag, &st);
                } else { /* Request_get_status must not complete it either */
                    MPI_Request_get_status(rq, &flag, &st);
                }
                SM_CHECK(!flag, "%s of %zu bytes completed (test %d) before the receiver posted "
                         "its receive", persistent ? "Ssend_init/Start" : "Issend", n, tested);
                sm_nap_us(tested < 5 ? 1000 : 200);
            }
            MPI_Send(&tested, 1, MPI_INT, partner, TAG_TESTED, MPI_COMM_WORLD);
            MPI_Wait(&rq, &st);
            if (persistent) {
                SM_CHECK(rq != MPI_REQUEST_NULL, "persistent request freed by Wait");
                MPI_Request_free(&rq);
            } else {
                SM_CHECK(rq == MPI_REQUEST_NULL, "Wait did not free the Issend request");
            }
        } else if (active) {
            int tested = -1;
            MPI_Status st;
            MPI_Recv(&tested, 1, MPI_INT, partner, TAG_TESTED, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            SM_CHECK(tested == NTESTS, "sender reports %d tests", tested);
            memset(buf, 0, n);
            MPI_Recv(buf, (int)n, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &st);
            SM_CHECK_STATUS(st, partner, TAG_DATA, n, "synchronous message");
            SM_VERIFY(buf, n, seed, "synchronous message of %zu bytes", n);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Blocking Ssend to a receiver that first waits for a message sent after the Ssend
     * returns would deadlock; the converse must work: receiver posts Irecv, then Ssend
     * returns and the receiver's Wait completes. */
    if (active && sender) {
        sm_fill(buf, 100, 999);
        MPI_Ssend(buf, 100, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD);
    } else if (active) {
        MPI_Request rq;
        MPI_Status st;
        MPI_Irecv(buf, 100, MPI_BYTE, partner, TAG_DATA, MPI_COMM_WORLD, &rq);
        MPI_Wait(&rq, &st);
        SM_VERIFY(buf, 100, 999, "Ssend to pre-posted Irecv");
    }
    free(buf);
    return sm_finish();
}
