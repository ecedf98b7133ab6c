/* cc_cubic.c — CUBIC (RFC 9438), per path (cfg.cc = cubic).  Slow start as RFC 9260 with the
 * engine's abc_l / ss_peak (cc_reno.c) while cwnd < ssthresh.  On a loss: W_max = cwnd (with
 * fast convergence: cwnd (1 + beta) / 2 when cwnd is below the previous W_max), ssthresh =
 * max(beta cwnd, 4 MTU), cwnd = ssthresh, beta = 0.7; on T3 the same with cwnd = 1 MTU.  In
 * congestion avoidance, from the first window-limited SACK after the loss (the epoch) the
 * window follows W_cubic(t) = C (t - K)^3 + W_max (C = 0.4 MTU/s^3, K = cbrt((W_max -
 * cwnd_epoch) / C)): each SACK moves cwnd towards W_cubic(t + SRTT), by at most half a window
 * per round trip; where the Reno-friendly estimate W_est (grown by alpha = 3 (1 - beta) /
 * (1 + beta) MTU per window acknowledged, 1 once it passed W_max) is larger, cwnd = W_est.
 * Windows are in bytes, one segment being one MTU as in cc_reno.c.  After an idle period the
 * RFC 9260 decay applies and a new epoch starts.  No growth in fast recovery or while the
 * window is not used (RFC 9438 4.8 / RFC 7661). */
#include "sctpn_internal.h"

#define CUBIC_C 0.4
#define CUBIC_BETA 0.7

static double cube_root(double x)
{
    if (x <= 0)
        return 0;
    double y = x > 1 ? x / 3 + 1 : 1;
    for (int i = 0; i < 100; i++) {
        double n = (2 * y + x / (y * y)) / 3;
        if (n == y)
            break;
        y = n;
    }
    return y;
}

static void cubic_init(struct sctpn_endpoint *ep, struct path *p)
{
    p->cwnd = path_initial_cwnd(ep);
    p->ssthresh = 0xffffffffu;
}

/* W_cubic(t) in bytes, t in seconds since the epoch */
static double w_cubic(const struct sctpn_endpoint *ep, const struct cc_cubic_state *c, double t)
{
    double d = t - c->k_s;
    return CUBIC_C * d * d * d * ep->cfg.mtu + c->w_max;
}

static void cubic_on_ack(struct sctpn_endpoint *ep, struct path *p, const struct cc_ack *ack,
                         uint64_t now)
{
    struct cc_cubic_state *c = &p->cc.cubic;
    uint32_t mtu = ep->cfg.mtu;
    if (p->cwnd < p->ssthresh) {
        cc_slow_start(ep, p, ack);
        if (p->cwnd > p->ssthresh && p->ssthresh != 0xffffffffu)
            p->cwnd = p->ssthresh > mtu ? p->ssthresh : mtu;
        cc_after_ack(p);
        return;
    }
    int used = ack->flight_before + mtu > p->cwnd;
    if (!ack->advanced || p->in_fast_recovery || !used) {
        cc_after_ack(p);
        return;
    }
    double cwnd = p->cwnd;
    if (!c->epoch_us) { /* RFC 9438 4.2: a new congestion-avoidance stage */
        c->epoch_us = now;
        c->cwnd_epoch = cwnd;
        c->w_est = cwnd;
        c->acc = 0;
        if (c->w_max < cwnd) {
            c->w_max = cwnd;
            c->k_s = 0;
        } else {
            c->k_s = cube_root((c->w_max - cwnd) / mtu / CUBIC_C);
        }
    }
    double t = (double)(now - c->epoch_us) / 1e6;
    double rtt = (double)(p->have_rtt ? p->srtt : 0) / 1e6;
    /* Reno-friendly estimate (4.3) */
    double alpha = c->w_est < c->w_max ? 3 * (1 - CUBIC_BETA) / (1 + CUBIC_BETA) : 1.0;
    c->w_est += alpha * ack->bytes_acked / cwnd * mtu;
    if (w_cubic(ep, c, t) < c->w_est) {
        if (c->w_est > cwnd)
            cwnd = c->w_est;
    } else { /* concave / convex region (4.4, 4.5) */
        double target = w_cubic(ep, c, t + rtt);
        if (target < cwnd)
            target = cwnd;
        if (target > 1.5 * cwnd)
            target = 1.5 * cwnd;
        c->acc += (target - cwnd) * ack->bytes_acked / cwnd;
        if (c->acc >= 1) {
            double whole = (double)(uint64_t)c->acc;
            cwnd += whole;
            c->acc -= whole;
        }
    }
    if (cwnd > 4e9)
        cwnd = 4e9;
    p->cwnd = (uint32_t)cwnd;
    cc_after_ack(p);
}

/* RFC 9438 4.6 (with 4.7 fast convergence): the window before the reduction and ssthresh */
static void cubic_reduce(struct sctpn_endpoint *ep, struct path *p)
{
    struct cc_cubic_state *c = &p->cc.cubic;
    double cwnd = p->cwnd;
    c->w_max = cwnd < c->w_max ? cwnd * (1 + CUBIC_BETA) / 2 : cwnd;
    double ss = cwnd * CUBIC_BETA;
    uint32_t floor = 4u * ep->cfg.mtu; /* RFC 9260's floor, as for Reno */
    p->ssthresh = ss > floor ? (uint32_t)ss : floor;
    c->epoch_us = 0;
    p->pba = 0;
}

static void cubic_on_loss(struct sctpn_endpoint *ep, struct path *p)
{
    cubic_reduce(ep, p);
    p->cwnd = p->ssthresh;
}

static void cubic_on_t3(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    (void)now;
    cubic_reduce(ep, p);
    p->cwnd = ep->cfg.mtu;
    p->flight_peak = 0;
}

static void cubic_on_idle(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    if (cc_idle_decay(ep, p, now))
        p->cc.cubic.epoch_us = 0; /* the idle time is not part of the curve */
}

const struct cc_ops sm_cc_cubic = {
    .name = "cubic",
    .paces = 0,
    .init = cubic_init,
    .on_ack = cubic_on_ack,
    .on_loss = cubic_on_loss,
    .on_t3 = cubic_on_t3,
    .on_idle = cubic_on_idle,
};
