/* sched.c — the schedule engine every collective runs on (see sched.h): rounds of sends and
 * receives followed by local copies and reductions.  A blocking collective runs its schedule
 * to completion in the caller (sm_sched_wait); a non-blocking or persistent one is advanced
 * from a progress hook (sm_progress_hook_add) that only starts and tests requests, never
 * blocks.  The user's request
 * is an SM_REQ_DONE request completed with sm_req_complete when the last round ends, so
 * Wait/Test/Request_free work unchanged. */
#include "coll/sched.h"

enum { ST_SEND = 1, ST_RECV, ST_COPY, ST_REDUCE };

struct step {
    int type;
    const void *src; /* SEND data, COPY source, REDUCE in */
    void *dst;       /* RECV buffer, COPY destination, REDUCE inout */
    int count, dcount;
    MPI_Datatype dt, ddt;
    int peer;
    MPI_Op op;
    MPI_Comm comm; /* SEND, RECV: the communicator the step was added on */
};

struct sm_round {
    struct step *st;
    int n, cap;
};

static struct sm_sched *active_head;

static void *grow(void *p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return p;
    int nc = *cap ? *cap * 2 : 8;
    while (nc < need)
        nc *= 2;
    void *q = realloc(p, (size_t)nc * elem);
    if (!q)
        sm_die("out of memory in a non-blocking collective");
    *cap = nc;
    return q;
}

/* finished schedules kept with their arrays, so a blocking collective in a loop allocates
 * nothing but its temporaries */
#define SCHED_CACHE 4
static struct sm_sched *cache[SCHED_CACHE];
static int ncache;

struct sm_sched *sm_sched_new_seq(MPI_Comm c, uint32_t seq)
{
    struct sm_sched *s = ncache ? cache[--ncache] : sm_xcalloc(1, sizeof *s);
    s->owner = c;
    s->comm = c;
    s->tag = (int)(0x20000000u | (seq & 0x0fffffffu));
    s->cur = -1;
    return s;
}

struct sm_sched *sm_sched_new(MPI_Comm c)
{
    return sm_sched_new_seq(c, sm_comm_x(c)->nbc_seq++);
}

void sm_sched_round(struct sm_sched *s)
{
    if (s->nrd == s->rdinit) {
        s->rd = grow(s->rd, &s->cap, s->nrd + 1, sizeof *s->rd);
        s->rd[s->rdinit++] = (struct sm_round){ NULL, 0, 0 };
    }
    s->rd[s->nrd++].n = 0;
}

static void keep_dt(struct sm_sched *s, MPI_Datatype dt)
{
    if (!dt || dt->basic)
        return;
    for (int i = 0; i < s->ndts; i++)
        if (s->dts[i] == dt)
            return;
    s->dts = grow(s->dts, &s->dtcap, s->ndts + 1, sizeof *s->dts);
    s->dts[s->ndts++] = dt;
    sm_dt_retain(dt);
}

static void keep_op(struct sm_sched *s, MPI_Op op)
{
    if (!op || !op->user)
        return;
    for (int i = 0; i < s->nops; i++)
        if (s->ops[i] == op)
            return;
    s->ops = grow(s->ops, &s->opcap, s->nops + 1, sizeof *s->ops);
    s->ops[s->nops++] = op;
    sm_op_retain(op);
}

static void add(struct sm_sched *s, struct step st)
{
    if (!s->nrd)
        sm_sched_round(s);
    struct sm_round *r = &s->rd[s->nrd - 1];
    r->st = grow(r->st, &r->cap, r->n + 1, sizeof *r->st);
    r->st[r->n++] = st;
    r->st[r->n - 1].comm = s->comm;
    keep_dt(s, st.dt);
    keep_dt(s, st.ddt);
    keep_op(s, st.op);
}

void sm_sched_send(struct sm_sched *s, const void *b, int n, MPI_Datatype dt, int peer)
{
    add(s, (struct step){ .type = ST_SEND, .src = b, .count = n, .dt = dt, .peer = peer });
}
void sm_sched_recv(struct sm_sched *s, void *b, int n, MPI_Datatype dt, int peer)
{
    add(s, (struct step){ .type = ST_RECV, .dst = b, .count = n, .dt = dt, .peer = peer });
}
void sm_sched_copy(struct sm_sched *s, const void *src, int sn, MPI_Datatype st, void *dst,
                   int dn, MPI_Datatype dt)
{
    add(s, (struct step){ .type = ST_COPY,
                          .src = src,
                          .count = sn,
                          .dt = st,
                          .dst = dst,
                          .dcount = dn,
                          .ddt = dt });
}
/* inout = in op inout */
void sm_sched_reduce(struct sm_sched *s, MPI_Op op, const void *in, void *inout, int n,
                     MPI_Datatype dt)
{
    add(s, (struct step){
               .type = ST_REDUCE, .src = in, .dst = inout, .count = n, .dt = dt, .op = op });
}
/* acc = acc op higher (higher is clobbered when the op does not commute) */
void sm_sched_combine_higher(struct sm_sched *s, MPI_Op op, void *acc, void *higher, int n,
                             MPI_Datatype dt)
{
    if (op->commute) {
        sm_sched_reduce(s, op, higher, acc, n, dt);
    } else {
        sm_sched_reduce(s, op, acc, higher, n, dt);
        sm_sched_copy(s, higher, n, dt, acc, n, dt);
    }
}

