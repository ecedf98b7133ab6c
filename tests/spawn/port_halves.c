/* port_halves.c — MPI_Open_port / Comm_accept / Comm_connect between the two halves of one
 * job (split of MPI_COMM_WORLD): the port name travels through COMM_WORLD; the result carries
 * point-to-point messages and an Allreduce both ways, and Close_port makes the name useless. */
#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    CHECK(size_ >= 2, "needs 2 processes");
    int low = rank_ < size_ / 2;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank_, &half);
    char port[MPI_MAX_PORT_NAME] = "";
    if (rank_ == 0)
        MPI_Open_port(MPI_INFO_NULL, port);
    MPI_Bcast(port, MPI_MAX_PORT_NAME, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (low)
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
    else
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
    int hr, hs, rs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    MPI_Comm_remote_size(inter, &rs);
    CHECK(rs == size_ - hs, "remote size %d", rs);
    /* ring across: send my world rank to remote (hr % rs) */
    MPI_Request rq;
    MPI_Isend(&rank_, 1, MPI_INT, hr % rs, 3, inter, &rq);
    for (int r = hr; r < rs; r += hs) {
        int got;
        MPI_Status st;
        MPI_Recv(&got, 1, MPI_INT, r, 3, inter, &st);
        int expect = low ? size_ / 2 + r : r;
        CHECK(got == expect && st.MPI_SOURCE == r, "got %d from %d", got, st.MPI_SOURCE);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    int sum = 0;
    MPI_Allreduce(&rank_, &sum, 1, MPI_INT, MPI_SUM, inter);
    int expect = 0;
    for (int r = 0; r < size_; r++)
        if ((r < size_ / 2) != low)
            expect += r;
    CHECK(sum == expect, "allreduce %d expected %d", sum, expect);
    MPI_Comm_disconnect(&inter);
    MPI_Comm_free(&half);
    if (rank_ == 0) {
        MPI_Close_port(port);
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        MPI_Comm c;
        int e = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), cls;
        MPI_Error_class(e, &cls);
        CHECK(cls == MPI_ERR_PORT, "connect to a closed port gave class %d", cls);
    }
    return finish();
}
