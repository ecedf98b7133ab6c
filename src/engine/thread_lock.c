/* thread_lock.c — the global recursive lock behind MPI_THREAD_MULTIPLE (thread_lock.h).
 *
 * A plain mutex plus a per-thread depth makes it recursive.  Fairness matters in one place:
 * a thread spinning in a wait loop releases the lock and takes it again at once, and a plain
 * mutex would usually give it straight back to that thread.  sm_big_lock_yield therefore
 * waits, after releasing, until another thread has taken the lock (an acquisition counter
 * moves) or nobody waits any more. */
#include "engine/thread_lock.h"

#include <pthread.h>
#include <sched.h>

atomic_int sm_threads_on;

static pthread_mutex_t big = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local int depth;  /* times this thread holds the lock */
static atomic_int waiters;       /* threads blocked in sm_big_lock */
static atomic_uint acquisitions; /* moves at every first acquisition */

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
    atomic_fetch_add_explicit(&acquisitions, 1, memory_order_relaxed);
}

void sm_big_unlock(void)
{
    if (--depth > 0)
        return;
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
    unsigned seen = atomic_load_explicit(&acquisitions, memory_order_relaxed);
    depth = 0;
    pthread_mutex_unlock(&big);
    /* a waiter woken from the futex needs a few µs: let it win the lock */
    for (int i = 0; i < 1000; i++) {
        if (atomic_load_explicit(&acquisitions, memory_order_relaxed) != seen ||
            atomic_load_explicit(&waiters, memory_order_relaxed) == 0)
            break;
        sched_yield();
    }
    sm_big_lock();
}
