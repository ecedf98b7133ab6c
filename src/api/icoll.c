/* icoll.c — MPI-3 non-blocking collectives on intracommunicators (Ibarrier ... Iexscan) and
 * the schedule engine that runs them.
 *
 * A schedule is a list of rounds built completely when the collective is called (every
 * algorithm here is data-independent).  A round posts its sends and receives (on the
 * collective context, with a tag of its own: 0x20000000 | per-communicator sequence, so
 * concurrent non-blocking collectives never cross-match each other or blocking ones), and when
 * all of them have completed runs its local steps (copies, reductions) in order; then the next
 * round starts.  Schedules advance in a progress hook (sm_progress_hook_add), which only starts
 * and tests requests, never blocks.  The user's request is an SM_REQ_DONE request completed with
 * sm_req_complete when the last round ends, so Wait/Test/Request_free work unchanged.
 * Algorithms: dissemination barrier, binomial bcast and reduce (rank order for
 * non-commutative ops), recursive-doubling allreduce / scan / exscan (the blocking ones'
 * order), linear gather/scatter/allgather/alltoall (all posts in one round). */
#include "api/coll_util.h"


enum { ST_SEND = 1, ST_RECV, ST_COPY, ST_REDUCE };

struct step {
    int type;
    const void *src;     /* SEND data, COPY source, REDUCE in */
    void *dst;           /* RECV buffer, COPY destination, REDUCE inout */
    int count, dcount;
    MPI_Datatype dt, ddt;
    int peer;
    MPI_Op op;
};

struct round { struct step *st; int n, cap; };

struct sched {
    struct sched *next;
    MPI_Comm comm;
    int tag;
    struct round *rd;
    int nrd, cap;
    int cur;              /* round in progress */
    MPI_Request *rq;      /* its requests */
    int nrq, rqcap;
    void **mem;           /* temporaries to free */
    int nmem, memcap;
    MPI_Datatype *dts;    /* derived types retained until the end */
    int ndts, dtcap;
    int err;
    struct sctpmpi_request *user;
};

static struct sched *active_head;
int sm_nbc_active;

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

static struct sched *s_new(MPI_Comm c)
{
    struct sched *s = sm_xcalloc(1, sizeof *s);
    struct sm_comm_ext *x = sm_comm_x(c);
    s->comm = c;
    s->tag = (int)(0x20000000u | (x->nbc_seq++ & 0x0fffffffu));
    s->cur = -1;
    return s;
}

static void s_round(struct sched *s)
{
    s->rd = grow(s->rd, &s->cap, s->nrd + 1, sizeof *s->rd);
    s->rd[s->nrd++] = (struct round){NULL, 0, 0};
}

static void keep_dt(struct sched *s, MPI_Datatype dt)
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

static void add(struct sched *s, struct step st)
{
    if (!s->nrd)
        s_round(s);
    struct round *r = &s->rd[s->nrd - 1];
    r->st = grow(r->st, &r->cap, r->n + 1, sizeof *r->st);
    r->st[r->n++] = st;
    keep_dt(s, st.dt);
    keep_dt(s, st.ddt);
}

static void s_send(struct sched *s, const void *b, int n, MPI_Datatype dt, int peer)
{
    add(s, (struct step){.type = ST_SEND, .src = b, .count = n, .dt = dt, .peer = peer});
}
static void s_recv(struct sched *s, void *b, int n, MPI_Datatype dt, int peer)
{
    add(s, (struct step){.type = ST_RECV, .dst = b, .count = n, .dt = dt, .peer = peer});
}
static void s_copy(struct sched *s, const void *src, int sn, MPI_Datatype st, void *dst, int dn,
                   MPI_Datatype dt)
{
    add(s, (struct step){.type = ST_COPY, .src = src, .count = sn, .dt = st, .dst = dst,
                         .dcount = dn, .ddt = dt});
}
/* inout = in op inout */
static void s_reduce(struct sched *s, MPI_Op op, const void *in, void *inout, int n,
                     MPI_Datatype dt)
{
    add(s, (struct step){.type = ST_REDUCE, .src = in, .dst = inout, .count = n, .dt = dt,
                         .op = op});
}
/* acc = acc op higher (higher is clobbered when the op does not commute) */
static void s_combine_higher(struct sched *s, MPI_Op op, void *acc, void *higher, int n,
                             MPI_Datatype dt)
{
    if (op->commute) {
        s_reduce(s, op, higher, acc, n, dt);
    } else {
        s_reduce(s, op, acc, higher, n, dt);
        s_copy(s, higher, n, dt, acc, n, dt);
    }
}

