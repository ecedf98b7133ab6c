/* test_tlp.c — deterministic traces of the tail-loss recovery of the sctpn engine (tlp.c:
 * RFC 8985 section 7 tail-loss probe, RFC 5827 early retransmit) on the virtual clock, one
 * link with a 10 ms one-way delay, RTO.min 200 ms (so T3 and the probe are far apart):
 *  1. the last packet of a 3-packet message is lost: the SACK of the first two arrives at
 *     t_s; the probe (a retransmission of the last chunk) leaves exactly at
 *     t_s + max(2 SRTT, 10 ms) + the delayed-SACK time (one packet outstanding), repairs it,
 *     no T3, cwnd unchanged, 1 probe counted as a repair;
 *  2. the last packet AND the probe are lost: T3, re-armed when the probe left (RFC 8985
 *     7.3), still repairs it, one RTO after the probe;
 *  3. the same loss as 1 with tlp off: only T3 repairs it (the RFC 9260 baseline);
 *  4. the middle packet is lost: the SACK reporting the hole triggers early retransmit at
 *     once (2 chunks outstanding: threshold 1), no probe, no T3. */
#include <string.h>

#include "sim_trace.h"

#define DELAY_US 10000
#define SACK_DELAY_US 5000
#define MSG_LEN 4000 /* 1424 + 1424 + 1152 bytes: three packets at MTU 1452 */

/* an established association with an RTT estimate; node 0 sends */
static void setup(struct sim *s, sctpn_assoc_id *id, int tlp)
{
    sim_init(s, 1, 11);
    struct sctpn_config c0, c1;
    sim_config(s, 0, &c0);
    sim_config(s, 1, &c1);
    for (int i = 0; i < 2; i++) {
        struct sctpn_config *c = i ? &c1 : &c0;
        c->rto_initial_us = 1000000;
        c->rto_min_us = 200000;
        c->rto_max_us = 60000000;
        c->hb_interval_us = 0;
        c->sack_delay_us = SACK_DELAY_US;
        sim_trace_hook(s, c);
    }
    c0.tlp = (uint8_t)tlp;
    s->link[0][0].delay_us = s->link[1][0].delay_us = DELAY_US;
    s->filter = sim_trace_filter;
    sim_trace_connect(s, &c0, &c1, id);
    for (long i = 1; i <= 4; i++) { /* RTT samples, everything acknowledged */
        sim_trace_send(s, *id, 100);
        CHECK(sim_run(s, s->now + 1000000, sim_trace_delivered, &i));
        sim_run(s, s->now + 100000, NULL, NULL);
    }
    struct sctpn_assoc_stats st = sim_trace_stats(s, *id);
    CHECK(st.paths[0].srtt_us > 0 && st.paths[0].flight_bytes == 0);
    CHECK(st.t3_timeouts == 0 && st.tlp_probes == 0);
    trace.delivered = 0;
    trace.armed = 1;
}

static uint64_t expected_pto(const struct sctpn_path_stats *p, int one_packet)
{
    uint64_t pto = 2 * p->srtt_us > 10000 ? 2 * p->srtt_us : 10000;
    return pto + (one_packet ? SACK_DELAY_US : 0);
}

static void lost_tail_repaired_by_probe(void)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 1);
    uint32_t cwnd0 = sim_trace_stats(&s, id).paths[0].cwnd;
    trace.drop_mask = 1 << 2; /* the third packet */
    uint64_t t0 = s.now;
    sim_trace_send(&s, id, MSG_LEN);
    long want = 1;
    CHECK(sim_run(&s, t0 + 5000000, sim_trace_delivered, &want));
    sim_run(&s, s.now + 100000, NULL, NULL); /* the final SACK comes back */
    struct sctpn_assoc_stats st = sim_trace_stats(&s, id);
    CHECK(trace.ndata == 4 && trace.t_data[0] == t0 && trace.t_data[1] == t0 && trace.t_data[2] == t0);
    CHECK(trace.nsack >= 2);
    uint64_t t_s = trace.t_sack[0] + DELAY_US; /* the SACK of the first two reaches the sender */
    uint64_t pto = expected_pto(&st.paths[0], 1);
    printf("probe trace: SACK in at t0+%llu, probe at t0+%llu (srtt %llu, PTO %llu, rto %llu),"
           " trace.delivered at t0+%llu\n", (unsigned long long)(t_s - t0),
           (unsigned long long)(trace.t_data[3] - t0), (unsigned long long)st.paths[0].srtt_us,
           (unsigned long long)pto, (unsigned long long)st.paths[0].rto_us,
           (unsigned long long)(trace.t_delivered - t0));
    CHECK(t_s == t0 + 2 * DELAY_US);
    CHECK(trace.t_data[3] == t_s + pto);                      /* the probe, on time */
    CHECK(trace.t_delivered == trace.t_data[3] + DELAY_US);         /* it filled the hole */
    CHECK(trace.t_data[3] < t_s + st.paths[0].rto_us);        /* well before T3 */
    CHECK(st.t3_timeouts == 0 && st.fast_retransmits == 0);
    CHECK(st.tlp_probes == 1 && st.tlp_repairs == 1);
    CHECK(st.retransmitted_chunks == 1);
    CHECK(st.paths[0].cwnd >= cwnd0);                   /* no collapse */
    CHECK(st.paths[0].error_count == 0 && st.paths[0].flight_bytes == 0);
    CHECK(st.cum_tsn_acked == st.next_tsn - 1);
    sim_free(&s);
}

