/* maronna.c - all-pairs robust correlation of a synthetic gene-expression matrix on the library
 * task farm (include/sctpmpi_farm.h), the application pattern of paper 001's Maronna farm.
 *
 * Data: G genes (rows) x S samples, generated deterministically from --seed on the manager: every
 * gene is a mix of 4 latent factors plus noise, and 5 % of the values are replaced by gross
 * outliers (so a robust estimate and Pearson's differ).  Each row is standardized robustly
 * (median, and MAD scaled by 1.4826) and the matrix is broadcast to the workers.
 *
 * Estimator (per pair of rows u, v): a bivariate M-estimate of scatter with Huber-type weights,
 * Maronna's estimator in its simplest form: start from the identity scatter, then --iters (5)
 * reweighting steps C <- sum w_i z_i z_i^T / sum w_i with z_i = (u_i, v_i), d_i^2 = z_i^T C^-1 z_i
 * and w_i = min(1, c^2 / d_i^2), c^2 = 5.991 (the 95 % point of chi-square with 2 degrees of
 * freedom); the correlation is C01 / sqrt(C00 C11).  A fixed number of steps keeps the result a
 * deterministic function of the data.
 *
 * Tasks: the upper triangle of blocks (bi <= bj) of --block B rows; a task's input is the pair of
 * block indices (8 bytes), its result the B x B correlations in doubles (B = 132: 139 KB, the
 * result size of the paper's farm).  The manager assembles the G x G matrix.
 * Options: --genes G (4224) --samples S (40) --block B (132) --seed N (1) --iters I (5) --k K (2)
 * --overtake (results in any order: mpi_assert_allow_overtaking) --check (compare every value
 * with a serial computation on the manager, bit for bit; on by default when G <= 1000).
 * Output (rank 0): "maronna,genes,samples,block,tasks,k,workers,seconds,result_bytes,check" and,
 * when checked and equal, " No Errors".  Standard MPI only. */
#include <mpi.h>
#include <sctpmpi_farm.h>

#include "../common/bench.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct app {
    int G, S, B, nb, iters;
    double *x;   /* G x S, robustly standardized */
    double *cor; /* manager: G x G */
    long *task_bi, *task_bj;
};

static double urand(uint64_t *s) /* splitmix64 -> [0, 1) */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0;
}

static double nrand(uint64_t *s) /* Box-Muller */
{
    double a = urand(s), b = urand(s);
    return sqrt(-2.0 * log(a + 1e-300)) * cos(6.283185307179586 * b);
}

