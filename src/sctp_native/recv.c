/* recv.c — the receive side of DATA (RFC 9260 6.2, 6.5, 6.6, 6.9; I-DATA RFC 8260 2.1):
 * duplicate and window checks, per-stream ordered delivery by SSN/MID, unordered delivery,
 * and delivery piece by piece (each fragment as soon as everything before it in its message
 * has been delivered).  In-order fragments are handed to the caller straight from the packet;
 * only out-of-order ones are copied (into pooled buffers) until their turn. */
#include <stdlib.h>

#include "sctpn_internal.h"

struct dchunk { /* a parsed DATA or I-DATA chunk */
    uint32_t tsn, ppid, mid, fsn;
    uint16_t stream, ssn;
    uint8_t flags;
    const uint8_t *data;
    uint16_t len;
};

static void deliver(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint16_t sid, int unord,
                    uint32_t key, uint32_t ppid, uint64_t off, const void *data, size_t len,
                    int first, int last)
{
    a->bytes_delivered += len;
    if (last && unord)
        acct_rx_msg(ep, a, sid, 0, off + len, 0); /* acct.c */
    if (!ep->cfg.on_data)
        return;
    struct sctpn_data d = { .assoc = a->id,
                            .stream = sid,
                            .unordered = (uint16_t)unord,
                            .ppid = ppid,
                            .msg_key = key,
                            .msg_offset = off,
                            .data = data,
                            .len = len,
                            .first = first,
                            .last = last };
    ep->in_callback++;
    ep->cfg.on_data(ep->cfg.user, &d);
    ep->in_callback--;
}

/* what a stored chunk costs: its pooled buffer and node, so that a peer sending tiny chunks
 * out of order cannot make us hold more than about rwnd bytes of memory */
static uint64_t rxc_cost(const struct sctpn_endpoint *ep, size_t len)
{
    size_t buf = len <= BUFPOOL_SMALL      ? BUFPOOL_SMALL
                 : len > ep->pool.big_size ? len
                                           : ep->pool.big_size;
    return buf + RXC_OVERHEAD;
}

static struct rxc *rxc_store(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                             const struct dchunk *d)
{
    if (!ep->free_rxc) { /* nodes are recycled through the free list: malloc only to grow */
        struct rxc *n = malloc(sizeof *n);
        if (!n)
            return NULL;
        n->next = NULL;
        ep->free_rxc = n;
    }
    struct rxc *r = ep->free_rxc;
    r->data = bufpool_get(&ep->pool, d->len);
    if (!r->data)
        return NULL;
    ep->free_rxc = r->next;
    memcpy(r->data, d->data, d->len);
    r->next = NULL;
    r->tsn = d->tsn;
    r->ppid = d->ppid;
    r->mid = d->mid;
    r->fsn = d->fsn;
    r->stream = d->stream;
    r->len = d->len;
    r->flags = d->flags;
    a->stored_bytes += rxc_cost(ep, d->len);
    return r;
}

static void rxc_release(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct rxc *r)
{
    a->stored_bytes -= rxc_cost(ep, r->len);
    bufpool_put(&ep->pool, r->data, r->len);
    r->data = NULL;
    r->next = ep->free_rxc;
    ep->free_rxc = r;
}

/* insert into a list sorted by TSN (usually at the tail) */
static void list_insert(struct rxc **head, struct rxc **tail, struct rxc *r)
{
    if (!*head) {
        *head = r;
        if (tail)
            *tail = r;
        return;
    }
    if (tail && tsn_lt((*tail)->tsn, r->tsn)) {
        (*tail)->next = r;
        *tail = r;
        return;
    }
    struct rxc **pp = head;
    while (*pp && tsn_lt((*pp)->tsn, r->tsn))
        pp = &(*pp)->next;
    r->next = *pp;
    *pp = r;
    if (tail && !r->next)
        *tail = r;
}

