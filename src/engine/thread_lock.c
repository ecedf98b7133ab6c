/* thread_lock.c — the global recursive lock behind MPI_THREAD_MULTIPLE (thread_lock.h).
 *
 * A plain mutex plus a per-thread depth makes it recursive.  A thread in a wait loop releases
 * the lock between polls only when others wait for it (sm_big_lock_yield), and then gives the
 * CPU away once before taking the lock again, so that the woken waiter can take it.  The
 * mutex is not FIFO on purpose: a strict hand-off (a ticket lock was tried) makes every
 * release wait for the next thread to be scheduled, which on an oversubscribed host (the MPICH
 * threads tests run 25 threads on 2 cores) measured about 3x slower. */
#include "engine/thread_lock.h"

#include <pthread.h>
#include <sched.h>

atomic_int sm_threads_on;

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int depth; /* times this thread holds the lock */
static atomic_int waiters;      /* threads blocked in sm_big_lock */

void sm_threads_enable(void)
{
    atomic_store(&sm_threads_on, 1);
}

void sm_big_lock(void)
{
    if (depth++ > 0)
        return;
    if (pthread_mutex_trylock(&big) != 0) {
        atomic_fetch_add_explicit(&waiters, 1, memory_order_relaxed);
        pthread_mutex_lock(&big);
        atomic_fetch_sub_explicit(&waiters, 1, memory_order_relaxed);
    }
}

void sm_big_unlock(void)
{
    if (--depth == 0)
        pthread_mutex_unlock(&big);
}

int sm_big_lock_waiters(void)
{
    return atomic_load_explicit(&waiters, memory_order_relaxed);
}

int sm_big_lock_depth(void)
{
    return depth;
}

void sm_big_lock_yield(void)
{
    if (depth != 1 || atomic_load_explicit(&waiters, memory_order_relaxed) == 0)
        return;
    depth = 0;
    pthread_mutex_unlock(&big);
    sched_yield();
    sm_big_lock();
}