static void *s_tmp(struct sched *s, int count, MPI_Datatype dt)
{
    void *base, *p = sm_dt_tmp(count, dt, &base);
    s->mem = grow(s->mem, &s->memcap, s->nmem + 1, sizeof *s->mem);
    s->mem[s->nmem++] = base;
    return p;
}

static void *s_bytes(struct sched *s, size_t n)
{
    void *p = sm_xmalloc(n ? n : 1);
    s->mem = grow(s->mem, &s->memcap, s->nmem + 1, sizeof *s->mem);
    s->mem[s->nmem++] = p;
    return p;
}

static void s_free(struct sched *s)
{
    for (int i = 0; i < s->nrd; i++)
        free(s->rd[i].st);
    free(s->rd);
    free(s->rq);
    for (int i = 0; i < s->nmem; i++)
        free(s->mem[i]);
    free(s->mem);
    for (int i = 0; i < s->ndts; i++)
        sm_dt_release(s->dts[i]);
    free(s->dts);
    free(s);
}

/* post the communication of round s->cur */
static void post_round(struct sched *s)
{
    struct round *r = &s->rd[s->cur];
    s->rq = grow(s->rq, &s->rqcap, r->n, sizeof *s->rq);
    s->nrq = 0;
    MPI_Comm c = s->comm;
    for (int i = 0; i < r->n; i++) {
        struct step *p = &r->st[i];
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

static void local_steps(struct sched *s)
{
    struct round *r = &s->rd[s->cur];
    for (int i = 0; i < r->n; i++) {
        struct step *p = &r->st[i];
        if (p->type == ST_COPY)
            sm_dt_copy(p->src, p->count, p->dt, p->dst, p->dcount, p->ddt);
        else if (p->type == ST_REDUCE)
            sm_op_apply(p->op, p->src, p->dst, p->count, p->dt);
    }
}

/* advance s as far as it goes without waiting; returns 1 when it has finished */
static int advance(struct sched *s, int *moved)
{
    for (;;) {
        if (s->cur >= 0) {
            for (int i = 0; i < s->nrq; i++) {
                if (s->rq[i] == MPI_REQUEST_NULL)
                    continue;
                if (!s->rq[i]->complete)
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

static void finish_sched(struct sched *s)
{
    struct sctpmpi_request *u = s->user;
    u->status.MPI_ERROR = s->err;
    s_free(s);
    sm_nbc_active--;
    sm_req_complete(u); /* releases it if MPI_Request_free was called */
}

static int in_hook;

static int nbc_hook(void)
{
    if (in_hook || !active_head)
        return 0;
    in_hook = 1;
    int moved = 0;
    struct sched **pp = &active_head;
    while (*pp) {
        struct sched *s = *pp;
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

void sm_nbc_progress(void) { nbc_hook(); }

/* a request is one of ours (for MPI_Cancel, which must refuse it) */
static void nbc_marker(struct sctpmpi_request *r) { (void)r; }
int sm_nbc_is_request(MPI_Request r)
{
    return r && r->kind == SM_REQ_DONE && r->hook_dt == NULL && r->hook_buf == (void *)nbc_marker;
}

/* start the schedule and hand its request to the user */
static int s_start(struct sched *s, MPI_Request *req)
{
    static int hooked;
    if (!hooked) {
        sm_progress_hook_add(nbc_hook);
        hooked = 1;
    }
    struct sctpmpi_request *u = sm_req_alloc(SM_REQ_DONE);
    u->comm = s->comm;
    u->status.MPI_SOURCE = MPI_ANY_SOURCE;
    u->status.MPI_TAG = MPI_ANY_TAG;
    u->hook_buf = (void *)nbc_marker;
    s->user = u;
    *req = u;
    sm_nbc_active++;
    int moved = 0, was = in_hook;
    in_hook = 1; /* posting may poll progress: keep the hook out of a half-built list */
    int done = advance(s, &moved);
    in_hook = was;
    if (done) {
        finish_sched(s);
    } else {
        struct sched **pp = &active_head; /* append: schedules advance in start order */
        while (*pp)
            pp = &(*pp)->next;
        *pp = s;
    }
    return MPI_SUCCESS;
}

static int check_req(MPI_Comm c, MPI_Request *req, const char *fn)
{
    if (!req)
        return sm_error(c, MPI_ERR_REQUEST, fn, "NULL request pointer");
    return MPI_SUCCESS;
}

static int check(MPI_Comm c, MPI_Request *req, const char *fn)
{
    SM_TRY(sm_coll_check(c, fn));
    return check_req(c, req, fn);
}

/* ---- builders ----------------------------------------------------------------------------- */
static void b_bcast(struct sched *s, void *buf, int count, MPI_Datatype dt, int root)
{
    MPI_Comm c = s->comm;
    int n = c->size;
    if (n == 1 || count == 0)
        return;
    int rel = (c->rank - root + n) % n, mask = 1;
    while (mask < n) {
        if (rel & mask) {
            s_round(s);
            s_recv(s, buf, count, dt, (rel - mask + root) % n);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    s_round(s);
    for (; mask > 0; mask >>= 1)
        if (rel + mask < n)
            s_send(s, buf, count, dt, (rel + mask + root) % n);
}

static void b_reduce(struct sched *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                     MPI_Op op, int root)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    const void *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (count == 0)
        return;
    s_round(s);
    if (n == 1) {
        if (sbuf != MPI_IN_PLACE)
            s_copy(s, sbuf, count, dt, rbuf, count, dt);
        return;
    }
    int base = op->commute ? root : 0, rel = (me - base + n) % n;
    char *acc = s_tmp(s, count, dt);
    s_copy(s, src, count, dt, acc, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        if (rel & mask) {
            s_round(s);
            s_send(s, acc, count, dt, (rel - mask + base) % n);
            break;
        }
        if (rel + mask < n) {
            char *tmp = s_tmp(s, count, dt);
            s_round(s);
            s_recv(s, tmp, count, dt, (rel + mask + base) % n);
            s_combine_higher(s, op, acc, tmp, count, dt);
        }
    }
    if (me == base && base != root) {
        s_round(s);
        s_send(s, acc, count, dt, root);
    }
    if (me == root) {
        s_round(s);
        if (base != root)
            s_recv(s, rbuf, count, dt, base);
        else
            s_copy(s, acc, count, dt, rbuf, count, dt);
    }
}

/* rbuf = reduction of src over all ranks (src NULL: rbuf holds this rank's contribution) */
static void b_allreduce(struct sched *s, const void *src, void *rbuf, int count,
                        MPI_Datatype dt, MPI_Op op)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    if (src) {
        s_round(s);
        s_copy(s, src, count, dt, rbuf, count, dt);
    }
    if (n == 1 || count == 0)
        return;
    int pof2 = 1;
    while (pof2 * 2 <= n)
        pof2 *= 2;
    int rem = n - pof2, newrank;
    if (me < 2 * rem) {
        s_round(s);
        if (me % 2 == 0) {
            s_send(s, rbuf, count, dt, me + 1);
            newrank = -1;
        } else {
            char *tmp = s_tmp(s, count, dt);
            s_recv(s, tmp, count, dt, me - 1);
            s_reduce(s, op, tmp, rbuf, count, dt);
            newrank = me / 2;
        }
    } else {
        newrank = me - rem;
    }
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int nd = newrank ^ mask, dst = nd < rem ? nd * 2 + 1 : nd + rem;
            char *tmp = s_tmp(s, count, dt);
            s_round(s);
            s_send(s, rbuf, count, dt, dst);
            s_recv(s, tmp, count, dt, dst);
            if (dst < me)
                s_reduce(s, op, tmp, rbuf, count, dt);
            else
                s_combine_higher(s, op, rbuf, tmp, count, dt);
        }
    }
    if (me < 2 * rem) {
        s_round(s);
        if (me % 2)
            s_send(s, rbuf, count, dt, me - 1);
        else
            s_recv(s, rbuf, count, dt, me + 1);
    }
}

static void b_scan(struct sched *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                   MPI_Op op, int inclusive)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank, have = inclusive;
    if (count == 0)
        return;
    s_round(s);
    char *partial = s_tmp(s, count, dt);
    s_copy(s, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt, partial, count, dt);
    if (inclusive && sbuf != MPI_IN_PLACE)
        s_copy(s, sbuf, count, dt, rbuf, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        int dst = me ^ mask;
        if (dst >= n)
            continue;
        char *tmp = s_tmp(s, count, dt);
        s_round(s);
        s_send(s, partial, count, dt, dst);
        s_recv(s, tmp, count, dt, dst);
        if (me > dst) {
            if (have) {
                s_reduce(s, op, tmp, rbuf, count, dt);
            } else {
                s_copy(s, tmp, count, dt, rbuf, count, dt);
                have = 1;
            }
            s_reduce(s, op, tmp, partial, count, dt);
        } else {
            s_combine_higher(s, op, partial, tmp, count, dt);
        }
    }
}

/* ---- Ibarrier, Ibcast --------------------------------------------------------------------- */
int MPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ibarrier";
    SM_TRY(check(comm, request, fn));
    struct sched *s = s_new(comm);
    static char dummy;
    int n = comm->size, me = comm->rank;
    for (int mask = 1; mask < n; mask <<= 1) {
        s_round(s);
        s_send(s, &dummy, 0, MPI_BYTE, (me + mask) % n);
        s_recv(s, &dummy, 0, MPI_BYTE, (me - mask + n) % n);
    }
    return s_start(s, request);
}

int MPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
               MPI_Request *request)
{
    const char *fn = "MPI_Ibcast";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_check_buffer(comm, buf, count, dt, fn));
    SM_TRY(sm_coll_check_root(comm, root, fn));
    struct sched *s = s_new(comm);
    b_bcast(s, buf, count, dt, root);
    return s_start(s, request);
}

/* ---- reductions --------------------------------------------------------------------------- */
int MPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ireduce";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_coll_check_root(comm, root, fn));
    SM_TRY(sm_check_buffer(comm, comm->rank == root ? rbuf : sbuf, count, dt, fn));
    if (sbuf == MPI_IN_PLACE && comm->rank != root)
        return sm_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only allowed at the root");
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sched *s = s_new(comm);
    b_reduce(s, sbuf, rbuf, count, dt, op, root);
    return s_start(s, request);
}

int MPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iallreduce";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sched *s = s_new(comm);
    b_allreduce(s, sbuf == MPI_IN_PLACE ? NULL : sbuf, rbuf, count, dt, op);
    return s_start(s, request);
}

