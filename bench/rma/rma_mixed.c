/* rma_mixed.c — point-to-point and one-sided traffic at the same time.
 *
 * Ranks are paired (0-1, 2-3, ...); in each pair the even rank drives, the odd rank answers.
 * Three phases, each timed on the driver as the median of --reps repetitions:
 *   pp     --iters ping-pongs of --pp-size bytes (Send / Recv)
 *   rma    --iters rounds of --window Puts of --rma-size bytes into the partner's window, each
 *          round completed by MPI_Win_flush (inside one lock_all epoch)
 *   mixed  --iters rounds that start the round's Puts, do one ping-pong while they are in
 *          flight, then flush: both streams share the connection to the partner
 * Output: per pair "pair P: pp X s, rma Y s, mixed Z s, mixed/(pp+rma) R" and with --csv rows
 * "mixed,pair,pp_s,rma_s,mixed_s,ratio"; rank 0 also prints the median over pairs.  R < 1 means
 * the two streams overlap; with one ordered byte stream per peer a lost packet of the bulk RMA
 * stream also delays the ping-pong behind it (head-of-line blocking).  Data are checked: every
 * pong echoes its ping, the partner's window holds the last round's Puts at the end. */
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_, size_, iters = 200, window = 8, reps = 3, csv;
static size_t pp_size = 64, rma_size = 65536;

static void die(const char *m)
{
    fprintf(stderr, "rma_mixed: rank %d: %s\n", rank_, m);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--window") && i + 1 < argc) window = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--pp-size") && i + 1 < argc) pp_size = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--rma-size") && i + 1 < argc) rma_size = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--csv")) csv = 1;
        else {
            if (rank_ == 0)
                fprintf(stderr, "usage: rma_mixed [--iters N] [--window W] [--reps R] [--pp-size B] "
                                "[--rma-size B] [--csv]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (size_ < 2 || size_ % 2 || iters < 1 || window < 1 || reps < 1 || pp_size < 1) {
        if (rank_ == 0) fprintf(stderr, "rma_mixed: needs an even number of ranks and positive options\n");
        MPI_Finalize();
        return 2;
    }
    int driver = rank_ % 2 == 0, partner = driver ? rank_ + 1 : rank_ - 1;
    size_t wbytes = rma_size * (size_t)window;
    unsigned char *mem, *src = malloc(wbytes ? wbytes : 1), *ping = malloc(pp_size), *pong = malloc(pp_size);
    MPI_Win win;
    MPI_Win_allocate((MPI_Aint)(wbytes ? wbytes : 1), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    double *t[3];
    for (int p = 0; p < 3; p++) t[p] = calloc((size_t)reps, sizeof(double));
    if (driver) MPI_Win_lock_all(0, win);
    for (int r = 0; r < reps; r++)
        for (int phase = 0; phase < 3; phase++) {
            int do_pp = phase != 1, do_rma = phase != 0;
            MPI_Barrier(MPI_COMM_WORLD);
            double t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                unsigned char mark = (unsigned char)(i * 31 + r * 7 + phase);
                if (driver) {
                    if (do_rma) {
                        memset(src, mark, wbytes);
                        for (int w = 0; w < window; w++)
                            MPI_Put(src + (size_t)w * rma_size, (int)rma_size, MPI_BYTE, partner,
                                    (MPI_Aint)((size_t)w * rma_size), (int)rma_size, MPI_BYTE, win);
                    }
                    if (do_pp) {
                        memset(ping, mark, pp_size);
                        MPI_Send(ping, (int)pp_size, MPI_BYTE, partner, 1, MPI_COMM_WORLD);
                        MPI_Recv(pong, (int)pp_size, MPI_BYTE, partner, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                        if (pong[0] != mark || pong[pp_size - 1] != mark) die("pong does not echo the ping");
                    }
                    if (do_rma) MPI_Win_flush(partner, win);
                } else if (do_pp) {
                    MPI_Recv(ping, (int)pp_size, MPI_BYTE, partner, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(ping, (int)pp_size, MPI_BYTE, partner, 2, MPI_COMM_WORLD);
                }
            }
            t[phase][r] = MPI_Wtime() - t0;
            MPI_Barrier(MPI_COMM_WORLD);
            if (do_rma && !driver) {
                MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win);
                unsigned char last = (unsigned char)((iters - 1) * 31 + r * 7 + phase);
                if (wbytes && (mem[0] != last || mem[wbytes - 1] != last)) die("window does not hold the last Puts");
                MPI_Win_unlock(rank_, win);
            }
        }
    if (driver) MPI_Win_unlock_all(win);
    double m[4] = {0, 0, 0, 0};
    if (driver) {
        for (int p = 0; p < 3; p++) m[p] = median(t[p], reps);
        m[3] = m[2] / (m[0] + m[1]);
    }
    int npairs = size_ / 2;
    double *all = rank_ == 0 ? malloc(sizeof(double) * 4 * (size_t)size_) : NULL;
    MPI_Gather(m, 4, MPI_DOUBLE, all, 4, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    if (rank_ == 0) {
        double *ratio = malloc(sizeof(double) * (size_t)npairs);
        for (int p = 0; p < npairs; p++) {
            double *x = all + 8 * p;
            ratio[p] = x[3];
            if (csv) printf("mixed,%d,%.6f,%.6f,%.6f,%.4f\n", p, x[0], x[1], x[2], x[3]);
            else printf("pair %d: pp %.4f s, rma %.4f s, mixed %.4f s, mixed/(pp+rma) %.3f\n", p, x[0], x[1], x[2], x[3]);
        }
        printf("%s%.4f\n", csv ? "mixed_median_ratio," : "median over pairs of mixed/(pp+rma): ", median(ratio, npairs));
        free(ratio);
        free(all);
    }
    MPI_Win_free(&win);
    for (int p = 0; p < 3; p++) free(t[p]);
    free(src);
    free(ping);
    free(pong);
    MPI_Finalize();
    return 0;
}
