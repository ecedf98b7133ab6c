/* acct.c — time accounting: where a message's time goes inside the engine (struct
 * sctpn_timing in sctpn.h).  Send side: how long a queued message waited for its first
 * transmission and what held the association meanwhile (handshake, peer's receive window,
 * congestion window, the span limit past the cumulative ack, max burst, anything else), how
 * long each chunk took from its first transmission to its acknowledgement (clean, or by the
 * loss-recovery mechanism that resent it), and how long the send buffer refused messages.
 * Receive side: how long a complete ordered message was held by its stream's order, and the
 * counters that would show one stream holding another.
 * Everything is O(1) per message or chunk: the association keeps cumulative held-time
 * counters (closed when a poll finds nothing more to send) and a message snapshots them when
 * queued, so its share of each is a difference.  cfg.timing = 0 turns it all off. */
#include <stdlib.h>

#include "sctpn_internal.h"

static int on(const struct sctpn_endpoint *ep)
{
    return ep->cfg.timing != 0;
}

/* the association's held time for reason r up to now, the open interval included */
static uint64_t blk_now(const struct sctpn_assoc *a, int r, uint64_t now)
{
    uint64_t v = a->blk_cum[r];
    if (a->blk_reason == r && now > a->blk_since)
        v += now - a->blk_since;
    return v;
}

static void stamp(struct sctpn_assoc *a, struct txmsg *m, uint64_t now)
{
    m->tm_q = now;
    for (int r = 1; r < ACCT_NBLK; r++)
        m->tm_blk[r] = blk_now(a, r, now);
}

void acct_clock(struct sctpn_endpoint *ep, uint64_t now)
{
    ep->now_us = now;
    for (int i = 0; i < ep->n_unstamped; i++)
        stamp(ep->tm_unstamped[i].a, ep->tm_unstamped[i].m, now);
    ep->n_unstamped = 0;
    if (ep->sb_pending) {
        for (struct sctpn_assoc *a = ep->assocs; a; a = a->link)
            if (a->sb_state == 1) {
                a->sb_state = 2;
                a->sb_since = now;
            }
        ep->sb_pending = 0;
    }
}

void acct_sndbuf_full(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    if (!on(ep) || a->sb_state)
        return;
    a->tm.sndbuf_refusals++;
    if (ep->in_callback) { /* the clock is current; otherwise the next one stamps it */
        a->sb_state = 2;
        a->sb_since = ep->now_us;
    } else {
        a->sb_state = 1;
        ep->sb_pending = 1;
    }
}

void acct_queued(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct txmsg *m)
{
    if (a->sb_state) { /* the send buffer took a message again */
        if (a->sb_state == 2 && ep->now_us > a->sb_since)
            a->tm.sndbuf_full_us += ep->now_us - a->sb_since;
        a->sb_state = 0;
    }
    m->tm_first = NEVER;
    m->tm_rtx = 0;
    m->tm_sample = 0;
    if (!on(ep)) {
        m->tm_q = NEVER;
        return;
    }
    uint32_t n = ep->cfg.timing_sample;
    m->tm_sample = n && a->tm_nsent++ % n == 0;
    /* sctpn_send brings no clock: inside a callback the latest one is current; otherwise
     * the message is stamped at the next call that brings one (before it can be sent) */
    if (ep->n_unstamped == ep->cap_unstamped && !ep->in_callback) {
        int cap = ep->cap_unstamped ? 2 * ep->cap_unstamped : 64;
        void *p = realloc(ep->tm_unstamped, (size_t)cap * sizeof *ep->tm_unstamped);
        if (p) {
            ep->tm_unstamped = p;
            ep->cap_unstamped = cap;
        }
    }
    if (ep->in_callback || ep->n_unstamped == ep->cap_unstamped) {
        stamp(a, m, ep->now_us); /* no memory: the latest clock (the wait is overestimated) */
        return;
    }
    m->tm_q = NEVER;
    ep->tm_unstamped[ep->n_unstamped].m = m;
    ep->tm_unstamped[ep->n_unstamped++].a = a;
}

void acct_forget(struct sctpn_endpoint *ep, struct txmsg *m)
{
    for (int i = 0; i < ep->n_unstamped; i++)
        if (ep->tm_unstamped[i].m == m) {
            ep->tm_unstamped[i] = ep->tm_unstamped[--ep->n_unstamped];
            return;
        }
}

void acct_first_tx(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct txmsg *m,
                   uint64_t now)
{
    if (!on(ep) || m->tm_first != NEVER)
        return;
    if (m->tm_q == NEVER) /* not stamped (cannot happen: a clock came with this poll) */
        stamp(a, m, now);
    m->tm_first = now;
    struct sctpn_timing *t = &a->tm;
    uint64_t q = now > m->tm_q ? now - m->tm_q : 0;
    uint64_t d[ACCT_NBLK] = { 0 };
    for (int r = 1; r < ACCT_NBLK; r++) {
        uint64_t v = blk_now(a, r, now);
        d[r] = v > m->tm_blk[r] ? v - m->tm_blk[r] : 0;
        if (d[r] > q)
            d[r] = q;
    }
    t->msgs_sent++;
    t->queue_us += q;
    t->queue_cwnd_us += d[ACCT_BLK_CWND];
    t->queue_rwnd_us += d[ACCT_BLK_RWND];
    t->queue_span_us += d[ACCT_BLK_SPAN];
    t->queue_burst_us += d[ACCT_BLK_BURST];
    t->queue_handshake_us += d[ACCT_BLK_HANDSHAKE];
    t->queue_other_us += d[ACCT_BLK_OTHER];
    if (m->tm_sample) { /* keep the parts for the sample taken when it is acknowledged */
        m->tm_blk[0] = q;
        for (int r = 1; r < ACCT_NBLK; r++)
            m->tm_blk[r] = d[r];
    }
}

