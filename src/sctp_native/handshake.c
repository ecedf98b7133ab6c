/* handshake.c — association setup (RFC 9260 5.1, 5.2): INIT and INIT-ACK with their
 * parameters, the state cookie (our own layout, MAC'd with SipHash under the endpoint secret,
 * with a creation time and lifetime), COOKIE-ECHO / COOKIE-ACK, T1-init/T1-cookie, and the
 * collision cases of 5.2.1-5.2.4 (simultaneous INITs, peer restart, stale and duplicate
 * cookies).  Feature negotiation: I-DATA (RFC 8260 via Supported Extensions) and zero
 * checksum (RFC 9653).  With cfg.handshake_rtt, the handshake gives each side its first RTT
 * sample (docs/sctp-native.md, "RTT from the handshake"). */
#include <stdlib.h>

#include "sctpn_internal.h"

/* ---- cookie layout (big-endian) ---- */
enum {
    CK_CREATED = 0,
    CK_MY_VTAG = 8,
    CK_PEER_VTAG = 12,
    CK_MY_ITSN = 16,
    CK_PEER_ITSN = 20,
    CK_PEER_RWND = 24,
    CK_TIE_MY = 28,
    CK_TIE_PEER = 32,
    CK_OS = 36,
    CK_IS = 38,
    CK_PEER_PORT = 40,
    CK_FEATURES = 42,
    CK_NADDRS = 43,
    CK_FROM = 44,
    CK_TO = 50,
    CK_ADDRS = 56,
};
#define CK_MAC_LEN 16
#define FEAT_IDATA 1
#define FEAT_ZCSUM 2
#define ZC_EDMID 1 /* RFC 9653 error detection method: "DTLS"=1; we use it as "lower layer" */

static void put_addr(uint8_t *p, const struct sctpn_addr *a)
{
    memcpy(p, &a->ipv4, 4);
    st16(p + 4, a->udp_port);
}
static struct sctpn_addr get_addr(const uint8_t *p)
{
    struct sctpn_addr a;
    memcpy(&a.ipv4, p, 4);
    a.udp_port = ld16(p + 4);
    return a;
}

struct init_info { /* what an INIT or INIT-ACK told us */
    uint32_t itag, arwnd, itsn;
    uint16_t os, mis;
    int idata, zcsum;
    int naddrs;
    uint32_t addrs[SCTPN_MAX_PATHS];
    const uint8_t *cookie;
    size_t cookie_len;
};

static int parse_init(const struct sctpn_chunk *c, struct init_info *ii)
{
    memset(ii, 0, sizeof *ii);
    const uint8_t *v = c->val;
    ii->itag = ld32(v);
    ii->arwnd = ld32(v + 4);
    ii->os = ld16(v + 8);
    ii->mis = ld16(v + 10);
    ii->itsn = ld32(v + 12);
    if (!ii->itag || !ii->os || !ii->mis)
        return SCTPN_EMALFORMED; /* RFC 9260 3.3.2: invalid mandatory parameter */
    struct tlv_iter it = { v + 16, c->vlen - 16 };
    uint16_t t;
    const uint8_t *pv;
    size_t vl;
    int r;
    while ((r = tlv_next(&it, &t, &pv, &vl)) > 0) {
        switch (t) {
        case PT_IPV4:
            if (vl == 4 && ii->naddrs < SCTPN_MAX_PATHS)
                memcpy(&ii->addrs[ii->naddrs++], pv, 4);
            break;
        case PT_COOKIE:
            ii->cookie = pv;
            ii->cookie_len = vl;
            break;
        case PT_SUPPORTED_EXT:
            for (size_t i = 0; i < vl; i++)
                if (pv[i] == CT_I_DATA)
                    ii->idata = 1;
            break;
        case PT_ZERO_CHECKSUM:
            if (vl == 4)
                ii->zcsum = 1;
            break;
        case PT_IPV6:     /* known, but we are IPv4 only */
        case PT_HOSTNAME: /* deprecated (RFC 9260 3.3.2.1) */
        case PT_ADDR_TYPES:
        case PT_COOKIE_PRESERVATIVE: break;
        default:
            if (!(t & 0x8000))
                return 0; /* "stop processing further parameters" */
            break;
        }
    }
    return r < 0 ? SCTPN_EMALFORMED : 0;
}

