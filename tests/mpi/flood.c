/* flood — 100,000 small (eager) messages to a receiver that starts receiving late (it sleeps
 * about one second first).  The sender posts the first half with MPI_Isend and the second half
 * with blocking MPI_Send (which may legally block until the receiver catches up), then
 * MPI_Waitall on the Isends: everything must complete, and the receiver must get all messages in
 * send order (MPI_ANY_TAG receives; tags cycle) with the right contents.  Ranks are paired (0,1),
 * (2,3), ...; the even rank floods; an odd last rank only joins the barrier. */
#include "sm_test.h"

enum { NMSG = 100000, NTAGS = 32 };

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    const int partner = (sm_rank % 2 == 0) ? sm_rank + 1 : sm_rank - 1;
    const int active = partner < sm_size;
    const int sender = sm_rank % 2 == 0;

    if (active && sender) {
        const int nasync = NMSG / 2;
        int(*data)[2] = sm_malloc(sizeof(int[2]) * (size_t)NMSG);
        MPI_Request *rq = sm_malloc(sizeof(MPI_Request) * (size_t)nasync);
        for (int i = 0; i < NMSG; i++) {
            data[i][0] = i;
            data[i][1] = sm_rank ^ (i * 31);
            if (i < nasync)
                MPI_Isend(data[i], 2, MPI_INT, partner, i % NTAGS, MPI_COMM_WORLD, &rq[i]);
            else
                MPI_Send(data[i], 2, MPI_INT, partner, i % NTAGS, MPI_COMM_WORLD);
        }
        MPI_Waitall(nasync, rq, MPI_STATUSES_IGNORE);
        for (int i = 0; i < nasync; i++)
            SM_CHECK(rq[i] == MPI_REQUEST_NULL, "Waitall left request %d set", i);
        free(rq);
        free(data);
    } else if (active) {
        sm_nap_us(1000000); /* receive late */
        for (int i = 0; i < NMSG; i++) {
            int d[2] = {-1, -1};
            MPI_Status st;
            MPI_Recv(d, 2, MPI_INT, partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            SM_CHECK(d[0] == i && d[1] == (partner ^ (i * 31)) && st.MPI_TAG == i % NTAGS,
                     "message %d: got seq %d check %d tag %d (want tag %d)", i, d[0], d[1],
                     st.MPI_TAG, i % NTAGS);
        }
    }
    return sm_finish();
}
