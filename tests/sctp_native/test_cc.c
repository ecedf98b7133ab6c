/* test_cc.c — the congestion controllers (cc.h) over the simulated network:
 *  1. CUBIC (RFC 9438): one DATA packet dropped once the window passed 100 packets on a
 *     100 ms RTT path: at the loss cwnd becomes exactly beta = 0.7 times the window before it,
 *     and in the following congestion avoidance the window follows W_cubic(t) = C (t - K)^3 +
 *     W_max (C = 0.4 MTU/s^3, K = cbrt(0.3 W_max / C)), checked at 1/4, 1/2, 3/4, 1 and 1.25 K
 *     after the epoch within 5 %.
 *  2. BBR-like controller under 2 % random loss both ways on a 20 Mbit/s bottleneck with a
 *     40 ms RTT: after startup (2 s .. 14 s, with one PROBE_RTT) the goodput stays above 80 % of the bottleneck,
 *     where Reno (RFC 9260) on the same path and with the same loss stays below 40 %; BBR's
 *     model ends at the bottleneck rate (within 20 %) and the path's RTT.
 *  4. BBR's PROBE_RTT: the same path without loss; at 3 s the one-way delay grows from 20 to
 *     30 ms.  The old min_rtt expires 10 s after it was last seen; the window then drops to
 *     4 MTU (PROBE_RTT, no T3) once, min_rtt becomes the new 60 ms and the rate recovers.
 *  3. pacing: during that BBR run at most 3 DATA packets leave at one instant and no 5 ms
 *     window holds more than the pacing rate allows (plus the pacing quantum), and the
 *     transmissions are spread over many distinct instants.
 *  5. random loss is not congestion for BBR: in the lossy runs of 2. the window at every new
 *     fast retransmission is compared with the window just before it: BBR's never shrank at a
 *     loss (its window only moves with the model), Reno's shrank at most of them.
 *  6. real congestion: a drop-tail bottleneck queue of one BDP (20 Mbit/s, 40 ms RTT; the queue
 *     is modelled by the packet filter from the link's backlog) and no random loss; after 5 s
 *     the bottleneck slows to 5 Mbit/s.  The queue overflows; BBR's model follows the new rate
 *     (btl_bw within 20 % of it), its window shrinks to less than half and at most 2.5x the new
 *     BDP + 3 MTU, and in the last 4 s the queue drops at most 5 % of the packets; Reno on the
 *     same path shrinks at the overflow and ends below the queue-plus-pipe size.  (BBR pays for
 *     ignoring loss here: until its 10-round bandwidth window forgets the old rate the queue
 *     drops several times as many packets as under Reno, and a T3 may fire; printed, not
 *     asserted.)
 *  7. SCTPN_CC_AUTO picks per path: a path to 10.x is paced by BBR (its model fills in), a path
 *     to a loopback address (127.0.0.2) runs Reno (no pacing rate, no model).
 *  8. an application-limited BBR path sends up to its window unpaced: every 200 ms a batch of
 *     n 12 KB messages (n = 1, 3, 10, a task farm's requests) on a 1 Gbit/s, 80 ms RTT path
 *     without loss; after 10 batches every batch arrives within the one-way delay plus its
 *     transmission time plus 2 ms (paced at its own app-limited rate estimate, each batch
 *     took 26-28 ms more), while the bulk runs of 2./3. stay paced. */
#include <string.h>

#include "sim.h"

#define MTU 1452

static int ups;
static uint64_t bytes_delivered, bytes_from, bytes_to; /* payload delivered, window edges */
static uint64_t t_from, t_to;

static void on_event(void *user, const struct sctpn_event *ev)
{
    (void)user;
    if (ev->type == SCTPN_EV_ASSOC_UP)
        ups++;
    CHECK(ev->type != SCTPN_EV_ASSOC_DOWN && ev->type != SCTPN_EV_SEND_FAILED);
}

static void on_data(void *user, const struct sctpn_data *d)
{
    struct sim *s = user;
    bytes_delivered += d->len;
    if (s->now <= t_from)
        bytes_from = bytes_delivered;
    if (s->now <= t_to)
        bytes_to = bytes_delivered;
}

