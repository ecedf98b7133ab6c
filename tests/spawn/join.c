/* join.c — MPI_Comm_join over a TCP socket: pairs of ranks (2k, 2k+1) connect a socket (the
 * listener's port number travels by MPI), join over it, and exchange messages and an
 * Allreduce on the resulting intercommunicator. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int peer = rank_ ^ 1;
    if (peer < size_) {
        int fd = -1;
        if (rank_ % 2 == 0) {
            int l = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in sa = { .sin_family = AF_INET };
            sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            socklen_t sl = sizeof sa;
            CHECK(l >= 0 && !bind(l, (struct sockaddr *)&sa, sizeof sa) && !listen(l, 1) &&
                      !getsockname(l, (struct sockaddr *)&sa, &sl),
                  "listen");
            int port = ntohs(sa.sin_port);
            /* synchronous: the message must have left before accept() blocks outside MPI */
            MPI_Ssend(&port, 1, MPI_INT, peer, 0, MPI_COMM_WORLD);
            fd = accept(l, NULL, NULL);
            close(l);
        } else {
            int port;
            MPI_Recv(&port, 1, MPI_INT, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            fd = socket(AF_INET, SOCK_STREAM, 0);
            struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
            sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
            CHECK(fd >= 0 && !connect(fd, (struct sockaddr *)&sa, sizeof sa), "connect");
        }
        CHECK(fd >= 0, "socket");
        MPI_Comm inter;
        MPI_Comm_join(fd, &inter);
        int rs, got = -1;
        MPI_Comm_remote_size(inter, &rs);
        CHECK(rs == 1, "remote size %d", rs);
        MPI_Sendrecv(&rank_, 1, MPI_INT, 0, 5, &got, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE);
        CHECK(got == peer, "got %d", got);
        int sum = 0;
        MPI_Allreduce(&rank_, &sum, 1, MPI_INT, MPI_SUM, inter);
        CHECK(sum == peer, "allreduce %d", sum);
        MPI_Comm_disconnect(&inter);
        close(fd);
    }
    return finish();
}
