/* coll_lat.c — collective latency benchmark (standard MPI only, so the same source builds with
 * sctpmpi, Open MPI and MPICH): MPI_Allreduce (MPI_INT, MPI_SUM), MPI_Alltoall (size bytes per
 * peer) and MPI_Bcast (root 0) by message size.  Per op and size: one fully checked call, then
 * R repetitions of a timed loop of `iters` calls (each call's first and last element carry an
 * iteration marker that is checked); a repetition's latency is the slowest rank's mean time per
 * call; the reported number is the median over the repetitions.  Any wrong data aborts.
 *
 * Usage: coll_lat [--sizes 8,1K,1M] [--ops allreduce,alltoall,bcast] [--reps R] [--iters N]
 *                 [--csv]   (csv: coll,op,size_bytes,iters,latency_us) */
#include "../common/bench.h"

static int me, np;

#define DIE(...)                                                                                 \
    do {                                                                                         \
        fprintf(stderr, "coll_lat rank %d: ", me);                                              \
        fprintf(stderr, __VA_ARGS__);                                                            \
        fprintf(stderr, "\n");                                                                   \
        MPI_Abort(MPI_COMM_WORLD, 2);                                                            \
    } while (0)

/* element i of rank r's contribution in iteration it (it < 0: the fully checked call) */
static int val(int r, long i, int it) { return (int)((r * 7919L + i * 31L + it * 3L) % 100003L); }

enum { ALLREDUCE, ALLTOALL, BCAST };
static const char *op_name[] = {"allreduce", "alltoall", "bcast"};

/* one call of op with n ints per block; marker = it; full: fill and check everything */
static void one_call(int op, int *sb, int *rb, long n, int it, int full)
{
    switch (op) {
    case ALLREDUCE:
        if (full)
            for (long i = 0; i < n; i++)
                sb[i] = val(me, i, it);
        else
            sb[0] = val(me, 0, it), sb[n - 1] = val(me, n - 1, it);
        MPI_Allreduce(sb, rb, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        for (long i = 0; i < n; i = (full || i == n - 1) ? i + 1 : n - 1) {
            long want = 0;
            for (int r = 0; r < np; r++)
                want += val(r, i, it);
            if (rb[i] != (int)want)
                DIE("allreduce n=%ld it=%d: [%ld] = %d, want %ld", n, it, i, rb[i], want);
        }
        break;
    case ALLTOALL:
        for (int d = 0; d < np; d++) {
            int *blk = sb + (long)d * n;
            if (full)
                for (long i = 0; i < n; i++)
                    blk[i] = val(me * np + d, i, it);
            else
                blk[0] = val(me * np + d, 0, it), blk[n - 1] = val(me * np + d, n - 1, it);
        }
        MPI_Alltoall(sb, (int)n, MPI_INT, rb, (int)n, MPI_INT, MPI_COMM_WORLD);
        for (int s = 0; s < np; s++) {
            int *blk = rb + (long)s * n;
            for (long i = 0; i < n; i = (full || i == n - 1) ? i + 1 : n - 1)
                if (blk[i] != val(s * np + me, i, it))
                    DIE("alltoall n=%ld it=%d from %d: [%ld] = %d, want %d", n, it, s, i, blk[i],
                        val(s * np + me, i, it));
        }
        break;
    case BCAST:
        if (me == 0) {
            if (full)
                for (long i = 0; i < n; i++)
                    rb[i] = val(0, i, it);
            else
                rb[0] = val(0, 0, it), rb[n - 1] = val(0, n - 1, it);
        } else {
            rb[0] = rb[n - 1] = -1;
        }
        MPI_Bcast(rb, (int)n, MPI_INT, 0, MPI_COMM_WORLD);
        for (long i = 0; i < n; i = (full || i == n - 1) ? i + 1 : n - 1)
            if (rb[i] != val(0, i, it))
                DIE("bcast n=%ld it=%d: [%ld] = %d, want %d", n, it, i, rb[i], val(0, i, it));
        break;
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    const char *sizes = "8,64,512,4K,32K,256K,1M", *ops = "allreduce,alltoall,bcast";
    int reps = 5, iters = 0, csv = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc)
            sizes = argv[++i];
        else if (!strcmp(argv[i], "--ops") && i + 1 < argc)
            ops = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc)
            iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--csv"))
            csv = 1;
        else {
            if (me == 0)
                fprintf(stderr, "usage: coll_lat [--sizes 8,1K,1M] [--ops allreduce,alltoall,bcast] "
                                "[--reps R] [--iters N] [--csv]\n");
            MPI_Finalize();
            return !strcmp(argv[i], "--help") ? 0 : 1;
        }
    }
    if (reps < 1)
        reps = 1;
    if (me == 0 && !csv)
        printf("# coll_lat: %d ranks, median of %d repetitions (slowest rank's mean per call)\n"
               "# %-10s %10s %7s %12s\n", np, reps, "op", "bytes", "iters", "latency_us");
    double *rep_us = bench_alloc(sizeof(double) * (size_t)reps, me);
    char *opl = strdup(ops);
    for (char *os = strtok(opl, ","); os; os = strtok(NULL, ",")) {
        int op = -1;
        for (int k = 0; k < 3; k++)
            if (!strcmp(os, op_name[k]))
                op = k;
        if (op < 0)
            DIE("unknown op %s", os);
        char *szl = strdup(sizes), *save = NULL;
        for (char *ss = strtok_r(szl, ",", &save); ss; ss = strtok_r(NULL, ",", &save)) {
            long bytes = (long)bench_size(ss), n = bytes / (long)sizeof(int);
            if (n < 1)
                n = 1;
            long blocks = op == ALLTOALL ? np : 1;
            int *sb = bench_alloc(sizeof(int) * (size_t)(n * blocks), me);
            int *rb = bench_alloc(sizeof(int) * (size_t)(n * blocks), me);
            int it_n = iters > 0 ? iters : bytes <= 4096 ? 200 : bytes <= 65536 ? 50 : 10;
            one_call(op, sb, rb, n, -1, 1);
            for (int w = 0; w < (it_n > 10 ? 10 : 2); w++) /* warm-up */
                one_call(op, sb, rb, n, 1000000 + w, 0);
            for (int r = 0; r < reps; r++) {
                MPI_Barrier(MPI_COMM_WORLD);
                double t0 = MPI_Wtime();
                for (int it = 0; it < it_n; it++)
                    one_call(op, sb, rb, n, r * it_n + it, 0);
                double us = (MPI_Wtime() - t0) * 1e6 / it_n, worst;
                MPI_Allreduce(&us, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                rep_us[r] = worst;
            }
            one_call(op, sb, rb, n, -2, 1);
            qsort(rep_us, (size_t)reps, sizeof(double), bench_cmp_double);
            double med = reps % 2 ? rep_us[reps / 2] : (rep_us[reps / 2 - 1] + rep_us[reps / 2]) / 2;
            if (me == 0) {
                if (csv)
                    printf("coll,%s,%ld,%d,%.2f\n", op_name[op], n * (long)sizeof(int), it_n, med);
                else
                    printf("  %-10s %10ld %7d %12.2f\n", op_name[op], n * (long)sizeof(int), it_n, med);
                fflush(stdout);
            }
            free(sb);
            free(rb);
        }
        free(szl);
    }
    free(opl);
    free(rep_us);
    MPI_Finalize();
    return 0;
}
