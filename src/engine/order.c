/* order.c — the ordering rule's bookkeeping (docs/design.md "Ordering"): for every (sender,
 * context) the next expected sequence number, the messages that arrived early (ahead of a gap,
 * possible when the transport spreads tags over independent streams), and the receives that
 * the rule reserved for messages still missing. */
#include <stdlib.h>

#include "engine/engine_internal.h"

struct sm_early {
    struct sm_list link;
    uint32_t seq;
    struct sm_msg *msg; /* NULL: arrived and already matched */
};

struct sm_order {
    int src;
    uint32_t ctx;
    uint32_t next;
    struct sm_list early;  /* struct sm_early, sorted by seq */
    struct sm_list resv;   /* reserved receives (r->seq = the missing seq), sorted by seq */
    struct sm_list owners; /* in early_owners while early is not empty */
    size_t nearly;
    struct sm_early *finger; /* the last one added (NULL: none, or dropped since) */
};

static struct sm_list early_owners = { &early_owners, &early_owners };
static size_t early_total;

static int seq_lt(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}

struct sm_order *sm_order_get(int src, uint32_t ctx)
{
    uint64_t k = sm_key(src, ctx);
    struct sm_order *o = sm_map_get(&sm_eng.order, k);
    if (!o) {
        o = sm_xcalloc(1, sizeof *o);
        o->src = src;
        o->ctx = ctx;
        sm_list_init(&o->early);
        sm_list_init(&o->resv);
        sm_list_init(&o->owners);
        if (sm_map_put(&sm_eng.order, k, o))
            sm_die("out of memory in the ordering table");
    }
    return o;
}

uint32_t sm_order_next(const struct sm_order *o)
{
    return o->next;
}

/* The missing numbers in [next, seq) are those neither in the early list nor reserved.  Both
 * lists are sorted, so one merged walk counts them and lists the first max, in
 * O(early + reservations + max) — a backlog of 100,000 early messages stays cheap. */
uint32_t sm_order_missing(const struct sm_order *o, uint32_t seq, uint32_t *out, uint32_t max)
{
    const struct sm_list *e = o->early.next, *r = o->resv.next;
    uint32_t known = 0, n = 0, s = o->next;
    for (;;) {
        uint32_t es = e != &o->early ? sm_container_of(e, struct sm_early, link)->seq : seq;
        uint32_t rs = r != &o->resv ? sm_container_of(r, struct sm_req, link)->seq : seq;
        uint32_t k = seq_lt(es, rs) ? es : rs; /* next known (arrived or reserved) number */
        if (!seq_lt(k, seq))
            k = seq;
        for (; seq_lt(s, k) && n < max; s++)
            out[n++] = s; /* s is missing */
        if (!seq_lt(k, seq))
            break;
        known++;
        if (seq_lt(s, k + 1))
            s = k + 1;
        if (k == es)
            e = e->next;
        else
            r = r->next;
    }
    return (uint32_t)(seq - o->next) - known;
}

int sm_order_waiting_before(const struct sm_order *o, uint32_t seq, int tag)
{
    for (const struct sm_list *p = o->early.next; p != &o->early; p = p->next) {
        const struct sm_early *e = sm_container_of(p, struct sm_early, link);
        if (!seq_lt(e->seq, seq))
            break;
        if (e->msg && (tag < 0 || e->msg->tag == tag))
            return 1;
    }
    return 0;
}

void sm_order_reserve(struct sm_order *o, uint32_t seq, struct sm_req *r)
{
    r->reserved = 1;
    r->seq = seq;
    struct sm_list *p;
    for (p = o->resv.next; p != &o->resv; p = p->next)
        if (seq_lt(seq, sm_container_of(p, struct sm_req, link)->seq))
            break;
    sm_list_insert_before(p, &r->link);
}

struct sm_req *sm_order_take_reservation(struct sm_order *o, uint32_t seq)
{
    for (struct sm_list *p = o->resv.next; p != &o->resv; p = p->next) {
        struct sm_req *r = sm_container_of(p, struct sm_req, link);
        if (r->seq == seq) {
            sm_list_remove(&r->link);
            r->reserved = 0;
            return r;
        }
        if (seq_lt(seq, r->seq))
            break;
    }
    return NULL;
}

static uint32_t early_seq(const struct sm_list *p)
{
    return sm_container_of(p, const struct sm_early, link)->seq;
}

