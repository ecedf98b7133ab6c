/* sctpn.h — public API of the native SCTP engine ("sctpn"): a sans-IO implementation of
 * SCTP (RFC 9260) carried over UDP encapsulation (RFC 6951).  It performs no I/O, owns no
 * threads and reads no clock: the caller feeds received packets (UDP payloads) and the current
 * time, and pulls packets to send, the next timer deadline and delivered data (callbacks).
 * No MPI knowledge, no usrsctp dependency.  Design and RFC coverage: docs/sctp-native.md.
 *
 * Conventions
 *  - Times are microseconds on a caller-chosen monotonic clock (now_us), never wall time.
 *  - Functions returning int return 0 (or a count/length >= 0) on success, a negative
 *    SCTPN_E* code on failure.  No input (packet bytes, addresses, sizes) can crash the engine.
 *  - Callbacks run synchronously inside sctpn_input / sctpn_handle_timeout /
 *    sctpn_poll_transmit / sctpn_send / sctpn_shutdown / sctpn_abort.  A callback may call
 *    sctpn_send, sctpn_shutdown, sctpn_abort and the stats/query functions; it must not call
 *    sctpn_input, sctpn_poll_transmit, sctpn_handle_timeout or sctpn_endpoint_free.
 *  - One endpoint = one local SCTP port.  It may hold many associations (one per peer).
 *    An association has one path per remote address (multihoming); each path is paired with
 *    one local address (the one the caller must send from).  Path 0 is the initial primary. */
#ifndef SCTPN_H
#define SCTPN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes (negative returns) ---- */
enum sctpn_err {
    SCTPN_OK = 0,
    SCTPN_EINVAL = -1,     /* bad argument */
    SCTPN_EAGAIN = -2,     /* send buffer of the association full: retry after SEND_DONE */
    SCTPN_ENOMEM = -3,     /* allocation failed */
    SCTPN_ENOASSOC = -4,   /* no such association (or not established / shutting down) */
    SCTPN_EMALFORMED = -5, /* packet dropped: truncated, bad lengths, bad chunk layout */
    SCTPN_ECRC = -6,       /* packet dropped: CRC32c mismatch */
    SCTPN_EVTAG = -7,      /* packet dropped: verification tag does not match */
    SCTPN_ECOOKIE = -8,    /* packet dropped: state cookie forged, corrupted or stale */
    SCTPN_EOOTB = -9,      /* packet dropped: out of the blue (no association) */
    SCTPN_ESTATE = -10,    /* operation not allowed in the association's state */
    SCTPN_ETOOBIG = -11,   /* message larger than the configured maximum */
    SCTPN_ELIMIT = -12,    /* a fixed limit was reached (associations, paths, streams) */
};
const char *sctpn_strerror(int err);

/* ---- addresses ---- */
/* An IPv4 address plus the UDP port of the encapsulation (RFC 6951).
 * ipv4 is in network byte order (like struct in_addr.s_addr); udp_port in host order. */
struct sctpn_addr {
    uint32_t ipv4;
    uint16_t udp_port;
};

#define SCTPN_MAX_PATHS 8 /* remote addresses per association */
#define SCTPN_MAX_IOV 8   /* iovec elements per message */

typedef uint32_t sctpn_assoc_id; /* 0 is never a valid id */

/* ---- data delivery ---- */
/* One piece of a received message, delivered in order: for each message the pieces come with
 * increasing msg_offset, the first has first=1, the last has last=1 (a small message is one
 * piece with both).  Ordered messages of one stream are delivered strictly in SSN order, never
 * interleaved with each other; unordered ones as soon as they (or their leading pieces) are
 * available.  data is only valid during the callback (copy it or place it). */
