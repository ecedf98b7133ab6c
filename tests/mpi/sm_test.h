/* sm_test.h — small helpers shared by the MPI test programs in tests/mpi/.
 *
 * Standard MPI C only (the programs must also pass under Open MPI and MPICH).  Every helper is
 * static so each program stays a single translation unit:
 *   sm_init()        MPI_Init + rank/size, records the pid in $SM_TEST_PIDDIR/<rank>.pid if set
 *   SM_CHECK(c, ...) on failure prints "sm-test FAILED rank R file:line: <message>" and aborts
 *   sm_eager_limit() $SCTPMPI_EAGER_LIMIT or 65536 (bytes)
 *   sm_fill/sm_verify deterministic byte patterns keyed by a seed
 *   sm_finish()      barrier, rank 0 prints " No Errors", MPI_Finalize
 * Bounded waiting: sm_nap() sleeps a little between polls so 8 ranks on 2 cores make progress. */
#ifndef SM_TEST_H
#define SM_TEST_H

#include <mpi.h>

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int sm_rank = -1, sm_size = -1;

static inline void sm_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static inline void sm_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stdout, "sm-test FAILED rank %d %s:%d: %s\n", sm_rank, file, line, msg);
    fflush(stdout);
    fprintf(stderr, "sm-test FAILED rank %d %s:%d: %s\n", sm_rank, file, line, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* not reached */
}

#define SM_CHECK(cond, ...)                                                                      \
    do {                                                                                         \
        if (!(cond)) sm_fail(__FILE__, __LINE__, __VA_ARGS__);                                  \
    } while (0)

/* Checks an MPI return code (meaningful only with MPI_ERRORS_RETURN; with the default
 * MPI_ERRORS_ARE_FATAL the library aborts first). */
#define SM_MPI(call)                                                                             \
    do {                                                                                         \
        int sm_rc_ = (call);                                                                     \
        if (sm_rc_ != MPI_SUCCESS) sm_fail(__FILE__, __LINE__, "%s returned %d", #call, sm_rc_); \
    } while (0)

static inline void sm_record_pid(void)
{
    const char *dir = getenv("SM_TEST_PIDDIR");
    if (!dir || !*dir) return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%d.pid", dir, sm_rank);
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "sm-test: cannot write %s: %s\n", path, strerror(errno));
        return;
    }
    fprintf(f, "%ld\n", (long)getpid());
    fclose(f);
}

static inline void sm_after_init(void)
{
    MPI_Comm_rank(MPI_COMM_WORLD, &sm_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &sm_size);
    sm_record_pid();
}

static inline void sm_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    sm_after_init();
}

static inline int sm_eager_limit(void)
{
    const char *s = getenv("SCTPMPI_EAGER_LIMIT");
    if (s && *s) {
        char *end;
        long v = strtol(s, &end, 0);
        if (*end == '\0' && v > 0 && v < (1L << 30)) return (int)v;
    }
    return 65536;
}

static inline void sm_nap_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A short pause for polling loops (lets other oversubscribed ranks run). */
static inline void sm_nap(void) { sm_nap_us(100); }

static inline unsigned char sm_byte(uint32_t seed, size_t i)
{
    uint32_t x = seed * 2654435761u + (uint32_t)i * 40503u + (uint32_t)(i >> 8) * 977u;
    x ^= x >> 13;
    return (unsigned char)(x & 0xff);
}

static inline void sm_fill(void *buf, size_t n, uint32_t seed)
{
    unsigned char *p = buf;
    for (size_t i = 0; i < n; i++) p[i] = sm_byte(seed, i);
}

/* Returns the index of the first wrong byte, or (size_t)-1 if all n bytes match. */
static inline size_t sm_verify(const void *buf, size_t n, uint32_t seed)
{
    const unsigned char *p = buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != sm_byte(seed, i)) return i;
    return (size_t)-1;
}

#define SM_VERIFY(buf, n, seed, ...)                                                             \
    do {                                                                                         \
        size_t sm_bad_ = sm_verify((buf), (n), (seed));                                          \
        if (sm_bad_ != (size_t)-1) {                                                             \
            char sm_what_[512];                                                                  \
            snprintf(sm_what_, sizeof sm_what_, __VA_ARGS__);                                    \
            sm_fail(__FILE__, __LINE__, "%s: data mismatch at byte %zu of %zu (got 0x%02x, "   \
                    "want 0x%02x)", sm_what_, sm_bad_, (size_t)(n),                              \
                    ((const unsigned char *)(buf))[sm_bad_], sm_byte((seed), sm_bad_));          \
        }                                                                                        \
    } while (0)

static inline void *sm_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    SM_CHECK(p != NULL, "out of memory allocating %zu bytes", n);
    return p;
}

/* Checks source, tag and byte count of a status. */
#define SM_CHECK_STATUS(st, src, tag, nbytes, what)                                              \
    do {                                                                                         \
        int sm_cnt_ = -12345;                                                                    \
        MPI_Get_count(&(st), MPI_BYTE, &sm_cnt_);                                                \
        SM_CHECK((st).MPI_SOURCE == (src) && (st).MPI_TAG == (tag) && sm_cnt_ == (int)(nbytes), \
                 "%s: status source %d tag %d count %d, want %d %d %d", (what),                 \
                 (st).MPI_SOURCE, (st).MPI_TAG, sm_cnt_, (int)(src), (int)(tag),                \
                 (int)(nbytes));                                                                 \
    } while (0)

static inline int sm_finish(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (sm_rank == 0) {
        printf(" No Errors\n");
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}

#endif /* SM_TEST_H */