static void lost_tail_and_probe_repaired_by_t3(void)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 1);
    trace.drop_mask = 1 << 2 | 1 << 3; /* the third packet and the probe */
    uint64_t t0 = s.now;
    sim_trace_send(&s, id, MSG_LEN);
    long want = 1;
    CHECK(sim_run(&s, t0 + 5000000, sim_trace_delivered, &want));
    sim_run(&s, s.now + 100000, NULL, NULL);
    struct sctpn_assoc_stats st = sim_trace_stats(&s, id);
    uint64_t t_s = trace.t_sack[0] + DELAY_US;
    /* the RTO that re-armed T3 with the probe is the one before the expiry doubled it */
    uint64_t rto = st.paths[0].rto_us / 2;
    printf("probe lost trace: probe at t0+%llu, T3 retransmission at t0+%llu (rto %llu)\n",
           (unsigned long long)(trace.t_data[3] - t0), (unsigned long long)(trace.t_data[4] - t0),
           (unsigned long long)rto);
    CHECK(trace.ndata == 5);
    CHECK(trace.t_data[3] == t_s + expected_pto(&st.paths[0], 1));
    CHECK(trace.t_data[4] == trace.t_data[3] + rto);                /* T3, re-armed by the probe */
    CHECK(trace.t_delivered == trace.t_data[4] + DELAY_US);
    CHECK(st.t3_timeouts == 1 && st.tlp_probes == 1 && st.tlp_repairs == 0);
    CHECK(st.paths[0].flight_bytes == 0 && st.cum_tsn_acked == st.next_tsn - 1);
    sim_free(&s);
}

static uint64_t lost_tail_without_tlp(void)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 0);
    trace.drop_mask = 1 << 2;
    uint64_t t0 = s.now;
    uint64_t rto = sim_trace_stats(&s, id).paths[0].rto_us;
    sim_trace_send(&s, id, MSG_LEN);
    long want = 1;
    CHECK(sim_run(&s, t0 + 5000000, sim_trace_delivered, &want));
    struct sctpn_assoc_stats st = sim_trace_stats(&s, id);
    uint64_t t_s = trace.t_sack[0] + DELAY_US;
    printf("tlp off trace: T3 retransmission at t0+%llu, trace.delivered at t0+%llu\n",
           (unsigned long long)(trace.t_data[3] - t0), (unsigned long long)(trace.t_delivered - t0));
    CHECK(trace.ndata == 4 && trace.t_data[3] == t_s + rto);
    CHECK(st.t3_timeouts == 1 && st.tlp_probes == 0 && st.tlp_repairs == 0);
    sim_free(&s);
    return trace.t_delivered - t0;
}

static void lost_middle_early_retransmit(void)
{
    struct sim s;
    sctpn_assoc_id id;
    setup(&s, &id, 1);
    trace.drop_mask = 1 << 1; /* the second packet */
    uint64_t t0 = s.now;
    sim_trace_send(&s, id, MSG_LEN);
    long want = 1;
    CHECK(sim_run(&s, t0 + 5000000, sim_trace_delivered, &want));
    sim_run(&s, s.now + 100000, NULL, NULL);
    struct sctpn_assoc_stats st = sim_trace_stats(&s, id);
    /* packets 1 and 3 arrive together; the out-of-order one is SACKed at once */
    uint64_t t_s = trace.t_sack[0] + DELAY_US;
    printf("early retransmit trace: SACK in at t0+%llu, retransmission at t0+%llu\n",
           (unsigned long long)(t_s - t0), (unsigned long long)(trace.t_data[3] - t0));
    CHECK(trace.ndata == 4 && t_s == t0 + 2 * DELAY_US && trace.t_data[3] == t_s);
    CHECK(trace.t_delivered == trace.t_data[3] + DELAY_US);
    CHECK(st.fast_retransmits == 1 && st.t3_timeouts == 0 && st.tlp_probes == 0);
    sim_free(&s);
}

int main(void)
{
    lost_tail_repaired_by_probe();
    lost_tail_and_probe_repaired_by_t3();
    uint64_t t_off = lost_tail_without_tlp();
    lost_middle_early_retransmit();
    printf("tail repaired after %llu us without TLP\n", (unsigned long long)t_off);
    printf(" No Errors\n");
    return 0;
}
