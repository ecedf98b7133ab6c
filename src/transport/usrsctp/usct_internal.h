/* usct_internal.h — state shared by the files of the SCTP transport (src/transport/usrsctp/).
 *
 * Design (docs/transport-sctp.md has the why and the numbers):
 *  - usrsctp runs without threads of its own (usrsctp_init_nothreads) over AF_CONN: we own the
 *    UDP socket(s) and carry SCTP packets in UDP datagrams (RFC 6951 framing).  Every peer rank
 *    is one AF_CONN "address" (a pointer to its struct usct_peer), so a datagram's UDP source
 *    names the rank before usrsctp sees it and datagrams from unknown sources never reach it.
 *  - One one-to-many SCTP socket per rank; one association per peer, set up on first send.
 *  - Multihomed mode (a rank with several addresses, usct_inet.c): AF_CONN cannot carry a second
 *    path, so usrsctp's own AF_INET stack and UDP encapsulation run instead, with its threads;
 *    its callback only queues events that progress() processes like the AF_CONN mode's.
 *  - All usrsctp calls happen under t->stack_lock.  usrsctp's receive callback only queues
 *    "arrivals" (struct usct_arrival); progress() hands them to the engine without the lock.
 *  - One-sided traffic: whole SM_F_RMA frames go to a queue of their own, handed to the
 *    engine's rma_frame upcall under t->rma_lock (recursive, the transport's lock entries) by
 *    progress() or by the watchdog/receive thread (strong progress); lock order rma_lock, then
 *    stack_lock.
 *  - Progress: the caller's progress() drives input, timers and output.  A small watchdog
 *    thread drives them too while the application computes (strong progress), and an optional
 *    dedicated receive thread mode (SCTPMPI_SCTP_PROGRESS=thread) exists for comparison. */
#ifndef SCTPMPI_USCT_INTERNAL_H
#define SCTPMPI_USCT_INTERNAL_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stddef.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <usrsctp.h>

#include "engine/wire.h"
#include "transport/hello.h"
#include "transport/stream_stats.h"
#include "transport/transport.h"
#include "transport/txq.h"
#include "transport/udp_socket.h"

/* socket options the installed usrsctp.h lacks (the library supports them) */
#ifndef SCTP_INTERLEAVING_SUPPORTED
#define SCTP_INTERLEAVING_SUPPORTED 0x00001206
#endif
#ifndef SCTP_CMT_ON_OFF
#define SCTP_CMT_ON_OFF 0x00001200
#endif
#ifndef SCTP_PEER_ADDR_THLDS
#define SCTP_PEER_ADDR_THLDS 0x00000023
#endif

/* usrsctp's struct sctp_paddrthlds, which the installed usrsctp.h lacks (newer layout; an older
 * library reads only the prefix) */
struct sm_paddrthlds {
    struct sockaddr_storage spt_address;
    sctp_assoc_t spt_assoc_id;
    uint16_t spt_pathmaxrxt;
    uint16_t spt_pathpfthld;
    uint16_t spt_pathcpthld; /* primary path switchover: 0xffff = off (usrsctp insists) */
};

#define USCT_PPID_FRAME 0x534d4631u /* "SMF1": one engine frame per SCTP message */
#define USCT_PPID_HELLO 0x534d4831u /* "SMH1": rank + job secret, first on every stream */
#define USCT_SCTP_PORT 5001         /* SCTP port inside the UDP encapsulation (all ranks) */
#define USCT_MAX_ADDRS 8            /* addresses per rank (multihoming) */
#define USCT_MAX_STREAMS 256
#define USCT_SECRET_MAX SM_HELLO_SECRET_MAX
#define USCT_RX_BATCH 32        /* datagrams per recvmmsg */
#define USCT_TX_BATCH 64        /* datagrams per sendmmsg */
#define USCT_AUTO_MTU_MAX 32000 /* automatic MTU cap (loopback's 65536 would stall) */

/* ---- tunables (usct_tunables.c) ---- */
enum usct_progress_mode { SCTP_PROGRESS_CALLER = 0, SCTP_PROGRESS_THREAD = 1 };

