/* sack.c — the sender's processing of SACK chunks (RFC 9260 6.2.1, 6.3.2, 7.2): cumulative
 * and gap acknowledgements, reneging, RTT samples (Karn), HTNA missing reports and fast
 * retransmit on the third report with fast recovery (7.2.4; time-based loss marking is in
 * rack.c), the per-path congestion controller's view of each SACK (cc.h), the peer's window,
 * and T3-rtx restarts. */
#include <stdlib.h>

#include "sctpn_internal.h"

void tx_release_upto(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t cum);

struct gap {
    uint16_t start, end;
};

static int gap_cmp(const void *x, const void *y)
{
    const struct gap *a = x, *b = y;
    return (int)a->start - (int)b->start;
}

/* a chunk sent on path pi was acknowledged: the path and the association are fine */
static void acked_on(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi)
{
    struct path *p = &a->paths[pi];
    p->data_fail = 0;
    a->error_count = 0;
    if (p->error_count || p->state != SCTPN_PATH_ACTIVE)
        path_ok(ep, a, pi);
}

/* The send buffer (cfg.sndbuf) limits data the peer has not acknowledged: a chunk reported in a
 * gap block stops counting at once, not only when the cumulative ack passes it, so that one
 * hole does not stop the sender for the round trips its repair takes while the peer already
 * holds everything behind it.  The chunk's memory stays until the cumulative ack (a peer may
 * renege: sack_renege counts it again); what stays is bounded by the peer's receive window
 * and the span limit (cfg.max_out_chunks), which the gap-acknowledged data still occupies. */
static void sndbuf_acked(struct sctpn_assoc *a, struct txc *c)
{
    if (c->msg) {
        c->msg->acked_bytes += c->len;
        a->bytes_acked_live += c->len;
    }
}

static void sack_renege(struct sctpn_assoc *a, uint32_t tsn, struct txc *c)
{
    if (c->msg) {
        c->msg->acked_bytes -= c->len;
        a->bytes_acked_live -= c->len;
    }
    c->state = TXC_OUT;
    c->in_flight = 0;
    tx_mark_rtx(a, tsn, c);
}

static void newly_acked(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t tsn,
                        struct txc *c, uint32_t *bytes_acked, uint64_t now)
{
    struct path *p = &a->paths[c->path];
    sndbuf_acked(a, c);
    rack_on_acked(ep, a, tsn, c, now);
    acct_chunk_acked(ep, a, c, now);
    rate_on_acked(p, c, now); /* cc_rate.c */
    if (c->in_flight) {
        p->flight -= c->len;
        a->total_flight -= c->len;
        c->in_flight = 0;
        bytes_acked[c->path] += c->len;
    }
    if (c->state == TXC_RTX)
        a->n_rtx--; /* acked while waiting for its retransmission */
    if (p->rtt_pending && p->rtt_tsn == tsn && c->sends == 1) {
        p->rtt_pending = 0;
        if (now >= p->rtt_sent_us)
            path_rtt_sample(ep, p, now - p->rtt_sent_us);
    }
    acked_on(ep, a, c->path);
}

/* fast retransmit of chunk tsn, entering fast recovery on its path unless already in it
 * (RFC 9260 7.2.4 step 4 / 7.2.3); the retransmission goes out at once, ignoring cwnd */
void sack_fast_rtx(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t tsn, struct txc *c)
{
    struct path *p = &a->paths[c->path];
    if (!p->in_fast_recovery) {
        cc_on_loss(ep, p); /* cc.h: ssthresh and cwnd (7.2.3) */
        p->in_fast_recovery = 1;
        p->fr_exit_tsn = a->next_tsn - 1;
    }
    c->fast_rtx_done = 1;
    a->fast_rtx++;
    frtx_note(a, tsn);
    tx_mark_rtx(a, tsn, c);
    acct_mark_lost(c, SCTPN_RTX_FAST);
    p->fast_rtx_pending = 1;
}

