/* test_rack.c — deterministic traces of the sctpn engine's loss recovery at a 40 ms RTT (20 ms
 * one-way delay, the issue-6 farm cells) on the virtual clock, with the MPI transport's
 * settings (RTO.min 30 ms, SACK delay 10 ms, no burst limit):
 *  1. RACK (rack.c): the 5th of 6 packets is lost; the others arrive together and make one
 *     SACK (cum ack 4, gap block 6: one miss report, three needed): with tail-loss probe and
 *     early retransmit off, RACK retransmits it exactly one reordering window (min RTT / 4)
 *     after that SACK arrives; without RACK only T3 repairs it, one RTO after that SACK;
 *  2. the tail-loss probe (tlp.c) at this RTT: 2 SRTT exceeds the RTO, so the probe is capped
 *     at the T3 deadline and goes out instead of T3: the lost last packet is resent at the
 *     moment T3 would have fired, but with no T3 counted, cwnd not collapsed to 1 MTU and the
 *     RTO not doubled (before, the probe was never armed at this RTT and T3 did the repair);
 *  3. reordering without loss: 20 % of the packets are delayed by up to 5 ms (below the
 *     10 ms window): RACK declares nothing lost; counting three miss reports alone (RACK
 *     off) retransmits hundreds of chunks for nothing, with RACK on that stops at the first
 *     duplicate reports (reordering seen: RACK alone decides): 10x fewer at least;
 *  4. heavy reordering without loss (10 % delayed by up to 30 ms, beyond the window): the
 *     duplicate reports widen the window, so spurious retransmissions stay few (no storm):
 *     under a tenth of the reordered packets, and fewer than without RACK.
 * Every message must arrive intact and in order each time. */
#include <string.h>

#include "sim_trace.h"

#define DELAY_US 20000
#define SACK_DELAY_US 10000
#define PKT_PAYLOAD 1424 /* DATA payload per packet at MTU 1452 */

/* an established association with an RTT estimate and a cwnd of at least 6 packets */
static void setup(struct sim *s, sctpn_assoc_id *id, int tlp, int rack, uint64_t seed)
{
    sim_init(s, 1, seed);
    struct sctpn_config c0, c1;
    sim_config(s, 0, &c0);
    sim_config(s, 1, &c1);
    for (int i = 0; i < 2; i++) {
        struct sctpn_config *c = i ? &c1 : &c0;
        c->rto_initial_us = 1000000;
        c->rto_min_us = 30000; /* the MPI transport's values */
        c->rto_max_us = 5000000;
        c->hb_interval_us = 0;
        c->sack_delay_us = SACK_DELAY_US;
        c->max_burst = 0;
        c->idle_decay_min_us = 200000;
        sim_trace_hook(s, c);
    }
    c0.tlp = (uint8_t)tlp;
    c0.rack = (uint8_t)rack;
    s->link[0][0].delay_us = s->link[1][0].delay_us = DELAY_US;
    s->filter = sim_trace_filter;
    sim_trace_connect(s, &c0, &c1, id);
    for (long i = 1; i <= 4; i++) { /* RTT samples and cwnd growth, everything acknowledged */
        sim_trace_send(s, *id, 8 * PKT_PAYLOAD);
        CHECK(sim_run(s, s->now + 2000000, sim_trace_delivered, &i));
        sim_run(s, s->now + 50000, NULL, NULL);
    }
    struct sctpn_assoc_stats st = sim_trace_stats(s, *id);
    CHECK(st.paths[0].srtt_us >= 2 * DELAY_US && st.paths[0].flight_bytes == 0);
    CHECK(st.paths[0].cwnd >= 6 * 1452);
    CHECK(st.t3_timeouts == 0 && st.tlp_probes == 0 && st.retransmitted_chunks == 0);
    trace.delivered = 0;
    trace.armed = 1;
}

