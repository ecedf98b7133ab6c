/* fix_procnull.c — receiving from and sending to MPI_PROC_NULL needs no valid buffer: count 0
 * of MPI_DATATYPE_NULL with a NULL buffer is accepted, and the status says MPI_PROC_NULL,
 * MPI_ANY_TAG and zero elements. */
#include "../common/mpi_test.h"

static void check_status(MPI_Status *st, const char *what)
{
    int n = -1;
    MPI_Get_count(st, MPI_INT, &n);
    CHECK(st->MPI_SOURCE == MPI_PROC_NULL && st->MPI_TAG == MPI_ANY_TAG && n == 0,
          "%s: source %d tag %d count %d", what, st->MPI_SOURCE, st->MPI_TAG, n);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Status st;
    MPI_Request r;
    MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    check_status(&st, "Irecv");
    MPI_Recv(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &st);
    check_status(&st, "Recv");
    MPI_Send(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD);
    MPI_Isend(NULL, 0, MPI_DATATYPE_NULL, MPI_PROC_NULL, 10, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    /* a real receive still rejects a null datatype */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    CHECK(MPI_Irecv(NULL, 0, MPI_DATATYPE_NULL, 0, 10, MPI_COMM_WORLD, &r) != MPI_SUCCESS,
          "null datatype accepted for a real receive");
    (void)xmalloc;
    return finish();
}
