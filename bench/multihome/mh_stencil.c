/* mh_stencil.c — compute + communicate application of multihoming experiment (d) (thesis Table 6.2
 * ran NAS benchmarks): 2-D Jacobi relaxation of Laplace's equation on a (np * ROWS) x COLS grid
 * split into row blocks, one per rank; every iteration one sweep over the block and a halo
 * exchange of one row with each neighbour (MPI_Sendrecv), every REDUCE iterations an
 * MPI_Allreduce of the residual.  Fixed work (ITERS iterations), so a network failure shows as
 * extra run time.  Per iteration the slowest rank's time is kept (rank 0 learns it with the
 * residual reductions), so the longest iteration shows the stall itself.
 *
 * Rank 0 prints one line:
 *   stencil,np,rows,cols,iters,seconds,median_iter_ms,longest_iter_ms,longest_at_s,checksum,t0_epoch
 * seconds = wall time of the iterations (after a barrier); longest_at_s = when the longest
 * iteration began, since that barrier; checksum = sum of the final grid, added up in rank
 * order (identical bits for every transport and run with the same arguments: the result check);
 * t0_epoch = that barrier's time on the system clock (CLOCK_REALTIME, s), so that a script can
 * place a network event it caused among the iterations.  --trace FILE: rank 0 also writes one
 * line per iteration, "start_s slowest_rank_ms" (start since the barrier).
 *
 *   mh_stencil [--rows R (256)] [--cols C (4096)] [--iters N (2000)] [--reduce K (10)]
 *              [--trace FILE]
 * Standard MPI only (the same source builds with Open MPI and MPICH). */
#include <mpi.h>

