/* requests.c — completing requests: Wait/Test and their all/any/some forms, Cancel,
 * Request_free, Request_get_status, statuses, and generalized requests (Grequest_start /
 * Grequest_complete: the program completes them, MPI calls its query, free and cancel
 * callbacks). */
#include <sched.h>
#include <string.h>

#include <stdlib.h>

#include "api/api.h"
#include "engine/thread_lock.h"

/* what a request owns goes with it (the engine calls this when it recycles the request) */
static void release_owned(struct sm_req *e)
{
    struct sctpmpi_request *r = sm_request_of(e);
    free(r->owned_buf);
    r->owned_buf = NULL;
}

struct sctpmpi_request *sm_request_alloc(int kind)
{
    struct sctpmpi_request *r = sm_request_of(sm_req_alloc(kind, sizeof(struct sctpmpi_request)));
    r->base.on_release = release_owned;
    return r;
}

struct sctpmpi_request *sm_request_done(int source)
{
    struct sctpmpi_request *r = sm_request_of(sm_req_done(source, sizeof *r));
    r->base.on_release = release_owned;
    return r;
}

/* ---- generalized requests ----
 * A request of kind SM_REQ_GREQ whose owned_buf holds the callbacks (released with it).
 * query_fn runs when Wait/Test/... retire the completed request (and for Request_get_status),
 * free_fn when the request is both complete and freed: at that retirement, or at
 * Grequest_complete after MPI_Request_free, or at MPI_Request_free after completion. */
struct sm_greq {
    MPI_Grequest_query_function *query_fn;
    MPI_Grequest_free_function *free_fn;
    MPI_Grequest_cancel_function *cancel_fn;
    void *extra_state;
};

static struct sm_greq *greq_of(MPI_Request r)
{
    return r && r->base.kind == SM_REQ_GREQ ? r->owned_buf : NULL;
}

static int greq_query(MPI_Request r, MPI_Status *st)
{
    struct sm_greq *g = greq_of(r);
    sm_status_empty(st);
    return g->query_fn ? g->query_fn(g->extra_state, st) : MPI_SUCCESS;
}

/* free_fn, then the request goes back to the pool */
static int greq_free(MPI_Request r)
{
    struct sm_greq *g = greq_of(r);
    int err = g->free_fn ? g->free_fn(g->extra_state) : MPI_SUCCESS;
    sm_req_release(&r->base);
    return err;
}

int PMPI_Grequest_start(MPI_Grequest_query_function *query_fn,
                        MPI_Grequest_free_function *free_fn,
                        MPI_Grequest_cancel_function *cancel_fn, void *extra_state,
                        MPI_Request *request)
{
    SM_TRY(sm_check_init("MPI_Grequest_start"));
    if (!request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Grequest_start", "NULL request");
    struct sctpmpi_request *r = sm_request_alloc(SM_REQ_GREQ);
    struct sm_greq *g = sm_xcalloc(1, sizeof *g);
    g->query_fn = query_fn;
    g->free_fn = free_fn;
    g->cancel_fn = cancel_fn;
    g->extra_state = extra_state;
    r->owned_buf = g;
    *request = r;
    return MPI_SUCCESS;
}

int PMPI_Grequest_complete(MPI_Request request)
{
    SM_TRY(sm_check_init("MPI_Grequest_complete"));
    if (!greq_of(request))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                        "not a generalized request");
    if (request->base.complete)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Grequest_complete",
                        "generalized request completed twice");
    request->base.complete = 1;
    if (request->base.freed) /* MPI_Request_free came first: nobody will wait for it */
        return greq_free(request);
    return MPI_SUCCESS;
}

void sm_status_empty(MPI_Status *s)
{
    if (!s)
        return;
    s->MPI_SOURCE = MPI_ANY_SOURCE;
    s->MPI_TAG = MPI_ANY_TAG;
    s->MPI_ERROR = MPI_SUCCESS;
    s->sm_cancelled = 0;
    s->sm_count = 0;
}

static void wait_until(int (*done)(void *), void *arg, int n, MPI_Request *reqs);

static int inactive(MPI_Request r)
{
    return !r || (r->persistent && !r->active);
}
static int req_complete(void *a)
{
    return ((struct sctpmpi_request *)a)->base.complete;
}