static int ireduce_scatter(const void *sbuf, void *rbuf, const int *counts, MPI_Datatype dt,
                           MPI_Op op, MPI_Comm c, MPI_Request *request)
{
    int n = c->size, total = 0, mine = 0;
    for (int i = 0; i < n; i++) {
        if (i == c->rank)
            mine = total;
        total += counts[i];
    }
    struct sched *s = s_new(c);
    char *all = s_tmp(s, total, dt);
    b_allreduce(s, sbuf == MPI_IN_PLACE ? rbuf : sbuf, all, total, dt, op);
    s_round(s);
    s_copy(s, all + (MPI_Aint)mine * dt->extent, counts[c->rank], dt, rbuf, counts[c->rank],
           dt);
    return s_start(s, request);
}

int MPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ireduce_scatter";
    SM_TRY(check(comm, request, fn));
    if (!rcounts)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts");
    for (int i = 0; i < comm->size; i++)
        if (rcounts[i] < 0)
            return sm_error(comm, MPI_ERR_COUNT, fn, "count %d is negative", rcounts[i]);
    SM_TRY(sm_check_buffer(comm, rbuf, rcounts[comm->rank], dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    return ireduce_scatter(sbuf, rbuf, rcounts, dt, op, comm, request);
}

int MPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ireduce_scatter_block";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    int *counts = sm_xmalloc(sizeof(int) * (size_t)comm->size);
    for (int i = 0; i < comm->size; i++)
        counts[i] = rcount;
    int err = ireduce_scatter(sbuf, rbuf, counts, dt, op, comm, request);
    free(counts);
    return err;
}

int MPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
              MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iscan";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sched *s = s_new(comm);
    b_scan(s, sbuf, rbuf, count, dt, op, 1);
    return s_start(s, request);
}

int MPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iexscan";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sched *s = s_new(comm);
    b_scan(s, sbuf, rbuf, count, dt, op, 0);
    return s_start(s, request);
}

/* ---- Gather(v), Scatter(v) ---------------------------------------------------------------- */
static void b_gatherv(struct sched *s, const void *sbuf, int scount, MPI_Datatype st,
                      void *rbuf, const int *rcounts, const int *displs, int rcount,
                      MPI_Datatype rt, int root)
{
    MPI_Comm c = s->comm;
    s_round(s);
    if (c->rank != root) {
        s_send(s, sbuf, scount, st, root);
        return;
    }
    for (int i = 0; i < c->size; i++) {
        int cnt = rcounts ? rcounts[i] : rcount;
        void *dst = at(rbuf, displs ? displs[i] : (MPI_Aint)i * rcount, rt);
        if (i != root)
            s_recv(s, dst, cnt, rt, i);
        else if (sbuf != MPI_IN_PLACE)
            s_copy(s, sbuf, scount, st, dst, cnt, rt);
    }
}

static void b_scatterv(struct sched *s, const void *sbuf, const int *scounts, const int *displs,
                       int scount, MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt,
                       int root)
{
    MPI_Comm c = s->comm;
    s_round(s);
    if (c->rank != root) {
        s_recv(s, rbuf, rcount, rt, root);
        return;
    }
    for (int i = 0; i < c->size; i++) {
        int cnt = scounts ? scounts[i] : scount;
        const void *src = at(sbuf, displs ? displs[i] : (MPI_Aint)i * scount, st);
        if (i != root)
            s_send(s, src, cnt, st, i);
        else if (rbuf != MPI_IN_PLACE)
            s_copy(s, src, cnt, st, rbuf, rcount, rt);
    }
}

