/* sim_trace.h — the recorder the single-path loss-recovery tests share (test_tlp.c,
 * test_rack.c): with the simulated network of sim.h it records the emission times (and first
 * TSNs) of node 0's DATA packets and of node 1's SACKs, drops the DATA packets named in a mask
 * once armed, and counts associations up and whole messages delivered. */
#ifndef SCTPN_SIM_TRACE_H
#define SCTPN_SIM_TRACE_H

#include "sim.h"

#define SIM_TRACE_MAX 64

struct sim_trace {
    int armed;              /* record and drop only after this is set */
    uint64_t drop_mask;     /* bit k: drop node 0's k-th DATA packet after arming */
    uint64_t t_data[SIM_TRACE_MAX]; /* emission times of node 0's DATA packets (dropped too) */
    uint32_t tsn_data[SIM_TRACE_MAX];
    int ndata;
    uint64_t t_sack[SIM_TRACE_MAX]; /* emission times of node 1's SACKs */
    int nsack;
    int ups;                /* SCTPN_EV_ASSOC_UP events */
    long delivered;         /* whole messages delivered */
    uint64_t t_delivered;   /* virtual time of the last delivery */
};

extern struct sim_trace trace;

void sim_trace_reset(void);
/* hooks: cfg.on_event / cfg.on_data (with cfg.user = the struct sim), s->filter */
void sim_trace_on_event(void *user, const struct sctpn_event *ev);
void sim_trace_on_data(void *user, const struct sctpn_data *d);
int sim_trace_filter(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg);
/* cfg.on_event / on_data / user set to the recorder's hooks for node's config */
void sim_trace_hook(struct sim *s, struct sctpn_config *c);
/* reset the recorder, start both nodes, connect node 0 to node 1 (*id) and run until both
 * ends are up; s->filter is the caller's (sim_trace_filter or a wrapper of it) */
void sim_trace_connect(struct sim *s, const struct sctpn_config *c0,
                       const struct sctpn_config *c1, sctpn_assoc_id *id);
/* sim_run stop conditions: trace.delivered >= *(long *)arg; both ends up */
int sim_trace_delivered(struct sim *s, void *arg);
int sim_trace_both_up(struct sim *s, void *arg);
/* node 0's view of association id */
struct sctpn_assoc_stats sim_trace_stats(struct sim *s, sctpn_assoc_id id);
/* node 0 sends one message of len bytes (at most 64 KiB) on stream 0 */
void sim_trace_send(struct sim *s, sctpn_assoc_id id, size_t len);

#endif
