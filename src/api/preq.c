/* preq.c — the machinery shared by every persistent or composite request that is not
 * point-to-point: "waiters", composite requests (Isendrecv, partitioned requests) whose state
 * is advanced by one progress hook that polls them until they report completion, and
 * persistent requests of kind SM_REQ_DONE whose hook_buf points to an object that starts with
 * its operations (persistent collectives in src/coll/persistent.c, partitioned requests). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

/* ---- waiters ------------------------------------------------------------------------------ */
static struct sm_waiter *waiters;
static int in_waiters;

static int waiter_hook(void)
{
    if (in_waiters || !waiters)
        return 0;
    in_waiters = 1;
    int moved = 0;
    struct sm_waiter **pp = &waiters;
    while (*pp) {
        struct sm_waiter *w = *pp;
        if (w->poll(w)) {
            *pp = w->next;
            w->queued = 0;
            moved++;
            if (w->done)
                w->done(w);
        } else {
            pp = &w->next;
        }
    }
    in_waiters = 0;
    return moved;
}

void sm_waiter_add(struct sm_waiter *w)
{
    static int hooked;
    if (!hooked) {
        sm_progress_hook_add(waiter_hook);
        hooked = 1;
    }
    if (w->queued)
        return;
    w->queued = 1;
    struct sm_waiter **pp = &waiters;
    while (*pp)
        pp = &(*pp)->next;
    w->next = NULL;
    *pp = w;
}

void sm_waiter_remove(struct sm_waiter *w)
{
    if (!w->queued)
        return;
    for (struct sm_waiter **pp = &waiters; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    w->queued = 0;
}

/* ---- persistent requests of kind SM_REQ_DONE ---------------------------------------------- */
MPI_Request sm_preq_new(MPI_Comm comm, void *obj)
{
    struct sctpmpi_request *r = sm_request_alloc(SM_REQ_DONE);
    r->persistent = 1;
    r->base.complete = 1;
    r->base.comm = comm;
    r->hook_buf = obj;
    sm_status_empty(&r->base.status);
    return r;
}

const struct sm_preq_ops *sm_preq_ops_of(MPI_Request r)
{
    if (!r || !r->persistent || r->base.kind != SM_REQ_DONE || !r->hook_buf)
        return NULL;
    return *(const struct sm_preq_ops *const *)r->hook_buf;
}