int MPI_Igather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Igather";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_coll_check_gather_args(comm, sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, root,
                                     0, fn));
    struct sched *s = s_new(comm);
    b_gatherv(s, sbuf, scount, st, rbuf, NULL, NULL, rcount, rt, root);
    return s_start(s, request);
}

int MPI_Igatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                 const int rcounts[], const int displs[], MPI_Datatype rt, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Igatherv";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_coll_check_gather_args(comm, sbuf, scount, st, rbuf, 0, rcounts, displs, rt, root,
                                     1, fn));
    struct sched *s = s_new(comm);
    b_gatherv(s, sbuf, scount, st, rbuf, rcounts, displs, 0, rt, root);
    return s_start(s, request);
}

int MPI_Iscatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                 MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iscatter";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_coll_check_scatter_args(comm, sbuf, scount, NULL, NULL, st, rbuf, rcount, rt,
                                      root, 0, fn));
    struct sched *s = s_new(comm);
    b_scatterv(s, sbuf, NULL, NULL, scount, st, rbuf, rcount, rt, root);
    return s_start(s, request);
}

int MPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype st,
                  void *rbuf, int rcount, MPI_Datatype rt, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    const char *fn = "MPI_Iscatterv";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_coll_check_scatter_args(comm, sbuf, 0, scounts, displs, st, rbuf, rcount, rt,
                                      root, 1, fn));
    struct sched *s = s_new(comm);
    b_scatterv(s, sbuf, scounts, displs, 0, st, rbuf, rcount, rt, root);
    return s_start(s, request);
}

