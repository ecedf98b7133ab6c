/* ctx_agree.c — context ids of new communicators, agreed by their members, blocking or not.
 *
 * Every process keeps the lowest id it has never used or promised (next_ctx, only ever
 * raised); a new communicator takes the maximum of its members' values, which no member uses.
 * While a process has a non-blocking agreement outstanding, its next_ctx can rise between the
 * moment it offered a value and the moment an agreement's maximum comes back (the other
 * agreement finished in between, from progress), so the maximum may already be taken there.
 * Such agreements run in two rounds: the maximum X of the offers, then the maximum of
 * "X is taken here" (X overlaps a range this process reserved since its offer, checked the
 * moment X arrives; a process that finds X free reserves it at once, so nothing later can
 * take it).  Nobody objecting makes X the answer; otherwise everybody offers again, a
 * pseudo-random number of slots higher so that two agreements that blocked each other (each
 * process reserving for the one whose answer came first) stop meeting.  A blocking agreement asks in its first round
 * whether any member has a non-blocking one outstanding, and needs the second round only
 * then: without one no member's next_ctx can move while it waits. */
#include <stdlib.h>
#include <string.h>

#include "api/ctx_agree.h"
#include "engine/thread_lock.h"

static uint32_t next_ctx = 4;
static int nb_outstanding;

/* The id ranges reserved since no non-blocking agreement was outstanding: an agreement's
 * maximum X (at least this process's offer) can only collide with a range reserved after the
 * offer, and every such range is here (or, past the cap, anything below next_ctx counts). */
struct range {
    uint32_t lo, hi;
};
static struct range *taken;
static int ntaken, taken_cap, taken_overflow;

/* blocking agreements in progress: more than one only under MPI_THREAD_MULTIPLE, where a
 * thread's blocking agreement lets other threads run theirs while it waits; then this
 * process's next_ctx can rise during any agreement, so every one takes the two rounds */
static int blocking_active;

static void forget_if_idle(void)
{
    if (nb_outstanding == 0 && blocking_active == 0) {
        ntaken = 0;
        taken_overflow = 0;
    }
}

static int is_taken(uint32_t x, int nids)
{
    uint32_t hi = x + 2u * (uint32_t)nids;
    if (taken_overflow)
        return next_ctx > x;
    for (int i = 0; i < ntaken; i++)
        if (taken[i].lo < hi && x < taken[i].hi)
            return 1;
    return 0;
}

static void reserve(uint32_t base, int nids)
{
    if (base >= SM_CTX_FINALIZE - 2u * (uint32_t)nids - 64u * 2u * (uint32_t)nids)
        sm_die("communicator context ids exhausted");
    uint32_t end = base + 2u * (uint32_t)nids;
    if (end > next_ctx)
        next_ctx = end;
    if (ntaken == taken_cap && !taken_overflow) {
        if (taken_cap >= 4096) {
            taken_overflow = 1;
            return;
        }
        taken_cap = taken_cap ? 2 * taken_cap : 16;
        struct range *t = realloc(taken, sizeof *t * (size_t)taken_cap);
        if (!t)
            sm_die("out of memory agreeing on a context id");
        taken = t;
    }
    if (!taken_overflow)
        taken[ntaken++] = (struct range){ base, end };
}

/* a retry's offer: above next_ctx by a pseudo-random number of slots, so two agreements that
 * collided (each process finding the other's reservation first) offer different values */
static uint32_t retry_offer(int nids)
{
    static uint32_t lcg = 12345u;
    lcg = lcg * 1103515245u + 12345u + (uint32_t)sm_world_rank();
    return next_ctx + 2u * (uint32_t)nids * ((lcg >> 16) % 32u);
}

uint32_t sm_ctx_agree_with(sm_allmax_fn *f, void *arg, int nids)
{
    forget_if_idle();
    int threaded = atomic_load_explicit(&sm_threads_on, memory_order_relaxed);
    blocking_active++;
    for (int tries = 0;; tries++) {
        if (tries == 1000)
            sm_die("no agreement on a communicator context id after 1000 tries");
        uint32_t v[2] = { tries ? retry_offer(nids) : next_ctx, nb_outstanding > 0 || threaded };
        f(v, arg);
        if (!v[1]) {
            reserve(v[0], nids);
            blocking_active--;
            return v[0];
        }
        uint32_t w[2] = { (uint32_t)is_taken(v[0], nids), 0 };
        if (!w[0])
            reserve(v[0], nids);
        f(w, arg);
        if (!w[0]) {
            blocking_active--;
            return v[0];
        }
    }
}

