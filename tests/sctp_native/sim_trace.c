/* sim_trace.c — the shared recorder of the loss-recovery tests (sim_trace.h). */
#include "sim_trace.h"

#include <string.h>
#include <sys/uio.h>

struct sim_trace trace;

void sim_trace_reset(void)
{
    memset(&trace, 0, sizeof trace);
}

void sim_trace_on_event(void *user, const struct sctpn_event *ev)
{
    (void)user;
    if (ev->type == SCTPN_EV_ASSOC_UP)
        trace.ups++;
    CHECK(ev->type != SCTPN_EV_ASSOC_DOWN && ev->type != SCTPN_EV_SEND_FAILED);
}

void sim_trace_on_data(void *user, const struct sctpn_data *d)
{
    struct sim *s = user;
    if (d->last) {
        trace.delivered++;
        trace.t_delivered = s->now;
    }
}

int sim_trace_filter(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg)
{
    (void)arg;
    if (!trace.armed)
        return 1;
    if (dir == 1 && sim_has_chunk(pkt, len, 3) && trace.nsack < SIM_TRACE_MAX)
        trace.t_sack[trace.nsack++] = s->now;
    if (dir == 0 && sim_has_chunk(pkt, len, 0) && trace.ndata < SIM_TRACE_MAX) {
        int k = trace.ndata++;
        trace.tsn_data[k] = sim_first_tsn(pkt, len);
        trace.t_data[k] = s->now;
        if (trace.drop_mask & (1ull << k))
            return 0;
    }
    return 1;
}

void sim_trace_hook(struct sim *s, struct sctpn_config *c)
{
    c->on_event = sim_trace_on_event;
    c->on_data = sim_trace_on_data;
    c->user = s;
}

void sim_trace_connect(struct sim *s, const struct sctpn_config *c0,
                       const struct sctpn_config *c1, sctpn_assoc_id *id)
{
    sim_trace_reset();
    CHECK(sim_start(s, c0, c1) == 0);
    CHECK(sim_connect(s, id) == 0);
    CHECK(sim_run(s, s->now + 10000000, sim_trace_both_up, NULL));
}

int sim_trace_delivered(struct sim *s, void *arg)
{
    (void)s;
    return trace.delivered >= *(long *)arg;
}

int sim_trace_both_up(struct sim *s, void *arg)
{
    (void)s;
    (void)arg;
    return trace.ups == 2;
}

struct sctpn_assoc_stats sim_trace_stats(struct sim *s, sctpn_assoc_id id)
{
    struct sctpn_assoc_stats st;
    CHECK(sctpn_get_stats(s->ep[0], id, &st) == 0);
    return st;
}

void sim_trace_send(struct sim *s, sctpn_assoc_id id, size_t len)
{
    static uint8_t buf[65536];
    CHECK(len <= sizeof buf);
    struct iovec iov = {buf, len};
    CHECK(sctpn_send(s->ep[0], id, 0, 0, 0, &iov, 1, NULL) == 0);
}
