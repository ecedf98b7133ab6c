/* pi.c — the classic: rank 0 broadcasts the number of intervals, every rank integrates
 * 4/(1+x^2) over its share, MPI_Reduce sums the pieces on rank 0.  Written as a newcomer
 * would, built with mpicc; prints " No Errors" when pi comes out right. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>

#define PI25DT 3.141592653589793238462643

int main(int argc, char *argv[])
{
    int n = 0, myid, numprocs, i;
    double mypi, pi, h, sum, x, t0 = 0.0;

    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &numprocs);
    MPI_Comm_rank(MPI_COMM_WORLD, &myid);

    for (int round = 0; round < 3; round++) {
        if (myid == 0) {
            n = round == 0 ? 100 : round == 1 ? 10000 : 1000000;
            t0 = MPI_Wtime();
        }
        MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD);
        h = 1.0 / (double)n;
        sum = 0.0;
        for (i = myid + 1; i <= n; i += numprocs) {
            x = h * ((double)i - 0.5);
            sum += 4.0 / (1.0 + x * x);
        }
        mypi = h * sum;
        MPI_Reduce(&mypi, &pi, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (myid == 0) {
            double err = fabs(pi - PI25DT);
            printf("n = %d: pi is approximately %.16f, error %.16f, %.6f s\n", n, pi, err,
                   MPI_Wtime() - t0);
            /* the midpoint rule's error is about 1/(12 n^2) times |f''| <= 8 */
            if (err > 1.0 / ((double)n * n)) {
                printf("FAILED: error too large\n");
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    }
    if (myid == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
