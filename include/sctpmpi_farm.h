/* sctpmpi_farm.h - a latency-hiding manager/worker task farm written over standard MPI calls only.
 *
 * One rank of a communicator (the manager) hands out tasks 0..ntasks-1 to all the other ranks (the
 * workers) and consumes their results.  The manager keeps k tasks outstanding at every worker, so
 * a worker always has the next k-1 tasks already in its pre-posted receives while it computes one:
 * the round trip to the manager is hidden as soon as (k-1) task times exceed it.  The message tag
 * is the task id (modulo the tag space), the manager pre-posts one result receive per outstanding
 * task and refills a worker's slot as soon as that slot's result arrives; workers return results
 * without any request/grant handshake.  When the application can take results in any order, the
 * farm can run on a communicator duplicated with the MPI-4 assertion mpi_assert_allow_overtaking.
 * See docs/farm.md for the model (T = RTT + k T(task) + ...) and an example.
 *
 * The buffers the callbacks get are the farm's own, aligned for any type (max_align_t).
 * The implementation (src/farm/) uses only MPI_* calls, so it works over any MPI library.
 * Every function returns MPI_SUCCESS or an MPI error code. */
#ifndef SCTPMPI_FARM_H
#define SCTPMPI_FARM_H

#include <mpi.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Manager: write task `task`'s input (at most max_task_bytes) into buf and its length into *len.
 * Return MPI_SUCCESS, or an error code that stops the farm (no new tasks; sctpmpi_farm_run
 * returns that code on the manager after the tasks in flight are drained). */
typedef int (*sctpmpi_farm_task_fn)(long task, void *buf, int *len, void *ctx);

/* Worker: compute the result of one task from its input (in, in_len) into out (capacity
 * max_result_bytes), its length into *out_len.  tag is the task's tag, equal to the task id when
 * ntasks <= the tag space (config tag_space, default MPI_TAG_UB).  A non-MPI_SUCCESS return is sent to the manager in
 * place of the result: the manager stops the farm and returns that code (as does this worker). */
typedef int (*sctpmpi_farm_work_fn)(int tag, const void *in, int in_len, void *out, int *out_len,
                                    void *ctx);

/* Manager: consume task `task`'s result (len bytes), computed by rank `worker` of the farm's
 * communicator.  Results come in completion order (any order with allow_overtaking).  A
 * non-MPI_SUCCESS return stops the farm like a task callback error. */
typedef int (*sctpmpi_farm_result_fn)(long task, const void *result, int len, int worker,
                                      void *ctx);

typedef struct sctpmpi_farm_config {
    int k;                /* tasks outstanding per worker (>= 1; default 2) */
    int max_task_bytes;   /* largest task input (>= 0; default 4096) */
    int max_result_bytes; /* largest result (>= 0; default 4096) */
    int manager;          /* rank of the manager in the communicator (default 0) */
    int allow_overtaking; /* 1: run on a duplicate with mpi_assert_allow_overtaking = true */
    int tag_space;        /* task tags are 0..tag_space-1 (task id mod tag_space), tag_space itself
                             ends the farm; 0 (default): MPI_TAG_UB.  Must be >= k and <= MPI_TAG_UB */
} sctpmpi_farm_config;

/* Per-rank counts filled in by sctpmpi_farm_run (pass NULL when not needed). */
typedef struct sctpmpi_farm_stats {
    long tasks;     /* manager: results consumed; worker: tasks computed */
    long max_inflight; /* manager: most tasks outstanding at once over all workers */
    double seconds; /* wall time of this rank inside sctpmpi_farm_run */
} sctpmpi_farm_stats;

/* Defaults: k = 2, 4096-byte tasks and results, manager 0, no overtaking, tag space MPI_TAG_UB. */
void sctpmpi_farm_config_init(sctpmpi_farm_config *cfg);

/* The default tag space on comm: MPI_TAG_UB (tags 0..MPI_TAG_UB-1 carry tasks, MPI_TAG_UB ends the farm). */
int sctpmpi_farm_tag_space(MPI_Comm comm, int *space);

/* Collective over comm: the manager rank runs the manager (task_fn, result_fn; ntasks >= 0 is read
 * there only), every other rank a worker (work_fn).  The configuration must be the same on all
 * ranks.  With a single rank the manager computes the tasks itself with work_fn.  Returns when all
 * tasks are done and every worker has been told to stop. */
int sctpmpi_farm_run(MPI_Comm comm, const sctpmpi_farm_config *cfg, long ntasks,
                     sctpmpi_farm_task_fn task_fn, sctpmpi_farm_work_fn work_fn,
                     sctpmpi_farm_result_fn result_fn, void *ctx, sctpmpi_farm_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