/* The entry seq goes after (the list is sorted; equal numbers keep arrival order).  Arrivals
 * mostly come in increasing order, so the search starts at the tail; but a transport that hands
 * over one rail's (or stream's) backlog after another's inserts each message of the second just
 * after the previous one, far from the tail, so a second search walks from the last insertion
 * (the finger).  The two walks take turns, one step each: the cost is twice the shorter one. */
static struct sm_list *early_place(struct sm_order *o, uint32_t seq)
{
    struct sm_list *head = &o->early, *t = head->prev, *f = NULL;
    int forward = 0;
    if (o->finger) {
        f = &o->finger->link;
        forward = !seq_lt(seq, early_seq(f)); /* seq goes after the finger */
    }
    for (;;) {
        /* from the tail, backwards: the first entry not above seq */
        if (t == head || !seq_lt(seq, early_seq(t)))
            return t;
        t = t->prev;
        if (!f)
            continue;
        if (forward) { /* from the finger, forwards: stop before the first entry above seq */
            if (f->next == head || seq_lt(seq, early_seq(f->next)))
                return f;
            f = f->next;
        } else { /* from the finger, backwards, as from the tail */
            f = f->prev;
            if (f == head || !seq_lt(seq, early_seq(f)))
                return f;
        }
    }
}

void sm_order_add_early(struct sm_order *o, uint32_t seq, struct sm_msg *m)
{
    struct sm_early *e = sm_xmalloc(sizeof *e);
    e->seq = seq;
    e->msg = m;
    struct sm_list *p = early_place(o, seq);
    sm_list_insert_before(p->next, &e->link);
    o->finger = e;
    if (o->nearly++ == 0)
        sm_list_push_back(&early_owners, &o->owners);
    if (m && ++early_total > sm_eng.early_peak)
        sm_eng.early_peak = early_total;
}

void sm_order_advance(struct sm_order *o)
{
    o->next++;
}

static void drop_early(struct sm_order *o, struct sm_early *e)
{
    if (o->finger == e)
        o->finger = NULL;
    sm_list_remove(&e->link);
    if (e->msg)
        early_total--;
    free(e);
    if (--o->nearly == 0)
        sm_list_remove(&o->owners);
}

struct sm_msg *sm_order_pop_ready(struct sm_order *o, int *found)
{
    *found = 0;
    while (!sm_list_empty(&o->early)) {
        struct sm_early *e = sm_container_of(o->early.next, struct sm_early, link);
        if (e->seq != o->next)
            return NULL;
        struct sm_msg *m = e->msg;
        drop_early(o, e);
        if (m) { /* the caller handles it and advances next */
            sm_timing_early_released(m);
            *found = 1;
            return m;
        }
        o->next++; /* matched when it arrived early: just step over it */
    }
    return NULL;
}

struct sm_msg *sm_order_find_early(int src_world, uint32_t ctx, int tag, struct sm_order **owner)
{
    struct sm_list *p;
    for (p = early_owners.next; p != &early_owners; p = p->next) {
        struct sm_order *o = sm_container_of(p, struct sm_order, owners);
        if (o->ctx != ctx || (src_world >= 0 && o->src != src_world))
            continue;
        for (struct sm_list *q = o->early.next; q != &o->early; q = q->next) {
            struct sm_early *e = sm_container_of(q, struct sm_early, link);
            if (e->msg && e->msg->tag == tag) {
                *owner = o;
                return e->msg;
            }
        }
    }
    return NULL;
}

void sm_order_consume_early(struct sm_order *o, struct sm_msg *m)
{
    for (struct sm_list *q = o->early.next; q != &o->early; q = q->next) {
        struct sm_early *e = sm_container_of(q, struct sm_early, link);
        if (e->msg == m) {
            sm_timing_early_taken(m);
            e->msg = NULL;
            early_total--;
            return;
        }
    }
}

size_t sm_order_early_count(void)
{
    return early_total;
}

void sm_order_fini(void)
{
    struct sm_map *m = &sm_eng.order;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == UINT64_MAX)
            continue;
        struct sm_order *o = m->vals[i];
        while (!sm_list_empty(&o->early)) {
            struct sm_early *e = sm_container_of(o->early.next, struct sm_early, link);
            if (e->msg) {
                free(e->msg->data);
                free(e->msg);
            }
            drop_early(o, e);
        }
        free(o);
    }
    sm_map_free(m);
}
