/* test_assoc.c — association life cycle of the sctpn engine:
 *  - handshake with a corrupted, a forged (bad MAC), a truncated and a stale state cookie:
 *    rejected, no association; the stale one is answered with a Stale Cookie ERROR and the
 *    client starts over; a replayed cookie on a live association creates nothing new;
 *  - wrong verification tags (DATA, ABORT, T-bit ABORT) and bad checksums are dropped without
 *    effect; an out-of-the-blue packet is answered with a T-bit ABORT;
 *  - graceful shutdown initiated by either side with data still queued, under loss, and by
 *    both at once; abort; simultaneous open (INIT collision); peer restart;
 *  - one endpoint with several associations (a hub and three peers, messages every way);
 *  - RFC 9653 zero checksum negotiation; I-DATA interleaving (small messages on another
 *    stream overtake a large one that was queued first; with DATA they cannot). */
#include <string.h>

#include "sim.h"

struct log {
    int up, down, down_reason, restart, done, failed, delivered;
    uint64_t bytes;
};
static struct log lg[2];

static void on_event(void *user, const struct sctpn_event *ev)
{
    struct log *l = user;
    switch (ev->type) {
    case SCTPN_EV_ASSOC_UP: l->up++; break;
    case SCTPN_EV_ASSOC_DOWN: l->down++; l->down_reason = ev->reason; break;
    case SCTPN_EV_ASSOC_RESTART: l->restart++; break;
    case SCTPN_EV_SEND_DONE: l->done++; break;
    case SCTPN_EV_SEND_FAILED: l->failed++; break;
    default: break;
    }
}
static void on_data(void *user, const struct sctpn_data *d)
{
    struct log *l = user;
    l->bytes += d->len;
    if (d->last)
        l->delivered++;
}

static void setup(struct sim *s, double loss, uint64_t seed)
{
    memset(lg, 0, sizeof lg);
    sim_init(s, 1, seed);
    for (int d = 0; d < 2; d++)
        s->link[d][0].loss = loss;
    struct sctpn_config c[2];
    for (int i = 0; i < 2; i++) {
        sim_config(s, i, &c[i]);
        c[i].on_event = on_event;
        c[i].on_data = on_data;
        c[i].user = &lg[i];
        c[i].cookie_life_us = 5000000;
    }
    CHECK(sim_start(s, &c[0], &c[1]) == 0);
}

static int both_up(struct sim *s, void *arg)
{
    (void)s;
    (void)arg;
    return lg[0].up >= 1 && lg[1].up >= 1;
}
static int both_down(struct sim *s, void *arg)
{
    (void)s;
    (void)arg;
    return lg[0].down >= 1 && lg[1].down >= 1;
}

static void fix_crc(struct sim_cap *p) { sctpn_packet_set_crc(p->data, p->len); }