#include "../common/bench.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double boundary(long gi, long j, long grows, long cols) /* fixed edge values */
{
    if (gi == 0)
        return 1.0 + 0.001 * (double)j;
    if (gi == grows + 1)
        return -0.5;
    if (j == 0)
        return 0.25;
    if (j == cols + 1)
        return 2.0 - 1e-4 * (double)gi;
    return 0.0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int me, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    long rows = 256, cols = 4096, iters = 2000, reduce = 10;
    const char *trace = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--trace") && i + 1 < argc) {
            trace = argv[++i];
            continue;
        }
        long *dst = !strcmp(argv[i], "--rows") ? &rows : !strcmp(argv[i], "--cols") ? &cols
                  : !strcmp(argv[i], "--iters") ? &iters : !strcmp(argv[i], "--reduce") ? &reduce : NULL;
        if (!dst || i + 1 >= argc || (*dst = atol(argv[++i])) <= 0) {
            if (me == 0)
                fprintf(stderr, "usage: mh_stencil [--rows R] [--cols C] [--iters N] [--reduce K] "
                                "(all > 0) [--trace FILE]\n");
            MPI_Finalize();
            return 2;
        }
    }
    long w = cols + 2, grows = rows * np;
    double *a = calloc((size_t)((rows + 2) * w), sizeof *a), *b = calloc((size_t)((rows + 2) * w), sizeof *b);
    double *iter_ms = calloc((size_t)iters, sizeof *iter_ms), *sorted = calloc((size_t)iters, sizeof *sorted);
    double *slot = calloc((size_t)reduce + 1, sizeof *slot), *slot_max = calloc((size_t)reduce + 1, sizeof *slot_max);
    double *iter_t0 = calloc((size_t)iters, sizeof *iter_t0);
    if (!a || !b || !iter_ms || !sorted || !slot || !slot_max || !iter_t0) {
        fprintf(stderr, "mh_stencil rank %d: out of memory\n", me);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    for (long i = 0; i < rows + 2; i++) /* local row i is global row me * rows + i */
        for (long j = 0; j < w; j++)
            a[i * w + j] = b[i * w + j] = boundary(me * rows + i, j, grows, cols);
    int up = me > 0 ? me - 1 : MPI_PROC_NULL, down = me < np - 1 ? me + 1 : MPI_PROC_NULL;
    /* warm-up: connections are set up at the first message, which must not count as a stall */
    for (int k = 0; k < 3; k++) {
        MPI_Sendrecv(a + w, (int)w, MPI_DOUBLE, up, 3, b + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 3,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(a + rows * w, (int)w, MPI_DOUBLE, down, 4, b, (int)w, MPI_DOUBLE, up, 4,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), resid = 0;
    struct timespec t0_wall;
    clock_gettime(CLOCK_REALTIME, &t0_wall);
    long nslot = 0;
    for (long it = 0; it < iters; it++) {
        double ts = MPI_Wtime();
        iter_t0[it] = ts - t0;
        /* halos: my first interior row up, my last down */
        MPI_Sendrecv(a + w, (int)w, MPI_DOUBLE, up, 1, a + (rows + 1) * w, (int)w, MPI_DOUBLE, down, 1,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Sendrecv(a + rows * w, (int)w, MPI_DOUBLE, down, 2, a, (int)w, MPI_DOUBLE, up, 2,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double local = 0;
        for (long i = 1; i <= rows; i++) {
            long gi = me * rows + i;
            if (gi < 1 || gi > grows)
                continue;
            for (long j = 1; j <= cols; j++) {
                double v = 0.25 * (a[(i - 1) * w + j] + a[(i + 1) * w + j] + a[i * w + j - 1] + a[i * w + j + 1]);
                double d = v - a[i * w + j];
                local += d * d;
                b[i * w + j] = v;
            }
        }
        double *t = a;
        a = b;
        b = t;
        slot[nslot++] = (MPI_Wtime() - ts) * 1e3;
        if (nslot == reduce || it == iters - 1) {
            /* the residual and the per-iteration times of this stretch in one reduction */
            MPI_Allreduce(&local, &resid, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
            MPI_Allreduce(slot, slot_max, (int)nslot, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
            for (long k = 0; k < nslot; k++)
                iter_ms[it - nslot + 1 + k] = slot_max[k];
            /* the reduction's own time belongs to the stretch's last iteration */
            iter_ms[it] += (MPI_Wtime() - ts) * 1e3 - slot[nslot - 1];
            nslot = 0;
        }
    }
    double secs = MPI_Wtime() - t0;
    double mine = 0;
    for (long i = 1; i <= rows; i++)
        for (long j = 1; j <= cols; j++)
            mine += a[i * w + j];
    double *sums = me == 0 ? calloc((size_t)np, sizeof *sums) : NULL;
    MPI_Gather(&mine, 1, MPI_DOUBLE, sums, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (me == 0) {
        double checksum = 0;
        for (int r = 0; r < np; r++)
            checksum += sums[r];
        long lk = 0;
        for (long k = 0; k < iters; k++) {
            sorted[k] = iter_ms[k];
            if (iter_ms[k] > iter_ms[lk])
                lk = k;
        }
        qsort(sorted, (size_t)iters, sizeof *sorted, bench_cmp_double);
        printf("stencil,%d,%ld,%ld,%ld,%.4f,%.3f,%.3f,%.3f,%.17g,%.6f\n", np, rows, cols, iters, secs,
               sorted[iters / 2], iter_ms[lk], iter_t0[lk], checksum,
               (double)t0_wall.tv_sec + t0_wall.tv_nsec * 1e-9);
        FILE *tf = trace ? fopen(trace, "w") : NULL;
        if (trace && !tf)
            fprintf(stderr, "mh_stencil: cannot write %s\n", trace);
        for (long k = 0; tf && k < iters; k++)
            fprintf(tf, "%.4f %.3f\n", iter_t0[k], iter_ms[k]);
        if (tf)
            fclose(tf);
        printf("# residual %.6g after %ld iterations\n No Errors\n", resid, iters);
        free(sums);
    }
    free(a);
    free(b);
    free(iter_ms);
    free(sorted);
    free(slot);
    free(slot_max);
    free(iter_t0);
    MPI_Finalize();
    return 0;
}
