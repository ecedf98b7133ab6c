/* test_traces.c — hand-checked protocol traces of the sctpn engine:
 *  1. RTO: with the path black-holed, a DATA chunk is sent at t0, t0+1s, t0+3s, t0+7s,
 *     t0+15s, t0+31s (RTO 1 s doubling per T3 expiry, RFC 9260 6.3.3 E1); the retransmission
 *     that gets through yields no RTT sample (Karn), the next new chunk does and resets the
 *     RTO to SRTT + 4 RTTVAR clamped to RTO.min (RFC 6298).
 *  2. slow start: one SACK acknowledging 1000 new bytes with cwnd fully used adds 1000; one
 *     acknowledging two full packets adds 1 MTU (RFC 9260, L = 1) or both (cfg.abc_l = 2);
 *     a window the flight did not fill grows only with cfg.ss_peak (below twice the peak flight).
 *  3. fast retransmit: a lost chunk is retransmitted after exactly the third SACK reporting
 *     it missing (HTNA), once; ssthresh = max(cwnd/2, 4 MTU), cwnd = ssthresh (7.2.3/7.2.4).
 *  4. T3 after that: cwnd = 1 MTU, ssthresh = max(cwnd/2, 4 MTU).
 *  5. max burst 4: the initial cwnd would allow 5 one-chunk packets, only 4 leave; the next
 *     SACK clocks out what the cwnd allows again.
 *  6. cwnd validation: after 3.5 idle RTOs the cwnd is halved three times (not below 4 MTU);
 *     a cwnd a T3 left at 1 MTU is back at the initial window after an idle RTO.
 *  7. max_out_chunks 8: 20 small messages that fit one packet leave as 8 chunks; the next
 *     8 follow once the cumulative ack advances. */
#include <string.h>

#include "sim.h"

static int ups, delivered;
static uint64_t t_send[16];
static int nsend;
static uint64_t last_delivery;

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
    CHECK(d->first && d->last);
    delivered++;
    last_delivery = s->now;
}

static int record_data(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)arg;
    if (dir == 0 && sim_has_chunk(pkt, len, 0) && nsend < 16)
        t_send[nsend++] = s->now;
    return 1;
}

static int both_up(struct sim *s, void *arg)
{
    (void)s;
    (void)arg;
    return ups == 2;
}
static int one_delivered(struct sim *s, void *arg)
{
    (void)s;
    return delivered >= *(int *)arg;
}

static struct sctpn_path_stats path0(struct sim *s, sctpn_assoc_id id)
{
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s->ep[0], id, &st) == 0);
    return st.paths[0];
}
static struct sctpn_assoc_stats astats(struct sim *s, sctpn_assoc_id id)
{
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s->ep[0], id, &st) == 0);
    return st;
}

static void send_msg(struct sim *s, sctpn_assoc_id id, size_t len)
{
    static uint8_t buf[2000];
    struct iovec iov = {buf, len};
    CHECK(sctpn_send(s->ep[0], id, 0, 0, 0, &iov, 1, NULL) == 0);
}

static int span_override, abc_override, peak_override;
static void setup(struct sim *s, sctpn_assoc_id *id, int max_burst)
{
    sim_init(s, 1, 7);
    struct sctpn_config c0, c1;
    sim_config(s, 0, &c0);
    sim_config(s, 1, &c1);
    for (int i = 0; i < 2; i++) {
        struct sctpn_config *c = i ? &c1 : &c0;
        c->rto_initial_us = 1000000;
        c->rto_min_us = 100000;
        c->rto_max_us = 60000000;
        c->hb_interval_us = 0;
        c->pf_threshold = c->path_max_retrans; /* no PF: keeps the trace pure */
        c->on_event = on_event;
        c->on_data = on_data;
        c->user = s;
    }
    c1.sack_freq = 1; /* SACK every packet */
    c0.tlp = 0;       /* exact RFC 9260 T3 / fast retransmit timelines (TLP: test_tlp.c) */
    c0.rack = 0;      /* ... and miss counting alone (RACK: test_rack.c) */
    c0.max_burst = (uint16_t)max_burst; /* 0: the cwnd alone decides */
    if (span_override)
        c0.max_out_chunks = (uint32_t)span_override;
    if (abc_override)
        c0.abc_l = (uint16_t)abc_override;
    c0.ss_peak = (uint8_t)peak_override;
    ups = delivered = nsend = 0;
    CHECK(sim_start(s, &c0, &c1) == 0);
    CHECK(sim_connect(s, id) == 0);
    CHECK(sim_run(s, s->now + 10000000, both_up, NULL));
}

