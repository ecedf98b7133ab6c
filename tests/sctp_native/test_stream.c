/* test_stream.c — bulk correctness of the sctpn engine over the simulated network: N messages
 * (default 10^6; mixed sizes, some multi-fragment, some unordered, three send modes: zero
 * copy, copied header, copied message) over 16 streams with loss, reordering and duplication
 * in both directions must arrive exactly once, ordered ones in per-stream order, every byte
 * intact, and every send must be reported done.
 * With gather > 0 the sender's packets are pulled zero-copy (sctpn_poll_transmit_refs, at
 * most gather payload references per packet) and carry a CRC32c: a copied message's buffer is
 * overwritten as soon as sctpn_send returns, so a reference to it would corrupt the first
 * transmission or a retransmission.
 * usage: test_sctpn_stream [messages] [loss] [seed] [idata] [gather] */
#include <string.h>

#include "sim.h"

#define NSTREAMS 16
#define HDR 16

struct state {
    struct sim sim;
    sctpn_assoc_id id;
    int up;
    uint64_t n, sent, done, received, pieces;
    uint32_t out_seq[NSTREAMS];
    uint32_t in_seq[NSTREAMS];
    uint8_t *seen;
    int adopt; /* half of the copied messages go as SCTPN_SEND_ADOPT instead */
    uint64_t adopted;
    /* message being delivered: ordered per stream, unordered by key */
    struct cur { int active; uint16_t stream; uint32_t key, id, len; uint64_t off; } ord[NSTREAMS], un[256];
};
static char copy_marker;

static uint32_t mix32(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (uint32_t)x;
}
static uint8_t body_byte(uint32_t id, uint64_t i) { return (uint8_t)(id * 7 + i * 31 + (i >> 8)); }

static uint32_t msg_len(uint32_t id)
{
    uint32_t r = mix32(id);
    if (r % 100 == 0)
        return 1500 + r / 100 % 4500; /* several fragments */
    return HDR + r / 100 % 185;
}

static void on_event(void *user, const struct sctpn_event *ev)
{
    struct state *st = user;
    switch (ev->type) {
    case SCTPN_EV_ASSOC_UP:
        st->up++;
        break;
    case SCTPN_EV_SEND_DONE:
        st->done++;
        if (ev->cookie != &copy_marker)
            free(ev->cookie);
        break;
    case SCTPN_EV_SEND_FAILED:
    case SCTPN_EV_ASSOC_DOWN:
    case SCTPN_EV_ASSOC_RESTART:
        fprintf(stderr, "unexpected event %d\n", ev->type);
        exit(1);
    default:
        break;
    }
}

static void on_data(void *user, const struct sctpn_data *d)
{
    struct state *st = user;
    CHECK(d->stream < NSTREAMS && d->len > 0);
    struct cur *c;
    if (d->unordered) {
        c = NULL; /* unordered messages in progress: found by (stream, key) */
        for (int i = 0; i < 256 && !c; i++)
            if (d->first ? !st->un[i].active
                         : st->un[i].active && st->un[i].key == d->msg_key &&
                               st->un[i].stream == d->stream)
                c = &st->un[i];
        CHECK(c);
    } else {
        c = &st->ord[d->stream];
        CHECK(d->first ? !c->active : c->active);
    }
    const uint8_t *p = d->data;
    uint64_t i0 = 0;
    if (d->first) {
        CHECK(d->msg_offset == 0 && d->len >= HDR);
        uint32_t id, seq, len;
        memcpy(&id, p, 4);
        memcpy(&seq, p + 4, 4);
        memcpy(&len, p + 8, 4);
        CHECK(id < st->n && !st->seen[id]);
        CHECK(len == msg_len(id));
        CHECK(p[12] == id % NSTREAMS && p[13] == d->unordered && d->ppid == id);
        if (!d->unordered) {
            CHECK(seq == st->in_seq[d->stream]); /* per-stream order */
            st->in_seq[d->stream]++;
        }
        st->seen[id] = 1;
        *c = (struct cur){.active = 1, .stream = d->stream, .key = d->msg_key, .id = id, .len = len, .off = 0};
        i0 = HDR;
    }
    CHECK(d->msg_offset == c->off && c->off + d->len <= c->len);
    for (uint64_t i = i0; i < d->len; i++)
        CHECK(p[i] == body_byte(c->id, c->off + i));
    c->off += d->len;
    st->pieces++;
    if (d->last) {
        CHECK(c->off == c->len);
        c->active = 0;
        st->received++;
    }
}

