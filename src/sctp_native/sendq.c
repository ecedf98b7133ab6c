/* sendq.c — the send side's storage: sctpn_send (zero-copy messages referencing the caller's
 * iovec until acknowledged), the message free list, the ring of DATA chunks indexed by TSN
 * (from the cumulative ack point to the next TSN), gathering payload bytes from a message, and
 * failing everything when an association goes down. */
#include <stdlib.h>

#include "sctpn_internal.h"

static struct txmsg *msg_get(struct sctpn_endpoint *ep)
{
    struct txmsg *m = ep->free_msgs;
    if (m) {
        ep->free_msgs = m->next;
        return m;
    }
    return malloc(sizeof *m);
}

static void msg_put(struct sctpn_endpoint *ep, struct txmsg *m)
{
    if (m->tm_q == NEVER && ep->n_unstamped)
        acct_forget(ep, m);
    free(m->copy);
    m->copy = NULL;
    m->next = ep->free_msgs;
    ep->free_msgs = m;
}

/* the message is finished: all its chunks acknowledged (done) or the association died */
static void msg_finish(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct txmsg *m, int ok)
{
    a->bytes_queued -= m->len;
    a->bytes_acked_live -= m->acked_bytes;
    if (ok)
        acct_msg_done(ep, a, m); /* acct.c: sampled messages */
    void *cookie = m->cookie;
    msg_put(ep, m);
    if (cookie) {
        struct sctpn_event ev = { .type = ok ? SCTPN_EV_SEND_DONE : SCTPN_EV_SEND_FAILED,
                                  .assoc = a->id,
                                  .cookie = cookie };
        ev_emit(ep, &ev);
    }
}

int sctpn_send(sctpn_endpoint *ep, sctpn_assoc_id id, uint16_t stream, uint32_t ppid,
               unsigned flags, const struct iovec *iov, int iovcnt, void *cookie)
{
    if (!ep)
        return SCTPN_EINVAL;
    struct sctpn_assoc *a = assoc_by_id(ep, id);
    if (!a)
        return SCTPN_ENOASSOC;
    if (a->state != SCTPN_ESTABLISHED && a->state != SCTPN_COOKIE_WAIT &&
        a->state != SCTPN_COOKIE_ECHOED)
        return SCTPN_ESTATE;
    if (iovcnt < 1 || iovcnt > SCTPN_MAX_IOV || !iov)
        return SCTPN_EINVAL;
    uint16_t nstreams = a->state == SCTPN_ESTABLISHED ? a->os : ep->cfg.num_ostreams;
    if (stream >= nstreams)
        return SCTPN_EINVAL;
    uint64_t len = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len && !iov[i].iov_base)
            return SCTPN_EINVAL;
        len += iov[i].iov_len;
    }
    if (len == 0)
        return SCTPN_EINVAL; /* SCTP has no empty messages */
    if (len > ep->cfg.max_msg_size)
        return SCTPN_ETOOBIG;
    uint64_t unacked = a->bytes_queued - a->bytes_acked_live; /* (sack.c: gap-acked data) */
    if (unacked && unacked + len > ep->cfg.sndbuf) {
        acct_sndbuf_full(ep, a);
        return SCTPN_EAGAIN;
    }
    if ((flags & SCTPN_SEND_COPY_HEAD) && iov[0].iov_len > SCTPN_COPY_HEAD_MAX)
        return SCTPN_EINVAL;
    if ((flags & SCTPN_SEND_ADOPT) &&
        (iovcnt != 1 || (flags & (SCTPN_SEND_COPY | SCTPN_SEND_COPY_HEAD))))
        return SCTPN_EINVAL;
    struct txmsg *m = msg_get(ep);
    if (!m)
        return SCTPN_ENOMEM;
    m->next = NULL;
    m->copy = NULL;
    m->iovcnt = iovcnt;
    if (flags & SCTPN_SEND_ADOPT) {
        m->copy = iov[0].iov_base; /* freed by msg_put */
        m->iov[0] = iov[0];
    } else if (flags & SCTPN_SEND_COPY) {
        m->copy = malloc(len);
        if (!m->copy) {
            msg_put(ep, m);
            return SCTPN_ENOMEM;
        }
        uint64_t o = 0;
        for (int i = 0; i < iovcnt; i++) {
            if (iov[i].iov_len)
                memcpy(m->copy + o, iov[i].iov_base, iov[i].iov_len);
            o += iov[i].iov_len;
        }
        m->iov[0].iov_base = m->copy;
        m->iov[0].iov_len = len;
        m->iovcnt = 1;
    } else {
        memcpy(m->iov, iov, sizeof *iov * (size_t)iovcnt);
        if (flags & SCTPN_SEND_COPY_HEAD) {
            if (iov[0].iov_len)
                memcpy(m->head, iov[0].iov_base, iov[0].iov_len);
            m->iov[0].iov_base = m->head;
        }
    }
    m->len = len;
    m->frag_off = 0;
    m->ppid = ppid;
    m->stream = stream;
    m->unordered = (flags & SCTPN_SEND_UNORDERED) != 0;
    m->sack_imm = (flags & SCTPN_SEND_SACK_IMMEDIATELY) != 0;
    m->ssn = 0;
    m->mid = 0;
    m->fsn = 0;
    if (!m->unordered) {
        m->ssn = a->out_ssn[stream]++;
        m->mid = a->out_mid[stream]++;
    } else {
        m->mid = a->out_umid[stream]++;
    }
    m->chunks_live = 0;
    m->acked_bytes = 0;
    m->cookie = cookie;
    if (a->sq_tail[stream])
        a->sq_tail[stream]->next = m;
    else
        a->sq_head[stream] = m;
    a->sq_tail[stream] = m;
    a->nqueued++;
    a->bytes_queued += len;
    acct_queued(ep, a, m);
    return 0;
}

