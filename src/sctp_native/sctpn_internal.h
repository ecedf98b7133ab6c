/* sctpn_internal.h — the engine's internal data structures, shared by the engine sources:
 * endpoint, association, path, send-side chunk ring, receive-side TSN map and stored
 * chunks, and the small helpers (serial arithmetic, byte order, u32->pointer map, pools). */
#ifndef SCTPN_INTERNAL_H
#define SCTPN_INTERNAL_H

#include <stdint.h>
#include <string.h>

#include "cc.h"
#include "sctpn.h"
#include "sctpn_wire.h"

#define NEVER UINT64_MAX

/* serial number arithmetic (RFC 1982) on 32 and 16 bits */
static inline int tsn_lt(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) < 0;
}
static inline int tsn_le(uint32_t a, uint32_t b)
{
    return (int32_t)(a - b) <= 0;
}
static inline int ssn_lt(uint16_t a, uint16_t b)
{
    return (int16_t)(uint16_t)(a - b) < 0;
}

/* ---- u32 -> pointer open-addressing map (vtags, association ids) ---- */
struct u32map {
    uint32_t *keys; /* 0 = empty, key 0 is never stored */
    void **vals;
    uint32_t cap, used, tomb;
};
int u32map_put(struct u32map *m, uint32_t key, void *val);
void *u32map_get(const struct u32map *m, uint32_t key);
void u32map_del(struct u32map *m, uint32_t key);
void u32map_free(struct u32map *m);

/* ---- sizeable buffers for stored (out of order) received chunk payloads ---- */
struct bufpool {
    void *free_small, *free_big; /* singly linked via the first pointer of each buffer */
    size_t big_size;
};
#define BUFPOOL_SMALL 256
#define RXC_OVERHEAD 64 /* a stored chunk's node, charged to the receive window */
void *bufpool_get(struct bufpool *p, size_t len);
void bufpool_put(struct bufpool *p, void *b, size_t len);
void bufpool_free(struct bufpool *p);

/* ---- send side ---- */
struct txmsg {
    struct txmsg *next; /* queue of messages not yet fully fragmented / free list */
    struct iovec iov[SCTPN_MAX_IOV];
    int iovcnt;
    uint64_t len, frag_off; /* total length; next byte to put into a new chunk */
    uint32_t ppid;
    uint16_t stream, ssn;
    uint32_t mid; /* I-DATA message id */
    uint32_t fsn; /* next I-DATA fragment sequence number */
    uint8_t unordered, sack_imm;
    uint32_t chunks_live; /* chunks created and not yet cumulatively acknowledged */
    uint64_t acked_bytes; /* bytes of its chunks the peer acknowledged (cumulatively or in a gap
                           * block); they no longer count against cfg.sndbuf */
    void *cookie;
    uint8_t *copy; /* SCTPN_SEND_COPY / SCTPN_SEND_ADOPT buffer (malloc) */
    /* time accounting (acct.c) */
    uint64_t tm_q;             /* queued at (NEVER: not stamped yet) */
    uint64_t tm_blk[7];        /* the association's held-time counters then; after the first
                             * transmission: the parts of the queue wait (sampled messages) */
    uint64_t tm_first;         /* first chunk first sent */
    uint8_t tm_sample, tm_rtx; /* sampled; retransmissions of its chunks */
    uint8_t head[SCTPN_COPY_HEAD_MAX];
};

enum txc_state { TXC_OUT = 0, TXC_GAPACKED, TXC_RTX /* marked, waiting to be resent */ };
struct txc { /* one DATA/I-DATA chunk, in the ring at TSN & mask */
    struct txmsg *msg;
    uint64_t off;
    uint64_t sent_us;
    uint32_t len;
    uint32_t fsn;
    uint8_t state, path, flags; /* flags: DATA chunk flags B/E/U/I */
    uint8_t sends;              /* times transmitted */
    uint8_t missing;            /* missing reports */
    uint8_t fast_rtx_done;
    uint8_t in_flight;        /* counted in its path's flight */
    uint8_t rs_app_limited;   /* delivery rate (cc_rate.c): sent while app-limited */
    uint8_t rs_path;          /* ... the path it was last sent on (its records are that path's) */
    uint8_t rtx_cause;        /* acct.c: enum sctpn_rtx_cause + 1 of the last loss marking */
    uint64_t first_us;        /* acct.c: first transmission */
    uint64_t rs_delivered;    /* ... its path's delivered bytes when it was sent */
    uint64_t rs_delivered_us; /* ... the time of that delivery */
    uint64_t rs_first_sent_us; /* ... the send time of the first chunk of that interval */
};