/* a poll found nothing more to send on a: close the held interval, open the next one */
void acct_tx_idle(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now)
{
    if (!on(ep))
        return;
    int r = 0;
    if (a->nqueued) {
        if (!assoc_data_allowed(a) || !a->npaths) {
            r = ACCT_BLK_HANDSHAKE;
        } else {
            const struct path *p = &a->paths[path_for_data(ep, a)];
            uint32_t lim = a->idata ? ep->cfg.max_out_chunks_idata : ep->cfg.max_out_chunks;
            if (a->peer_rwnd == 0 && a->total_flight)
                r = ACCT_BLK_RWND;
            else if (p->flight >= p->cwnd)
                r = ACCT_BLK_CWND;
            else if (lim && a->next_tsn - a->cum_ack - 1 >= lim)
                r = ACCT_BLK_SPAN;
            else if (ep->cfg.max_burst && !cc_paces(p) && a->burst_left <= 0 && a->total_flight)
                r = ACCT_BLK_BURST;
            else
                r = ACCT_BLK_OTHER;
        }
    }
    if (a->blk_reason && now > a->blk_since)
        a->blk_cum[a->blk_reason] += now - a->blk_since;
    a->blk_reason = r;
    a->blk_since = now;
    a->tm.blocked_cwnd_us = a->blk_cum[ACCT_BLK_CWND];
    a->tm.blocked_rwnd_us = a->blk_cum[ACCT_BLK_RWND];
    a->tm.blocked_span_us = a->blk_cum[ACCT_BLK_SPAN];
    a->tm.blocked_burst_us = a->blk_cum[ACCT_BLK_BURST];
    a->tm.blocked_handshake_us = a->blk_cum[ACCT_BLK_HANDSHAKE];
    a->tm.blocked_other_us = a->blk_cum[ACCT_BLK_OTHER];
}

void acct_chunk_acked(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct txc *c,
                      uint64_t now)
{
    if (!on(ep) || !c->sends)
        return;
    uint64_t d = now > c->first_us ? now - c->first_us : 0;
    if (c->sends == 1 && !c->rtx_cause) {
        a->tm.clean_chunks++;
        a->tm.clean_us += d;
        return;
    }
    int k = c->rtx_cause ? c->rtx_cause - 1 : SCTPN_RTX_OTHER;
    a->tm.rtx_chunks[k]++;
    a->tm.rtx_us[k] += d;
}

static struct sctpn_timing_sample *log_slot(struct sctpn_endpoint *ep)
{
    uint32_t cap = sizeof ep->tm_log / sizeof ep->tm_log[0];
    struct sctpn_timing_sample *s = &ep->tm_log[ep->tm_log_n++ % cap];
    memset(s, 0, sizeof *s);
    return s;
}

/* every byte of m acknowledged: a sampled message goes to the log */
void acct_msg_done(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct txmsg *m)
{
    if (!m->tm_sample || m->tm_first == NEVER || !on(ep))
        return;
    struct sctpn_timing_sample *s = log_slot(ep);
    s->assoc = a->id;
    s->stream = m->stream;
    s->dir = 0;
    s->rtx = m->tm_rtx;
    s->len = (uint32_t)m->len;
    s->at_us = ep->now_us;
    s->queue_us = m->tm_blk[0];
    s->queue_cwnd_us = m->tm_blk[ACCT_BLK_CWND];
    s->queue_rwnd_us = m->tm_blk[ACCT_BLK_RWND];
    s->queue_span_us = m->tm_blk[ACCT_BLK_SPAN];
    s->acked_us = ep->now_us > m->tm_first ? ep->now_us - m->tm_first : 0;
}

void acct_rx_msg(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint16_t stream, int ordered,
                 uint64_t len, uint64_t held_us)
{
    if (!on(ep))
        return;
    struct sctpn_timing *t = &a->tm;
    t->msgs_delivered++;
    if (held_us) {
        t->held_msgs++;
        t->held_us += held_us;
        if (held_us > t->held_max_us)
            t->held_max_us = held_us;
        /* released by a chunk of another stream: that stream's gap held this message */
        if (ordered && a->tm_trigger >= 0 && a->tm_trigger != stream)
            t->held_foreign++;
    }
    uint32_t n = ep->cfg.timing_sample;
    if (n && a->tm_nrecv++ % n == 0) {
        struct sctpn_timing_sample *s = log_slot(ep);
        s->assoc = a->id;
        s->stream = stream;
        s->dir = 1;
        s->len = (uint32_t)len;
        s->at_us = ep->now_us;
        s->held_us = held_us;
    }
}

int sctpn_timing_samples(sctpn_endpoint *ep, struct sctpn_timing_sample *out, int max)
{
    if (!ep || !out || max < 0)
        return SCTPN_EINVAL;
    uint32_t cap = sizeof ep->tm_log / sizeof ep->tm_log[0];
    uint32_t have = ep->tm_log_n < cap ? ep->tm_log_n : cap;
    uint32_t n = (uint32_t)max < have ? (uint32_t)max : have;
    for (uint32_t i = 0; i < n; i++)
        out[i] = ep->tm_log[(ep->tm_log_n - n + i) % cap];
    return (int)n;
}