struct sctpn_data {
    sctpn_assoc_id assoc;
    uint16_t stream;
    uint16_t unordered; /* 1 for unordered messages */
    uint32_t ppid;      /* payload protocol identifier, as sent (host order) */
    uint32_t msg_key;   /* the same for all pieces of one message (pieces of unordered messages
                         * may interleave): SSN (DATA) / MID (I-DATA) for ordered messages, the
                         * first fragment's TSN (DATA) / MID (I-DATA) for unordered ones */
    uint64_t msg_offset;
    const void *data;
    size_t len;
    int first, last;
};
typedef void (*sctpn_data_cb)(void *user, const struct sctpn_data *d);

/* ---- events ---- */
enum sctpn_event_type {
    SCTPN_EV_ASSOC_UP = 1,  /* association established (both sides); addr = peer primary */
    SCTPN_EV_ASSOC_DOWN,    /* association gone; reason = SCTPN_DOWN_*; all its sends failed */
    SCTPN_EV_PATH_CHANGE,   /* path state changed; addr, path, path_state, primary */
    SCTPN_EV_SEND_DONE,     /* every byte of the message with this cookie acknowledged */
    SCTPN_EV_SEND_FAILED,   /* message with this cookie will never be acknowledged */
    SCTPN_EV_ASSOC_RESTART, /* the peer restarted (RFC 9260 5.2.4 case A): raised for the old
                             * association, then its ASSOC_DOWN(ABORT_RECEIVED), then ASSOC_UP
                             * of a new association (new id) with the restarted peer */
};
enum sctpn_down_reason {
    SCTPN_DOWN_SHUTDOWN = 1, /* graceful SHUTDOWN completed */
    SCTPN_DOWN_ABORT_RECEIVED,
    SCTPN_DOWN_ABORT_SENT,       /* local sctpn_abort() or protocol violation */
    SCTPN_DOWN_TIMEOUT,          /* association max retransmissions exceeded (or INIT/COOKIE) */
    SCTPN_DOWN_SHUTDOWN_TIMEOUT, /* our SHUTDOWN-ACK went unanswered (T2 exhausted): every byte
                                  * was acknowledged both ways, only the final SHUTDOWN-COMPLETE
                                  * never came (lost, and the peer is gone) */
};
enum sctpn_path_state {
    SCTPN_PATH_ACTIVE = 1,
    SCTPN_PATH_PF,     /* potentially failed (RFC 7829) */
    SCTPN_PATH_FAILED, /* inactive: path max retransmissions exceeded */
};
struct sctpn_event {
    enum sctpn_event_type type;
    sctpn_assoc_id assoc;
    int reason;             /* ASSOC_DOWN: enum sctpn_down_reason */
    int path;               /* PATH_CHANGE: path index */
    int path_state;         /* PATH_CHANGE: enum sctpn_path_state */
    int primary;            /* PATH_CHANGE: 1 if this path is (now) the primary */
    struct sctpn_addr addr; /* PATH_CHANGE / ASSOC_UP: remote address */
    void *cookie;           /* SEND_DONE / SEND_FAILED */
};
typedef void (*sctpn_event_cb)(void *user, const struct sctpn_event *ev);