static int allmax_intra(uint32_t v[2], void *comm)
{
    uint32_t out[2] = { 0, 0 };
    int e = sm_coll_allreduce(v, out, 2, MPI_UNSIGNED, MPI_MAX, comm);
    v[0] = out[0];
    v[1] = out[1];
    return e;
}

int sm_ctx_allmax_inter(uint32_t v[2], void *inter_)
{
    MPI_Comm inter = inter_, local = inter->x->local_comm;
    int tag = sm_coll_tag(inter);
    int e = allmax_intra(v, local);
    if (local->rank == 0) {
        uint32_t theirs[2] = { 0, 0 };
        MPI_Request rq[2];
        sm_irecv_ctx(theirs, sizeof theirs, 0, tag, inter, inter->ctx + 1, &rq[0]);
        sm_isend_ctx(v, sizeof theirs, 0, tag, inter, inter->ctx + 1, &rq[1]);
        int e1 = sm_wait_one(&rq[1], MPI_STATUS_IGNORE);
        int e0 = sm_wait_one(&rq[0], MPI_STATUS_IGNORE);
        for (int i = 0; i < 2; i++)
            if (theirs[i] > v[i])
                v[i] = theirs[i];
        if (!e)
            e = e0 ? e0 : e1;
    }
    int e2 = sm_coll_bcast(v, 2, MPI_UNSIGNED, 0, local);
    return e ? e : e2;
}

uint32_t sm_ctx_agree_n(MPI_Comm parent, int nids)
{
    if (sm_comm_is_inter(parent))
        return sm_ctx_agree_with(sm_ctx_allmax_inter, parent, nids);
    return sm_ctx_agree_with(allmax_intra, parent, nids);
}

uint32_t sm_ctx_agree(MPI_Comm parent)
{
    return sm_ctx_agree_n(parent, 1);
}

/* ---- non-blocking agreements: one state machine each, advanced from a progress hook.
 * A round is a linear allmax: members send their pair to the local leader (rank 0 of the
 * group, of the local group for an intercommunicator), the leader combines, swaps with the
 * remote leader (intercommunicators), and sends the result back.  Messages travel on the
 * collective context of the group with tags of their own (0x40000000 | sequence of the
 * parent | round), apart from the blocking (< 0x10000000), create_group (0x1...) and
 * schedule (0x2...) ones. */
enum { ST_GATHER, ST_SWAP, ST_BCAST, ST_RESULT };

struct nb_agree {
    struct nb_agree *next;
    MPI_Comm parent;
    int nids;
    uint32_t tagbase;
    int round;  /* allmax rounds so far (tag) */
    int second; /* this round is the objection round */
    int stage;
    uint32_t mine[2], res[2], rv[2], cand;
    uint32_t *in; /* leader: the members' pairs */
    MPI_Request *rq;
    int nrq;
    void (*done)(void *, uint32_t);
    void *arg;
    struct sctpmpi_request *user;
};

static struct nb_agree *active;
static int in_hook;

static MPI_Comm group_of(struct nb_agree *a)
{
    return sm_comm_is_inter(a->parent) ? a->parent->x->local_comm : a->parent;
}

static int round_tag(struct nb_agree *a)
{
    return (int)(a->tagbase | (uint32_t)(a->round & 0xff));
}

static void start_round(struct nb_agree *a, uint32_t v0, uint32_t v1)
{
    MPI_Comm g = group_of(a);
    int tag = round_tag(a);
    a->mine[0] = v0;
    a->mine[1] = v1;
    a->nrq = 0;
    if (g->rank != 0) {
        sm_isend_ctx(a->mine, sizeof a->mine, 0, tag, g, g->ctx + 1, &a->rq[a->nrq++]);
        sm_irecv_ctx(a->res, sizeof a->res, 0, tag, g, g->ctx + 1, &a->rq[a->nrq++]);
        a->stage = ST_RESULT;
        return;
    }
    for (int i = 1; i < g->size; i++)
        sm_irecv_ctx(&a->in[2 * i], 2 * sizeof(uint32_t), i, tag, g, g->ctx + 1,
                     &a->rq[a->nrq++]);
    a->stage = ST_GATHER;
}