struct path {
    struct sctpn_addr remote, local;
    int state;
    int confirmed;          /* RFC 9260 5.4: answered a heartbeat, or vouched for */
    int data_fail;          /* consecutive T3s without data acked on this path */
    uint64_t data_retry_at; /* CMT: new data may probe a path with data_fail again from then */
    uint32_t cwnd, ssthresh, pba, flight;
    uint32_t flight_peak; /* largest flight since the path last had none (cfg.ss_peak) */
    uint64_t srtt, rttvar, rto, last_rtt;
    int have_rtt;
    int rtt_pending;
    uint32_t rtt_tsn;
    uint64_t rtt_sent_us;
    uint64_t t3;           /* deadline or NEVER */
    uint64_t last_data_us; /* last DATA sent on this path (cwnd validation after idle) */
    uint64_t hb_due;       /* next heartbeat send time or NEVER */
    int hb_outstanding;
    uint32_t hb_nonce;
    uint32_t error_count;
    int in_fast_recovery;
    uint32_t fr_exit_tsn;
    int fast_rtx_pending;     /* send one packet ignoring cwnd */
    uint64_t pto;             /* tail-loss probe deadline (RFC 8985 7.2) or NEVER */
    int tlp_done;             /* a probe was sent for the current tail (one per tail) */
    int tlp_new_pending;      /* the probe is new data: one packet ignoring cwnd */
    int tlp_rtx_pending;      /* a retransmission probe awaits its acknowledgement */
    uint32_t tlp_rtx_tsn;     /* ... of this TSN */
    int rack_valid;           /* RACK (rack.c): a chunk sent on this path was acknowledged */
    uint64_t rack_xmit_us;    /* send time of the most recently sent acknowledged chunk */
    uint32_t rack_tsn;        /* ... its TSN */
    int rack_rtx;             /* ... it was a retransmission (scan every TSN, not up to it) */
    uint64_t rack_rtt_us;     /* RTT measured on it */
    uint64_t rack_min_rtt_us; /* smallest RTT seen on this path (first transmissions), 0 none */
    uint64_t min_rtt_us;      /* smallest RTT sample of any kind (path_rtt_sample), 0 none */
    uint64_t rack_timer;      /* reordering timer: a chunk's loss deadline, or NEVER */
    uint32_t reo_mult;        /* reordering window in min_rtt/4 steps (grows on DSACK-like
                                 * duplicate reports after RACK retransmissions) */
    uint32_t reo_clean;       /* RACK losses since the last duplicate report */
    /* congestion control (cc.h): the controller of this path, its own state, pacing */
    uint8_t cc_algo; /* enum sctpn_cc_algo, never SCTPN_CC_AUTO (cc_init resolves it) */
    union {
        struct cc_cubic_state cubic;
        struct cc_bbr_state bbr;
    } cc;
    uint64_t pacing_rate;  /* bytes per second (0: not paced) */
    uint64_t pace_next_us; /* paced: the next packet may leave then */
    int pace_blocked;      /* the last poll found data held back by pacing alone */
    /* delivery-rate sampling (cc_rate.c) */
    uint64_t delivered;         /* bytes of this path's chunks acknowledged so far */
    uint64_t delivered_us;      /* when the latest of them was */
    uint64_t first_sent_us;     /* send time of the chunk starting the current interval */
    uint64_t app_limited_until; /* delivered count ending an app-limited stretch, 0 none */
    int rs_have;                /* this SACK's sample: newest acked chunk's records */
    int rs_app_limited;
    uint64_t rs_prior_delivered, rs_prior_us, rs_send_elapsed, rs_ack_elapsed;
    uint64_t rs_rtt_us;   /* smallest RTT of a first transmission acked by this SACK */
    uint8_t hb_echo[256]; /* pending HEARTBEAT-ACK info */
    uint16_t hb_echo_len;
    uint8_t hb_echo_pending, hb_send_pending;
    uint64_t packets_out, packets_in, t3_timeouts, retransmitted_chunks, hbs_out, hbacks_in;
};