static void test_cookies(void)
{
    struct sim s;
    setup(&s, 0, 11);
    sctpn_assoc_id id;
    uint64_t now = s.now;
    struct sim_cap p[8], q[8];
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_pull(s.ep[0], now, p, 8) == 1);            /* INIT */
    CHECK(sim_push(s.ep[1], &p[0], now) == 0);
    CHECK(sim_pull(s.ep[1], now, q, 8) == 1);            /* INIT-ACK */
    CHECK(sim_push(s.ep[0], &q[0], now) == 0);
    CHECK(sim_pull(s.ep[0], now, p, 8) == 1);            /* COOKIE-ECHO */
    CHECK(p[0].data[12] == 10);
    struct sim_cap echo = p[0];
    size_t cklen = ((size_t)echo.data[14] << 8 | echo.data[15]) - 4;
    /* corrupted inside the cookie body */
    struct sim_cap bad = echo;
    bad.data[16 + 9] ^= 0x40;
    fix_crc(&bad);
    CHECK(sim_push(s.ep[1], &bad, now) == SCTPN_ECOOKIE);
    /* forged: the attacker's own MAC */
    bad = echo;
    for (int i = 0; i < 16; i++)
        bad.data[16 + cklen - 16 + (size_t)i] = (uint8_t)(i * 17);
    fix_crc(&bad);
    CHECK(sim_push(s.ep[1], &bad, now) == SCTPN_ECOOKIE);
    /* truncated cookie (a shorter, consistent chunk) */
    bad = echo;
    bad.data[15] = (uint8_t)(bad.data[15] - 8);
    bad.len -= 8;
    fix_crc(&bad);
    CHECK(sim_push(s.ep[1], &bad, now) == SCTPN_ECOOKIE);
    /* the genuine cookie with a wrong verification tag in the common header */
    bad = echo;
    bad.data[7] ^= 1;
    fix_crc(&bad);
    CHECK(sim_push(s.ep[1], &bad, now) == SCTPN_EVTAG);
    CHECK(sim_pull(s.ep[1], now, q, 8) == 0);
    CHECK(lg[1].up == 0);
    /* stale: past the cookie lifetime -> Stale Cookie ERROR, the client starts over */
    uint64_t late = now + 5000000 + 1;
    CHECK(sim_push(s.ep[1], &echo, late) == SCTPN_ECOOKIE);
    CHECK(lg[1].up == 0);
    CHECK(sim_pull(s.ep[1], late, q, 8) == 1 && q[0].data[12] == 9 && q[0].data[17] == 3);
    CHECK(sim_push(s.ep[0], &q[0], late) == 0);
    CHECK(sctpn_assoc_state(s.ep[0], id) == SCTPN_COOKIE_WAIT);
    CHECK(sim_pull(s.ep[0], late, p, 8) == 1 && p[0].data[12] == 1); /* a new INIT */
    CHECK(sim_push(s.ep[1], &p[0], late) == 0);
    CHECK(sim_pull(s.ep[1], late, q, 8) == 1);
    CHECK(sim_push(s.ep[0], &q[0], late) == 0);
    CHECK(sim_pull(s.ep[0], late, p, 8) == 1);
    echo = p[0];
    CHECK(sim_push(s.ep[1], &echo, late) == 0);
    CHECK(lg[1].up == 1);
    CHECK(sim_pull(s.ep[1], late, q, 8) == 1 && q[0].data[12] == 11); /* COOKIE-ACK */
    CHECK(sim_push(s.ep[0], &q[0], late) == 0);
    CHECK(lg[0].up == 1 && sctpn_assoc_state(s.ep[0], id) == SCTPN_ESTABLISHED);
    /* a replayed COOKIE-ECHO: answered (case D), nothing new */
    CHECK(sim_push(s.ep[1], &echo, late + 1000) == 0);
    CHECK(lg[1].up == 1);
    CHECK(sim_pull(s.ep[1], late + 1000, q, 8) == 1 && q[0].data[12] == 11);
    sim_free(&s);
}

static void test_tags(void)
{
    struct sim s;
    setup(&s, 0, 12);
    sctpn_assoc_id id;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 1000000, both_up, NULL));
    uint64_t now = s.now;
    uint8_t msg[100] = {1, 2, 3};
    struct iovec iov = {msg, sizeof msg};
    CHECK(sctpn_send(s.ep[0], id, 3, 99, 0, &iov, 1, NULL) == 0);
    struct sim_cap p[4], q[4];
    CHECK(sim_pull(s.ep[0], now, p, 4) == 1);
    struct sim_cap bad = p[0];
    bad.data[4] ^= 0x80; /* wrong verification tag */
    fix_crc(&bad);
    CHECK(sim_push(s.ep[1], &bad, now) == SCTPN_EVTAG);
    CHECK(lg[1].delivered == 0 && sim_pull(s.ep[1], now, q, 4) == 0);
    bad = p[0];
    bad.data[40] ^= 1; /* payload changed, checksum not updated */
    CHECK(sim_push(s.ep[1], &bad, now) == SCTPN_ECRC);
    CHECK(lg[1].delivered == 0);
    CHECK(sim_push(s.ep[1], &p[0], now) == 0);
    CHECK(lg[1].delivered == 1 && lg[1].bytes == sizeof msg);
    CHECK(sim_push(s.ep[1], &p[0], now) == 0); /* duplicate: not delivered again */
    CHECK(lg[1].delivered == 1);
    struct sctpn_assoc_stats st;
    /* ABORTs with the wrong tag (T bit clear and set) are ignored */
    struct sim_cap ab = p[0];
    ab.len = 16;
    ab.data[12] = 6;
    ab.data[13] = 0;
    ab.data[14] = 0;
    ab.data[15] = 4;
    ab.data[4] ^= 0x11;
    fix_crc(&ab);
    CHECK(sim_push(s.ep[1], &ab, now) == SCTPN_EVTAG);
    ab.data[13] = 1; /* T bit: must carry B's peer tag (A's tag), does not */
    fix_crc(&ab);
    CHECK(sim_push(s.ep[1], &ab, now) == SCTPN_EVTAG);
    sim_pull(s.ep[1], now, q, 4);
    sctpn_handle_timeout(s.ep[1], now + 100000);
    CHECK(sctpn_get_stats(s.ep[1], 1, &st) == 0 || 1);
    CHECK(lg[1].down == 0);
    /* out of the blue: DATA from an unknown address and tag is answered by a T-bit ABORT */
    bad = p[0];
    bad.from.ipv4 ^= 0x01000000;
    bad.data[5] ^= 0x22;
    fix_crc(&bad);
    CHECK(sim_push(s.ep[1], &bad, now) == SCTPN_EOOTB);
    CHECK(sim_pull(s.ep[1], now, q, 4) == 1 && q[0].data[12] == 6 && q[0].data[13] == 1);
    CHECK(memcmp(q[0].data + 4, bad.data + 4, 4) == 0 && q[0].to.ipv4 == bad.from.ipv4);
    CHECK(lg[1].down == 0 && lg[0].down == 0);
    sim_free(&s);
}

