/* netlab: the forwarder — one event-driven process that moves packets between the hosts' TUN
 * devices on each rail, applying each directed link's loss, rate, queue and delay rules. */
#ifndef NETLAB_FWD_H
#define NETLAB_FWD_H
#include "heap.h"
#include "linkmodel.h"
#include "topo.h"

#include <stdio.h>
#include <sys/types.h>

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
    nl_model m; /* links, NIC stages, PRNG (linkmodel.h) */
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

#endif
