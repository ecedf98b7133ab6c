/* test_rails.c — several single-homed associations between the same two endpoints, one per
 * address pair ("rails", what the MPI transport builds with SCTPMPI_SCTP_STRIPE=1), over two
 * simulated rails:
 *  - with no local address list (n_local_addrs = 0) INIT and INIT-ACK name no addresses, so
 *    each association has exactly one path: the address pair of its handshake;
 *  - node 0 opens rail 0 and rail 1 while node 1 opens rail 1 too (an INIT collision on that
 *    rail only): each side ends with exactly two associations, one per rail, with the same ids
 *    its sctpn_connect calls returned, and sctpn_connect on a rail again returns that rail's;
 *  - checked messages on both rails (1% loss) arrive once, in order, intact, on their own
 *    rail's association, and every DATA/SACK packet carries the verification tag of the
 *    association of the rail it travels;
 *  - rail 0 dies for good: rail 0's associations go down (node 0's: retransmissions
 *    exhausted), rail 1's keeps delivering every message and never goes down. */
#include <string.h>

#include "sim.h"

#define PER_RAIL 3000 /* messages per rail before rail 0 dies, and as many after */

struct rails {
    struct sim sim;
    sctpn_assoc_id tx[2];     /* node 0's association per rail (its connect calls) */
    sctpn_assoc_id n1_connect; /* node 1's connect on rail 1 (collides with node 0's) */
    sctpn_assoc_id as[2][2];  /* [node][rail]: associations seen up */
    uint32_t vtag[2][2];      /* [node][rail]: the tag that node expects on packets to it */
    int up[2], bad_tag;
    sctpn_assoc_id down_id[2][4];
    int down_reason[2][4], ndown[2];
    uint64_t target[2], sent[2], received[2], send_failed;
    uint32_t cur_len[2];
    uint64_t cur_off[2];
};
static struct rails R;

static uint32_t mlen(uint64_t seq) { return 8 + (uint32_t)(seq * 2654435761u >> 9) % 3000; }
static uint8_t pat(int rail, uint64_t seq, uint64_t i) { return (uint8_t)(seq * 131 + i * 7 + (uint64_t)rail * 57); }

/* the rail of an association of node n: the index of its path's local address */
static int rail_of(int n, sctpn_assoc_id id)
{
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(R.sim.ep[n], id, &st) == 0);
    CHECK(st.npaths == 1); /* single-homed */
    for (int r = 0; r < 2; r++)
        if (st.paths[0].local.ipv4 == R.sim.addr[n][r].ipv4) {
            CHECK(st.paths[0].remote.ipv4 == R.sim.addr[1 - n][r].ipv4);
            return r;
        }
    CHECK(!"association on no rail");
    return -1;
}

static void on_event(int n, const struct sctpn_event *ev)
{
    switch (ev->type) {
    case SCTPN_EV_ASSOC_UP: {
        int r = rail_of(n, ev->assoc);
        CHECK(R.as[n][r] == 0); /* one association per rail */
        R.as[n][r] = ev->assoc;
        struct sctpn_assoc_stats st;
        CHECK(sctpn_get_stats(R.sim.ep[n], ev->assoc, &st) == 0);
        R.vtag[n][r] = st.my_vtag;
        R.up[n]++;
        break;
    }
    case SCTPN_EV_ASSOC_DOWN:
        CHECK(R.ndown[n] < 4);
        R.down_id[n][R.ndown[n]] = ev->assoc;
        R.down_reason[n][R.ndown[n]++] = ev->reason;
        break;
    case SCTPN_EV_SEND_FAILED: R.send_failed++; break;
    default: break;
    }
}
static void ev0(void *u, const struct sctpn_event *ev) { (void)u; on_event(0, ev); }
static void ev1(void *u, const struct sctpn_event *ev) { (void)u; on_event(1, ev); }

static void data0(void *u, const struct sctpn_data *d)
{
    (void)u;
    (void)d;
    CHECK(!"node 0 receives no data");
}

