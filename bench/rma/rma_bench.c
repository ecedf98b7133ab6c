/* rma_bench.c — one-sided latency and bandwidth between ranks 0 (origin) and 1 (target).
 *
 * Tests (value = median over --reps timed repetitions of one run):
 *   put_lat_lock / get_lat_lock    µs per Put (Get) + MPI_Win_flush inside one lock epoch
 *   put_lat_fence / get_lat_fence  µs per Put (Get) + MPI_Win_fence on both ranks
 *   put_bw_lock / get_bw_lock      MB/s: windows of --window Puts (Gets), then MPI_Win_flush
 *   put_bw_fence                   MB/s: windows of --window Puts, then MPI_Win_fence
 *   acc_lat                        µs per Accumulate(MPI_SUM, doubles) + flush
 *   fop_lat / cas_lat              µs per Fetch_and_op(SUM, int) / Compare_and_swap(int) + flush
 * Every test checks what arrived (the target's memory after Puts and Accumulates, the origin's
 * buffer after Gets and fetches); a mismatch aborts with a non-zero exit.  Standard MPI only, so
 * the same source builds with any mpicc.  Ranks >= 2 only join the collective calls.
 * Options: --sizes LIST (bytes, default 8,64,512,4096,32768,262144,1048576) --reps R (5)
 *          --window W (16) --tests LIST (all) --csv (rows "rma,test,size,iters,value") */
#include <mpi.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_, size_, reps = 5, window = 16, csv;
static unsigned char *mem, *buf;
static MPI_Win win;
static size_t maxsz;

static void die(const char *what, size_t sz)
{
    fprintf(stderr, "rma_bench: rank %d: %s (size %zu)\n", rank_, what, sz);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static int iters_for(size_t sz, int lat) { return sz <= 4096 ? (lat ? 300 : 50) : sz <= 65536 ? (lat ? 200 : 20) : (lat ? 20 : 4); }

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void report(const char *test, size_t sz, int iters, double *v)
{
    qsort(v, (size_t)reps, sizeof *v, cmp_d);
    double med = reps % 2 ? v[reps / 2] : (v[reps / 2 - 1] + v[reps / 2]) / 2;
    if (rank_ != 0) return;
    if (csv) printf("rma,%s,%zu,%d,%.3f\n", test, sz, iters, med);
    else printf("%-14s %9zu B %7d iters  %12.3f %s\n", test, sz, iters, med, strstr(test, "bw") ? "MB/s" : "us");
    fflush(stdout);
}

/* target memory marker check after a put-type test */
static void check_target(size_t sz, unsigned char want)
{
    if (rank_ == 1 && sz > 0 && (mem[0] != want || mem[sz - 1] != want)) die("target data mismatch", sz);
}

static void lat_test(const char *test, size_t sz)
{
    int get = test[0] == 'g', fence = strstr(test, "fence") != NULL;
    int iters = iters_for(sz, 1);
    double *v = calloc((size_t)reps, sizeof *v);
    for (int r = 0; r < reps; r++) {
        unsigned char mark = (unsigned char)(r * 7 + 3);
        if (rank_ == 1) memset(mem, get ? mark : 0, sz);
        if (rank_ == 0) memset(buf, get ? 0 : mark, sz);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0;
        if (fence) {
            MPI_Win_fence(0, win);
            t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                if (rank_ == 0) {
                    if (get) MPI_Get(buf, (int)sz, MPI_BYTE, 1, 0, (int)sz, MPI_BYTE, win);
                    else MPI_Put(buf, (int)sz, MPI_BYTE, 1, 0, (int)sz, MPI_BYTE, win);
                }
                MPI_Win_fence(0, win);
            }
        } else if (rank_ == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                if (get) MPI_Get(buf, (int)sz, MPI_BYTE, 1, 0, (int)sz, MPI_BYTE, win);
                else MPI_Put(buf, (int)sz, MPI_BYTE, 1, 0, (int)sz, MPI_BYTE, win);
                MPI_Win_flush(1, win);
            }
        }
        double t = MPI_Wtime() - t0;
        if (!fence && rank_ == 0) MPI_Win_unlock(1, win);
        v[r] = 1e6 * t / iters;
        MPI_Barrier(MPI_COMM_WORLD);
        if (get && rank_ == 0 && sz > 0 && (buf[0] != mark || buf[sz - 1] != mark)) die("Get data mismatch", sz);
        if (!get) check_target(sz, mark);
    }
    report(test, sz, iters, v);
    free(v);
}