static void pump(struct sim *s, void *arg)
{
    struct state *st = arg;
    (void)s;
    if (!st->up)
        return;
    while (st->sent < st->n) {
        uint32_t id = (uint32_t)st->sent, len = msg_len(id);
        uint16_t stream = (uint16_t)(id % NSTREAMS);
        int unord = mix32(id ^ 0xabcdef) % 20 == 0;
        uint8_t *buf = malloc(len);
        CHECK(buf);
        uint32_t seq = unord ? 0 : st->out_seq[stream];
        memcpy(buf, &id, 4);
        memcpy(buf + 4, &seq, 4);
        memcpy(buf + 8, &len, 4);
        buf[12] = (uint8_t)stream;
        buf[13] = (uint8_t)unord;
        buf[14] = buf[15] = 0;
        for (uint32_t i = HDR; i < len; i++)
            buf[i] = body_byte(id, i);
        unsigned flags = unord ? SCTPN_SEND_UNORDERED : 0;
        struct iovec iov[3];
        int iovcnt = 1, rc;
        void *cookie = buf;
        switch (id % 3) {
        case 0: /* zero copy, split in three iovecs */
            iov[0] = (struct iovec){buf, 5};
            iov[1] = (struct iovec){buf + 5, len / 2 - 5};
            iov[2] = (struct iovec){buf + len / 2, len - len / 2};
            iovcnt = 3;
            break;
        case 1: { /* header from a stack copy (SCTPN_SEND_COPY_HEAD), body zero copy */
            uint8_t head[HDR];
            memcpy(head, buf, HDR);
            memset(buf, 0xee, HDR); /* the engine must not read the original header */
            iov[0] = (struct iovec){head, HDR};
            iov[1] = (struct iovec){buf + HDR, len - HDR};
            iovcnt = 2;
            flags |= SCTPN_SEND_COPY_HEAD;
            rc = sctpn_send(s->ep[0], st->id, stream, id, flags, iov, iovcnt, cookie);
            goto sent;
        }
        default: /* copied at once: the buffer is freed right away */
            iov[0] = (struct iovec){buf, len};
            flags |= SCTPN_SEND_COPY;
            cookie = &copy_marker;
            if (st->adopt && (id / 3) % 2) { /* or handed over: the engine frees it */
                flags = (flags & ~(unsigned)SCTPN_SEND_COPY) | SCTPN_SEND_ADOPT;
                rc = sctpn_send(s->ep[0], st->id, stream, id, flags, iov, iovcnt, cookie);
                if (rc == SCTPN_EAGAIN) {
                    free(buf);
                    return;
                }
                CHECK(rc == 0);
                buf = NULL; /* the engine's now */
                cookie = NULL;
                goto sent;
            }
            break;
        }
        rc = sctpn_send(s->ep[0], st->id, stream, id, flags, iov, iovcnt, cookie);
    sent:
        if (rc == SCTPN_EAGAIN) {
            free(buf);
            return;
        }
        CHECK(rc == 0);
        if (cookie == &copy_marker) {
            memset(buf, 0xdd, len);
            free(buf);
        }
        if (!buf)
            st->adopted++;
        if (!unord)
            st->out_seq[stream]++;
        st->sent++;
    }
}

static int finished(struct sim *s, void *arg)
{
    (void)s;
    struct state *st = arg;
    return st->received == st->n && st->done == st->n;
}

int main(int argc, char **argv)
{
    static struct state st;
    st.n = argc > 1 ? strtoull(argv[1], NULL, 0) : 1000000;
    double loss = argc > 2 ? atof(argv[2]) : 0.05;
    uint64_t seed = argc > 3 ? strtoull(argv[3], NULL, 0) : 1;
    int idata = argc > 4 ? atoi(argv[4]) : 0;
    int gather = argc > 5 ? atoi(argv[5]) : 0;
    st.seen = calloc(st.n, 1);
    CHECK(st.seen);
    struct sim *s = &st.sim;
    sim_init(s, 1, seed);
    for (int d = 0; d < 2; d++) {
        struct sim_link *l = &s->link[d][0];
        l->loss = loss;
        l->dup = 0.01;
        l->reorder = 0.05;
        l->reorder_us = 3000;
        l->bw_bps = 10000000000ull;
    }
    struct sctpn_config c0, c1;
    sim_config(s, 0, &c0);
    sim_config(s, 1, &c1);
    c0.idata = c1.idata = (uint8_t)idata;
    if (gather) {
        s->gather = gather;
        st.adopt = 1;
        c0.zero_checksum = c1.zero_checksum = 0; /* the checksum covers referenced bytes */
    }
    c0.on_event = c1.on_event = on_event;
    c0.on_data = c1.on_data = on_data;
    c0.user = c1.user = &st;
    c0.sndbuf = 1 << 20;
    c1.rwnd = 1 << 20;
    CHECK(sim_start(s, &c0, &c1) == 0);
    CHECK(sim_connect(s, &st.id) == 0);
    s->pump = pump;
    s->pump_arg = &st;
    int ok = sim_run(s, s->now + 36000ull * 1000000, finished, &st);
    struct sctpn_assoc_stats as;
    CHECK(sctpn_get_stats(s->ep[0], st.id, &as) == 0);
    printf("messages %llu/%llu delivered (%llu pieces), %llu done, virtual time %.3f s\n",
           (unsigned long long)st.received, (unsigned long long)st.n,
           (unsigned long long)st.pieces, (unsigned long long)st.done, s->now / 1e6);
    printf("sender: packets out %llu, data chunks %llu, retransmitted %llu, fast rtx %llu, "
           "T3 %llu, dup TSNs reported %llu, cwnd %u, srtt %llu us, rto %llu us\n",
           (unsigned long long)as.packets_out, (unsigned long long)as.data_chunks_out,
           (unsigned long long)as.retransmitted_chunks, (unsigned long long)as.fast_retransmits,
           (unsigned long long)as.t3_timeouts, (unsigned long long)as.dup_tsns_reported,
           as.paths[0].cwnd, (unsigned long long)as.paths[0].srtt_us,
           (unsigned long long)as.paths[0].rto_us);
    CHECK(ok);
    CHECK(st.up == 2);
    for (uint64_t i = 0; i < st.n; i++)
        CHECK(st.seen[i]);
    if (loss > 0 && st.n >= 10000) {
        CHECK(as.retransmitted_chunks > 0 && as.fast_retransmits > 0);
        CHECK(as.dup_tsns_reported > 0); /* the network duplicated packets */
    }
    CHECK(as.bytes_queued == 0);
    if (gather) {
        printf("gathered: %llu payload references, %llu bytes\n",
               (unsigned long long)s->gather_refs, (unsigned long long)s->gather_bytes);
        CHECK(s->gather_refs > 0);
        printf("adopted: %llu messages\n", (unsigned long long)st.adopted);
        CHECK(st.adopted > 0);
    }
    sim_free(s);
    free(st.seen);
    printf(" No Errors\n");
    return 0;
}
