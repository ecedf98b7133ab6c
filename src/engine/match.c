/* match.c — matching arrived messages with receives: the posted-receive queue (posting order),
 * the unexpected queue (in-order arrivals nobody asked for yet, arrival order), and the
 * early-arrival rule of docs/design.md ("Ordering") for messages that overtook earlier ones. */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

#define SM_RULE_MAX_MISSING 64

int sm_recv_matches(const struct sm_req *r, const struct sm_msg *m)
{
    return r->ctx == m->ctx && (r->wpeer < 0 || r->wpeer == m->src) &&
           (r->tag == MPI_ANY_TAG || r->tag == m->tag);
}

static struct sm_req *first_posted(const struct sm_msg *m)
{
    struct sm_list *p;
    for (p = sm_eng.posted.next; p != &sm_eng.posted; p = p->next) {
        struct sm_req *r = sm_container_of(p, struct sm_req, link);
        if (sm_recv_matches(r, m))
            return r;
    }
    return NULL;
}

/* A message from m->src arrived in order: the receive it belongs to, if any (removed from the
 * posted queue), honouring reservations the early rule made. */
struct sm_req *sm_match_in_order(struct sm_order *o, const struct sm_msg *m)
{
    struct sm_req *r = sm_order_take_reservation(o, m->seq);
    if (r)
        return r;
    r = first_posted(m);
    if (r)
        sm_list_remove(&r->link);
    return r;
}

/* A message arrived ahead of k missing ones from the same sender and context.  It may be
 * matched now only where in-order delivery would have given it the same receive:
 *  - the first posted receive that matches it names its tag: no missing message can carry that
 *    tag (same tag => same lane => delivered in order), so none of them could take it; unless
 *    an earlier message with that tag arrived early and still waits (it would take it first);
 *  - otherwise that receive is a wildcard-tag one: if the first u+1 posted receives that match
 *    this sender and context at all are wildcard-tag receives (u = missing messages without a
 *    reservation), the first u are reserved, lowest seq first, for the missing messages
 *    (exactly what in-order arrival would give them) and this message takes receive u+1; only
 *    when no earlier message of that sender and context arrived and still waits.
 * Returns the receive (removed from the posted queue) or NULL: the message waits. */
struct sm_req *sm_match_early(struct sm_order *o, const struct sm_msg *m)
{
    struct sm_req *f = first_posted(m);
    if (!f)
        return NULL;
    if (f->tag != MPI_ANY_TAG) {
        /* an earlier message with this tag that arrived and waits would take f first */
        if (sm_order_waiting_before(o, m->seq, m->tag))
            return NULL;
        sm_list_remove(&f->link);
        return f;
    }
    /* every unmatched predecessor must be missing (not waiting with a known tag) for the
     * reservation argument below */
    if (sm_order_waiting_before(o, m->seq, -1))
        return NULL;
    uint32_t missing[SM_RULE_MAX_MISSING];
    uint32_t u = sm_order_missing(o, m->seq, missing, SM_RULE_MAX_MISSING);
    if (u >= SM_RULE_MAX_MISSING)
        return NULL;
    struct sm_req *w[SM_RULE_MAX_MISSING + 1];
    uint32_t n = 0;
    struct sm_list *p;
    for (p = sm_eng.posted.next; p != &sm_eng.posted && n <= u; p = p->next) {
        struct sm_req *r = sm_container_of(p, struct sm_req, link);
        if (r->ctx != m->ctx || (r->wpeer >= 0 && r->wpeer != m->src))
            continue;
        if (r->tag != MPI_ANY_TAG)
            return NULL; /* a named receive could take one of the missing messages first */
        w[n++] = r;
    }
    if (n < u + 1)
        return NULL;
    for (uint32_t i = 0; i < u; i++) {
        sm_list_remove(&w[i]->link);
        sm_order_reserve(o, missing[i], w[i]);
    }
    sm_list_remove(&w[u]->link);
    return w[u];
}

struct sm_msg *sm_unexpected_find(int src_world, uint32_t ctx, int tag, int remove)
{
    struct sm_list *p;
    for (p = sm_eng.unexpected.next; p != &sm_eng.unexpected; p = p->next) {
        struct sm_msg *m = sm_container_of(p, struct sm_msg, link);
        if (m->ctx == ctx && (src_world < 0 || m->src == src_world) &&
            (tag == MPI_ANY_TAG || tag == m->tag)) {
            if (remove)
                sm_unexpected_remove(m);
            return m;
        }
    }
    return NULL;
}

int sm_probe(int src_world, uint32_t ctx, int tag, int take, struct sm_envelope *env,
             struct sm_msg **msg)
{
    struct sm_msg *m = sm_unexpected_find(src_world, ctx, tag, take);
    if (!m)
        return 0;
    env->src = m->src;
    env->tag = m->tag;
    env->size = m->size;
    if (msg)
        *msg = take ? m : NULL;
    return 1;
}

void sm_recv_matched(struct sm_req *r, struct sm_msg *m)
{
    r->ctx = m->ctx;
    r->wpeer = m->src;
    r->peer = sm_comm_rank_of_world(r->comm, m->src);
    r->tag = m->tag;
    sm_recv_deliver(r, m);
}

