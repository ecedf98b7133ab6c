/* ksctp_internal.h — state shared by the files of the kernel SCTP backend
 * (src/transport/ksctp/, SCTPMPI_SCTP_BACKEND=kernel).
 *
 * Design (docs/transport-kernel.md has the why and the numbers):
 *  - The operating system's SCTP (Linux's sctp module): one one-to-many socket
 *    (SOCK_SEQPACKET, IPPROTO_SCTP) per rank, bound to every local address of the rank
 *    (SCTP_SOCKOPT_BINDX_ADD), non-blocking.  Only setsockopt/getsockopt-level calls: no
 *    libsctp at run time.
 *  - One association per peer, set up on the first send with SCTP_SOCKOPT_CONNECTX3 to every
 *    address on the peer's card (multihoming); the kernel resolves simultaneous set-ups.
 *  - Lanes are streams: lane 0 the control lane, then the data lanes, then the RMA lanes.  The
 *    first message on each stream of an association is the hello (rank + job secret,
 *    transport/hello.c); a frame on a stream that has not seen it aborts the association.
 *  - One engine frame per SCTP message (PPID "SMF1"), sent with one sendmsg over the engine's
 *    iovec; a message the kernel cannot take yet waits in a per-peer queue (order per peer).
 *    Until the association is up, frames wait in that queue too: a set-up the kernel gives up
 *    on (both ranks starting one at once can end so) is retried with nothing lost.
 *  - Everything happens in progress() on the caller's thread: the kernel runs the protocol
 *    (acknowledgements, retransmissions, heartbeats) by itself, so no thread of ours is needed
 *    to keep associations alive while the application computes.
 *  - Linux has no concurrent multipath transfer: a second address is a standby path only.
 *  - With SCTPMPI_KSCTP_UDP_PORT the rank speaks SCTP in UDP (RFC 6951) exactly as the native
 *    engine does: SCTP port KS_ENGINE_SCTP_PORT, the engine's card ("sctpn:ADDR...:UDPPORT"),
 *    the remote encapsulation port of each peer from its card, so kernel ranks and engine ranks
 *    can share one job. */
#ifndef SCTPMPI_KSCTP_INTERNAL_H
#define SCTPMPI_KSCTP_INTERNAL_H

#include <netinet/in.h>
#include <netinet/sctp.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/uio.h>

#include "engine/wire.h"
#include "transport/stream_stats.h"
#include "transport/hello.h"
#include "transport/txq.h"
#include "transport/transport.h"

#define KS_PPID_FRAME 0x534d4631u   /* "SMF1": one engine frame per SCTP message */
#define KS_PPID_HELLO 0x534d4831u   /* "SMH1": rank + job secret, first on every stream */
#define KS_CARD_PREFIX_UDP "sctpn:" /* the native engine's card: SCTP in UDP */
#define KS_ENGINE_SCTP_PORT 5001    /* the native engine's SCTP port inside UDP (every rank) */
#define KS_MAX_ADDRS 8
#define KS_MAX_STREAMS 256
#define KS_RX_BUDGET 64 /* messages read per progress call */

struct ks_tunables {
    int streams;                       /* SCTPMPI_SCTP_STREAMS: data streams */
    int rma_streams;                   /* SCTPMPI_SCTP_RMA_STREAMS */
    size_t sockbuf;                    /* SCTPMPI_SOCKBUF */
    size_t max_payload;                /* SCTPMPI_SCTP_MAX_PAYLOAD (0: derived) */
    int nodelay;                       /* SCTPMPI_SCTP_NODELAY */
    int port;                          /* SCTPMPI_SCTP_PORT (0: the kernel picks) */
    int failover;                      /* SCTPMPI_SCTP_FAILOVER: 0 none, 1 wan, 2 lan */
    int rto_initial, rto_min, rto_max; /* ms; -1: kernel default */
    int hb_interval_ms;                /* -1: kernel default, 0: off */
    int path_max_retrans;              /* -1: kernel default */
    int assoc_max_retrans;             /* -1: kernel default */
    int sack_delay_ms;                 /* -1: kernel default */
    int linger_ms;                     /* SCTPMPI_SCTP_LINGER_MS */
    int udp_port;                      /* SCTPMPI_KSCTP_UDP_PORT: our UDP port (0: plain SCTP) */
    int debug;                         /* SCTPMPI_SCTP_DEBUG */
};