/* node 1: message = rail (4 bytes), sequence (4), pattern */
static void data1(void *u, const struct sctpn_data *d)
{
    (void)u;
    int r = R.as[1][0] == d->assoc ? 0 : R.as[1][1] == d->assoc ? 1 : -1;
    CHECK(r >= 0 && d->stream == 0);
    const uint8_t *p = d->data;
    uint64_t seq = R.received[r], i0 = 0;
    if (d->first) {
        uint32_t rail, s;
        CHECK(d->len >= 8 && d->msg_offset == 0);
        memcpy(&rail, p, 4);
        memcpy(&s, p + 4, 4);
        CHECK(rail == (uint32_t)r && s == (uint32_t)seq); /* own rail, in order, once */
        R.cur_off[r] = 0;
        R.cur_len[r] = mlen(seq);
        i0 = 8;
    }
    CHECK(d->msg_offset == R.cur_off[r]);
    for (uint64_t i = i0; i < d->len; i++)
        CHECK(p[i] == pat(r, seq, d->msg_offset + i));
    R.cur_off[r] += d->len;
    if (d->last) {
        CHECK(R.cur_off[r] == R.cur_len[r]);
        R.received[r]++;
    }
}

static uint32_t ld32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }

/* DATA (node 0 -> 1) and SACK (1 -> 0) packets carry the tag of their own rail's association */
static int tag_filter(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)arg;
    int dst = 1 - dir, r = s->filter_rail;
    if ((dir == 0 && sim_has_chunk(pkt, len, 0)) || (dir == 1 && sim_has_chunk(pkt, len, 3)))
        if (!R.vtag[dst][r] || ld32(pkt + 4) != R.vtag[dst][r])
            R.bad_tag++;
    return 1;
}

static void pump(struct sim *s, void *arg)
{
    (void)arg;
    for (int r = 0; r < 2; r++) {
        if (!R.as[0][r] || !R.as[1][r] ||
            sctpn_assoc_state(s->ep[0], R.tx[r]) != SCTPN_ESTABLISHED)
            continue;
        while (R.sent[r] < R.target[r]) {
            uint64_t seq = R.sent[r];
            uint32_t len = mlen(seq), rail = (uint32_t)r, s32 = (uint32_t)seq;
            uint8_t buf[3100];
            memcpy(buf, &rail, 4);
            memcpy(buf + 4, &s32, 4);
            for (uint32_t i = 8; i < len; i++)
                buf[i] = pat(r, seq, i);
            struct iovec iov = {buf, len};
            int rc = sctpn_send(s->ep[0], R.tx[r], 0, 0, SCTPN_SEND_COPY, &iov, 1, NULL);
            if (rc == SCTPN_EAGAIN)
                break;
            CHECK(rc == 0);
            R.sent[r]++;
        }
    }
}

static int both_up(struct sim *s, void *a) { (void)s; (void)a; return R.up[0] == 2 && R.up[1] == 2; }
static int phase1_done(struct sim *s, void *a)
{
    (void)s;
    (void)a;
    return R.received[0] == PER_RAIL && R.received[1] == PER_RAIL;
}
static int phase2_done(struct sim *s, void *a)
{
    (void)s;
    (void)a;
    return R.received[1] == 2 * PER_RAIL && R.ndown[0] >= 1 && R.ndown[1] >= 1;
}