/* ---- configuration ---- */
/* congestion controllers (cfg.cc; docs/sctp-native.md "Congestion control") */
enum sctpn_cc_algo {
    SCTPN_CC_RENO = 0,  /* RFC 9260 7.2 (slow start, congestion avoidance, halving on loss) */
    SCTPN_CC_CUBIC = 1, /* RFC 9438 CUBIC with its Reno-friendly region */
    SCTPN_CC_BBR = 2,   /* model-based and paced (BBR v1-like): random loss is not congestion */
    SCTPN_CC_AUTO = 3,  /* per path: RENO to a loopback address (127/8), BBR to any other */
};
struct sctpn_config {
    uint16_t sctp_port;     /* local SCTP port (in the SCTP common header) */
    uint16_t num_ostreams;  /* outbound streams requested */
    uint16_t max_instreams; /* inbound streams accepted */
    uint32_t rwnd;          /* receive window advertised (bytes) */
    uint32_t sndbuf;        /* per-association limit of queued unacked bytes */
    uint32_t max_msg_size;  /* largest message sctpn_send accepts */
    uint16_t mtu;           /* largest SCTP packet (the UDP payload) */
    uint64_t rto_initial_us, rto_min_us, rto_max_us;
    uint64_t hb_interval_us;       /* heartbeat interval on idle paths (0 = no heartbeats) */
    uint64_t lan_rtt_us;           /* a path whose smallest RTT sample is below this is a LAN path
                                  * (0 = none is): it uses lan_hb_interval_us instead */
    uint64_t lan_hb_interval_us;   /* heartbeat interval on idle LAN paths (when shorter than
                                  * hb_interval_us; 0 = hb_interval_us), and the longest gap
                                  * between probes of a PF or FAILED LAN path */
    uint64_t sack_delay_us;        /* delayed-SACK timer */
    uint16_t init_cwnd_packets;    /* initial (and after-idle floor) cwnd in packets of mtu;
                                  * 0 = RFC 9260 7.2.1: min(4 MTU, max(2 MTU, 4404)).  Like
                                  * TCP's IW10 (RFC 6928) this deviates from the RFC's MUST */
    uint16_t abc_l;                /* slow start: a SACK grows cwnd by at most abc_l MTU (the
                                  * bytes it newly acknowledges, capped).  RFC 9260 7.2.1: 1;
                                  * TCP's Appropriate Byte Counting (RFC 3465) allows 2, so a
                                  * receiver that SACKs every other packet still doubles the
                                  * window per round trip (usrsctp: sctp_L2_abc_variable) */
    uint8_t ss_peak;               /* slow start: the window also counts as used while it is
                                  * below twice the largest flight since the path was last
                                  * empty (Linux's tcp_is_cwnd_limited); 0 = RFC 9260: only when
                                  * the flight filled it */
    uint64_t idle_decay_min_us;    /* an idle path halves its cwnd (to >= 4 MTU) per
                                  * max(RTO, this) without data (RFC 9260 7.2.1: per RTO, 0
                                  * here); keeps an RTO.min far below RFC's 1 s from also
                                  * shrinking the cwnd after every quiet round trip */
    uint64_t cookie_life_us;       /* valid life of a state cookie */
    uint16_t sack_freq;            /* SACK at least every sack_freq packets with DATA (2) */
    uint16_t max_burst;            /* new-data packets sent back to back at most (4) */
    uint16_t path_max_retrans;     /* errors before a path is FAILED (5) */
    uint16_t assoc_max_retrans;    /* errors before the association is given up (10) */
    uint16_t pf_threshold;         /* errors before a path is PF (RFC 7829); >= path_max: off */
    uint16_t max_init_retrans;     /* INIT/COOKIE-ECHO retransmissions before giving up (8) */
    uint32_t max_out_chunks;       /* DATA chunks past the cumulative ack at most (4096) */
    uint32_t max_out_chunks_idata; /* the same with I-DATA (500): usrsctp's receiver drops
                                  * I-DATA that starts a message once 512 chunks wait in its
                                  * queues, even the one that would fill the hole */
    uint8_t idata;                 /* offer/accept I-DATA (RFC 8260) */
    uint8_t cmt;                   /* concurrent multipath transfer over all active paths */
    uint8_t cmt_dac;               /* delayed ack for CMT (Iyengar's DAC, usrsctp-compatible SACK
                                  * flags): needs cmt; sctpn_endpoint_new refuses it without */
    uint8_t zero_checksum;         /* offer/accept zero checksum (RFC 9653) */
    uint8_t accept_incoming;       /* answer INITs (server side); 0: only sctpn_connect */
    uint8_t tlp;                   /* tail-loss probe (RFC 8985 7) + early retransmit (RFC 5827)
                                  * (1 = on, the default) */
    uint8_t rack;                  /* time-based loss detection (RFC 8985 RACK, per path): a
                                  * chunk sent more than RTT + reordering window before a
                                  * newly acknowledged one is retransmitted at once (1 = on,
                                  * the default) */
    uint8_t handshake_rtt;         /* first RTT sample of a path from the handshake, as Linux
                                  * TCP takes it from SYN / SYN-ACK (0 = off, the default:
                                  * RTO.initial until the first DATA is acknowledged): the
                                  * client times INIT -> INIT-ACK and COOKIE-ECHO -> COOKIE-ACK
                                  * (each only if sent once, Karn) and arms T1-cookie with the
                                  * path's RTO; the server times the cookie's creation (INIT-ACK
                                  * sent) -> COOKIE-ECHO (ignored above RTO.initial) */
    uint8_t cc;                    /* enum sctpn_cc_algo (SCTPN_CC_RENO, the default) */
    uint32_t pace_quantum_us;      /* paced controllers: a path held back by pacing may catch up
                                  * by this much time at its rate in one burst (0: 1000); the
                                  * caller's timer resolution and wakeup lateness need it */
    uint8_t cookie_secret[32];     /* MAC key of the state cookie; all zero: random */
    uint64_t seed;                 /* PRNG seed (vtags, TSNs, secret); 0: from getrandom() */
    uint8_t timing;                /* where a message's time goes (acct.c, struct sctpn_timing):
                                  * 0 off, 1 on (the default) */
    uint32_t timing_sample;        /* with timing: every Nth sent and every Nth delivered message
                                  * also goes to a small log (sctpn_timing_samples); 0 none */
    /* local addresses (for the INIT/INIT-ACK address list and the path pairing of incoming
     * associations); may be empty: then the address a packet arrived on is used */
    struct sctpn_addr local_addrs[SCTPN_MAX_PATHS];
    int n_local_addrs;
    sctpn_data_cb on_data;
    sctpn_event_cb on_event;
    void *user;
};
/* fill cfg with defaults (port 0 must be set by the caller; 16/16 streams, rwnd 4 MiB,
 * sndbuf 4 MiB, mtu 1452, RTO 1 s/200 ms/60 s... see docs/sctp-native.md) */
