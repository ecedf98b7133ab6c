/* exp_common.h - helpers shared by the experiment programs of bench/exp (pingpong, bpfarm, farm):
 * option parsing, data patterns and their checks, timing, the synthetic task (sleep or spin), and
 * the "settings" line every program prints.
 * Plain C11 + standard MPI only, so the same sources build with our mpicc, mpicc.openmpi and
 * mpicc.mpich. Header-only (static functions): each program stays one translation unit. */
#ifndef SCTPMPI_EXP_COMMON_H
#define SCTPMPI_EXP_COMMON_H

#include <mpi.h>

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline void exp_die(const char *what)
{
    int rank = -1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "[rank %d] FAILED: %s\n", rank, what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    exit(3);
}

/* "30k", "300K", "1m", "12288" -> bytes; exits on a malformed value. */
static inline size_t exp_size(const char *s)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || end == s) {
        fprintf(stderr, "bad size '%s'\n", s);
        exit(2);
    }
    if (*end == 'k' || *end == 'K') {
        v *= 1024ULL;
        end++;
    } else if (*end == 'm' || *end == 'M') {
        v *= 1024ULL * 1024ULL;
        end++;
    }
    if (*end != '\0' || v > (1ULL << 30)) {
        fprintf(stderr, "bad size '%s'\n", s);
        exit(2);
    }
    return (size_t)v;
}

static inline long exp_long(const char *s)
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

static inline double exp_double(const char *s)
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

/* Deterministic byte pattern for (seed, offset): cheap, and different for every task id. */
static inline unsigned char exp_byte(uint32_t seed, size_t j)
{
    uint32_t x = seed * 2654435761u + (uint32_t)j * 40503u;
    x ^= x >> 13;
    return (unsigned char)(x ^ (x >> 8));
}

static inline void exp_fill(unsigned char *buf, size_t n, uint32_t seed)
{
    for (size_t j = 0; j < n; j++)
        buf[j] = exp_byte(seed, j);
}

/* Number of bytes that differ from the pattern. */
static inline size_t exp_check(const unsigned char *buf, size_t n, uint32_t seed)
{
    size_t bad = 0;
    for (size_t j = 0; j < n; j++)
        bad += buf[j] != exp_byte(seed, j);
    return bad;
}

/* A message of a farm: an 8-byte header (id, kind) followed by the pattern of (id, kind). */
static inline void exp_put_u32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static inline uint32_t exp_get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint32_t exp_seed(uint32_t id, uint32_t kind)
{
    return id * 7919u + kind * 104729u + 1u;
}

static inline void exp_msg_fill(unsigned char *buf, size_t n, uint32_t id, uint32_t kind)
{
    exp_put_u32(buf, id);
    exp_put_u32(buf + 4, kind);
    exp_fill(buf + 8, n - 8, exp_seed(id, kind));
}

/* Returns 0 when buf is the message (id?, kind) of n bytes; *id gets the id it carries. */
static inline int exp_msg_check(const unsigned char *buf, size_t n, uint32_t kind, uint32_t *id)
{
    *id = exp_get_u32(buf);
    if (exp_get_u32(buf + 4) != kind)
        return -1;
    return exp_check(buf + 8, n - 8, exp_seed(*id, kind)) == 0 ? 0 : -1;
}

/* The synthetic task: sleep (default; on shared, oversubscribed cores the task time then stays
 * what was asked) or spin (burns CPU like the papers' compute). */
static inline void exp_work(double ms, int spin)
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
static inline void exp_waitall(int count, MPI_Request *reqs)
{
    for (int i = 0; i < count; i++)
        MPI_Wait(&reqs[i], MPI_STATUS_IGNORE);
}

/* One "settings" line with the environment that shapes the transports (for the record). */
static inline void exp_print_env(FILE *f)
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