static void bw_test(const char *test, size_t sz)
{
    int get = test[0] == 'g', fence = strstr(test, "fence") != NULL;
    int iters = iters_for(sz, 0);
    double *v = calloc((size_t)reps, sizeof *v);
    for (int r = 0; r < reps; r++) {
        unsigned char mark = (unsigned char)(r * 5 + 1);
        if (rank_ == 1) memset(mem, get ? mark : 0, sz * (size_t)window);
        if (rank_ == 0) memset(buf, get ? 0 : mark, sz * (size_t)window);
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0;
        if (fence) MPI_Win_fence(0, win);
        else if (rank_ == 0) MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        t0 = MPI_Wtime();
        for (int i = 0; i < iters; i++) {
            if (rank_ == 0)
                for (int w = 0; w < window; w++) {
                    size_t off = (size_t)w * sz;
                    if (get) MPI_Get(buf + off, (int)sz, MPI_BYTE, 1, (MPI_Aint)off, (int)sz, MPI_BYTE, win);
                    else MPI_Put(buf + off, (int)sz, MPI_BYTE, 1, (MPI_Aint)off, (int)sz, MPI_BYTE, win);
                }
            if (fence) MPI_Win_fence(0, win);
            else if (rank_ == 0) MPI_Win_flush(1, win);
        }
        double t = MPI_Wtime() - t0;
        if (!fence && rank_ == 0) MPI_Win_unlock(1, win);
        v[r] = (double)sz * window * iters / t / 1e6;
        MPI_Barrier(MPI_COMM_WORLD);
        size_t last = sz * (size_t)window - 1;
        if (get && rank_ == 0 && sz > 0 && (buf[0] != mark || buf[last] != mark)) die("Get data mismatch", sz);
        if (!get && rank_ == 1 && sz > 0 && (mem[0] != mark || mem[last] != mark)) die("target data mismatch", sz);
    }
    report(test, sz, iters, v);
    free(v);
}

static void atomic_test(const char *test, size_t sz)
{
    int acc = test[0] == 'a', cas = test[0] == 'c';
    if (!acc) sz = 8;
    int n = (int)(sz / 8), iters = iters_for(sz, 1);
    double *v = calloc((size_t)reps, sizeof *v);
    for (int r = 0; r < reps; r++) {
        if (rank_ == 1) memset(mem, 0, sz);
        double *d = (double *)buf;
        for (int k = 0; k < n; k++) d[k] = 1.0;
        int one = 1, res = 0, cmpv = 0, nv = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = 0, t = 0;
        if (rank_ == 0) {
            MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
            t0 = MPI_Wtime();
            for (int i = 0; i < iters; i++) {
                if (acc) MPI_Accumulate(buf, n, MPI_DOUBLE, 1, 0, n, MPI_DOUBLE, MPI_SUM, win);
                else if (cas) {
                    nv = cmpv + 1;
                    MPI_Compare_and_swap(&nv, &cmpv, &res, MPI_INT, 1, 0, win);
                } else MPI_Fetch_and_op(&one, &res, MPI_INT, 1, 0, MPI_SUM, win);
                MPI_Win_flush(1, win);
                if (!acc && res != i) die("fetched value mismatch", sz);
                if (cas) cmpv = nv;
            }
            t = MPI_Wtime() - t0;
            MPI_Win_unlock(1, win);
        }
        v[r] = 1e6 * t / iters;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank_ == 1) {
            if (acc && ((double *)mem)[0] != iters) die("Accumulate result mismatch", sz);
            if (!acc && *(int *)mem != iters) die("counter mismatch", sz);
        }
    }
    report(test, sz, iters, v);
    free(v);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const char *sizes = "8,64,512,4096,32768,262144,1048576";
    const char *tests = "put_lat_lock,get_lat_lock,put_lat_fence,get_lat_fence,put_bw_lock,get_bw_lock,"
                        "put_bw_fence,acc_lat,fop_lat,cas_lat";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--sizes") && i + 1 < argc) sizes = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc) reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--window") && i + 1 < argc) window = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--tests") && i + 1 < argc) tests = argv[++i];
        else if (!strcmp(argv[i], "--csv")) csv = 1;
        else {
            if (rank_ == 0) fprintf(stderr, "usage: rma_bench [--sizes LIST] [--reps R] [--window W] [--tests LIST] [--csv]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (size_ < 2 || reps < 1 || window < 1) {
        if (rank_ == 0) fprintf(stderr, "rma_bench: needs 2 ranks, reps >= 1, window >= 1\n");
        MPI_Finalize();
        return 2;
    }
    size_t szv[64];
    int nsz = 0;
    char *sl = strdup(sizes);
    for (char *tok = strtok(sl, ","); tok && nsz < 64; tok = strtok(NULL, ",")) {
        szv[nsz] = strtoull(tok, NULL, 10);
        if (szv[nsz] > maxsz) maxsz = szv[nsz];
        nsz++;
    }
    size_t bytes = (maxsz < 8 ? 8 : maxsz) * (size_t)window;
    buf = malloc(bytes);
    MPI_Win_allocate((MPI_Aint)bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win);
    char *tl = strdup(tests), *save = NULL;
    for (char *t = strtok_r(tl, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int atomic = !strcmp(t, "acc_lat") || !strcmp(t, "fop_lat") || !strcmp(t, "cas_lat");
        for (int k = 0; k < nsz; k++) {
            size_t sz = szv[k];
            if (atomic && strcmp(t, "acc_lat") && k > 0) break; /* fop/cas: one 8-byte size */
            if (atomic && sz < 8) continue;
            if (!strcmp(t, "acc_lat") && sz > 65536) continue;
            if (strstr(t, "_lat_")) lat_test(t, sz);
            else if (strstr(t, "_bw_")) bw_test(t, sz);
            else if (atomic) atomic_test(t, sz);
            else {
                if (rank_ == 0) fprintf(stderr, "rma_bench: unknown test %s\n", t);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
        }
    }
    MPI_Win_free(&win);
    free(buf);
    free(sl);
    free(tl);
    MPI_Finalize();
    return 0;
}