void *sm_sched_tmp(struct sm_sched *s, int count, MPI_Datatype dt)
{
    void *base, *p = sm_dt_tmp(count, dt, &base);
    s->mem = grow(s->mem, &s->memcap, s->nmem + 1, sizeof *s->mem);
    s->mem[s->nmem++] = base;
    return p;
}

void *sm_sched_bytes(struct sm_sched *s, size_t n)
{
    void *p = sm_xmalloc(n ? n : 1);
    s->mem = grow(s->mem, &s->memcap, s->nmem + 1, sizeof *s->mem);
    s->mem[s->nmem++] = p;
    return p;
}

static void s_free(struct sm_sched *s)
{
    for (int i = 0; i < s->nmem; i++)
        free(s->mem[i]);
    for (int i = 0; i < s->ndts; i++)
        sm_dt_release(s->dts[i]);
    for (int i = 0; i < s->nops; i++)
        sm_op_release(s->ops[i]);
    if (ncache < SCHED_CACHE) { /* keep the arrays, forget the contents */
        s->next = NULL;
        s->nrd = s->nrq = s->nmem = s->ndts = s->nops = s->err = 0;
        s->user = NULL;
        cache[ncache++] = s;
        return;
    }
    for (int i = 0; i < s->rdinit; i++)
        free(s->rd[i].st);
    free(s->rd);
    free(s->rq);
    free(s->mem);
    free(s->dts);
    free(s->ops);
    free(s);
}

/* post the communication of round s->cur */
static void post_round(struct sm_sched *s)
{
    struct sm_round *r = &s->rd[s->cur];
    s->rq = grow(s->rq, &s->rqcap, r->n, sizeof *s->rq);
    s->nrq = 0;
    for (int i = 0; i < r->n; i++) {
        struct step *p = &r->st[i];
        MPI_Comm c = p->comm;
        int e = 0;
        if (p->type == ST_SEND)
            e = sm_isend_dt(p->src, p->count, p->dt, p->peer, s->tag, c, CCTX(c),
                            SM_MODE_STANDARD, &s->rq[s->nrq++]);
        else if (p->type == ST_RECV)
            e = sm_irecv_dt(p->dst, p->count, p->dt, p->peer, s->tag, c, CCTX(c),
                            &s->rq[s->nrq++]);
        if (e && !s->err)
            s->err = e;
    }
}

static void local_steps(struct sm_sched *s)
{
    struct sm_round *r = &s->rd[s->cur];
    for (int i = 0; i < r->n; i++) {
        struct step *p = &r->st[i];
        if (p->type == ST_COPY)
            sm_dt_copy(p->src, p->count, p->dt, p->dst, p->dcount, p->ddt);
        else if (p->type == ST_REDUCE)
            sm_op_apply(p->op, p->src, p->dst, p->count, p->dt);
    }
}

/* advance s as far as it goes without waiting; returns 1 when it has finished */
static int advance(struct sm_sched *s, int *moved)
{
    for (;;) {
        if (s->cur >= 0) {
            for (int i = 0; i < s->nrq; i++) {
                if (s->rq[i] == MPI_REQUEST_NULL)
                    continue;
                if (!s->rq[i]->base.complete)
                    return 0;
                /* complete: sm_wait_one returns at once, releasing the request */
                int e = sm_wait_one(&s->rq[i], MPI_STATUS_IGNORE);
                if (e && !s->err)
                    s->err = e;
                ++*moved;
            }
            s->nrq = 0;
            local_steps(s);
        }
        if (++s->cur >= s->nrd)
            return 1;
        post_round(s);
        ++*moved;
    }
}

static void finish_sched(struct sm_sched *s)
{
    struct sctpmpi_request *u = s->user;
    if (s->persist) { /* the persistent request completes; the schedule waits for a Start */
        u->base.status.MPI_ERROR = s->err;
        s->user = NULL;
        u->base.complete = 1;
        return;
    }
    u->base.status.MPI_ERROR = s->err;
    s_free(s);
    sm_req_complete(&u->base); /* releases it if MPI_Request_free was called */
}

static int in_hook;

