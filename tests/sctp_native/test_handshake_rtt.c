/* test_handshake_rtt.c — deterministic traces of the handshake RTT samples (cfg.handshake_rtt,
 * handshake.c) at a 40 ms RTT (20 ms one-way delay) on the virtual clock, with the MPI
 * transport's RTO settings (initial 1 s, min 30 ms):
 *  1. flag on: as soon as the association is up, both ends' path has SRTT 40 ms exactly (the
 *     client: INIT -> INIT-ACK then COOKIE-ECHO -> COOKIE-ACK; the server: cookie creation ->
 *     COOKIE-ECHO) and an RTO of 2.5-3 RTT (100-120 ms) instead of 1 s; the first DATA packet, lost,
 *     is repaired within that RTO (by the tail-loss probe or T3), long before 1 s;
 *  2. flag off: no sample before DATA, RTO = RTO.initial, and the same loss waits >= 1 s;
 *  3. flag on, the COOKIE-ECHO lost once: T1-cookie fires after the INIT's RTO (120 ms, not
 *     1 s), and the client takes no sample from the resent COOKIE-ECHO (Karn): its SRTT is
 *     still the INIT's 40 ms, not the 160 ms the COOKIE-ACK came after.  The server's sample
 *     (cookie made -> the resent COOKIE-ECHO: 160 ms) is the allowed overestimate;
 *  4. flag on, the INIT lost once: no sample from the INIT-ACK (Karn); the COOKIE-ECHO, sent
 *     once, still gives the client its 40 ms.
 * Every message must arrive intact each time. */
#include <string.h>

#include "sim_trace.h"

#define DELAY_US 20000
#define RTT_US (2 * DELAY_US)
#define RTO_INITIAL_US 1000000
#define PKT_PAYLOAD 1424 /* DATA payload per packet at MTU 1452 */

static sctpn_assoc_id server_id; /* node 1's association (from its ASSOC_UP) */
static int drop_chunk_type = -1; /* node 0's next packet carrying this chunk type is dropped */
static uint64_t t_ctl_sent[4];   /* node 0's INIT / COOKIE-ECHO emission times */
static int n_ctl_sent;

static void on_event_server(void *user, const struct sctpn_event *ev)
{
    if (ev->type == SCTPN_EV_ASSOC_UP)
        server_id = ev->assoc;
    sim_trace_on_event(user, ev);
}

/* the trace filter, plus dropping one handshake chunk of node 0 */
static int filter(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    if (dir == 0 && (sim_has_chunk(pkt, len, 1) || sim_has_chunk(pkt, len, 10)) &&
        n_ctl_sent < 4)
        t_ctl_sent[n_ctl_sent++] = s->now;
    if (dir == 0 && drop_chunk_type >= 0 && sim_has_chunk(pkt, len, (uint8_t)drop_chunk_type)) {
        drop_chunk_type = -1;
        return 0;
    }
    return sim_trace_filter(s, dir, pkt, len, arg);
}

static struct sctpn_path_stats path_stats(struct sim *s, int node, sctpn_assoc_id id)
{
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s->ep[node], id, &st) == 0);
    CHECK(st.npaths == 1);
    return st.paths[0];
}

/* an association set up over the 40 ms RTT link; returns the time it took (both ends up) */
static uint64_t setup(struct sim *s, sctpn_assoc_id *id, int handshake_rtt, int drop_type)
{
    sim_init(s, 1, 31);
    struct sctpn_config c0, c1;
    sim_config(s, 0, &c0);
    sim_config(s, 1, &c1);
    for (int i = 0; i < 2; i++) {
        struct sctpn_config *c = i ? &c1 : &c0;
        c->rto_initial_us = RTO_INITIAL_US;
        c->rto_min_us = 30000; /* the MPI transport's values */
        c->rto_max_us = 5000000;
        c->hb_interval_us = 0;
        c->sack_delay_us = 10000;
        c->max_burst = 0;
        c->handshake_rtt = (uint8_t)handshake_rtt;
        c->on_event = i ? on_event_server : sim_trace_on_event;
        c->on_data = sim_trace_on_data;
        c->user = s;
    }
    s->link[0][0].delay_us = s->link[1][0].delay_us = DELAY_US;
    s->filter = filter;
    sim_trace_reset();
    server_id = 0;
    n_ctl_sent = 0;
    drop_chunk_type = drop_type;
    CHECK(sim_start(s, &c0, &c1) == 0);
    uint64_t t0 = s->now;
    CHECK(sim_connect(s, id) == 0);
    CHECK(sim_run(s, s->now + 10000000, sim_trace_both_up, NULL));
    CHECK(server_id != 0 && drop_chunk_type == -1);
    return s->now - t0;
}