static int both_up(struct sim *s, void *arg)
{
    (void)s;
    (void)arg;
    return ups == 2;
}

static sctpn_assoc_id the_id;

static struct sctpn_assoc_stats stats(struct sim *s)
{
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s->ep[0], the_id, &st) == 0);
    return st;
}

/* keep at least 1 MiB queued at node 0 */
static void keep_queued(struct sim *s)
{
    static uint8_t buf[65536];
    struct iovec iov = { buf, sizeof buf };
    while (stats(s).bytes_queued < (1u << 20))
        CHECK(sctpn_send(s->ep[0], the_id, 0, 0, 0, &iov, 1, NULL) == 0);
}

static void setup(struct sim *s, int cc, uint64_t delay_us, uint64_t bw_bps, double loss)
{
    sim_init(s, 1, 11);
    struct sctpn_config c0, c1;
    sim_config(s, 0, &c0);
    sim_config(s, 1, &c1);
    for (int i = 0; i < 2; i++) {
        struct sctpn_config *c = i ? &c1 : &c0;
        c->hb_interval_us = 0;
        c->rto_min_us = 200000;
        c->rto_initial_us = 1000000;
        c->on_event = on_event;
        c->on_data = on_data;
        c->user = s;
        c->cc = (uint8_t)cc;
        c->rwnd = 8u << 20;
        c->sndbuf = 8u << 20;
    }
    c0.max_burst = 0;
    for (int d = 0; d < 2; d++) {
        s->link[d][0].delay_us = delay_us;
        s->link[d][0].loss = 0;
    }
    s->link[0][0].bw_bps = bw_bps;
    ups = 0;
    bytes_delivered = bytes_from = bytes_to = 0;
    t_from = t_to = 0;
    CHECK(sim_start(s, &c0, &c1) == 0);
    CHECK(sim_connect(s, &the_id) == 0);
    CHECK(sim_run(s, s->now + 10000000, both_up, NULL));
    for (int d = 0; d < 2; d++)
        s->link[d][0].loss = loss;
}

/* ---- 1. CUBIC ---- */
static struct {
    int dropped;
    uint32_t prev_cwnd, w_before, w_after;
    uint64_t t_red;
    int npoints;
    double at[8]; /* seconds after the epoch */
    uint32_t cwnd_at[8];
    int got[8];
} cu;

static int cubic_filter(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)arg;
    if (dir == 0 && !cu.dropped && sim_has_chunk(pkt, len, 0) &&
        stats(s).paths[0].cwnd >= 100u * MTU) {
        cu.dropped = 1;
        return 0;
    }
    return 1;
}

static void cubic_pump(struct sim *s, void *arg)
{
    (void)arg;
    keep_queued(s);
    uint32_t cwnd = stats(s).paths[0].cwnd;
    if (cu.dropped && !cu.w_before && cwnd < cu.prev_cwnd) {
        cu.w_before = cu.prev_cwnd;
        cu.w_after = cwnd;
        cu.t_red = s->now;
    }
    cu.prev_cwnd = cwnd;
    if (cu.w_before) {
        /* the epoch begins with the first SACK after fast recovery, one RTT after the loss */
        double t = (double)(s->now - cu.t_red) / 1e6 - 0.1;
        for (int i = 0; i < cu.npoints; i++)
            if (!cu.got[i] && t >= cu.at[i]) {
                cu.got[i] = 1;
                cu.cwnd_at[i] = cwnd;
            }
    }
}

static int cubic_reduced(struct sim *s, void *arg)
{
    (void)s;
    (void)arg;
    return cu.w_before != 0;
}

static double cbrt_d(double x)
{
    double y = x / 3 + 1;
    for (int i = 0; i < 200; i++)
        y = (2 * y + x / (y * y)) / 3;
    return y;
}