static double median(double *v, int n) /* sorts v */
{
    qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static void generate(struct app *a, uint64_t seed)
{
    enum { F = 4 };
    double fac[F][512], *tmp = malloc(sizeof(double) * (size_t)a->S);
    uint64_t s = seed;
    for (int f = 0; f < F; f++)
        for (int j = 0; j < a->S; j++)
            fac[f][j] = nrand(&s);
    for (int g = 0; g < a->G; g++) {
        double *r = a->x + (size_t)g * (size_t)a->S, load[F];
        for (int f = 0; f < F; f++)
            load[f] = nrand(&s);
        for (int j = 0; j < a->S; j++) {
            double v = 0.5 * nrand(&s);
            for (int f = 0; f < F; f++)
                v += load[f] * fac[f][j];
            if (urand(&s) < 0.05)
                v += (urand(&s) < 0.5 ? -1 : 1) * (10 + 20 * urand(&s)); /* gross outlier */
            r[j] = v;
        }
        memcpy(tmp, r, sizeof(double) * (size_t)a->S);
        double med = median(tmp, a->S);
        for (int j = 0; j < a->S; j++)
            tmp[j] = fabs(r[j] - med);
        double mad = 1.4826 * median(tmp, a->S);
        if (mad <= 0)
            mad = 1;
        for (int j = 0; j < a->S; j++)
            r[j] = (r[j] - med) / mad;
    }
    free(tmp);
}

/* The bivariate Huber-type M-estimate of correlation of rows u and v (see the top comment). */
static double robust_cor(const double *u, const double *v, int S, int iters)
{
    const double c2 = 5.991;
    double c00 = 1, c01 = 0, c11 = 1;
    for (int it = 0; it < iters; it++) {
        double det = c00 * c11 - c01 * c01;
        if (!(det > 1e-300))
            break;
        double i00 = c11 / det, i01 = -c01 / det, i11 = c00 / det;
        double s00 = 0, s01 = 0, s11 = 0, sw = 0;
        for (int i = 0; i < S; i++) {
            double d2 = u[i] * u[i] * i00 + 2 * u[i] * v[i] * i01 + v[i] * v[i] * i11;
            double w = d2 > c2 ? c2 / d2 : 1.0;
            s00 += w * u[i] * u[i];
            s01 += w * u[i] * v[i];
            s11 += w * v[i] * v[i];
            sw += w;
        }
        c00 = s00 / sw;
        c01 = s01 / sw;
        c11 = s11 / sw;
    }
    return c01 / sqrt(c00 * c11);
}

/* Correlations of block bi x block bj (bi <= bj) into out[B * B]: pair (gi, gj) with gi <= gj
 * (u = row gi, v = row gj); the lower half of a diagonal block and rows past G are 0. */
static void block_cor(const struct app *a, int bi, int bj, double *out)
{
    for (int i = 0; i < a->B; i++)
        for (int j = 0; j < a->B; j++) {
            int gi = bi * a->B + i, gj = bj * a->B + j;
            out[i * a->B + j] = gi < a->G && gj < a->G && gi <= gj
                                    ? robust_cor(a->x + (size_t)gi * (size_t)a->S,
                                                 a->x + (size_t)gj * (size_t)a->S, a->S, a->iters)
                                    : 0.0;
        }
}

static int task_fn(long t, void *buf, int *len, void *ctx)
{
    struct app *a = ctx;
    int32_t p[2] = {(int32_t)a->task_bi[t], (int32_t)a->task_bj[t]};
    memcpy(buf, p, sizeof p);
    *len = (int)sizeof p;
    return MPI_SUCCESS;
}

static int work_fn(int tag, const void *in, int n, void *out, int *out_len, void *ctx)
{
    struct app *a = ctx;
    int32_t p[2];
    (void)tag;
    if (n != (int)sizeof p)
        return MPI_ERR_COUNT;
    memcpy(p, in, sizeof p);
    if (p[0] < 0 || p[1] < p[0] || p[1] >= a->nb)
        return MPI_ERR_ARG;
    block_cor(a, p[0], p[1], out);
    *out_len = (int)(sizeof(double) * (size_t)a->B * (size_t)a->B);
    return MPI_SUCCESS;
}

static int result_fn(long t, const void *res, int len, int worker, void *ctx)
{
    struct app *a = ctx;
    const double *r = res;
    (void)worker;
    if (len != (int)(sizeof(double) * (size_t)a->B * (size_t)a->B))
        return MPI_ERR_COUNT;
    int bi = (int)a->task_bi[t], bj = (int)a->task_bj[t];
    for (int i = 0; i < a->B; i++)
        for (int j = 0; j < a->B; j++) {
            int gi = bi * a->B + i, gj = bj * a->B + j;
            if (gi < a->G && gj < a->G && gi <= gj) {
                a->cor[(size_t)gi * (size_t)a->G + (size_t)gj] = r[i * a->B + j];
                a->cor[(size_t)gj * (size_t)a->G + (size_t)gi] = r[i * a->B + j];
            }
        }
    return MPI_SUCCESS;
}

static long arg_long(const char *s)
{
    char *e;
    long v = strtol(s, &e, 10);
    return *e || e == s ? -1 : v;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    struct app a;
    memset(&a, 0, sizeof a);
    long G = 4224, S = 40, B = 132, seed = 1, iters = 5, k = 2;
    int check = -1, overtake = 0, bad = 0;
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--check")) {
            check = 1;
            continue;
        }
        if (!strcmp(o, "--overtake")) {
            overtake = 1;
            continue;
        }
        long *d = !strcmp(o, "--genes") ? &G : !strcmp(o, "--samples") ? &S : !strcmp(o, "--block") ? &B
                  : !strcmp(o, "--seed") ? &seed : !strcmp(o, "--iters") ? &iters : !strcmp(o, "--k") ? &k : NULL;
        if (!d || i + 1 >= argc || (*d = arg_long(argv[++i])) < 0)
            bad = 1;
    }
    if (bad || G < 1 || G > 100000 || S < 2 || S > 512 || B < 1 || B > 2000 || iters > 1000 || k < 1) {
        if (rank == 0)
            fprintf(stderr, "usage: maronna [--genes G<=100000] [--samples 2<=S<=512] [--block B<=2000] "
                            "[--seed N] [--iters I] [--k K] [--overtake] [--check]\n");
        MPI_Finalize();
        return 2;
    }
    if (check < 0)
        check = G <= 1000;
    a.G = (int)G;
    a.S = (int)S;
    a.B = (int)B;
    a.iters = (int)iters;
    a.nb = (a.G + a.B - 1) / a.B;
    a.x = malloc(sizeof(double) * (size_t)a.G * (size_t)a.S);
    long ntasks = (long)a.nb * (a.nb + 1) / 2;
    if (!a.x) {
        fprintf(stderr, "maronna: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    if (rank == 0) {
        generate(&a, (uint64_t)seed);
        a.cor = malloc(sizeof(double) * (size_t)a.G * (size_t)a.G);
        a.task_bi = malloc(sizeof(long) * (size_t)ntasks);
        a.task_bj = malloc(sizeof(long) * (size_t)ntasks);
        if (!a.cor || !a.task_bi || !a.task_bj) {
            fprintf(stderr, "maronna: out of memory\n");
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
        long t = 0;
        for (int bi = 0; bi < a.nb; bi++)
            for (int bj = bi; bj < a.nb; bj++) {
                a.task_bi[t] = bi;
                a.task_bj[t++] = bj;
            }
    }
    MPI_Bcast(a.x, a.G * a.S, MPI_DOUBLE, 0, MPI_COMM_WORLD);

    sctpmpi_farm_config c;
    sctpmpi_farm_config_init(&c);
    c.k = (int)k;
    c.max_task_bytes = 8;
    c.max_result_bytes = (int)(sizeof(double) * (size_t)a.B * (size_t)a.B);
    c.allow_overtaking = overtake;
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = sctpmpi_farm_run(MPI_COMM_WORLD, &c, ntasks, task_fn, work_fn, result_fn, &a, NULL);
    double el = MPI_Wtime() - t0;
    int ok = rc == MPI_SUCCESS;
    if (!ok)
        fprintf(stderr, "[rank %d] maronna: the farm returned error %d\n", rank, rc);
    if (rank == 0 && ok && check) {
        /* the serial computation, pair by pair, must give the same doubles */
        long diff = 0;
        for (int i = 0; i < a.G; i++)
            for (int j = i; j < a.G; j++) {
                double r = robust_cor(a.x + (size_t)i * (size_t)a.S, a.x + (size_t)j * (size_t)a.S, a.S, a.iters);
                long d0 = diff;
                diff += memcmp(&r, &a.cor[(size_t)i * (size_t)a.G + (size_t)j], sizeof r) != 0 ||
                        memcmp(&r, &a.cor[(size_t)j * (size_t)a.G + (size_t)i], sizeof r) != 0 ||
                        !(r >= -1.0000001 && r <= 1.0000001) || (i == j && fabs(r - 1) > 1e-9);
                if (diff > d0 && diff <= 3)
                    fprintf(stderr, "maronna: pair %d %d: serial %.17g, farm %.17g\n", i, j, r,
                            a.cor[(size_t)i * (size_t)a.G + (size_t)j]);
            }
        if (diff) {
            fprintf(stderr, "maronna: %ld pairs differ from the serial computation\n", diff);
            ok = 0;
        }
    }
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("maronna,genes,samples,block,tasks,k,workers,seconds,result_bytes,check\n");
        printf("maronna,%d,%d,%d,%ld,%ld,%d,%.4f,%d,%s\n", a.G, a.S, a.B, ntasks, k, np - 1, el,
               c.max_result_bytes, !all ? "FAIL" : check ? "OK" : "unchecked");
        if (all && check)
            printf(" No Errors\n");
        fflush(stdout);
    }
    free(a.x);
    free(a.cor);
    free(a.task_bi);
    free(a.task_bj);
    MPI_Finalize();
    return all ? 0 : 1;
}