static void trace_rto(void)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 0);
    CHECK(path0(&s, id).rto_us == 1000000 && path0(&s, id).srtt_us == 0);
    s.filter = record_data;
    s.link[0][0].down = 1;
    uint64_t t0 = s.now;
    send_msg(&s, id, 100);
    sim_run(&s, t0 + 20000000, NULL, NULL);
    CHECK(nsend == 5);
    const uint64_t expect[5] = {0, 1000000, 3000000, 7000000, 15000000};
    for (int i = 0; i < 5; i++) {
        printf("rto trace: send %d at t0+%llu us\n", i, (unsigned long long)(t_send[i] - t0));
        CHECK(t_send[i] - t0 == expect[i]);
    }
    printf("rto trace: rto %llu, T3 expiries %llu\n", (unsigned long long)path0(&s, id).rto_us,
           (unsigned long long)astats(&s, id).t3_timeouts);
    CHECK(path0(&s, id).rto_us == 16000000);
    CHECK(astats(&s, id).t3_timeouts == 4);
    s.link[0][0].down = 0;
    int want = 1;
    CHECK(sim_run(&s, t0 + 40000000, one_delivered, &want));
    CHECK(nsend == 6 && t_send[5] - t0 == 31000000);
    CHECK(last_delivery - t0 == 31000000 + 1000);
    sim_run(&s, s.now + 5000, NULL, NULL); /* the SACK comes back */
    CHECK(path0(&s, id).srtt_us == 0);          /* Karn: no sample from a retransmission */
    CHECK(path0(&s, id).rto_us == 32000000);    /* doubled by the 5th expiry at t0+31s */
    CHECK(astats(&s, id).t3_timeouts == 5);
    CHECK(path0(&s, id).error_count == 0);      /* the ack cleared the error counter */
    send_msg(&s, id, 100);
    want = 2;
    CHECK(sim_run(&s, s.now + 1000000, one_delivered, &want));
    sim_run(&s, s.now + 5000, NULL, NULL);
    struct sctpn_path_stats p = path0(&s, id);
    printf("rto trace: after a clean RTT sample srtt %llu rttvar %llu rto %llu\n",
           (unsigned long long)p.srtt_us, (unsigned long long)p.rttvar_us,
           (unsigned long long)p.rto_us);
    CHECK(p.srtt_us == 2000 && p.rttvar_us == 1000 && p.rto_us == 100000);
    sim_free(&s);
}

/* clean exchanges (all of A's packets, then B's SACK) until cwnd has grown */
static void grow_cwnd(struct sim *s, sctpn_assoc_id id, uint64_t *now, struct sim_cap *a,
                      struct sim_cap *b)
{
    for (int round = 0; round < 20; round++) {
        for (int i = 0; i < 24; i++)
            send_msg(s, id, 1000);
        for (;;) { /* one window per exchange until the queue is empty */
            *now += 10000;
            int na = sim_pull(s->ep[0], *now, a, 64);
            if (!na)
                break;
            for (int i = 0; i < na; i++)
                sim_push(s->ep[1], &a[i], *now);
            int nb = sim_pull(s->ep[1], *now, b, 64);
            for (int i = 0; i < nb; i++)
                sim_push(s->ep[0], &b[i], *now + 2000);
        }
    }
}

