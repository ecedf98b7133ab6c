/* test_multipath.c — multihoming of the sctpn engine over two simulated rails:
 *  - failover: rail 0 dies for good in the middle of a transfer; every message still arrives
 *    once, in order, intact, the dead path is reported (PATH_CHANGE to PF/FAILED) and the
 *    rest of the data flows over rail 1;
 *  - grey failure: rail 0 keeps passing heartbeats and SACKs but drops every packet with DATA;
 *    the transfer must still finish (no permanent stall) within a bounded virtual time;
 *  - CMT: with concurrent multipath transfer both rails carry data (split fast retransmit,
 *    per-path cwnd), everything arrives intact and in order, also when a rail dies;
 *  - address confirmation: a peer address that never answers a heartbeat (rail 1 dead from
 *    the start) never carries data, and its failures do not bring the association down. */
#include <string.h>

#include "sim.h"

#define NSTREAMS 8

struct mp {
    struct sim sim;
    sctpn_assoc_id id;
    int up;
    uint64_t n, sent, done, received;
    uint32_t out_seq[NSTREAMS], in_seq[NSTREAMS];
    uint64_t cur_off[NSTREAMS];
    uint32_t cur_id[NSTREAMS];
    int path_events[2][4];
    uint64_t fail_at;     /* virtual time rail 0 fails (0: never) */
    int fail_mode;        /* 1 = down, 2 = drop DATA only, 3 = rail 1 down from the start */
    int failed;
};
static uint8_t pattern[8192];

static uint32_t mlen(uint32_t id) { return 8 + (id * 2654435761u >> 7) % (id % 50 ? 600 : 4000); }

static void on_event(void *user, const struct sctpn_event *ev)
{
    struct mp *m = user;
    switch (ev->type) {
    case SCTPN_EV_ASSOC_UP: m->up++; break;
    case SCTPN_EV_SEND_DONE: m->done++; break;
    case SCTPN_EV_PATH_CHANGE:
        if (ev->path < 2 && ev->path_state < 4)
            m->path_events[ev->path][ev->path_state]++;
        break;
    case SCTPN_EV_SEND_FAILED:
    case SCTPN_EV_ASSOC_DOWN:
        fprintf(stderr, "unexpected event %d (reason %d)\n", ev->type, ev->reason);
        exit(1);
    default: break;
    }
}

static void on_data(void *user, const struct sctpn_data *d)
{
    struct mp *m = user;
    CHECK(!d->unordered && d->stream < NSTREAMS);
    uint16_t s = d->stream;
    const uint8_t *p = d->data;
    uint64_t i0 = 0;
    if (d->first) {
        uint32_t id;
        CHECK(d->len >= 8 && d->msg_offset == 0);
        memcpy(&id, p, 4);
        uint32_t seq;
        memcpy(&seq, p + 4, 4);
        CHECK(seq == m->in_seq[s]);
        m->in_seq[s]++;
        m->cur_id[s] = id;
        m->cur_off[s] = 0;
        i0 = 8;
    }
    CHECK(d->msg_offset == m->cur_off[s]);
    for (uint64_t i = i0; i < d->len; i++)
        CHECK(p[i] == pattern[(m->cur_id[s] + d->msg_offset + i) % sizeof pattern]);
    m->cur_off[s] += d->len;
    if (d->last) {
        CHECK(m->cur_off[s] == mlen(m->cur_id[s]));
        m->received++;
    }
}

static void pump(struct sim *s, void *arg)
{
    struct mp *m = arg;
    if (m->fail_at && !m->failed && s->now >= m->fail_at) {
        m->failed = 1;
        for (int d = 0; d < 2; d++) {
            if (m->fail_mode == 1)
                s->link[d][0].down = 1;
            else if (d == 0)
                s->link[d][0].drop_data_only = 1;
        }
    }
    if (!m->up)
        return;
    while (m->sent < m->n) {
        uint32_t id = (uint32_t)m->sent, len = mlen(id);
        uint16_t st = (uint16_t)(id % NSTREAMS);
        uint8_t *buf = malloc(len);
        CHECK(buf);
        memcpy(buf, &id, 4);
        memcpy(buf + 4, &m->out_seq[st], 4);
        for (uint32_t i = 8; i < len; i++)
            buf[i] = pattern[(id + i) % sizeof pattern];
        struct iovec iov = {buf, len};
        int rc = sctpn_send(s->ep[0], m->id, st, 0, 0, &iov, 1, buf);
        if (rc == SCTPN_EAGAIN) {
            free(buf);
            return;
        }
        CHECK(rc == 0);
        m->out_seq[st]++;
        m->sent++;
    }
}

static void on_event_free(void *user, const struct sctpn_event *ev)
{
    if (ev->type == SCTPN_EV_SEND_DONE)
        free(ev->cookie);
    on_event(user, ev);
}

static int finished(struct sim *s, void *arg)
{
    (void)s;
    struct mp *m = arg;
    return m->received == m->n && m->done == m->n;
}

