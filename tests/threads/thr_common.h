/* thr_common.h — helpers of the MPI_THREAD_MULTIPLE tests: initialisation asking for
 * MULTIPLE, a failure counter shared by the threads, running N threads and the final verdict. */
#ifndef THR_COMMON_H
#define THR_COMMON_H
#include <mpi.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

static atomic_int thr_errs;
static int thr_rank, thr_size;

#define THR_CHECK(cond, ...)                                                                     \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            atomic_fetch_add(&thr_errs, 1);                                                      \
            fprintf(stderr, "rank %d: %s:%d: ", thr_rank, __FILE__, __LINE__);                   \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fprintf(stderr, "\n");                                                               \
        }                                                                                        \
    } while (0)

#define THR_MPI(call)                                                                            \
    do {                                                                                         \
        int thr_rc_ = (call);                                                                    \
        THR_CHECK(thr_rc_ == MPI_SUCCESS, "%s returned %d", #call, thr_rc_);                     \
    } while (0)

static void thr_init(int *argc, char ***argv)
{
    int provided = -1;
    MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &thr_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &thr_size);
    if (provided != MPI_THREAD_MULTIPLE) {
        fprintf(stderr, "rank %d: MPI_THREAD_MULTIPLE not provided (%d)\n", thr_rank, provided);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int q = -1, main_flag = 0;
    MPI_Query_thread(&q);
    MPI_Is_thread_main(&main_flag);
    THR_CHECK(q == MPI_THREAD_MULTIPLE, "MPI_Query_thread gave %d", q);
    THR_CHECK(main_flag, "MPI_Is_thread_main false on the main thread");
}

/* runs fn(i) on n threads (index 0..n-1) and joins them */
static __attribute__((unused)) void thr_run(int n, void *(*fn)(void *))
{
    pthread_t th[64];
    if (n > 64)
        n = 64;
    for (long i = 0; i < n; i++)
        if (pthread_create(&th[i], NULL, fn, (void *)i) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
}

/* sums the failures of every rank; rank 0 prints " No Errors" when there were none */
static int thr_finish(void)
{
    int mine = atomic_load(&thr_errs), all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (thr_rank == 0) {
        if (all == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", all);
    }
    MPI_Finalize();
    return all != 0;
}
#endif
