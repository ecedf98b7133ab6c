/* spawn_icreate.c — a group made of two jobs: rank 0 alone spawns 2 children (over
 * MPI_COMM_SELF), then every parent and child builds one intercommunicator between the two
 * MPI_COMM_WORLDs with MPI_Intercomm_create over the spawn's intercommunicator (the leaders
 * must describe their groups' processes, not send world ranks the other job cannot read);
 * children send to parent 1, which none of them met before, and all take part in a barrier
 * and an Allreduce.  Also: the parent intercommunicator is named MPI_COMM_PARENT. */
#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm parent, inter = MPI_COMM_NULL, all;
    MPI_Comm_get_parent(&parent);
    int is_parent = parent == MPI_COMM_NULL;
    if (is_parent) {
        if (rank_ == 0)
            MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 2, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter,
                           MPI_ERRCODES_IGNORE);
    } else {
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Comm_get_name(parent, name, &len);
        CHECK(!strcmp(name, "MPI_COMM_PARENT"), "parent named '%s'", name);
        inter = parent;
    }
    MPI_Intercomm_create(MPI_COMM_WORLD, 0, inter, 0, 123, &all);
    int rs;
    MPI_Comm_remote_size(all, &rs);
    if (is_parent) {
        CHECK(rs == 2, "remote size %d", rs);
        if (size_ > 1 && rank_ == 1)
            for (int c = 0; c < rs; c++) {
                int v = -1;
                MPI_Recv(&v, 1, MPI_INT, c, c, all, MPI_STATUS_IGNORE);
                CHECK(v == 100 + c, "from child %d: %d", c, v);
            }
    } else {
        CHECK(rs >= 1, "remote size %d", rs);
        if (rs > 1) {
            int v = 100 + rank_;
            MPI_Send(&v, 1, MPI_INT, 1, rank_, all);
        }
    }
    MPI_Barrier(all);
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, all);
    CHECK(sum == rs, "allreduce %d, remote size %d", sum, rs);
    MPI_Comm_free(&all);
    if (inter != MPI_COMM_NULL)
        MPI_Comm_disconnect(&inter);
    if (!is_parent) {
        MPI_Finalize();
        return 0;
    }
    return finish();
}