struct usct_tunables {
    int streams;                 /* SCTPMPI_SCTP_STREAMS: data streams (1 = single stream) */
    size_t sockbuf;              /* SCTPMPI_SOCKBUF: SCTP send and receive buffer, bytes */
    size_t udpbuf;               /* SCTPMPI_SCTP_UDPBUF: kernel UDP socket buffers, bytes */
    size_t max_payload;          /* SCTPMPI_SCTP_MAX_PAYLOAD (0: derived from sockbuf) */
    int nodelay;                 /* SCTPMPI_SCTP_NODELAY */
    int sack_immediately;        /* SCTPMPI_SCTP_SACK_IMMEDIATELY */
    size_t sack_immediately_max; /* I-bit only on frames up to this size */
    int sack_delay_ms;           /* SCTPMPI_SCTP_SACK_DELAY (-1: usrsctp default) */
    int crc32c;                  /* SCTPMPI_SCTP_CRC32C */
    int crc32c_hw;               /* SCTPMPI_SCTP_CRC32C_HW: compute it ourselves with SSE4.2 */
    int rto_initial, rto_min, rto_max; /* ms */
    int max_burst;                     /* SCTPMPI_SCTP_MAX_BURST (-1: default) */
    int mtu;                           /* SCTPMPI_SCTP_MTU: path MTU of the UDP path, bytes */
    int fragment;                      /* SCTPMPI_SCTP_FRAGMENT: SCTP_MAXSEG (0: from MTU) */
    int interleave;                    /* SCTPMPI_SCTP_INTERLEAVE: I-DATA (RFC 8260) */
    int port;                          /* SCTPMPI_SCTP_PORT: UDP port, 0 = pick a free one */
    int hb_interval_ms;                /* SCTPMPI_SCTP_HB_INTERVAL (-1: default, 0: off) */
    int path_max_retrans;              /* SCTPMPI_SCTP_PATH_MAX_RETRANS (-1: default) */
    int assoc_max_retrans;             /* SCTPMPI_SCTP_ASSOC_MAX_RETRANS (-1: default) */
    enum usct_progress_mode progress;  /* SCTPMPI_SCTP_PROGRESS=caller|thread */
    int watchdog_us;    /* SCTPMPI_SCTP_WATCHDOG_US: strong-progress tick, 0 = off */
    int spin_us;        /* SCTPMPI_SCTP_SPIN_US: busy-poll before blocking */
    int linger_ms;      /* SCTPMPI_SCTP_LINGER_MS: graceful shutdown wait at finalize */
    double test_drop;   /* SCTPMPI_SCTP_TEST_DROP: % of DATA-bearing packets dropped */
    unsigned test_seed; /* SCTPMPI_SCTP_TEST_SEED */
    int debug;          /* SCTPMPI_SCTP_DEBUG: log association events */
    /* multihoming (usct_inet.c, usct_paths.c; addresses: transport/local_addrs.c) */
    int multihome;    /* SCTPMPI_SCTP_MULTIHOME: -1 auto (more than one address), 0, 1 */
    int failover;     /* SCTPMPI_SCTP_FAILOVER: 0 unset, 1 wan, 2 lan (preset applied) */
    int pf_threshold; /* SCTPMPI_SCTP_PF_THRESHOLD (-1: off, no potentially-failed) */
    int cmt;          /* SCTPMPI_SCTP_CMT: SCTP_CMT_OFF..SCTP_CMT_MPTCP */
    int cmt_dac;      /* ... =dac: CMT with delayed-ack for CMT (sysctl cmt_use_dac) */
    int keep_primary; /* SCTPMPI_SCTP_KEEP_PRIMARY: leave the primary to usrsctp */
};

void usct_tunables_load(struct usct_tunables *tu, int local_ranks);

/* ---- peers and associations (usct_assoc.c) ---- */
struct usct_rx_stream { /* one (peer, incoming stream); touched under the stack lock */
    int authed;         /* the hello arrived on this stream */
    char *part;         /* a message delivered in parts (partial delivery) so far */
    size_t part_len, part_cap;
};

/* multihomed mode: what usrsctp's threads hand our receive callback, kept for progress() */
struct usct_raw_event {
    struct usct_raw_event *next;
    union sctp_sockstore addr;
    void *data;
    size_t len;
    struct sctp_rcvinfo rcv;
    int flags;
};

