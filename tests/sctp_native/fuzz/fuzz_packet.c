/* fuzz_packet.c — the libFuzzer target of the native SCTP engine's packet input: arbitrary bytes
 * go to sctpn_input on an endpoint in one of several states, built deterministically in memory
 * (fixed seeds, fixed cookie secret, a virtual clock) by replaying a real handshake between a
 * client and a server endpoint.  After the fuzzed packet(s) both endpoints keep talking for a
 * while (timers fire, packets flow) so the packet's consequences are exercised too.
 *
 * Input layout: byte 0 selects the scenario, the rest is the packet (or packets):
 *   bits 0-1  state: 0 no association yet (server: fresh listener; client: INIT sent,
 *             COOKIE-WAIT), 1 established, 2 established with data in flight both ways (some
 *             of it lost, so gaps and stored chunks exist), 3 as 2 with the client shutting down
 *   bit 2     target: 0 the server endpoint, 1 the client endpoint
 *   bit 3     fix up the common header: ports and the verification tag of the association
 *             (tag 0 if the first chunk is an INIT) - lets the fuzzer reach every chunk handler
 *   bit 4     fix the CRC32c
 *   bit 5     several packets: the rest is [length: 2 bytes big-endian][packet] ...
 *   bit 6     I-DATA (RFC 8260) negotiated
 *   bit 7     the packet comes from an address the association does not know (127.0.0.9:9009)
 *
 * fuzz_harness.h exposes the scenario builder to gen_corpus.c; replay_corpus.c runs the target
 * over files without libFuzzer. */
#include "fuzz_harness.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#define FZ_CLIENT_PORT 5002
#define FZ_SERVER_PORT 5001

fz_capture_fn fz_capture;
void *fz_capture_user;

static volatile uint8_t sink; /* data bytes are read so ASan checks every delivered byte */

static void on_data(void *user, const struct sctpn_data *d)
{
    (void)user;
    const uint8_t *p = d->data;
    uint8_t x = 0;
    for (size_t i = 0; i < d->len; i++)
        x ^= p[i];
    sink ^= x;
}

static void on_event(void *user, const struct sctpn_event *ev)
{
    struct fz_side *s = user;
    if (ev->type == SCTPN_EV_ASSOC_UP && !s->assoc)
        s->assoc = ev->assoc;
    if (ev->type == SCTPN_EV_ASSOC_UP)
        s->up = 1;
    if (ev->type == SCTPN_EV_ASSOC_DOWN)
        s->down = 1;
}

static struct sctpn_addr addr_of(int server)
{
    struct sctpn_addr a = {.ipv4 = htonl(0x7f000001u),
                           .udp_port = (uint16_t)(server ? 9002 : 9001)};
    return a;
}

static int side_open(struct fz_side *s, int server, int idata)
{
    memset(s, 0, sizeof *s);
    s->server = server;
    struct sctpn_config cfg;
    sctpn_config_defaults(&cfg);
    cfg.sctp_port = server ? FZ_SERVER_PORT : FZ_CLIENT_PORT;
    cfg.num_ostreams = 8;
    cfg.max_instreams = 8;
    cfg.rwnd = 256 * 1024;
    cfg.sndbuf = 256 * 1024;
    cfg.max_msg_size = 64 * 1024;
    cfg.mtu = 1200;
    cfg.hb_interval_us = 500000;
    cfg.idata = (uint8_t)idata;
    cfg.accept_incoming = (uint8_t)server;
    memset(cfg.cookie_secret, 0x5a, sizeof cfg.cookie_secret);
    cfg.seed = server ? 0x1234567u : 0x7654321u;
    cfg.local_addrs[0] = addr_of(server);
    cfg.n_local_addrs = 1;
    cfg.on_data = on_data;
    cfg.on_event = on_event;
    cfg.user = s;
    s->ep = sctpn_endpoint_new(&cfg);
    s->addr = addr_of(server);
    return s->ep ? 0 : -1;
}

/* move every pending packet of a to b (dropping those lose() picks), once */
static int move_packets(struct fz_world *w, struct fz_side *a, struct fz_side *b, int lose_every)
{
    static uint8_t buf[65536];
    struct sctpn_addr from, to;
    int n = 0, len;
    while ((len = sctpn_poll_transmit(a->ep, w->now, buf, sizeof buf, &from, &to)) > 0) {
        n++;
        w->moved++;
        if (fz_capture)
            fz_capture(fz_capture_user, w, a->server, buf, (size_t)len);
        if (lose_every && w->moved % (unsigned)lose_every == 0)
            continue;
        sctpn_input(b->ep, buf, (size_t)len, &from, &b->addr, w->now);
    }
    return n;
}

/* let both sides talk for rounds rounds, the clock advancing step_us per round */
void fz_pump(struct fz_world *w, int rounds, uint64_t step_us, int lose_every)
{
    for (int r = 0; r < rounds; r++) {
        int n = move_packets(w, &w->client, &w->server, lose_every);
        n += move_packets(w, &w->server, &w->client, lose_every);
        w->now += step_us;
        if (sctpn_next_deadline(w->client.ep) <= w->now)
            sctpn_handle_timeout(w->client.ep, w->now);
        if (sctpn_next_deadline(w->server.ep) <= w->now)
            sctpn_handle_timeout(w->server.ep, w->now);
        (void)n;
    }
}

