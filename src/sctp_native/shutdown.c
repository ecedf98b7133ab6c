/* shutdown.c — graceful shutdown (RFC 9260 9.2: SHUTDOWN, SHUTDOWN-ACK, SHUTDOWN-COMPLETE,
 * T2-shutdown) and abort (9.1), plus the public sctpn_shutdown / sctpn_abort calls. */
#include "sctpn_internal.h"

static void start_t2(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now)
{
    a->ctl_path = path_for_data(ep, a); /* the primary unless it is down */
    a->t2 = now + a->paths[a->ctl_path].rto;
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
    }
}

void sd_input_shutdown(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                       const struct sctpn_chunk *c, uint64_t now)
{
    if (a->state < SCTPN_ESTABLISHED)
        return;
    tx_cum_ack(ep, a, ld32(c->val), now);
    switch (a->state) {
    case SCTPN_ESTABLISHED:
    case SCTPN_SHUTDOWN_PENDING:
        a->state = SCTPN_SHUTDOWN_RECEIVED;
        break;
    case SCTPN_SHUTDOWN_ACK_SENT: /* our SHUTDOWN-ACK was lost: send it again */
        a->ctrl |= CTL_SHUTDOWN_ACK;
        a->ctl_path = path_for_data(ep, a);
        return;
    case SCTPN_SHUTDOWN_SENT: /* both sides shut down at once (9.2) */
        a->state = SCTPN_SHUTDOWN_ACK_SENT;
        a->ctrl &= ~(uint32_t)CTL_SHUTDOWN;
        a->ctrl |= CTL_SHUTDOWN_ACK;
        start_t2(ep, a, now);
        return;
    default:
        return;
    }
    sd_check(ep, a, now);
}

static void send_shutdown_complete(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    uint8_t b[16];
    struct path *p = &a->paths[path_for_data(ep, a)];
    put_common_hdr(b, ep->cfg.sctp_port, a->peer_port, a->peer_vtag);
    put_chunk_hdr(b + 12, 4, CT_SHUTDOWN_COMPLETE, 0, 0);
    sctpn_packet_set_crc(b, 16);
    raw_enqueue(ep, &p->local, &p->remote, b, 16);
}

void sd_input_shutdown_ack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now)
{
    (void)now;
    if (a->state == SCTPN_SHUTDOWN_SENT || a->state == SCTPN_SHUTDOWN_ACK_SENT) {
        send_shutdown_complete(ep, a);
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
    struct path *p = &a->paths[a->primary];
    p->rto = p->rto * 2 > ep->cfg.rto_max_us ? ep->cfg.rto_max_us : p->rto * 2;
    path_error(ep, a, a->primary, now);
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