/* ---- Allgather(v): every rank sends its block to every other, one round ------------------ */
static void b_allgatherv(struct sched *s, const void *sbuf, int scount, MPI_Datatype st,
                         void *rbuf, const int *rcounts, const int *displs, int rcount,
                         MPI_Datatype rt)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
#define RC(i) (rcounts ? rcounts[i] : rcount)
#define RD(i) (displs ? (MPI_Aint)displs[i] : (MPI_Aint)(i) * rcount)
    s_round(s);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        if (sbuf == MPI_IN_PLACE)
            s_send(s, at(rbuf, RD(me), rt), RC(me), rt, to);
        else
            s_send(s, sbuf, scount, st, to);
        s_recv(s, at(rbuf, RD(from), rt), RC(from), rt, from);
    }
    if (sbuf != MPI_IN_PLACE)
        s_copy(s, sbuf, scount, st, at(rbuf, RD(me), rt), RC(me), rt);
#undef RC
#undef RD
}

int MPI_Iallgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                   MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iallgather";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, rt, fn));
    struct sched *s = s_new(comm);
    b_allgatherv(s, sbuf, scount, st, rbuf, NULL, NULL, rcount, rt);
    return s_start(s, request);
}

int MPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rt, MPI_Comm comm,
                    MPI_Request *request)
{
    const char *fn = "MPI_Iallgatherv";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_dt(comm, rt, fn));
    if (!rcounts || !displs)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    struct sched *s = s_new(comm);
    b_allgatherv(s, sbuf, scount, st, rbuf, rcounts, displs, 0, rt);
    return s_start(s, request);
}

/* ---- Alltoall(v,w) ------------------------------------------------------------------------ */
struct a2a { int *sc, *rc; MPI_Aint *sd, *rd; MPI_Datatype *st, *rt; };

static void a2a_alloc(struct sched *s, struct a2a *a, int n)
{
    a->sc = s_bytes(s, sizeof(int) * (size_t)n);
    a->rc = s_bytes(s, sizeof(int) * (size_t)n);
    a->sd = s_bytes(s, sizeof(MPI_Aint) * (size_t)n);
    a->rd = s_bytes(s, sizeof(MPI_Aint) * (size_t)n);
    a->st = s_bytes(s, sizeof(MPI_Datatype) * (size_t)n);
    a->rt = s_bytes(s, sizeof(MPI_Datatype) * (size_t)n);
}

/* the exchange: one round, all posted; MPI_IN_PLACE sends from a copy of the receive buffer,
 * taken when the collective is called */
