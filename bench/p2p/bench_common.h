/* Shared helpers for the point-to-point benchmarks (pingpong.c, bw.c).
 * Plain standard C11 + standard MPI so the same sources build against sctpmpi, Open MPI and MPICH.
 * Header-only (static functions) so each benchmark stays a single translation unit. */
#ifndef SCTPMPI_BENCH_COMMON_H
#define SCTPMPI_BENCH_COMMON_H

#include <mpi.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_MAX_SIZES 64

/* Options common to pingpong and bw. */
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

#endif
