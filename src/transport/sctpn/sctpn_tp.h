/* sctpn_tp.h — state shared by the files of the native SCTP transport (src/transport/sctpn/):
 * the transport table over our own sans-IO SCTP engine (src/sctp_native/, "sctpn").
 *
 * Design (docs/sctp-native.md, "The MPI transport"):
 *  - One sctpn endpoint per process over our own UDP socket(s), one per local address (RFC 6951
 *    encapsulation).  No threads: progress() reads datagrams (recvmmsg), feeds them to the
 *    engine with the current time, runs its timers and sends what it has to send (sendmmsg).
 *  - One association per peer rank for our sends, set up lazily on the first send; the peer may
 *    set up its own towards us (simultaneous first sends): frames arrive on either.
 *  - Lane L = stream L (lane 0, the control lane = stream 0); single-stream mode: all on 0.
 *    The RMA lanes (SM_F_RMA frames, engine/rma_channel.h) are the SCTPMPI_SCTP_RMA_STREAMS
 *    streams after the point-to-point ones.  The watchdog thread delivers whole RMA frames
 *    straight to the engine's rma_frame upcall (strong progress); everything else it defers.
 *  - Every stream of an association starts with a hello (rank + job secret); frames on a stream
 *    whose hello did not pass are refused and the association is aborted.  A process of
 *    another job (dynamic processes: peer index >= size, add_peer) gets the hello "SMHX" instead:
 *    our rank and job id and the secret of ITS job; a hello from an unknown such process is
 *    handled only in progress() (the engine is asked through peer_lookup), never by the
 *    watchdog, which defers it like any other delivery.
 *  - Engine frames are SCTP messages.  DATA frames (rendezvous segments) are placed straight
 *    from the wire into the receive buffer the engine names; other frames are gathered and
 *    handed over whole (frame_begin, copy, frame_end without other upcalls between).
 *  - Small frames are copied at send(); large ones (>= SCTPMPI_SCTP_ZCOPY_MIN) stay in the
 *    caller's memory until the peer acknowledged them (send() returns 1, send_done later).
 *  - Rails (SCTPMPI_SCTP_STRIPE=1, docs/sctp-native.md "Striping over rails"): every
 *    association is single-homed; rail r to a peer is our own association from our address r
 *    to its address r (rails = min(ours, theirs)); lane = SM_LANE(rail, stream) picks both.
 *    Losing any rail's association loses the peer (its other rails are aborted). */
#ifndef SCTPMPI_SCTPN_TP_H
#define SCTPMPI_SCTPN_TP_H

#include <netinet/in.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include "engine/wire.h"
#include "sctpn.h"
#include "transport/hello.h"
#include "transport/transport.h"
#include "transport/txq.h"
#include "transport/udp_offload.h"
#include "transport/udp_socket.h"
#include "util/util.h"

#define NT_PPID_FRAME 0x534d4631u  /* "SMF1": one engine frame per SCTP message */
#define NT_PPID_HELLO 0x534d4831u  /* "SMH1": rank + job secret, first on every stream */
#define NT_PPID_HELLOX 0x534d4858u /* "SMHX": the hello to a process of another job */
#define NT_SCTP_PORT 5001          /* SCTP port inside the UDP encapsulation (all ranks) */
#define NT_MAX_ADDRS SCTPN_MAX_PATHS
#define NT_MAX_STREAMS 256
#define NT_SECRET_MAX SM_HELLO_SECRET_MAX
#define NT_BATCH 32
#define NT_TX_REFS 8             /* payload references per packet (sctpn_poll_transmit_refs) */
#define NT_TXIOV (NT_BATCH * 32) /* iovecs of one send batch */
#define NT_MSG_IOV_MAX 1024      /* iovecs of one message (the kernel's UIO_MAXIOV) */
#define NT_MAX_RAILS NT_MAX_ADDRS