/* INIT / INIT-ACK common body and optional parameters; returns the chunk value length */
static size_t put_init_body(struct sctpn_endpoint *ep, uint8_t *v, size_t room, uint32_t itag,
                            uint16_t os, uint32_t itsn, const struct sctpn_addr *locals,
                            int nlocal, int idata, int zcsum)
{
    st32(v, itag);
    st32(v + 4, ep->cfg.rwnd);
    st16(v + 8, os);
    st16(v + 10, ep->cfg.max_instreams);
    st32(v + 12, itsn);
    size_t n = 16;
    if (nlocal > 1)
        for (int i = 0; i < nlocal; i++)
            n += put_param(v + n, room - n, PT_IPV4, &locals[i].ipv4, 4);
    if (idata) {
        uint8_t ext[1] = { CT_I_DATA };
        n += put_param(v + n, room - n, PT_SUPPORTED_EXT, ext, 1);
    }
    if (zcsum) {
        uint8_t e[4];
        st32(e, ZC_EDMID);
        n += put_param(v + n, room - n, PT_ZERO_CHECKSUM, e, 4);
    }
    return n;
}

size_t hs_build_init(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint8_t *p, size_t room)
{
    if (room < 4 + 16)
        return 0;
    const struct sctpn_addr *locals = a->my_addrs;
    int nl = a->n_my_addrs;
    size_t vlen = put_init_body(ep, p + 4, room - 4, a->my_vtag, ep->cfg.num_ostreams,
                                a->cum_ack + 1 /* the initial TSN until the peer acks */, locals,
                                nl, ep->cfg.idata, ep->cfg.zero_checksum);
    return put_chunk_hdr(p, room, CT_INIT, 0, vlen);
}

