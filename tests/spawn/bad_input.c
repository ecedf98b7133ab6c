/* bad_input.c — dynamic processes given bad input fail at once with a clear error class, never
 * hang: a malformed port name, a port nobody listens on, a port closed already, a wrong token,
 * spawning a command that does not exist, a command that is not an MPI program (it never
 * connects), maxprocs 0, looking up a name nobody published, unpublishing twice. */
#include "../common/mpi_test.h"

#define EXPECT_CLASS(call, want)                                                                 \
    do {                                                                                         \
        int e_ = (call), c_;                                                                     \
        MPI_Error_class(e_, &c_);                                                                \
        CHECK(c_ == (want), "%s gave class %d, expected %d", #call, c_, (want));                 \
    } while (0)

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm c = MPI_COMM_NULL;
    int errs[4];
    EXPECT_CLASS(MPI_Comm_connect("garbage", MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c), MPI_ERR_PORT);
    EXPECT_CLASS(MPI_Comm_connect("sctpmpi-port:127.0.0.1:1:0123456789abcdef0123456789abcdef",
                                  MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c),
                 MPI_ERR_PORT);
    EXPECT_CLASS(MPI_Comm_accept("sctpmpi-port:127.0.0.1:1:0123456789abcdef0123456789abcdef",
                                 MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c),
                 MPI_ERR_PORT);
    char port[MPI_MAX_PORT_NAME];
    if (rank_ == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open port");
        /* the right address, a wrong token: turned away, the connect fails */
        char wrong[MPI_MAX_PORT_NAME];
        snprintf(wrong, sizeof wrong, "%s", port);
        size_t n = strlen(wrong);
        wrong[n - 1] = wrong[n - 1] == '0' ? '1' : '0';
        setenv("SCTPMPI_DYN_TIMEOUT", "3", 1);
        EXPECT_CLASS(MPI_Comm_connect(wrong, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), MPI_ERR_PORT);
        /* nobody accepts: the connect gives up after SCTPMPI_DYN_TIMEOUT */
        EXPECT_CLASS(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &c), MPI_ERR_PORT);
        unsetenv("SCTPMPI_DYN_TIMEOUT");
        CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close port");
        EXPECT_CLASS(MPI_Close_port(port), MPI_ERR_PORT);
    }
    double t0 = MPI_Wtime();
    EXPECT_CLASS(MPI_Comm_spawn("/no/such/command", MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0,
                                MPI_COMM_WORLD, &c, errs),
                 MPI_ERR_SPAWN);
    CHECK(c == MPI_COMM_NULL, "failed spawn left a communicator");
    EXPECT_CLASS(MPI_Comm_spawn("no-such-command-anywhere", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0,
                                MPI_COMM_WORLD, &c, MPI_ERRCODES_IGNORE),
                 MPI_ERR_SPAWN);
    /* a program that never calls MPI_Init: mpiexec reports its end through the port */
    EXPECT_CLASS(
        MPI_Comm_spawn("true", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c, errs),
        MPI_ERR_SPAWN);
    if (rank_ == 0)
        CHECK(errs[0] == MPI_ERR_SPAWN, "errcode %d", errs[0]);
    EXPECT_CLASS(
        MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 0, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &c, errs),
        MPI_ERR_ARG);
    CHECK(MPI_Wtime() - t0 < 30, "failed spawns took %.1f s", MPI_Wtime() - t0);
    if (rank_ == 0) {
        char got[MPI_MAX_PORT_NAME];
        EXPECT_CLASS(MPI_Lookup_name("sctpmpi-test-nobody-published", MPI_INFO_NULL, got),
                     MPI_ERR_NAME);
        EXPECT_CLASS(MPI_Unpublish_name("sctpmpi-test-nobody-published", MPI_INFO_NULL, "x"),
                     MPI_ERR_SERVICE);
        EXPECT_CLASS(MPI_Publish_name("has blank", MPI_INFO_NULL, "x"), MPI_ERR_ARG);
    }
    return finish();
}