/* one (peer, remote address) as the path manager sees it (usct_paths.c) */
enum usct_path_event {
    SCTP_PATH_EV_AVAILABLE,
    SCTP_PATH_EV_UNREACHABLE,
    SCTP_PATH_EV_PF,
    SCTP_PATH_EV_PRIMARY,
    SCTP_PATH_EV_CONFIRMED,
    SCTP_PATH_NEVENTS
};
struct usct_path {
    int32_t state; /* last seen spinfo_state (SCTP_ACTIVE ...), 0 unknown */
    int primary;   /* the association's primary path now */
    uint64_t events[SCTP_PATH_NEVENTS];
};

enum usct_peer_state {
    SCTP_PEER_IDLE = 0,   /* no association */
    SCTP_PEER_CONNECTING, /* first send done, COMM_UP not seen */
    SCTP_PEER_UP,         /* association established */
    SCTP_PEER_CLOSED,     /* shut down gracefully (peer finalizing) */
    SCTP_PEER_FAILED      /* lost (reported through up->peer_failed) */
};

struct usct_peer {
    struct usct_transport *t; /* back pointer; &peer is the AF_CONN address */
    int rank;
    struct sockaddr_in addrs[USCT_MAX_ADDRS];
    int naddrs;
    int crc32c; /* this peer's card says it checks CRC32c */
    enum usct_peer_state state;
    sctp_assoc_t assoc_id;    /* 0 while unknown */
    sctp_assoc_t rejected_id; /* an association we aborted: its leftovers are dropped quietly */
    int abort_pending;        /* rejected_id still to be aborted (not from inside a callback) */
    int ever_authed;          /* a hello from this peer passed */
    int out_streams, in_streams;
    unsigned char *hello_sent; /* per outgoing stream */
    struct usct_rx_stream *rx; /* per incoming stream */
    struct sm_txq *txq;        /* per lane: frames waiting for send-buffer space, in order */
    int txq_len;
    struct sm_stream_stats *st;       /* per stream */
    uint64_t retrans_chunks;            /* DATA chunks we sent twice (seen in conn output) */
    uint64_t data_chunks, idata_chunks; /* DATA / I-DATA chunks sent (RFC 8260 check) */
    uint32_t highest_tsn;
    int tsn_valid;
    uint64_t tx_datagrams, rx_datagrams, tx_dropped_test;
    unsigned assoc_count; /* associations set up so far */
    int inet;             /* this peer's card says it runs the multihomed mode */
    struct usct_path paths[USCT_MAX_ADDRS]; /* per remote address (multihomed mode) */
};

/* one queued event for the engine, produced under the stack lock, consumed in progress() */
enum usct_arrival_kind { SCTP_ARR_DATA, SCTP_ARR_PEER_FAILED };
struct usct_arrival {
    struct usct_arrival *next;
    enum usct_arrival_kind kind;
    int peer;
    uint16_t sid;
    int eor;
    char *data; /* malloc'd (by usrsctp or us); freed after hand-over */
    size_t len;
    char why[96];
};

struct usct_early_dgram {
    struct usct_early_dgram *next;
    struct sockaddr_in from;
    size_t len;
    unsigned char data[];
};

struct usct_transport {
    struct usct_tunables tu;
    int rank, size;
    char secret[USCT_SECRET_MAX];
    const struct sm_upcalls *up;
    int nlanes, nstreams;     /* lanes the engine sees; SCTP streams we open */
    int p2p_lanes, rma_lanes; /* point-to-point lanes, then RMA lanes (nlanes = both) */
    size_t max_payload;