/* ---- receive side ---- */
struct rxc { /* a received chunk not yet delivered (its payload copied) */
    struct rxc *next;
    uint64_t arr_us; /* arrival (acct.c: stream-order hold) */
    uint32_t tsn, ppid, mid, fsn;
    uint16_t stream, len;
    uint8_t flags;
    uint8_t *data;
};
struct instream {
    uint16_t next_ssn;
    uint32_t next_mid;
    int partial;           /* a message is being delivered piece by piece */
    uint32_t partial_next; /* its next TSN (DATA) or FSN (I-DATA) */
    uint64_t partial_off;
    uint32_t partial_id; /* SSN or MID of that message */
    uint32_t partial_ppid;
    struct rxc *head, *tail; /* stored ordered chunks, sorted by TSN */
    uint64_t tm_arr;         /* acct.c: latest arrival of the pieces of the message delivered */
};
struct upartial { /* unordered message delivered piece by piece */
    int used;
    uint16_t stream;
    uint32_t next; /* next TSN (DATA) / FSN (I-DATA) */
    uint32_t mid;
    uint32_t ppid;
    uint64_t off;
};
#define MAX_UPARTIAL 32

#define FRTX_LOG 64 /* fast retransmissions remembered for the spurious check */

/* control chunks waiting to be sent (bits of assoc.ctrl) */
enum {
    CTL_INIT = 1 << 0,
    CTL_COOKIE_ECHO = 1 << 1,
    CTL_COOKIE_ACK = 1 << 2,
    CTL_SHUTDOWN = 1 << 3,
    CTL_SHUTDOWN_ACK = 1 << 4,
    CTL_ERROR = 1 << 5,
};