int hs_input_init(struct sctpn_endpoint *ep, struct sctpn_assoc *a, const struct sctpn_pkt *pk,
                  const struct sctpn_chunk *c, const struct sctpn_addr *from,
                  const struct sctpn_addr *to, uint64_t now)
{
    struct init_info ii;
    if (parse_init(c, &ii) < 0)
        return SCTPN_EMALFORMED;
    if (!a && !ep->cfg.accept_incoming)
        return SCTPN_EOOTB;
    uint32_t my_vtag, my_itsn, tie_my = 0, tie_peer = 0;
    if (a && (a->state == SCTPN_COOKIE_WAIT || a->state == SCTPN_COOKIE_ECHOED)) {
        my_vtag = a->my_vtag; /* 5.2.1: answer with our own INIT's parameters */
        my_itsn =
            a->cum_ack + 1; /* our initial TSN (next_tsn moved on if DATA rode the COOKIE-ECHO) */
        tie_my = a->my_vtag;
        tie_peer = a->peer_vtag;
    } else {
        my_vtag = ep_rand_nonzero(ep);
        my_itsn = ep_rand32(ep);
        if (a) { /* 5.2.2: an INIT on a live association (the peer may have restarted) */
            tie_my = a->my_vtag;
            tie_peer = a->peer_vtag;
        }
    }
    int idata = ep->cfg.idata && ii.idata, zc = ep->cfg.zero_checksum && ii.zcsum;
    /* cookie */
    uint8_t ck[CK_ADDRS + 6 * SCTPN_MAX_PATHS + CK_MAC_LEN];
    memset(ck, 0, sizeof ck);
    st64(ck + CK_CREATED, now);
    st32(ck + CK_MY_VTAG, my_vtag);
    st32(ck + CK_PEER_VTAG, ii.itag);
    st32(ck + CK_MY_ITSN, my_itsn);
    st32(ck + CK_PEER_ITSN, ii.itsn);
    st32(ck + CK_PEER_RWND, ii.arwnd);
    st32(ck + CK_TIE_MY, tie_my);
    st32(ck + CK_TIE_PEER, tie_peer);
    st16(ck + CK_OS, ii.mis < ep->cfg.num_ostreams ? ii.mis : ep->cfg.num_ostreams);
    st16(ck + CK_IS, ii.os < ep->cfg.max_instreams ? ii.os : ep->cfg.max_instreams);
    st16(ck + CK_PEER_PORT, pk->src_port);
    ck[CK_FEATURES] = (uint8_t)((idata ? FEAT_IDATA : 0) | (zc ? FEAT_ZCSUM : 0));
    put_addr(ck + CK_FROM, from);
    put_addr(ck + CK_TO, to);
    int n = 0;
    for (int i = 0; i < ii.naddrs; i++) {
        if (ii.addrs[i] == from->ipv4 || ii.addrs[i] == 0)
            continue;
        struct sctpn_addr x = { ii.addrs[i], from->udp_port };
        put_addr(ck + CK_ADDRS + 6 * n, &x);
        n++;
        if (n == SCTPN_MAX_PATHS - 1)
            break;
    }
    ck[CK_NADDRS] = (uint8_t)n;
    size_t cklen = CK_ADDRS + 6 * (size_t)n;
    cookie_mac(ep->key, ck, cklen, ck + cklen);
    cklen += CK_MAC_LEN;
    /* INIT-ACK */
    uint8_t b[512];
    size_t off = put_common_hdr(b, ep->cfg.sctp_port, pk->src_port, ii.itag);
    uint8_t *v = b + off + 4;
    size_t room = sizeof b - off - 4;
    struct sctpn_addr locals[SCTPN_MAX_PATHS];
    int nl = 0;
    if (ep->cfg.n_local_addrs > 1) {
        locals[nl++] = *to;
        for (int i = 0; i < ep->cfg.n_local_addrs; i++)
            if (ep->cfg.local_addrs[i].ipv4 != to->ipv4)
                locals[nl++] = ep->cfg.local_addrs[i];
        if (nl > SCTPN_MAX_PATHS)
            nl = SCTPN_MAX_PATHS;
    }
    size_t vlen =
        put_init_body(ep, v, room, my_vtag, ep->cfg.num_ostreams, my_itsn, locals, nl, idata, zc);
    vlen += put_param(v + vlen, room - vlen, PT_COOKIE, ck, cklen);
    off += put_chunk_hdr(b + off, sizeof b - off, CT_INIT_ACK, 0, vlen);
    sctpn_packet_set_crc(b, off);
    return raw_enqueue(ep, to, from, b, off);
}

/* ---- RTT samples from the handshake (cfg.handshake_rtt) ---- */
void hs_note_sent(struct sctpn_assoc *a, int pi, uint64_t now, uint16_t *sends)
{
    a->hs_sent_us = now;
    a->hs_sent_path = pi;
    if (*sends < UINT16_MAX)
        (*sends)++;
}

/* client: the answer to our INIT / COOKIE-ECHO; only when that chunk went out exactly once
 * (Karn: the answer to a retransmission cannot be told from the answer to the original) */
static void hs_client_sample(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint16_t sends,
                             uint64_t now)
{
    if (!ep->cfg.handshake_rtt || sends != 1 || a->hs_sent_us > now || a->hs_sent_path < 0 ||
        a->hs_sent_path >= a->npaths)
        return;
    path_rtt_sample(ep, &a->paths[a->hs_sent_path], now - a->hs_sent_us);
}

/* server: a valid COOKIE-ECHO from `from`, its cookie made (and the INIT-ACK sent) at
 * `created`.  The server cannot know whether the client resent the COOKIE-ECHO (or the INIT):
 * then the sample is too large, which only makes the RTO larger (safe, never a spurious
 * retransmission); one above RTO.initial (the client's T1 fired at least once) is ignored, so
 * the RTO is never worse than without the sample.  Only a path's first sample. */
static void hs_server_sample(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                             const struct sctpn_addr *from, uint64_t created, uint64_t now)
{
    if (!ep->cfg.handshake_rtt || created > now || now - created > ep->cfg.rto_initial_us)
        return;
    int pi = assoc_path_of(a, from);
    if (pi < 0 || a->paths[pi].have_rtt)
        return;
    path_rtt_sample(ep, &a->paths[pi], now - created);
}