    /* UDP (usct_udp.c) */
    struct sm_udp_sock udp[USCT_MAX_ADDRS]; /* fd -1 in the multihomed mode: usrsctp owns it */
    int nudp;
    uint16_t udp_port;
    int wake_fd;            /* eventfd: arrivals queued by a thread, or stop request */
    unsigned char *rx_bufs; /* USCT_RX_BATCH datagram buffers */
    size_t rx_buf_size;
    unsigned char *tx_bufs; /* USCT_TX_BATCH datagrams waiting for sendmmsg */
    size_t tx_buf_size;
    struct mmsghdr tx_msgs[USCT_TX_BATCH];
    struct iovec tx_iov[USCT_TX_BATCH];
    int tx_count;
    uint64_t drop_state; /* test-drop generator */
    uint64_t rogue_datagrams, rogue_logged, udp_send_errors, udp_truncated;
    uint64_t *addr_keys; /* open-addressing map (ip << 16 | port) -> rank + 1 */
    int *addr_ranks;
    size_t addr_mask;
    struct usct_early_dgram *early; /* datagrams that arrived before set_peers (replayed) */
    int nearly;

    /* multihomed mode (usct_inet.c): usrsctp's own UDP encapsulation over AF_INET, its threads */
    int inet;
    pthread_mutex_t raw_lock; /* guards raw_head/raw_tail only; never held across usrsctp */
    struct usct_raw_event *raw_head, *raw_tail;
    uint64_t raw_events;
    uint64_t last_path_poll_ms;
    uint64_t if_base[USCT_MAX_ADDRS][4]; /* interface counters at start (tx/rx pkts/bytes) */

    /* usrsctp (usct_endpoint.c) */
    struct socket *sock;
    pthread_mutex_t stack_lock;
    uint64_t last_timer_ms;

    /* peers (usct_assoc.c) */
    struct usct_peer *peers;
    int peers_known;
    int finalizing;
    int aborts_pending;  /* some peer has abort_pending */
    int all_crc32c;      /* some rank checks CRC32c (else offload: nobody does) */
    int crc_ours;        /* usrsctp offloaded, we fill and check CRC32c in hardware */
    uint64_t crc_errors; /* datagrams dropped by our CRC32c check */

    /* arrivals (usct_recv.c) */
    struct usct_arrival *arr_head, *arr_tail;
    size_t arr_bytes;
    /* whole SM_F_RMA frames for up->rma_frame (queued under stack_lock, taken and delivered
     * under rma_lock, so they reach the engine in arrival order whichever thread delivers) */
    struct usct_arrival *rma_head, *rma_tail;
    pthread_mutex_t rma_lock;   /* recursive; the transport's lock/unlock entries */
    uint64_t rma_thread_frames; /* RMA frames delivered on the transport's thread */
    char *gather;               /* contiguous copy of a multi-element frame for usrsctp_sendv */
    size_t gather_size;

    /* progress threads (usct_progress.c) */
    pthread_t thread;
    int thread_running;
    atomic_int stop_thread;
    atomic_int in_progress; /* the caller is inside progress(): the watchdog stays out */
    int txq_total;          /* frames queued in all txqs */
    uint64_t watchdog_steps, thread_steps;
};

/* usct_udp.c */
int usct_udp_open(struct usct_transport *t, const char *const *addrs, int naddrs);
int usct_udp_setup_buffers(struct usct_transport *t);
void usct_udp_close(struct usct_transport *t);
int usct_udp_conn_output(void *addr, void *buffer, size_t length, uint8_t tos, uint8_t set_df);
int usct_udp_pump_input(struct usct_transport *t, int budget); /* locked; returns datagrams */
void usct_udp_flush(struct usct_transport *t);                 /* locked */
struct usct_peer *usct_udp_peer_of(struct usct_transport *t, const struct sockaddr_in *from);
int usct_udp_build_map(struct usct_transport *t);
void usct_udp_replay_early(
    struct usct_transport *t); /* locked: datagrams seen before set_peers */

#include "transport/local_addrs.h" /* sm_local_addrs(): which addresses to bind */

/* usct_inet.c (multihomed mode) */
int usct_inet_open(struct usct_transport *t, const char *const *addrs, int naddrs);
int usct_inet_bind(struct usct_transport *t);                         /* locked */
int usct_inet_connect(struct usct_transport *t, struct usct_peer *p); /* locked */
int usct_inet_callback(struct socket *sock, union sctp_sockstore addr, void *data, size_t datalen,
                       struct sctp_rcvinfo rcv, int flags, void *ulp_info);
void usct_inet_drain(struct usct_transport *t); /* locked */
void usct_inet_close(struct usct_transport *t);