int main(void)
{
    struct sim *s = &R.sim;
    sim_init(s, 2, 4242);
    for (int d = 0; d < 2; d++)
        for (int r = 0; r < 2; r++) {
            s->link[d][r].delay_us = r ? 3000 : 1000; /* the rails differ */
            s->link[d][r].loss = 0.01;
            s->link[d][r].bw_bps = 1000000000;
        }
    struct sctpn_config c0, c1;
    sim_config(s, 0, &c0);
    sim_config(s, 1, &c1);
    c0.n_local_addrs = c1.n_local_addrs = 0; /* no address lists: single-homed associations */
    c0.on_event = ev0;
    c1.on_event = ev1;
    c0.on_data = data0;
    c1.on_data = data1;
    CHECK(sim_start(s, &c0, &c1) == 0);
    for (int r = 0; r < 2; r++)
        CHECK(sctpn_connect(s->ep[0], 5001, &s->addr[1][r], 1, &s->addr[0][r], 1, s->now,
                            &R.tx[r]) == 0);
    CHECK(R.tx[0] && R.tx[1] && R.tx[0] != R.tx[1]);
    CHECK(sctpn_connect(s->ep[1], 5000, &s->addr[0][1], 1, &s->addr[1][1], 1, s->now,
                        &R.n1_connect) == 0);
    s->filter = tag_filter;
    s->pump = pump;
    CHECK(sim_run(s, s->now + 10000000, both_up, NULL));
    sim_run(s, s->now + 2000000, NULL, NULL); /* settle: no third association may appear */
    CHECK(R.up[0] == 2 && R.up[1] == 2);
    CHECK(R.as[0][0] == R.tx[0] && R.as[0][1] == R.tx[1]); /* the ids connect returned */
    CHECK(R.as[1][1] == R.n1_connect);
    for (int n = 0; n < 2; n++)
        for (int r = 0; r < 2; r++)
            CHECK(rail_of(n, R.as[n][r]) == r);
    for (int r = 0; r < 2; r++) { /* connect on a rail again: that rail's association */
        sctpn_assoc_id again = 0;
        CHECK(sctpn_connect(s->ep[0], 5001, &s->addr[1][r], 1, &s->addr[0][r], 1, s->now,
                            &again) == 0);
        CHECK(again == R.tx[r]);
    }
    printf("rails: both sides have one single-homed association per rail (node 0: %u %u, "
           "node 1: %u %u)\n", R.as[0][0], R.as[0][1], R.as[1][0], R.as[1][1]);

    R.target[0] = R.target[1] = PER_RAIL;
    CHECK(sim_run(s, s->now + 60000000, phase1_done, NULL));
    CHECK(R.bad_tag == 0 && R.ndown[0] == 0 && R.ndown[1] == 0);
    for (int r = 0; r < 2; r++)
        CHECK(s->link[0][r].sent > PER_RAIL / 3 && s->link[1][r].sent > 10);
    printf("rails: %d messages per rail intact; packets 0->1 rail 0 %llu, rail 1 %llu\n",
           PER_RAIL, (unsigned long long)s->link[0][0].sent,
           (unsigned long long)s->link[0][1].sent);

    /* rail 0 dies for good with data in flight on both rails */
    R.target[0] = R.target[1] = 2 * PER_RAIL;
    sim_run(s, s->now + 20000, NULL, NULL);
    s->link[0][0].down = s->link[1][0].down = 1;
    uint64_t t0 = s->now;
    CHECK(sim_run(s, s->now + 600000000, phase2_done, NULL));
    sim_run(s, s->now + 5000000, NULL, NULL); /* rail 1 must stay up */
    CHECK(R.bad_tag == 0);
    CHECK(R.received[1] == 2 * PER_RAIL);
    CHECK(R.ndown[0] == 1 && R.down_id[0][0] == R.tx[0]);
    CHECK(R.down_reason[0][0] == SCTPN_DOWN_TIMEOUT);
    CHECK(R.ndown[1] == 1 && R.down_id[1][0] == R.as[1][0]);
    CHECK(sctpn_assoc_state(s->ep[0], R.tx[1]) == SCTPN_ESTABLISHED);
    CHECK(sctpn_assoc_state(s->ep[1], R.as[1][1]) == SCTPN_ESTABLISHED);
    printf("rails: rail 0 down: its associations gone after %.1f virtual s (node 1's reason "
           "%d), rail 1 delivered all %d messages and is up\n", (s->now - t0) / 1e6,
           R.down_reason[1][0], 2 * PER_RAIL);
    sim_free(s);
    printf(" No Errors\n");
    return 0;
}
