/* test_shutdown_paths.c — graceful shutdown of a multihomed association whose primary path is
 * dead without either end knowing (no heartbeats, no data on it): RFC 9260 9.2 answers a
 * SHUTDOWN with a SHUTDOWN-ACK to the SHUTDOWN's source, and a SHUTDOWN-ACK with a
 * SHUTDOWN-COMPLETE to its source.  Node 0 sends its SHUTDOWN over rail 1 (its primary then);
 * node 1's primary is rail 0, and node 0 makes rail 0 its primary again before the
 * SHUTDOWN-ACK comes back.  Both replies must still take rail 1: nothing is sent on rail 0,
 * no T2-shutdown expires, no path changes state, and both ends see a clean SHUTDOWN. */
#include <string.h>

#include "sim.h"

struct node {
    int up, down, down_reason, path_events;
    sctpn_assoc_id id;
};
static struct node nodes[2];
static int shutdown_sent, shutdown_acks, shutdown_completes;

static void on_event(void *user, const struct sctpn_event *ev)
{
    struct node *n = user;
    switch (ev->type) {
    case SCTPN_EV_ASSOC_UP:
        n->up++;
        n->id = ev->assoc;
        break;
    case SCTPN_EV_ASSOC_DOWN:
        n->down++;
        n->down_reason = ev->reason;
        break;
    case SCTPN_EV_PATH_CHANGE:
        n->path_events++;
        break;
    default:
        break;
    }
}

static int filter(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)s;
    (void)arg;
    if (dir == 0 && sim_has_chunk(pkt, len, 7))
        shutdown_sent++;
    if (dir == 1 && sim_has_chunk(pkt, len, 8))
        shutdown_acks++;
    if (dir == 0 && sim_has_chunk(pkt, len, 14))
        shutdown_completes++;
    return 1;
}

static int both_up(struct sim *s, void *arg)
{
    (void)s;
    (void)arg;
    return nodes[0].up && nodes[1].up;
}
static int shutdown_out(struct sim *s, void *arg)
{
    (void)s;
    (void)arg;
    return shutdown_sent > 0;
}
static int both_down(struct sim *s, void *arg)
{
    (void)s;
    (void)arg;
    return nodes[0].down && nodes[1].down;
}

int main(void)
{
    struct sim s;
    sim_init(&s, 2, 5);
    struct sctpn_config c[2];
    for (int i = 0; i < 2; i++) {
        sim_config(&s, i, &c[i]);
        c[i].hb_interval_us = 0; /* nobody probes rail 0: its death goes unnoticed */
        c[i].on_event = on_event;
        c[i].user = &nodes[i];
    }
    CHECK(sim_start(&s, &c[0], &c[1]) == 0);
    sctpn_assoc_id id;
    CHECK(sim_connect(&s, &id) == 0);
    CHECK(sim_run(&s, s.now + 10000000, both_up, NULL));
    sim_run(&s, s.now + 200000, NULL, NULL); /* the address-confirming heartbeats */
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s.ep[1], nodes[1].id, &st) == 0);
    CHECK(st.npaths == 2 && st.paths[0].primary && st.paths[1].confirmed);
    CHECK(sctpn_get_stats(s.ep[0], id, &st) == 0);
    CHECK(st.npaths == 2 && st.paths[0].primary && st.paths[1].confirmed);

    s.link[0][0].down = s.link[1][0].down = 1; /* rail 0 dies, both ways */
    s.filter = filter;
    CHECK(sctpn_set_primary(s.ep[0], id, 1) == 0);
    CHECK(sctpn_shutdown(s.ep[0], id, s.now) == 0);
    uint64_t rail0_out0 = s.link[0][0].sent, rail0_out1 = s.link[1][0].sent, t0 = s.now;
    CHECK(sim_run(&s, s.now + 1000000, shutdown_out, NULL));
    CHECK(sctpn_set_primary(s.ep[0], id, 0) == 0); /* the dead rail, as far as node 0 knows */
    CHECK(sim_run(&s, s.now + 10000000, both_down, NULL));
    printf("shutdown over rail 1 with rail 0 dead: done after %.1f virtual ms; SHUTDOWN %d, "
           "SHUTDOWN-ACK %d, SHUTDOWN-COMPLETE %d; packets on rail 0: node 0 %llu, node 1 %llu; "
           "path events %d/%d\n", (s.now - t0) / 1e3, shutdown_sent, shutdown_acks,
           shutdown_completes, (unsigned long long)(s.link[0][0].sent - rail0_out0),
           (unsigned long long)(s.link[1][0].sent - rail0_out1), nodes[0].path_events,
           nodes[1].path_events);
    CHECK(nodes[0].down_reason == SCTPN_DOWN_SHUTDOWN && nodes[1].down_reason == SCTPN_DOWN_SHUTDOWN);
    CHECK(s.link[1][0].sent == rail0_out1); /* the SHUTDOWN-ACK went where the SHUTDOWN came from */
    CHECK(s.link[0][0].sent == rail0_out0); /* the SHUTDOWN-COMPLETE likewise */
    CHECK(shutdown_sent == 1 && shutdown_acks == 1 && shutdown_completes == 1); /* no T2 */
    CHECK(nodes[0].path_events == 0 && nodes[1].path_events == 0);
    sim_free(&s);
    printf(" No Errors\n");
    return 0;
}