void sctpn_config_defaults(struct sctpn_config *cfg);

typedef struct sctpn_endpoint sctpn_endpoint;

sctpn_endpoint *sctpn_endpoint_new(const struct sctpn_config *cfg);
void sctpn_endpoint_free(sctpn_endpoint *ep); /* no events; pending sends are dropped */

/* ---- I/O ---- */
/* one received SCTP packet (the UDP payload); from = its source, to = the local address it
 * arrived on.  Returns 0 if accepted, a negative code if (part of) it was dropped. */
int sctpn_input(sctpn_endpoint *ep, const uint8_t *pkt, size_t len, const struct sctpn_addr *from,
                const struct sctpn_addr *to, uint64_t now_us);
/* the next packet to send: writes it into buf (cap >= the configured mtu is enough) and its
 * source / destination addresses; returns its length, or 0 when there is nothing to send now.
 * Call repeatedly until 0 (e.g. to fill a sendmmsg batch). */
int sctpn_poll_transmit(sctpn_endpoint *ep, uint64_t now_us, uint8_t *buf, size_t cap,
                        struct sctpn_addr *from, struct sctpn_addr *to);
/* Zero-copy variant of sctpn_poll_transmit: the packet is buf[0..len) except that each
 * reference refs[i] replaces the bytes [off, off+len) of buf (left unwritten there) with
 * refs[i].data, a pointer into a queued message's memory (the caller's iovec of a zero-copy
 * message, or the engine's copy).  Only DATA payload pieces of at least SCTPN_TXREF_MIN bytes
 * become references, at most max_refs per packet (the rest is copied into buf as usual); the
 * references are in increasing off order and never overlap.  *nrefs receives their count.
 * The referenced memory stays valid until the caller's next call into the engine other than
 * sctpn_poll_transmit_refs / sctpn_next_deadline / the query functions, so a caller gathers a
 * batch of packets and sends them (sendmsg / sendmmsg with iovecs) before feeding input or
 * timeouts.  The checksum, when one is sent, covers the referenced bytes. */
