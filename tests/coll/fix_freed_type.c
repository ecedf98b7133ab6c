/* fix_freed_type.c — a datatype handle used after MPI_Type_free: a clear MPI_ERR_TYPE (no
 * crash, no use of freed memory), and the next constructor reuses the object, so a stale
 * handle names the newest type (the behaviour MPICH's datatype/indexed_misc relies on). */
#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Datatype a, stale, b, s;
    MPI_Type_contiguous(3, MPI_INT, &a);
    MPI_Type_commit(&a);
    stale = a;
    MPI_Type_free(&a);
    CHECK(a == MPI_DATATYPE_NULL, "Type_free did not null the handle");
    int sz = -1;
    int rc = MPI_Type_size(stale, &sz);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    CHECK(rc != MPI_SUCCESS && cls == MPI_ERR_TYPE, "Type_size of a freed type: rc %d", rc);
    int one = 1;
    MPI_Aint d = 0;
    rc = MPI_Type_create_struct(1, &one, &d, &stale, &s);
    CHECK(rc != MPI_SUCCESS, "a struct of a freed type was made");
    /* a new type takes the freed object: the stale handle now names it */
    MPI_Type_vector(2, 1, 3, MPI_DOUBLE, &b);
    MPI_Type_commit(&b);
    CHECK(b == stale, "the freed object was not reused");
    MPI_Type_size(stale, &sz);
    CHECK(sz == 2 * (int)sizeof(double), "size through the reused handle %d", sz);
    /* and it works in communication */
    double x[4] = {1, 2, 3, 4}, y[4] = {0, 0, 0, 0};
    MPI_Sendrecv(x, 1, b, rank_, 1, y, 1, b, rank_, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    CHECK(y[0] == 1 && y[3] == 4 && y[1] == 0, "vector through a reused object");
    MPI_Type_free(&b);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return finish();
}