/* the current requests have all completed: take the next step; 1 when the agreement ended */
static int step(struct nb_agree *a)
{
    MPI_Comm g = group_of(a);
    int tag = round_tag(a);
    a->nrq = 0;
    switch (a->stage) {
    case ST_GATHER:
        a->res[0] = a->mine[0];
        a->res[1] = a->mine[1];
        for (int i = 1; i < g->size; i++)
            for (int k = 0; k < 2; k++)
                if (a->in[2 * i + k] > a->res[k])
                    a->res[k] = a->in[2 * i + k];
        if (sm_comm_is_inter(a->parent)) {
            MPI_Comm p = a->parent;
            sm_irecv_ctx(a->rv, sizeof a->rv, 0, tag, p, p->ctx + 1, &a->rq[a->nrq++]);
            sm_isend_ctx(a->res, sizeof a->res, 0, tag, p, p->ctx + 1, &a->rq[a->nrq++]);
            a->stage = ST_SWAP;
            return 0;
        }
        /* fall through */
    case ST_SWAP:
        if (a->stage == ST_SWAP)
            for (int k = 0; k < 2; k++)
                if (a->rv[k] > a->res[k])
                    a->res[k] = a->rv[k];
        for (int i = 1; i < g->size; i++)
            sm_isend_ctx(a->res, sizeof a->res, i, tag, g, g->ctx + 1, &a->rq[a->nrq++]);
        a->stage = ST_BCAST;
        return 0;
    case ST_BCAST:
    case ST_RESULT: break;
    }
    /* the round's result is in res */
    a->round++;
    if (!a->second) {
        a->cand = a->res[0];
        int busy = is_taken(a->cand, a->nids);
        if (!busy)
            reserve(a->cand, a->nids);
        a->second = 1;
        start_round(a, (uint32_t)busy, 0);
        return 0;
    }
    if (a->res[0] == 0)
        return 1;
    if (a->round >= 2000)
        sm_die("no agreement on a communicator context id after 1000 tries");
    a->second = 0;
    start_round(a, retry_offer(a->nids), 1);
    return 0;
}

/* advance a as far as it goes without waiting; 1 when it has finished */
static int advance(struct nb_agree *a, int *moved)
{
    for (;;) {
        for (int i = 0; i < a->nrq; i++) {
            if (a->rq[i] == MPI_REQUEST_NULL)
                continue;
            if (!a->rq[i]->base.complete)
                return 0;
            sm_wait_one(&a->rq[i], MPI_STATUS_IGNORE); /* complete: releases it */
            ++*moved;
        }
        if (step(a))
            return 1;
        ++*moved;
    }
}

static void finish(struct nb_agree *a)
{
    nb_outstanding--;
    a->done(a->arg, a->cand);
    struct sctpmpi_request *u = a->user;
    free(a->in);
    free(a->rq);
    free(a);
    sm_req_complete(&u->base); /* releases it if MPI_Request_free was called */
}

static int agree_hook(void)
{
    if (in_hook || !active)
        return 0;
    in_hook = 1;
    int moved = 0;
    struct nb_agree **pp = &active;
    while (*pp) {
        struct nb_agree *a = *pp;
        if (advance(a, &moved)) {
            *pp = a->next;
            finish(a);
        } else {
            pp = &a->next;
        }
    }
    in_hook = 0;
    return moved;
}

void sm_ctx_agree_start(MPI_Comm parent, int nids, void (*done)(void *arg, uint32_t ctx),
                        void *arg, MPI_Request *req)
{
    static int hooked;
    if (!hooked) {
        sm_progress_hook_add(agree_hook);
        hooked = 1;
    }
    struct nb_agree *a = sm_xcalloc(1, sizeof *a);
    a->parent = parent;
    a->nids = nids;
    a->tagbase = 0x40000000u | ((sm_comm_x(parent)->nbc_seq++ & 0xfffffu) << 8);
    a->done = done;
    a->arg = arg;
    MPI_Comm g = group_of(a);
    a->in = sm_xcalloc(2 * (size_t)g->size, sizeof *a->in);
    a->rq = sm_xcalloc((size_t)g->size + 2, sizeof *a->rq);
    struct sctpmpi_request *u = sm_request_alloc(SM_REQ_DONE);
    u->base.comm = parent;
    u->base.status.MPI_SOURCE = MPI_ANY_SOURCE;
    u->base.status.MPI_TAG = MPI_ANY_TAG;
    a->user = u;
    *req = u;
    forget_if_idle();
    nb_outstanding++;
    int was = in_hook, moved = 0;
    in_hook = 1; /* posting may poll progress: keep the hook away from a half-started one */
    start_round(a, next_ctx, 1);
    int fin = advance(a, &moved);
    in_hook = was;
    if (fin) {
        finish(a);
        return;
    }
    struct nb_agree **pp = &active; /* append: agreements advance in start order */
    while (*pp)
        pp = &(*pp)->next;
    *pp = a;
}
