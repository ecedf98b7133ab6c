/* cc.c — dispatch to the configured congestion controller (cfg.cc, cc.h) and the pacing gate
 * of rate-based controllers.  Pacing keeps, per path, the time the next packet may leave
 * (pace_next_us): each DATA chunk sent moves it on by len / pacing_rate; a path that was
 * held back may catch up by at most cfg.pace_quantum_us (default PACE_QUANTUM_US) worth of its
 * rate (and at least PACE_MIN_BURST packets), so a caller that wakes up at the engine's next
 * deadline with a coarse timer, or late, sends small bursts rather than one packet per wakeup
 * and still keeps the rate.  Up to the initial window in flight a path is never held back.  The deadline is
 * reported by sctpn_next_deadline only while a path has data held back by pacing alone
 * (pace_blocked, set by output.c). */
#include "sctpn_internal.h"

#define PACE_QUANTUM_US                                                                          \
    1000                 /* cfg.pace_quantum_us = 0: the burst a paced path may send at
                              * once, in time at its rate */
#define PACE_MIN_BURST 2 /* ... but at least this many full packets */

const struct cc_ops *cc_ops_of(const struct path *p)
{
    switch (p->cc_algo) {
    case SCTPN_CC_CUBIC: return &sm_cc_cubic;
    case SCTPN_CC_BBR: return &sm_cc_bbr;
    default: return &sm_cc_reno;
    }
}

int cc_paces(const struct path *p)
{
    return cc_ops_of(p)->paces;
}

/* SCTPN_CC_AUTO: a loopback path (127/8, the same host) never loses a packet at random: every
 * loss there is a full socket buffer, i.e. real congestion, which the loss-based RFC 9260
 * controller answers and BBR would not; any other path gets BBR, for which random loss on long
 * or lossy links is not congestion. */
static uint8_t auto_algo(const struct path *p)
{
    const uint8_t *a = (const uint8_t *)&p->remote.ipv4; /* network byte order */
    return a[0] == 127 ? SCTPN_CC_RENO : SCTPN_CC_BBR;
}

void cc_init(struct sctpn_endpoint *ep, struct path *p)
{
    memset(&p->cc, 0, sizeof p->cc);
    p->pacing_rate = 0;
    p->pace_next_us = 0;
    p->pace_blocked = 0;
    p->cc_algo = ep->cfg.cc == SCTPN_CC_AUTO ? auto_algo(p) : ep->cfg.cc;
    cc_ops_of(p)->init(ep, p);
}

void cc_on_ack(struct sctpn_endpoint *ep, struct path *p, const struct cc_ack *ack, uint64_t now)
{
    cc_ops_of(p)->on_ack(ep, p, ack, now);
}

void cc_on_loss(struct sctpn_endpoint *ep, struct path *p)
{
    cc_ops_of(p)->on_loss(ep, p);
}

void cc_on_t3(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    cc_ops_of(p)->on_t3(ep, p, now);
}

void cc_on_idle(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    cc_ops_of(p)->on_idle(ep, p, now);
}

/* what a paced path that had run out of data may send at once: its window (for BBR, cwnd_gain
 * times the model's bytes per round trip).  An application-limited sender like a task farm
 * hands over a few messages per round trip; its rate samples span a whole round trip (the
 * first packet after idle starts the interval), so btl_bw settles near that amount per RTT,
 * and pacing at it spread every burst over about RTT / pacing gain: 25-30 ms added to each
 * 12 KB message on an 80 ms RTT path with the link idle.  A sender with more to send than
 * the window (bulk) is paced as before. */
static uint64_t idle_burst(const struct path *p)
{
    if (p->cc_algo != SCTPN_CC_BBR || !p->app_limited_until)
        return 0;
    return p->cwnd;
}

int cc_pace_ok(const struct sctpn_endpoint *ep, const struct path *p, uint64_t now)
{
    /* up to the initial window in flight is never held back: a request or a reply that fits
     * it leaves at once, as it would at the start of any connection (pacing is for the rest);
     * an application-limited path may also send its usual round trip's worth (idle_burst) */
    if (!p->pacing_rate || p->flight + ep->cfg.mtu <= path_initial_cwnd(ep) ||
        p->flight + ep->cfg.mtu <= idle_burst(p))
        return 1;
    return p->pace_next_us <= now;
}

void cc_on_sent(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct path *p, struct txc *c,
                uint64_t now)
{
    rate_on_sent(a, p, c, now);
    if (!p->pacing_rate)
        return;
    uint64_t rate = p->pacing_rate;
    uint64_t quantum = ep->cfg.pace_quantum_us ? ep->cfg.pace_quantum_us : PACE_QUANTUM_US;
    uint64_t q = rate * quantum / 1000000u;
    if (q < (uint64_t)PACE_MIN_BURST * ep->cfg.mtu)
        q = (uint64_t)PACE_MIN_BURST * ep->cfg.mtu;
    uint64_t credit_us = q * 1000000u / rate;
    if (p->pace_next_us + credit_us < now)
        p->pace_next_us = now - credit_us;
    else if (p->pace_next_us < now && now < credit_us)
        p->pace_next_us = 0; /* (the virtual clock of a test may start near 0) */
    p->pace_next_us += ((uint64_t)c->len * 1000000u + rate - 1) / rate;
}
