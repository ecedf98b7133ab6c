/* simnet.h — state of the network simulator (tools/simnet/): every rank of an MPI job keeps its
 * MPI engine in its own process, but its SCTP endpoint lives here (our sctpn engine, one
 * endpoint per rank), the packets between the endpoints pass through the topology's links
 * (netlab's link model, tools/netlab/linkmodel.c), and one virtual clock orders everything
 * through one event queue.  Design and sync protocol: docs/simulation.md. */
#ifndef SIMNET_H
#define SIMNET_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "linkmodel.h"
#include "sctpn.h"
#include "transport/sim/sim_proto.h"

#define SN_PORT_BASE 10000 /* rank r's UDP port (encapsulation) is SN_PORT_BASE + r */
#define SN_SCTP_PORT 5001  /* SCTP port of every endpoint (as transport/sctpn) */
#define SN_PPID_FRAME 0x534d4631u
#define SN_NEVER UINT64_MAX

/* ---- the event queue: one binary heap ordered by (t, cls, id, seq) ---- */
enum sn_kind { EV_PKT, EV_TIMER, EV_TOPO, EV_SEND, EV_CHECK, EV_WAKE, EV_BATCH };
/* cls 0: network events (id 0, seq = global counter); cls 1: a rank's sends, cls 2: a rank's
 * progress checks and wake-ups (id = rank, seq = the rank's own counter).  The order depends
 * only on virtual times and on the order of each rank's own messages, never on when a message
 * reached us in real time. */
struct sn_key {
    uint64_t t;
    uint32_t cls, id;
    uint64_t seq;
};
struct sn_ev {
    struct sn_key k;
    int kind;
    int rank;     /* EV_TIMER, EV_SEND, EV_CHECK, EV_WAKE, EV_BATCH */
    uint64_t gen; /* EV_TIMER / EV_WAKE: valid only while it matches the rank's */
    int64_t arg;  /* EV_CHECK: timeout ns; EV_TOPO: event index */
    void *data;   /* EV_PKT: struct sn_pkt; EV_SEND: struct sn_frame */
};
struct sn_heap {
    struct sn_ev *a;
    size_t n, cap;
};
int sn_key_less(const struct sn_key *a, const struct sn_key *b);
int sn_heap_push(struct sn_heap *h, const struct sn_ev *e);
struct sn_ev sn_heap_pop(struct sn_heap *h);

/* a packet on its way (IP addresses are 198.18.RAIL.HOST+1, as netlab's) */
struct sn_pkt {
    struct sctpn_addr from, to;
    int dst;                      /* receiving rank */
    int rail, src_host, dst_host; /* dst_host == src_host: the host's loopback */
    uint32_t len;
    uint8_t data[];
};

/* an engine frame: to send (peer = destination) or delivered (peer = source) */
struct sn_frame {
    struct sn_frame *next;
    int peer;
    uint32_t lane;
    int failed;    /* delivered: not a frame; 1: the association to peer failed, 2: SENT */
    int64_t token; /* to send: the rank's token (SENT when acknowledged), 0 none; SENT: it */
    uint32_t len;
    uint8_t data[];
};

enum sn_state { SN_CONNECTING, SN_RUN, SN_WAITING, SN_BLOCKED, SN_DONE };

/* a real rank spins this long in a progress call before it sleeps in the kernel (the transport's
 * default SCTPMPI_SPIN_US): until then a packet finds it awake */
#define SN_SPIN_NS 50000

struct sn_rx { /* a message being reassembled */
    sctpn_assoc_id assoc;
    uint16_t stream;
    uint8_t *buf;
    size_t len, cap;
};

struct sn_rank {
    int rank, fd, host;
    enum sn_state state;
    uint64_t vt;       /* the rank's last reported virtual time (ns) */
    uint64_t next_seq; /* the key seq of its next message */
    uint64_t wake_gen, end_vt;
    int bye;
    /* network side */
    sctpn_endpoint *ep;
    uint64_t timer_at, timer_gen;
    int batch_open;      /* SCTPMPI_SIM_BATCH_NS: the rank is waking up; its input is batched */
    uint64_t blocked_at; /* when it last blocked in a progress call */
    sctpn_assoc_id *tx;  /* [peer] our association to peer (0: none yet) */
    struct sn_frame **qh, **qt; /* [peer] frames waiting for send-buffer room */
    size_t nqueued;             /* frames in those queues */
    sctpn_assoc_id *amap_id;    /* assoc id -> peer rank (open addressing) */
    int *amap_rank;
    size_t amap_cap, amap_n;
    struct sn_rx *rx;
    size_t nrx, caprx;
    struct sn_frame *dh, *dt; /* delivered frames not yet handed to the rank */
    size_t ndelivered;
    /* socket input */
    uint8_t *in;
    size_t inlen, incap;
    uint64_t frames_in, frames_out;
};

struct sn_sim {
    int n;
    nl_topo topo;
    nl_model model;
    struct sn_rank *ranks;
    struct sn_heap heap;
    uint64_t now, netseq;
    uint64_t events, packets, drops, local_ns, hop_ns;
    uint64_t batch_ns; /* a rank asleep in the kernel wakes this long after a first packet; its
                        * stack takes in what arrived by then and sends its output (SACKs) once */
    int p2p_lanes, rma_lanes, nstreams;
    size_t max_payload;
    int sack_imm;             /* SCTPMPI_SCTP_SACK_IMMEDIATELY: I-bit on small frames */
    size_t sack_imm_max;      /* ... up to this size */
    struct sctpn_config base; /* endpoint configuration shared by every rank */
    int epfd;
    int nwake;
    int *wake; /* ranks that got a delivery while blocked (woken after the event) */
    int failed;
    int ndone;              /* ranks in SN_DONE */
    uint64_t last_activity; /* virtual time of the last frame sent or delivered */
    uint64_t idle_limit;    /* every rank blocked this long without activity: deadlock */
    int woken; /* a rank was answered (runs again) during the current event; smallest key of */
    struct sn_key woken_key; /* its next message */
};

/* net.c: endpoints, links, deliveries */
int sn_net_init(struct sn_sim *s);
void sn_net_free(struct sn_sim *s);
void sn_net_send(struct sn_sim *s, int r, struct sn_frame *f);
void sn_net_packet(struct sn_sim *s, struct sn_pkt *p);
void sn_net_timer(struct sn_sim *s, int r);
void sn_net_batch_end(struct sn_sim *s, int r);
void sn_net_topo_event(struct sn_sim *s, int idx);
void sn_push(struct sn_sim *s, struct sn_ev *e);

/* ranks.c: the protocol with the ranks */
void sn_rank_check(struct sn_sim *s, int r, int64_t timeout_ns);
void sn_rank_wake(struct sn_sim *s, int r);
void sn_rank_delivered(struct sn_sim *s, int r, struct sn_frame *f);

#endif
