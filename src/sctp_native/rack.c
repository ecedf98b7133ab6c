/* rack.c — time-based loss detection (RFC 8985 RACK, adapted to SCTP, per path).  Counting
 * three miss reports (RFC 9260 7.2.4) needs three later packets to arrive after a loss; in
 * request/response traffic the few packets after a lost one often make only one or two SACKs,
 * and the loss then waited for T3.  RACK instead remembers, per path, the send time of the
 * most recently sent chunk the peer acknowledged (RACK.xmit_ts) and the RTT measured on it:
 * any chunk still outstanding on that path that was sent before it and has been outstanding
 * longer than that RTT plus a reordering window (reo_wnd = min_RTT / 4, capped at SRTT) is
 * lost and fast-retransmitted at once (with the usual fast-recovery cwnd halving, at most
 * once per recovery).  A chunk not yet that old arms a reordering timer for the moment it
 * will be.  Retransmissions are judged by their last send time, so a lost retransmission is
 * found the same way instead of waiting for T3.  Reordering: when the peer reports a
 * fast-retransmitted TSN as a duplicate (SCTP's DSACK: it was spurious), the window grows by
 * min_RTT / 4 (up to SRTT) and goes back to one step after 16 further losses without
 * duplicates, and counting three miss reports is given up for the association (a packet
 * overtaken by three others is not lost): RACK alone marks losses from then on.
 * Sender-side only: the wire format and the peer's behaviour are unchanged.  cfg.rack = 0
 * turns it off (miss counting alone). */
#include "sctpn_internal.h"

#define REO_RESET_AFTER 16 /* RFC 8985 6.2: the window resets after 16 recoveries */
#define REO_MULT_MAX 64

static uint64_t reo_wnd(const struct path *p)
{
    uint64_t base = p->rack_min_rtt_us ? p->rack_min_rtt_us : p->rack_rtt_us;
    uint64_t w = (uint64_t)(p->reo_mult ? p->reo_mult : 1) * base / 4;
    if (p->have_rtt && w > p->srtt)
        w = p->srtt;
    return w;
}

/* a chunk was newly acknowledged (called before its state changes): RFC 8985 6.2 step 2 */
void rack_on_acked(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t tsn,
                   const struct txc *c, uint64_t now)
{
    if (!ep->cfg.rack || !c->sent_us || now < c->sent_us)
        return;
    struct path *p = &a->paths[c->path];
    uint64_t rtt = now - c->sent_us;
    if (c->sends > 1 && rtt < p->rack_min_rtt_us)
        return; /* too quick for the retransmission: the original was acknowledged */
    if (c->sends == 1 && (!p->rack_min_rtt_us || rtt < p->rack_min_rtt_us))
        p->rack_min_rtt_us = rtt;
    if (!p->rack_valid || c->sent_us > p->rack_xmit_us ||
        (c->sent_us == p->rack_xmit_us && tsn_lt(p->rack_tsn, tsn))) {
        p->rack_valid = 1;
        p->rack_xmit_us = c->sent_us;
        p->rack_tsn = tsn;
        p->rack_rtx = c->sends > 1;
        p->rack_rtt_us = rtt;
    }
}

/* mark lost every outstanding chunk sent sufficiently before its path's RACK chunk and arm
 * each path's reordering timer for the next one that may become lost (RFC 8985 6.2 step 5) */
void rack_detect(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now)
{
    for (int i = 0; i < a->npaths; i++)
        a->paths[i].rack_timer = NEVER;
    if (!ep->cfg.rack || !assoc_data_allowed(a))
        return;
    for (int i = 0; i < a->npaths; i++) {
        struct path *p = &a->paths[i];
        if (!p->rack_valid || !p->flight)
            continue;
        uint64_t reo = reo_wnd(p);
        /* first transmissions go out in TSN order, so with a first-transmission RACK chunk
         * only TSNs below it can have been sent before it */
        uint32_t end =
            p->rack_rtx || !tsn_lt(p->rack_tsn, a->next_tsn) ? a->next_tsn : p->rack_tsn;
        for (uint32_t t = a->cum_ack + 1; tsn_lt(t, end); t++) {
            struct txc *c = tx_chunk(a, t);
            if (c->state != TXC_OUT || !c->in_flight || c->path != i)
                continue;
            if (c->sent_us > p->rack_xmit_us ||
                (c->sent_us == p->rack_xmit_us && !tsn_lt(t, p->rack_tsn)))
                continue; /* sent after the RACK chunk: no evidence yet */
            uint64_t deadline = c->sent_us + p->rack_rtt_us + reo;
            if (deadline <= now) {
                sack_fast_rtx(ep, a, t, c);
                acct_mark_lost(c, SCTPN_RTX_RACK);
                if (p->t3 <= now) /* due now too: the retransmission leaves now instead */
                    p->t3 = now + p->rto;
                a->rack_losses++;
                if (++p->reo_clean >= REO_RESET_AFTER) {
                    p->reo_clean = 0;
                    p->reo_mult = 1;
                }
            } else if (deadline < p->rack_timer) {
                p->rack_timer = deadline;
            }
        }
    }
}

/* the peer reported a duplicate of a TSN we fast-retransmitted (frtx_audit.c): its original was
 * not lost but late (SCTP's DSACK; duplicates of a probe or a T3 retransmission say nothing about
 * reordering): widen the window (RFC 8985 6.2 step 4) and stop counting miss reports, which
 * retransmit every chunk overtaken by three packets */
void rack_on_spurious_frtx(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    if (!ep->cfg.rack)
        return;
    a->reordering_seen = 1;
    for (int i = 0; i < a->npaths; i++) {
        struct path *p = &a->paths[i];
        if (p->reo_mult < REO_MULT_MAX)
            p->reo_mult = (p->reo_mult ? p->reo_mult : 1) + 1;
        p->reo_clean = 0;
    }
}

/* miss counting (sack.c) stays on until reordering is seen */
int rack_counts_misses(const struct sctpn_endpoint *ep, const struct sctpn_assoc *a)
{
    return !ep->cfg.rack || !a->reordering_seen;
}