#define SCTPN_TXREF_MIN 512
struct sctpn_txref {
    size_t off, len;
    const void *data;
};
int sctpn_poll_transmit_refs(sctpn_endpoint *ep, uint64_t now_us, uint8_t *buf, size_t cap,
                             struct sctpn_addr *from, struct sctpn_addr *to,
                             struct sctpn_txref *refs, int max_refs, int *nrefs);
/* earliest time at which sctpn_handle_timeout must be called (UINT64_MAX: none) */
uint64_t sctpn_next_deadline(sctpn_endpoint *ep);
void sctpn_handle_timeout(sctpn_endpoint *ep, uint64_t now_us);

/* ---- associations ---- */
/* start an association (INIT) to a peer SCTP port over the given remote addresses (path i =
 * remote[i], sent from local[i % nlocal]; nlocal may be 0: then from = 0.0.0.0:0).  If an
 * association with that peer (any of the addresses, same port) exists already, in whatever
 * state, its id is returned instead and nothing is sent. */
int sctpn_connect(sctpn_endpoint *ep, uint16_t peer_sctp_port, const struct sctpn_addr *remote,
                  int nremote, const struct sctpn_addr *local, int nlocal, uint64_t now_us,
                  sctpn_assoc_id *out);

enum sctpn_send_flags {
    SCTPN_SEND_UNORDERED = 1, /* unordered delivery */
    SCTPN_SEND_COPY_HEAD = 2, /* copy iov[0] (<= SCTPN_COPY_HEAD_MAX bytes) at once */
    SCTPN_SEND_COPY = 4,      /* copy the whole message at once (iov memory free on return) */
    SCTPN_SEND_SACK_IMMEDIATELY = 8, /* set the I bit (RFC 7053) on the message's last chunk */
    SCTPN_SEND_ADOPT = 16, /* iov is one block from malloc(): on success the engine owns it and
                            * frees it when the message is done (no copy); on failure the
                            * caller still does */
};
#define SCTPN_COPY_HEAD_MAX 128
/* queue one message.  Zero copy: unless copied by a flag, the iovec memory is referenced until
 * every byte is acknowledged, then SEND_DONE(cookie) is raised (also for copied messages;
 * only when cookie != NULL).  Returns 0, SCTPN_EAGAIN when the association's send buffer is
 * full (a message is always accepted into an empty buffer), or another negative code.
 * May be called before ASSOC_UP (data is sent once the association is up). */
int sctpn_send(sctpn_endpoint *ep, sctpn_assoc_id assoc, uint16_t stream, uint32_t ppid,
               unsigned flags, const struct iovec *iov, int iovcnt, void *cookie);
/* graceful shutdown once all queued data is acknowledged (RFC 9260 9.2) */
int sctpn_shutdown(sctpn_endpoint *ep, sctpn_assoc_id assoc, uint64_t now_us);
/* send ABORT and drop the association at once (ASSOC_DOWN ABORT_SENT, SEND_FAILED for queued) */
int sctpn_abort(sctpn_endpoint *ep, sctpn_assoc_id assoc, uint64_t now_us);
/* make path the primary (data goes there while it is active) */
int sctpn_set_primary(sctpn_endpoint *ep, sctpn_assoc_id assoc, int path);

