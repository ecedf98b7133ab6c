/* fix_status_error.c — single-completion calls leave the MPI_ERROR field of a status as the
 * program set it: Probe/Iprobe/Mprobe/Improbe and Mrecv/Imrecv, with a real message and with
 * MPI_PROC_NULL (MPI_MESSAGE_NO_PROC), and Recv/Wait of a message. */
#include "../common/mpi_test.h"

#define MARK MPI_ERR_DIMS

static void fresh(MPI_Status *s)
{
    memset(s, 0xab, sizeof *s);
    s->MPI_ERROR = MARK;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int peer = size_ - 1 - rank_, x = rank_, y = -1, flag = 0;
    MPI_Status s;
    MPI_Message m;
    /* MPI_PROC_NULL */
    fresh(&s);
    MPI_Improbe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &flag, &m, &s);
    CHECK(flag && m == MPI_MESSAGE_NO_PROC && s.MPI_SOURCE == MPI_PROC_NULL, "improbe null");
    CHECK(s.MPI_ERROR == MARK, "Improbe(PROC_NULL) wrote MPI_ERROR %d", s.MPI_ERROR);
    fresh(&s);
    MPI_Mrecv(&y, 1, MPI_INT, &m, &s);
    CHECK(s.MPI_SOURCE == MPI_PROC_NULL && s.MPI_ERROR == MARK, "Mrecv(NO_PROC) MPI_ERROR %d",
          s.MPI_ERROR);
    fresh(&s);
    MPI_Probe(MPI_PROC_NULL, 5, MPI_COMM_WORLD, &s);
    CHECK(s.MPI_ERROR == MARK, "Probe(PROC_NULL) wrote MPI_ERROR %d", s.MPI_ERROR);
    /* real messages from the peer (itself with 1 rank) */
    MPI_Request r;
    for (int round = 0; round < 3; round++) {
        MPI_Isend(&x, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &r);
        fresh(&s);
        if (round == 0) {
            MPI_Probe(peer, 7, MPI_COMM_WORLD, &s);
            CHECK(s.MPI_ERROR == MARK && s.MPI_SOURCE == peer, "Probe wrote MPI_ERROR");
            fresh(&s);
            MPI_Recv(&y, 1, MPI_INT, peer, 7, MPI_COMM_WORLD, &s);
        } else if (round == 1) {
            MPI_Mprobe(peer, 7, MPI_COMM_WORLD, &m, &s);
            CHECK(s.MPI_ERROR == MARK && s.MPI_TAG == 7, "Mprobe wrote MPI_ERROR");
            fresh(&s);
            MPI_Mrecv(&y, 1, MPI_INT, &m, &s);
        } else {
            do
                MPI_Improbe(peer, 7, MPI_COMM_WORLD, &flag, &m, &s);
            while (!flag);
            CHECK(s.MPI_ERROR == MARK, "Improbe wrote MPI_ERROR");
            fresh(&s);
            MPI_Request q;
            MPI_Imrecv(&y, 1, MPI_INT, &m, &q);
            MPI_Wait(&q, &s);
        }
        CHECK(s.MPI_ERROR == MARK, "round %d: the receive wrote MPI_ERROR %d", round, s.MPI_ERROR);
        CHECK(y == peer && s.MPI_SOURCE == peer, "round %d: got %d from %d", round, y,
              s.MPI_SOURCE);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
    }
    return finish();
}
