/* rma_test.h — helpers shared by the one-sided (RMA) test programs in tests/rma/.
 *
 * Standard MPI C only: every program also builds with mpicc.openmpi / mpicc.mpich and passes
 * there, so a failure under sctpmpi points at sctpmpi.
 *   rt_start()        MPI_Init, rank/size; if this library reports one-sided communication as
 *                     unsupported (MPI_Win_create fails with MPI_ERR_UNSUPPORTED_OPERATION),
 *                     rank 0 prints "SKIPPED: ..." and every rank exits 0
 *   CHECK(c, ...)     on failure prints "FAILED rank R file:line: message" and aborts the job
 *   MPI_OK(call)      the call must return MPI_SUCCESS (for code run under MPI_ERRORS_RETURN)
 *   rt_finish()       barrier, rank 0 prints " No Errors", MPI_Finalize
 *   rt_rand()         a small seeded generator (same sequence on every rank for the same seed)
 *   rt_now()          monotonic seconds */
#ifndef RMA_TEST_H
#define RMA_TEST_H

#include <mpi.h>

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int rank_ = -1, size_ = -1;

static void rt_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
static void rt_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stdout, "FAILED rank %d %s:%d: %s\n", rank_, file, line, msg);
    fflush(stdout);
    fprintf(stderr, "FAILED rank %d %s:%d: %s\n", rank_, file, line, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1); /* not reached */
}

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) rt_fail(__FILE__, __LINE__, __VA_ARGS__);                                  \
    } while (0)

#define MPI_OK(call)                                                                             \
    do {                                                                                         \
        int rc_ = (call);                                                                        \
        if (rc_ != MPI_SUCCESS) {                                                                \
            char es_[MPI_MAX_ERROR_STRING];                                                      \
            int el_ = 0;                                                                         \
            MPI_Error_string(rc_, es_, &el_);                                                    \
            rt_fail(__FILE__, __LINE__, "%s returned %d (%s)", #call, rc_, es_);                 \
        }                                                                                        \
    } while (0)

static void rt_start(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    /* probe: does this library implement windows at all? */
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int buf = 0, cls = MPI_SUCCESS;
    MPI_Win w = MPI_WIN_NULL;
    int rc = MPI_Win_create(&buf, sizeof buf, 1, MPI_INFO_NULL, c, &w);
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    else MPI_Win_free(&w);
    MPI_Comm_free(&c);
    if (rc != MPI_SUCCESS) {
        CHECK(cls == MPI_ERR_UNSUPPORTED_OPERATION, "MPI_Win_create failed with class %d", cls);
        if (rank_ == 0) {
            printf("SKIPPED: this MPI library does not implement one-sided communication\n");
            fflush(stdout);
        }
        MPI_Finalize();
        exit(0);
    }
}

static int rt_finish(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        printf(" No Errors\n");
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}

static inline void *rt_malloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    CHECK(p != NULL, "out of memory (%zu bytes)", n);
    return p;
}

/* xorshift64*: deterministic for a seed, identical on every rank */
static inline uint64_t rt_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1DULL;
}
static inline unsigned rt_below(uint64_t *s, unsigned n) { return (unsigned)(rt_rand(s) % n); }

static inline double rt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* error class of a return code */
static inline int rt_class(int rc)
{
    int cls = rc;
    MPI_Error_class(rc, &cls);
    return cls;
}

#endif