/* ---- state and statistics ---- */
enum sctpn_assoc_state {
    SCTPN_CLOSED = 0,
    SCTPN_COOKIE_WAIT,
    SCTPN_COOKIE_ECHOED,
    SCTPN_ESTABLISHED,
    SCTPN_SHUTDOWN_PENDING,
    SCTPN_SHUTDOWN_SENT,
    SCTPN_SHUTDOWN_RECEIVED,
    SCTPN_SHUTDOWN_ACK_SENT,
};
struct sctpn_path_stats {
    struct sctpn_addr remote, local;
    int state;     /* enum sctpn_path_state */
    int primary;   /* 1 if primary */
    int confirmed; /* address confirmed (RFC 9260 5.4); data goes only to confirmed paths */
    uint32_t cwnd, ssthresh, flight_bytes, partial_bytes_acked;
    uint64_t srtt_us, rttvar_us, rto_us, last_rtt_us; /* srtt/rttvar 0 before the 1st sample */
    uint32_t error_count;
    uint64_t packets_out, packets_in, t3_timeouts, retransmitted_chunks;
    uint64_t heartbeats_out, heartbeat_acks_in;
    uint64_t pacing_rate;        /* bytes/s the path is paced at (0: not paced) */
    uint64_t btl_bw, min_rtt_us; /* SCTPN_CC_BBR: bottleneck rate estimate (bytes/s), min RTT */
};
/* Where a message's time goes (cfg.timing; acct.c, docs/sctp-native.md "Time accounting").
 * All times are microseconds of the caller's clock, summed over the association's life.
 * Send side, per message: queue_us sums the time from sctpn_send (stamped at the next call
 * that brings a clock: input, poll_transmit, handle_timeout) to its first chunk's first
 * transmission, and splits it by what held the association while the message waited:
 * the congestion window of the data path (cwnd), the peer's receive window (rwnd), the limit
 * of chunks past the cumulative ack (span: a lost chunk holds the others there), max burst
 * (new-data packets per SACK), the handshake (association not established yet), anything else
 * (pacing).  The part not held at all is queue_us minus the six.
 * blocked_*_us is the same per association, not per message (time with data queued and held).
 * Per chunk, from its first transmission to its first acknowledgement: clean_* for chunks
 * sent once (time on the wire: about one RTT plus the SACK delay), rtx_* for chunks that
 * needed a retransmission, split by the mechanism that last marked them lost.
 * Receive side: a complete ordered message that could not be delivered because an earlier
 * message of its stream was missing is held; held_us sums the time from the arrival of its
 * last piece to its delivery.  held_foreign counts held messages that were released by the
 * arrival of a chunk of another stream (0 by design: a stream's messages wait only for their
 * own stream); xstream_drops counts chunks dropped on arrival only because chunks of other
 * messages, stored behind a missing TSN, filled the receive window or the TSN map (the
 * receiver-side way one stream's loss can hold another's data).
 * sndbuf_full_us: time from a sctpn_send refused because the send buffer was full (EAGAIN;
 * sndbuf_refusals counts these episodes) to the next accepted one: the caller's own queue waits
 * meanwhile.  The buffer is freed only by the cumulative ack, so a lost chunk keeps every
 * stream's acknowledged data there until it is repaired. */
