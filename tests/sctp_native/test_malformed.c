/* test_malformed.c — hostile input to the sctpn engine: hand-made malformed packets (short,
 * zero-length and overlong chunks, bad CRC, DATA without user data, SACK overrunning its
 * chunk, INIT bundled or with a broken parameter list) are rejected with the right code; then
 * a randomized mutation loop over real packets (bit flips, truncation, length fields, spliced
 * chunks; CRC usually fixed so the parser is reached) is fed to a live association and to a
 * fresh endpoint.  Nothing may crash (run under ASan/UBSan too), every return code must be a
 * known one, and every packet the engine emits meanwhile must itself parse cleanly.
 * usage: test_sctpn_malformed [iterations] */
#include <string.h>

#include "sim.h"

#define NCAP 400
static struct sim_cap caps[NCAP];
static int ncaps, capdir[NCAP];
static int ups;

static void on_event(void *user, const struct sctpn_event *ev)
{
    (void)user;
    if (ev->type == SCTPN_EV_ASSOC_UP)
        ups++;
}
static void on_data(void *user, const struct sctpn_data *d)
{
    (void)user;
    CHECK(d->len > 0 && d->data);
}

static int capture(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)s;
    (void)arg;
    CHECK(sctpn_packet_check(pkt, len, 1) > 0);
    if (ncaps < NCAP && len <= sizeof caps[0].data) {
        memcpy(caps[ncaps].data, pkt, len);
        caps[ncaps].len = len;
        capdir[ncaps] = dir;
        ncaps++;
    }
    return 1;
}

static void mkpair(struct sim *s, uint64_t seed, sctpn_assoc_id *id)
{
    sim_init(s, 2, seed);
    for (int d = 0; d < 2; d++)
        s->link[d][0].loss = 0.1;
    struct sctpn_config c0, c1;
    sim_config(s, 0, &c0);
    sim_config(s, 1, &c1);
    c0.on_event = c1.on_event = on_event;
    c0.on_data = c1.on_data = on_data;
    c0.idata = c1.idata = (uint8_t)(seed & 1);
    CHECK(sim_start(s, &c0, &c1) == 0);
    CHECK(sim_connect(s, id) == 0);
}

static int valid_rc(int rc)
{
    return rc == 0 || rc == SCTPN_EMALFORMED || rc == SCTPN_ECRC || rc == SCTPN_EVTAG ||
           rc == SCTPN_ECOOKIE || rc == SCTPN_EOOTB || rc == SCTPN_ENOMEM || rc == SCTPN_ELIMIT;
}

static void drain(struct sim *s, sctpn_endpoint *ep, uint64_t now)
{
    uint8_t buf[2048];
    struct sctpn_addr f, t;
    int n, k = 0;
    while ((n = sctpn_poll_transmit(ep, now, buf, sizeof buf, &f, &t)) > 0) {
        int pc = sctpn_packet_check(buf, (size_t)n, 1);
        if (pc <= 0) {
            fprintf(stderr, "engine emitted a bad packet (%d), %d bytes:", pc, n);
            for (int i = 0; i < n && i < 96; i++)
                fprintf(stderr, " %02x", buf[i]);
            fprintf(stderr, "\n");
        }
        CHECK(pc > 0);
        CHECK(++k < 100000);
    }
    CHECK(n == 0);
    (void)s;
}

static void crafted(void)
{
    struct sim s;
    sctpn_assoc_id id;
    mkpair(&s, 2, &id);
    s.link[0][0].loss = s.link[1][0].loss = 0;
    CHECK(sim_run(&s, s.now + 1000000, NULL, NULL) == 0);
    CHECK(sctpn_assoc_state(s.ep[0], id) == SCTPN_ESTABLISHED);
    uint8_t p[64];
    struct sctpn_addr from = s.addr[0][0], to = s.addr[1][0];
    uint64_t now = s.now;
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s.ep[0], id, &st) == 0);
    /* a base packet: A's tag for B, one COOKIE-ACK-sized empty chunk slot */
    memset(p, 0, sizeof p);
    p[0] = 5000 >> 8; p[1] = 5000 & 0xff; p[2] = 5001 >> 8; p[3] = 5001 & 0xff;
    p[4] = (uint8_t)(st.peer_vtag >> 24); p[5] = (uint8_t)(st.peer_vtag >> 16);
    p[6] = (uint8_t)(st.peer_vtag >> 8); p[7] = (uint8_t)st.peer_vtag;
