/* mpi_test.h — helpers of the self-checking MPI test programs (tests/coll, tests/osc; standard
 * MPI C only, so every program also runs under Open MPI and MPICH): CHECK aborts with a
 * message, finish() prints " No Errors" on rank 0. */
#ifndef SM_MPI_TEST_H
#define SM_MPI_TEST_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank_, size_;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stdout, "FAILED rank %d %s:%d: ", rank_, __FILE__, __LINE__);               \
            fprintf(stdout, __VA_ARGS__);                                                        \
            fprintf(stdout, "\n");                                                               \
            fflush(stdout);                                                                      \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                        \
        }                                                                                        \
    } while (0)

static void start(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

static int finish(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        printf(" No Errors\n");
        fflush(stdout);
    }
    MPI_Finalize();
    return 0;
}

static inline void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    CHECK(p != NULL, "out of memory");
    return p;
}

#endif