static int sack_process(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t cum,
                        uint32_t arwnd, int have_rwnd, struct gap *gaps, int ngaps,
                        uint8_t sack_flags, uint64_t now)
{
    if (tsn_lt(cum, a->cum_ack))
        return 0; /* older than what we know (reordered SACK) */
    if (!tsn_lt(cum, a->next_tsn))
        return SCTPN_EMALFORMED; /* acknowledges what was never sent */
    uint32_t bytes_acked[SCTPN_MAX_PATHS] = { 0 };
    uint32_t flight_before[SCTPN_MAX_PATHS];
    for (int i = 0; i < a->npaths; i++)
        flight_before[i] = a->paths[i].flight;
    int cum_advanced = tsn_lt(a->cum_ack, cum);
    uint32_t htna = cum;
    uint32_t htna_path[SCTPN_MAX_PATHS]; /* CMT split fast retransmit: per destination */
    int have_htna[SCTPN_MAX_PATHS] = { 0 };
    int any_new = 0;
    struct dac_sack dac; /* cmt_dac.c: what the delayed-ack-for-CMT rule needs to know */
    dac_sack_begin(a, &dac, sack_flags);
    /* the cumulative part */
    for (uint32_t t = a->cum_ack + 1; tsn_le(t, cum); t++) {
        struct txc *c = tx_chunk(a, t);
        if (c->state != TXC_GAPACKED) {
            newly_acked(ep, a, t, c, bytes_acked, now);
            htna_path[c->path] = t;
            have_htna[c->path] = 1;
            if (c->state == TXC_RTX)
                c->state = TXC_OUT; /* n_rtx already decremented */
            any_new = 1;
            dac.cum_new = 1;
        }
        c->state = TXC_GAPACKED;
    }
    /* the gap blocks, sorted; chunks gap-acked before but not now were reneged */
    if (ngaps > 1)
        qsort(gaps, (size_t)ngaps, sizeof *gaps, gap_cmp);
    uint32_t top = cum;
    if (ngaps) {
        uint32_t e = cum + gaps[ngaps - 1].end;
        top = tsn_lt(e, a->next_tsn) ? e : a->next_tsn - 1;
    }
    int g = 0;
    for (uint32_t t = cum + 1; tsn_le(t, top); t++) {
        uint32_t off = t - cum;
        while (g < ngaps && gaps[g].end < off)
            g++;
        int covered = g < ngaps && gaps[g].start <= off && off <= gaps[g].end;
        struct txc *c = tx_chunk(a, t);
        if (covered) {
            if (c->state != TXC_GAPACKED) {
                dac_gap_acked(&dac, t, c->path);
                newly_acked(ep, a, t, c, bytes_acked, now);
                c->state = TXC_GAPACKED;
                htna = t;
                htna_path[c->path] = t;
                have_htna[c->path] = 1;
                any_new = 1;
            }
        } else if (c->state == TXC_GAPACKED) {
            sack_renege(a, t, c); /* reneged: resend it */
        }
    }
    for (uint32_t t = top + 1; tsn_lt(t, a->next_tsn); t++) { /* above every block */
        struct txc *c = tx_chunk(a, t);
        if (c->state == TXC_GAPACKED)
            sack_renege(a, t, c);
    }
    if (any_new)
        a->error_count = 0;
    /* missing reports (HTNA; in fast recovery with the cum ack advancing: all missing) */
    int fr_any = 0;
    for (int i = 0; i < a->npaths; i++)
        fr_any |= a->paths[i].in_fast_recovery;
    uint32_t report_below = (fr_any && cum_advanced) ? top : htna;
    uint32_t miss_threshold = tlp_miss_threshold(ep, a, cum);
    for (uint32_t t = cum + 1; tsn_lt(t, report_below); t++) {
        struct txc *c = tx_chunk(a, t);
        if (c->state != TXC_OUT || !c->in_flight)
            continue;
        /* CMT (Iyengar et al.): only a later chunk sent to the same destination and newly
         * acknowledged counts as a miss indication (split fast retransmit) */
        if (a->cmt && (!have_htna[c->path] || !tsn_lt(t, htna_path[c->path])))
            continue;
        /* DAC (cmt_dac.c): a SACK standing for two packets may count twice */
        uint32_t inc = 1 + dac_extra_miss(a, &dac, t);
        if (c->missing < 250)
            c->missing = (uint8_t)(c->missing + inc);
        if (c->missing < miss_threshold || c->fast_rtx_done)
            continue;
        sack_fast_rtx(ep, a, t, c);
    }
    rack_detect(ep, a, now); /* rack.c: time-based loss marking */
    /* release what is cumulatively acknowledged (SEND_DONE events) */
    tx_release_upto(ep, a, cum);
    /* congestion control per path */
    for (int i = 0; i < a->npaths; i++) {
        struct path *p = &a->paths[i];
        if (p->in_fast_recovery && !tsn_lt(cum, p->fr_exit_tsn))
            p->in_fast_recovery = 0;
        if (!bytes_acked[i]) {
            p->rs_have = 0; /* (only chunks no longer counted in flight were acknowledged) */
            p->rs_rtt_us = 0;
            continue;
        }
        /* CMT cwnd update: a path's new acknowledgements count even when the association's
         * cumulative point is held back by another path's loss */
        struct cc_ack ack = { 0 };
        ack.bytes_acked = bytes_acked[i];
        ack.flight_before = flight_before[i];
        ack.advanced = cum_advanced || a->cmt;
        rate_sample(p, &ack);
        cc_on_ack(ep, p, &ack, now); /* cc.h: the path's congestion controller */
    }
    /* T3-rtx: stop when nothing is outstanding on a path, restart when its data advanced */
    for (int i = 0; i < a->npaths; i++) {
        struct path *p = &a->paths[i];
        if (p->flight == 0)
            p->t3 = NEVER;
        else if (bytes_acked[i] && cum_advanced)
            p->t3 = now + p->rto;
        /* tail-loss probe (tlp.c): a new tail once new data is acknowledged */
        if (p->flight == 0) {
            p->pto = NEVER;
            p->tlp_done = 0;
        } else if (bytes_acked[i] && cum_advanced) {
            p->tlp_done = 0;
            tlp_arm(ep, a, i, now);
        }
    }
    if (have_rwnd)
        a->peer_rwnd = arwnd > a->total_flight ? arwnd - a->total_flight : 0;
    sd_check(ep, a, now);
    return 0;
}

