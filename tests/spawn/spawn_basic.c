/* spawn_basic.c — MPI_Comm_spawn of this program: the parents start 3 children, then both
 * sides check the intercommunicator's sizes, exchange messages point-to-point, run Bcast and
 * Allreduce over it, merge it (Intercomm_merge: parents first) and Allreduce on the result, and
 * disconnect.  The children see their own MPI_COMM_WORLD of 3 and the parent through
 * MPI_Comm_get_parent. */
#include "../common/mpi_test.h"

#define NCHILD 3

static void exchange(MPI_Comm inter, int is_parent)
{
    int lrank, lsize, rsize;
    MPI_Comm_rank(inter, &lrank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    /* every process sends its rank to remote rank (lrank % rsize) and receives from all
     * remote ranks that map to it */
    int dst = lrank % rsize, v = 1000 * is_parent + lrank;
    MPI_Request rq;
    MPI_Isend(&v, 1, MPI_INT, dst, 7, inter, &rq);
    for (int r = 0; r < rsize; r++) {
        if (r % lsize != lrank)
            continue;
        int got = -1;
        MPI_Recv(&got, 1, MPI_INT, r, 7, inter, MPI_STATUS_IGNORE);
        CHECK(got == 1000 * !is_parent + r, "got %d from remote %d", got, r);
    }
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    /* Bcast from parent 0 to the children */
    int b = is_parent ? 4242 : -1;
    if (is_parent)
        MPI_Bcast(&b, 1, MPI_INT, lrank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    else
        MPI_Bcast(&b, 1, MPI_INT, 0, inter);
    CHECK(is_parent ? 1 : b == 4242, "bcast gave %d", b);
    /* Allreduce over an intercommunicator: each side gets the other side's sum */
    int one = is_parent ? 1 : 10, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, inter);
    int expect = is_parent ? 10 * rsize : rsize;
    CHECK(sum == expect, "intercomm allreduce %d, expected %d", sum, expect);
    /* merged: parents first */
    MPI_Comm merged;
    MPI_Intercomm_merge(inter, is_parent ? 0 : 1, &merged);
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    CHECK(msize == lsize + rsize, "merged size %d", msize);
    CHECK(mrank == (is_parent ? lrank : rsize + lrank), "merged rank %d", mrank);
    int total = 0;
    MPI_Allreduce(&mrank, &total, 1, MPI_INT, MPI_SUM, merged);
    CHECK(total == msize * (msize - 1) / 2, "merged allreduce %d", total);
    MPI_Comm_free(&merged);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm parent;
    MPI_Comm_get_parent(&parent);
    if (parent == MPI_COMM_NULL) {
        MPI_Comm inter;
        int errs[NCHILD] = { -1, -1, -1 };
        char *args[] = { "child", NULL };
        MPI_Comm_spawn(argv[0], args, NCHILD, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, errs);
        for (int i = 0; i < NCHILD; i++)
            CHECK(errs[i] == MPI_SUCCESS, "errcode %d is %d", i, errs[i]);
        int rsize;
        MPI_Comm_remote_size(inter, &rsize);
        CHECK(rsize == NCHILD, "remote size %d", rsize);
        exchange(inter, 1);
        MPI_Comm_disconnect(&inter);
        CHECK(inter == MPI_COMM_NULL, "disconnect left a handle");
    } else {
        CHECK(argc == 2 && !strcmp(argv[1], "child"), "child arguments");
        CHECK(size_ == NCHILD, "child world size %d", size_);
        int *u, flag = 0;
        MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_APPNUM, &u, &flag);
        CHECK(flag && *u == 0, "appnum");
        exchange(parent, 0);
        MPI_Comm_disconnect(&parent);
        MPI_Comm p2;
        MPI_Comm_get_parent(&p2);
        CHECK(p2 == MPI_COMM_NULL, "parent after disconnect");
        MPI_Finalize();
        return 0;
    }
    return finish();
}