static void trace_fast_retransmit(void)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 0);
    uint64_t now = s.now;
    struct sim_cap *a = calloc(64, sizeof *a), *b = calloc(64, sizeof *b);
    CHECK(a && b);
    const uint32_t mtu = 1452;
    /* slow start: cwnd starts at min(4 MTU, max(2 MTU, 4404)) = 4404 */
    CHECK(path0(&s, id).cwnd == 4404);
    for (int i = 0; i < 5; i++)
        send_msg(&s, id, 1000);
    int na = sim_pull(s.ep[0], now, a, 64);
    CHECK(na == 5); /* flight 0,1000,..,4000 < 4404: five one-chunk packets */
    CHECK(path0(&s, id).flight_bytes == 5000);
    CHECK(sim_push(s.ep[1], &a[0], now) == 0);
    int nb = sim_pull(s.ep[1], now, b, 64);
    CHECK(nb == 1 && sim_has_chunk(b[0].data, b[0].len, 3));
    CHECK(sim_push(s.ep[0], &b[0], now + 2000) == 0);
    CHECK(path0(&s, id).cwnd == 5404); /* + min(1000 acked, MTU) */
    for (int i = 1; i < na; i++)
        CHECK(sim_push(s.ep[1], &a[i], now) == 0);
    nb = sim_pull(s.ep[1], now, b, 64);
    for (int i = 0; i < nb; i++)
        sim_push(s.ep[0], &b[i], now + 2000);
    CHECK(astats(&s, id).fast_retransmits == 0);
    /* grow cwnd with clean rounds, then lose one chunk */
    grow_cwnd(&s, id, &now, a, b);
    CHECK(path0(&s, id).flight_bytes == 0);
    uint32_t cwnd = path0(&s, id).cwnd;
    printf("fast retransmit trace: cwnd before the loss %u\n", cwnd);
    CHECK(cwnd > 4 * mtu * 2);
    for (int i = 0; i < 6; i++)
        send_msg(&s, id, 1000);
    now += 10000;
    na = sim_pull(s.ep[0], now, a, 64);
    CHECK(na == 6);
    uint32_t lost = sim_first_tsn(a[0].data, a[0].len);
    for (int k = 1; k <= 5; k++) {
        CHECK(sim_push(s.ep[1], &a[k], now) == 0);
        nb = sim_pull(s.ep[1], now, b, 64);
        CHECK(nb == 1 && sim_has_chunk(b[0].data, b[0].len, 3));
        CHECK(sim_push(s.ep[0], &b[0], now + 2000) == 0);
        struct sctpn_assoc_stats st = astats(&s, id);
        struct sim_cap r[4];
        int nr = sim_pull(s.ep[0], now + 2000, r, 4);
        printf("fast retransmit trace: SACK %d reporting TSN %u missing: fast_rtx %llu, "
               "packets out %d, cwnd %u ssthresh %u\n", k, lost,
               (unsigned long long)st.fast_retransmits, nr, st.paths[0].cwnd,
               st.paths[0].ssthresh);
        if (k < 3) {
            CHECK(st.fast_retransmits == 0 && nr == 0);
        } else if (k == 3) {
            CHECK(st.fast_retransmits == 1 && nr == 1);
            CHECK(sim_first_tsn(r[0].data, r[0].len) == lost);
            uint32_t ss = cwnd / 2 > 4 * mtu ? cwnd / 2 : 4 * mtu;
            CHECK(st.paths[0].ssthresh == ss && st.paths[0].cwnd == ss);
            a[0] = r[0]; /* keep the retransmission for later */
        } else {
            CHECK(st.fast_retransmits == 1 && nr == 0); /* never twice */
        }
    }
    int before = delivered;
    CHECK(sim_push(s.ep[1], &a[0], now + 3000) == 0);
    CHECK(delivered == before + 6);
    nb = sim_pull(s.ep[1], now + 3000, b, 64);
    for (int i = 0; i < nb; i++)
        sim_push(s.ep[0], &b[i], now + 5000);
    CHECK(path0(&s, id).flight_bytes == 0);
    /* T3: cwnd collapses to one MTU */
    uint32_t cw = path0(&s, id).cwnd;
    send_msg(&s, id, 1000);
    now += 10000;
    na = sim_pull(s.ep[0], now, a, 64);
    CHECK(na == 1);
    uint64_t dl = sctpn_next_deadline(s.ep[0]);
    CHECK(dl == now + path0(&s, id).rto_us);
    sctpn_handle_timeout(s.ep[0], dl);
    struct sctpn_path_stats p = path0(&s, id);
    printf("T3 trace: cwnd %u -> %u, ssthresh %u\n", cw, p.cwnd, p.ssthresh);
    CHECK(p.cwnd == mtu && p.ssthresh == (cw / 2 > 4 * mtu ? cw / 2 : 4 * mtu));
    na = sim_pull(s.ep[0], dl, a, 64);
    CHECK(na == 1 && astats(&s, id).retransmitted_chunks >= 2);
    free(a);
    free(b);
    sim_free(&s);
}

