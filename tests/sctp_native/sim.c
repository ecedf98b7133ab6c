/* sim.c — the simulated network of sim.h: a binary heap of packets in flight ordered by
 * arrival time (ties by send order), links applying loss/duplication/reordering/bandwidth,
 * and the event loop that advances the virtual clock to the next arrival or timer. */
#include "sim.h"

#include <string.h>

uint64_t sim_rand(struct sim *s)
{
    uint64_t x = s->rng;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return s->rng = x;
}

double sim_rand01(struct sim *s) { return (double)(sim_rand(s) >> 11) / 9007199254740992.0; }

void sim_init(struct sim *s, int rails, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->rails = rails;
    s->rng = seed * 0x9e3779b97f4a7c15ull + 1;
    s->now = 1000000;
    for (int n = 0; n < 2; n++)
        for (int r = 0; r < rails; r++) {
            s->addr[n][r].ipv4 = __builtin_bswap32(0x0a000000u | (uint32_t)(r + 1) << 16 |
                                                   (uint32_t)(n + 1));
            s->addr[n][r].udp_port = 9899;
            s->link[n][r].delay_us = 1000;
        }
}

void sim_config(struct sim *s, int node, struct sctpn_config *cfg)
{
    sctpn_config_defaults(cfg);
    cfg->sctp_port = (uint16_t)(5000 + node);
    cfg->seed = 1234 + (uint64_t)node;
    cfg->rto_initial_us = 100000;
    cfg->rto_min_us = 20000;
    cfg->rto_max_us = 2000000;
    cfg->sack_delay_us = 5000;
    cfg->hb_interval_us = 200000;
    cfg->n_local_addrs = s->rails;
    for (int r = 0; r < s->rails; r++)
        cfg->local_addrs[r] = s->addr[node][r];
}

int sim_start(struct sim *s, const struct sctpn_config *c0, const struct sctpn_config *c1)
{
    s->ep[0] = sctpn_endpoint_new(c0);
    s->ep[1] = sctpn_endpoint_new(c1);
    return s->ep[0] && s->ep[1] ? 0 : -1;
}

int sim_connect(struct sim *s, sctpn_assoc_id *id)
{
    return sctpn_connect(s->ep[0], 5001, s->addr[1], s->rails, s->addr[0], s->rails, s->now, id);
}