void tx_copy_payload(const struct txmsg *m, uint64_t off, uint8_t *dst, uint32_t len)
{
    int i = 0;
    while (i < m->iovcnt && off >= m->iov[i].iov_len) {
        off -= m->iov[i].iov_len;
        i++;
    }
    while (len && i < m->iovcnt) {
        size_t n = m->iov[i].iov_len - off;
        if (n > len)
            n = len;
        memcpy(dst, (const uint8_t *)m->iov[i].iov_base + off, n);
        dst += n;
        len -= (uint32_t)n;
        off = 0;
        i++;
    }
}

void tx_put_payload(struct sctpn_endpoint *ep, const struct txmsg *m, uint64_t off, uint8_t *dst,
                    size_t pkt_off, uint32_t len)
{
    if (!ep->txrefs || len < SCTPN_TXREF_MIN) {
        tx_copy_payload(m, off, dst, len);
        return;
    }
    int i = 0;
    while (i < m->iovcnt && off >= m->iov[i].iov_len) {
        off -= m->iov[i].iov_len;
        i++;
    }
    while (len && i < m->iovcnt) {
        size_t n = m->iov[i].iov_len - off;
        if (n > len)
            n = len;
        const uint8_t *src = (const uint8_t *)m->iov[i].iov_base + off;
        struct sctpn_txref *last = ep->txref_n ? &ep->txrefs[ep->txref_n - 1] : NULL;
        if (last && last->off + last->len == pkt_off &&
            (const uint8_t *)last->data + last->len == src) {
            last->len += n; /* continues the previous reference (adjacent iovec memory) */
        } else if (n >= SCTPN_TXREF_MIN && ep->txref_n < ep->txref_max) {
            ep->txrefs[ep->txref_n++] = (struct sctpn_txref){ pkt_off, n, src };
        } else {
            memcpy(dst, src, n);
        }
        dst += n;
        pkt_off += n;
        len -= (uint32_t)n;
        off = 0;
        i++;
    }
}

void tx_packet_set_crc(struct sctpn_endpoint *ep, uint8_t *buf, size_t len)
{
    if (!ep->txrefs || !ep->txref_n) {
        sctpn_packet_set_crc(buf, len);
        return;
    }
    static const uint8_t zero[4];
    uint32_t c = crc32c_update(~0u, buf, 8);
    c = crc32c_update(c, zero, 4);
    size_t at = 12;
    for (int i = 0; i < ep->txref_n; i++) {
        const struct sctpn_txref *r = &ep->txrefs[i];
        c = crc32c_update(c, buf + at, r->off - at);
        c = crc32c_update(c, r->data, r->len);
        at = r->off + r->len;
    }
    c = ~crc32c_update(c, buf + at, len - at);
    buf[8] = (uint8_t)c;
    buf[9] = (uint8_t)(c >> 8);
    buf[10] = (uint8_t)(c >> 16);
    buf[11] = (uint8_t)(c >> 24);
}

struct txc *tx_chunk(struct sctpn_assoc *a, uint32_t tsn)
{
    return &a->ring[tsn & (a->ring_cap - 1)];
}

/* room for one more chunk in the ring (grows it, keeping TSN order) */
int tx_ring_reserve(struct sctpn_assoc *a)
{
    uint32_t live = a->next_tsn - (a->cum_ack + 1);
    if (live < a->ring_cap)
        return 0;
    uint32_t ncap = a->ring_cap * 2;
    if (ncap > (1u << 24))
        return SCTPN_ELIMIT;
    struct txc *n = calloc(ncap, sizeof *n);
    if (!n)
        return SCTPN_ENOMEM;
    for (uint32_t t = a->cum_ack + 1; t != a->next_tsn; t++)
        n[t & (ncap - 1)] = a->ring[t & (a->ring_cap - 1)];
    free(a->ring);
    a->ring = n;
    a->ring_cap = ncap;
    return 0;
}