static void trace_max_burst(void)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 4);
    uint64_t now = s.now;
    struct sim_cap a[16], b[4];
    for (int i = 0; i < 12; i++)
        send_msg(&s, id, 1000);
    int na = sim_pull(s.ep[0], now, a, 16);
    CHECK(na == 4 && path0(&s, id).flight_bytes == 4000); /* cwnd 4404 would allow 5 */
    CHECK(sim_push(s.ep[1], &a[0], now) == 0);
    CHECK(sim_pull(s.ep[1], now, b, 4) == 1);
    CHECK(sim_push(s.ep[0], &b[0], now + 2000) == 0);
    CHECK(path0(&s, id).cwnd == 5404);
    na = sim_pull(s.ep[0], now + 2000, a, 16);
    printf("max burst trace: 4 packets, then %d after one SACK (flight %u, cwnd %u)\n", na,
           path0(&s, id).flight_bytes, path0(&s, id).cwnd);
    CHECK(na == 3); /* flight 3000, 4000, 5000 < 5404 */
    sim_free(&s);
}

static void trace_idle(void)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 0);
    uint64_t now = s.now;
    struct sim_cap *a = calloc(64, sizeof *a), *b = calloc(64, sizeof *b);
    CHECK(a && b);
    grow_cwnd(&s, id, &now, a, b);
    struct sctpn_path_stats p = path0(&s, id);
    CHECK(p.flight_bytes == 0 && p.cwnd > 4 * 5808);
    uint32_t expect = p.cwnd;
    for (int k = 0; k < 3; k++)
        expect = expect / 2 > 5808 ? expect / 2 : 5808;
    now += 3 * p.rto_us + p.rto_us / 2; /* 3.5 RTOs without data */
    send_msg(&s, id, 1000);
    CHECK(sim_pull(s.ep[0], now, a, 64) == 1);
    printf("idle trace: cwnd %u -> %u after 3.5 idle RTOs of %llu us\n", p.cwnd,
           path0(&s, id).cwnd, (unsigned long long)p.rto_us);
    CHECK(path0(&s, id).cwnd == expect);
    free(a);
    free(b);
    sim_free(&s);
}

/* cwnd restart: a T3 leaves the cwnd at 1 MTU; after an idle RTO the next send starts from the
 * initial window again (RFC 9260 7.2.1, "after a sufficiently long idle period"), not 1 MTU */
static void trace_restart(void)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 0);
    s.link[0][0].down = 1;
    uint64_t t0 = s.now;
    send_msg(&s, id, 100);
    sim_run(&s, t0 + 1500000, NULL, NULL); /* T3 at t0 + 1 s */
    CHECK(astats(&s, id).t3_timeouts == 1);
    s.link[0][0].down = 0;
    int want = 1;
    CHECK(sim_run(&s, t0 + 10000000, one_delivered, &want));
    sim_run(&s, s.now + 5000, NULL, NULL); /* the SACK comes back */
    struct sctpn_path_stats p = path0(&s, id);
    CHECK(p.flight_bytes == 0 && p.cwnd < 4404);
    uint64_t now = s.now + 2 * p.rto_us + 1000; /* idle for more than an RTO */
    struct sim_cap a[4];
    send_msg(&s, id, 100);
    CHECK(sim_pull(s.ep[0], now, a, 4) == 1);
    printf("restart trace: cwnd %u after the T3, %u after an idle RTO\n", p.cwnd, path0(&s, id).cwnd);
    CHECK(path0(&s, id).cwnd == 4404);
    sim_free(&s);
}

