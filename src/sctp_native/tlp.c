/* tlp.c — tail-loss recovery for request/response traffic: the tail-loss probe (RFC 8985
 * section 7, adapted to SCTP) and early retransmit (RFC 5827).  When the last packets of a
 * burst are lost no later packets produce the three miss reports fast retransmit needs, and
 * only T3-rtx (>= RTO.min) would repair them.  Instead, a probe timeout PTO = max(2 SRTT,
 * 10 ms) (+ the delayed-SACK time when a single packet is outstanding without the I bit),
 * capped at the T3 deadline, is armed whenever new data is sent or a SACK acknowledges new
 * data; on expiry (before T3 when both are due, T3 then re-armed) one probe goes
 * out, ignoring cwnd: new data when some is queued and the peer's window allows, else the
 * highest-TSN chunk outstanding on the path.  The probe is not a T3: no cwnd collapse, no RTO
 * backoff, no error count.  The SACK it elicits acknowledges a lost tail directly or reports
 * the hole, which early retransmit (lower miss threshold when < 4 chunks are outstanding and
 * nothing is queued) repairs at once.  At most one probe per tail: the next one needs a SACK
 * acknowledging new data first.  Off (cfg.tlp = 0): exactly RFC 9260 behaviour. */
#include "sctpn_internal.h"

#define TLP_MIN_PTO_US 10000 /* RFC 8985 7.2: PTO at least 10 ms */

/* the highest TSN in flight on path pi (0 in *found if none) */
static uint32_t highest_in_flight(struct sctpn_assoc *a, int pi, int *found)
{
    *found = 0;
    for (uint32_t t = a->next_tsn - 1; tsn_lt(a->cum_ack, t); t--) {
        struct txc *c = tx_chunk(a, t);
        if (c->state == TXC_OUT && c->in_flight && c->path == pi) {
            *found = 1;
            return t;
        }
    }
    return 0;
}

void tlp_arm(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now)
{
    struct path *p = &a->paths[pi];
    p->pto = NEVER;
    if (!ep->cfg.tlp || !p->flight || !p->have_rtt || p->tlp_done || !assoc_data_allowed(a))
        return;
    uint64_t pto = 2 * p->srtt;
    if (pto < TLP_MIN_PTO_US)
        pto = TLP_MIN_PTO_US;
    size_t hdr = a->idata ? IDATA_HDR : DATA_HDR;
    if (p->flight + SCTP_COMMON_HDR + hdr <= ep->cfg.mtu) { /* one packet: its SACK may wait */
        int found;
        uint32_t t = highest_in_flight(a, pi, &found);
        if (!found || !(tx_chunk(a, t)->flags & DF_I))
            pto += ep->cfg.sack_delay_us;
    }
    uint64_t at = now + pto;
    /* RFC 8985 7.2: capped at the RTO.  With a short RTO.min (30 ms in the MPI transport)
     * 2 SRTT is beyond T3 at 20 ms one-way delay and more; the probe then goes out at the T3
     * deadline instead of the T3 expiry (endpoint.c runs the PTO first): one packet, no cwnd
     * collapse and no RTO backoff for a lost tail, or for a single packet whose SACK the peer
     * delays beyond an RTO estimated without that delay */
    if (p->t3 != NEVER && at > p->t3)
        at = p->t3;
    p->pto = at;
}

void tlp_expired(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now)
{
    struct path *p = &a->paths[pi];
    p->pto = NEVER;
    if (!ep->cfg.tlp || !p->flight || p->tlp_done || !assoc_data_allowed(a))
        return;
    uint32_t lim = a->idata ? ep->cfg.max_out_chunks_idata : ep->cfg.max_out_chunks;
    int span_ok = !lim || a->next_tsn - a->cum_ack - 1 < lim;
    if (a->nqueued && a->peer_rwnd > 0 && span_ok && path_for_data(ep, a) == pi) {
        p->tlp_done = 1;
        p->tlp_new_pending = 1; /* output.c sends one packet of new data ignoring cwnd */
        a->tlp_probes++;
        p->t3 = now + p->rto;
        return;
    }
    int found;
    uint32_t t = highest_in_flight(a, pi, &found);
    if (!found)
        return;
    struct txc *c = tx_chunk(a, t);
    tx_mark_rtx(a, t, c);
    acct_mark_lost(c, SCTPN_RTX_TLP);
    c->path = (uint8_t)pi;   /* a probe stays on its path (it is not a T3 failover) */
    c->flags |= DF_I;        /* RFC 7053: SACK it at once, T3 is re-armed for one RTO only */
    p->fast_rtx_pending = 1; /* sent at once, ignoring cwnd */
    p->tlp_done = 1;
    p->tlp_rtx_pending = 1;
    p->tlp_rtx_tsn = t;
    a->tlp_probes++;
    p->t3 = now + p->rto; /* RFC 8985 7.3: re-arm the RTO after a probe */
}

/* after a SACK: a retransmission probe now acknowledged repaired a loss unless the peer
 * reported its TSN as a duplicate (then the original had arrived) */
void tlp_on_sack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const uint32_t *dups,
                 int ndups, uint64_t now)
{
    (void)ep;
    (void)now;
    for (int i = 0; i < a->npaths; i++) {
        struct path *p = &a->paths[i];
        if (!p->tlp_rtx_pending)
            continue;
        uint32_t t = p->tlp_rtx_tsn;
        if (!tsn_lt(t, a->next_tsn)) {
            p->tlp_rtx_pending = 0;
            continue;
        }
        int acked = tsn_le(t, a->cum_ack) || tx_chunk(a, t)->state == TXC_GAPACKED;
        int dup = 0;
        for (int k = 0; k < ndups; k++)
            dup |= dups[k] == t;
        if (dup) {
            p->tlp_rtx_pending = 0;
        } else if (acked) {
            p->tlp_rtx_pending = 0;
            a->tlp_repairs++;
        }
    }
}

/* missing reports that trigger fast retransmit: 3 (RFC 9260 7.2.4), or with tlp on and
 * fewer than 4 chunks outstanding past the new cumulative ack and nothing queued, one less
 * than their number (RFC 5827 early retransmit); none once RACK has seen reordering */
uint32_t tlp_miss_threshold(struct sctpn_endpoint *ep, const struct sctpn_assoc *a, uint32_t cum)
{
    if (!rack_counts_misses(ep, a))
        return UINT32_MAX; /* reordering seen: RACK alone decides (rack.c) */
    if (!ep->cfg.tlp || a->nqueued)
        return 3;
    uint32_t outstanding = a->next_tsn - cum - 1;
    if (outstanding >= 4)
        return 3;
    return outstanding > 1 ? outstanding - 1 : 1;
}