int tx_sack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct sctpn_chunk *c,
            uint64_t now)
{
    const uint8_t *v = c->val;
    uint32_t cum = ld32(v), arwnd = ld32(v + 4);
    size_t ngaps = ld16(v + 8), ndups = ld16(v + 10);
    if (12 + 4 * (ngaps + ndups) > c->vlen)
        return SCTPN_EMALFORMED;
    a->sacks_in++;
    a->dup_reported += ndups;
    a->burst_left = ep->cfg.max_burst; /* each SACK may clock out a new burst */
    struct gap gaps[256];
    int n = 0;
    for (size_t i = 0; i < ngaps && n < 256; i++) {
        uint16_t s = ld16(v + 12 + 4 * i), e = ld16(v + 14 + 4 * i);
        if (s == 0 || e < s)
            return SCTPN_EMALFORMED;
        gaps[n++] = (struct gap){ s, e };
    }
    int r = sack_process(ep, a, cum, arwnd, 1, gaps, n, c->flags, now);
    if (r == 0) {
        uint32_t dups[64];
        int nd = 0;
        for (size_t i = 0; i < ndups && nd < 64; i++)
            dups[nd++] = ld32(v + 12 + 4 * ngaps + 4 * i);
        tlp_on_sack(ep, a, dups, nd, now);
        if (frtx_on_dups(a, dups, nd))
            rack_on_spurious_frtx(ep, a);
    }
    return r;
}

void tx_cum_ack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t cum, uint64_t now)
{
    if (tsn_lt(cum, a->next_tsn))
        sack_process(ep, a, cum, 0, 0, NULL, 0, 0, now);
}