struct sctpn_assoc {
    sctpn_assoc_id id;
    int state;
    int dead; /* removed at the next reap */
    uint16_t peer_port;
    uint32_t my_vtag, peer_vtag;
    int npaths, primary, sack_path, ctl_path, rr_path;
    struct sctpn_addr my_addrs[SCTPN_MAX_PATHS]; /* our addresses (listed in INIT/INIT-ACK) */
    int n_my_addrs;
    struct path paths[SCTPN_MAX_PATHS];
    uint32_t ctrl;
    uint8_t *cookie; /* cookie to echo (COOKIE_WAIT -> ECHOED) */
    size_t cookie_len;
    uint64_t t1;       /* INIT / COOKIE-ECHO timer */
    uint64_t t2;       /* SHUTDOWN / SHUTDOWN-ACK timer */
    int shutdown_from; /* path the peer's SHUTDOWN arrived on (-1: none / unknown) */
    uint64_t rto_t1;
    int init_retries;
    /* handshake RTT samples (cfg.handshake_rtt): when and on which path the latest INIT /
     * COOKIE-ECHO left, and how often each was sent (Karn: a sample only after one send) */
    uint64_t hs_sent_us;
    int hs_sent_path;
    uint16_t hs_init_sends, hs_echo_sends;
    uint32_t error_count;
    uint8_t err_buf[64]; /* pending ERROR chunk body (causes) */
    uint16_t err_len;
    int idata, zero_cksum, cmt;
    int dac; /* delayed ack for CMT (cmt_dac.c) */
    /* send side */
    uint16_t os, is;
    uint16_t *out_ssn; /* per outbound stream */
    uint32_t *out_mid;
    uint32_t *out_umid;                /* I-DATA: unordered MIDs per stream (RFC 8260 2.1) */
    struct txmsg **sq_head, **sq_tail; /* per outbound stream: messages not yet all in chunks */
    uint32_t nqueued;                  /* messages in those queues */
    uint16_t cur_stream;               /* stream served next (round robin between streams) */
    uint64_t bytes_queued;             /* sum of len of live messages (send buffer use) */
    uint64_t bytes_acked_live;         /* sum of acked_bytes of live messages: what cfg.sndbuf
                                        * limits is bytes_queued minus this (sack.c) */
    struct txc *ring;
    uint32_t ring_cap;
    uint32_t cum_ack; /* highest TSN cumulatively acked by the peer */
    uint32_t next_tsn;
    uint32_t peer_rwnd;
    uint32_t n_rtx;    /* chunks in state TXC_RTX */
    uint32_t rtx_hint; /* no TXC_RTX chunk below this TSN */
    uint32_t total_flight;
    int burst_left;
    /* receive side */
    uint32_t peer_itsn;
    uint32_t cum_tsn;     /* highest TSN with all before it received */
    uint32_t highest_tsn; /* highest TSN received */
    uint64_t *tsnmap;     /* bits for TSNs cum_tsn+1 .. cum_tsn+map_bits */
    uint32_t map_bits;
    uint32_t dups[16];
    int ndups;
    int sack_pending; /* a SACK is owed */
    int sack_now;     /* ... and must go out at once */
    int pkts_since_sack;
    int sack_gap_before; /* the last SACK reported gaps */
    uint64_t sack_due;
    uint64_t stored_bytes; /* memory held by stored chunks (buffer + node), counted in rwnd */
    struct instream *in;
    struct rxc *uhead; /* stored unordered chunks, sorted by TSN */
    struct upartial up[MAX_UPARTIAL];
    /* statistics */
    uint64_t packets_in, packets_out, data_out, data_in, sacks_out, sacks_in;
    uint64_t rtx_chunks, fast_rtx, t3s, dup_in, dup_reported, bytes_delivered;
    uint64_t tlp_probes, tlp_repairs, rack_losses;
    uint64_t spurious_frtx;
    uint32_t frtx_log[FRTX_LOG]; /* recent fast-retransmitted TSNs (frtx_audit.c) */
    uint8_t frtx_live[FRTX_LOG];
    uint32_t frtx_next;
    int reordering_seen; /* a fast retransmission proved spurious: RACK alone marks losses
                             * from then on (rack.c) */
    /* time accounting (acct.c) */
    struct sctpn_timing tm;
    int blk_reason; /* what holds queued data since blk_since (ACCT_BLK_*; 0 none) */
    uint64_t blk_since;
    uint64_t blk_cum[7];         /* held time per reason, closed intervals */
    uint32_t tm_nsent, tm_nrecv; /* message counters for sampling */
    int tm_trigger;              /* stream of the chunk being received (-1: none) */
    int sb_state; /* send buffer refused a message: 1 (not stamped yet), 2 since sb_since */
    uint64_t sb_since;
    struct sctpn_assoc *link; /* endpoint list */
};

struct rawpkt { /* a stateless packet waiting to go out (INIT-ACK, ABORT, SHUTDOWN-COMPLETE) */
    struct sctpn_addr from, to;
    uint16_t len;
    uint8_t data[];
};
#define RAWQ_MAX 64