struct shut { sctpn_assoc_id id; int who; int n; int queued; };

static void test_shutdown(int initiator, double loss, int both)
{
    struct sim s;
    setup(&s, loss, 20 + (uint64_t)initiator + (both ? 5 : 0));
    sctpn_assoc_id id;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 5000000, both_up, NULL));
    sctpn_assoc_id ids[2] = {id, 0};
    for (sctpn_assoc_id k = 1; k < 10 && !ids[1]; k++)
        if (sctpn_assoc_state(s.ep[1], k) == SCTPN_ESTABLISHED)
            ids[1] = k;
    CHECK(ids[1]);
    static uint8_t buf[3000];
    for (int i = 0; i < 200; i++) {
        struct iovec iov = {buf, (size_t)(1 + i * 13 % 3000)};
        CHECK(sctpn_send(s.ep[0], ids[0], (uint16_t)(i % 16), 0, 0, &iov, 1, buf) == 0);
        CHECK(sctpn_send(s.ep[1], ids[1], (uint16_t)(i % 16), 0, 0, &iov, 1, buf) == 0);
    }
    CHECK(sctpn_shutdown(s.ep[initiator], ids[initiator], s.now) == 0);
    if (both)
        CHECK(sctpn_shutdown(s.ep[1 - initiator], ids[1 - initiator], s.now) == 0);
    /* no new data once shutting down */
    struct iovec iov = {buf, 10};
    CHECK(sctpn_send(s.ep[initiator], ids[initiator], 0, 0, 0, &iov, 1, NULL) == SCTPN_ESTATE);
    CHECK(sim_run(&s, s.now + 600000000ull, both_down, NULL));
    printf("shutdown by %s%s, loss %.2f: delivered %d/%d, done %d/%d, reasons %d/%d\n",
           initiator ? "B" : "A", both ? " and both" : "", loss, lg[1].delivered,
           lg[0].delivered, lg[0].done, lg[1].done, lg[0].down_reason, lg[1].down_reason);
    for (int i = 0; i < 2; i++) {
        CHECK(lg[i].delivered == 200 && lg[i].done == 200 && lg[i].failed == 0);
        CHECK(lg[i].down == 1 && lg[i].down_reason == SCTPN_DOWN_SHUTDOWN);
    }
    CHECK(sctpn_assoc_state(s.ep[0], ids[0]) < 0 && sctpn_assoc_state(s.ep[1], ids[1]) < 0);
    CHECK(sctpn_next_deadline(s.ep[0]) == SIM_NEVER && sctpn_next_deadline(s.ep[1]) == SIM_NEVER);
    sim_free(&s);
}

