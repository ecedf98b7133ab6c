/* path.c — per-destination state (RFC 9260 6.3, 8.2, 8.3; RFC 6298; RFC 7829): RTO from RTT
 * samples, T3-rtx expiry (backoff, cwnd collapse, retransmission marking), error counters with
 * the ACTIVE / PF / FAILED states, choosing the path for new data and for retransmissions
 * (grey failures: a path whose data keeps timing out is avoided even while its heartbeats
 * pass), and heartbeats. */
#include "sctpn_internal.h"

uint32_t path_initial_cwnd(const struct sctpn_endpoint *ep)
{
    uint32_t mtu = ep->cfg.mtu;
    if (ep->cfg.init_cwnd_packets)
        return (uint32_t)ep->cfg.init_cwnd_packets * mtu;
    uint32_t iw = 4 * mtu;
    uint32_t alt = 2 * mtu > 4404 ? 2 * mtu : 4404;
    return iw < alt ? iw : alt; /* RFC 9260 7.2.1 */
}

void path_init(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    cc_init(ep, p); /* cwnd, ssthresh (cc.h) */
    p->rto = ep->cfg.rto_initial_us;
    p->t3 = NEVER;
    p->pto = NEVER;
    p->rack_timer = NEVER;
    p->reo_mult = 1;
    p->hb_due = ep->cfg.hb_interval_us ? now + p->rto + ep->cfg.hb_interval_us : NEVER;
    p->state = SCTPN_PATH_ACTIVE;
}

static uint64_t clamp_rto(struct sctpn_endpoint *ep, uint64_t r)
{
    if (r < ep->cfg.rto_min_us)
        r = ep->cfg.rto_min_us;
    if (r > ep->cfg.rto_max_us)
        r = ep->cfg.rto_max_us;
    return r;
}

/* the heartbeat interval of an idle path: a LAN path (its smallest RTT sample below
 * lan_rtt_us: the smoothed RTT would be inflated by scheduling delays on a loaded host) is
 * probed every lan_hb_interval_us when that is shorter, so a dead idle path, the alternate
 * one included, is known before data needs it; 0 = no heartbeats on active paths */
uint64_t path_hb_interval(const struct sctpn_endpoint *ep, const struct path *p)
{
    uint64_t hb = ep->cfg.hb_interval_us;
    if (hb && p->have_rtt && p->min_rtt_us < ep->cfg.lan_rtt_us && ep->cfg.lan_hb_interval_us &&
        ep->cfg.lan_hb_interval_us < hb)
        hb = ep->cfg.lan_hb_interval_us;
    return hb;
}

void path_rtt_sample(struct sctpn_endpoint *ep, struct path *p, uint64_t r)
{
    p->last_rtt = r;
    if (!p->have_rtt || r < p->min_rtt_us)
        p->min_rtt_us = r;
    if (!p->have_rtt) { /* RFC 6298 2.2 */
        p->srtt = r;
        p->rttvar = r / 2;
        p->have_rtt = 1;
    } else { /* 2.3 with alpha 1/8, beta 1/4 */
        uint64_t d = p->srtt > r ? p->srtt - r : r - p->srtt;
        p->rttvar = (3 * p->rttvar + d) / 4;
        p->srtt = (7 * p->srtt + r) / 8;
    }
    p->rto = clamp_rto(ep, p->srtt + 4 * p->rttvar);
    uint64_t hb = path_hb_interval(ep, p); /* a path just found to be a LAN path */
    if (hb && p->hb_due != NEVER && p->hb_due > ep->now_us + p->rto + hb)
        p->hb_due = ep->now_us + p->rto + hb;
}

static int pf_limit(struct sctpn_endpoint *ep)
{
    return ep->cfg.pf_threshold < ep->cfg.path_max_retrans ? ep->cfg.pf_threshold
                                                           : ep->cfg.path_max_retrans;
}

/* a path for new data: ACTIVE, confirmed, and not failing data; one whose data timed out but
 * whose heartbeats are answered again is tried again once its backoff (data_retry_at, doubled
 * per data failure) has passed — without this a primary that came back after an outage stayed
 * unused, and a side that sends little (a receiver's credit messages) kept every message on
 * the other path, where the next failure then caught it */
static int usable(struct sctpn_endpoint *ep, const struct path *p)
{
    if (p->state != SCTPN_PATH_ACTIVE || !p->confirmed)
        return 0;
    return p->data_fail <= pf_limit(ep) ||
           (p->error_count == 0 && ep->now_us >= p->data_retry_at);
}