/* the negotiated state both sides share once established */
static int establish(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t peer_vtag,
                     uint32_t peer_itsn, uint32_t peer_rwnd, uint16_t os, uint16_t is,
                     int features)
{
    a->peer_vtag = peer_vtag;
    a->peer_rwnd = peer_rwnd;
    a->idata = (features & FEAT_IDATA) != 0;
    a->zero_cksum = (features & FEAT_ZCSUM) != 0;
    a->cmt = ep->cfg.cmt && a->npaths > 1;
    a->dac = a->cmt && ep->cfg.cmt_dac;
    assoc_set_streams(ep, a, os, is);
    for (int i = 0; i < a->npaths; i++) {
        a->paths[i].ssthresh = peer_rwnd ? peer_rwnd : 0xffffffffu;
        if (!a->paths[i].confirmed)
            a->paths[i].hb_send_pending = 1; /* RFC 9260 5.4: probe the listed addresses */
    }
    return assoc_init_recv(ep, a, peer_itsn);
}

int hs_input_init_ack(struct sctpn_endpoint *ep, struct sctpn_assoc *a,
                      const struct sctpn_chunk *c, uint64_t now)
{
    if (a->state != SCTPN_COOKIE_WAIT)
        return 0; /* 5.2.3: discard */
    struct init_info ii;
    if (parse_init(c, &ii) < 0 || !ii.cookie || ii.cookie_len == 0) {
        a->peer_vtag = ii.itag;
        send_abort_raw(ep, a, EC_MISSING_PARAM);
        assoc_down(ep, a, SCTPN_DOWN_ABORT_SENT);
        return SCTPN_EMALFORMED;
    }
    uint16_t os = ii.mis < ep->cfg.num_ostreams ? ii.mis : ep->cfg.num_ostreams;
    uint16_t is = ii.os < ep->cfg.max_instreams ? ii.os : ep->cfg.max_instreams;
    int feat = (ep->cfg.idata && ii.idata ? FEAT_IDATA : 0) |
               (ep->cfg.zero_checksum && ii.zcsum ? FEAT_ZCSUM : 0);
    for (int i = 0; i < ii.naddrs; i++) {
        struct sctpn_addr r = { ii.addrs[i], a->paths[0].remote.udp_port };
        if (r.ipv4 && assoc_path_of(a, &r) < 0) {
            int k = assoc_add_path(
                ep, a, r,
                pick_local(a->my_addrs, a->n_my_addrs, r, a->npaths, &a->paths[0].local));
            if (k >= 0)
                path_init(ep, &a->paths[k], now);
        }
    }
    if (establish(ep, a, ii.itag, ii.itsn, ii.arwnd, os, is, feat) < 0)
        return SCTPN_ENOMEM;
    free(a->cookie);
    a->cookie = malloc(ii.cookie_len);
    if (!a->cookie)
        return SCTPN_ENOMEM;
    memcpy(a->cookie, ii.cookie, ii.cookie_len);
    a->cookie_len = ii.cookie_len;
    a->state = SCTPN_COOKIE_ECHOED;
    a->ctrl = CTL_COOKIE_ECHO;
    a->init_retries = 0;
    a->rto_t1 = ep->cfg.rto_initial_us;
    hs_client_sample(ep, a, a->hs_init_sends, now);
    int cp = a->ctl_path < a->npaths ? a->ctl_path : 0; /* where the COOKIE-ECHO goes */
    if (ep->cfg.handshake_rtt && a->paths[cp].have_rtt)
        a->rto_t1 = a->paths[cp].rto; /* T1-cookie from the measured RTO, not RTO.initial */
    a->t1 = now + a->rto_t1;
    return 0;
}

