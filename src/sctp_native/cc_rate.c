/* cc_rate.c — delivery-rate sampling for the model-based controller (after the IETF draft
 * "Delivery Rate Estimation", Cheng et al., adapted to SCTP chunks, per path).  Each chunk
 * records, when it is sent, how many bytes of its path had been delivered (acknowledged) by
 * then, when, and when the interval it belongs to began; a SACK's sample is taken from the
 * most recently sent chunk it acknowledges: the bytes delivered since that chunk left over
 * the longer of the send and the ack intervals.  Samples taken while the sender had less
 * data than its window allowed (app-limited) are flagged: they may only raise an estimate.
 * A chunk acknowledged on another path than the one it was last sent on gives no sample. */
#include "sctpn_internal.h"

void rate_on_sent(struct sctpn_assoc *a, struct path *p, struct txc *c, uint64_t now)
{
    if (p->flight == 0) { /* (called before the chunk counts in the flight) */
        p->first_sent_us = now;
        p->delivered_us = now;
    }
    c->rs_delivered = p->delivered;
    c->rs_delivered_us = p->delivered_us;
    c->rs_first_sent_us = p->first_sent_us;
    c->rs_app_limited = p->app_limited_until != 0;
    c->rs_path = (uint8_t)(p - a->paths);
}

void rate_on_acked(struct path *p, const struct txc *c, uint64_t now)
{
    p->delivered += c->len;
    p->delivered_us = now;
    if (p->app_limited_until && p->delivered > p->app_limited_until)
        p->app_limited_until = 0;
    if (c->sends == 1 && now >= c->sent_us) {
        uint64_t rtt = now - c->sent_us;
        if (!p->rs_rtt_us || rtt < p->rs_rtt_us)
            p->rs_rtt_us = rtt;
    }
    /* a chunk marked for retransmission moves to another path (CMT, failover) before it is
     * resent; acknowledged before that, its records are the old path's counters, which mean
     * nothing against this path's (with CMT and some reordering such samples made one path's
     * bandwidth estimate absurd, and BBR then overfilled its queue) */
    if (c->rs_path != c->path)
        return;
    if (!c->sent_us || (p->rs_have && c->rs_delivered < p->rs_prior_delivered))
        return;
    p->rs_have = 1;
    p->rs_prior_delivered = c->rs_delivered;
    p->rs_prior_us = c->rs_delivered_us;
    p->rs_send_elapsed = c->sent_us > c->rs_first_sent_us ? c->sent_us - c->rs_first_sent_us : 0;
    p->rs_ack_elapsed = now > c->rs_delivered_us ? now - c->rs_delivered_us : 0;
    p->rs_app_limited = c->rs_app_limited;
    p->first_sent_us = c->sent_us;
}

void rate_sample(struct path *p, struct cc_ack *ack)
{
    ack->rtt_us = p->rs_rtt_us;
    ack->rs_delivered = 0;
    ack->rs_interval_us = 0;
    if (p->rs_have && p->delivered >= p->rs_prior_delivered) {
        uint64_t iv =
            p->rs_send_elapsed > p->rs_ack_elapsed ? p->rs_send_elapsed : p->rs_ack_elapsed;
        ack->rs_delivered = p->delivered - p->rs_prior_delivered;
        ack->rs_interval_us = iv;
        ack->rs_app_limited = p->rs_app_limited;
        ack->rs_prior_delivered = p->rs_prior_delivered;
    }
    p->rs_have = 0;
    p->rs_rtt_us = 0;
}