/* ---- ordered ---- */
/* the key that orders a stream's messages and fragments: (SSN, TSN) for DATA, (MID, FSN) */
static int ord_next(const struct sctpn_assoc *a, const struct instream *st,
                    const struct dchunk *d)
{
    if (st->partial) {
        if (a->idata)
            return d->mid == st->partial_id && d->fsn == st->partial_next && !(d->flags & DF_B);
        return d->tsn == st->partial_next && !(d->flags & DF_B);
    }
    if (a->idata)
        return d->mid == st->next_mid && (d->flags & DF_B);
    return d->ssn == st->next_ssn && (d->flags & DF_B);
}

/* arr: when the piece arrived (now for one delivered straight from the packet) */
static void ord_deliver(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct instream *st,
                        const struct dchunk *d, uint64_t arr, uint64_t now)
{
    int first = (d->flags & DF_B) != 0, last = (d->flags & DF_E) != 0;
    if (first || arr > st->tm_arr)
        st->tm_arr = arr; /* the message is complete when its last piece is in */
    if (first) {
        st->partial_off = 0;
        st->partial_id = a->idata ? d->mid : d->ssn;
        st->partial_ppid = d->ppid;
    }
    uint64_t off = st->partial_off;
    st->partial_off += d->len;
    if (last) {
        st->partial = 0;
        if (a->idata)
            st->next_mid++;
        else
            st->next_ssn++;
    } else {
        st->partial = 1;
        st->partial_next = a->idata ? d->fsn + 1 : d->tsn + 1;
    }
    deliver(ep, a, d->stream, 0, st->partial_id, st->partial_ppid, off, d->data, d->len, first,
            last);
    if (last) /* acct.c: held by its stream's order from completion to now */
        acct_rx_msg(ep, a, d->stream, 1, off + d->len, now > st->tm_arr ? now - st->tm_arr : 0);
}

static void to_dchunk(const struct rxc *r, struct dchunk *d)
{
    d->tsn = r->tsn;
    d->ppid = r->ppid;
    d->mid = r->mid;
    d->fsn = r->fsn;
    d->stream = r->stream;
    d->ssn = (uint16_t)r->mid;
    d->flags = r->flags;
    d->data = r->data;
    d->len = r->len;
}

/* a stored chunk that can never be delivered (its message is already past) */
static int ord_stale(const struct sctpn_assoc *a, const struct instream *st,
                     const struct dchunk *d)
{
    uint32_t cur = a->idata ? st->next_mid : st->next_ssn;
    if (a->idata)
        return tsn_lt(d->mid, st->partial ? st->partial_id : cur);
    return ssn_lt(d->ssn, (uint16_t)(st->partial ? st->partial_id : cur));
}

static void ord_drain(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct instream *st,
                      uint64_t now)
{
    struct rxc *h;
    while ((h = st->head)) {
        struct dchunk d;
        to_dchunk(h, &d);
        if (ord_stale(a, st, &d)) {
            st->head = h->next;
            rxc_release(ep, a, h);
            continue;
        }
        if (!ord_next(a, st, &d)) {
            if (!a->idata)
                break;
            /* I-DATA: a stream's chunks are sorted by TSN, but fragments of one message can
             * be overtaken by another message's; search the list for the next piece */
            struct rxc **pp = &st->head, *prev = NULL;
            while (*pp) {
                to_dchunk(*pp, &d);
                if (ord_next(a, st, &d))
                    break;
                prev = *pp;
                pp = &(*pp)->next;
            }
            if (!*pp)
                break;
            h = *pp;
            *pp = h->next;
            if (st->tail == h)
                st->tail = prev;
            ord_deliver(ep, a, st, &d, h->arr_us, now);
            rxc_release(ep, a, h);
            continue;
        }
        st->head = h->next;
        if (!st->head)
            st->tail = NULL;
        ord_deliver(ep, a, st, &d, h->arr_us, now);
        rxc_release(ep, a, h);
    }
    if (!st->head)
        st->tail = NULL;
}

/* ---- unordered ---- */
static struct upartial *u_find(struct sctpn_assoc *a, const struct dchunk *d)
{
    for (int i = 0; i < MAX_UPARTIAL; i++) {
        struct upartial *u = &a->up[i];
        if (!u->used || u->stream != d->stream)
            continue;
        if (a->idata ? (u->mid == d->mid && u->next == d->fsn) : u->next == d->tsn)
            return u;
    }
    return NULL;
}