static void send_stale_cookie(struct sctpn_endpoint *ep, const struct sctpn_pkt *pk,
                              uint32_t peer_vtag, uint64_t stale_us,
                              const struct sctpn_addr *from, const struct sctpn_addr *to)
{
    uint8_t b[12 + 4 + 8];
    put_common_hdr(b, ep->cfg.sctp_port, pk->src_port, peer_vtag);
    put_chunk_hdr(b + 12, 12, CT_ERROR, 0, 8);
    st16(b + 16, EC_STALE_COOKIE);
    st16(b + 18, 8);
    st32(b + 20, (uint32_t)(stale_us > 0xffffffffu ? 0xffffffffu : stale_us));
    sctpn_packet_set_crc(b, sizeof b);
    raw_enqueue(ep, to, from, b, sizeof b);
}

int hs_input_cookie_echo(struct sctpn_endpoint *ep, struct sctpn_assoc **ap,
                         const struct sctpn_pkt *pk, const struct sctpn_chunk *c,
                         const struct sctpn_addr *from, const struct sctpn_addr *to, uint64_t now)
{
    const uint8_t *ck = c->val;
    size_t len = c->vlen;
    if (len < CK_ADDRS + CK_MAC_LEN)
        return SCTPN_ECOOKIE;
    int n = ck[CK_NADDRS];
    if (n > SCTPN_MAX_PATHS - 1 || len != CK_ADDRS + 6 * (size_t)n + CK_MAC_LEN)
        return SCTPN_ECOOKIE;
    uint8_t mac[CK_MAC_LEN];
    cookie_mac(ep->key, ck, len - CK_MAC_LEN, mac);
    uint8_t diff = 0;
    for (int i = 0; i < CK_MAC_LEN; i++)
        diff |= (uint8_t)(mac[i] ^ ck[len - CK_MAC_LEN + i]);
    if (diff)
        return SCTPN_ECOOKIE;
    uint32_t my_vtag = ld32(ck + CK_MY_VTAG), peer_vtag = ld32(ck + CK_PEER_VTAG);
    if (pk->vtag != my_vtag || ld16(ck + CK_PEER_PORT) != pk->src_port)
        return SCTPN_EVTAG;
    uint64_t created = ld64(ck + CK_CREATED);
    if (created > now)
        return SCTPN_ECOOKIE;
    if (now - created > ep->cfg.cookie_life_us) {
        send_stale_cookie(ep, pk, peer_vtag, now - created - ep->cfg.cookie_life_us, from, to);
        return SCTPN_ECOOKIE;
    }
    uint32_t my_itsn = ld32(ck + CK_MY_ITSN), peer_itsn = ld32(ck + CK_PEER_ITSN);
    uint32_t rwnd = ld32(ck + CK_PEER_RWND);
    uint32_t tie_my = ld32(ck + CK_TIE_MY), tie_peer = ld32(ck + CK_TIE_PEER);
    uint16_t os = ld16(ck + CK_OS), is = ld16(ck + CK_IS);
    int feat = ck[CK_FEATURES];
    if (!os || !is || !peer_vtag)
        return SCTPN_ECOOKIE;

    struct sctpn_assoc *a = *ap; /* found by my_vtag (the tag of the packet) */
    if (a && a->peer_port != pk->src_port)
        return SCTPN_ECOOKIE;
    if (a) { /* 5.2.4 cases B and D: our tag matches */
        if (a->state == SCTPN_COOKIE_WAIT || a->state == SCTPN_COOKIE_ECHOED) {
            int crossed = a->state == SCTPN_COOKIE_ECHOED;
            if (establish(ep, a, peer_vtag, peer_itsn, rwnd, os, is, feat) < 0)
                return SCTPN_ENOMEM;
            /* crossed: our INIT met the peer's, so the peer was in COOKIE-WAIT when our
             * COOKIE-ECHO arrived and discarded it with the DATA bundled behind it (5.2.4
             * case C).  Send that DATA again now instead of after RTO.Initial (1 s, no RTT
             * sample yet); if the peer did take it, the copies come back as duplicates */
            if (crossed)
                tx_mark_outstanding_rtx(a, -1);
            a->state = SCTPN_ESTABLISHED;
            a->t1 = NEVER;
            free(a->cookie);
            a->cookie = NULL;
            a->ctrl &= ~(uint32_t)(CTL_INIT | CTL_COOKIE_ECHO);
            hs_server_sample(ep, a, from, created, now);
            ev_assoc_up(ep, a);
        } else if (a->peer_vtag != peer_vtag) {
            a->peer_vtag = peer_vtag; /* case B on a live association */
        }
        int pi = assoc_path_of(a, from);
        a->ctl_path = pi >= 0 ? pi : a->primary;
        a->ctrl |= CTL_COOKIE_ACK;
        return 0;
    }
    struct sctpn_addr fromaddr = get_addr(ck + CK_FROM);
    struct sctpn_assoc *old = assoc_by_addr(ep, &fromaddr, pk->src_port);
    if (old) {
        if (old->state >= SCTPN_ESTABLISHED && tie_my == old->my_vtag &&
            tie_peer == old->peer_vtag && old->peer_vtag != peer_vtag) {
            /* case A: the peer restarted; the old association ends, a new one begins */
            struct sctpn_event ev = { .type = SCTPN_EV_ASSOC_RESTART, .assoc = old->id };
            ev_emit(ep, &ev);
            assoc_down(ep, old, SCTPN_DOWN_ABORT_RECEIVED);
        } else {
            return SCTPN_ECOOKIE; /* case C or an unexpected cookie: silently discarded */
        }
    }
    if (!ep->cfg.accept_incoming)
        return SCTPN_EOOTB;
    a = assoc_new(ep, my_vtag, my_itsn);
    if (!a)
        return SCTPN_ENOMEM;
    a->peer_port = pk->src_port;
    struct sctpn_addr toaddr = get_addr(ck + CK_TO);
    assoc_add_path(ep, a, fromaddr, toaddr);
    a->paths[0].confirmed = 1; /* the handshake came from it */
    assoc_add_my_addr(a, toaddr);
    for (int i = 0; i < ep->cfg.n_local_addrs; i++)
        assoc_add_my_addr(a, ep->cfg.local_addrs[i]);
    for (int i = 0; i < n; i++) {
        struct sctpn_addr r = get_addr(ck + CK_ADDRS + 6 * i);
        assoc_add_path(ep, a, r, pick_local(a->my_addrs, a->n_my_addrs, r, a->npaths, &toaddr));
    }
    for (int i = 0; i < a->npaths; i++)
        path_init(ep, &a->paths[i], now);
    if (establish(ep, a, peer_vtag, peer_itsn, rwnd, os, is, feat) < 0) {
        assoc_down(ep, a, SCTPN_DOWN_ABORT_SENT);
        return SCTPN_ENOMEM;
    }
    a->state = SCTPN_ESTABLISHED;
    hs_server_sample(ep, a, from, created, now);
    int pi = assoc_path_of(a, from);
    a->ctl_path = pi >= 0 ? pi : 0;
    a->ctrl |= CTL_COOKIE_ACK;
    *ap = a;
    ev_assoc_up(ep, a);
    return 0;
}