static void test_cubic(void)
{
    struct sim s;
    setup(&s, SCTPN_CC_CUBIC, 50000, 100000000, 0);
    memset(&cu, 0, sizeof cu);
    s.filter = cubic_filter;
    s.pump = cubic_pump;
    CHECK(sim_run(&s, s.now + 20000000, cubic_reduced, NULL));
    double w_max = cu.w_before;
    double beta_cwnd = w_max * 0.7;
    printf("cubic: W_max %.0f (%.1f packets), after the loss %u (expected %.0f)\n", w_max,
           w_max / MTU, cu.w_after, beta_cwnd);
    CHECK(cu.w_before > 100u * MTU);
    CHECK(cu.w_after == (uint32_t)beta_cwnd);
    /* follow the curve from there */
    double k = cbrt_d(0.3 * w_max / MTU / 0.4);
    double frac[] = { 0.25, 0.5, 0.75, 1.0, 1.25 };
    for (int i = 0; i < 5; i++)
        cu.at[i] = frac[i] * k;
    cu.npoints = 5;
    sim_run(&s, cu.t_red + (uint64_t)((1.25 * k + 0.5) * 1e6), NULL, NULL);
    for (int i = 0; i < 5; i++) {
        CHECK(cu.got[i]);
        double d = cu.at[i] - k;
        double w = 0.4 * d * d * d * MTU + w_max;
        double err = ((double)cu.cwnd_at[i] - w) / w;
        printf("cubic: t = %.2f s (%.2f K): cwnd %u, W_cubic %.0f (%+.1f %%)\n", cu.at[i],
               frac[i], cu.cwnd_at[i], w, 100 * err);
        CHECK(err < 0.05 && err > -0.05);
    }
    CHECK(stats(&s).fast_retransmits >= 1 && stats(&s).t3_timeouts == 0);
    sim_free(&s);
}

/* ---- 2./3. BBR under random loss, pacing ---- */
#define MAX_TX 200000
static uint64_t tx_t[MAX_TX];
static int ntx;
static uint64_t max_rate;
static uint32_t min_cwnd;
/* 5.: the window at each new fast retransmission against the window one step before */
static uint64_t prev_fr;
static uint32_t prev_cwnd;
static int loss_events, loss_shrinks;

static int record_tx(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)arg;
    if (dir == 0 && sim_has_chunk(pkt, len, 0) && ntx < MAX_TX && s->now >= t_from &&
        s->now <= t_to)
        tx_t[ntx++] = s->now;
    return 1;
}

static void lossy_pump(struct sim *s, void *arg)
{
    (void)arg;
    keep_queued(s);
    struct sctpn_assoc_stats st = stats(s);
    if (s->now >= t_from && s->now <= t_to) {
        struct sctpn_path_stats p = st.paths[0];
        if (p.pacing_rate > max_rate)
            max_rate = p.pacing_rate;
        if (p.cwnd < min_cwnd)
            min_cwnd = p.cwnd;
        if (st.fast_retransmits > prev_fr) {
            loss_events++;
            if (p.cwnd < prev_cwnd)
                loss_shrinks++;
        }
    }
    prev_fr = st.fast_retransmits;
    prev_cwnd = st.paths[0].cwnd;
}

/* goodput (bytes/s) from 2 s to 14 s after the association came up (BBR's min_rtt expires
 * after 10 s: one PROBE_RTT falls in the window) */
