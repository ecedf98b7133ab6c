/* output.c — building the next packet of an association (RFC 9260 6.1, 6.4, 6.10): choosing
 * the destination, bundling control chunks, SACK, heartbeats, retransmissions and new DATA /
 * I-DATA up to the MTU, fragmenting messages at transmit time, the congestion / receiver
 * window checks, T3-rtx start, RTT timing, and the checksum (or zero checksum, RFC 9653). */
#include <stdlib.h>

#include "sctpn_internal.h"

/* first chunk marked for retransmission (its path in *pi) */
static int next_rtx(struct sctpn_assoc *a, uint32_t *tsn)
{
    if (!a->n_rtx)
        return 0;
    if (tsn_lt(a->rtx_hint, a->cum_ack + 1))
        a->rtx_hint = a->cum_ack + 1;
    for (uint32_t t = a->rtx_hint; t != a->next_tsn; t++)
        if (tx_chunk(a, t)->state == TXC_RTX) {
            a->rtx_hint = t;
            *tsn = t;
            return 1;
        }
    a->n_rtx = 0; /* cannot happen; keep the invariant */
    return 0;
}

static int cwnd_open(const struct path *p)
{
    return p->flight < p->cwnd;
}

/* the window and, for a paced controller, the pacing gate (cc.c) allow a packet now; a path
 * whose window is open but whose pacing holds it back reports its pacing time as a deadline */
static int may_send(const struct sctpn_endpoint *ep, struct path *p, uint64_t now)
{
    if (!cwnd_open(p))
        return 0;
    if (cc_pace_ok(ep, p, now))
        return 1;
    p->pace_blocked = 1;
    return 0;
}

/* room for one more new chunk past the cumulative ack (0 in the config: no limit) */
static int span_open(const struct sctpn_endpoint *ep, const struct sctpn_assoc *a)
{
    uint32_t lim = a->idata ? ep->cfg.max_out_chunks_idata : ep->cfg.max_out_chunks;
    return !lim || a->next_tsn - a->cum_ack - 1 < lim;
}

static size_t put_data_chunk(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint8_t *buf,
                             size_t at, size_t room, uint32_t tsn, const struct txc *c)
{
    uint8_t *p = buf + at;
    const struct txmsg *m = c->msg;
    size_t hdr = a->idata ? IDATA_HDR : DATA_HDR;
    size_t n = put_chunk_hdr(p, room, a->idata ? CT_I_DATA : CT_DATA, c->flags, hdr - 4 + c->len);
    if (!n)
        return 0;
    st32(p + 4, tsn);
    st16(p + 8, m->stream);
    if (a->idata) {
        st16(p + 10, 0);
        st32(p + 12, m->mid);
        st32(p + 16, (c->flags & DF_B) ? m->ppid : c->fsn);
    } else {
        st16(p + 10, m->ssn);
        st32(p + 12, m->ppid);
    }
    tx_put_payload(ep, m, c->off, p + hdr, at + hdr, c->len); /* copied or referenced */
    return n;
}

/* the head of the send queue as a new chunk of at most max_payload bytes (TSN assigned) */
static struct txc *new_chunk(struct sctpn_endpoint *ep, struct sctpn_assoc *a, size_t max_payload,
                             size_t full_payload, uint32_t *tsn_out)
{
    struct txmsg *m = sq_peek(ep, a);
    if (!m || max_payload == 0)
        return NULL;
    uint64_t rest = m->len - m->frag_off;
    /* a message that fits in a packet of its own is never split to fill up this one; a larger
     * one is cut to fill the packet (but never into a tiny first piece) */
    if (rest > max_payload && (rest <= full_payload || max_payload < 64))
        return NULL;
    if (tx_ring_reserve(a) < 0)
        return NULL;
    uint32_t len = (uint32_t)(rest < max_payload ? rest : max_payload);
    uint32_t tsn = a->next_tsn++;
    struct txc *c = tx_chunk(a, tsn);
    memset(c, 0, sizeof *c);
    c->msg = m;
    c->off = m->frag_off;
    c->len = len;
    c->fsn = m->fsn++;
    c->flags = (uint8_t)((m->frag_off == 0 ? DF_B : 0) | (m->unordered ? DF_U : 0));
    m->frag_off += len;
    m->chunks_live++;
    if (m->frag_off == m->len) {
        c->flags |= DF_E;
        if (m->sack_imm)
            c->flags |= DF_I;
        sq_pop(a, m);
    }
    if (m->frag_off == m->len || a->idata) /* next stream's turn */
        a->cur_stream = (uint16_t)((m->stream + 1) % ep->cfg.num_ostreams);
    *tsn_out = tsn;
    return c;
}