struct sctpn_endpoint {
    struct sctpn_config cfg;
    uint64_t rng;
    uint8_t key[32];
    struct u32map by_vtag, by_id;
    struct sctpn_assoc *assocs; /* linked list */
    int nassocs;
    uint32_t next_id;
    struct sctpn_assoc *rr; /* round robin start for poll_transmit */
    struct rawpkt *rawq[RAWQ_MAX];
    int raw_head, raw_n;
    struct txmsg *free_msgs;
    struct rxc *free_rxc;
    struct bufpool pool;
    int in_callback;
    /* time accounting (acct.c) */
    uint64_t now_us; /* the latest clock the caller gave */
    struct acct_unstamped {
        struct txmsg *m;
        struct sctpn_assoc *a;
    } * tm_unstamped;
    int n_unstamped, cap_unstamped; /* queued since then: stamped at the next clock */
    int sb_pending;                 /* an association's send-buffer refusal waits for a clock */
    struct sctpn_timing_sample tm_log[64]; /* sampled messages (ring) */
    uint32_t tm_log_n;
    /* zero-copy packet building (sctpn_poll_transmit_refs): where DATA payloads of the packet
     * being built go as references instead of copies (txrefs NULL: always copied) */
    struct sctpn_txref *txrefs;
    int txref_n, txref_max;
};

/* ---- time accounting (acct.c): where a message's time goes ---- */
enum {
    ACCT_BLK_CWND = 1,
    ACCT_BLK_RWND,
    ACCT_BLK_SPAN,
    ACCT_BLK_BURST,
    ACCT_BLK_HANDSHAKE,
    ACCT_BLK_OTHER,
    ACCT_NBLK /* 7: the size of tm_blk and blk_cum */
};
void acct_clock(struct sctpn_endpoint *ep, uint64_t now); /* every clock-bearing call */
void acct_queued(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct txmsg *m);
void acct_forget(struct sctpn_endpoint *ep, struct txmsg *m);            /* message freed */
void acct_sndbuf_full(struct sctpn_endpoint *ep, struct sctpn_assoc *a); /* EAGAIN */
void acct_first_tx(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct txmsg *m,
                   uint64_t now);
void acct_tx_idle(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now);
void acct_chunk_acked(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct txc *c,
                      uint64_t now);
void acct_msg_done(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct txmsg *m);
void acct_rx_msg(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint16_t stream, int ordered,
                 uint64_t len, uint64_t held_us);
static inline void acct_mark_lost(struct txc *c, int cause)
{
    c->rtx_cause = (uint8_t)(cause + 1);
}

/* ---- rng / keys (endpoint.c) ---- */
uint32_t ep_rand32(struct sctpn_endpoint *ep);
uint32_t ep_rand_nonzero(struct sctpn_endpoint *ep);

/* ---- events (endpoint.c) ---- */
void ev_emit(struct sctpn_endpoint *ep, const struct sctpn_event *ev);
void ev_assoc_up(struct sctpn_endpoint *ep, struct sctpn_assoc *a);
void ev_path(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int p);

/* ---- associations (assoc.c) ---- */
struct sctpn_assoc *assoc_new(struct sctpn_endpoint *ep, uint32_t my_vtag, uint32_t my_itsn);
void assoc_set_streams(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint16_t os,
                       uint16_t is);
int assoc_add_path(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct sctpn_addr remote,
                   struct sctpn_addr local);
int assoc_init_recv(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t peer_itsn);
void assoc_down(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int reason);
void assoc_reap(struct sctpn_endpoint *ep);
struct sctpn_assoc *assoc_by_id(struct sctpn_endpoint *ep, sctpn_assoc_id id);
struct sctpn_assoc *assoc_by_addr(struct sctpn_endpoint *ep, const struct sctpn_addr *remote,
                                  uint16_t peer_port);
int assoc_path_of(struct sctpn_assoc *a, const struct sctpn_addr *remote);
struct sctpn_addr pick_local(const struct sctpn_addr *locals, int nlocals,
                             struct sctpn_addr remote, int index,
                             const struct sctpn_addr *fallback);
void assoc_add_my_addr(struct sctpn_assoc *a, struct sctpn_addr x);
void assoc_change_vtag(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t vtag);

/* ---- handshake (handshake.c) ---- */
int hs_input_init(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct sctpn_pkt *pk,
                  const struct sctpn_chunk *c, const struct sctpn_addr *from,
                  const struct sctpn_addr *to, uint64_t now);
