/* cc.h — the engine's congestion-controller interface.  A controller owns a path's cwnd and
 * ssthresh (and partial_bytes_acked for the RFC 9260 one) and, when it paces, the rate at which
 * the path may send.  The engine calls it on: a SACK that newly acknowledged bytes on the path
 * (with the RTT sample and the delivery-rate sample it yielded), a loss that starts fast
 * recovery (three miss reports, RACK, early retransmit), a T3-rtx expiry, the first send after
 * an idle period, and every DATA chunk sent.  Loss recovery itself (what is retransmitted,
 * fast-recovery bookkeeping, T3 / TLP / RACK timers) stays in sack.c, rack.c, tlp.c and path.c.
 * Controllers: cc_reno.c (RFC 9260 7.2, the engine's default), cc_cubic.c (RFC 9438), cc_bbr.c
 * (a BBR v1-like model-based, paced controller); cfg.cc = SCTPN_CC_AUTO picks per path (cc.c).  cc.c dispatches and paces; cc_rate.c samples
 * the delivery rate. */
#ifndef SCTPN_CC_H
#define SCTPN_CC_H

#include <stdint.h>

struct sctpn_endpoint;
struct sctpn_assoc;
struct path;
struct txc;

/* per-path state of CUBIC (cc_cubic.c) */
struct cc_cubic_state {
    double w_max;      /* window before the last reduction (bytes) */
    double k_s;        /* time to regain w_max (seconds) */
    double w_est;      /* the Reno-friendly estimate (bytes) */
    double cwnd_epoch; /* cwnd when the epoch began */
    uint64_t epoch_us; /* start of the current congestion-avoidance epoch, 0 none */
    double acc;        /* fractional cwnd growth not yet applied (bytes) */
};

/* per-path state of the BBR-like controller (cc_bbr.c) */
#define CC_BBR_BW_ROUNDS 10
struct cc_bbr_state {
    int mode;                          /* startup, drain, probe_bw, probe_rtt */
    uint64_t bw_max[CC_BBR_BW_ROUNDS]; /* largest delivery rate per round (bytes/s) */
    uint64_t bw_round[CC_BBR_BW_ROUNDS];
    uint64_t btl_bw; /* windowed max of the above */
    uint64_t min_rtt_us, min_rtt_stamp;
    uint64_t round, next_round_delivered;
    int round_start;
    uint64_t full_bw; /* startup: the rate that stopped growing */
    int full_bw_count, filled_pipe;
    int cycle_idx;
    uint64_t cycle_stamp;
    uint64_t probe_rtt_done; /* PROBE_RTT ends then (0: flight not yet down) */
    int probe_rtt_round_done;
    uint32_t prior_cwnd;
    uint32_t pacing_gain_x1000, cwnd_gain_x1000;
    uint64_t rtt_prior_cwnd; /* the window PROBE_RTT returns to */
};

/* what one SACK did on one path */
struct cc_ack {
    uint32_t bytes_acked;   /* bytes of this path's chunks newly acknowledged (were in flight) */
    uint32_t flight_before; /* the path's flight before the SACK */
    int advanced;           /* the cumulative ack advanced (always with CMT) */
    uint64_t rtt_us;        /* RTT sample (Karn) taken by this SACK, 0 none */
    /* delivery-rate sample (cc_rate.c): delivered bytes over the interval, 0 interval = none */
    uint64_t rs_delivered;
    uint64_t rs_interval_us;
    int rs_app_limited; /* the sample was taken while the sender had too little to send */
    uint64_t rs_prior_delivered; /* the path's delivered count when the sampled chunk left */
};

struct cc_ops {
    const char *name;
    int paces; /* rate-paced: the engine consults pacing and skips max_burst */
    void (*init)(struct sctpn_endpoint *ep, struct path *p);
    void (*on_ack)(struct sctpn_endpoint *ep, struct path *p, const struct cc_ack *ack,
                   uint64_t now);
    /* a loss opened fast recovery on the path (once per recovery) */
    void (*on_loss)(struct sctpn_endpoint *ep, struct path *p);
    void (*on_t3)(struct sctpn_endpoint *ep, struct path *p, uint64_t now);
    /* the path sends data again after having none in flight (called before every send on an
     * empty path; the controller decides what counts as idle) */
    void (*on_idle)(struct sctpn_endpoint *ep, struct path *p, uint64_t now);
};

extern const struct cc_ops sm_cc_reno, sm_cc_cubic, sm_cc_bbr;

/* the controller of a path (p->cc_algo, chosen by cc_init from cfg.cc) */
const struct cc_ops *cc_ops_of(const struct path *p);
void cc_init(struct sctpn_endpoint *ep, struct path *p);
void cc_on_ack(struct sctpn_endpoint *ep, struct path *p, const struct cc_ack *ack, uint64_t now);
void cc_on_loss(struct sctpn_endpoint *ep, struct path *p);
void cc_on_t3(struct sctpn_endpoint *ep, struct path *p, uint64_t now);
void cc_on_idle(struct sctpn_endpoint *ep, struct path *p, uint64_t now);
int cc_paces(const struct path *p);

/* shared by the loss-based controllers (cc_reno.c) */
void cc_slow_start(struct sctpn_endpoint *ep, struct path *p, const struct cc_ack *ack);
void cc_after_ack(struct path *p);
int cc_idle_decay(struct sctpn_endpoint *ep, struct path *p, uint64_t now);

/* pacing (cc.c): may the path send a packet now (cwnd aside); a chunk of len bytes left */
int cc_pace_ok(const struct sctpn_endpoint *ep, const struct path *p, uint64_t now);
void cc_on_sent(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct path *p, struct txc *c,
                uint64_t now);

/* delivery-rate sampling (cc_rate.c) */
void rate_on_sent(struct sctpn_assoc *a, struct path *p, struct txc *c, uint64_t now);
void rate_on_acked(struct path *p, const struct txc *c, uint64_t now);
/* the sample of one SACK on path p (into ack), then ready for the next SACK */
void rate_sample(struct path *p, struct cc_ack *ack);

#endif
