/* shutdown.c — graceful shutdown (RFC 9260 9.2: SHUTDOWN, SHUTDOWN-ACK, SHUTDOWN-COMPLETE,
 * T2-shutdown) and abort (9.1), plus the public sctpn_shutdown / sctpn_abort calls. */
#include "sctpn_internal.h"

static void start_t2(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now)
{
    a->ctl_path = path_for_data(ep, a); /* the primary unless it is down */
    a->t2 = now + a->paths[a->ctl_path].rto;
}

/* RFC 9260 9.2: the SHUTDOWN-ACK answers the SHUTDOWN, so it goes back to where the SHUTDOWN
 * came from (the path the peer found working), not to our primary (it may be dead without
 * our knowing: a receiver sends nothing there).  T2 retransmissions may move on. */
static void reply_path(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int pi)
{
    if (pi >= 0 && pi < a->npaths && a->paths[pi].state != SCTPN_PATH_FAILED)
        a->ctl_path = pi;
    else
        a->ctl_path = path_for_data(ep, a);
}

void sd_check(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now)
{
    (void)ep;
    if (!tx_all_acked(a))
        return;
    if (a->state == SCTPN_SHUTDOWN_PENDING) {
        a->state = SCTPN_SHUTDOWN_SENT;
        a->ctrl |= CTL_SHUTDOWN;
        start_t2(ep, a, now);
    } else if (a->state == SCTPN_SHUTDOWN_RECEIVED) {
        a->state = SCTPN_SHUTDOWN_ACK_SENT;
        a->ctrl |= CTL_SHUTDOWN_ACK;
        start_t2(ep, a, now);
        reply_path(ep, a, a->shutdown_from);
    }
}

void sd_input_shutdown(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                       const struct sctpn_chunk *c, int pi, uint64_t now)
{
    if (a->state < SCTPN_ESTABLISHED)
        return;
    tx_cum_ack(ep, a, ld32(c->val), now);
    switch (a->state) {
    case SCTPN_ESTABLISHED:
    case SCTPN_SHUTDOWN_PENDING:
        a->state = SCTPN_SHUTDOWN_RECEIVED;
        a->shutdown_from = pi;
        break;
    case SCTPN_SHUTDOWN_ACK_SENT: /* our SHUTDOWN-ACK was lost: send it again */
        a->ctrl |= CTL_SHUTDOWN_ACK;
        reply_path(ep, a, pi);
        return;
    case SCTPN_SHUTDOWN_SENT: /* both sides shut down at once (9.2) */
        a->state = SCTPN_SHUTDOWN_ACK_SENT;
        a->ctrl &= ~(uint32_t)CTL_SHUTDOWN;
        a->ctrl |= CTL_SHUTDOWN_ACK;
        start_t2(ep, a, now);
        reply_path(ep, a, pi);
        return;
    case SCTPN_SHUTDOWN_RECEIVED: /* a retransmitted SHUTDOWN: answer the latest path */
        a->shutdown_from = pi;
        return;
    default: return;
    }
    sd_check(ep, a, now);
}

/* RFC 9260 9.2: the SHUTDOWN-COMPLETE goes to the source of the SHUTDOWN-ACK it answers,
 * from the address that packet arrived on */
static void send_shutdown_complete(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                                   const struct sctpn_addr *from, const struct sctpn_addr *to)
{
    uint8_t b[16];
    put_common_hdr(b, ep->cfg.sctp_port, a->peer_port, a->peer_vtag);
    put_chunk_hdr(b + 12, 4, CT_SHUTDOWN_COMPLETE, 0, 0);
    sctpn_packet_set_crc(b, 16);
    int pi = assoc_path_of(a, from);
    if (pi >= 0) /* the local address we pair with that path (to may be 0.0.0.0:0) */
        raw_enqueue(ep, &a->paths[pi].local, &a->paths[pi].remote, b, 16);
    else
        raw_enqueue(ep, to, from, b, 16);
}

void sd_input_shutdown_ack(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                           const struct sctpn_addr *from, const struct sctpn_addr *to,
                           uint64_t now)
{
    (void)now;
    if (a->state == SCTPN_SHUTDOWN_SENT || a->state == SCTPN_SHUTDOWN_ACK_SENT) {
        send_shutdown_complete(ep, a, from, to);
        assoc_down(ep, a, SCTPN_DOWN_SHUTDOWN);
    }
}

void sd_input_shutdown_complete(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    if (a->state == SCTPN_SHUTDOWN_ACK_SENT)
        assoc_down(ep, a, SCTPN_DOWN_SHUTDOWN);
}

void sd_t2_expired(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now)
{
    a->t2 = NEVER;
    if (a->state != SCTPN_SHUTDOWN_SENT && a->state != SCTPN_SHUTDOWN_ACK_SENT)
        return;
    int sent_on = a->ctl_path < a->npaths ? a->ctl_path : a->primary; /* where it was lost */
    struct path *p = &a->paths[sent_on];
    p->rto = p->rto * 2 > ep->cfg.rto_max_us ? ep->cfg.rto_max_us : p->rto * 2;
    path_error(ep, a, sent_on, now);
    if (a->dead)
        return;
    a->ctrl |= a->state == SCTPN_SHUTDOWN_SENT ? CTL_SHUTDOWN : CTL_SHUTDOWN_ACK;
    a->ctl_path = path_for_data(ep, a);
    a->t2 = now + a->paths[a->ctl_path].rto;
}

void send_abort_raw(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint16_t cause)
{
    if (!a->peer_vtag || !a->npaths)
        return; /* the peer's tag is unknown yet: nothing it would accept */
    uint8_t b[24];
    size_t n = SCTP_COMMON_HDR;
    put_common_hdr(b, ep->cfg.sctp_port, a->peer_port, a->peer_vtag);
    if (cause) {
        n += put_chunk_hdr(b + n, sizeof b - n, CT_ABORT, 0, 4);
        st16(b + 16, cause);
        st16(b + 18, 4);
    } else {
        n += put_chunk_hdr(b + n, sizeof b - n, CT_ABORT, 0, 0);
    }
    sctpn_packet_set_crc(b, n);
    int pi = path_for_data(ep, a);
    raw_enqueue(ep, &a->paths[pi].local, &a->paths[pi].remote, b, n);
}

int sctpn_shutdown(sctpn_endpoint *ep, sctpn_assoc_id id, uint64_t now)
{
    struct sctpn_assoc *a = ep ? assoc_by_id(ep, id) : NULL;
    if (!a)
        return SCTPN_ENOASSOC;
    if (a->state < SCTPN_ESTABLISHED) { /* nothing to shut down gracefully yet */
        send_abort_raw(ep, a, EC_USER_ABORT);
        assoc_down(ep, a, SCTPN_DOWN_ABORT_SENT);
        return 0;
    }
    if (a->state != SCTPN_ESTABLISHED)
        return a->state >= SCTPN_SHUTDOWN_PENDING ? 0 : SCTPN_ESTATE;
    a->state = SCTPN_SHUTDOWN_PENDING;
    sd_check(ep, a, now);
    return 0;
}

int sctpn_abort(sctpn_endpoint *ep, sctpn_assoc_id id, uint64_t now)
{
    (void)now;
    struct sctpn_assoc *a = ep ? assoc_by_id(ep, id) : NULL;
    if (!a)
        return SCTPN_ENOASSOC;
    send_abort_raw(ep, a, EC_USER_ABORT);
    assoc_down(ep, a, SCTPN_DOWN_ABORT_SENT);
    return 0;
}