int hs_input_init_ack(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                      const struct sctpn_chunk *c, uint64_t now);
int hs_input_cookie_echo(struct sctpn_endpoint *ep, struct sctpn_assoc **ap,
                         const struct sctpn_pkt *pk, const struct sctpn_chunk *c,
                         const struct sctpn_addr *from, const struct sctpn_addr *to,
                         uint64_t now);
void hs_input_cookie_ack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now);
size_t hs_build_init(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint8_t *p, size_t room);
void hs_t1_expired(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now);
/* an INIT / COOKIE-ECHO left on path pi (sends: its transmission counter) */
void hs_note_sent(struct sctpn_assoc *a, int pi, uint64_t now, uint16_t *sends);

/* ---- receive side (recv.c, tsnmap.c) ---- */
int rx_data(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct sctpn_chunk *c,
            int path, uint64_t now);
void rx_packet_done(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int had_data, uint64_t now);
void rx_free_all(struct sctpn_endpoint *ep, struct sctpn_assoc *a);
int tsnmap_init(struct sctpn_assoc *a, uint32_t peer_itsn, uint32_t bits);
int tsnmap_seen(const struct sctpn_assoc *a, uint32_t tsn); /* 1 = duplicate */
int tsnmap_mark(struct sctpn_assoc *a, uint32_t tsn);       /* <0: outside the window */
size_t tsnmap_build_sack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint8_t *p,
                         size_t room);
uint32_t rx_a_rwnd(struct sctpn_endpoint *ep, struct sctpn_assoc *a);

/* ---- send side (sendq.c, sack.c) ---- */
void tx_free_all(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int failed);
int tx_sack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct sctpn_chunk *c,
            uint64_t now);
void tx_cum_ack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t cum, uint64_t now);
int tx_all_acked(const struct sctpn_assoc *a);
struct txc *tx_chunk(struct sctpn_assoc *a, uint32_t tsn);
void tx_copy_payload(const struct txmsg *m, uint64_t off, uint8_t *dst, uint32_t len);
/* the same, but pieces of at least SCTPN_TXREF_MIN bytes become references of the packet being
 * built (ep->txrefs) while there is room; pkt_off is dst's offset in that packet */
void tx_put_payload(struct sctpn_endpoint *ep, const struct txmsg *m, uint64_t off, uint8_t *dst,
                    size_t pkt_off, uint32_t len);
/* the packet's CRC32c over buf with ep->txrefs in place */
void tx_packet_set_crc(struct sctpn_endpoint *ep, uint8_t *buf, size_t len);
int tx_ring_reserve(struct sctpn_assoc *a);
struct txmsg *sq_peek(struct sctpn_endpoint *ep, struct sctpn_assoc *a);
void sq_pop(struct sctpn_assoc *a, struct txmsg *m);
void tx_mark_rtx(struct sctpn_assoc *a, uint32_t tsn, struct txc *c);
/* mark every chunk outstanding on path pi (pi < 0: on any path) for retransmission */
void tx_mark_outstanding_rtx(struct sctpn_assoc *a, int pi);
/* the states in which DATA may be sent (and lost tails probed or marked lost): RFC 9260 9.2
 * stops new data once a SHUTDOWN is sent or acknowledged */
static inline int assoc_data_allowed(const struct sctpn_assoc *a)
{
    return a->state == SCTPN_ESTABLISHED || a->state == SCTPN_SHUTDOWN_PENDING ||
           a->state == SCTPN_SHUTDOWN_RECEIVED;
}

/* ---- paths and timers (path.c) ---- */
void path_init(struct sctpn_endpoint *ep, struct path *p, uint64_t now);
uint32_t path_initial_cwnd(const struct sctpn_endpoint *ep); /* cfg.init_cwnd_packets or RFC */
void path_rtt_sample(struct sctpn_endpoint *ep, struct path *p, uint64_t rtt);
uint64_t path_hb_interval(const struct sctpn_endpoint *ep, const struct path *p);
void path_t3_expired(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now);
void path_error(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now);
void path_ok(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi);
int path_for_data(struct sctpn_endpoint *ep, struct sctpn_assoc *a);
int path_alternate(struct sctpn_assoc *a, int orig);
void path_hb_timer(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now);
void path_hb_input(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi,
                   const struct sctpn_chunk *c);
