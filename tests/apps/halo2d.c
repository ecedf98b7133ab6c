/* halo2d.c — a 2-D domain decomposition: MPI_Dims_create + MPI_Cart_create give a periodic
 * process grid, each process owns an NX x NY block with a one-cell halo, and MPI_Cart_shift
 * names the neighbours; rows go as contiguous doubles, columns as an MPI_Type_vector.  After
 * the exchange every halo cell must hold the value its owner put in the matching interior
 * cell.  Built with mpicc; prints " No Errors" when all halos are right. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NX 12 /* interior rows */
#define NY 9  /* interior columns */

static double value(int rank, int i, int j) { return rank * 10000.0 + i * 100.0 + j; }

int main(int argc, char **argv)
{
    int rank, size, dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2];
    int up, down, left, right, errors = 0;
    double u[NX + 2][NY + 2];
    MPI_Comm grid;
    MPI_Datatype column;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 1, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_coords(grid, rank, 2, coords);
    MPI_Cart_shift(grid, 0, 1, &up, &down);    /* rows: up is coords[0] - 1 */
    MPI_Cart_shift(grid, 1, 1, &left, &right); /* columns */

    MPI_Type_vector(NX, 1, NY + 2, MPI_DOUBLE, &column);
    MPI_Type_commit(&column);

    for (int i = 0; i < NX + 2; i++)
        for (int j = 0; j < NY + 2; j++)
            u[i][j] = (i == 0 || j == 0 || i == NX + 1 || j == NY + 1) ? -1.0
                                                                       : value(rank, i, j);
    /* rows: my first interior row goes up, the row from below lands in my bottom halo */
    MPI_Sendrecv(&u[1][1], NY, MPI_DOUBLE, up, 0, &u[NX + 1][1], NY, MPI_DOUBLE, down, 0, grid,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[NX][1], NY, MPI_DOUBLE, down, 1, &u[0][1], NY, MPI_DOUBLE, up, 1, grid,
                 MPI_STATUS_IGNORE);
    /* columns, as one vector each */
    MPI_Sendrecv(&u[1][1], 1, column, left, 2, &u[1][NY + 1], 1, column, right, 2, grid,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(&u[1][NY], 1, column, right, 3, &u[1][0], 1, column, left, 3, grid,
                 MPI_STATUS_IGNORE);

    for (int j = 1; j <= NY; j++) {
        if (u[0][j] != value(up, NX, j) || u[NX + 1][j] != value(down, 1, j))
            errors++;
    }
    for (int i = 1; i <= NX; i++) {
        if (u[i][0] != value(left, i, NY) || u[i][NY + 1] != value(right, i, 1))
            errors++;
    }
    if (u[0][0] != -1.0 || u[NX + 1][NY + 1] != -1.0)
        errors++; /* corners are not exchanged */

    /* the neighbours are who Cart_rank says they are */
    int c[2] = {(coords[0] + 1) % dims[0], coords[1]}, want;
    MPI_Cart_rank(grid, c, &want);
    if (want != down)
        errors++;

    int total;
    MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, grid);
    if (rank == 0) {
        printf("%d x %d process grid, %d errors\n", dims[0], dims[1], total);
        if (!total)
            printf(" No Errors\n");
    }
    MPI_Type_free(&column);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return total ? EXIT_FAILURE : EXIT_SUCCESS;
}