enum sctpn_rtx_cause {
    SCTPN_RTX_FAST = 0, /* three miss reports (RFC 9260 7.2.4) */
    SCTPN_RTX_RACK,     /* RACK time-based loss marking */
    SCTPN_RTX_T3,       /* retransmission timeout (or cookie-echo bundling) */
    SCTPN_RTX_TLP,      /* tail-loss probe */
    SCTPN_RTX_OTHER,    /* reneged gap acks */
    SCTPN_RTX_NCAUSES
};
struct sctpn_timing {
    uint64_t msgs_sent, queue_us, queue_cwnd_us, queue_rwnd_us, queue_span_us, queue_burst_us,
        queue_handshake_us, queue_other_us;
    uint64_t blocked_cwnd_us, blocked_rwnd_us, blocked_span_us, blocked_burst_us,
        blocked_handshake_us, blocked_other_us;
    uint64_t clean_chunks, clean_us;
    uint64_t rtx_chunks[SCTPN_RTX_NCAUSES], rtx_us[SCTPN_RTX_NCAUSES];
    uint64_t msgs_delivered, held_msgs, held_us, held_max_us, held_foreign, xstream_drops;
    uint64_t sndbuf_refusals, sndbuf_full_us;
};
/* one sampled message (cfg.timing_sample = N: every Nth sent and every Nth delivered message) */
struct sctpn_timing_sample {
    sctpn_assoc_id assoc;
    uint16_t stream;
    uint8_t dir; /* 0: sent (queue_* set, acked_us = first chunk sent -> message fully
                          * acknowledged, rtx = its chunks' retransmissions); 1: received */
    uint8_t rtx;
    uint32_t len;   /* sent: message length; received: its length */
    uint64_t at_us; /* when the sample was taken */
    uint64_t queue_us, queue_cwnd_us, queue_rwnd_us, queue_span_us, acked_us;
    uint64_t held_us; /* received: held by its stream's order */
};
/* copies the newest samples (at most max, oldest first) into out; returns how many */
int sctpn_timing_samples(sctpn_endpoint *ep, struct sctpn_timing_sample *out, int max);

struct sctpn_assoc_stats {
    int state; /* enum sctpn_assoc_state */
    uint16_t out_streams, in_streams;
    uint32_t peer_rwnd, my_vtag, peer_vtag;
    uint32_t next_tsn, cum_tsn_acked; /* send side */
    uint32_t cum_tsn_received;        /* receive side */
    uint64_t packets_in, packets_out;
    uint64_t data_chunks_out, data_chunks_in, sacks_out, sacks_in;
    uint64_t retransmitted_chunks, fast_retransmits, t3_timeouts;
    uint64_t spurious_fast_retransmits; /* fast-retransmitted TSNs the peer then reported as
                                  * duplicates (the original had arrived: reordering, not loss) */
    uint64_t dup_tsns_received;         /* DATA chunks received twice */
    uint64_t dup_tsns_reported;         /* duplicate TSNs the peer reported in its SACKs */
    uint64_t bytes_queued;              /* send buffer in use */
    uint64_t bytes_delivered;           /* received user bytes delivered */
    uint64_t tlp_probes;                /* tail-loss probes sent (new data or a retransmission) */
    uint64_t tlp_repairs;           /* retransmission probes whose TSN the peer had not got (the
                                  * SACK acking it reported no duplicate of it) */
    uint64_t rack_losses;           /* chunks RACK declared lost (also in fast_retransmits) */
    uint64_t handshake_retransmits; /* INITs and COOKIE-ECHOs we sent again (T1 expiries, a
                                  * new INIT after a Stale Cookie error); 0 on the server side */
    uint32_t idata, zero_checksum, cmt; /* negotiated features */
    struct sctpn_timing timing;         /* where the time went (cfg.timing != 0) */
    uint32_t cmt_dac;                   /* delayed ack for CMT in use (cmt and cfg.cmt_dac) */
    int npaths;
    struct sctpn_path_stats paths[SCTPN_MAX_PATHS];
};
int sctpn_get_stats(sctpn_endpoint *ep, sctpn_assoc_id assoc, struct sctpn_assoc_stats *st);
int sctpn_assoc_state(sctpn_endpoint *ep, sctpn_assoc_id assoc); /* <0 if unknown */

/* ---- packet utilities (also for tests and the fuzz target) ---- */
/* CRC32c of an SCTP packet as stored in its checksum field (the field itself counts as 0) */
uint32_t sctpn_packet_crc(const uint8_t *pkt, size_t len);
void sctpn_packet_set_crc(uint8_t *pkt, size_t len);
/* parse a packet's common header and walk all chunks with full bounds checks (verify_crc:
 * also check the CRC32c); returns the number of chunks or a negative SCTPN_E* code */
int sctpn_packet_check(const uint8_t *pkt, size_t len, int verify_crc);

#ifdef __cplusplus
}
#endif
#endif
