/* app_jacobi.c — application test: 2-D Jacobi relaxation of Laplace's equation on a G x G
 * grid with fixed boundary values, decomposed over a Cart_create process grid (Dims_create),
 * halos exchanged with Cart_shift neighbours (Sendrecv for rows, Isend/Irecv of a vector type
 * for columns), the residual summed with Allreduce.  Rank 0 repeats the computation serially
 * on the whole grid and the gathered result and every residual must match. */
#include <math.h>

#include "../common/mpi_test.h"

#define G 30      /* interior points per side */
#define ITERS 60

static double boundary(int i, int j) /* global coordinates 0..G+1 */
{
    if (i == 0)
        return 1.0 + 0.01 * j;
    if (j == 0)
        return 0.5;
    if (i == G + 1)
        return -0.25 * j / (G + 1);
    if (j == G + 1)
        return 2.0;
    return 0.0;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2];
    MPI_Dims_create(size_, 2, dims);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int me;
    MPI_Comm_rank(cart, &me);
    MPI_Cart_coords(cart, me, 2, coords);
    int up, down, left, right;
    MPI_Cart_shift(cart, 0, 1, &up, &down);
    MPI_Cart_shift(cart, 1, 1, &left, &right);
    /* my block of interior rows [r0, r0 + nr) and columns [c0, c0 + nc), 1-based global */
    int nr = G / dims[0] + (coords[0] < G % dims[0]), nc = G / dims[1] + (coords[1] < G % dims[1]);
    int r0 = 1 + coords[0] * (G / dims[0]) + (coords[0] < G % dims[0] ? coords[0] : G % dims[0]);
    int c0 = 1 + coords[1] * (G / dims[1]) + (coords[1] < G % dims[1] ? coords[1] : G % dims[1]);
    int W = nc + 2;
    double *u = xmalloc(sizeof(double) * (size_t)(nr + 2) * (size_t)W);
    double *v = xmalloc(sizeof(double) * (size_t)(nr + 2) * (size_t)W);
#define U(a, i, j) (a)[(size_t)(i) * (size_t)W + (size_t)(j)]
    for (int i = 0; i < nr + 2; i++)
        for (int j = 0; j < W; j++)
            U(u, i, j) = U(v, i, j) = boundary(r0 - 1 + i, c0 - 1 + j);
    MPI_Datatype col;
    MPI_Type_vector(nr, 1, W, MPI_DOUBLE, &col);
    MPI_Type_commit(&col);
    double res[ITERS];
    for (int it = 0; it < ITERS; it++) {
        /* rows: Sendrecv (PROC_NULL at the physical boundary keeps the fixed values) */
        MPI_Sendrecv(&U(u, 1, 1), nc, MPI_DOUBLE, up, 1, &U(u, nr + 1, 1), nc, MPI_DOUBLE,
                     down, 1, cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&U(u, nr, 1), nc, MPI_DOUBLE, down, 2, &U(u, 0, 1), nc, MPI_DOUBLE, up, 2,
                     cart, MPI_STATUS_IGNORE);
        /* columns: Isend/Irecv of a strided type */
        MPI_Request rq[4];
        MPI_Irecv(&U(u, 1, 0), 1, col, left, 3, cart, &rq[0]);
        MPI_Irecv(&U(u, 1, nc + 1), 1, col, right, 4, cart, &rq[1]);
        MPI_Isend(&U(u, 1, nc), 1, col, right, 3, cart, &rq[2]);
        MPI_Isend(&U(u, 1, 1), 1, col, left, 4, cart, &rq[3]);
        MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
        double local = 0;
        for (int i = 1; i <= nr; i++)
            for (int j = 1; j <= nc; j++) {
                U(v, i, j) = 0.25 * (U(u, i - 1, j) + U(u, i + 1, j) + U(u, i, j - 1) +
                                     U(u, i, j + 1));
                double d = U(v, i, j) - U(u, i, j);
                local += d * d;
            }
        MPI_Allreduce(&local, &res[it], 1, MPI_DOUBLE, MPI_SUM, cart);
        double *t = u;
        u = v;
        v = t;
    }
    /* gather the interiors on rank 0 (as packed blocks) and compare with a serial run */
    int info[4] = {r0, c0, nr, nc};
    int *infos = xmalloc(sizeof(int) * 4 * (size_t)size_);
    MPI_Gather(info, 4, MPI_INT, infos, 4, MPI_INT, 0, cart);
    double *mine = xmalloc(sizeof(double) * (size_t)(nr * nc));
    for (int i = 0; i < nr; i++)
        for (int j = 0; j < nc; j++)
            mine[i * nc + j] = U(u, i + 1, j + 1);
    int *cnt = xmalloc(sizeof(int) * (size_t)size_), *dis = xmalloc(sizeof(int) * (size_t)size_);
    int total = 0;
    if (me == 0)
        for (int k = 0; k < size_; k++) {
            cnt[k] = infos[4 * k + 2] * infos[4 * k + 3];
            dis[k] = total;
            total += cnt[k];
        }
    double *all = xmalloc(sizeof(double) * (size_t)(me == 0 ? total : 1));
    MPI_Gatherv(mine, nr * nc, MPI_DOUBLE, all, cnt, dis, MPI_DOUBLE, 0, cart);
    if (me == 0) {
        CHECK(total == G * G, "blocks cover %d points", total);
        int S = G + 2;
        double *a = xmalloc(sizeof(double) * (size_t)(S * S)), *b = xmalloc(sizeof(double) * (size_t)(S * S));
        for (int i = 0; i < S; i++)
            for (int j = 0; j < S; j++)
                a[i * S + j] = b[i * S + j] = boundary(i, j);
        for (int it = 0; it < ITERS; it++) {
            double r = 0;
            for (int i = 1; i <= G; i++)
                for (int j = 1; j <= G; j++) {
                    b[i * S + j] = 0.25 * (a[(i - 1) * S + j] + a[(i + 1) * S + j] +
                                           a[i * S + j - 1] + a[i * S + j + 1]);
                    double d = b[i * S + j] - a[i * S + j];
                    r += d * d;
                }
            CHECK(fabs(r - res[it]) <= 1e-12 * (1 + r), "residual %d: %g vs %g", it, res[it], r);
            double *t = a;
            a = b;
            b = t;
        }
        CHECK(res[ITERS - 1] < res[0], "residual does not decrease");
        for (int k = 0; k < size_; k++)
            for (int i = 0; i < infos[4 * k + 2]; i++)
                for (int j = 0; j < infos[4 * k + 3]; j++) {
                    double got = all[dis[k] + i * infos[4 * k + 3] + j];
                    double want = a[(infos[4 * k] + i) * S + infos[4 * k + 1] + j];
                    CHECK(got == want, "point (%d,%d) of rank %d: %g vs %g", i, j, k, got, want);
                }
        free(a);
        free(b);
    }
    free(all), free(cnt), free(dis), free(mine), free(infos), free(u), free(v);
    MPI_Type_free(&col);
    MPI_Comm_free(&cart);
    return finish();
}