void assoc_error(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    if (++a->error_count > ep->cfg.assoc_max_retrans) {
        int clean = a->state == SCTPN_SHUTDOWN_ACK_SENT;
        send_abort_raw(ep, a, 0);
        assoc_down(ep, a, clean ? SCTPN_DOWN_SHUTDOWN_TIMEOUT : SCTPN_DOWN_TIMEOUT);
    }
}

void path_error(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now)
{
    struct path *p = &a->paths[pi];
    p->error_count++;
    if (p->confirmed) /* an address the peer listed but never answered on is its problem */
        assoc_error(ep, a);
    if (a->dead)
        return;
    int ns = p->state;
    if (p->error_count > ep->cfg.path_max_retrans)
        ns = SCTPN_PATH_FAILED;
    else if (p->error_count > ep->cfg.pf_threshold &&
             ep->cfg.pf_threshold < ep->cfg.path_max_retrans)
        ns = p->state == SCTPN_PATH_FAILED ? ns : SCTPN_PATH_PF;
    if (ns != p->state) {
        p->state = ns;
        if (p->hb_due > now + p->rto)
            p->hb_due = now + p->rto; /* probe the path (RFC 7829: every RTO while PF) */
        ev_path(ep, a, pi);
    }
}

void path_ok(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi)
{
    struct path *p = &a->paths[pi];
    p->error_count = 0;
    if (p->state != SCTPN_PATH_ACTIVE) {
        p->state = SCTPN_PATH_ACTIVE;
        ev_path(ep, a, pi);
    }
}

/* path for new data: the primary while usable; else the usable path with the fewest data
 * failures; else any ACTIVE, then PF path; the primary as the last resort */
int path_for_data(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    if (usable(ep, &a->paths[a->primary]))
        return a->primary;
    for (int i = 0; i < a->npaths; i++)
        if (usable(ep, &a->paths[i]))
            return i;
    int best = -1;
    for (int i = 0; i < a->npaths; i++)
        if (a->paths[i].state == SCTPN_PATH_ACTIVE && a->paths[i].confirmed &&
            (best < 0 || a->paths[i].data_fail < a->paths[best].data_fail))
            best = i;
    if (best >= 0)
        return best;
    for (int i = 0; i < a->npaths; i++)
        if (a->paths[i].state == SCTPN_PATH_PF && a->paths[i].confirmed)
            return i;
    if (a->paths[a->primary].confirmed)
        return a->primary;
    for (int i = 0; i < a->npaths; i++)
        if (a->paths[i].confirmed)
            return i;
    return a->primary;
}

/* path for a retransmission of a chunk last sent on orig (RFC 9260 6.4.1: another active
 * destination if there is one) */
int path_alternate(struct sctpn_assoc *a, int orig)
{
    for (int k = 1; k < a->npaths; k++) {
        int i = (orig + k) % a->npaths;
        if (a->paths[i].state == SCTPN_PATH_ACTIVE && a->paths[i].confirmed &&
            a->paths[i].data_fail == 0)
            return i;
    }
    for (int k = 1; k < a->npaths; k++) {
        int i = (orig + k) % a->npaths;
        if (a->paths[i].state == SCTPN_PATH_ACTIVE && a->paths[i].confirmed &&
            (a->paths[i].data_fail < a->paths[orig].data_fail ||
             a->paths[orig].state != SCTPN_PATH_ACTIVE))
            return i; /* an active path beats a failed or potentially failed one, whatever
                       * their data failure counts (interop n2u.failover: the hole stayed on
                       * the dead path while the live one had T3s of its own) */
    }
    return orig;
}

void path_t3_expired(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now)
{
    struct path *p = &a->paths[pi];
    p->t3 = NEVER;
    p->pto = NEVER;        /* the tail is being repaired by T3 now */
    p->rack_timer = NEVER; /* every chunk of the path is marked for retransmission below */
    p->tlp_rtx_pending = 0;
    p->tlp_new_pending = 0;
    p->t3_timeouts++;
    a->t3s++;
    p->rto = clamp_rto(ep, p->rto * 2); /* RFC 9260 6.3.3 E1 */
    cc_on_t3(ep, p, now); /* cc.h: 7.2.3, cwnd = 1 MTU for the loss-based controllers */
    p->rtt_pending = 0;
    p->in_fast_recovery = 0;
    p->data_fail++;
    /* CMT re-probe: after a backoff of RTO x 2^(failures-1) the path may carry new data again
     * (one packet at cwnd = 1 MTU): acked, it is back in the rotation; lost, the wait doubles.
     * Without this a path with random loss left CMT for good after its first T3. */
    p->data_retry_at = now + (p->rto << (p->data_fail < 6 ? p->data_fail - 1 : 5));
    a->burst_left = ep->cfg.max_burst;
    /* the error first: a path that becomes potentially failed (or failed) here is no longer an
     * alternate of its own, so its chunks move to another active path at this first T3 */
    path_error(ep, a, pi, now);
    if (a->dead)
        return;
    tx_mark_outstanding_rtx(a, pi); /* E2: every chunk outstanding on this path */
}