/* case 1; returns the time from the send to the delivery of the message */
static uint64_t lost_fifth_of_six(int rack)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 0, rack, 21);
    trace.drop_mask = 1u << 4;
    uint64_t t0 = s.now;
    sim_trace_send(&s, id, 6 * PKT_PAYLOAD);
    long want = 1;
    CHECK(sim_run(&s, t0 + 5000000, sim_trace_delivered, &want));
    sim_run(&s, s.now + 200000, NULL, NULL);
    struct sctpn_assoc_stats st = sim_trace_stats(&s, id);
    CHECK(trace.ndata == 7);
    for (int k = 0; k < 6; k++)
        CHECK(trace.t_data[k] == t0);
    CHECK(trace.tsn_data[6] == trace.tsn_data[4]); /* the 7th DATA packet is the lost chunk again */
    /* SACKs: 1-2 and 3-4 (every second packet), then 6 out of order (at once) */
    /* the five packets arrive together: one SACK, cum 4 and a gap block for 6 (a single miss
     * report); it restarts T3 too */
    CHECK(trace.nsack >= 1 && trace.t_sack[0] == t0 + DELAY_US);
    uint64_t t_gap = trace.t_sack[0] + DELAY_US;
    uint64_t t_cum = t_gap;
    printf("%s: SACK with the hole in at t0+%llu, retransmission at t0+%llu (rto now %llu),"
           " trace.delivered at t0+%llu\n", rack ? "RACK" : "no RACK",
           (unsigned long long)(t_gap - t0), (unsigned long long)(trace.t_data[6] - t0),
           (unsigned long long)st.paths[0].rto_us, (unsigned long long)(trace.t_delivered - t0));
    if (rack) {
        /* the reordering window: min RTT / 4; the min RTT of this path is exactly 40 ms */
        CHECK(trace.t_data[6] == t_gap + 2 * DELAY_US / 4);
        CHECK(st.rack_losses == 1 && st.fast_retransmits == 1 && st.t3_timeouts == 0);
        CHECK(trace.t_data[6] < t_cum + st.paths[0].rto_us); /* before T3 would have fired */
    } else {
        CHECK(trace.t_data[6] == t_cum + st.paths[0].rto_us / 2); /* the RTO before T3 doubled it */
        CHECK(st.rack_losses == 0 && st.fast_retransmits == 0 && st.t3_timeouts == 1);
    }
    CHECK(trace.t_delivered == trace.t_data[6] + DELAY_US);
    CHECK(st.retransmitted_chunks == 1);
    CHECK(st.paths[0].flight_bytes == 0 && st.cum_tsn_acked == st.next_tsn - 1);
    sim_free(&s);
    return trace.t_delivered - t0;
}

/* case 2: the last of 3 packets lost; returns cwnd after recovery (with 1 MTU meaning T3) */
static void lost_tail_probe_capped_at_rto(int tlp)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, tlp, 1, 22);
    struct sctpn_assoc_stats st0 = sim_trace_stats(&s, id);
    trace.drop_mask = 1u << 2;
    uint64_t t0 = s.now;
    sim_trace_send(&s, id, 3 * PKT_PAYLOAD);
    long want = 1;
    CHECK(sim_run(&s, t0 + 5000000, sim_trace_delivered, &want));
    sim_run(&s, s.now + 200000, NULL, NULL);
    struct sctpn_assoc_stats st = sim_trace_stats(&s, id);
    uint64_t t_s = trace.t_sack[0] + DELAY_US; /* the SACK of the first two: T3 restarted */
    /* the RTO in force when that SACK restarted T3 (its own RTT sample moved it) */
    printf("tail at 40 ms RTT, tlp %s: SACK in at t0+%llu, retransmission at t0+%llu,"
           " srtt %llu, rto now %llu, cwnd %u -> %u, T3s %llu, probes %llu\n", tlp ? "on" : "off",
           (unsigned long long)(t_s - t0), (unsigned long long)(trace.t_data[3] - t0),
           (unsigned long long)st.paths[0].srtt_us, (unsigned long long)st.paths[0].rto_us,
           st0.paths[0].cwnd, st.paths[0].cwnd, (unsigned long long)st.t3_timeouts,
           (unsigned long long)st.tlp_probes);
    CHECK(trace.ndata == 4 && t_s == t0 + 2 * DELAY_US);
    CHECK(trace.t_delivered == trace.t_data[3] + DELAY_US);
    CHECK(st.retransmitted_chunks == 1 && st.paths[0].flight_bytes == 0);
    if (tlp) {
        CHECK(2 * st.paths[0].srtt_us > st.paths[0].rto_us); /* 2 SRTT is beyond the RTO */
        /* the probe left at the T3 deadline (t_s + RTO), instead of T3 */
        CHECK(trace.t_data[3] == t_s + st.paths[0].rto_us);
        CHECK(st.t3_timeouts == 0 && st.tlp_probes == 1 && st.tlp_repairs == 1);
        CHECK(st.paths[0].cwnd >= st0.paths[0].cwnd); /* no collapse */
        CHECK(st.paths[0].error_count == 0);
    } else {
        CHECK(trace.t_data[3] == t_s + st.paths[0].rto_us / 2); /* the same moment */
        CHECK(st.t3_timeouts == 1 && st.tlp_probes == 0);
        CHECK(st.paths[0].cwnd < st0.paths[0].cwnd); /* restarted from 1 MTU */
    }
    sim_free(&s);
}