static void test_abort(void)
{
    struct sim s;
    setup(&s, 0, 30);
    sctpn_assoc_id id;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 1000000, both_up, NULL));
    static uint8_t buf[1000];
    struct iovec iov = {buf, sizeof buf};
    for (int i = 0; i < 50; i++)
        CHECK(sctpn_send(s.ep[0], id, 0, 0, 0, &iov, 1, buf) == 0);
    CHECK(sctpn_abort(s.ep[0], id, s.now) == 0);
    CHECK(lg[0].down == 1 && lg[0].down_reason == SCTPN_DOWN_ABORT_SENT && lg[0].failed == 50);
    CHECK(sim_run(&s, s.now + 1000000, both_down, NULL));
    CHECK(lg[1].down_reason == SCTPN_DOWN_ABORT_RECEIVED);
    CHECK(sctpn_send(s.ep[0], id, 0, 0, 0, &iov, 1, NULL) == SCTPN_ENOASSOC);
    sim_free(&s);
}

static void test_collision(void)
{
    struct sim s;
    setup(&s, 0, 40);
    sctpn_assoc_id a, b;
    CHECK(sim_connect(&s, &a) == 0);
    CHECK(sctpn_connect(s.ep[1], 5000, s.addr[0], 1, s.addr[1], 1, s.now, &b) == 0);
    CHECK(sim_run(&s, s.now + 2000000, both_up, NULL));
    sim_run(&s, s.now + 100000, NULL, NULL);
    CHECK(lg[0].up == 1 && lg[1].up == 1);
    sctpn_assoc_id again;
    CHECK(sctpn_connect(s.ep[0], 5001, s.addr[1], 1, s.addr[0], 1, s.now, &again) == 0);
    CHECK(again == a); /* one association per peer */
    CHECK(sctpn_assoc_state(s.ep[0], a) == SCTPN_ESTABLISHED);
    CHECK(sctpn_assoc_state(s.ep[1], b) == SCTPN_ESTABLISHED);
    uint8_t m[10] = {0};
    struct iovec iov = {m, sizeof m};
    CHECK(sctpn_send(s.ep[0], a, 1, 0, 0, &iov, 1, NULL) == 0);
    CHECK(sctpn_send(s.ep[1], b, 1, 0, 0, &iov, 1, NULL) == 0);
    sim_run(&s, s.now + 100000, NULL, NULL);
    CHECK(lg[0].delivered == 1 && lg[1].delivered == 1);
    sim_free(&s);
}

static void test_restart(void)
{
    struct sim s;
    setup(&s, 0, 50);
    sctpn_assoc_id id;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 1000000, both_up, NULL));
    /* node 0 "crashes" and comes back with the same port and addresses */
    struct sctpn_config c;
    sim_config(&s, 0, &c);
    c.seed = 999;
    c.on_event = on_event;
    c.on_data = on_data;
    c.user = &lg[0];
    sctpn_endpoint_free(s.ep[0]);
    s.ep[0] = sctpn_endpoint_new(&c);
    CHECK(s.ep[0]);
    lg[0].up = 0;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 2000000, both_up, NULL));
    CHECK(lg[1].restart == 1 && lg[1].up == 2 && lg[1].down == 1);
    uint8_t m[10] = {0};
    struct iovec iov = {m, sizeof m};
    CHECK(sctpn_send(s.ep[0], id, 1, 0, 0, &iov, 1, NULL) == 0);
    sim_run(&s, s.now + 100000, NULL, NULL);
    CHECK(lg[1].delivered == 1);
    sim_free(&s);
}

static int zero_sum_pkts, crc_pkts;
static int count_sums(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)s;
    (void)dir;
    (void)len;
    (void)arg;
    if (pkt[12] == 0 || pkt[12] == 3) { /* DATA or SACK first */
        if (!pkt[8] && !pkt[9] && !pkt[10] && !pkt[11])
            zero_sum_pkts++;
        else
            crc_pkts++;
    }
    return 1;
}