void tx_mark_rtx(struct sctpn_assoc *a, uint32_t tsn, struct txc *c)
{
    if (c->in_flight) {
        a->paths[c->path].flight -= c->len;
        a->total_flight -= c->len;
        c->in_flight = 0;
    }
    if (c->state != TXC_RTX) {
        c->state = TXC_RTX;
        a->n_rtx++;
        if (tsn_lt(tsn, a->rtx_hint))
            a->rtx_hint = tsn;
    }
    struct path *p = &a->paths[c->path];
    if (p->rtt_pending && p->rtt_tsn == tsn)
        p->rtt_pending = 0; /* Karn: never time a retransmitted chunk */
    c->path = (uint8_t)path_alternate(a, c->path);
}

void tx_mark_outstanding_rtx(struct sctpn_assoc *a, int pi)
{
    for (uint32_t t = a->cum_ack + 1; t != a->next_tsn; t++) {
        struct txc *c = tx_chunk(a, t);
        if (c->state == TXC_OUT && c->in_flight && (pi < 0 || c->path == pi)) {
            tx_mark_rtx(a, t, c);
            acct_mark_lost(c, SCTPN_RTX_T3);
        }
    }
}

int tx_all_acked(const struct sctpn_assoc *a)
{
    return !a->nqueued && a->cum_ack + 1 == a->next_tsn;
}

/* chunks up to cum are acknowledged for good: release them (their messages may be done) */
void tx_release_upto(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t cum);
void tx_release_upto(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t cum)
{
    while (tsn_lt(a->cum_ack, cum)) {
        uint32_t t = a->cum_ack + 1;
        struct txc *c = tx_chunk(a, t);
        a->cum_ack = t;
        if (c->state == TXC_RTX)
            a->n_rtx--;
        if (c->in_flight) {
            a->paths[c->path].flight -= c->len;
            a->total_flight -= c->len;
            c->in_flight = 0;
        }
        struct txmsg *m = c->msg;
        c->msg = NULL;
        if (m && --m->chunks_live == 0 && m->frag_off == m->len)
            msg_finish(ep, a, m, 1);
    }
    if (tsn_lt(a->rtx_hint, a->cum_ack + 1))
        a->rtx_hint = a->cum_ack + 1;
}

void tx_free_all(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int failed)
{
    (void)failed; /* every unfinished message fails; events are off at endpoint_free */
    for (uint32_t t = a->cum_ack + 1; t != a->next_tsn; t++) {
        struct txc *c = tx_chunk(a, t);
        struct txmsg *m = c->msg;
        c->msg = NULL;
        if (m && --m->chunks_live == 0 && m->frag_off == m->len)
            msg_finish(ep, a, m, 0);
    }
    a->cum_ack = a->next_tsn - 1;
    a->n_rtx = 0;
    a->total_flight = 0;
    for (int i = 0; i < a->npaths; i++)
        a->paths[i].flight = 0;
    for (uint16_t s = 0; a->nqueued && s < ep->cfg.num_ostreams; s++)
        while (a->sq_head[s]) {
            struct txmsg *m = a->sq_head[s];
            sq_pop(a, m);
            msg_finish(ep, a, m, 0);
        }
}

/* remove the head message of its stream's queue (it is all in chunks, or failed) */
void sq_pop(struct sctpn_assoc *a, struct txmsg *m)
{
    uint16_t s = m->stream;
    a->sq_head[s] = m->next;
    if (!a->sq_head[s])
        a->sq_tail[s] = NULL;
    m->next = NULL;
    a->nqueued--;
}

/* the message to cut the next chunk from: round robin over the streams.  With DATA a message
 * is finished before another starts (its fragments need consecutive TSNs); with I-DATA the
 * streams take turns chunk by chunk (RFC 8260: a large message does not hold up the others).
 * Messages on streams the peer did not grant fail. */
struct txmsg *sq_peek(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    uint16_t n = ep->cfg.num_ostreams;
    for (uint16_t k = 0; a->nqueued && k < n; k++) {
        uint16_t s = (uint16_t)((a->cur_stream + k) % n);
        while (a->sq_head[s] && s >= a->os) {
            struct txmsg *m = a->sq_head[s];
            sq_pop(a, m);
            msg_finish(ep, a, m, 0);
        }
        if (a->sq_head[s]) {
            a->cur_stream = s;
            return a->sq_head[s];
        }
    }
    return NULL;
}