static int nbc_hook(void)
{
    if (in_hook || !active_head)
        return 0;
    in_hook = 1;
    int moved = 0;
    struct sm_sched **pp = &active_head;
    while (*pp) {
        struct sm_sched *s = *pp;
        if (advance(s, &moved)) {
            *pp = s->next;
            finish_sched(s);
        } else {
            pp = &s->next;
        }
    }
    in_hook = 0;
    return moved;
}

/* a request is one of ours (for MPI_Cancel, which must refuse it) */
static void nbc_marker(struct sctpmpi_request *r)
{
    (void)r;
}
int sm_nbc_is_request(MPI_Request r)
{
    return r && r->base.kind == SM_REQ_DONE && r->hook_dt == NULL &&
           r->hook_buf == (void *)nbc_marker;
}

/* advance a schedule just started (s->user set) and queue it if it has to wait */
static void launch(struct sm_sched *s)
{
    static int hooked;
    if (!hooked) {
        sm_progress_hook_add(nbc_hook);
        hooked = 1;
    }
    int moved = 0, was = in_hook;
    in_hook = 1; /* posting may poll progress: keep the hook out of a half-built list */
    int done = advance(s, &moved);
    in_hook = was;
    if (done) {
        finish_sched(s);
    } else {
        struct sm_sched **pp = &active_head; /* append: schedules advance in start order */
        while (*pp)
            pp = &(*pp)->next;
        *pp = s;
    }
}

/* start the schedule and hand its request to the user */
int sm_sched_start(struct sm_sched *s, MPI_Request *req)
{
    struct sctpmpi_request *u = sm_request_alloc(SM_REQ_DONE);
    u->base.comm = s->owner;
    u->base.status.MPI_SOURCE = MPI_ANY_SOURCE;
    u->base.status.MPI_TAG = MPI_ANY_TAG;
    u->hook_buf = (void *)nbc_marker;
    s->user = u;
    *req = u;
    launch(s);
    return MPI_SUCCESS;
}

/* ---- persistent collectives: the schedule built by *_init is the request's object; every
 * MPI_Start runs it again from its first round with the tag reserved at *_init, so the
 * processes' requests match in the order of their *_init calls (successive starts of one
 * request between two processes cannot be confused: messages between a pair on one context
 * and tag stay in order).  The schedule holds references on its datatypes and ops, so the
 * program may free them after *_init. */
static int persist_start(MPI_Request r)
{
    struct sm_sched *s = r->hook_buf;
    s->cur = -1;
    s->nrq = 0;
    s->err = 0;
    s->next = NULL;
    s->user = r;
    r->active = 1;
    r->base.complete = 0;
    sm_status_empty(&r->base.status);
    launch(s);
    return MPI_SUCCESS;
}

static int persist_free(MPI_Request r)
{
    struct sm_sched *s = r->hook_buf;
    if (r->active) /* started and not yet completed by a Wait or Test */
        return sm_error(r->base.comm, MPI_ERR_REQUEST, "MPI_Request_free",
                        "a persistent collective request cannot be freed while active");
    s->persist = 0;
    s->preq_ops = NULL;
    s_free(s);
    sm_req_release(&r->base);
    return MPI_SUCCESS;
}

static const struct sm_preq_ops persist_ops = { persist_start, persist_free };

int sm_coll_check_init(MPI_Comm c, MPI_Info info, MPI_Request *req, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_comm(c, fn));
    if (!req)
        return sm_error(c, MPI_ERR_REQUEST, fn, "NULL request pointer");
    if (info != MPI_INFO_NULL && !sm_info_valid(info))
        return sm_error(c, MPI_ERR_INFO, fn, "invalid info object");
    return MPI_SUCCESS;
}

/* the requests of the round in progress have all completed */
static int round_done(void *arg)
{
    struct sm_sched *s = arg;
    for (int i = 0; i < s->nrq; i++)
        if (s->rq[i] != MPI_REQUEST_NULL && !s->rq[i]->base.complete)
            return 0;
    return 1;
}

/* a blocking collective: no user request, no place in the list of running schedules; the
 * caller progresses until each round's requests complete, exactly as a sequence of
 * point-to-point waits would */
int sm_sched_wait(struct sm_sched *s)
{
    int moved = 0;
    while (!advance(s, &moved))
        sm_progress_until(round_done, s);
    int err = s->err;
    s_free(s);
    return err;
}

int sm_sched_run(struct sm_sched *s, const struct sm_how *how, const char *fn)
{
    MPI_Comm c = s->owner;
    if (how && how->init) {
        s->persist = 1;
        s->preq_ops = &persist_ops;
        *how->req = sm_preq_new(c, s);
        return MPI_SUCCESS;
    }
    if (how)
        return sm_sched_start(s, how->req);
    int err = sm_sched_wait(s);
    return err ? sm_error(c, err, fn, NULL) : MPI_SUCCESS;
}