void hs_input_cookie_ack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now)
{
    if (a->state != SCTPN_COOKIE_ECHOED)
        return;
    hs_client_sample(ep, a, a->hs_echo_sends, now);
    a->state = SCTPN_ESTABLISHED;
    a->t1 = NEVER;
    a->ctrl &= ~(uint32_t)CTL_COOKIE_ECHO;
    free(a->cookie);
    a->cookie = NULL;
    a->error_count = 0;
    ev_assoc_up(ep, a);
}

void hs_t1_expired(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint64_t now)
{
    a->t1 = NEVER;
    if (a->state != SCTPN_COOKIE_WAIT && a->state != SCTPN_COOKIE_ECHOED)
        return;
    if (++a->init_retries > ep->cfg.max_init_retrans) {
        assoc_down(ep, a, SCTPN_DOWN_TIMEOUT);
        return;
    }
    a->rto_t1 = a->rto_t1 * 2 > ep->cfg.rto_max_us ? ep->cfg.rto_max_us : a->rto_t1 * 2;
    a->t1 = now + a->rto_t1;
    a->ctl_path = (a->ctl_path + 1) % a->npaths; /* try the next address */
    a->ctrl |= a->state == SCTPN_COOKIE_WAIT ? CTL_INIT : CTL_COOKIE_ECHO;
}