static double lossy_run(int cc, int check_pacing)
{
    struct sim s;
    const uint64_t bw = 20000000;
    setup(&s, cc, 20000, bw, 0.02);
    t_from = s.now + 2000000;
    t_to = s.now + 14000000;
    ntx = 0;
    max_rate = 0;
    min_cwnd = UINT32_MAX;
    prev_fr = 0;
    prev_cwnd = 0;
    loss_events = loss_shrinks = 0;
    s.filter = record_tx;
    s.pump = lossy_pump;
    sim_run(&s, t_to + 1, NULL, NULL);
    double rate = (double)(bytes_to - bytes_from) / 12.0;
    struct sctpn_assoc_stats st = stats(&s);
    if (cc == SCTPN_CC_BBR) /* the model: the bottleneck and the path's RTT */
        CHECK(st.paths[0].btl_bw > bw / 8 * 8 / 10 && st.paths[0].btl_bw < bw / 8 * 12 / 10 &&
              st.paths[0].min_rtt_us >= 40000 && st.paths[0].min_rtt_us < 45000);
    printf("%s: goodput %.2f MB/s of a %.2f MB/s bottleneck (%.0f %%), cwnd %u, fast rtx %llu, "
           "t3 %llu, btl_bw %.2f MB/s, min_rtt %llu us\n",
           cc == SCTPN_CC_BBR     ? "bbr"
           : cc == SCTPN_CC_CUBIC ? "cubic"
                                  : "reno",
           rate / 1e6, bw / 8e6, 100 * rate / (bw / 8.0), st.paths[0].cwnd,
           (unsigned long long)st.fast_retransmits, (unsigned long long)st.t3_timeouts,
           st.paths[0].btl_bw / 1e6, (unsigned long long)st.paths[0].min_rtt_us);
    printf("%s: the window shrank at %d of %d new fast retransmissions\n",
           cc == SCTPN_CC_BBR     ? "bbr"
           : cc == SCTPN_CC_CUBIC ? "cubic"
                                  : "reno",
           loss_shrinks, loss_events);
    CHECK(loss_events >= 20);
    if (cc == SCTPN_CC_BBR)
        CHECK(loss_shrinks == 0);
    else
        CHECK(loss_shrinks * 2 >= loss_events);
    if (check_pacing) {
        CHECK(ntx > 1000);
        CHECK(max_rate > 0);
        int same = 1, max_same = 1, instants = 1;
        for (int i = 1; i < ntx; i++) {
            if (tx_t[i] == tx_t[i - 1]) {
                same++;
            } else {
                same = 1;
                instants++;
            }
            if (same > max_same)
                max_same = same;
        }
        /* the most packets in any 5 ms */
        int most = 0;
        for (int i = 0, j = 0; i < ntx; i++) {
            while (tx_t[i] - tx_t[j] >= 5000)
                j++;
            if (i - j + 1 > most)
                most = i - j + 1;
        }
        double allowed = (double)max_rate * 0.005 / MTU + 3;
        printf("pacing: %d DATA packets at %d instants, at most %d at once, at most %d in 5 ms "
               "(the largest pacing rate %.2f MB/s allows %.1f)\n",
               ntx, instants, max_same, most, max_rate / 1e6, allowed);
        CHECK(max_same <= 3);
        CHECK(most <= allowed);
        CHECK(instants * 2 >= ntx);
    }
    sim_free(&s);
    return rate;
}

static uint64_t t_change;

static void probe_rtt_pump(struct sim *s, void *arg)
{
    lossy_pump(s, arg);
    if (t_change && s->now >= t_change) {
        s->link[0][0].delay_us = 30000;
        s->link[1][0].delay_us = 30000;
        t_change = 0;
    }
}

static void test_probe_rtt(void)
{
    struct sim s;
    setup(&s, SCTPN_CC_BBR, 20000, 20000000, 0);
    t_change = s.now + 3000000;
    t_from = t_change;
    t_to = s.now + 18000000;
    max_rate = 0;
    min_cwnd = UINT32_MAX;
    s.pump = probe_rtt_pump;
    sim_run(&s, t_to, NULL, NULL);
    struct sctpn_assoc_stats st = stats(&s);
    printf("probe_rtt: smallest cwnd after the delay change %u (4 MTU = %u), min_rtt %llu us, "
           "btl_bw %.2f MB/s, t3 %llu\n",
           min_cwnd, 4 * MTU, (unsigned long long)st.paths[0].min_rtt_us,
           st.paths[0].btl_bw / 1e6, (unsigned long long)st.t3_timeouts);
    CHECK(min_cwnd == 4 * MTU && st.t3_timeouts == 0);
    CHECK(st.paths[0].min_rtt_us >= 60000 && st.paths[0].min_rtt_us < 65000);
    CHECK(st.paths[0].btl_bw > 2000000 && st.paths[0].btl_bw < 3000000);
    CHECK(st.paths[0].cwnd > 40u * MTU);
    sim_free(&s);
}

/* ---- 6. a drop-tail queue at the bottleneck ---- */
static uint64_t q_limit, t_late, q_pkts_late, q_drops_late, q_drops;

static int queue_filter(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)pkt;
    (void)arg;
    if (dir != 0)
        return 1;
    const struct sim_link *l = &s->link[0][0];
    uint64_t backlog =
        l->busy_until > s->now ? (l->busy_until - s->now) * l->bw_bps / 8000000u : 0;
    int late = s->now >= t_late;
    q_pkts_late += late;
    if (backlog + len > q_limit) {
        q_drops++;
        q_drops_late += late;
        return 0;
    }
    return 1;
}