enum ks_peer_state { KS_IDLE = 0, KS_CONNECTING, KS_UP, KS_CLOSED, KS_FAILED };

struct ks_peer {
    int rank;
    struct sockaddr_in addrs[KS_MAX_ADDRS];
    int naddrs;
    uint16_t encap_port; /* the peer's UDP port (SCTP in UDP), host order; 0: plain SCTP */
    enum ks_peer_state state;
    sctp_assoc_t assoc;        /* 0 while unknown */
    unsigned char *hello_sent; /* per outgoing stream */
    unsigned char *authed;     /* per incoming stream: the hello arrived on it */
    struct sm_txq txq; /* frames the kernel could not take yet, in order (item stream, ppid) */
    int txq_len;
    struct sm_stream_stats *st; /* per stream (KS_MAX_STREAMS) */
    uint64_t path_events[4];    /* available, unreachable, potentially failed, confirmed/other */
    unsigned assocs;            /* associations that came up */
    int connect_tries;          /* set-ups that failed before the association came up */
    int reconnect;              /* set the association up again from progress() */
    int fail_pending;           /* peer_failed to report from progress() */
    char why[96];
};

struct ks_transport {
    struct ks_tunables tu;
    int rank, size;
    char secret[SM_HELLO_SECRET_MAX];
    const struct sm_upcalls *up;
    int p2p_lanes, rma_lanes, nstreams;
    size_t max_payload;
    int fd;
    uint16_t port;
    struct sockaddr_in local[KS_MAX_ADDRS];
    int nlocal;
    struct ks_peer *peers;
    int txq_total;
    int fails_pending;
    int finalizing;
    pthread_mutex_t lock; /* recursive: held around rma_frame (transport.h) */
    char *rx;             /* one message being read (partial delivery appends) */
    size_t rx_len, rx_cap;
    uint64_t rogue_msgs, aborts_sent, send_failed_events, restarts;
};

/* ksctp_socket.c */
void ks_tunables_load(struct ks_tunables *tu);
int ks_socket_open(struct ks_transport *t, const char (*addrs)[INET_ADDRSTRLEN], int naddrs);
int ks_socket_tune_assoc(struct ks_transport *t, sctp_assoc_t id); /* per-association presets */
int ks_connect(struct ks_transport *t, struct ks_peer *p);
sctp_assoc_t ks_assoc_of(struct ks_transport *t, struct ks_peer *p); /* resolve lazily */
void ks_abort(struct ks_transport *t, sctp_assoc_t id, const char *why);
void ks_fail_peer(struct ks_transport *t, struct ks_peer *p, const char *why);
int ks_kernel_has_sctp(void);

/* ksctp_send.c */
int ks_send(struct sm_transport *handle, int peer, int lane, const struct iovec *iov, int iovcnt,
            void *cookie);
int ks_send_retry(struct ks_transport *t, int *handled);
int ks_sendmsg(struct ks_transport *t, struct ks_peer *p, uint16_t sid, uint32_t ppid,
               const struct iovec *iov, int iovcnt);

/* ksctp_recv.c */
int ks_progress(struct sm_transport *handle, long timeout_us);
int ks_recv_some(struct ks_transport *t, int budget);

/* ksctp_stats.c */
int ks_peer_info(struct sm_transport *handle, int peer, char *buf, size_t len);
void ks_stats_print(struct ks_transport *t, FILE *f);

void ks_logf(int debug, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define ks_log(...) ks_logf(0, __VA_ARGS__)   /* errors */
#define ks_debug(...) ks_logf(1, __VA_ARGS__) /* SCTPMPI_SCTP_DEBUG */

#endif
