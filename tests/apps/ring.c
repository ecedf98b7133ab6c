/* ring.c — pass a column of a matrix around a ring of processes with MPI_Sendrecv, the
 * column described by an MPI_Type_vector so it travels straight out of the row-major
 * matrix; after size steps every rank has seen every rank's column once.  Built with mpicc;
 * prints " No Errors" when every received column is right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS 50
#define COLS 8

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    double a[ROWS][COLS], b[ROWS][COLS];
    MPI_Datatype column;
    MPI_Status status;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    /* one column: ROWS blocks of 1 double, COLS doubles apart */
    MPI_Type_vector(ROWS, 1, COLS, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    for (int i = 0; i < ROWS; i++)
        for (int j = 0; j < COLS; j++)
            a[i][j] = rank * 1000.0 + i + j / 10.0;

    /* the column travelling: it starts as my column (rank % COLS) and moves one step right
     * per round; it lands in column (round % COLS) of b */
    int from = rank;
    for (int step = 1; step <= size; step++) {
        int col = step % COLS;
        MPI_Sendrecv(&a[0][(from % COLS)], 1, column, right, step, &b[0][col], 1, column, left,
                     step, MPI_COMM_WORLD, &status);
        from = (from - 1 + size) % size; /* the column I received came from there */
        int count;
        MPI_Get_count(&status, column, &count);
        if (count != 1 || status.MPI_SOURCE != left || status.MPI_TAG != step)
            errors++;
        for (int i = 0; i < ROWS; i++)
            if (b[i][col] != from * 1000.0 + i + (from % COLS) / 10.0)
                errors++;
        /* forward what I just received: copy it into my matrix where the next send reads */
        for (int i = 0; i < ROWS; i++)
            a[i][from % COLS] = b[i][col];
    }
    if (from != rank)
        errors++; /* after size steps my own column came back */

    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Type_free(&column);
    if (rank == 0) {
        if (total)
            printf("FAILED: %d errors\n", total);
        else
            printf(" No Errors\n");
    }
    MPI_Finalize();
    return total ? EXIT_FAILURE : EXIT_SUCCESS;
}
