/* cc_reno.c — the RFC 9260 7.2 congestion controller, per path (the default, cfg.cc = reno):
 * slow start while cwnd <= ssthresh (a SACK grows cwnd by the bytes it newly acknowledges,
 * capped at cfg.abc_l MTU, when the window was used: the flight filled it, or with cfg.ss_peak
 * while it is below twice the largest flight since the path was last empty), congestion
 * avoidance by partial_bytes_acked (one MTU per cwnd acknowledged while the flight filled the
 * window), no growth in fast recovery, ssthresh = max(cwnd / 2, 4 MTU) with cwnd = ssthresh on
 * a loss and cwnd = 1 MTU on T3, and the idle decay of 7.2.1.  The slow start and the idle
 * decay are shared with CUBIC (cc_cubic.c). */
#include "sctpn_internal.h"

static void reno_init(struct sctpn_endpoint *ep, struct path *p)
{
    p->cwnd = path_initial_cwnd(ep);
    p->ssthresh = 0xffffffffu;
}

/* slow start (cwnd <= ssthresh): RFC 9260 7.2.1 with cfg.abc_l and cfg.ss_peak */
void cc_slow_start(struct sctpn_endpoint *ep, struct path *p, const struct cc_ack *ack)
{
    uint32_t mtu = ep->cfg.mtu;
    uint32_t cap = mtu * (ep->cfg.abc_l ? ep->cfg.abc_l : 1u);
    /* the window counts as used when the flight filled it (RFC 9260), or, with cfg.ss_peak,
     * while it is below twice this burst's largest flight (Linux's tcp_is_cwnd_limited in slow
     * start): a message shorter than the window still grows it, so the next one of that size
     * goes in one round trip */
    int used =
        ack->flight_before + mtu > p->cwnd || (ep->cfg.ss_peak && p->cwnd < 2u * p->flight_peak);
    if (ack->advanced && !p->in_fast_recovery && used)
        p->cwnd += ack->bytes_acked < cap ? ack->bytes_acked : cap;
}

/* after a SACK: an empty path starts counting its peak flight afresh */
void cc_after_ack(struct path *p)
{
    if (p->flight == 0) {
        p->pba = 0;
        p->flight_peak = 0;
    }
}

static void reno_on_ack(struct sctpn_endpoint *ep, struct path *p, const struct cc_ack *ack,
                        uint64_t now)
{
    (void)now;
    uint32_t mtu = ep->cfg.mtu;
    if (p->cwnd <= p->ssthresh) {
        cc_slow_start(ep, p, ack);
    } else {
        p->pba += ack->bytes_acked;
        if (p->pba >= p->cwnd && ack->flight_before + mtu > p->cwnd && !p->in_fast_recovery) {
            p->pba -= p->cwnd;
            p->cwnd += mtu;
        }
    }
    cc_after_ack(p);
}

static uint32_t half_cwnd(const struct sctpn_endpoint *ep, const struct path *p)
{
    return p->cwnd / 2 > 4u * ep->cfg.mtu ? p->cwnd / 2 : 4u * ep->cfg.mtu;
}

static void reno_on_loss(struct sctpn_endpoint *ep, struct path *p)
{
    p->ssthresh = half_cwnd(ep, p); /* 7.2.3 */
    p->cwnd = p->ssthresh;
    p->pba = 0;
}

static void reno_on_t3(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    (void)now;
    p->ssthresh = half_cwnd(ep, p); /* 7.2.3 */
    p->cwnd = ep->cfg.mtu;
    p->pba = 0;
    p->flight_peak = 0; /* slow start from 1 MTU counts only what is sent from now on */
}

/* RFC 9260 7.2.1: a path that sent no data for a while halves its cwnd per idle RTO (to no
 * less than 4 MTU, or the configured initial window if larger) before sending again; the step
 * is at least cfg.idle_decay_min_us.  And "after a sufficiently long idle period" (one such
 * step, as Linux TCP's cwnd restart) the cwnd is at least the initial window again: a window
 * that a loss or T3 left below it would otherwise stay there in request/response traffic,
 * where each idle gap ends with a message that fits the initial window but not the reduced
 * one (a 12 KB reply then took 2 round trips for the rest of a run).  Returns 1 if the path
 * was idle. */
int cc_idle_decay(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    uint64_t step = p->rto > ep->cfg.idle_decay_min_us ? p->rto : ep->cfg.idle_decay_min_us;
    if (p->flight || !p->last_data_us || now <= p->last_data_us + step)
        return 0;
    uint32_t floor = 4u * ep->cfg.mtu, iw = path_initial_cwnd(ep);
    if (iw > floor)
        floor = iw;
    for (uint64_t k = (now - p->last_data_us) / step; k > 0 && p->cwnd > floor; k--)
        p->cwnd = p->cwnd / 2 > floor ? p->cwnd / 2 : floor;
    if (p->cwnd < iw)
        p->cwnd = iw;
    p->last_data_us = now;
    return 1;
}

static void reno_on_idle(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    cc_idle_decay(ep, p, now);
}

const struct cc_ops sm_cc_reno = {
    .name = "reno",
    .paces = 0,
    .init = reno_init,
    .on_ack = reno_on_ack,
    .on_loss = reno_on_loss,
    .on_t3 = reno_on_t3,
    .on_idle = reno_on_idle,
};