void path_hb_timer(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now)
{
    struct path *p = &a->paths[pi];
    if (p->hb_outstanding) { /* the last heartbeat went unanswered */
        p->hb_outstanding = 0;
        p->rto = clamp_rto(ep, p->rto * 2);
        path_error(ep, a, pi, now);
        if (a->dead)
            return;
    }
    int idle = p->flight == 0;
    int probe = p->state != SCTPN_PATH_ACTIVE || p->data_fail > 0 || !p->confirmed;
    /* no heartbeats once our SHUTDOWN or SHUTDOWN-ACK is out (T2 runs): a peer that already
     * finished answers one with an ABORT, where a retransmitted SHUTDOWN-ACK would have
     * brought the SHUTDOWN-COMPLETE it needs (interop u2n.idata_loss: the last
     * SHUTDOWN-COMPLETE lost, then a heartbeat, then ABORT instead of a graceful close) */
    int shutting = a->state == SCTPN_SHUTDOWN_SENT || a->state == SCTPN_SHUTDOWN_ACK_SENT;
    uint64_t hb = path_hb_interval(ep, p);
    if (a->state >= SCTPN_ESTABLISHED && !shutting && (probe || (idle && hb)))
        p->hb_send_pending = 1;
    uint64_t gap = probe ? p->rto : p->rto + hb;
    /* a potentially-failed or failed LAN path is probed at least every LAN heartbeat interval,
     * not every backed-off RTO (up to RTO.max, 5 s in the MPI transport): a rail that comes back
     * is then in use again within a second, before the other one may fail too */
    if (probe && hb && hb < ep->cfg.hb_interval_us && gap > hb)
        gap = hb;
    p->hb_due = (probe || hb) ? now + gap : NEVER;
}

void path_hb_input(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi,
                   const struct sctpn_chunk *c)
{
    (void)ep;
    struct path *p = &a->paths[pi];
    if (c->vlen > sizeof p->hb_echo || c->vlen < 4)
        return;
    struct tlv_iter it = { c->val, c->vlen }; /* must hold a well-formed Heartbeat Info TLV */
    uint16_t t;
    const uint8_t *v;
    size_t vl;
    int r;
    while ((r = tlv_next(&it, &t, &v, &vl)) > 0)
        ;
    if (r < 0)
        return;
    memcpy(p->hb_echo, c->val, c->vlen);
    p->hb_echo_len = (uint16_t)c->vlen;
    p->hb_echo_pending = 1;
}

void path_hb_ack_input(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                       const struct sctpn_chunk *c, uint64_t now)
{
    struct tlv_iter it = { c->val, c->vlen };
    uint16_t t;
    const uint8_t *v;
    size_t vl;
    while (tlv_next(&it, &t, &v, &vl) > 0) {
        if (t != PT_HEARTBEAT_INFO || vl != 16)
            continue;
        uint32_t pi = ld32(v), nonce = ld32(v + 4);
        uint64_t sent = ld64(v + 8);
        if (pi >= (uint32_t)a->npaths)
            return;
        struct path *p = &a->paths[pi];
        if (!p->hb_outstanding || nonce != p->hb_nonce || sent > now)
            return;
        p->hb_outstanding = 0;
        p->hbacks_in++;
        p->confirmed = 1;
        path_rtt_sample(ep, p, now - sent);
        a->error_count = 0;
        path_ok(ep, a, (int)pi);
        return;
    }
}

size_t path_build_hb(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint8_t *p,
                     size_t room, uint64_t now)
{
    struct path *pa = &a->paths[pi];
    uint8_t info[16];
    pa->hb_nonce = ep_rand32(ep);
    st32(info, (uint32_t)pi);
    st32(info + 4, pa->hb_nonce);
    st64(info + 8, now);
    size_t n = put_chunk_hdr(p, room, CT_HEARTBEAT, 0, 20);
    if (!n)
        return 0;
    put_param(p + 4, 20, PT_HEARTBEAT_INFO, info, 16);
    pa->hb_outstanding = 1;
    pa->hbs_out++;
    if ((!pa->confirmed || pa->state != SCTPN_PATH_ACTIVE) && pa->hb_due > now + pa->rto)
        pa->hb_due = now + pa->rto; /* a probe is answered within an RTO or counts as lost */
    return n;
}
