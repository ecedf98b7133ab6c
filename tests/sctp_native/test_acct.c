/* test_acct.c — the engine's time accounting (acct.c, struct sctpn_timing) on the virtual
 * clock, one link with a 10 ms one-way delay, messages of 1000 bytes (one packet each):
 *  1. 20 messages alternating streams 1 and 2, the packet of stream 1's third message lost:
 *     stream 1's later messages are held by their stream for at most the repair time, stream 2
 *     holds nothing (every delivered message is sampled), no hold is released by another
 *     stream, the sender counts one repaired chunk whose first-send-to-ack time covers the
 *     repair, and the clean chunks' time on the wire is one RTT (plus the SACK delay);
 *  2. the same messages all on stream 1: more messages held;
 *  3. 200 messages at once, no loss, no burst limit: the wait is the congestion window's
 *     (blocked and per message), nothing else; with max_burst 4 it is the burst limit's;
 *  4. a receiver window of 6 KB and a loss: the chunks stored behind the hole close the
 *     window, the sender reports waiting for the receive window;
 *  5. at most 6 chunks past the cumulative ack and a loss: the sender reports the span wait;
 *  6. a send buffer of 8 messages and a loss: refusals and the time until one is taken again;
 *  7. a message queued before the association is up waits one RTT for the handshake;
 *  8. timing off: every counter stays 0. */
#include <string.h>

#include "sim.h"

#define DELAY_US 10000
#define SACK_DELAY_US 5000
#define LEN 1000

struct t {
    struct sim s;
    sctpn_assoc_id id;
    int up;
    long delivered, done;
    int drop_stream, drop_ssn, dropped; /* drop the first packet with this message */
    uint64_t t_drop;
};
static struct t T;
static uint8_t payload[LEN];

static void on_event(void *user, const struct sctpn_event *ev)
{
    (void)user;
    if (ev->type == SCTPN_EV_ASSOC_UP)
        T.up++;
    else if (ev->type == SCTPN_EV_SEND_DONE)
        T.done++;
    else if (ev->type != SCTPN_EV_PATH_CHANGE) {
        fprintf(stderr, "unexpected event %d\n", ev->type);
        exit(1);
    }
}

static void on_data(void *user, const struct sctpn_data *d)
{
    (void)user;
    if (d->last)
        T.delivered++;
}

static int filter(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)arg;
    if (dir != 0 || T.dropped || len < 12 + 16 || pkt[12] != 0)
        return 1;
    int stream = pkt[12 + 8] << 8 | pkt[12 + 9], ssn = pkt[12 + 10] << 8 | pkt[12 + 11];
    if (stream == T.drop_stream && ssn == T.drop_ssn) {
        T.dropped = 1;
        T.t_drop = s->now;
        return 0;
    }
    return 1;
}

static int reached(struct sim *s, void *arg)
{
    (void)s;
    return T.delivered >= *(long *)arg;
}

struct opts { uint32_t rwnd, max_out; int timing, max_burst; uint32_t sndbuf; };

static void setup(const struct opts *o)
{
    memset(&T, 0, sizeof T);
    T.drop_stream = -1;
    sim_init(&T.s, 1, 7);
    struct sctpn_config c[2];
    for (int i = 0; i < 2; i++) {
        sim_config(&T.s, i, &c[i]);
        c[i].rto_initial_us = 1000000;
        c[i].rto_min_us = 200000;
        c[i].hb_interval_us = 0;
        c[i].sack_delay_us = SACK_DELAY_US;
        c[i].on_data = on_data;
        c[i].on_event = on_event;
        c[i].timing = (uint8_t)o->timing;
        c[i].timing_sample = 1;
    }
    if (o->rwnd)
        c[1].rwnd = o->rwnd;
    if (o->max_out)
        c[0].max_out_chunks = o->max_out;
    c[0].max_burst = (uint16_t)o->max_burst;
    if (o->sndbuf)
        c[0].sndbuf = o->sndbuf;
    T.s.link[0][0].delay_us = T.s.link[1][0].delay_us = DELAY_US;
    T.s.filter = filter;
    CHECK(sim_start(&T.s, &c[0], &c[1]) == 0);
    CHECK(sim_connect(&T.s, &T.id) == 0);
    sim_run(&T.s, T.s.now + 1000000, NULL, NULL);
    CHECK(T.up == 2);
    /* one message for an RTT sample (stream 0: the test streams start at SSN 0) */
    struct iovec v = {payload, LEN};
    CHECK(sctpn_send(T.s.ep[0], T.id, 0, 0, 0, &v, 1, NULL) == 0);
    long want = 1;
    CHECK(sim_run(&T.s, T.s.now + 1000000, reached, &want));
    sim_run(&T.s, T.s.now + 100000, NULL, NULL);
    T.delivered = 0;
}