static void sent_chunk(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct path *p, int pi,
                       uint32_t tsn, struct txc *c, uint64_t now)
{
    cc_on_sent(ep, a, p, c, now); /* cc.c: pacing, delivery-rate records */
    if (!c->sends)
        c->first_us = now; /* acct.c */
    p->last_data_us = now;
    c->path = (uint8_t)pi;
    c->sends++;
    c->sent_us = now;
    c->missing = 0;
    if (c->state == TXC_RTX) {
        a->n_rtx--;
        a->rtx_chunks++;
        c->msg->tm_rtx++;
        p->retransmitted_chunks++;
    } else if (!p->rtt_pending) { /* time one new chunk per round trip */
        p->rtt_pending = 1;
        p->rtt_tsn = tsn;
        p->rtt_sent_us = now;
    }
    c->state = TXC_OUT;
    c->in_flight = 1;
    p->flight += c->len;
    if (p->flight > p->flight_peak)
        p->flight_peak = p->flight;
    a->total_flight += c->len;
    a->peer_rwnd = a->peer_rwnd > c->len ? a->peer_rwnd - c->len : 0;
    a->data_out++;
}

/* which path the next packet goes to, or -1 when there is nothing to send now */
static int choose_path(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now,
                       uint32_t *rtx_tsn, int *have_rtx)
{
    if (a->ctrl)
        return a->ctl_path < a->npaths ? a->ctl_path : 0;
    for (int i = 0; i < a->npaths; i++)
        if (a->paths[i].hb_echo_pending || a->paths[i].hb_send_pending)
            return i;
    *have_rtx = 0;
    for (int i = 0; i < a->npaths; i++)
        a->paths[i].pace_blocked = 0;
    if (assoc_data_allowed(a)) {
        if (next_rtx(a, rtx_tsn)) {
            *have_rtx = 1;
            struct txc *c = tx_chunk(a, *rtx_tsn);
            struct path *p = &a->paths[c->path];
            if (may_send(ep, p, now) || p->fast_rtx_pending)
                return c->path;
        }
        int tlp_new = a->paths[path_for_data(ep, a)].tlp_new_pending;
        uint16_t max_burst = cc_paces(&a->paths[path_for_data(ep, a)]) ? 0 : ep->cfg.max_burst;
        /* (pacing replaces it) */
        int burst_ok = !max_burst || a->burst_left > 0 || a->total_flight == 0 || tlp_new;
        if (a->nqueued && burst_ok && span_open(ep, a) &&
            (a->peer_rwnd > 0 || a->total_flight == 0)) {
            if (a->cmt) { /* CMT: any path with room in its cwnd, round robin */
                for (int k = 0; k < a->npaths; k++) {
                    int i = (a->rr_path + k) % a->npaths;
                    if (a->paths[i].state == SCTPN_PATH_ACTIVE && a->paths[i].confirmed &&
                        (a->paths[i].data_fail == 0 || now >= a->paths[i].data_retry_at) &&
                        (a->paths[i].tlp_new_pending || may_send(ep, &a->paths[i], now))) {
                        a->rr_path = (i + 1) % a->npaths;
                        return i;
                    }
                }
                int any = 0; /* no healthy path at all: fall back to the single-path rule */
                for (int i = 0; i < a->npaths; i++)
                    any |= a->paths[i].state == SCTPN_PATH_ACTIVE && a->paths[i].confirmed &&
                           a->paths[i].data_fail == 0;
                int pi = path_for_data(ep, a);
                if (!any && may_send(ep, &a->paths[pi], now))
                    return pi;
            } else {
                int pi = path_for_data(ep, a);
                if (a->paths[pi].tlp_new_pending || may_send(ep, &a->paths[pi], now))
                    return pi;
            }
        }
    }
    if (a->sack_pending && (a->sack_now || a->sack_due <= now))
        return a->sack_path < a->npaths ? a->sack_path : 0;
    return -1;
}

