/* bench.h — the helpers every benchmark program shares (bench/p2p, bench/exp, bench/coll):
 * option parsing, data patterns and their checks, buffers, the farm messages, the synthetic
 * task, and the "settings" line.  Plain C11 + standard MPI, so the same sources build against
 * sctpmpi, Open MPI and MPICH (their drivers compile them with mpicc.openmpi / mpicc.mpich);
 * header-only (static functions), so each program stays one translation unit. */
#ifndef SCTPMPI_BENCH_H
#define SCTPMPI_BENCH_H

#include <mpi.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_SIZES 64

/* Options of the osu-style pingpong and bw (bench/p2p). */
struct bench_opts {
    size_t sizes[BENCH_MAX_SIZES]; /* message sizes in bytes, ascending as given */
    int nsizes;
    long iters;       /* timed iterations for sizes <= large_threshold */
    long skip;        /* warm-up iterations for sizes <= large_threshold */
    long iters_large; /* timed iterations for larger sizes */
    long skip_large;  /* warm-up iterations for larger sizes */
    size_t large_threshold;
    int window; /* bw only */
    int csv;
    int full_check; /* verify every byte of every message (slow; off by default) */
};

static inline void bench_die(int rank, const char *fmt, const char *arg)
{
    fprintf(stderr, "[rank %d] ", rank);
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 2);
    exit(2); /* not reached with a conforming MPI_Abort */
}

static inline int bench_parse_size(const char *s, size_t *out)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s)
        return -1;
    if (*end == 'k' || *end == 'K') {
        v *= 1024ULL;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        v *= 1024ULL * 1024ULL;
        end++;
    }
    if (*end != '\0' || v > (unsigned long long)(1U << 30))
        return -1;
    *out = (size_t)v;
    return 0;
}

static inline int bench_parse_long(const char *s, long *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < 0)
        return -1;
    *out = v;
    return 0;
}

/* Sizes 0 (if min is 0), then powers of two from max(min,1) to max. */
static inline void bench_default_sizes(struct bench_opts *o, size_t min, size_t max)
{
    o->nsizes = 0;
    if (min == 0)
        o->sizes[o->nsizes++] = 0;
    for (size_t s = 1; s <= max && o->nsizes < BENCH_MAX_SIZES; s *= 2)
        if (s >= min)
            o->sizes[o->nsizes++] = s;
}

static inline void bench_usage(const char *prog, int is_bw)
{
    fprintf(stderr,
            "usage: %s [options]\n"
            "  --min-size N       smallest size (default 0; suffix K/M allowed)\n"
            "  --max-size N       largest size (default 1M); sizes are 0,1,2,4,...\n"
            "  --sizes A,B,...    explicit list of sizes instead of min/max\n"
            "  --iters N          timed iterations per size up to 8K (default %d)\n"
            "  --skip N           warm-up iterations per size up to 8K (default %d)\n"
            "  --iters-large N    timed iterations for sizes above 8K (default %d)\n"
            "  --skip-large N     warm-up iterations for sizes above 8K (default %d)\n"
            "%s"
            "  --full-check       verify every byte of every message (default: first/last\n"
            "                     bytes each iteration, every byte once per size)\n"
            "  --csv              machine-readable output\n",
            prog, is_bw ? 100 : 10000, is_bw ? 10 : 100, is_bw ? 20 : 1000, is_bw ? 2 : 10,
            is_bw ? "  --window N         messages in flight per iteration (default 64)\n" : "");
}

/* Returns 0 on success, 1 if --help, -1 on error (message printed by rank 0 only). */
static inline int bench_parse_args(int argc, char **argv, struct bench_opts *o, int is_bw, int rank)
{
    size_t min = 0, max = 1024 * 1024;
    int explicit_sizes = 0;
    memset(o, 0, sizeof *o);
    o->iters = is_bw ? 100 : 10000;
    o->skip = is_bw ? 10 : 100;
    o->iters_large = is_bw ? 20 : 1000;
    o->skip_large = is_bw ? 2 : 10;
    o->large_threshold = 8192;
    o->window = 64;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        int bad = 0;
        if (strcmp(a, "--csv") == 0) {
            o->csv = 1;
            continue;
        } else if (strcmp(a, "--full-check") == 0) {
            o->full_check = 1;
            continue;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (rank == 0)
                bench_usage(argv[0], is_bw);
            return 1;
        }
        if (v == NULL) {
            bad = 1;
        } else if (strcmp(a, "--min-size") == 0) {
            bad = bench_parse_size(v, &min);
        } else if (strcmp(a, "--max-size") == 0) {
            bad = bench_parse_size(v, &max);
        } else if (strcmp(a, "--sizes") == 0) {
            char buf[1024];
            snprintf(buf, sizeof buf, "%s", v);
            o->nsizes = 0;
            for (char *tok = strtok(buf, ","); tok && !bad; tok = strtok(NULL, ",")) {
                if (o->nsizes >= BENCH_MAX_SIZES || bench_parse_size(tok, &o->sizes[o->nsizes]) != 0)
                    bad = 1;
                else
                    o->nsizes++;
            }
            explicit_sizes = 1;
        } else if (strcmp(a, "--iters") == 0) {
            bad = bench_parse_long(v, &o->iters);
        } else if (strcmp(a, "--skip") == 0) {
            bad = bench_parse_long(v, &o->skip);
        } else if (strcmp(a, "--iters-large") == 0) {
            bad = bench_parse_long(v, &o->iters_large);
        } else if (strcmp(a, "--skip-large") == 0) {
            bad = bench_parse_long(v, &o->skip_large);
        } else if (is_bw && strcmp(a, "--window") == 0) {
            long w = 0;
            bad = bench_parse_long(v, &w) != 0 || w < 1 || w > 1024;
            o->window = (int)w;
        } else {
            bad = 1;
        }
        if (bad) {
            if (rank == 0) {
                fprintf(stderr, "%s: bad or unknown option '%s'\n", argv[0], a);
                bench_usage(argv[0], is_bw);
            }
            return -1;
        }
        i++;
    }
    if (!explicit_sizes)
        bench_default_sizes(o, min, max);
    if (o->nsizes == 0 || o->iters < 1 || o->iters_large < 1) {
        if (rank == 0)
            fprintf(stderr, "%s: no sizes or zero iterations\n", argv[0]);
        return -1;
    }
    return 0;
}