struct nt_tunables {
    int streams;     /* data streams; 1 = single stream */
    int rma_streams; /* SCTPMPI_SCTP_RMA_STREAMS: streams for SM_F_RMA frames after them */
    size_t sndbuf, rwnd, udpbuf, max_payload, zcopy_min;
    int mtu; /* 0 = from the interfaces */
    int port;
    int rto_initial, rto_min, rto_max, hb_interval, path_max_retrans, assoc_max_retrans;
    int pf_threshold, sack_delay_ms, max_burst;
    int lan_hb_interval; /* ms; heartbeat interval of idle LAN paths (0: hb_interval) */
    int cmt, idata, zero_checksum;
    int stripe;               /* SCTPMPI_SCTP_STRIPE: one single-homed association per rail */
    int cmt_dac;              /* SCTPMPI_SCTP_CMT=dac: delayed ack for CMT */
    char cmt_unsupported[32]; /* an SCTPMPI_SCTP_CMT value the engine lacks (nt_init fails) */
    int sack_immediately; /* SCTPMPI_SCTP_SACK_IMMEDIATELY: I-bit on frames up to sack_imm_max */
    size_t sack_imm_max;
    int linger_ms;
    int watchdog_us; /* SCTPMPI_SCTP_WATCHDOG_US: strong-progress tick, 0 = off */
    int debug;
    enum sm_offload_mode gso, gro; /* SCTPMPI_SCTP_GSO / SCTPMPI_SCTP_GRO */
    int tx_refs;     /* SCTPMPI_SCTP_TX_GATHER: payload references per packet (0: copies) */
    int cc;          /* SCTPMPI_SCTP_CC: enum sctpn_cc_algo */
    char cc_bad[32]; /* an SCTPMPI_SCTP_CC value that is none of them (nt_init fails) */
};

/* a frame waiting for send-buffer space (per lane, in order) */
/* receive state of one (association, incoming stream) */
struct nt_rx {
    int authed;
    int in_msg; /* a message is being received */
    int bad;    /* discard the rest of the current message */
    size_t got; /* bytes of the current message so far */
    unsigned char hdr[sizeof(struct sm_frame_hdr)];
    void *dst;         /* DATA frame: where the payload goes (engine's) */
    char *buf;         /* our buffer for the payload (or whole message) */
    unsigned deferred; /* RMA stream: pieces waiting in the deferred queue */
};

/* one association we know of (ours to a peer, or a peer's to us) */
struct nt_assoc {
    sctpn_assoc_id id;
    int rank; /* -1 until a hello told us */
    int rail; /* index of our local address it uses (0 unstriped) */
    int up, down;
    int nin;          /* incoming streams */
    struct nt_rx *rx; /* [nin] */
};

enum nt_peer_state { NT_IDLE = 0, NT_CONNECTING, NT_UP, NT_CLOSED, NT_FAILED };

struct nt_peer {
    int rank;
    struct sctpn_addr addrs[NT_MAX_ADDRS];
    int naddrs;
    int zero_checksum; /* card says it accepts zero checksums */
    int nrails;        /* rails to this peer: min(ours, theirs), 1 unstriped */
    enum nt_peer_state state;
    sctpn_assoc_id tx[NT_MAX_RAILS]; /* per rail: the association our frames use */
    unsigned char *hello_sent;       /* [rail * nstreams + stream] on tx[rail] */
    struct sm_txq *q;                /* [rail * nlanes + lane] frames waiting for room */
    size_t q_frames;
    unsigned retry_turn;          /* nt_retry_queued: which queue goes first */
    size_t q_bytes[NT_MAX_RAILS]; /* bytes in a rail's queues */
    uint64_t tx_frames, tx_bytes, rx_frames, rx_bytes, zcopy_frames, eagain;
    uint64_t rail_tx_frames[NT_MAX_RAILS], rail_tx_bytes[NT_MAX_RAILS];
    uint64_t rail_rx_frames[NT_MAX_RAILS], rail_rx_bytes[NT_MAX_RAILS];
    char fail_why[128]; /* why it failed (handed over with a deferred failure) */
    /* a process of another job (index >= size; add_peer): its identity and the secret its job
     * admits (presented in our "SMHX" hellos); naddrs 0 while its card is unknown */
    int dynamic;
    uint32_t job;
    int drank;
    char dsecret[NT_SECRET_MAX];
};