/* usct_paths.c (path states, per path statistics) */
void usct_paths_on_change(struct usct_transport *t,
                          const struct sctp_paddr_change *pc);                 /* locked */
void usct_paths_print(struct usct_transport *t, struct usct_peer *p, FILE *f); /* unlocked */
void usct_paths_print_interfaces(struct usct_transport *t, FILE *f);
void usct_paths_interface_counters(const struct sockaddr_in *a, uint64_t out[4]);

/* usct_endpoint.c */
int usct_endpoint_open(struct usct_transport *t);
void usct_endpoint_close(struct usct_transport *t);
void usct_endpoint_timers(struct usct_transport *t); /* locked */
uint64_t usct_now_ms(void);

/* usct_assoc.c */
int usct_assoc_parse_card(struct usct_transport *t, int rank, const char *card);
struct usct_peer *usct_assoc_peer_of_addr(struct usct_transport *t, void *conn_addr);
struct usct_peer *usct_assoc_peer_of_id(struct usct_transport *t, sctp_assoc_t id);
void usct_assoc_fill_sconn(struct usct_peer *p, struct sockaddr_conn *sc);
/* the destination for usrsctp_sendv: the peer's AF_CONN handle, or its first address */
void usct_assoc_fill_dest(struct usct_peer *p, union sctp_sockstore *d);
int usct_assoc_send_hello(struct usct_transport *t, struct usct_peer *p, int sid); /* locked */
int usct_assoc_check_hello(struct usct_transport *t, struct usct_peer *p, int sid,
                           const char *data, size_t len); /* locked */
void usct_assoc_abort(struct usct_transport *t, struct usct_peer *p,
                      const char *why);                                               /* locked */
void usct_assoc_run_aborts(struct usct_transport *t);                                 /* locked */
void usct_assoc_fail(struct usct_transport *t, struct usct_peer *p, const char *why); /* locked */
void usct_assoc_notification(struct usct_transport *t, const void *data, size_t len); /* locked */
void usct_assoc_reset(struct usct_transport *t, struct usct_peer *p);
void usct_assoc_queue_failure(struct usct_transport *t, struct usct_peer *p, const char *why);

/* usct_send.c */
int usct_send_frame(struct sm_transport *handle, int peer, int lane, const struct iovec *iov,
                    int iovcnt, void *cookie);
int usct_send_retry_queued(struct usct_transport *t, void **done, int maxdone); /* locked */
/* push queued frames of the RMA lanes only (no send_done: they carry no cookie); locked */
int usct_send_retry_rma(struct usct_transport *t);

/* usct_recv.c */
int usct_recv_callback(struct socket *sock, union sctp_sockstore addr, void *data, size_t datalen,
                       struct sctp_rcvinfo rcv, int flags, void *ulp_info);
void usct_recv_process(struct usct_transport *t, union sctp_sockstore addr, void *data,
                       size_t datalen, struct sctp_rcvinfo rcv, int flags); /* locked */
void usct_recv_queue(struct usct_transport *t, struct usct_arrival *a);     /* locked */
int usct_recv_deliver(struct usct_transport *t, struct usct_arrival *list); /* unlocked */
/* hand queued RMA frames to up->rma_frame; returns how many (try: -1 when rma_lock is taken
 * by another thread).  Called without stack_lock held. */
int usct_recv_deliver_rma(struct usct_transport *t, int try);
void usct_recv_free_list(struct usct_arrival *list);

/* usct_progress.c */
int usct_progress(struct sm_transport *handle, long timeout_us);
int usct_progress_start_thread(struct usct_transport *t);
void usct_progress_stop_thread(struct usct_transport *t);
int usct_progress_step_locked(struct usct_transport *t);

/* usct_crc32c.c */
int usct_crc32c_hw_init(void); /* 1: hardware CRC32c available and matches usrsctp */
void usct_crc32c_fill(unsigned char *pkt, size_t len);
int usct_crc32c_check(const unsigned char *pkt, size_t len);

/* usct_stats.c */
int usct_stats_peer_info(struct sm_transport *handle, int peer, char *buf, size_t len);
void usct_stats_print(struct usct_transport *t, FILE *f);
void usct_stats_note_output(struct usct_peer *p, const unsigned char *pkt, size_t len);

void usct_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