#define TRY(len, expect)                                                                       \
    do {                                                                                       \
        sctpn_packet_set_crc(p, len);                                                          \
        CHECK(sctpn_packet_check(p, len, 1) == (expect) || (expect) > 0);                      \
        int rc_ = sctpn_input(s.ep[1], p, len, &from, &to, now);                               \
        if ((expect) < 0)                                                                      \
            CHECK(rc_ == (expect));                                                            \
        drain(&s, s.ep[1], now);                                                               \
    } while (0)
    TRY(12, SCTPN_EMALFORMED);                 /* no chunk at all */
    TRY(14, SCTPN_EMALFORMED);                 /* half a chunk header */
    p[12] = 11; p[13] = 0; p[14] = 0; p[15] = 0;
    TRY(16, SCTPN_EMALFORMED);                 /* zero-length chunk */
    p[15] = 3;
    TRY(16, SCTPN_EMALFORMED);                 /* length below the header */
    p[15] = 40;
    TRY(16, SCTPN_EMALFORMED);                 /* length beyond the packet */
    p[12] = 0; p[15] = 16;                     /* DATA with 12 bytes of header, no payload */
    TRY(28, SCTPN_EMALFORMED);
    p[12] = 3; p[15] = 16; p[24] = 0; p[25] = 9; /* SACK announcing 9 gaps in 16 bytes */
    TRY(28, SCTPN_EMALFORMED);
    p[12] = 1; p[15] = 20;                     /* INIT + another chunk */
    p[32] = 11; p[35] = 4;
    TRY(36, SCTPN_EMALFORMED);
    memset(p + 4, 0, 4);                       /* INIT, tag 0, parameter list overrunning */
    memset(p + 16, 1, 16);
    p[15] = 28; p[32] = 0; p[33] = 5; p[34] = 0; p[35] = 40;
    TRY(40, SCTPN_EMALFORMED);
    p[12] = 11; p[15] = 4;                     /* fine, but the checksum is wrong */
    sctpn_packet_set_crc(p, 16);
    p[9] ^= 1;
    CHECK(sctpn_packet_check(p, 16, 1) == SCTPN_ECRC);
    CHECK(sctpn_input(s.ep[1], p, 16, &from, &to, now) == SCTPN_ECRC);
    CHECK(sctpn_input(s.ep[1], p, 0, &from, &to, now) == SCTPN_EMALFORMED);
    CHECK(sctpn_input(s.ep[1], NULL, 10, &from, &to, now) == SCTPN_EMALFORMED ||
          sctpn_input(s.ep[1], NULL, 10, &from, &to, now) == SCTPN_EINVAL);
    CHECK(sctpn_packet_check(NULL, 0, 1) == SCTPN_EMALFORMED);
    CHECK(sctpn_assoc_state(s.ep[1], 1) == SCTPN_ESTABLISHED);
    sim_free(&s);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void mutate(uint8_t *d, size_t *len, uint64_t *r)
{
    int kind = (int)(rnd(r) % 6);
    size_t n = *len;
    if (n < 16)
        kind = 4; /* too short to pick inside: grow it */
    switch (kind) {
    case 0: /* flip a few bytes */
        for (int k = 1 + (int)(rnd(r) % 4); k > 0; k--)
            d[12 + rnd(r) % (n - 12)] ^= (uint8_t)(1 + rnd(r) % 255);
        break;
    case 1: /* truncate */
        *len = 12 + rnd(r) % (n - 11);
        break;
    case 2: { /* rewrite the length field of the first chunk or of a TLV */
        size_t at = 12 + 2 + (rnd(r) % 3 ? 0 : 4 * (rnd(r) % ((n - 12) / 4 + 1)));
        if (at + 1 < n) {
            uint16_t v = (uint16_t)(rnd(r) % 3 == 0 ? rnd(r) : rnd(r) % (n + 8));
            d[at] = (uint8_t)(v >> 8);
            d[at + 1] = (uint8_t)v;
        }
        break;
    }
    case 3: /* change a chunk type */
        d[12] = (uint8_t)rnd(r);
        break;
    case 4: /* append a random chunk */
        if (n + 24 <= 2048) {
            size_t cl = 4 + rnd(r) % 20;
            d[n] = (uint8_t)rnd(r);
            d[n + 1] = (uint8_t)rnd(r);
            d[n + 2] = 0;
            d[n + 3] = (uint8_t)cl;
            for (size_t i = 4; i < 24; i++)
                d[n + i] = (uint8_t)rnd(r);
            *len = n + ((cl + 3) & ~(size_t)3);
        }
        break;
    default: /* a random 32-bit field (TSN, cum ack, tags, gap offsets) */
        if (n >= 24) {
            size_t at = 12 + 4 * (rnd(r) % ((n - 12) / 4));
            uint32_t v = (uint32_t)rnd(r);
            if (rnd(r) & 1)
                v &= 0x000000ff;
            memcpy(d + at, &v, 4);
        }
        break;
    }
}