struct nt_transport {
    int rank, size;
    const struct sm_upcalls *up;
    char secret[NT_SECRET_MAX];
    struct nt_tunables tu;
    int nstreams, nlanes;
    int p2p_lanes; /* lanes() (control + data); RMA lanes follow (rma.c) */
    int nrails;    /* local rails: our addresses with striping, else 1 */
    size_t max_payload;
    struct sm_udp_sock udp[NT_MAX_ADDRS];
    int nudp;
    int mtu;
    sctpn_endpoint *ep;
    struct nt_peer *peers; /* [npeers]: the job's ranks, then other jobs' processes */
    int npeers, cap_peers;
    uint32_t job_id;         /* this job's identity (the "SMHX" hello) */
    struct nt_assoc *assocs; /* all associations, dense array */
    int nassocs, cap_assocs;
    int in_progress; /* inside progress() on the caller's thread: upcalls allowed */
    int in_drive;    /* inside nt_drive: send() must not flush (t->mmbuf) */
    struct nt_deferred *dq_head, *dq_tail; /* deliveries waiting for progress() (in order) */
    uint64_t deferred_total;
    /* strong progress: a watchdog thread drives the endpoint while the application computes */
    pthread_mutex_t lock; /* held around every use of the endpoint */
    pthread_t watchdog;
    int watchdog_on;
    atomic_int stop_watchdog;
    _Atomic uint64_t last_call_us; /* last time the caller's thread drove the endpoint */
    uint64_t watchdog_runs;
    uint64_t path_events; /* PATH_CHANGE events seen */
    /* events raised outside progress (inside send()), handed over at the next progress */
    void **done_cookies;
    size_t ndone, cap_done;
    int *failed_ranks;
    int nfailed, cap_failed;
    int finalizing;
    uint64_t rx_datagrams, tx_datagrams, rx_bad, rejected, tx_lost, tx_dropped_test;
    double tu_test_drop;    /* SCTPMPI_SCTP_TEST_DROP, percent */
    long tu_test_upcall_us; /* SCTPMPI_SCTP_TEST_UPCALL_US: sleep per replayed delivery */
    uint64_t drop_state;
    struct mmsghdr *mm; /* scratch for recvmmsg/sendmmsg */
    struct iovec *mmiov;
    struct sockaddr_in *mmaddr;
    uint8_t *mmbuf; /* NT_BATCH datagrams of 65536 bytes */
    size_t mmbuf_slot;
    /* UDP GSO/GRO (sctpn_io.c): per message of a send batch, its packets and segment size */
    union nt_cmsg {
        struct cmsghdr align;
        char buf[SM_UDP_OFFLOAD_CMSG_SPACE];
    } * mmctl;
    int *mmcount;
    uint16_t *mmseg;
    /* zero-copy output (nt_flush_output): each message of a send batch is a run of iovecs in
     * txiov (headers in mmbuf, payloads in the engine's queued messages), mmlen its length */
    struct iovec *txiov;
    int ntxiov;
    size_t *mmlen;
    uint64_t gso_sent, gso_packets, gso_refused, gro_batches, gro_packets, rx_truncated;
    int gso_unsupported, gro_unsupported; /* the kernel lacks UDP_SEGMENT / UDP_GRO */
};

uint64_t nt_now_us(void);
void nt_tunables_load(struct nt_tunables *tu, int local_ranks);

/* sctpn_io.c: UDP sockets and the drive loop */
int nt_udp_open(struct nt_transport *t, const char *const *addrs, int naddrs);
void nt_udp_close(struct nt_transport *t);
int nt_drive(struct nt_transport *t, long timeout_us); /* one round: input, timers, output */
int nt_flush_output(struct nt_transport *t);
void nt_io_stats(struct nt_transport *t, FILE *f); /* the GSO/GRO line of SCTPMPI_STATS */

/* sctpn_peers.c: cards, associations, hellos, frames in and out */
int nt_parse_card(struct nt_transport *t, int rank, const char *card);
int nt_peer_init(struct nt_transport *t, int peer); /* queues and hello flags of a new peer */
/* transport.h add_peer: peer index `peer` is process `rank` of job `job` (caller holds the lock) */
int nt_add_peer(struct nt_transport *t, int peer, uint32_t job, int rank, const char *card,
                const char *secret);
void nt_on_data(void *user, const struct sctpn_data *d);
void nt_on_event(void *user, const struct sctpn_event *ev);
int nt_send_frame(struct nt_transport *t, int peer, int lane, const struct iovec *iov, int iovcnt,
                  void *cookie);
void nt_retry_queued(struct nt_transport *t);
void nt_hand_over_deferred(struct nt_transport *t);
/* deliveries queued outside progress(), in order, until the queue is empty or the clock
 * passes until_us (nt_progress's budget); returns 1 if some are left */
int nt_replay_deferred(struct nt_transport *t, uint64_t until_us);
struct nt_deferred;
struct nt_assoc *nt_assoc_find(struct nt_transport *t, sctpn_assoc_id id);
int nt_is_tx(const struct nt_peer *p, sctpn_assoc_id id); /* one of p's rail associations */
int nt_rails(struct nt_transport *t, int peer, struct sm_rail_load *load, int max);
void nt_peers_free(struct nt_transport *t);
/* an ICMP error says the peer at addr is gone: fail it (unless it shut down gracefully) */
void nt_peer_unreachable(struct nt_transport *t, const struct sctpn_addr *addr, const char *why);

#endif