static void send_n(int n, int alternate)
{
    struct iovec v = {payload, LEN};
    for (int i = 0; i < n; i++)
        CHECK(sctpn_send(T.s.ep[0], T.id, (uint16_t)(alternate ? 1 + i % 2 : 1), 0, 0, &v, 1,
                         &T) == 0);
    long want = n;
    CHECK(sim_run(&T.s, T.s.now + 10000000, reached, &want));
    sim_run(&T.s, T.s.now + 300000, NULL, NULL); /* the last SACKs */
}

static struct sctpn_timing timing_of(int node)
{
    struct sctpn_assoc_stats st;
    sctpn_assoc_id id = T.id;
    if (node == 1) { /* the receiver's association: its only one */
        id = 0;
        for (sctpn_assoc_id k = 1; k < 16 && !id; k++)
            if (sctpn_get_stats(T.s.ep[1], k, &st) == 0)
                id = k;
    }
    CHECK(sctpn_get_stats(T.s.ep[node], id, &st) == 0);
    return st.timing;
}

static uint64_t rtx_total(const struct sctpn_timing *t, uint64_t *us)
{
    uint64_t n = 0;
    *us = 0;
    for (int k = 0; k < SCTPN_RTX_NCAUSES; k++) {
        n += t->rtx_chunks[k];
        *us += t->rtx_us[k];
    }
    return n;
}

/* 1 and 2: returns the number of messages held by their stream */
static uint64_t loss_on_stream_1(int alternate)
{
    struct opts o = {0, 0, 1, 4, 0};
    setup(&o);
    T.drop_stream = 1;
    T.drop_ssn = 2;
    send_n(20, alternate);
    CHECK(T.dropped && T.done == 20);
    struct sctpn_timing rx = timing_of(1), tx = timing_of(0);
    uint64_t rus, rn = rtx_total(&tx, &rus);
    printf("%s: held %llu msgs %llu us (max %llu), foreign %llu, xstream drops %llu; "
           "repaired %llu chunk(s) %llu us; clean %llu chunks %llu us each\n",
           alternate ? "streams 1+2" : "stream 1 only", (unsigned long long)rx.held_msgs,
           (unsigned long long)rx.held_us, (unsigned long long)rx.held_max_us,
           (unsigned long long)rx.held_foreign, (unsigned long long)rx.xstream_drops,
           (unsigned long long)rn, (unsigned long long)rus,
           (unsigned long long)tx.clean_chunks,
           (unsigned long long)(tx.clean_chunks ? tx.clean_us / tx.clean_chunks : 0));
    CHECK(rx.msgs_delivered == 21);
    CHECK(rx.held_msgs >= 1 && rx.held_foreign == 0 && rx.xstream_drops == 0);
    /* the repair: at least one RTT after the loss, well before a T3 */
    CHECK(rn == 1 && rus >= 2 * DELAY_US && rus < 200000);
    CHECK(rx.held_max_us > 0 && rx.held_max_us <= rus);
    CHECK(tx.clean_chunks == 20); /* the warm-up + 20 - the lost one */
    uint64_t wire = tx.clean_us / tx.clean_chunks;
    CHECK(wire >= 2 * DELAY_US && wire <= 2 * DELAY_US + SACK_DELAY_US + 1000);
    /* every delivered message sampled: nothing on stream 2 was held */
    struct sctpn_timing_sample smp[64];
    int n = sctpn_timing_samples(T.s.ep[1], smp, 64);
    CHECK(n == 21);
    uint64_t held1 = 0, held2 = 0, us1 = 0;
    for (int i = 0; i < n; i++) {
        CHECK(smp[i].dir == 1 && smp[i].len == LEN);
        if (smp[i].stream == 1 && smp[i].held_us) {
            held1++;
            us1 += smp[i].held_us;
        }
        if (smp[i].stream == 2 && smp[i].held_us)
            held2++;
    }
    CHECK(held2 == 0 && held1 == rx.held_msgs && us1 == rx.held_us);
    /* and the sender sampled its messages too */
    n = sctpn_timing_samples(T.s.ep[0], smp, 64);
    CHECK(n == 21);
    int rtx_seen = 0;
    for (int i = 0; i < n; i++) {
        CHECK(smp[i].dir == 0 && smp[i].acked_us >= 2 * DELAY_US);
        rtx_seen += smp[i].rtx;
    }
    CHECK(rtx_seen == 1);
    sim_free(&T.s);
    return rx.held_msgs;
}