static void trace_span(void)
{
    struct sim s;
    sctpn_assoc_id id;
    span_override = 8;
    setup(&s, &id, 0);
    span_override = 0;
    uint64_t now = s.now;
    struct sim_cap a[8], b[8];
    for (int i = 0; i < 20; i++)
        send_msg(&s, id, 20);
    CHECK(sim_pull(s.ep[0], now, a, 8) == 1);
    struct sctpn_assoc_stats st = astats(&s, id);
    CHECK(st.next_tsn - st.cum_tsn_acked - 1 == 8);
    CHECK(sim_push(s.ep[1], &a[0], now) == 0);
    CHECK(sim_pull(s.ep[1], now, b, 8) == 1);
    CHECK(sim_push(s.ep[0], &b[0], now + 2000) == 0);
    CHECK(sim_pull(s.ep[0], now + 2000, a, 8) == 1);
    st = astats(&s, id);
    CHECK(st.next_tsn - st.cum_tsn_acked - 1 == 8 && st.data_chunks_out == 16);
    printf("span trace: 8 chunks per window of max_out_chunks 8\n");
    sim_free(&s);
}

/* slow start: npkt one-packet messages of 1400 bytes leave in the initial cwnd (4404), then one
 * SACK acknowledges the first two (2800 new bytes); returns what it added to the cwnd.
 * - Byte counting (npkt 3, the window filled): min(2800, L MTU), 1452 with the RFC's L = 1,
 *   2800 with L = 2.
 * - A window the flight did not fill (npkt 2): RFC 9260 (ss_peak 0) adds nothing; with ss_peak
 *   the cwnd (4404) is below twice the burst's largest flight (5600), so it grows by
 *   min(2800, L MTU). */
static uint32_t growth_after_one_sack(int l, int peak, int npkt)
{
    struct sim s;
    sctpn_assoc_id id;
    abc_override = l;
    peak_override = peak;
    setup(&s, &id, 0);
    abc_override = peak_override = 0;
    uint64_t now = s.now;
    struct sim_cap a[8], b[8];
    CHECK(path0(&s, id).cwnd == 4404);
    for (int i = 0; i < npkt; i++)
        send_msg(&s, id, 1400);
    CHECK(sim_pull(s.ep[0], now, a, 8) == npkt);
    CHECK(sim_push(s.ep[1], &a[0], now) == 0 && sim_push(s.ep[1], &a[1], now) == 0);
    int nb = sim_pull(s.ep[1], now, b, 8);
    CHECK(nb == 1 && sim_has_chunk(b[0].data, b[0].len, 3)); /* one SACK for both */
    CHECK(sim_push(s.ep[0], &b[0], now + 2000) == 0);
    uint32_t grown = path0(&s, id).cwnd - 4404;
    printf("slow-start trace: L = %d, ss_peak %d, %d packets out, one SACK for 2800 bytes: +%u\n",
           l, peak, npkt, grown);
    sim_free(&s);
    return grown;
}

static void trace_abc(void)
{
    CHECK(growth_after_one_sack(1, 0, 2) == 0);    /* not filled, RFC: no growth */
    CHECK(growth_after_one_sack(1, 1, 2) == 1452); /* not filled, ss_peak */
    CHECK(growth_after_one_sack(1, 0, 3) == 1452); /* filled, L = 1 */
    CHECK(growth_after_one_sack(2, 0, 3) == 2800); /* filled, L = 2 */
}

int main(void)
{
    trace_abc();
    trace_span();
    trace_idle();
    trace_restart();
    trace_rto();
    trace_fast_retransmit();
    trace_max_burst();
    printf(" No Errors\n");
    return 0;
}