int main(int argc, char **argv)
{
    long iters = argc > 1 ? atol(argv[1]) : 200000;
    crafted();
    uint64_t r = 88172645463325252ull;
    long done = 0, rounds = 0;
    int seen_rc[16] = {0};
    while (done < iters) {
        struct sim s;
        sctpn_assoc_id id;
        ncaps = 0;
        ups = 0;
        mkpair(&s, 100 + (uint64_t)rounds, &id);
        s.filter = capture;
        /* real traffic: handshake, data both ways (some fragmented / unordered), shutdown */
        sim_run(&s, s.now + 300000, NULL, NULL);
        static uint8_t payload[5000];
        for (int i = 0; i < 60; i++) {
            struct iovec iov = {payload, (size_t)(1 + (i * 577) % 5000)};
            sctpn_send(s.ep[0], id, (uint16_t)(i % 16), (uint32_t)i,
                       i % 5 ? 0 : SCTPN_SEND_UNORDERED, &iov, 1, NULL);
        }
        sim_run(&s, s.now + 3000000, NULL, NULL);
        CHECK(ncaps > 20);
        s.filter = NULL;
        /* a fresh endpoint as the second target */
        struct sctpn_config cf;
        sim_config(&s, 1, &cf);
        cf.seed = 5;
        cf.idata = 1;
        sctpn_endpoint *fresh = sctpn_endpoint_new(&cf);
        CHECK(fresh);
        uint64_t now = s.now;
        for (int k = 0; k < 2000 && done < iters; k++, done++) {
            int i = (int)(rnd(&r) % (uint64_t)ncaps);
            struct sim_cap m = caps[i];
            int muts = 1 + (int)(rnd(&r) % 3);
            for (int j = 0; j < muts; j++)
                mutate(m.data, &m.len, &r);
            if (rnd(&r) % 10)
                sctpn_packet_set_crc(m.data, m.len);
            int dst = 1 - capdir[i];
            struct sctpn_addr from = s.addr[capdir[i]][rnd(&r) % 2], to = s.addr[dst][0];
            now += rnd(&r) % 2000;
            sctpn_endpoint *ep = (k & 3) == 3 ? fresh : s.ep[dst];
            int rc = sctpn_input(ep, m.data, m.len, &from, &to, now);
            CHECK(valid_rc(rc));
            seen_rc[-rc < 16 ? -rc : 15]++;
            int pc = sctpn_packet_check(m.data, m.len, 0);
            CHECK(pc > 0 || pc == SCTPN_EMALFORMED);
            drain(&s, ep, now);
            if ((k & 63) == 0) {
                for (int e = 0; e < 2; e++) {
                    sctpn_handle_timeout(s.ep[e], now + 10000000);
                    drain(&s, s.ep[e], now + 10000000);
                }
                sctpn_handle_timeout(fresh, now + 10000000);
                drain(&s, fresh, now + 10000000);
            }
        }
        sctpn_endpoint_free(fresh);
        sim_free(&s);
        rounds++;
    }
    printf("mutated packets %ld in %ld rounds; results: ok %d malformed %d crc %d vtag %d "
           "cookie %d ootb %d\n", done, rounds, seen_rc[0], seen_rc[5], seen_rc[6], seen_rc[7],
           seen_rc[8], seen_rc[9]);
    CHECK(seen_rc[0] > 0 && seen_rc[5] > 0 && seen_rc[6] > 0 && seen_rc[7] > 0);
    printf(" No Errors\n");
    return 0;
}