void sm_unexpected_add(struct sm_msg *m)
{
    sm_list_push_back(&sm_eng.unexpected, &m->link);
    sm_timing_unexpected_in(m);
    if (++sm_eng.unexpected_count > sm_eng.unexpected_peak)
        sm_eng.unexpected_peak = sm_eng.unexpected_count;
}

void sm_unexpected_remove(struct sm_msg *m)
{
    sm_list_remove(&m->link);
    sm_eng.unexpected_count--;
    sm_timing_unexpected_out(m);
}

/* account memory held for a message nobody has asked for yet; dies with advice past the cap */
void sm_unexpected_charge(size_t bytes)
{
    sm_eng.unexpected_bytes += bytes;
    if (sm_eng.unexpected_bytes > sm_eng.unexpected_peak_bytes)
        sm_eng.unexpected_peak_bytes = sm_eng.unexpected_bytes;
    if (sm_eng.unexpected_bytes > sm_eng.unexpected_max)
        sm_die("%zu bytes held for unexpected messages (%zu messages) exceed "
               "SCTPMPI_UNEXPECTED_MAX=%zu: the program sends far ahead of its receives; post "
               "receives earlier or raise the limit",
               sm_eng.unexpected_bytes, sm_eng.unexpected_count + sm_order_early_count(),
               sm_eng.unexpected_max);
}

void sm_unexpected_uncharge(size_t bytes)
{
    sm_eng.unexpected_bytes -= bytes;
}

void sm_msg_free(struct sm_msg *m)
{
    sm_unexpected_uncharge(sizeof *m + (m->data ? m->size : 0));
    free(m->data);
    free(m);
}

int sm_recv_post(struct sm_req *r)
{
    struct sm_msg *m = sm_unexpected_find(r->wpeer, r->ctx, r->tag, 1);
    if (!m && r->tag != MPI_ANY_TAG) {
        struct sm_order *o;
        m = sm_order_find_early(r->wpeer, r->ctx, r->tag, &o);
        /* a receive posted earlier and still pending that matches m gets it first (MPI's
         * order of receives): then r may not take it */
        if (m && first_posted(m))
            m = NULL;
        if (m) {
            sm_order_consume_early(o, m);
            sm_eng.stats_early_matched++;
        }
    }
    if (m) {
        sm_recv_deliver(r, m);
        return 0;
    }
    if (r->wpeer >= 0 && r->wpeer < sm_eng.npeers && sm_eng.peers[r->wpeer].failed) {
        /* nothing held from a rank that is gone: the message will never come (also keeps
         * MPI_Finalize's barrier from waiting for a lost rank) */
        r->status.MPI_ERROR = MPI_ERR_PROC_FAILED;
        sm_req_complete(r);
        return 0;
    }
    sm_list_push_back(&sm_eng.posted, &r->link);
    return 0;
}

/* fill the receive's status for message m (source as a rank of the receive's communicator) */
void sm_recv_set_envelope(struct sm_req *r, int src_world, int tag, size_t size)
{
    r->status.MPI_SOURCE = sm_comm_rank_of_world(r->comm, src_world);
    r->status.MPI_TAG = tag;
    r->msg_size = size;
    if (size > r->bytes)
        r->status.MPI_ERROR = MPI_ERR_TRUNCATE;
}

void sm_recv_deliver(struct sm_req *r, struct sm_msg *m)
{
    sm_recv_set_envelope(r, m->src, m->tag, m->size);
    if (m->is_rts) {
        sm_send_cts(r, m);
    } else {
        size_t n = m->size < r->bytes ? m->size : r->bytes;
        if (n)
            memcpy(r->buf, m->data, n);
        r->status.sm_count = n;
        if (m->credit)
            sm_credit_consumed(m->src, m->credit);
        if (m->sync)
            sm_send_sync_ack(m->src, m->sreq);
        sm_req_complete(r);
    }
    sm_msg_free(m);
}

int sm_cancel_recv(struct sm_req *r)
{
    if (r->complete || r->reserved)
        return 0; /* matched already (or promised to a missing message): cannot cancel */
    struct sm_list *p;
    for (p = sm_eng.posted.next; p != &sm_eng.posted; p = p->next)
        if (p == &r->link) {
            sm_list_remove(&r->link);
            r->status.sm_cancelled = 1;
            sm_req_complete(r);
            return 1;
        }
    return 0;
}

/* remove a message the sender cancelled; 1 if it was still unmatched here */
int sm_cancel_arrived(int src, uint32_t ctx, uint32_t seq)
{
    struct sm_list *p;
    for (p = sm_eng.unexpected.next; p != &sm_eng.unexpected; p = p->next) {
        struct sm_msg *m = sm_container_of(p, struct sm_msg, link);
        if (m->src == src && m->ctx == ctx && m->seq == seq) {
            sm_unexpected_remove(m);
            if (m->credit)
                sm_credit_consumed(src, m->credit);
            sm_msg_free(m);
            return 1;
        }
    }
    return 0;
}
