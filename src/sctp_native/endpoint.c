/* endpoint.c — the endpoint: configuration defaults, creation/destruction, the random source,
 * event delivery, packet input dispatch (verification-tag rules and out-of-the-blue handling of
 * RFC 9260 sections 8.4/8.5, unknown-chunk handling of section 3.2), packet output round robin
 * over associations, and the timer entry points. */
#include <stdlib.h>
#include <sys/random.h>

#include "sctpn_internal.h"

int crc_ok(const uint8_t *pkt, size_t len);

void sctpn_config_defaults(struct sctpn_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->num_ostreams = 16;
    cfg->max_instreams = 16;
    cfg->rwnd = 4u << 20;
    cfg->sndbuf = 4u << 20;
    cfg->max_msg_size = 64u << 20;
    cfg->timing = 1;
    cfg->mtu = 1452;
    cfg->rto_initial_us = 1000000;
    cfg->rto_min_us = 200000;
    cfg->rto_max_us = 60000000;
    cfg->hb_interval_us = 30000000;
    cfg->sack_delay_us = 200000;
    cfg->cookie_life_us = 60000000;
    cfg->sack_freq = 2;
    cfg->max_burst = 4;
    cfg->abc_l = 1;
    cfg->path_max_retrans = 5;
    cfg->assoc_max_retrans = 10;
    cfg->pf_threshold = 2;
    cfg->max_init_retrans = 8;
    cfg->max_out_chunks = 4096;
    cfg->max_out_chunks_idata = 500;
    cfg->accept_incoming = 1;
    cfg->tlp = 1;
    cfg->rack = 1;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
uint32_t ep_rand32(struct sctpn_endpoint *ep)
{
    return (uint32_t)(splitmix(&ep->rng) >> 16);
}
uint32_t ep_rand_nonzero(struct sctpn_endpoint *ep)
{
    uint32_t v;
    while (!(v = ep_rand32(ep)) || u32map_get(&ep->by_vtag, v))
        ;
    return v;
}

sctpn_endpoint *sctpn_endpoint_new(const struct sctpn_config *cfg)
{
    if (!cfg || cfg->mtu < 256 || cfg->num_ostreams == 0 || cfg->max_instreams == 0 ||
        cfg->rwnd < 1500 || cfg->n_local_addrs < 0 || cfg->n_local_addrs > SCTPN_MAX_PATHS ||
        cfg->rto_min_us == 0 || cfg->rto_min_us > cfg->rto_max_us || cfg->sack_freq == 0 ||
        (cfg->cmt_dac && !cfg->cmt) || cfg->cc > SCTPN_CC_AUTO)
        return NULL;
    struct sctpn_endpoint *ep = calloc(1, sizeof *ep);
    if (!ep)
        return NULL;
    ep->cfg = *cfg;
    if (ep->cfg.rto_initial_us < ep->cfg.rto_min_us)
        ep->cfg.rto_initial_us = ep->cfg.rto_min_us;
    ep->rng = cfg->seed;
    if (!ep->rng && getrandom(&ep->rng, sizeof ep->rng, 0) != sizeof ep->rng)
        ep->rng = (uint64_t)(uintptr_t)ep ^ 0x5eed;
    static const uint8_t zero[32];
    if (memcmp(cfg->cookie_secret, zero, 32)) {
        memcpy(ep->key, cfg->cookie_secret, 32);
    } else {
        for (int i = 0; i < 8; i++)
            st32(ep->key + 4 * i, ep_rand32(ep));
        uint8_t extra[32];
        if (!cfg->seed && getrandom(extra, sizeof extra, 0) == sizeof extra)
            for (int i = 0; i < 32; i++)
                ep->key[i] ^= extra[i];
    }
    ep->pool.big_size = cfg->mtu;
    ep->next_id = 1;
    return ep;
}

void sctpn_endpoint_free(sctpn_endpoint *ep)
{
    if (!ep)
        return;
    ep->cfg.on_event = NULL;
    ep->cfg.on_data = NULL;
    for (struct sctpn_assoc *a = ep->assocs; a; a = a->link)
        if (!a->dead)
            assoc_down(ep, a, SCTPN_DOWN_ABORT_SENT);
    assoc_reap(ep);
    for (int i = 0; i < ep->raw_n; i++)
        free(ep->rawq[(ep->raw_head + i) % RAWQ_MAX]);
    free(ep->tm_unstamped); /* acct.c */
    while (ep->free_msgs) {
        struct txmsg *m = ep->free_msgs;
        ep->free_msgs = m->next;
        free(m);
    }
    while (ep->free_rxc) {
        struct rxc *r = ep->free_rxc;
        ep->free_rxc = r->next;
        free(r);
    }
    bufpool_free(&ep->pool);
    u32map_free(&ep->by_vtag);
    u32map_free(&ep->by_id);
    free(ep);
}

void ev_emit(struct sctpn_endpoint *ep, const struct sctpn_event *ev)
{
    if (ep->cfg.on_event) {
        ep->in_callback++;
        ep->cfg.on_event(ep->cfg.user, ev);
        ep->in_callback--;
    }
}

void ev_assoc_up(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    struct sctpn_event ev = { .type = SCTPN_EV_ASSOC_UP, .assoc = a->id };
    ev.addr = a->paths[a->primary].remote;
    ev_emit(ep, &ev);
}

void ev_path(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int p)
{
    struct sctpn_event ev = { .type = SCTPN_EV_PATH_CHANGE, .assoc = a->id, .path = p };
    ev.path_state = a->paths[p].state;
    ev.primary = p == a->primary;
    ev.addr = a->paths[p].remote;
    ev_emit(ep, &ev);
}

/* out-of-the-blue reply: ABORT or SHUTDOWN-COMPLETE with the T bit, the packet's own tag */
static void ootb_reply(struct sctpn_endpoint *ep, const struct sctpn_pkt *pk, uint8_t type,
                       const struct sctpn_addr *from, const struct sctpn_addr *to)
{
    uint8_t b[16];
    put_common_hdr(b, pk->dst_port, pk->src_port, pk->vtag);
    put_chunk_hdr(b + 12, 4, type, F_T, 0);
    sctpn_packet_set_crc(b, 16);
    raw_enqueue(ep, to, from, b, 16);
}

/* HEARTBEAT-ACK straight back to the source of a heartbeat from an unknown address */
static void hb_ack_raw(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                       const struct sctpn_chunk *c, const struct sctpn_addr *from,
                       const struct sctpn_addr *to)
{
    uint8_t b[12 + 4 + 256];
    if (c->vlen > 256 || c->vlen < 4 || !a->peer_vtag)
        return;
    struct tlv_iter it = { c->val, c->vlen };
    uint16_t t;
    const uint8_t *v;
    size_t vl;
    int r;
    while ((r = tlv_next(&it, &t, &v, &vl)) > 0)
        ;
    if (r < 0)
        return;
    put_common_hdr(b, ep->cfg.sctp_port, a->peer_port, a->peer_vtag);
    size_t n = put_chunk_hdr(b + 12, sizeof b - 12, CT_HEARTBEAT_ACK, 0, c->vlen);
    memcpy(b + 16, c->val, c->vlen);
    sctpn_packet_set_crc(b, 12 + n);
    raw_enqueue(ep, to, from, b, 12 + n);
}

static int addr_eq(const struct sctpn_addr *x, const struct sctpn_addr *y)
{
    return x->ipv4 == y->ipv4 && x->udp_port == y->udp_port;
}

/* T-bit ABORT / SHUTDOWN-COMPLETE: the association is found by address, checked by peer tag */
static struct sctpn_assoc *by_reflected_tag(struct sctpn_endpoint *ep, const struct sctpn_pkt *pk,
                                            const struct sctpn_addr *from)
{
    struct sctpn_assoc *a = assoc_by_addr(ep, from, pk->src_port);
    if (a && a->peer_vtag == pk->vtag)
        return a;
    return NULL;
}

static void unknown_chunk_error(struct sctpn_assoc *a, const struct sctpn_chunk *c)
{
    /* one "Unrecognized Chunk Type" cause carrying the chunk header (and a bit of its value) */
    size_t body = c->vlen < 16 ? c->vlen : 16;
    size_t need = 4 + 4 + body;
    if (a->err_len + pad4(need) > sizeof a->err_buf)
        return;
    uint8_t *p = a->err_buf + a->err_len;
    st16(p, EC_UNRECOGNIZED_CHUNK);
    st16(p + 2, (uint16_t)need);
    p[4] = c->type;
    p[5] = c->flags;
    st16(p + 6, c->len);
    memcpy(p + 8, c->val, body);
    memset(p + need, 0, pad4(need) - need);
    a->err_len += (uint16_t)pad4(need);
    a->ctrl |= CTL_ERROR;
}

static int input(struct sctpn_endpoint *ep, const uint8_t *pkt, size_t len,
                 const struct sctpn_addr *from, const struct sctpn_addr *to, uint64_t now)
{
    struct sctpn_pkt pk;
    if (len > 65535)
        return SCTPN_EMALFORMED;
    int rc = pkt_parse(pkt, len, &pk);
    if (rc < 0)
        return rc;
    if (pk.dst_port != ep->cfg.sctp_port || pk.src_port == 0)
        return SCTPN_EOOTB;
    const struct sctpn_chunk *c0 = &pk.first;
    struct sctpn_assoc *a = u32map_get(&ep->by_vtag, pk.vtag);
    if (a && a->dead)
        a = NULL;
    /* checksum: zero is accepted only on an association that negotiated RFC 9653 */
    int zero = !pkt[8] && !pkt[9] && !pkt[10] && !pkt[11];
    if (!(zero && a && a->zero_cksum) && !crc_ok(pkt, len))
        return SCTPN_ECRC;

    if (c0->type == CT_INIT) {
        if (pk.vtag != 0)
            return SCTPN_EVTAG;
        struct sctpn_assoc *e = assoc_by_addr(ep, from, pk.src_port);
        return hs_input_init(ep, e, &pk, c0, from, to, now);
    }
    int first = 0;
    if (c0->type == CT_COOKIE_ECHO) {
        rc = hs_input_cookie_echo(ep, &a, &pk, c0, from, to, now);
        if (rc < 0)
            return rc;
        first = 1;
    } else if ((c0->type == CT_ABORT || c0->type == CT_SHUTDOWN_COMPLETE) && (c0->flags & F_T)) {
        a = by_reflected_tag(ep, &pk, from);
        if (!a)
            return SCTPN_EVTAG;
    }
    if (!a && assoc_by_addr(ep, from, pk.src_port))
        return SCTPN_EVTAG; /* RFC 9260 8.5: a known peer with a wrong tag: silently dropped */
    if (!a && c0->type == CT_ABORT)
        return SCTPN_EOOTB; /* never answer an ABORT */
    if (!a) {
        switch (c0->type) {
        case CT_SHUTDOWN_ACK: ootb_reply(ep, &pk, CT_SHUTDOWN_COMPLETE, from, to); break;
        case CT_SHUTDOWN_COMPLETE:
        case CT_COOKIE_ACK:
        case CT_ERROR: break;
        default: { /* answered with an ABORT unless an ABORT is in the packet (RFC 9260 8.4) */
            size_t o = PKT_FIRST_CHUNK;
            struct sctpn_chunk x;
            while (pkt_next(&pk, &o, &x))
                if (x.type == CT_ABORT)
                    return SCTPN_EOOTB;
            ootb_reply(ep, &pk, CT_ABORT, from, to);
        }
        }
        return SCTPN_EOOTB;
    }
    if (a->peer_port != pk.src_port)
        return SCTPN_EVTAG;

    int pi = assoc_path_of(a, from);
    if (pi < 0) {
        for (int i = 0; i < a->npaths && pi < 0; i++)
            if (a->paths[i].remote.ipv4 == from->ipv4) {
                /* RFC 6951 5.4: the peer's UDP port changed (e.g. a NAT rebinding) */
                a->paths[i].remote.udp_port = from->udp_port;
                pi = i;
            }
        /* else: the right tag from an address the peer did not list (e.g. a heartbeat to
         * confirm an address we listed, sent from one of its own that its INIT left out):
         * accepted, answered to where it came from, but no path is made of it */
    }
    a->packets_in++;
    if (pi >= 0)
        a->paths[pi].packets_in++;
    int had_data = 0;
    rc = 0;
    size_t off = PKT_FIRST_CHUNK;
    struct sctpn_chunk cur;
    if (first)
        pkt_next(&pk, &off, &cur); /* the COOKIE-ECHO, handled above */
    for (int i = first; !a->dead && pkt_next(&pk, &off, &cur); i++) {
        const struct sctpn_chunk *c = &cur;
        switch (c->type) {
        case CT_DATA:
        case CT_I_DATA:
            if (a->state < SCTPN_ESTABLISHED)
                break; /* RFC 9260 5.1: no DATA before the association is up on our side */
            if ((c->type == CT_I_DATA) != (a->idata != 0)) {
                send_abort_raw(ep, a, EC_PROTOCOL_VIOLATION);
                assoc_down(ep, a, SCTPN_DOWN_ABORT_SENT);
                return SCTPN_EMALFORMED;
            }
            had_data = 1;
            if (pi >= 0)
                a->sack_path = pi;
            if (rx_data(ep, a, c, pi, now) < 0)
                rc = SCTPN_EMALFORMED;
            break;
        case CT_SACK:
            if (a->state >= SCTPN_ESTABLISHED && tx_sack(ep, a, c, now) < 0)
                rc = SCTPN_EMALFORMED;
            break;
        case CT_INIT_ACK:
            if (i == 0)
                rc = hs_input_init_ack(ep, a, c, now);
            break;
        case CT_COOKIE_ACK: hs_input_cookie_ack(ep, a, now); break;
        case CT_COOKIE_ECHO: break; /* only meaningful as the first chunk */
        case CT_HEARTBEAT:
            if (pi >= 0)
                path_hb_input(ep, a, pi, c);
            else
                hb_ack_raw(ep, a, c, from, to);
            break;
        case CT_HEARTBEAT_ACK: path_hb_ack_input(ep, a, c, now); break;
        case CT_ABORT:
            if ((c->flags & F_T) ? pk.vtag != a->peer_vtag : pk.vtag != a->my_vtag)
                return SCTPN_EVTAG;
            assoc_down(ep, a, SCTPN_DOWN_ABORT_RECEIVED);
            break;
        case CT_SHUTDOWN:
            if (c->vlen < 4)
                return SCTPN_EMALFORMED;
            sd_input_shutdown(ep, a, c, pi, now);
            break;
        case CT_SHUTDOWN_ACK: sd_input_shutdown_ack(ep, a, from, to, now); break;
        case CT_SHUTDOWN_COMPLETE: sd_input_shutdown_complete(ep, a); break;
        case CT_ERROR: {
            struct tlv_iter it = { c->val, c->vlen };
            uint16_t t;
            const uint8_t *v;
            size_t vl;
            while (tlv_next(&it, &t, &v, &vl) > 0)
                if (t == EC_STALE_COOKIE && a->state == SCTPN_COOKIE_ECHOED) {
                    /* RFC 9260 5.2.6: start over with a fresh INIT */
                    a->state = SCTPN_COOKIE_WAIT;
                    a->ctrl = CTL_INIT;
                    free(a->cookie);
                    a->cookie = NULL;
                }
            break;
        }
        default:
            /* RFC 9260 3.2: the two high bits say stop/skip and whether to report */
            if (c->type & 0x40)
                unknown_chunk_error(a, c);
            if (!(c->type & 0x80))
                off = pk.len; /* stop processing the packet */
            break;
        }
    }
    if (!a->dead)
        rx_packet_done(ep, a, had_data, now);
    return rc;
}

int sctpn_input(sctpn_endpoint *ep, const uint8_t *pkt, size_t len, const struct sctpn_addr *from,
                const struct sctpn_addr *to, uint64_t now_us)
{
    if (!ep || !pkt || !from || ep->in_callback)
        return SCTPN_EINVAL;
    struct sctpn_addr any = { 0, 0 };
    acct_clock(ep, now_us);
    int rc = input(ep, pkt, len, from, to ? to : &any, now_us);
    assoc_reap(ep);
    return rc;
}

int raw_enqueue(struct sctpn_endpoint *ep, const struct sctpn_addr *from,
                const struct sctpn_addr *to, const uint8_t *pkt, size_t len)
{
    if (ep->raw_n == RAWQ_MAX)
        return SCTPN_ELIMIT; /* bounded: stateless replies are dropped under a flood */
    struct rawpkt *r = malloc(sizeof *r + len);
    if (!r)
        return SCTPN_ENOMEM;
    r->from = *from;
    r->to = *to;
    r->len = (uint16_t)len;
    memcpy(r->data, pkt, len);
    ep->rawq[(ep->raw_head + ep->raw_n) % RAWQ_MAX] = r;
    ep->raw_n++;
    return 0;
}

int sctpn_poll_transmit(sctpn_endpoint *ep, uint64_t now_us, uint8_t *buf, size_t cap,
                        struct sctpn_addr *from, struct sctpn_addr *to)
{
    if (!ep || !buf || !from || !to || ep->in_callback)
        return SCTPN_EINVAL;
    acct_clock(ep, now_us);
    while (ep->raw_n) {
        struct rawpkt *r = ep->rawq[ep->raw_head];
        ep->raw_head = (ep->raw_head + 1) % RAWQ_MAX;
        ep->raw_n--;
        int n = 0;
        if (r->len <= cap) {
            memcpy(buf, r->data, r->len);
            *from = r->from;
            *to = r->to;
            n = r->len;
        }
        free(r);
        if (n)
            return n;
    }
    int n = 0;
    struct sctpn_assoc *start = ep->rr ? ep->rr : ep->assocs;
    struct sctpn_assoc *a = start;
    for (int k = 0; a && k < 2 * ep->nassocs + 1; k++) {
        if (!a->dead)
            n = assoc_build_packet(ep, a, now_us, buf, cap, from, to);
        if (n <= 0 && !a->dead)
            acct_tx_idle(ep, a, now_us); /* acct.c: what holds its queued data now */
        struct sctpn_assoc *next = a->link ? a->link : ep->assocs;
        if (n > 0) {
            ep->rr = next;
            break;
        }
        a = next;
        if (a == start)
            break;
    }
    if (n <= 0 && ep->raw_n) /* an ABORT built while looking */
        return sctpn_poll_transmit(ep, now_us, buf, cap, from, to);
    if (n <= 0)
        n = 0;
    assoc_reap(ep);
    return n;
}

int sctpn_poll_transmit_refs(sctpn_endpoint *ep, uint64_t now_us, uint8_t *buf, size_t cap,
                             struct sctpn_addr *from, struct sctpn_addr *to,
                             struct sctpn_txref *refs, int max_refs, int *nrefs)
{
    if (!ep || !nrefs || max_refs < 0 || (max_refs && !refs))
        return SCTPN_EINVAL;
    *nrefs = 0;
    if (ep->in_callback)
        return SCTPN_EINVAL;
    ep->txrefs = max_refs ? refs : NULL;
    ep->txref_n = 0;
    ep->txref_max = max_refs;
    int n = sctpn_poll_transmit(ep, now_us, buf, cap, from, to);
    *nrefs = n > 0 ? ep->txref_n : 0;
    ep->txrefs = NULL;
    ep->txref_n = ep->txref_max = 0;
    return n;
}

static uint64_t assoc_deadline(const struct sctpn_assoc *a)
{
    uint64_t d = a->t1 < a->t2 ? a->t1 : a->t2;
    if (a->sack_pending && a->sack_due < d)
        d = a->sack_due;
    for (int i = 0; i < a->npaths; i++) {
        if (a->paths[i].t3 < d)
            d = a->paths[i].t3;
        if (a->paths[i].hb_due < d)
            d = a->paths[i].hb_due;
        if (a->paths[i].pto < d)
            d = a->paths[i].pto;
        if (a->paths[i].rack_timer < d)
            d = a->paths[i].rack_timer;
        if (a->paths[i].pace_blocked && a->paths[i].pace_next_us < d)
            d = a->paths[i].pace_next_us; /* cc.c: paced data may leave then */
    }
    return d;
}

uint64_t sctpn_next_deadline(sctpn_endpoint *ep)
{
    if (!ep)
        return NEVER;
    uint64_t d = NEVER;
    for (struct sctpn_assoc *a = ep->assocs; a; a = a->link)
        if (!a->dead) {
            uint64_t x = assoc_deadline(a);
            if (x < d)
                d = x;
        }
    return d;
}

void sctpn_handle_timeout(sctpn_endpoint *ep, uint64_t now)
{
    if (!ep || ep->in_callback)
        return;
    acct_clock(ep, now);
    for (struct sctpn_assoc *a = ep->assocs; a; a = a->link) {
        if (a->dead)
            continue;
        if (a->t1 <= now)
            hs_t1_expired(ep, a, now);
        if (!a->dead && a->t2 <= now)
            sd_t2_expired(ep, a, now);
        if (!a->dead && a->sack_pending && a->sack_due <= now)
            a->sack_now = 1;
        int rack_due = 0;
        for (int i = 0; i < a->npaths; i++)
            rack_due |= a->paths[i].rack_timer <= now;
        if (rack_due) /* rack.c: chunks whose reordering window has passed are lost */
            rack_detect(ep, a, now);
        for (int i = 0; i < a->npaths && !a->dead; i++) {
            /* the probe first: a PTO capped at the T3 deadline replaces that T3 (tlp.c) */
            if (a->paths[i].pto <= now)
                tlp_expired(ep, a, i, now);
            if (a->paths[i].t3 <= now)
                path_t3_expired(ep, a, i, now);
            if (!a->dead && a->paths[i].hb_due <= now)
                path_hb_timer(ep, a, i, now);
        }
    }
    assoc_reap(ep);
}

int sctpn_connect(sctpn_endpoint *ep, uint16_t peer_port, const struct sctpn_addr *remote,
                  int nremote, const struct sctpn_addr *local, int nlocal, uint64_t now,
                  sctpn_assoc_id *out)
{
    if (!ep || !remote || nremote < 1 || nremote > SCTPN_MAX_PATHS || nlocal < 0 ||
        (nlocal > 0 && !local) || peer_port == 0)
        return SCTPN_EINVAL;
    for (int i = 0; i < nremote; i++) { /* one association per peer: reuse a live one */
        struct sctpn_assoc *e = assoc_by_addr(ep, &remote[i], peer_port);
        if (e) {
            if (out)
                *out = e->id;
            return 0;
        }
    }
    struct sctpn_assoc *a = assoc_new(ep, ep_rand_nonzero(ep), ep_rand32(ep));
    if (!a)
        return SCTPN_ENOMEM;
    a->peer_port = peer_port;
    struct sctpn_addr any = { 0, 0 };
    for (int i = 0; i < nremote; i++) {
        int dup = 0;
        for (int j = 0; j < i; j++)
            dup |= addr_eq(&remote[i], &remote[j]);
        if (!dup) {
            int k = assoc_add_path(ep, a, remote[i], nlocal ? local[i % nlocal] : any);
            if (k >= 0)
                a->paths[k].confirmed = 1; /* given by the caller */
        }
    }
    for (int i = 0; i < a->npaths; i++)
        path_init(ep, &a->paths[i], now);
    for (int i = 0; i < nlocal; i++) /* every local address goes into the INIT */
        assoc_add_my_addr(a, local[i]);
    for (int i = 0; i < ep->cfg.n_local_addrs; i++)
        assoc_add_my_addr(a, ep->cfg.local_addrs[i]);
    a->state = SCTPN_COOKIE_WAIT;
    a->ctrl = CTL_INIT;
    a->rto_t1 = ep->cfg.rto_initial_us;
    a->t1 = now + a->rto_t1;
    if (out)
        *out = a->id;
    return 0;
}

int sctpn_set_primary(sctpn_endpoint *ep, sctpn_assoc_id id, int path)
{
    struct sctpn_assoc *a = ep ? assoc_by_id(ep, id) : NULL;
    if (!a)
        return SCTPN_ENOASSOC;
    if (path < 0 || path >= a->npaths)
        return SCTPN_EINVAL;
    a->primary = path;
    return 0;
}

int sctpn_assoc_state(sctpn_endpoint *ep, sctpn_assoc_id id)
{
    struct sctpn_assoc *a = ep ? assoc_by_id(ep, id) : NULL;
    return a ? a->state : SCTPN_ENOASSOC;
}

int sctpn_get_stats(sctpn_endpoint *ep, sctpn_assoc_id id, struct sctpn_assoc_stats *st)
{
    struct sctpn_assoc *a = ep ? assoc_by_id(ep, id) : NULL;
    if (!a || !st)
        return a ? SCTPN_EINVAL : SCTPN_ENOASSOC;
    memset(st, 0, sizeof *st);
    st->state = a->state;
    st->out_streams = a->os;
    st->in_streams = a->is;
    st->peer_rwnd = a->peer_rwnd;
    st->my_vtag = a->my_vtag;
    st->peer_vtag = a->peer_vtag;
    st->next_tsn = a->next_tsn;
    st->cum_tsn_acked = a->cum_ack;
    st->cum_tsn_received = a->cum_tsn;
    st->packets_in = a->packets_in;
    st->packets_out = a->packets_out;
    st->data_chunks_out = a->data_out;
    st->data_chunks_in = a->data_in;
    st->sacks_out = a->sacks_out;
    st->sacks_in = a->sacks_in;
    st->retransmitted_chunks = a->rtx_chunks;
    st->fast_retransmits = a->fast_rtx;
    st->t3_timeouts = a->t3s;
    st->dup_tsns_received = a->dup_in;
    st->dup_tsns_reported = a->dup_reported;
    st->bytes_queued = a->bytes_queued;
    st->bytes_delivered = a->bytes_delivered;
    st->tlp_probes = a->tlp_probes;
    st->tlp_repairs = a->tlp_repairs;
    st->rack_losses = a->rack_losses;
    st->handshake_retransmits = (uint64_t)(a->hs_init_sends > 1 ? a->hs_init_sends - 1 : 0) +
                                (uint64_t)(a->hs_echo_sends > 1 ? a->hs_echo_sends - 1 : 0);
    st->idata = (uint32_t)a->idata;
    st->zero_checksum = (uint32_t)a->zero_cksum;
    st->cmt = (uint32_t)a->cmt;
    st->cmt_dac = (uint32_t)a->dac;
    st->spurious_fast_retransmits = a->spurious_frtx;
    st->timing = a->tm;
    st->npaths = a->npaths;
    for (int i = 0; i < a->npaths; i++) {
        const struct path *p = &a->paths[i];
        struct sctpn_path_stats *s = &st->paths[i];
        s->remote = p->remote;
        s->local = p->local;
        s->state = p->state;
        s->primary = i == a->primary;
        s->confirmed = p->confirmed;
        s->cwnd = p->cwnd;
        s->ssthresh = p->ssthresh;
        s->flight_bytes = p->flight;
        s->partial_bytes_acked = p->pba;
        s->srtt_us = p->srtt;
        s->rttvar_us = p->rttvar;
        s->rto_us = p->rto;
        s->last_rtt_us = p->last_rtt;
        s->error_count = p->error_count;
        s->packets_out = p->packets_out;
        s->packets_in = p->packets_in;
        s->t3_timeouts = p->t3_timeouts;
        s->retransmitted_chunks = p->retransmitted_chunks;
        s->heartbeats_out = p->hbs_out;
        s->heartbeat_acks_in = p->hbacks_in;
        s->pacing_rate = p->pacing_rate;
        if (p->cc_algo == SCTPN_CC_BBR) {
            s->btl_bw = p->cc.bbr.btl_bw;
            s->min_rtt_us = p->cc.bbr.min_rtt_us;
        }
    }
    return 0;
}