static void queue_pump(struct sim *s, void *arg)
{
    (void)arg;
    keep_queued(s);
}

static void test_queue_overflow(int cc)
{
    struct sim s;
    const uint64_t bw1 = 20000000, bw2 = 5000000;
    setup(&s, cc, 20000, bw1, 0);
    q_limit = bw1 / 8 * 40 / 1000; /* one BDP: 100 kB */
    t_late = UINT64_MAX;
    q_pkts_late = q_drops_late = q_drops = 0;
    s.filter = queue_filter;
    s.pump = queue_pump;
    sim_run(&s, s.now + 5000000, NULL, NULL);
    struct sctpn_assoc_stats st1 = stats(&s);
    uint64_t drops1 = q_drops;
    s.link[0][0].bw_bps = bw2;
    t_late = s.now + 4000000;
    sim_run(&s, s.now + 8000000, NULL, NULL);
    struct sctpn_assoc_stats st2 = stats(&s);
    const char *name = cc == SCTPN_CC_BBR ? "bbr" : "reno";
    double bdp2 = bw2 / 8.0 * 0.040;
    printf(
        "%s, drop-tail queue of %llu bytes: cwnd %u at 20 Mbit/s, %u at 5 Mbit/s (BDP %.0f); "
        "queue drops %llu before the change, %llu after; in the last 4 s %llu of %llu packets; "
        "btl_bw %.3f MB/s (bottleneck %.3f)\n",
        name, (unsigned long long)q_limit, st1.paths[0].cwnd, st2.paths[0].cwnd, bdp2,
        (unsigned long long)drops1, (unsigned long long)(q_drops - drops1),
        (unsigned long long)q_drops_late, (unsigned long long)q_pkts_late,
        st2.paths[0].btl_bw / 1e6, bw2 / 8e6);
    printf("%s: T3 timeouts %llu, fast retransmissions %llu\n", name,
           (unsigned long long)st2.t3_timeouts, (unsigned long long)st2.fast_retransmits);
    CHECK(q_drops > drops1); /* the slower bottleneck overflowed the queue */
    CHECK(st2.paths[0].cwnd < st1.paths[0].cwnd);
    if (cc == SCTPN_CC_BBR) {
        CHECK(st2.paths[0].cwnd < st1.paths[0].cwnd / 2);
        CHECK(st2.paths[0].btl_bw > bw2 / 8 * 8 / 10 && st2.paths[0].btl_bw < bw2 / 8 * 12 / 10);
        CHECK(st2.paths[0].cwnd <= 2.5 * bdp2 + 3 * MTU);
        CHECK(q_drops_late * 20 <= q_pkts_late);
    } else {
        CHECK(st2.paths[0].cwnd <= bdp2 + (double)q_limit);
    }
    sim_free(&s);
}

/* ---- 7. SCTPN_CC_AUTO ---- */
static void test_auto(int loopback)
{
    struct sim s;
    sim_init(&s, 1, 5);
    if (loopback)
        for (int n = 0; n < 2; n++)
            s.addr[n][0].ipv4 = __builtin_bswap32(0x7f000001u + (uint32_t)n);
    struct sctpn_config c0, c1;
    sim_config(&s, 0, &c0);
    sim_config(&s, 1, &c1);
    for (int i = 0; i < 2; i++) {
        struct sctpn_config *c = i ? &c1 : &c0;
        c->hb_interval_us = 0;
        c->on_event = on_event;
        c->on_data = on_data;
        c->user = &s;
        c->cc = SCTPN_CC_AUTO;
    }
    for (int d = 0; d < 2; d++)
        s.link[d][0].delay_us = 10000;
    s.link[0][0].bw_bps = 50000000;
    ups = 0;
    bytes_delivered = 0;
    CHECK(sim_start(&s, &c0, &c1) == 0);
    CHECK(sim_connect(&s, &the_id) == 0);
    CHECK(sim_run(&s, s.now + 10000000, both_up, NULL));
    s.pump = queue_pump;
    s.filter = NULL;
    sim_run(&s, s.now + 2000000, NULL, NULL);
    struct sctpn_path_stats p = stats(&s).paths[0];
    printf(
        "auto, path to %s: pacing rate %.2f MB/s, btl_bw %.2f MB/s, cwnd %u, delivered %.2f MB\n",
        loopback ? "127.0.0.2" : "10.0.1.2", p.pacing_rate / 1e6, p.btl_bw / 1e6, p.cwnd,
        bytes_delivered / 1e6);
    CHECK(bytes_delivered > 1000000);
    if (loopback)
        CHECK(p.pacing_rate == 0 && p.btl_bw == 0);
    else
        CHECK(p.pacing_rate > 0 && p.btl_bw > 50000000 / 8 * 8 / 10);
    sim_free(&s);
}