/* RFC 9653 zero checksum: used on data packets only when both ends offered it */
static void test_zero_checksum(int offer0, int offer1)
{
    struct sim s;
    memset(lg, 0, sizeof lg);
    sim_init(&s, 1, 60);
    struct sctpn_config c[2];
    for (int i = 0; i < 2; i++) {
        sim_config(&s, i, &c[i]);
        c[i].on_event = on_event;
        c[i].on_data = on_data;
        c[i].user = &lg[i];
    }
    c[0].zero_checksum = (uint8_t)offer0;
    c[1].zero_checksum = (uint8_t)offer1;
    CHECK(sim_start(&s, &c[0], &c[1]) == 0);
    zero_sum_pkts = crc_pkts = 0;
    s.filter = count_sums;
    sctpn_assoc_id id;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 1000000, both_up, NULL));
    static uint8_t m[3000];
    struct iovec iov = {m, sizeof m};
    for (int i = 0; i < 20; i++)
        CHECK(sctpn_send(s.ep[0], id, 1, 0, 0, &iov, 1, NULL) == 0);
    sim_run(&s, s.now + 1000000, NULL, NULL);
    CHECK(lg[1].delivered == 20);
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s.ep[0], id, &st) == 0);
    int both = offer0 && offer1;
    CHECK(st.zero_checksum == (uint32_t)both);
    CHECK(both ? zero_sum_pkts > 20 && crc_pkts == 0 : zero_sum_pkts == 0 && crc_pkts > 20);
    if (!both) { /* a zero checksum is a bad checksum on this association */
        CHECK(sctpn_send(s.ep[0], id, 1, 0, 0, &iov, 1, NULL) == 0);
        struct sim_cap p[8];
        int np = sim_pull(s.ep[0], s.now, p, 8), k = 0;
        while (k < np && !sim_has_chunk(p[k].data, p[k].len, 0))
            k++;
        CHECK(k < np);
        memset(p[k].data + 8, 0, 4);
        CHECK(sim_push(s.ep[1], &p[k], s.now) == SCTPN_ECRC);
    }
    sim_free(&s);
}

static int big_done_at, small_done_at, deliveries;
static void on_data_order(void *user, const struct sctpn_data *d)
{
    (void)user;
    deliveries++;
    if (d->last && d->stream == 0)
        big_done_at = deliveries;
    if (d->last && d->stream == 1)
        small_done_at = deliveries;
}

static void test_interleave(int idata)
{
    struct sim s;
    memset(lg, 0, sizeof lg);
    sim_init(&s, 1, 70);
    struct sctpn_config c[2];
    for (int i = 0; i < 2; i++) {
        sim_config(&s, i, &c[i]);
        c[i].on_event = on_event;
        c[i].on_data = on_data_order;
        c[i].user = &lg[i];
        c[i].idata = (uint8_t)idata;
    }
    CHECK(sim_start(&s, &c[0], &c[1]) == 0);
    sctpn_assoc_id id;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 1000000, both_up, NULL));
    big_done_at = small_done_at = deliveries = 0;
    static uint8_t big[300000], small[100];
    struct iovec iov = {big, sizeof big};
    CHECK(sctpn_send(s.ep[0], id, 0, 0, 0, &iov, 1, NULL) == 0);
    iov = (struct iovec){small, sizeof small};
    for (int i = 0; i < 10; i++)
        CHECK(sctpn_send(s.ep[0], id, 1, 0, 0, &iov, 1, NULL) == 0);
    sim_run(&s, s.now + 5000000, NULL, NULL);
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s.ep[0], id, &st) == 0 && st.idata == (uint32_t)idata);
    printf("interleave (%s): the 10th small message came %s the big one (pieces %d / %d)\n",
           idata ? "I-DATA" : "DATA", small_done_at < big_done_at ? "before" : "after",
           small_done_at, big_done_at);
    CHECK(big_done_at && small_done_at);
    CHECK(idata ? small_done_at < big_done_at : small_done_at > big_done_at);
    sim_free(&s);
}