/* deliver d if it is the next piece of an unordered message; 1 if delivered */
static int u_try(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct dchunk *d)
{
    int first = (d->flags & DF_B) != 0, last = (d->flags & DF_E) != 0;
    if (first) {
        if (last) {
            deliver(ep, a, d->stream, 1, a->idata ? d->mid : d->tsn, d->ppid, 0, d->data, d->len,
                    1, 1);
            return 1;
        }
        for (int i = 0; i < MAX_UPARTIAL; i++)
            if (!a->up[i].used) {
                struct upartial *u = &a->up[i];
                *u = (struct upartial){ .used = 1,
                                        .stream = d->stream,
                                        .mid = a->idata ? d->mid : d->tsn,
                                        .ppid = d->ppid,
                                        .off = d->len,
                                        .next = a->idata ? d->fsn + 1 : d->tsn + 1 };
                deliver(ep, a, d->stream, 1, u->mid, d->ppid, 0, d->data, d->len, 1, 0);
                return 1;
            }
        return 0;
    }
    struct upartial *u = u_find(a, d);
    if (!u)
        return 0;
    uint64_t off = u->off;
    u->off += d->len;
    u->next++;
    if (last)
        u->used = 0;
    deliver(ep, a, d->stream, 1, u->mid, u->ppid, off, d->data, d->len, 0, last);
    return 1;
}

static void u_drain(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    int progress = 1;
    while (progress) {
        progress = 0;
        struct rxc **pp = &a->uhead;
        while (*pp) {
            struct dchunk d;
            to_dchunk(*pp, &d);
            if (u_try(ep, a, &d)) {
                struct rxc *r = *pp;
                *pp = r->next;
                rxc_release(ep, a, r);
                progress = 1;
            } else {
                pp = &(*pp)->next;
            }
        }
    }
}

static void queue_error(struct sctpn_assoc *a, uint16_t cause, const uint8_t *body, size_t blen)
{
    size_t need = 4 + blen;
    if (a->err_len + pad4(need) > sizeof a->err_buf)
        return;
    uint8_t *p = a->err_buf + a->err_len;
    st16(p, cause);
    st16(p + 2, (uint16_t)need);
    memcpy(p + 4, body, blen);
    memset(p + need, 0, pad4(need) - need);
    a->err_len += (uint16_t)pad4(need);
    a->ctrl |= CTL_ERROR;
}