static void b_alltoallw(struct sched *s, const void *sbuf, struct a2a *a, void *rbuf)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    if (sbuf == MPI_IN_PLACE) {
        MPI_Aint lo = 0, hi = 0;
        int any = 0;
        for (int i = 0; i < n; i++) {
            if (!a->rc[i])
                continue;
            MPI_Datatype t = a->rt[i];
            MPI_Aint tlb = t->basic ? 0 : t->true_lb;
            MPI_Aint text = t->basic ? t->extent : t->true_extent;
            MPI_Aint l = a->rd[i] + tlb;
            MPI_Aint h = a->rd[i] + tlb + (MPI_Aint)(a->rc[i] - 1) * t->extent + text;
            if (!any || l < lo)
                lo = l;
            if (!any || h > hi)
                hi = h;
            any = 1;
        }
        char *copy = s_bytes(s, (size_t)(hi - lo));
        if (any)
            memcpy(copy, (const char *)rbuf + lo, (size_t)(hi - lo));
        sbuf = copy - lo;
        for (int i = 0; i < n; i++) {
            a->sc[i] = a->rc[i];
            a->sd[i] = a->rd[i];
            a->st[i] = a->rt[i];
        }
    }
    s_round(s);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        s_recv(s, (char *)rbuf + a->rd[from], a->rc[from], a->rt[from], from);
        s_send(s, (const char *)sbuf + a->sd[to], a->sc[to], a->st[to], to);
    }
    s_copy(s, (const char *)sbuf + a->sd[me], a->sc[me], a->st[me], (char *)rbuf + a->rd[me],
           a->rc[me], a->rt[me]);
}

int MPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                  MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ialltoall";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, rt, fn));
    int n = comm->size;
    struct sched *s = s_new(comm);
    struct a2a a;
    a2a_alloc(s, &a, n);
    for (int i = 0; i < n; i++) {
        a.rc[i] = rcount;
        a.rd[i] = (MPI_Aint)i * rcount * rt->extent;
        a.rt[i] = rt;
        if (sbuf != MPI_IN_PLACE) {
            a.sc[i] = scount;
            a.sd[i] = (MPI_Aint)i * scount * st->extent;
            a.st[i] = st;
        }
    }
    b_alltoallw(s, sbuf, &a, rbuf);
    return s_start(s, request);
}

int MPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype st,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rt,
                   MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ialltoallv";
    SM_TRY(check(comm, request, fn));
    SM_TRY(sm_check_dt(comm, rt, fn));
    if (!rcounts || !rdispls || (sbuf != MPI_IN_PLACE && (!scounts || !sdispls)))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    if (sbuf != MPI_IN_PLACE)
        SM_TRY(sm_check_dt(comm, st, fn));
    int n = comm->size;
    struct sched *s = s_new(comm);
    struct a2a a;
    a2a_alloc(s, &a, n);
    for (int i = 0; i < n; i++) {
        a.rc[i] = rcounts[i];
        a.rd[i] = (MPI_Aint)rdispls[i] * rt->extent;
        a.rt[i] = rt;
        if (sbuf != MPI_IN_PLACE) {
            a.sc[i] = scounts[i];
            a.sd[i] = (MPI_Aint)sdispls[i] * st->extent;
            a.st[i] = st;
        }
    }
    b_alltoallw(s, sbuf, &a, rbuf);
    return s_start(s, request);
}

int MPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype sts[], void *rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rts[], MPI_Comm comm,
                   MPI_Request *request)
{
    const char *fn = "MPI_Ialltoallw";
    SM_TRY(check(comm, request, fn));
    if (!rcounts || !rdispls || !rts ||
        (sbuf != MPI_IN_PLACE && (!scounts || !sdispls || !sts)))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts, displacements or types");
    int n = comm->size;
    for (int i = 0; i < n; i++) {
        SM_TRY(sm_check_dt(comm, rts[i], fn));
        if (sbuf != MPI_IN_PLACE)
            SM_TRY(sm_check_dt(comm, sts[i], fn));
    }
    struct sched *s = s_new(comm);
    struct a2a a;
    a2a_alloc(s, &a, n);
    for (int i = 0; i < n; i++) {
        a.rc[i] = rcounts[i];
        a.rd[i] = rdispls[i];
        a.rt[i] = rts[i];
        if (sbuf != MPI_IN_PLACE) {
            a.sc[i] = scounts[i];
            a.sd[i] = sdispls[i];
            a.st[i] = sts[i];
        }
    }
    b_alltoallw(s, sbuf, &a, rbuf);
    return s_start(s, request);
}
