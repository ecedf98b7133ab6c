/* cc_bbr.c — a model-based, rate-paced congestion controller in the spirit of BBR v1 (Cardwell
 * et al., "BBR: Congestion-Based Congestion Control", and the IETF draft), per path
 * (cfg.cc = bbr).  It models the path by its bottleneck rate btl_bw (the largest delivery-rate
 * sample, cc_rate.c, of the last 10 round trips; app-limited samples only when they raise it)
 * and its min_rtt (smallest RTT of the last 10 s), and sends at pacing_gain x btl_bw with
 * cwnd = cwnd_gain x BDP + 3 MTU (BDP = btl_bw x min_rtt, at least 4 MTU):
 *  - STARTUP: gains 2/ln 2 until btl_bw grew by less than 25 % over 3 rounds (pipe full);
 *  - DRAIN: pacing gain ln 2 / 2 until the flight is down to one BDP;
 *  - PROBE_BW: pacing gains 1.25, 0.75, then six times 1 (one min_rtt each; the 0.75 phase
 *    ends early once the flight is down to a BDP), cwnd gain 2;
 *  - PROBE_RTT: when min_rtt was not refreshed for 10 s: cwnd 4 MTU for 200 ms and a round.
 * Loss is not a congestion signal: a fast retransmission or RACK loss changes neither cwnd nor
 * the pacing rate (the retransmissions are only data to send); random loss therefore leaves
 * the rate at the bottleneck's.  BBR v1's packet conservation in the first round of recovery
 * is left out for the same reason.  A T3 expiry sets cwnd to 1 MTU as for the others and the
 * next SACK that acknowledges new data restores the previous window (as BBR v1 restores its
 * prior cwnd when loss recovery ends).  The pacing itself is in cc.c. */
#include "sctpn_internal.h"

enum { BBR_STARTUP, BBR_DRAIN, BBR_PROBE_BW, BBR_PROBE_RTT };

#define BBR_HIGH_GAIN 2885 /* 2/ln 2, in thousandths */
#define BBR_DRAIN_GAIN 347 /* its inverse */
#define BBR_CWND_GAIN 2000
#define BBR_MIN_RTT_WIN_US 10000000u
#define BBR_PROBE_RTT_US 200000u
#define BBR_CYCLE 8
static const uint32_t cycle_gain[BBR_CYCLE] = { 1250, 750, 1000, 1000, 1000, 1000, 1000, 1000 };

static void bbr_init(struct sctpn_endpoint *ep, struct path *p)
{
    struct cc_bbr_state *b = &p->cc.bbr;
    p->cwnd = path_initial_cwnd(ep);
    p->ssthresh = 0xffffffffu;
    b->mode = BBR_STARTUP;
    b->pacing_gain_x1000 = BBR_HIGH_GAIN;
    b->cwnd_gain_x1000 = BBR_HIGH_GAIN;
}

static uint64_t bdp(const struct cc_bbr_state *b, uint32_t gain_x1000)
{
    return b->btl_bw * b->min_rtt_us / 1000000u * gain_x1000 / 1000u;
}

static void update_bw(struct cc_bbr_state *b, const struct cc_ack *ack)
{
    if (!ack->rs_interval_us || !ack->rs_delivered)
        return;
    if (b->min_rtt_us && ack->rs_interval_us < b->min_rtt_us / 2)
        return; /* too short an interval to mean anything (ack compression) */
    uint64_t rate = ack->rs_delivered * 1000000u / ack->rs_interval_us;
    if (ack->rs_app_limited && rate < b->btl_bw)
        return;
    int k = (int)(b->round % CC_BBR_BW_ROUNDS);
    if (b->bw_round[k] != b->round) {
        b->bw_round[k] = b->round;
        b->bw_max[k] = 0;
    }
    if (rate > b->bw_max[k])
        b->bw_max[k] = rate;
    uint64_t m = 0;
    for (int i = 0; i < CC_BBR_BW_ROUNDS; i++)
        if (b->bw_round[i] + CC_BBR_BW_ROUNDS > b->round && b->bw_max[i] > m)
            m = b->bw_max[i];
    b->btl_bw = m;
}

static void enter_probe_bw(struct cc_bbr_state *b, uint64_t now)
{
    b->mode = BBR_PROBE_BW;
    b->cwnd_gain_x1000 = BBR_CWND_GAIN;
    b->cycle_idx = 2; /* start cruising (v1 picks a random phase other than the 0.75 one) */
    b->cycle_stamp = now;
    b->pacing_gain_x1000 = cycle_gain[b->cycle_idx];
}