int rx_data(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct sctpn_chunk *c, int pi,
            uint64_t now)
{
    (void)pi;
    struct dchunk d;
    const uint8_t *v = c->val;
    d.flags = c->flags;
    d.tsn = ld32(v);
    d.stream = ld16(v + 4);
    if (c->type == CT_I_DATA) {
        d.mid = ld32(v + 8);
        if (d.flags & DF_B) {
            d.ppid = ld32(v + 12);
            d.fsn = 0;
        } else {
            d.fsn = ld32(v + 12);
            d.ppid = 0;
        }
        d.ssn = 0;
        d.data = v + 16;
        d.len = (uint16_t)(c->vlen - 16);
    } else {
        d.ssn = ld16(v + 6);
        d.mid = d.ssn;
        d.fsn = 0;
        d.ppid = ld32(v + 8);
        d.data = v + 12;
        d.len = (uint16_t)(c->vlen - 12);
    }
    if (d.len == 0) { /* RFC 9260 6.2: ABORT with "No User Data" */
        send_abort_raw(ep, a, EC_NO_USER_DATA);
        assoc_down(ep, a, SCTPN_DOWN_ABORT_SENT);
        return SCTPN_EMALFORMED;
    }
    if (d.flags & DF_I)
        a->sack_now = 1;
    if (tsnmap_seen(a, d.tsn)) {
        a->dup_in++;
        if (a->ndups < (int)(sizeof a->dups / sizeof a->dups[0]))
            a->dups[a->ndups++] = d.tsn;
        a->sack_now = 1;
        return 0;
    }
    if (d.tsn - a->cum_tsn > a->map_bits) {
        a->tm.xstream_drops++; /* acct.c: held back by the lowest missing TSN */
        return 0;              /* beyond what we track: the peer will retransmit it */
    }
    if (d.tsn != a->cum_tsn + 1 && a->stored_bytes + rxc_cost(ep, d.len) > ep->cfg.rwnd) {
        a->tm.xstream_drops++;
        a->sack_now = 1; /* window full: drop (RFC 9260 6.2) */
        return 0;
    }
    a->tm_trigger = d.stream; /* acct.c: deliveries below are released by this chunk */
    int unord = (d.flags & DF_U) != 0;
    if (d.stream >= a->is) { /* RFC 9260 6.5: acknowledge, report, discard */
        tsnmap_mark(a, d.tsn);
        a->data_in++;
        uint8_t b[4];
        st16(b, d.stream);
        st16(b + 2, 0);
        queue_error(a, EC_INVALID_STREAM, b, 4);
        return 0;
    }
    if (unord) {
        if (u_try(ep, a, &d)) {
            tsnmap_mark(a, d.tsn);
            a->data_in++;
            /* a whole one-piece message changes nothing for the stored ones */
            if (a->uhead && (d.flags & (DF_B | DF_E)) != (DF_B | DF_E))
                u_drain(ep, a);
            return 0;
        }
        struct rxc *r = rxc_store(ep, a, &d);
        if (!r)
            return 0; /* not marked: retransmitted later */
        tsnmap_mark(a, d.tsn);
        a->data_in++;
        list_insert(&a->uhead, NULL, r);
        return 0;
    }
    struct instream *st = &a->in[d.stream];
    if (ord_next(a, st, &d)) {
        tsnmap_mark(a, d.tsn);
        a->data_in++;
        ord_deliver(ep, a, st, &d, now, now);
        if (st->head)
            ord_drain(ep, a, st, now);
        return 0;
    }
    if (ord_stale(a, st, &d) || (!a->idata && st->partial && d.tsn == st->partial_next)) {
        /* a message that is already past, or a fragment that contradicts the one being
         * delivered: the peer violates the protocol */
        send_abort_raw(ep, a, EC_PROTOCOL_VIOLATION);
        assoc_down(ep, a, SCTPN_DOWN_ABORT_SENT);
        return SCTPN_EMALFORMED;
    }
    struct rxc *r = rxc_store(ep, a, &d);
    if (!r)
        return 0;
    r->arr_us = now;
    tsnmap_mark(a, d.tsn);
    a->data_in++;
    list_insert(&st->head, &st->tail, r);
    return 0;
}

void rx_packet_done(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int had_data, uint64_t now)
{
    if (!had_data)
        return;
    a->pkts_since_sack++;
    a->sack_pending = 1;
    /* RFC 9260 6.7: report gaps at once (and their filling); 6.2: at least every sack_freq
     * packets.  Delayed ack for CMT (cmt_dac.c) keeps delaying the first packet after a SACK
     * when all it has is reordering; the forced cases (I bit, duplicates, a full window: set
     * by rx_data) are never delayed */
    int gap = a->highest_tsn != a->cum_tsn;
    int want = gap || a->pkts_since_sack >= ep->cfg.sack_freq || a->sack_gap_before;
    if (want && !a->sack_now && !dac_may_delay_sack(ep, a, gap))
        a->sack_now = 1;
    a->sack_gap_before = gap;
    if (!a->sack_now && a->sack_due == NEVER)
        a->sack_due = now + ep->cfg.sack_delay_us;
    if (a->state == SCTPN_SHUTDOWN_SENT) { /* RFC 9260 9.2: SACK + SHUTDOWN at once */
        a->sack_now = 1;
        a->ctrl |= CTL_SHUTDOWN;
    }
}

static void free_list(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct rxc *r)
{
    while (r) {
        struct rxc *n = r->next;
        rxc_release(ep, a, r);
        r = n;
    }
}

void rx_free_all(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    if (a->in)
        for (int i = 0; i < a->is; i++) {
            free_list(ep, a, a->in[i].head);
            a->in[i].head = a->in[i].tail = NULL;
        }
    free_list(ep, a, a->uhead);
    a->uhead = NULL;
}
