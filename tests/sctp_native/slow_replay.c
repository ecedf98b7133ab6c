/* slow_replay — a receiver that is slow to take in what arrived while it computed must keep
 * acknowledging meanwhile (the native SCTP transport's progress(), src/transport/sctpn/).
 * Rank 0 sends NMSG small messages spread evenly over 1.2 s; rank 1 sleeps one second (its
 * watchdog thread receives and queues what arrives), then receives them all, so the queue is
 * replayed while rank 0 sends its last ones.  The test sets SCTPMPI_SCTP_TEST_UPCALL_US so that
 * replaying each queued delivery takes time (2 ms: 3 s or more for the queue), and short
 * retransmission limits (1.4 s at most): a receiver that reads no socket during the whole replay
 * makes rank 0's association fail.  Checked: every
 * message arrives, in order, with its contents. */
#include "sm_test.h"

enum { NMSG = 2000, NTAGS = 8 };

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    if (sm_size != 2) {
        if (sm_rank == 0)
            printf("slow_replay needs 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    /* warm-up: every association (every rail when striping) and stream is set up and has
     * carried its hello before the receiver starts sleeping */
    for (int i = 0; i < 8 * NTAGS; i++) {
        int d = i;
        if (sm_rank == 0)
            MPI_Send(&d, 1, MPI_INT, 1, i % NTAGS, MPI_COMM_WORLD);
        else {
            MPI_Recv(&d, 1, MPI_INT, 0, i % NTAGS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            SM_CHECK(d == i, "warm-up message %d: got %d", i, d);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (sm_rank == 0) {
        double t0 = MPI_Wtime();
        for (int i = 0; i < NMSG; i++) {
            while (MPI_Wtime() < t0 + 1.2 * i / NMSG)
                sm_nap_us(100);
            int d[2] = { i, i * 7 + 1 };
            MPI_Send(d, 2, MPI_INT, 1, i % NTAGS, MPI_COMM_WORLD);
        }
    } else {
        sm_nap_us(1000000);
        for (int i = 0; i < NMSG; i++) {
            int d[2] = { -1, -1 };
            MPI_Recv(d, 2, MPI_INT, 0, i % NTAGS, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            SM_CHECK(d[0] == i && d[1] == i * 7 + 1, "message %d: got %d %d", i, d[0], d[1]);
        }
    }
    return sm_finish();
}
