/* spawn_multiple.c — MPI_Comm_spawn_multiple of two commands (this program with "a", 1
 * process, and with "b", 2 processes, the second in the "wdir" /tmp): the children share one
 * MPI_COMM_WORLD of 3 in command order, MPI_APPNUM tells them apart, and every child sends
 * its (appnum, argument, directory check) to parent 0. */
#include <unistd.h>

#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) {
        int *app, flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &app, &flag);
        char cwd[512] = "";
        CHECK(getcwd(cwd, sizeof cwd) != NULL, "getcwd");
        int v[3] = { flag ? *app : -1, argc > 1 ? argv[1][0] : 0, !strcmp(cwd, "/tmp") };
        MPI_Send(v, 3, MPI_INT, 0, rank_, parent);
        MPI_Comm_disconnect(&parent);
        MPI_Finalize();
        return 0;
    }
    char *cmds[2] = { argv[0], argv[0] };
    char *a0[] = { "a", NULL }, *a1[] = { "b", NULL };
    char **args[2] = { a0, a1 };
    int np[2] = { 1, 2 }, errs[3];
    MPI_Info infos[2];
    infos[0] = MPI_INFO_NULL;
    MPI_Info_create(&infos[1]);
    MPI_Info_set(infos[1], "wdir", "/tmp");
    MPI_Comm inter;
    MPI_Comm_spawn_multiple(2, cmds, args, np, infos, 0, MPI_COMM_WORLD, &inter, errs);
    MPI_Info_free(&infos[1]);
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 3, "remote size %d", rsize);
    if (rank_ == 0) {
        for (int c = 0; c < 3; c++) {
            int v[3];
            MPI_Recv(v, 3, MPI_INT, c, c, inter, MPI_STATUS_IGNORE);
            int app = c == 0 ? 0 : 1;
            CHECK(v[0] == app, "child %d appnum %d", c, v[0]);
            CHECK(v[1] == (app ? 'b' : 'a'), "child %d argument %c", c, v[1]);
            CHECK(v[2] == app, "child %d working directory", c);
        }
    }
    MPI_Comm_disconnect(&inter);
    return finish();
}