/* r is complete: report its status and retire it (persistent ones become inactive) */
static int finish(MPI_Request *req, MPI_Status *status)
{
    struct sctpmpi_request *r = *req;
    if (r->base.kind == SM_REQ_GREQ) {
        MPI_Status st;
        int err = greq_query(r, &st);
        int ferr = greq_free(r);
        *req = MPI_REQUEST_NULL;
        if (!err)
            err = ferr;
        if (status) {
            int keep_err = status->MPI_ERROR;
            *status = st;
            status->MPI_ERROR = err ? err : keep_err;
        }
        return err;
    }
    int err = r->base.status.MPI_ERROR;
    if (status) {
        int keep_err = status->MPI_ERROR;
        *status = r->base.status;
        if (r->base.kind ==
            SM_REQ_SEND) /* DONE requests carry their own count (0 or a receive's) */
            status->sm_count = r->base.bytes;
        status->MPI_ERROR = err ? err : keep_err;
    }
    if (r->persistent) {
        r->active = 0;
    } else {
        sm_req_release(&r->base);
        *req = MPI_REQUEST_NULL;
    }
    return err;
}

int sm_wait_one(MPI_Request *req, MPI_Status *status)
{
    if (inactive(*req)) {
        sm_status_empty(status);
        return MPI_SUCCESS;
    }
    wait_until(req_complete, *req, 1, req);
    return finish(req, status);
}

static MPI_Comm comm_of(MPI_Request r)
{
    return r && r->base.comm ? r->base.comm : MPI_COMM_WORLD;
}

/* progress until done(arg); when an incomplete generalized request is among reqs, poll and
 * yield instead of blocking in the transport: its completion comes from the program (another
 * thread), which the transport cannot signal, and a singleton has no transport at all */
static void wait_until(int (*done)(void *), void *arg, int n, MPI_Request *reqs)
{
    int greq = 0;
    for (int i = 0; i < n && !greq; i++)
        greq = greq_of(reqs[i]) && !reqs[i]->base.complete;
    if (!greq) {
        sm_progress_until(done, arg);
        return;
    }
    while (!done(arg)) {
        sm_progress_poll();
        if (!done(arg)) {
            sm_big_lock_yield(); /* the completing thread may be waiting for the lock */
            sched_yield();
        }
    }
}

int PMPI_Wait(MPI_Request *request, MPI_Status *status)
{
    SM_TRY(sm_check_init("MPI_Wait"));
    if (!request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Wait", "NULL request pointer");
    MPI_Comm c = comm_of(*request);
    int err = sm_wait_one(request, status);
    return err ? sm_error(c, err, "MPI_Wait", NULL) : MPI_SUCCESS;
}

int PMPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    SM_TRY(sm_check_init("MPI_Test"));
    if (!request || !flag)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test", "NULL argument");
    if (inactive(*request)) {
        *flag = 1;
        sm_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!(*request)->base.complete)
        sm_progress_poll();
    *flag = (*request)->base.complete;
    if (!*flag)
        return MPI_SUCCESS;
    MPI_Comm c = comm_of(*request);
    int err = finish(request, status);
    return err ? sm_error(c, err, "MPI_Test", NULL) : MPI_SUCCESS;
}

struct all_arg {
    int n;
    MPI_Request *r;
};
static int all_complete(void *a)
{
    struct all_arg *x = a;
    for (int i = 0; i < x->n; i++)
        if (!inactive(x->r[i]) && !x->r[i]->base.complete)
            return 0;
    return 1;
}
static int any_complete(void *a)
{
    struct all_arg *x = a;
    int active = 0;
    for (int i = 0; i < x->n; i++) {
        if (inactive(x->r[i]))
            continue;
        active = 1;
        if (x->r[i]->base.complete)
            return 1;
    }
    return !active;
}

static int check_array(int count, MPI_Request *reqs, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (count < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "count %d is negative", count);
    if (count > 0 && !reqs)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "NULL request array");
    return MPI_SUCCESS;
}

/* finish every complete request of the array into statuses; returns ERR_IN_STATUS on errors */
static int finish_all(int count, MPI_Request *reqs, MPI_Status *statuses, MPI_Comm *errcomm)
{
    int any_err = 0;
    for (int i = 0; i < count; i++) {
        MPI_Status *st = statuses ? &statuses[i] : NULL;
        if (st)
            st->MPI_ERROR = MPI_SUCCESS;
        if (inactive(reqs[i])) {
            sm_status_empty(st);
            continue;
        }
        MPI_Comm c = comm_of(reqs[i]);
        if (finish(&reqs[i], st)) {
            any_err = 1;
            *errcomm = c;
        }
    }
    return any_err ? MPI_ERR_IN_STATUS : MPI_SUCCESS;
}

int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[])
{
    SM_TRY(check_array(count, requests, "MPI_Waitall"));
    struct all_arg a = { count, requests };
    wait_until(all_complete, &a, count, requests);
    MPI_Comm c = MPI_COMM_WORLD;
    int err = finish_all(count, requests, statuses, &c);
    return err ? sm_error(c, err, "MPI_Waitall", NULL) : MPI_SUCCESS;
}

int PMPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[])
{
    SM_TRY(check_array(count, requests, "MPI_Testall"));
    struct all_arg a = { count, requests };
    if (!all_complete(&a))
        sm_progress_poll();
    *flag = all_complete(&a);
    if (!*flag)
        return MPI_SUCCESS;
    MPI_Comm c = MPI_COMM_WORLD;
    int err = finish_all(count, requests, statuses, &c);
    return err ? sm_error(c, err, "MPI_Testall", NULL) : MPI_SUCCESS;
}

static int take_any(int count, MPI_Request *requests, int *index, MPI_Status *status,
                    const char *fn)
{
    for (int i = 0; i < count; i++) {
        if (inactive(requests[i]) || !requests[i]->base.complete)
            continue;
        *index = i;
        MPI_Comm c = comm_of(requests[i]);
        int err = finish(&requests[i], status);
        return err ? sm_error(c, err, fn, NULL) : MPI_SUCCESS;
    }
    *index = MPI_UNDEFINED;
    sm_status_empty(status);
    return MPI_SUCCESS;
}

int PMPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    SM_TRY(check_array(count, requests, "MPI_Waitany"));
    struct all_arg a = { count, requests };
    wait_until(any_complete, &a, count, requests);
    return take_any(count, requests, index, status, "MPI_Waitany");
}

int PMPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    SM_TRY(check_array(count, requests, "MPI_Testany"));
    struct all_arg a = { count, requests };
    if (!any_complete(&a))
        sm_progress_poll();
    *flag = any_complete(&a);
    if (!*flag) {
        *index = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    return take_any(count, requests, index, status, "MPI_Testany");
}

static int take_some(int incount, MPI_Request *requests, int *outcount, int *indices,
                     MPI_Status *statuses, const char *fn)
{
    int n = 0, active = 0, any_err = 0;
    MPI_Comm c = MPI_COMM_WORLD;
    for (int i = 0; i < incount; i++) {
        if (inactive(requests[i]))
            continue;
        active = 1;
        if (!requests[i]->base.complete)
            continue;
        MPI_Status *st = statuses ? &statuses[n] : NULL;
        if (st)
            st->MPI_ERROR = MPI_SUCCESS;
        MPI_Comm rc = comm_of(requests[i]);
        if (finish(&requests[i], st)) {
            any_err = 1;
            c = rc;
        }
        indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    return any_err ? sm_error(c, MPI_ERR_IN_STATUS, fn, NULL) : MPI_SUCCESS;
}

int PMPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    SM_TRY(check_array(incount, requests, "MPI_Waitsome"));
    struct all_arg a = { incount, requests };
    wait_until(any_complete, &a, incount, requests);
    return take_some(incount, requests, outcount, indices, statuses, "MPI_Waitsome");
}

int PMPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                  MPI_Status statuses[])
{
    SM_TRY(check_array(incount, requests, "MPI_Testsome"));
    sm_progress_poll();
    return take_some(incount, requests, outcount, indices, statuses, "MPI_Testsome");
}