/* Byte pattern: distinct per (seed, index) so misplaced or stale data is caught. */
static inline unsigned char bench_pattern(uint32_t seed, size_t i)
{
    uint32_t x = seed * 2654435761u + (uint32_t)i * 40503u + (uint32_t)(i >> 16);
    return (unsigned char)(x ^ (x >> 13) ^ (x >> 24));
}

static inline void bench_fill(unsigned char *buf, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        buf[i] = bench_pattern(seed, i);
}

/* Index of the first wrong byte, or (size_t)-1 if all match. */
static inline size_t bench_check(const unsigned char *buf, size_t n, uint32_t seed)
{
    for (size_t i = 0; i < n; i++)
        if (buf[i] != bench_pattern(seed, i))
            return i;
    return (size_t)-1;
}

/* Marker stamped in the first and last byte of a message for a given iteration. */
static inline unsigned char bench_marker(long iter, int slot, int dir)
{
    return (unsigned char)((unsigned long)iter * 131u + (unsigned)slot * 17u + (unsigned)dir * 89u + 1u);
}

static inline void *bench_alloc(size_t n, int rank)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        bench_die(rank, "out of memory (%s)", "buffer");
    memset(p, 0, n ? n : 1);
    return p;
}

/* qsort order of doubles (medians of repetitions) */
static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Failure with the rank in front: abort the job. */
static inline void bench_fail(const char *what)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "[rank %d] FAILED: %s\n", rank, what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

/* Option values that must be right: "30k", "1m", "12288" -> bytes; numbers; exit on junk. */
static inline size_t bench_size(const char *s)
{
    size_t v;
    if (bench_parse_size(s, &v) != 0) {
        fprintf(stderr, "bad size '%s'\n", s);
        exit(2);
    }
    return v;
}

static inline long bench_long(const char *s)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0') {
        fprintf(stderr, "bad number '%s'\n", s);
        exit(2);
    }
    return v;
}

static inline double bench_double(const char *s)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno != 0 || end == s || *end != '\0') {
        fprintf(stderr, "bad number '%s'\n", s);
        exit(2);
    }
    return v;
}

/* A message of a farm: an 8-byte header (id, kind) followed by the pattern of (id, kind). */
static inline void bench_put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline uint32_t bench_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t bench_seed(uint32_t id, uint32_t kind)
{
    return id * 7919u + kind * 104729u + 1u;
}

static inline void bench_msg_fill(unsigned char *buf, size_t n, uint32_t id, uint32_t kind)
{
    bench_put_u32(buf, id);
    bench_put_u32(buf + 4, kind);
    bench_fill(buf + 8, n - 8, bench_seed(id, kind));
}

/* Returns 0 when buf is the message (id?, kind) of n bytes; *id gets the id it carries. */
static inline int bench_msg_check(const unsigned char *buf, size_t n, uint32_t kind, uint32_t *id)
{
    *id = bench_get_u32(buf);
    if (bench_get_u32(buf + 4) != kind)
        return -1;
    return bench_check(buf + 8, n - 8, bench_seed(*id, kind)) == (size_t)-1 ? 0 : -1;
}

/* The synthetic task: sleep (default; on shared, oversubscribed cores the task time then stays
 * what was asked) or spin (burns CPU like the papers' compute). */
static inline void bench_work(double ms, int spin)
{
    if (ms <= 0)
        return;
    if (spin) {
        double t0 = MPI_Wtime();
        volatile double x = 1.0;
        while ((MPI_Wtime() - t0) * 1e3 < ms)
            for (int i = 0; i < 1000; i++)
                x = x * 1.0000001 + 1e-9;
        return;
    }
    struct timespec ts;
    ts.tv_sec = (time_t)(ms / 1e3);
    ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1e3) * 1e6);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* MPI_Waitall without MPI_STATUSES_IGNORE (gcc 12 flags that macro in MPICH 4.0's header with
 * -Werror=stringop-overflow): wait for each request in turn. */
static inline void bench_waitall(int count, MPI_Request *reqs)
{
    for (int i = 0; i < count; i++)
        MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
}

/* One "settings" line with the environment that shapes the transports (for the record). */
static inline void bench_print_env(FILE *f)
{
    static const char *vars[] = {"SCTPMPI_TRANSPORT", "SCTPMPI_SCTP_STREAMS", "SCTPMPI_SOCKBUF",
                                 "SCTPMPI_SCTP_SOCKBUF", "SCTPMPI_SCTP_CRC32C", "SCTPMPI_EAGER_LIMIT",
                                 "UCX_TLS", "UCX_NET_DEVICES", "NETLAB_HOST", NULL};
    fprintf(f, "# env");
    for (int i = 0; vars[i]; i++) {
        const char *v = getenv(vars[i]);
        if (v)
            fprintf(f, " %s=%s", vars[i], v);
    }
    fprintf(f, "\n");
}

#endif