static void bbr_on_ack(struct sctpn_endpoint *ep, struct path *p, const struct cc_ack *ack,
                       uint64_t now)
{
    struct cc_bbr_state *b = &p->cc.bbr;
    uint32_t mtu = ep->cfg.mtu;
    /* rounds: a round ends when a chunk sent after the previous round's end is acknowledged */
    b->round_start = 0;
    if (ack->rs_interval_us && ack->rs_prior_delivered >= b->next_round_delivered) {
        b->next_round_delivered = p->delivered;
        b->round++;
        b->round_start = 1;
    }
    update_bw(b, ack);
    /* min_rtt */
    int rtt_expired = b->min_rtt_stamp && now > b->min_rtt_stamp + BBR_MIN_RTT_WIN_US;
    if (ack->rtt_us && (!b->min_rtt_us || ack->rtt_us <= b->min_rtt_us || rtt_expired)) {
        b->min_rtt_us = ack->rtt_us;
        b->min_rtt_stamp = now;
    }
    if (!b->min_rtt_us && p->have_rtt) {
        b->min_rtt_us = p->srtt;
        b->min_rtt_stamp = now;
    }
    /* T3 recovery over: the window before the T3 */
    if (b->prior_cwnd && ack->advanced) {
        if (p->cwnd < b->prior_cwnd)
            p->cwnd = b->prior_cwnd;
        b->prior_cwnd = 0;
    }
    /* the state machine */
    if (b->mode == BBR_STARTUP && b->round_start && !ack->rs_app_limited) {
        if (b->btl_bw >= b->full_bw + b->full_bw / 4) {
            b->full_bw = b->btl_bw;
            b->full_bw_count = 0;
        } else if (++b->full_bw_count >= 3) {
            b->filled_pipe = 1;
            b->mode = BBR_DRAIN;
            b->pacing_gain_x1000 = BBR_DRAIN_GAIN;
            b->cwnd_gain_x1000 = BBR_HIGH_GAIN;
        }
    }
    if (b->mode == BBR_DRAIN && p->flight <= bdp(b, 1000))
        enter_probe_bw(b, now);
    if (b->mode == BBR_PROBE_BW) {
        uint32_t g = cycle_gain[b->cycle_idx];
        int elapsed = now > b->cycle_stamp + b->min_rtt_us;
        int next = g == 1000  ? elapsed
                   : g > 1000 ? elapsed && ack->flight_before >= bdp(b, g)
                              : elapsed || p->flight <= bdp(b, 1000);
        if (g > 1000 && now > b->cycle_stamp + 2 * b->min_rtt_us)
            next = 1; /* could not fill the probe: move on anyway */
        if (next) {
            b->cycle_idx = (b->cycle_idx + 1) % BBR_CYCLE;
            b->cycle_stamp = now;
            b->pacing_gain_x1000 = cycle_gain[b->cycle_idx];
        }
    }
    if (b->mode != BBR_PROBE_RTT && rtt_expired) {
        b->mode = BBR_PROBE_RTT;
        b->pacing_gain_x1000 = 1000;
        b->cwnd_gain_x1000 = 1000;
        b->probe_rtt_done = 0;
        b->rtt_prior_cwnd = p->cwnd; /* the window to return to */
    }
    if (b->mode == BBR_PROBE_RTT) {
        if (!b->probe_rtt_done && p->flight <= 4u * mtu) {
            b->probe_rtt_done = now + BBR_PROBE_RTT_US;
            b->probe_rtt_round_done = 0;
            b->next_round_delivered = p->delivered;
        } else if (b->probe_rtt_done) {
            if (b->round_start)
                b->probe_rtt_round_done = 1;
            if (b->probe_rtt_round_done && now >= b->probe_rtt_done) {
                b->min_rtt_stamp = now;
                if (p->cwnd < b->rtt_prior_cwnd)
                    p->cwnd = (uint32_t)b->rtt_prior_cwnd;
                if (b->filled_pipe) {
                    enter_probe_bw(b, now);
                } else {
                    b->mode = BBR_STARTUP;
                    b->pacing_gain_x1000 = BBR_HIGH_GAIN;
                    b->cwnd_gain_x1000 = BBR_HIGH_GAIN;
                }
            }
        }
    }
    /* pacing rate */
    uint64_t rate = 0;
    if (b->btl_bw)
        rate = b->btl_bw * b->pacing_gain_x1000 / 1000u;
    else if (p->have_rtt && p->srtt)
        rate = (uint64_t)p->cwnd * 1000000u / p->srtt * BBR_HIGH_GAIN / 1000u;
    if (rate && b->min_rtt_us) { /* never below 4 MTU per min_rtt */
        uint64_t floor = 4ull * mtu * 1000000u / b->min_rtt_us;
        if (rate < floor)
            rate = floor;
    }
    if (rate && (b->filled_pipe || rate > p->pacing_rate))
        p->pacing_rate = rate;
    /* cwnd */
    uint64_t target = b->btl_bw ? bdp(b, b->cwnd_gain_x1000) + 3ull * mtu : path_initial_cwnd(ep);
    uint64_t cw = p->cwnd;
    if (b->filled_pipe) {
        cw += ack->bytes_acked;
        if (cw > target)
            cw = target;
    } else if (cw < target || p->delivered < path_initial_cwnd(ep)) {
        cw += ack->bytes_acked;
    }
    if (cw < 4ull * mtu)
        cw = 4ull * mtu;
    if (b->mode == BBR_PROBE_RTT && cw > 4ull * mtu)
        cw = 4ull * mtu;
    p->cwnd = cw > 0xffff0000u ? 0xffff0000u : (uint32_t)cw;
    cc_after_ack(p);
}

static void bbr_on_loss(struct sctpn_endpoint *ep, struct path *p)
{
    (void)ep;
    (void)p; /* random loss is not congestion: the model decides the rate */
}

static void bbr_on_t3(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    (void)now;
    struct cc_bbr_state *b = &p->cc.bbr;
    if (p->cwnd > b->prior_cwnd)
        b->prior_cwnd = p->cwnd;
    p->cwnd = ep->cfg.mtu;
    p->flight_peak = 0;
}

static void bbr_on_idle(struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    (void)ep;
    (void)now;
    struct cc_bbr_state *b = &p->cc.bbr;
    /* restarting from idle in PROBE_BW: at the estimated rate, not above it */
    if (!p->flight && b->mode == BBR_PROBE_BW && b->btl_bw && p->app_limited_until)
        p->pacing_rate = b->btl_bw;
}

const struct cc_ops sm_cc_bbr = {
    .name = "bbr",
    .paces = 1,
    .init = bbr_init,
    .on_ack = bbr_on_ack,
    .on_loss = bbr_on_loss,
    .on_t3 = bbr_on_t3,
    .on_idle = bbr_on_idle,
};
