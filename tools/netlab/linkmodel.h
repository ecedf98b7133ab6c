/* netlab: the link model — what happens to one packet on one directed link of a topology
 * (link state, MTU, Bernoulli and Gilbert-Elliott loss, drop-tail queues and serialisation at
 * the sender's NIC, the link and the receiver's NIC, propagation delay and jitter, the
 * no-reorder rule) and the link commands (set/down/up/show) that change it.  Sans-IO: time is
 * an input (ns on any clock), no packet is stored here.  Used by netlab's forwarder (fwd.c,
 * real time) and by the simulator (tools/simnet, virtual time). */
#ifndef NETLAB_LINKMODEL_H
#define NETLAB_LINKMODEL_H
#include "topo.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct {
    uint64_t fwd_pkts, fwd_bytes;
    uint64_t drop_loss, drop_queue, drop_down, drop_mtu, drop_other;
} nl_counters;

/* A serialisation stage: a drop-tail queue in front of a transmitter of a given rate. */
typedef struct {
    uint64_t busy_until; /* ns: end of serialisation of the last accepted packet */
    uint64_t *qring;     /* serialisation end times of packets still waiting (drop-tail count) */
    uint32_t qcap, qhead, qcount;
    uint64_t drops;
} nl_stage;

/* Run-time state of one directed link. */
typedef struct {
    nl_params p;
    nl_stage st;
    uint64_t last_release; /* ns: release time of the last accepted packet (no-reorder rule) */
    uint32_t inflight;     /* packets accepted and not yet released (kept by the user) */
    int ge_bad;
    nl_counters c;
    FILE *pcap;
} nl_link;

/* Every directed link of a topology plus the hosts' NIC stages and the loss/jitter PRNG. */
typedef struct {
    const nl_topo *t;
    nl_link *links;             /* [rail][src][dst] (nl_link_index) */
    nl_stage *egress, *ingress; /* per [rail * nhosts + host]: the host's NIC, both directions */
    uint64_t rng;
    const char *pcap_dir; /* where per-link captures go (links with pcap=1), NULL = none */
    uint32_t pcap_snaplen;
} nl_model;

/* Outcome of nl_model_admit. */
enum { NL_PASS = 0, NL_DROP_DOWN, NL_DROP_MTU, NL_DROP_LOSS, NL_DROP_QUEUE };

int nl_model_init(nl_model *m, const nl_topo *t, const char *pcap_dir, uint32_t snaplen);
void nl_model_free(nl_model *m); /* closes the captures */
/* Reconfigure the derived state of link idx after its parameters changed (queue size, G-E
 * state, capture file). */
int nl_model_reconfigure(nl_model *m, size_t idx);
/* A packet of len bytes (IP packet) enters link (rail, src -> dst) at time now: returns NL_PASS
 * with its release time at the receiver in *release, or the NL_DROP_* reason (counted). */
int nl_model_admit(nl_model *m, int rail, int src, int dst, uint32_t len, uint64_t now,
                   uint64_t *release);
/* Apply a link command "show|set|down|up SEL [k=v ...]" (scheduled events, control socket);
 * the reply ("ok N links", the show lines, or "error: ...") goes to out.  Returns 0 or -1. */
int nl_model_command(nl_model *m, int argc, char **argv, char *out, size_t outlen);

/* A reply being written into a fixed buffer: nl_sb appends with printf formatting and stops
 * (keeping the terminating NUL) when the buffer is full. */
typedef struct {
    char *buf;
    size_t cap, len;
} nl_sbuf;
void nl_sb(nl_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

uint64_t nl_rng_next(uint64_t *s);
double nl_rng_unit(uint64_t *s);

#endif