static int before(const struct sim_pkt *a, const struct sim_pkt *b)
{
    return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static void heap_push(struct sim *s, struct sim_pkt *p)
{
    if (s->nheap == s->capheap) {
        s->capheap = s->capheap ? 2 * s->capheap : 1024;
        s->heap = realloc(s->heap, s->capheap * sizeof *s->heap);
        CHECK(s->heap);
    }
    size_t i = s->nheap++;
    while (i && before(p, s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = p;
}

static struct sim_pkt *heap_pop(struct sim *s)
{
    struct sim_pkt *top = s->heap[0], *last = s->heap[--s->nheap];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->nheap)
            break;
        if (c + 1 < s->nheap && before(s->heap[c + 1], s->heap[c]))
            c++;
        if (!before(s->heap[c], last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->nheap)
        s->heap[i] = last;
    return top;
}

int sim_has_chunk(const uint8_t *pkt, size_t len, uint8_t type)
{
    size_t off = 12;
    while (off + 4 <= len) {
        size_t cl = (size_t)(pkt[off + 2] << 8 | pkt[off + 3]);
        if (pkt[off] == type)
            return 1;
        if (cl < 4)
            return 0;
        off += (cl + 3) & ~(size_t)3;
    }
    return 0;
}

static void emit(struct sim *s, int node, uint8_t *buf, size_t len, struct sctpn_addr from,
                 struct sctpn_addr to)
{
    int dst = 1 - node, rail = -1;
    for (int r = 0; r < s->rails; r++)
        if (s->addr[dst][r].ipv4 == to.ipv4)
            rail = r;
    CHECK(rail >= 0);
    s->packets++;
    s->bytes += len;
    struct sim_link *l = &s->link[node][rail];
    l->sent++;
    s->filter_rail = rail;
    if (s->filter && !s->filter(s, node, buf, len, s->filter_arg)) {
        l->dropped++;
        return;
    }
    if (l->down || (l->drop_data_only && (sim_has_chunk(buf, len, 0) || sim_has_chunk(buf, len, 64))) ||
        (l->loss > 0 && sim_rand01(s) < l->loss)) {
        l->dropped++;
        return;
    }
    uint64_t t = s->now;
    if (l->bw_bps) {
        if (l->busy_until > t)
            t = l->busy_until;
        t += (uint64_t)len * 8 * 1000000 / l->bw_bps;
        l->busy_until = t;
    }
    t += l->delay_us;
    int copies = 1 + (l->dup > 0 && sim_rand01(s) < l->dup);
    for (int k = 0; k < copies; k++) {
        struct sim_pkt *p = malloc(sizeof *p + len);
        CHECK(p);
        p->at = t + (k ? 1 + sim_rand(s) % (l->delay_us + 1) : 0);
        if (l->reorder > 0 && sim_rand01(s) < l->reorder)
            p->at += sim_rand(s) % (l->reorder_us + 1);
        p->seq = s->seq++;
        p->dst = dst;
        p->from = from;
        p->to = to;
        p->len = len;
        memcpy(p->data, buf, len);
        heap_push(s, p);
    }
}

/* the next packet of node n, pulled as sctpn_poll_transmit_refs gives it and reassembled */
static int pull_gathered(struct sim *s, int n, uint8_t *buf, size_t cap, struct sctpn_addr *f,
                         struct sctpn_addr *t)
{
    struct sctpn_txref refs[64];
    int nrefs = -1, max = s->gather < 64 ? s->gather : 64;
    memset(buf, 0xa5, cap); /* bytes under a reference must not matter */
    int len = sctpn_poll_transmit_refs(s->ep[n], s->now, buf, cap, f, t, refs, max, &nrefs);
    CHECK(nrefs >= 0 && nrefs <= max);
    if (len <= 0) {
        CHECK(nrefs == 0);
        return len;
    }
    size_t end = 12;
    for (int i = 0; i < nrefs; i++) {
        CHECK(refs[i].off >= end && refs[i].len >= SCTPN_TXREF_MIN && refs[i].data);
        CHECK(refs[i].off + refs[i].len <= (size_t)len);
        memcpy(buf + refs[i].off, refs[i].data, refs[i].len);
        end = refs[i].off + refs[i].len;
        s->gather_refs++;
        s->gather_bytes += refs[i].len;
    }
    uint32_t stored = (uint32_t)buf[8] | (uint32_t)buf[9] << 8 | (uint32_t)buf[10] << 16 |
                      (uint32_t)buf[11] << 24;
    CHECK(stored == 0 || stored == sctpn_packet_crc(buf, (size_t)len));
    return len;
}

static void flush(struct sim *s)
{
    uint8_t buf[65536];
    for (int n = 0; n < 2; n++) {
        struct sctpn_addr f, t;
        int len, k = 0;
        while ((len = s->gather ? pull_gathered(s, n, buf, sizeof buf, &f, &t)
                                : sctpn_poll_transmit(s->ep[n], s->now, buf, sizeof buf, &f,
                                                      &t)) > 0) {
            emit(s, n, buf, (size_t)len, f, t);
            CHECK(++k < 1000000); /* the engine must run out of packets */
        }
        CHECK(len == 0);
    }
}

int sim_run(struct sim *s, uint64_t until, int (*stop)(struct sim *, void *), void *arg)
{
    for (;;) {
        if (s->pump)
            s->pump(s, s->pump_arg);
        flush(s);
        if (stop && stop(s, arg))
            return 1;
        uint64_t next = SIM_NEVER;
        if (s->nheap)
            next = s->heap[0]->at;
        for (int n = 0; n < 2; n++) {
            uint64_t d = sctpn_next_deadline(s->ep[n]);
            if (d < next)
                next = d;
        }
        if (next == SIM_NEVER || next > until) {
            if (until != SIM_NEVER && until > s->now)
                s->now = until;
            return 0;
        }
        if (next > s->now)
            s->now = next;
        while (s->nheap && s->heap[0]->at <= s->now) {
            struct sim_pkt *p = heap_pop(s);
            sctpn_input(s->ep[p->dst], p->data, p->len, &p->from, &p->to, s->now);
            free(p);
        }
        for (int n = 0; n < 2; n++)
            if (sctpn_next_deadline(s->ep[n]) <= s->now)
                sctpn_handle_timeout(s->ep[n], s->now);
    }
}

void sim_free(struct sim *s)
{
    for (size_t i = 0; i < s->nheap; i++)
        free(s->heap[i]);
    free(s->heap);
    sctpn_endpoint_free(s->ep[0]);
    sctpn_endpoint_free(s->ep[1]);
}

int sim_pull(sctpn_endpoint *ep, uint64_t now, struct sim_cap *out, int max)
{
    int n = 0, len;
    struct sim_cap tmp;
    while ((len = sctpn_poll_transmit(ep, now, tmp.data, sizeof tmp.data, &tmp.from, &tmp.to)) > 0) {
        CHECK(n < max);
        tmp.len = (size_t)len;
        out[n++] = tmp;
    }
    CHECK(len == 0);
    return n;
}

int sim_push(sctpn_endpoint *ep, const struct sim_cap *p, uint64_t now)
{
    return sctpn_input(ep, p->data, p->len, &p->from, &p->to, now);
}

uint32_t sim_first_tsn(const uint8_t *pkt, size_t len)
{
    size_t off = 12;
    while (off + 8 <= len) {
        size_t cl = (size_t)(pkt[off + 2] << 8 | pkt[off + 3]);
        if (pkt[off] == 0 || pkt[off] == 64)
            return (uint32_t)pkt[off + 4] << 24 | (uint32_t)pkt[off + 5] << 16 |
                   (uint32_t)pkt[off + 6] << 8 | pkt[off + 7];
        if (cl < 4)
            return 0;
        off += (cl + 3) & ~(size_t)3;
    }
    return 0;
}