int PMPI_Cancel(MPI_Request *request)
{
    SM_TRY(sm_check_init("MPI_Cancel"));
    if (!request || !*request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Cancel", "null request");
    struct sctpmpi_request *r = *request;
    if (inactive(r))
        return sm_error(comm_of(r), MPI_ERR_REQUEST, "MPI_Cancel", "inactive request");
    if (sm_nbc_is_request(r))
        return sm_error(comm_of(r), MPI_ERR_REQUEST, "MPI_Cancel",
                        "non-blocking collectives cannot be cancelled");
    if (r->base.kind == SM_REQ_GREQ) {
        struct sm_greq *g = greq_of(r);
        int err = g->cancel_fn ? g->cancel_fn(g->extra_state, r->base.complete) : MPI_SUCCESS;
        return err ? sm_error(comm_of(r), err, "MPI_Cancel", "cancel_fn failed") : MPI_SUCCESS;
    }
    if (r->base.kind == SM_REQ_RECV)
        sm_cancel_recv(&r->base);
    else if (r->base.kind == SM_REQ_SEND)
        sm_cancel_send(&r->base);
    return MPI_SUCCESS;
}

int PMPI_Test_cancelled(const MPI_Status *status, int *flag)
{
    if (!status || !flag)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Test_cancelled", NULL);
    *flag = status->sm_cancelled;
    return MPI_SUCCESS;
}

int PMPI_Request_free(MPI_Request *request)
{
    SM_TRY(sm_check_init("MPI_Request_free"));
    if (!request || !*request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Request_free", "null request");
    struct sctpmpi_request *r = *request;
    if (r->base.kind == SM_REQ_GREQ) {
        *request = MPI_REQUEST_NULL;
        if (!r->base.complete) {
            r->base.freed = 1; /* free_fn runs at MPI_Grequest_complete */
            return MPI_SUCCESS;
        }
        int err = greq_free(r);
        return err ? sm_error(MPI_COMM_WORLD, err, "MPI_Request_free", "free_fn failed")
                   : MPI_SUCCESS;
    }
    const struct sm_preq_ops *ops = sm_preq_ops_of(r); /* persistent collective, partitioned */
    if (!ops && r->persistent && (r->base.kind == SM_REQ_SEND || r->base.kind == SM_REQ_RECV))
        sm_dt_release(r->p_dt); /* a started operation holds a reference of its own */
    if (ops) {
        SM_TRY(ops->free(r));
    } else if (r->base.complete || (r->persistent && !r->active))
        sm_req_release(&r->base);
    else
        r->base.freed = 1; /* released by the engine when it completes */
    *request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int PMPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status)
{
    SM_TRY(sm_check_init("MPI_Request_get_status"));
    if (!flag)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Request_get_status", NULL);
    if (inactive(request)) {
        *flag = 1;
        sm_status_empty(status);
        return MPI_SUCCESS;
    }
    if (!request->base.complete)
        sm_progress_poll();
    *flag = request->base.complete;
    if (*flag && request->base.kind == SM_REQ_GREQ) {
        MPI_Status st;
        int err = greq_query(request, &st);
        if (status)
            *status = st;
        return err ? sm_error(MPI_COMM_WORLD, err, "MPI_Request_get_status", "query_fn failed")
                   : MPI_SUCCESS;
    }
    if (*flag && status) {
        *status = request->base.status;
        if (request->base.kind == SM_REQ_SEND)
            status->sm_count = request->base.bytes;
    }
    return MPI_SUCCESS;
}

/* ---- MPI-4.1: non-destructive completion checks over arrays ---------------------------- */
int PMPI_Request_get_status_any(int count, MPI_Request reqs[], int *index, int *flag,
                                MPI_Status *status)
{
    const char *fn = "MPI_Request_get_status_any";
    SM_TRY(sm_check_init(fn));
    if (count < 0 || (count && !reqs) || !index || !flag)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad count or NULL argument");
    int active = 0;
    *flag = 0;
    *index = MPI_UNDEFINED;
    for (int i = 0; i < count; i++) {
        if (inactive(reqs[i]))
            continue;
        active++;
        int done;
        SM_TRY(PMPI_Request_get_status(reqs[i], &done, status));
        if (done) {
            *flag = 1;
            *index = i;
            return MPI_SUCCESS;
        }
    }
    if (!active) { /* no active request: flag true, index undefined, empty status */
        *flag = 1;
        sm_status_empty(status);
    }
    return MPI_SUCCESS;
}

int PMPI_Request_get_status_all(int count, MPI_Request reqs[], int *flag, MPI_Status statuses[])
{
    const char *fn = "MPI_Request_get_status_all";
    SM_TRY(sm_check_init(fn));
    if (count < 0 || (count && !reqs) || !flag)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad count or NULL argument");
    *flag = 1;
    for (int i = 0; i < count && *flag; i++) {
        int done;
        SM_TRY(PMPI_Request_get_status(reqs[i], &done, MPI_STATUS_IGNORE));
        *flag = done;
    }
    if (*flag && statuses != MPI_STATUSES_IGNORE)
        for (int i = 0; i < count; i++) {
            int done;
            SM_TRY(PMPI_Request_get_status(reqs[i], &done, &statuses[i]));
        }
    return MPI_SUCCESS;
}

int PMPI_Request_get_status_some(int incount, MPI_Request reqs[], int *outcount, int indices[],
                                 MPI_Status statuses[])
{
    const char *fn = "MPI_Request_get_status_some";
    SM_TRY(sm_check_init(fn));
    if (incount < 0 || (incount && (!reqs || !indices)) || !outcount)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad count or NULL argument");
    int active = 0, n = 0;
    for (int i = 0; i < incount; i++) {
        if (inactive(reqs[i]))
            continue;
        active++;
        int done;
        MPI_Status *st = statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[n];
        SM_TRY(PMPI_Request_get_status(reqs[i], &done, st));
        if (done)
            indices[n++] = i;
    }
    *outcount = active ? n : MPI_UNDEFINED;
    return MPI_SUCCESS;
}
