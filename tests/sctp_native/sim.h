/* sim.h — a deterministic simulated network with a virtual clock for the sctpn engine tests:
 * two endpoints joined by R rails, each direction of each rail a link with one-way delay,
 * Bernoulli loss, reordering (extra random delay), duplication, bandwidth, "down" and
 * "drop DATA only" (grey failure) switches, plus an optional per-packet filter. */
#ifndef SCTPN_SIM_H
#define SCTPN_SIM_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sctpn.h"

#define SIM_MAX_RAILS 4
#define SIM_NEVER UINT64_MAX

struct sim_link {
    uint64_t delay_us;
    double loss, dup, reorder; /* probabilities per packet */
    uint64_t reorder_us;       /* extra delay of a reordered packet: uniform in [0, reorder_us] */
    uint64_t bw_bps;           /* 0 = infinite */
    int down;                  /* drop everything */
    int drop_data_only;        /* drop packets carrying DATA/I-DATA (grey failure) */
    uint64_t busy_until;
    uint64_t sent, dropped;
};

struct sim_pkt {
    uint64_t at, seq;
    int dst;
    struct sctpn_addr from, to;
    size_t len;
    uint8_t data[];
};

struct sim;
/* filter: called for each packet a node emits (dir 0 = node 0 -> node 1); return 0 to drop */
typedef int (*sim_filter)(struct sim *s, int dir, uint8_t *pkt, size_t len, void *arg);

struct sim {
    uint64_t now;
    uint64_t rng;
    sctpn_endpoint *ep[2];
    struct sctpn_addr addr[2][SIM_MAX_RAILS];
    int rails;
    struct sim_link link[2][SIM_MAX_RAILS]; /* [dir][rail] */
    struct sim_pkt **heap;
    size_t nheap, capheap;
    uint64_t seq;
    sim_filter filter;
    void *filter_arg;
    int filter_rail;           /* the rail of the packet the filter is looking at */
    void (*pump)(struct sim *s, void *arg); /* called every step (e.g. to queue sends) */
    void *pump_arg;
    uint64_t packets, bytes;
    /* gather > 0: packets are pulled with sctpn_poll_transmit_refs (at most gather payload
     * references each), checked (order, bounds, checksum) and reassembled before they travel */
    int gather;
    uint64_t gather_refs, gather_bytes;
};

void sim_init(struct sim *s, int rails, uint64_t seed);
/* the default test configuration for node i (port, addresses of its rails, small RTO) */
void sim_config(struct sim *s, int node, struct sctpn_config *cfg);
int sim_start(struct sim *s, const struct sctpn_config *c0, const struct sctpn_config *c1);
/* connect node 0 to node 1 over all rails */
int sim_connect(struct sim *s, sctpn_assoc_id *id);
/* run until stop(arg) is true or the virtual clock passes until_us; returns 1 if stopped */
int sim_run(struct sim *s, uint64_t until_us, int (*stop)(struct sim *, void *), void *arg);
void sim_free(struct sim *s);
double sim_rand01(struct sim *s);
uint64_t sim_rand(struct sim *s);
/* does the packet carry a chunk of this type */
int sim_has_chunk(const uint8_t *pkt, size_t len, uint8_t type);

/* hand-driven traffic (no simulated links): captured packets moved by the test itself */
struct sim_cap {
    uint8_t data[2048];
    size_t len;
    struct sctpn_addr from, to;
};
/* collect every packet ep wants to send now (at most max) */
int sim_pull(sctpn_endpoint *ep, uint64_t now, struct sim_cap *out, int max);
int sim_push(sctpn_endpoint *ep, const struct sim_cap *p, uint64_t now);
/* the TSN of the first DATA chunk in a packet (0 if none) */
uint32_t sim_first_tsn(const uint8_t *pkt, size_t len);

#define CHECK(cond)                                                                            \
    do {                                                                                       \
        if (!(cond)) {                                                                         \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);           \
            exit(1);                                                                           \
        }                                                                                      \
    } while (0)

#endif