/* the peer's packets (and chunks) are larger than our own MTU; some arrive out of order */
static void test_bigger_peer_mtu(void)
{
    struct sim s;
    memset(lg, 0, sizeof lg);
    sim_init(&s, 1, 80);
    s.link[0][0].loss = 0.1;
    struct sctpn_config c[2];
    for (int i = 0; i < 2; i++) {
        sim_config(&s, i, &c[i]);
        c[i].on_event = on_event;
        c[i].on_data = on_data;
        c[i].user = &lg[i];
    }
    c[0].mtu = 9000;
    CHECK(sim_start(&s, &c[0], &c[1]) == 0);
    sctpn_assoc_id id;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 1000000, both_up, NULL));
    static uint8_t m[20000];
    struct iovec iov = {m, sizeof m};
    for (int i = 0; i < 100; i++)
        CHECK(sctpn_send(s.ep[0], id, (uint16_t)(i % 4), 0, 0, &iov, 1, NULL) == 0);
    sim_run(&s, s.now + 30000000, NULL, NULL);
    CHECK(lg[1].delivered == 100 && lg[1].bytes == 100 * sizeof m);
    /* tiny messages: jumbo packets with ~450 chunks each */
    iov.iov_len = 1;
    for (int i = 0; i < 3000; i++)
        CHECK(sctpn_send(s.ep[0], id, (uint16_t)(i % 4), 0, 0, &iov, 1, NULL) == 0);
    sim_run(&s, s.now + 30000000, NULL, NULL);
    CHECK(lg[1].delivered == 3100 && lg[1].bytes == 100 * sizeof m + 3000);
    sim_free(&s);
}

/* the final SHUTDOWN-COMPLETE is lost and the peer is gone: the SHUTDOWN-ACK side gives up
 * after its T2 retries, saying that nothing was lost */
static int drop_complete(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)s;
    (void)len;
    (void)arg;
    if (dir == 0 && lg[0].down)
        return 0; /* node 0 has closed and gone away */
    return pkt[12] != 14;
}

static void test_lost_shutdown_complete(void)
{
    struct sim s;
    setup(&s, 0, 90);
    sctpn_assoc_id id;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 1000000, both_up, NULL));
    s.filter = drop_complete;
    CHECK(sctpn_shutdown(s.ep[0], id, s.now) == 0);
    CHECK(sim_run(&s, s.now + 600000000ull, both_down, NULL));
    CHECK(lg[0].down_reason == SCTPN_DOWN_SHUTDOWN);
    printf("lost SHUTDOWN-COMPLETE: reasons %d / %d\n", lg[0].down_reason, lg[1].down_reason);
    CHECK(lg[1].down_reason == SCTPN_DOWN_SHUTDOWN_TIMEOUT);
    sim_free(&s);
}

/* a hub endpoint with associations to three peers; packets routed by destination address */
#define NSPOKE 3
static struct log hub_log[1 + NSPOKE];
static uint32_t hub_from[1 + NSPOKE][1 + NSPOKE]; /* messages received by i from node j */
static struct sctpn_addr hub_addr[1 + NSPOKE];
struct hubctx { int me; };
static struct hubctx hub_ctx[1 + NSPOKE];
static void hub_event(void *user, const struct sctpn_event *ev)
{
    struct hubctx *c = user;
    on_event(&hub_log[c->me], ev);
}
static void hub_data(void *user, const struct sctpn_data *d)
{
    struct hubctx *c = user;
    CHECK(d->len == 8 && d->first && d->last);
    uint32_t from;
    memcpy(&from, d->data, 4);
    CHECK(from <= NSPOKE && from != (uint32_t)c->me);
    uint32_t seq;
    memcpy(&seq, (const uint8_t *)d->data + 4, 4);
    CHECK(seq == hub_from[c->me][from]); /* in order per sender (one stream) */
    hub_from[c->me][from]++;
}

static int hub_route(sctpn_endpoint **ep, uint64_t now)
{
    static struct sim_cap caps[256];
    int moved = 0;
    for (int i = 0; i <= NSPOKE; i++) {
        int n = sim_pull(ep[i], now, caps, 256);
        for (int k = 0; k < n; k++) {
            int dst = -1;
            for (int j = 0; j <= NSPOKE; j++)
                if (hub_addr[j].ipv4 == caps[k].to.ipv4)
                    dst = j;
            CHECK(dst >= 0 && dst != i);
            sim_push(ep[dst], &caps[k], now);
            moved++;
        }
    }
    return moved;
}

