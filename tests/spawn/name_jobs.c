/* name_jobs.c — two separately started mpiexec jobs meet through the name service: run with
 * "server" it opens a port, publishes it as SERVICE and accepts; with "client" it looks the
 * name up (retrying until the server published it) and connects.  Both then exchange
 * messages and an Allreduce over the intercommunicator; the server unpublishes. */
#include <unistd.h>

#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    CHECK(argc == 3, "usage: name_jobs server|client SERVICE");
    int server = !strcmp(argv[1], "server");
    const char *service = argv[2];
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter;
    if (server) {
        if (rank_ == 0) {
            MPI_Open_port(MPI_INFO_NULL, port);
            MPI_Publish_name(service, MPI_INFO_NULL, port);
        }
        MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        if (rank_ == 0) {
            MPI_Unpublish_name(service, MPI_INFO_NULL, port);
            MPI_Close_port(port);
        }
    } else {
        if (rank_ == 0) {
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            int tries = 0;
            while (MPI_Lookup_name(service, MPI_INFO_NULL, port) != MPI_SUCCESS) {
                CHECK(++tries < 600, "the name was never published");
                usleep(50000);
            }
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        }
        MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    }
    int rs;
    MPI_Comm_remote_size(inter, &rs);
    int tag = 11, mine = 100 * server + rank_, got = -1;
    if (rank_ < rs) {
        MPI_Sendrecv(&mine, 1, MPI_INT, rank_, tag, &got, 1, MPI_INT, rank_, tag, inter,
                     MPI_STATUS_IGNORE);
        CHECK(got == 100 * !server + rank_, "got %d", got);
    }
    int sum = 0, one = 1;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(sum == rs, "allreduce %d, remote size %d", sum, rs);
    MPI_Comm_disconnect(&inter);
    return finish();
}