static void run(const char *name, int cmt, int fail_mode, uint64_t fail_after, uint64_t n,
                uint64_t limit_s)
{
    static struct mp m;
    memset(&m, 0, sizeof m);
    m.n = n;
    struct sim *s = &m.sim;
    sim_init(s, 2, 77 + (uint64_t)fail_mode * 3 + (uint64_t)cmt);
    for (int d = 0; d < 2; d++) {
        s->link[d][0].delay_us = 1000;
        s->link[d][1].delay_us = 3000; /* the rails differ */
        for (int r = 0; r < 2; r++) {
            s->link[d][r].loss = 0.01;
            s->link[d][r].bw_bps = 1000000000;
        }
    }
    struct sctpn_config c0, c1;
    sim_config(s, 0, &c0);
    sim_config(s, 1, &c1);
    c0.cmt = c1.cmt = (uint8_t)cmt;
    c0.on_event = c1.on_event = on_event_free;
    c0.on_data = c1.on_data = on_data;
    c0.user = c1.user = &m;
    c0.hb_interval_us = c1.hb_interval_us = 100000;
    CHECK(sim_start(s, &c0, &c1) == 0);
    if (fail_mode == 3) /* only the first address is given; the second comes from INIT-ACK */
        CHECK(sctpn_connect(s->ep[0], 5001, s->addr[1], 1, s->addr[0], 2, s->now, &m.id) == 0);
    else
        CHECK(sim_connect(s, &m.id) == 0);
    s->pump = pump;
    s->pump_arg = &m;
    m.fail_mode = fail_mode;
    m.fail_at = fail_mode && fail_mode < 3 ? s->now + fail_after : 0;
    if (fail_mode == 3)
        s->link[0][1].down = s->link[1][1].down = 1;
    uint64_t t0 = s->now;
    int ok = sim_run(s, t0 + limit_s * 1000000, finished, &m);
    if (fail_mode == 3) /* a minute more: the dead address must not kill the association */
        sim_run(s, s->now + 60000000, NULL, NULL);
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s->ep[0], m.id, &st) == 0);
    printf("%s: %llu/%llu messages in %.3f virtual s; path0 %s out %llu T3 %llu cwnd %u, "
           "path1 %s out %llu T3 %llu cwnd %u; fast rtx %llu; path events 0:pf%d/failed%d/"
           "active%d\n", name, (unsigned long long)m.received, (unsigned long long)m.n,
           (s->now - t0) / 1e6,
           st.paths[0].state == 1 ? "active" : st.paths[0].state == 2 ? "PF" : "failed",
           (unsigned long long)st.paths[0].packets_out, (unsigned long long)st.paths[0].t3_timeouts,
           st.paths[0].cwnd, st.paths[1].state == 1 ? "active" : "inactive",
           (unsigned long long)st.paths[1].packets_out, (unsigned long long)st.paths[1].t3_timeouts,
           st.paths[1].cwnd, (unsigned long long)st.fast_retransmits,
           m.path_events[0][SCTPN_PATH_PF], m.path_events[0][SCTPN_PATH_FAILED],
           m.path_events[0][SCTPN_PATH_ACTIVE]);
    CHECK(ok);
    CHECK(st.npaths == 2);
    if (fail_mode == 1) { /* the dead path was noticed and abandoned */
        CHECK(m.path_events[0][SCTPN_PATH_PF] + m.path_events[0][SCTPN_PATH_FAILED] > 0);
        CHECK(st.paths[0].state != SCTPN_PATH_ACTIVE);
        CHECK(st.paths[1].packets_out > 100);
    }
    if (fail_mode == 2)
        CHECK(st.paths[1].packets_out > 100);
    if (fail_mode == 3) { /* never confirmed: only heartbeats went there, the association lives */
        CHECK(!st.paths[1].confirmed && st.paths[0].confirmed);
        CHECK(st.paths[1].packets_out == st.paths[1].heartbeats_out);
        CHECK(st.paths[1].heartbeats_out > 3 && st.state == SCTPN_ESTABLISHED);
    } else {
        CHECK(st.paths[0].confirmed && st.paths[1].confirmed);
    }
    if (cmt && !fail_mode) { /* both rails carried a fair share */
        uint64_t p0 = st.paths[0].packets_out, p1 = st.paths[1].packets_out;
        CHECK(p0 > (p0 + p1) / 10 && p1 > (p0 + p1) / 10); /* rail 1 is 3x slower */
    }
    sim_free(s);
}

int main(void)
{
    for (size_t i = 0; i < sizeof pattern; i++)
        pattern[i] = (uint8_t)(i * 131 + (i >> 9));
    run("failover", 0, 1, 300000, 20000, 120);
    run("grey failure", 0, 2, 300000, 20000, 300);
    run("cmt", 1, 0, 0, 20000, 120);
    run("cmt failover", 1, 1, 300000, 20000, 120);
    run("cmt grey failure", 1, 2, 300000, 20000, 300);
    run("unconfirmed address", 1, 3, 0, 20000, 300);
    printf(" No Errors\n");
    return 0;
}