/* max_burst 0 (no limit, as the MPI transport runs it): the window is the limit; 4 (the
 * RFC's): one SACK per burst of 4 packets clocks out only 4 more, the window never fills */
static void cwnd_limited(int max_burst)
{
    struct opts o = {0, 0, 1, max_burst, 0};
    setup(&o);
    send_n(200, 0);
    struct sctpn_timing tx = timing_of(0);
    printf("max burst %d: %llu msgs waited %llu us (cwnd %llu, rwnd %llu, span %llu, burst %llu, "
           "other %llu); blocked cwnd %llu us, burst %llu us\n", max_burst,
           (unsigned long long)tx.msgs_sent,
           (unsigned long long)tx.queue_us, (unsigned long long)tx.queue_cwnd_us,
           (unsigned long long)tx.queue_rwnd_us, (unsigned long long)tx.queue_span_us,
           (unsigned long long)tx.queue_burst_us, (unsigned long long)tx.queue_other_us,
           (unsigned long long)tx.blocked_cwnd_us, (unsigned long long)tx.blocked_burst_us);
    CHECK(tx.msgs_sent == 201);
    if (max_burst) { /* held by the burst limit, not by the window */
        CHECK(tx.queue_burst_us * 10 >= tx.queue_us * 9 && tx.blocked_burst_us > 0);
        sim_free(&T.s);
        return;
    }
    CHECK(tx.queue_cwnd_us > 0 && tx.blocked_cwnd_us >= 2 * DELAY_US);
    CHECK(tx.queue_cwnd_us <= tx.queue_us && tx.queue_cwnd_us * 10 >= tx.queue_us * 9);
    CHECK(tx.queue_rwnd_us == 0 && tx.queue_span_us == 0 && tx.queue_burst_us == 0);
    /* 200 packets from an initial window of a few: the average message waits > 1 RTT */
    CHECK(tx.queue_us / tx.msgs_sent > 2 * DELAY_US);
    CHECK(tx.rtx_chunks[0] + tx.rtx_chunks[1] + tx.rtx_chunks[2] + tx.rtx_chunks[3] == 0);
    sim_free(&T.s);
}

static void rwnd_limited(void)
{
    struct opts o = {6000, 0, 1, 4, 0};
    setup(&o);
    T.drop_stream = 1;
    T.drop_ssn = 1;
    send_n(40, 1);
    struct sctpn_timing tx = timing_of(0), rx = timing_of(1);
    printf("rwnd 6000 + loss: queue rwnd %llu us, blocked rwnd %llu us; receiver held %llu, "
           "xstream drops %llu\n", (unsigned long long)tx.queue_rwnd_us,
           (unsigned long long)tx.blocked_rwnd_us, (unsigned long long)rx.held_msgs,
           (unsigned long long)rx.xstream_drops);
    CHECK(tx.queue_rwnd_us > 0 && tx.blocked_rwnd_us > 0);
    CHECK(rx.held_foreign == 0);
    sim_free(&T.s);
}

static void span_limited(void)
{
    struct opts o = {0, 6, 1, 4, 0};
    setup(&o);
    T.drop_stream = 1;
    T.drop_ssn = 1;
    send_n(40, 1);
    struct sctpn_timing tx = timing_of(0);
    printf("span 6 + loss: queue span %llu us, blocked span %llu us\n",
           (unsigned long long)tx.queue_span_us, (unsigned long long)tx.blocked_span_us);
    CHECK(tx.queue_span_us > 0 && tx.blocked_span_us > 0);
    sim_free(&T.s);
}