/* cases 1 and 2: the first DATA packet after the handshake is lost; returns the time from the
 * send to the delivery */
static uint64_t first_data_lost(int handshake_rtt)
{
    struct sim s;
    sctpn_assoc_id id;
    uint64_t t_up = setup(&s, &id, handshake_rtt, -1);
    CHECK(t_up == 2 * RTT_US); /* up at the client when the COOKIE-ACK arrives */
    struct sctpn_path_stats c = path_stats(&s, 0, id), v = path_stats(&s, 1, server_id);
    printf("handshake_rtt %s: up after %llu us; client srtt %llu rto %llu, server srtt %llu"
           " rto %llu\n", handshake_rtt ? "on" : "off", (unsigned long long)t_up,
           (unsigned long long)c.srtt_us, (unsigned long long)c.rto_us,
           (unsigned long long)v.srtt_us, (unsigned long long)v.rto_us);
    if (handshake_rtt) {
        CHECK(c.srtt_us == RTT_US && c.last_rtt_us == RTT_US);
        CHECK(v.srtt_us == RTT_US && v.last_rtt_us == RTT_US);
        /* server: one sample, RTTVAR = R/2, RTO = 3 RTT; client: two equal samples, RTTVAR
         * = 3/4 of R/2 (RFC 6298 2.3), RTO = 2.5 RTT */
        CHECK(v.rttvar_us == RTT_US / 2 && v.rto_us == 3 * RTT_US);
        CHECK(c.rttvar_us == 3 * RTT_US / 8 && c.rto_us == 5 * RTT_US / 2);
    } else {
        CHECK(c.srtt_us == 0 && v.srtt_us == 0);
        CHECK(c.rto_us == RTO_INITIAL_US && v.rto_us == RTO_INITIAL_US);
    }
    trace.armed = 1;
    trace.drop_mask = 1; /* the first DATA packet */
    uint64_t t0 = s.now;
    sim_trace_send(&s, id, PKT_PAYLOAD);
    long want = 1;
    CHECK(sim_run(&s, t0 + 10000000, sim_trace_delivered, &want));
    sim_run(&s, s.now + 200000, NULL, NULL);
    struct sctpn_assoc_stats st = sim_trace_stats(&s, id);
    CHECK(trace.ndata == 2 && trace.t_data[0] == t0);
    CHECK(trace.tsn_data[1] == trace.tsn_data[0]);
    uint64_t repair = trace.t_data[1] - t0;
    printf("  first DATA lost: resent at t0+%llu us, delivered at t0+%llu us (T3 %llu, probes"
           " %llu)\n", (unsigned long long)repair, (unsigned long long)(trace.t_delivered - t0),
           (unsigned long long)st.t3_timeouts, (unsigned long long)st.tlp_probes);
    CHECK(trace.t_delivered == trace.t_data[1] + DELAY_US);
    CHECK(st.retransmitted_chunks == 1 && st.paths[0].flight_bytes == 0);
    CHECK(st.handshake_retransmits == 0);
    if (handshake_rtt)
        CHECK(repair <= c.rto_us); /* within the measured RTO */
    else
        CHECK(repair >= RTO_INITIAL_US); /* RTO.initial: no RTT known, no probe */
    sim_free(&s);
    return trace.t_delivered - t0;
}