/* ---- 8. application-limited bursts ---- */
static uint64_t last_delivery;

static void on_data_t(void *user, const struct sctpn_data *d)
{
    struct sim *s = user;
    bytes_delivered += d->len;
    last_delivery = s->now;
}

static int delivered_all(struct sim *s, void *arg)
{
    (void)s;
    return bytes_delivered >= *(uint64_t *)arg;
}

static void test_app_limited(int n)
{
    struct sim s;
    sim_init(&s, 1, 5);
    struct sctpn_config c[2];
    for (int i = 0; i < 2; i++) {
        sim_config(&s, i, &c[i]);
        c[i].hb_interval_us = 0;
        c[i].on_event = on_event;
        c[i].on_data = on_data_t;
        c[i].user = &s;
        c[i].cc = SCTPN_CC_BBR;
    }
    for (int d = 0; d < 2; d++) {
        s.link[d][0].delay_us = 40000;
        s.link[d][0].bw_bps = 1000000000;
    }
    ups = 0;
    bytes_delivered = 0;
    CHECK(sim_start(&s, &c[0], &c[1]) == 0);
    CHECK(sim_connect(&s, &the_id) == 0);
    CHECK(sim_run(&s, s.now + 10000000, both_up, NULL));
    static uint8_t buf[12288];
    struct iovec iov = { buf, sizeof buf };
    uint64_t worst = 0;
    for (int b = 0; b < 30; b++) {
        uint64_t t0 = s.now, want = bytes_delivered + (uint64_t)n * sizeof buf;
        for (int k = 0; k < n; k++)
            CHECK(sctpn_send(s.ep[0], the_id, (uint16_t)(k % 10), 0, 0, &iov, 1, NULL) == 0);
        CHECK(sim_run(&s, t0 + 2000000, delivered_all, &want)); /* (startup: a few RTTs) */
        sim_run(&s, s.now + 200000, NULL, NULL);
        if (b >= 10 && last_delivery - t0 > worst)
            worst = last_delivery - t0;
    }
    /* transmission at 1 Gbit/s: n x 9 packets of about 1.4 KB, about 11.6 us each */
    uint64_t bound = 40000 + (uint64_t)n * 9 * 12 + 2000;
    struct sctpn_path_stats p = stats(&s).paths[0];
    printf("app-limited bursts of %d x 12 KB, 80 ms RTT: slowest batch %.1f ms (bound %.1f), "
           "pacing rate %.2f MB/s, cwnd %u\n",
           n, worst / 1e3, bound / 1e3, p.pacing_rate / 1e6, p.cwnd);
    CHECK(p.pacing_rate > 0);
    CHECK(worst <= bound);
    sim_free(&s);
}

int main(void)
{
    test_app_limited(1);
    test_app_limited(3);
    test_app_limited(10);
    test_cubic();
    double bottleneck = 20e6 / 8;
    double bbr = lossy_run(SCTPN_CC_BBR, 1);
    double reno = lossy_run(SCTPN_CC_RENO, 0);
    double cubic = lossy_run(SCTPN_CC_CUBIC, 0);
    (void)cubic;
    test_probe_rtt();
    test_queue_overflow(SCTPN_CC_BBR);
    test_queue_overflow(SCTPN_CC_RENO);
    test_auto(0);
    test_auto(1);
    CHECK(bbr >= 0.8 * bottleneck);
    CHECK(reno < 0.4 * bottleneck);
    printf(" No Errors\n");
    return 0;
}
