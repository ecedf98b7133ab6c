/* fix_a2aw_zero.c — Alltoallw/Alltoallv where the two sides describe an empty exchange
 * differently (one element of a zero-size type against zero MPI_INTs), in both directions and
 * in place, blocking and non-blocking; afterwards a real Alltoallw must still deliver the right
 * data (no stray empty message left behind to be matched by it). */
#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int n = size_;
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    int *one = xmalloc(sizeof(int) * (size_t)n), *zero = xmalloc(sizeof(int) * (size_t)n);
    int *disp = xmalloc(sizeof(int) * (size_t)n);
    MPI_Datatype *et = xmalloc(sizeof(MPI_Datatype) * (size_t)n);
    MPI_Datatype *it = xmalloc(sizeof(MPI_Datatype) * (size_t)n);
    for (int i = 0; i < n; i++) {
        one[i] = 1, zero[i] = 0, disp[i] = 0;
        et[i] = empty, it[i] = MPI_INT;
    }
    int sb = 7, rb = 9;
    for (int rep = 0; rep < 3; rep++) {
        MPI_Alltoallw(&sb, one, disp, et, &rb, zero, disp, it, MPI_COMM_WORLD);
        MPI_Alltoallw(&sb, zero, disp, it, &rb, one, disp, et, MPI_COMM_WORLD);
        if (rank_ % 2)
            MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, &rb, zero, disp, it, MPI_COMM_WORLD);
        else
            MPI_Alltoallw(MPI_IN_PLACE, NULL, NULL, NULL, &rb, one, disp, et, MPI_COMM_WORLD);
        MPI_Alltoallv(&sb, one, disp, empty, &rb, zero, disp, MPI_INT, MPI_COMM_WORLD);
        MPI_Alltoallv(&sb, zero, disp, MPI_INT, &rb, one, disp, empty, MPI_COMM_WORLD);
        MPI_Request r;
        MPI_Ialltoallw(&sb, one, disp, et, &rb, zero, disp, it, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        MPI_Ialltoallw(&sb, zero, disp, it, &rb, one, disp, et, MPI_COMM_WORLD, &r);
        MPI_Wait(&r, MPI_STATUS_IGNORE);
        CHECK(sb == 7 && rb == 9, "an empty exchange changed a buffer (%d %d)", sb, rb);
    }
    /* a real exchange: rank r sends r * 100 + i to rank i */
    int *s = xmalloc(sizeof(int) * (size_t)n), *rv = xmalloc(sizeof(int) * (size_t)n);
    int *bd = xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        s[i] = rank_ * 100 + i, rv[i] = -1, bd[i] = i * (int)sizeof(int);
    }
    MPI_Alltoallw(s, one, bd, it, rv, one, bd, it, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        CHECK(rv[i] == i * 100 + rank_, "rv[%d] = %d, expected %d", i, rv[i], i * 100 + rank_);
    MPI_Type_free(&empty);
    free(one), free(zero), free(disp), free(et), free(it), free(s), free(rv), free(bd);
    return finish();
}