static void send_some(struct fz_world *w, struct fz_side *s, int count, unsigned salt)
{
    static uint8_t payload[6000];
    for (size_t i = 0; i < sizeof payload; i++)
        payload[i] = (uint8_t)(i * 7 + salt);
    for (int i = 0; i < count; i++) {
        size_t len = (size_t)((i * 977u + salt) % 4000u) + 1;
        struct iovec iov = {.iov_base = payload, .iov_len = len};
        unsigned flags = SCTPN_SEND_COPY | (i % 3 == 2 ? SCTPN_SEND_UNORDERED : 0);
        if (sctpn_send(s->ep, s->assoc, (uint16_t)(i % 8), (uint32_t)i, flags, &iov, 1, NULL) < 0)
            break;
    }
    (void)w;
}

int fz_world_open(struct fz_world *w, unsigned state, int idata)
{
    memset(w, 0, sizeof *w);
    w->now = 1000000;
    w->state = state & 3;
    w->idata = idata;
    if (side_open(&w->client, 0, idata) < 0 || side_open(&w->server, 1, idata) < 0)
        return -1;
    struct sctpn_addr local = w->client.addr, remote = w->server.addr;
    if (sctpn_connect(w->client.ep, FZ_SERVER_PORT, &remote, 1, &local, 1, w->now,
                      &w->client.assoc) < 0)
        return -1;
    if (w->state == 0) {
        /* the INIT goes out (captured) but the server never sees it */
        static uint8_t buf[65536];
        struct sctpn_addr from, to;
        int len;
        while ((len = sctpn_poll_transmit(w->client.ep, w->now, buf, sizeof buf, &from, &to)) >
               0)
            if (fz_capture)
                fz_capture(fz_capture_user, w, 0, buf, (size_t)len);
        return 0;
    }
    fz_pump(w, 6, 1000, 0);
    if (!w->client.up || !w->server.up)
        return -1;
    if (w->state >= 2) {
        send_some(w, &w->client, 40, 1);
        send_some(w, &w->server, 25, 2);
        fz_pump(w, 2, 1000, 5); /* every fifth packet lost: gaps, stored chunks, rtx pending */
    }
    if (w->state == 3)
        sctpn_shutdown(w->client.ep, w->client.assoc, w->now);
    return 0;
}

void fz_world_close(struct fz_world *w)
{
    if (w->client.ep)
        sctpn_endpoint_free(w->client.ep);
    if (w->server.ep)
        sctpn_endpoint_free(w->server.ep);
    w->client.ep = w->server.ep = NULL;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* feed one fuzzed packet to the target side */
static void feed(struct fz_world *w, struct fz_side *t, uint8_t mode, const uint8_t *data,
                 size_t len)
{
    uint8_t *pkt = malloc(len ? len : 1); /* an exact-size copy: ASan sees any over-read */
    if (!pkt)
        return;
    memcpy(pkt, data, len);
    (void)sctpn_packet_check(pkt, len, 1);
    (void)sctpn_packet_check(pkt, len, 0);
    struct fz_side *peer = t == &w->client ? &w->server : &w->client;
    if ((mode & FZ_FIX_HEADER) && len >= 12) {
        struct sctpn_assoc_stats st;
        uint32_t vtag = 0;
        if (t->assoc && sctpn_get_stats(t->ep, t->assoc, &st) == 0)
            vtag = st.my_vtag;
        if (len >= 13 && pkt[12] == 1 /* INIT */)
            vtag = 0;
        put16(pkt, t->server ? FZ_CLIENT_PORT : FZ_SERVER_PORT);
        put16(pkt + 2, t->server ? FZ_SERVER_PORT : FZ_CLIENT_PORT);
        put32(pkt + 4, vtag);
    }
    if ((mode & FZ_FIX_CRC) && len >= 12)
        sctpn_packet_set_crc(pkt, len);
    struct sctpn_addr foreign = {.ipv4 = htonl(0x7f000009u), .udp_port = 9009};
    sctpn_input(t->ep, pkt, len, (mode & FZ_FOREIGN_SOURCE) ? &foreign : &peer->addr, &t->addr,
                w->now);
    free(pkt);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t mode = data[0];
    struct fz_world w;
    if (fz_world_open(&w, mode & 3, !!(mode & FZ_IDATA)) < 0) {
        fz_world_close(&w);
        abort(); /* the deterministic set-up itself failed: an engine bug, not an input */
    }
    struct fz_side *t = (mode & FZ_TARGET_CLIENT) ? &w.client : &w.server;
    data++;
    size--;
    if (mode & FZ_MULTI) {
        int n = 0;
        while (size >= 2 && n++ < 16) {
            size_t l = (size_t)data[0] << 8 | data[1];
            data += 2;
            size -= 2;
            if (l > size)
                l = size;
            feed(&w, t, mode, data, l);
            data += l;
            size -= l;
            fz_pump(&w, 1, 1000, 0);
        }
    } else {
        feed(&w, t, mode, data, size);
    }
    /* the consequences: replies, timers (RTO, heartbeats, SACK delay), a graceful close */
    fz_pump(&w, 4, 1000, 0);
    fz_pump(&w, 4, 400000, 0);
    if (w.client.assoc)
        sctpn_shutdown(w.client.ep, w.client.assoc, w.now);
    fz_pump(&w, 4, 1000, 0);
    struct sctpn_assoc_stats st;
    if (w.server.assoc)
        (void)sctpn_get_stats(w.server.ep, w.server.assoc, &st);
    if (w.client.assoc)
        (void)sctpn_get_stats(w.client.ep, w.client.assoc, &st);
    fz_world_close(&w);
    return 0;
}