/* the caller keeps what the send buffer refused and retries every step */
static int to_send;
static void pump(struct sim *s, void *arg)
{
    (void)arg;
    struct iovec v = {payload, LEN};
    while (to_send > 0) {
        int rc = sctpn_send(s->ep[0], T.id, (uint16_t)(1 + to_send % 2), 0, 0, &v, 1, &T);
        if (rc == SCTPN_EAGAIN)
            return;
        CHECK(rc == 0);
        to_send--;
    }
}

static void sndbuf_limited(void)
{
    struct opts o = {0, 0, 1, 4, 8 * LEN};
    setup(&o);
    T.drop_stream = 1;
    T.drop_ssn = 1;
    to_send = 40;
    T.s.pump = pump;
    long want = 40;
    CHECK(sim_run(&T.s, T.s.now + 10000000, reached, &want));
    T.s.pump = NULL;
    struct sctpn_timing tx = timing_of(0);
    printf("sndbuf 8000 + loss: refused %llu times, full %llu us\n",
           (unsigned long long)tx.sndbuf_refusals, (unsigned long long)tx.sndbuf_full_us);
    /* 40 messages through 8 slots: refused at least 4 times, and full across the repair */
    CHECK(tx.sndbuf_refusals >= 4 && tx.sndbuf_full_us >= 2 * DELAY_US * 4);
    sim_free(&T.s);
}

/* a message queued before the association is up waits for the handshake */
static void handshake_wait(void)
{
    memset(&T, 0, sizeof T);
    T.drop_stream = -1;
    sim_init(&T.s, 1, 9);
    struct sctpn_config c[2];
    for (int i = 0; i < 2; i++) {
        sim_config(&T.s, i, &c[i]);
        c[i].on_data = on_data;
        c[i].on_event = on_event;
    }
    T.s.link[0][0].delay_us = T.s.link[1][0].delay_us = DELAY_US;
    CHECK(sim_start(&T.s, &c[0], &c[1]) == 0);
    CHECK(sim_connect(&T.s, &T.id) == 0);
    struct iovec v = {payload, LEN};
    CHECK(sctpn_send(T.s.ep[0], T.id, 1, 0, 0, &v, 1, NULL) == 0);
    long want = 1;
    CHECK(sim_run(&T.s, T.s.now + 1000000, reached, &want));
    struct sctpn_timing tx = timing_of(0);
    printf("queued before the handshake: %llu us (handshake %llu us)\n",
           (unsigned long long)tx.queue_us, (unsigned long long)tx.queue_handshake_us);
    /* INIT, INIT-ACK: the DATA leaves with the COOKIE-ECHO one RTT later */
    CHECK(tx.msgs_sent == 1 && tx.queue_handshake_us == tx.queue_us);
    CHECK(tx.queue_us >= 2 * DELAY_US && tx.queue_us < 4 * DELAY_US);
    CHECK(tx.blocked_handshake_us >= 2 * DELAY_US);
    sim_free(&T.s);
}

static void timing_off(void)
{
    struct opts o = {0, 0, 0, 4, 0};
    setup(&o);
    T.drop_stream = 1;
    T.drop_ssn = 2;
    send_n(20, 1);
    struct sctpn_timing z, tx = timing_of(0), rx = timing_of(1);
    memset(&z, 0, sizeof z);
    CHECK(memcmp(&tx, &z, sizeof z) == 0 && memcmp(&rx, &z, sizeof z) == 0);
    struct sctpn_timing_sample smp[4];
    CHECK(sctpn_timing_samples(T.s.ep[1], smp, 4) == 0);
    sim_free(&T.s);
}

int main(void)
{
    memset(payload, 0x5a, sizeof payload);
    uint64_t multi = loss_on_stream_1(1);
    uint64_t single = loss_on_stream_1(0);
    CHECK(single > multi);
    cwnd_limited(0);
    cwnd_limited(4);
    rwnd_limited();
    span_limited();
    sndbuf_limited();
    handshake_wait();
    timing_off();
    printf(" No Errors\n");
    return 0;
}
