/* netlab: the forwarder — one event-driven process that moves packets between the hosts' TUN
 * devices on each rail, applying each directed link's loss, rate, queue and delay rules. */
#ifndef NETLAB_FWD_H
#define NETLAB_FWD_H
#include "heap.h"
#include "topo.h"

#include <stdio.h>
#include <sys/types.h>

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
    uint32_t inflight;     /* packets held in the timer heap */
    int ge_bad;
    nl_counters c;
    FILE *pcap;
} nl_link;

typedef struct {
    nl_topo *topo;
    int *tunfd;           /* [rail * nhosts + host], non-blocking */
    int ctl_fd;           /* listening control socket, or -1 */
    const char *pcap_dir; /* where per-link captures go */
    uint32_t pcap_snaplen;
    size_t pool_mb; /* memory for packets held in flight */
    pid_t parent;   /* the supervisor; if it dies, on_orphan runs */
    void (*on_orphan)(void *arg);
    void *arg;
} nl_fwd_cfg;

typedef struct nl_fwd {
    nl_fwd_cfg cfg;
    nl_topo *t;
    nl_link *links;
    nl_stage *egress, *ingress; /* per [rail * nhosts + host]: the host's NIC, both directions */
    uint64_t *tun_rx_pkts, *tun_rx_bytes, *tun_unroutable;
    uint64_t pool_drops, heap_max;
    uint64_t late_n, late_sum_ns,
        late_max_ns; /* how late timed packets left vs. their release time */
    /* packet pool */
    unsigned char *pool;
    size_t slot_size;
    uint32_t nslots, next_unused, *freelist, nfree;
    nl_heap heap;
    uint32_t seq;
    uint64_t rng;
    uint64_t t0, rt_offset; /* start time (monotonic); realtime - monotonic */
    int next_event;
    int epfd, tfd, sfd;
    uint64_t armed;
    int quit;
} nl_fwd;

int nl_fwd_run(const nl_fwd_cfg *cfg);

/* Control commands (ctl.c): apply one command line to a running forwarder. */
int nl_ctl_exec(nl_fwd *f, const char *line, char *out, size_t outlen);
/* Client side: send a command to the control socket at path, print the reply; returns 0/1. */
int nl_ctl_client(const char *sockpath, const char *line);
/* Reconfigure the derived state of a link after its parameters changed. */
int nl_link_reconfigure(nl_fwd *f, size_t idx);

#endif