/* cases 3 and 4: lossless, reordering link; every retransmission is spurious */
struct reo_result { uint64_t rtx, rack, reordered; };
static struct reo_result reordered(int rack, double prob, uint64_t reorder_us, long msgs)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 1, rack, 23);
    s.link[0][0].reorder = prob;
    s.link[0][0].reorder_us = reorder_us;
    uint64_t t0 = s.now;
    long sent = 0;
    while (trace.delivered < msgs) { /* a window of 8 messages of 1 .. 20 packets in flight */
        while (sent < msgs && sent - trace.delivered < 8) {
            sim_trace_send(&s, id, (size_t)(1 + (sent * 7919) % 20) * PKT_PAYLOAD - 100);
            sent++;
        }
        long want = trace.delivered + 1;
        CHECK(sim_run(&s, s.now + 5000000, sim_trace_delivered, &want));
    }
    sim_run(&s, s.now + 500000, NULL, NULL);
    struct sctpn_assoc_stats st = sim_trace_stats(&s, id);
    struct reo_result r = {st.retransmitted_chunks, st.rack_losses,
                           (uint64_t)((double)st.packets_out * prob)};
    printf("reordering %.0f%% up to %llu us, rack %d: %ld messages in %.2f s, %llu packets,"
           " retransmitted %llu (RACK %llu, fast %llu, T3 %llu, probes %llu), dups %llu\n",
           prob * 100, (unsigned long long)reorder_us, rack, msgs, (s.now - t0) / 1e6,
           (unsigned long long)st.packets_out, (unsigned long long)st.retransmitted_chunks,
           (unsigned long long)st.rack_losses, (unsigned long long)st.fast_retransmits,
           (unsigned long long)st.t3_timeouts, (unsigned long long)st.tlp_probes,
           (unsigned long long)st.dup_tsns_reported);
    CHECK(st.paths[0].flight_bytes == 0 && st.cum_tsn_acked == st.next_tsn - 1);
    CHECK(st.t3_timeouts == 0);
    sim_free(&s);
    return r;
}

int main(void)
{
    uint64_t with = lost_fifth_of_six(1);
    uint64_t without = lost_fifth_of_six(0);
    CHECK(with < without);
    lost_tail_probe_capped_at_rto(1);
    lost_tail_probe_capped_at_rto(0);
    /* within the window: RACK marks nothing; miss counting alone retransmits many chunks
     * (each overtaken by three packets), with RACK it stops after the first duplicates */
    struct reo_result off = reordered(0, 0.2, 5000, 2000);
    struct reo_result on = reordered(1, 0.2, 5000, 2000);
    CHECK(on.rack == 0);
    CHECK(on.rtx * 10 < off.rtx);
    /* beyond the window: the window widens, spurious retransmissions stay few */
    off = reordered(0, 0.1, 30000, 2000);
    on = reordered(1, 0.1, 30000, 2000);
    printf("heavy reordering: %llu spurious retransmissions (%llu by RACK) for about %llu"
           " reordered packets; %llu without RACK\n", (unsigned long long)on.rtx,
           (unsigned long long)on.rack, (unsigned long long)on.reordered,
           (unsigned long long)off.rtx);
    CHECK(on.rtx * 10 < on.reordered && on.rtx < off.rtx);
    printf(" No Errors\n");
    return 0;
}