/* case 3: the first COOKIE-ECHO lost */
static void cookie_echo_lost(void)
{
    struct sim s;
    sctpn_assoc_id id;
    uint64_t t_up = setup(&s, &id, 1, 10);
    CHECK(n_ctl_sent == 3); /* INIT, COOKIE-ECHO (lost), COOKIE-ECHO */
    /* T1-cookie ran on the RTO the INIT -> INIT-ACK sample gave: 3 RTT */
    CHECK(t_ctl_sent[1] == t_ctl_sent[0] + RTT_US && t_ctl_sent[2] == t_ctl_sent[1] + 3 * RTT_US);
    CHECK(t_up == t_ctl_sent[2] - t_ctl_sent[0] + RTT_US);
    struct sctpn_path_stats c = path_stats(&s, 0, id), v = path_stats(&s, 1, server_id);
    printf("COOKIE-ECHO lost once: up after %llu us; client srtt %llu rto %llu, server srtt"
           " %llu rto %llu\n", (unsigned long long)t_up, (unsigned long long)c.srtt_us,
           (unsigned long long)c.rto_us, (unsigned long long)v.srtt_us,
           (unsigned long long)v.rto_us);
    CHECK(c.srtt_us == RTT_US && c.last_rtt_us == RTT_US); /* the INIT's only (Karn) */
    CHECK(c.rto_us == 3 * RTT_US);
    CHECK(sim_trace_stats(&s, id).handshake_retransmits == 1);
    /* the server timed its INIT-ACK to the resent COOKIE-ECHO: an overestimate, larger RTO */
    CHECK(v.srtt_us == t_ctl_sent[2] - t_ctl_sent[0]); /* both arrived DELAY_US after */
    CHECK(v.rto_us > c.rto_us && v.rto_us < RTO_INITIAL_US);
    long want = 1;
    trace.armed = 1;
    sim_trace_send(&s, id, 4 * PKT_PAYLOAD);
    CHECK(sim_run(&s, s.now + 2000000, sim_trace_delivered, &want));
    sim_free(&s);
}

/* case 4: the first INIT lost */
static void init_lost(void)
{
    struct sim s;
    sctpn_assoc_id id;
    uint64_t t_up = setup(&s, &id, 1, 1);
    CHECK(n_ctl_sent == 3); /* INIT (lost), INIT, COOKIE-ECHO */
    CHECK(t_ctl_sent[1] == t_ctl_sent[0] + RTO_INITIAL_US); /* nothing known yet: T1-init is RTO.initial */
    CHECK(t_up == t_ctl_sent[1] - t_ctl_sent[0] + 2 * RTT_US);
    struct sctpn_path_stats c = path_stats(&s, 0, id), v = path_stats(&s, 1, server_id);
    printf("INIT lost once: up after %llu us; client srtt %llu rttvar %llu, server srtt %llu\n",
           (unsigned long long)t_up, (unsigned long long)c.srtt_us,
           (unsigned long long)c.rttvar_us, (unsigned long long)v.srtt_us);
    /* one sample only (the COOKIE-ECHO's): a first sample has RTTVAR = R/2 */
    CHECK(c.srtt_us == RTT_US && c.rttvar_us == RTT_US / 2);
    CHECK(v.srtt_us == RTT_US); /* the server's cookie was made for the INIT that arrived */
    CHECK(sim_trace_stats(&s, id).handshake_retransmits == 1);
    long want = 1;
    trace.armed = 1;
    sim_trace_send(&s, id, 4 * PKT_PAYLOAD);
    CHECK(sim_run(&s, s.now + 2000000, sim_trace_delivered, &want));
    sim_free(&s);
}

int main(void)
{
    uint64_t on = first_data_lost(1);
    uint64_t off = first_data_lost(0);
    CHECK(on * 4 < off);
    cookie_echo_lost();
    init_lost();
    printf(" No Errors\n");
    return 0;
}