int assoc_build_packet(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now,
                       uint8_t *buf, size_t cap, struct sctpn_addr *from, struct sctpn_addr *to)
{
    if (a->state == SCTPN_CLOSED || !a->npaths)
        return 0;
    size_t mtu = cap < ep->cfg.mtu ? cap : ep->cfg.mtu;
    if (mtu < 64)
        return 0;
    if (a->state == SCTPN_COOKIE_WAIT) {
        if (!(a->ctrl & CTL_INIT))
            return 0;
        int pi = a->ctl_path < a->npaths ? a->ctl_path : 0;
        size_t n = put_common_hdr(buf, ep->cfg.sctp_port, a->peer_port, 0);
        size_t k = hs_build_init(ep, a, buf + n, mtu - n);
        if (!k)
            return 0;
        n += k;
        a->ctrl &= ~(uint32_t)CTL_INIT;
        hs_note_sent(a, pi, now, &a->hs_init_sends);
        sctpn_packet_set_crc(buf, n);
        *from = a->paths[pi].local;
        *to = a->paths[pi].remote;
        a->packets_out++;
        a->paths[pi].packets_out++;
        return (int)n;
    }
    uint32_t rtx_tsn = 0;
    int have_rtx = 0;
    int pi = choose_path(ep, a, now, &rtx_tsn, &have_rtx);
    if (pi < 0)
        return 0;
    struct path *p = &a->paths[pi];
    size_t n = put_common_hdr(buf, ep->cfg.sctp_port, a->peer_port, a->peer_vtag);
    int with_data = 0, cookie_echo = 0, new_data = 0;
    /* control chunks (they all go to ctl_path) */
    if (a->ctrl && pi == a->ctl_path) {
        if ((a->ctrl & CTL_COOKIE_ECHO) && a->cookie) {
            size_t k = put_chunk_hdr(buf + n, mtu - n, CT_COOKIE_ECHO, 0, a->cookie_len);
            if (k) {
                memcpy(buf + n + 4, a->cookie, a->cookie_len);
                n += k;
                cookie_echo = 1;
                hs_note_sent(a, pi, now, &a->hs_echo_sends);
            }
        }
        a->ctrl &= ~(uint32_t)CTL_COOKIE_ECHO;
        if (a->ctrl & CTL_COOKIE_ACK)
            n += put_chunk_hdr(buf + n, mtu - n, CT_COOKIE_ACK, 0, 0);
        a->ctrl &= ~(uint32_t)CTL_COOKIE_ACK;
        if (a->ctrl & CTL_SHUTDOWN) {
            size_t k = put_chunk_hdr(buf + n, mtu - n, CT_SHUTDOWN, 0, 4);
            if (k) {
                st32(buf + n + 4, a->cum_tsn);
                n += k;
            }
        }
        a->ctrl &= ~(uint32_t)CTL_SHUTDOWN;
        if (a->ctrl & CTL_SHUTDOWN_ACK)
            n += put_chunk_hdr(buf + n, mtu - n, CT_SHUTDOWN_ACK, 0, 0);
        a->ctrl &= ~(uint32_t)CTL_SHUTDOWN_ACK;
        if ((a->ctrl & CTL_ERROR) && a->err_len) {
            size_t k = put_chunk_hdr(buf + n, mtu - n, CT_ERROR, 0, a->err_len);
            if (k) {
                memcpy(buf + n + 4, a->err_buf, a->err_len);
                n += k;
            }
            a->err_len = 0;
        }
        a->ctrl &= ~(uint32_t)CTL_ERROR;
    } else if (a->ctrl) {
        a->ctrl = 0; /* stale ctl_path */
    }
    /* SACK, piggybacked on whatever goes out to the path the DATA came from or to a path known
     * good: never on a heartbeat or retransmission to a path that is failing, where it would be
     * lost (then it goes out on its own to sack_path; choose_path) */
    const struct path *sp = &a->paths[a->sack_path < a->npaths ? a->sack_path : 0];
    int sack_ok = pi == a->sack_path || sp->state != SCTPN_PATH_ACTIVE ||
                  (p->state == SCTPN_PATH_ACTIVE && p->confirmed && p->error_count == 0 &&
                   p->data_fail == 0);
    if (a->sack_pending && a->state >= SCTPN_ESTABLISHED && sack_ok) {
        size_t k = tsnmap_build_sack(ep, a, buf + n, mtu - n);
        if (k) {
            n += k;
            a->sack_pending = 0;
            a->sack_now = 0;
            a->sack_due = NEVER;
            a->pkts_since_sack = 0;
            a->sacks_out++;
        }
    }
    /* heartbeats */
    if (p->hb_echo_pending) {
        size_t k = put_chunk_hdr(buf + n, mtu - n, CT_HEARTBEAT_ACK, 0, p->hb_echo_len);
        if (k) {
            memcpy(buf + n + 4, p->hb_echo, p->hb_echo_len);
            n += k;
            p->hb_echo_pending = 0;
        }
    }
    if (p->hb_send_pending) {
        size_t k = path_build_hb(ep, a, pi, buf + n, mtu - n, now);
        if (k) {
            n += k;
            p->hb_send_pending = 0;
        }
    }
    /* data: retransmissions first (RFC 9260 6.1 C), then new data */
    if (assoc_data_allowed(a) || cookie_echo) {
        size_t hdr = a->idata ? IDATA_HDR : DATA_HDR;
        cc_on_idle(ep, p, now); /* cc.h: cwnd after an idle period */
        int ignore_cwnd = p->fast_rtx_pending;
        if (have_rtx || a->n_rtx) {
            uint32_t t;
            for (t = a->rtx_hint; a->n_rtx && t != a->next_tsn; t++) {
                struct txc *c = tx_chunk(a, t);
                if (c->state != TXC_RTX || c->path != pi)
                    continue;
                if (!ignore_cwnd && !may_send(ep, p, now))
                    break;
                if (pad4(hdr + c->len) > mtu - n)
                    break;
                n += put_data_chunk(ep, a, buf, n, mtu - n, t, c);
                sent_chunk(ep, a, p, pi, t, c, now);
                with_data = 1;
            }
            p->fast_rtx_pending = 0;
        }
        int may_new = path_for_data(ep, a) == pi ||
                      (a->cmt && p->state == SCTPN_PATH_ACTIVE && p->confirmed &&
                       (p->data_fail == 0 || now >= p->data_retry_at));
        if (cookie_echo)
            may_new = 1;
        if (a->total_flight == 0)
            a->burst_left = ep->cfg.max_burst;
        int tlp_new = p->tlp_new_pending; /* a tail-loss probe: one packet ignoring cwnd */
        p->tlp_new_pending = 0;
        if (ep->cfg.max_burst && !cc_paces(p) && a->burst_left <= 0 && !tlp_new)
            may_new = 0; /* RFC 9260 6.1: at most max_burst new-data packets per trigger */
        while (may_new && a->nqueued && (tlp_new || may_send(ep, p, now)) && span_open(ep, a) &&
               (a->peer_rwnd > 0 || a->total_flight == 0) && mtu - n > hdr + 4) {
            size_t room = mtu - n - hdr;
            if (a->peer_rwnd && room > a->peer_rwnd && a->total_flight)
                room = a->peer_rwnd < 64 ? 64 : a->peer_rwnd;
            uint32_t tsn;
            struct txc *c = new_chunk(ep, a, room, mtu - SCTP_COMMON_HDR - hdr, &tsn);
            if (!c)
                break;
            if (c->flags & DF_B)
                acct_first_tx(ep, a, c->msg, now); /* acct.c: its wait in the queue */
            if (tlp_new)
                c->flags |= DF_I; /* a probe (tlp.c): the peer SACKs it at once */
            n += put_data_chunk(ep, a, buf, n, mtu - n, tsn, c);
            sent_chunk(ep, a, p, pi, tsn, c, now);
            with_data = 1;
            new_data = 1;
        }
        if (new_data)
            a->burst_left--;
        /* delivery-rate samples (cc_rate.c): the window is not the limit while the sender has
         * nothing more to send */
        if (may_new && !a->nqueued && cwnd_open(p))
            p->app_limited_until = p->delivered + p->flight ? p->delivered + p->flight : 1;
    }
    if (n == SCTP_COMMON_HDR) /* nothing fitted after all */
        return 0;
    if (with_data && p->t3 == NEVER)
        p->t3 = now + p->rto;
    if (new_data)
        tlp_arm(ep, a, pi, now); /* tlp.c: restart the probe timeout */
    if (a->zero_cksum && a->state >= SCTPN_ESTABLISHED && !cookie_echo)
        memset(buf + 8, 0, 4); /* RFC 9653: the lower layer (UDP checksum) protects it */
    else
        tx_packet_set_crc(ep, buf, n); /* over the payload references too */
    *from = p->local;
    *to = p->remote;
    a->packets_out++;
    p->packets_out++;
    return (int)n;
}