void path_hb_ack_input(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                       const struct sctpn_chunk *c, uint64_t now);
size_t path_build_hb(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint8_t *p,
                     size_t room, uint64_t now);
void assoc_error(struct sctpn_endpoint *ep, struct sctpn_assoc *a);

/* ---- tail-loss probe (tlp.c) ---- */
void tlp_arm(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now);
void tlp_expired(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi, uint64_t now);
void tlp_on_sack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const uint32_t *dups,
                 int ndups, uint64_t now);
uint32_t tlp_miss_threshold(struct sctpn_endpoint *ep, const struct sctpn_assoc *a, uint32_t cum);

/* ---- delayed ack for CMT (cmt_dac.c) ---- */
/* what one SACK newly acknowledged, for the sender's DAC rule */
struct dac_sack {
    int two_packets;    /* the SACK's flags say 2 packets arrived since the previous one */
    int cum_new;        /* its cumulative ack newly acknowledged something */
    uint32_t gap_paths; /* bit per path with TSNs newly acknowledged by gap blocks */
    int have_lowest;
    uint32_t lowest; /* the lowest TSN newly acknowledged by gap blocks */
};
int dac_may_delay_sack(struct sctpn_endpoint *ep, const struct sctpn_assoc *a, int gap_now);
uint8_t dac_sack_flags(const struct sctpn_assoc *a);
void dac_sack_begin(const struct sctpn_assoc *a, struct dac_sack *d, uint8_t sack_flags);
void dac_gap_acked(struct dac_sack *d, uint32_t tsn, int path);
uint32_t dac_extra_miss(const struct sctpn_assoc *a, const struct dac_sack *d, uint32_t tsn);

/* ---- spurious fast retransmissions (frtx_audit.c) ---- */
void frtx_note(struct sctpn_assoc *a, uint32_t tsn);
/* returns how many of the reported duplicates were fast retransmissions not yet counted */
int frtx_on_dups(struct sctpn_assoc *a, const uint32_t *dups, int ndups);

/* ---- fast retransmission of one chunk (sack.c), shared with rack.c ---- */
void sack_fast_rtx(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t tsn, struct txc *c);

/* ---- time-based loss detection, RACK (rack.c) ---- */
void rack_on_acked(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t tsn,
                   const struct txc *c, uint64_t now);
void rack_detect(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now);
void rack_on_spurious_frtx(struct sctpn_endpoint *ep, struct sctpn_assoc *a);
int rack_counts_misses(const struct sctpn_endpoint *ep, const struct sctpn_assoc *a);

/* ---- shutdown / abort (shutdown.c) ---- */
/* pi: the path the chunk arrived on (-1: an address that is no path); from/to: the packet's
 * addresses (the replies go back there, RFC 9260 9.2) */
void sd_input_shutdown(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                       const struct sctpn_chunk *c, int pi, uint64_t now);
void sd_input_shutdown_ack(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                           const struct sctpn_addr *from, const struct sctpn_addr *to,
                           uint64_t now);
void sd_input_shutdown_complete(struct sctpn_endpoint *ep, struct sctpn_assoc *a);
void sd_check(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now);
void sd_t2_expired(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now);
void send_abort_raw(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint16_t cause);

/* ---- output (output.c) ---- */
int raw_enqueue(struct sctpn_endpoint *ep, const struct sctpn_addr *from,
                const struct sctpn_addr *to, const uint8_t *pkt, size_t len);
int assoc_build_packet(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now,
                       uint8_t *buf, size_t cap, struct sctpn_addr *from, struct sctpn_addr *to);

/* ---- cookie MAC (siphash.c) ---- */
uint64_t siphash24(const uint8_t key[16], const void *data, size_t len);
void cookie_mac(const uint8_t key[32], const void *data, size_t len, uint8_t out[16]);

#endif