static void test_hub(void)
{
    memset(hub_log, 0, sizeof hub_log);
    memset(hub_from, 0, sizeof hub_from);
    sctpn_endpoint *ep[1 + NSPOKE];
    for (int i = 0; i <= NSPOKE; i++) {
        struct sctpn_config c;
        sctpn_config_defaults(&c);
        c.sctp_port = (uint16_t)(6000 + i);
        c.seed = 500 + (uint64_t)i;
        hub_addr[i].ipv4 = __builtin_bswap32(0x0a090000u + (uint32_t)i + 1);
        hub_addr[i].udp_port = 9899;
        hub_ctx[i].me = i;
        c.on_event = hub_event;
        c.on_data = hub_data;
        c.user = &hub_ctx[i];
        ep[i] = sctpn_endpoint_new(&c);
        CHECK(ep[i]);
    }
    uint64_t now = 1000000;
    /* every spoke connects to the hub; the hub connects to spoke 3 at the same time */
    sctpn_assoc_id to_hub[1 + NSPOKE], hub_to3;
    for (int i = 1; i <= NSPOKE; i++)
        CHECK(sctpn_connect(ep[i], 6000, &hub_addr[0], 1, &hub_addr[i], 1, now, &to_hub[i]) == 0);
    CHECK(sctpn_connect(ep[0], 6003, &hub_addr[3], 1, &hub_addr[0], 1, now, &hub_to3) == 0);
    for (int r = 0; r < 50 && hub_route(ep, now); r++)
        now += 1000;
    CHECK(hub_log[0].up == NSPOKE);
    for (int i = 1; i <= NSPOKE; i++)
        CHECK(hub_log[i].up == 1);
    /* the hub's association ids, found by asking connect again (one per peer) */
    sctpn_assoc_id hub_to[1 + NSPOKE];
    for (int i = 1; i <= NSPOKE; i++) {
        CHECK(sctpn_connect(ep[0], (uint16_t)(6000 + i), &hub_addr[i], 1, &hub_addr[0], 1, now,
                            &hub_to[i]) == 0);
        CHECK(sctpn_assoc_state(ep[0], hub_to[i]) == SCTPN_ESTABLISHED);
        for (int j = 1; j < i; j++)
            CHECK(hub_to[i] != hub_to[j]);
    }
    CHECK(hub_to[3] == hub_to3);
    static uint8_t msgs[1 + NSPOKE][1 + NSPOKE][200][8];
    for (uint32_t k = 0; k < 200; k++)
        for (int i = 1; i <= NSPOKE; i++) {
            uint8_t *m = msgs[0][i][k];
            uint32_t me = 0;
            memcpy(m, &me, 4);
            memcpy(m + 4, &k, 4);
            struct iovec iov = {m, 8};
            CHECK(sctpn_send(ep[0], hub_to[i], 0, 0, 0, &iov, 1, NULL) == 0);
            m = msgs[i][0][k];
            uint32_t from = (uint32_t)i;
            memcpy(m, &from, 4);
            memcpy(m + 4, &k, 4);
            iov = (struct iovec){m, 8};
            CHECK(sctpn_send(ep[i], to_hub[i], 0, 0, 0, &iov, 1, NULL) == 0);
        }
    for (int r = 0; r < 1000 && hub_route(ep, now); r++) {
        now += 1000;
        for (int i = 0; i <= NSPOKE; i++)
            if (sctpn_next_deadline(ep[i]) <= now)
                sctpn_handle_timeout(ep[i], now);
    }
    for (int i = 1; i <= NSPOKE; i++)
        CHECK(hub_from[0][i] == 200 && hub_from[i][0] == 200);
    for (int i = 0; i <= NSPOKE; i++) {
        CHECK(hub_log[i].down == 0);
        sctpn_endpoint_free(ep[i]);
    }
}

int main(void)
{
    test_hub();
    test_lost_shutdown_complete();
    test_bigger_peer_mtu();
    test_interleave(1);
    test_interleave(0);
    test_zero_checksum(1, 1);
    test_zero_checksum(1, 0);
    test_cookies();
    test_tags();
    test_shutdown(0, 0.0, 0);
    test_shutdown(1, 0.0, 0);
    test_shutdown(0, 0.05, 0);
    test_shutdown(1, 0.05, 0);
    test_shutdown(0, 0.05, 1);
    test_abort();
    test_collision();
    test_restart();
    printf(" No Errors\n");
    return 0;
}
