/* codec.c — bounds-checked parsing of SCTP packets into chunk views, the TLV parameter
 * walker, and the chunk/parameter builders (RFC 9260 section 3).  Every length read from the
 * wire is checked against the bytes actually present before anything is dereferenced. */
#include "sctpn_internal.h"

size_t chunk_min_len(uint8_t type)
{
    switch (type) {
    case CT_DATA: return DATA_HDR - CHUNK_HDR + 1; /* TSN, stream, SSN, PPID, >= 1 byte */
    case CT_I_DATA: return IDATA_HDR - CHUNK_HDR + 1;
    case CT_INIT:
    case CT_INIT_ACK: return 16;
    case CT_SACK: return 12;
    case CT_HEARTBEAT:
    case CT_HEARTBEAT_ACK: return 4;
    case CT_SHUTDOWN: return 4;
    case CT_COOKIE_ECHO: return 1;
    default: return 0;
    }
}

/* the chunk at off; the caller made sure 4 header bytes are there */
static int chunk_at(const uint8_t *pkt, size_t len, size_t *off, struct sctpn_chunk *ch)
{
    if (*off >= len)
        return 0;
    if (len - *off < CHUNK_HDR)
        return SCTPN_EMALFORMED;
    const uint8_t *c = pkt + *off;
    uint16_t clen = ld16(c + 2);
    if (clen < CHUNK_HDR || clen > len - *off)
        return SCTPN_EMALFORMED;
    ch->type = c[0];
    ch->flags = c[1];
    ch->len = clen;
    ch->val = c + CHUNK_HDR;
    ch->vlen = clen - CHUNK_HDR;
    if (ch->vlen < chunk_min_len(ch->type))
        return SCTPN_EMALFORMED;
    size_t step = pad4(clen);
    if (step > len - *off) /* padding of the last chunk may be missing */
        step = len - *off;
    *off += step;
    return 1;
}

int pkt_parse(const uint8_t *pkt, size_t len, struct sctpn_pkt *out)
{
    if (!pkt || len < SCTP_COMMON_HDR + CHUNK_HDR)
        return SCTPN_EMALFORMED;
    out->src_port = ld16(pkt);
    out->dst_port = ld16(pkt + 2);
    out->vtag = ld32(pkt + 4);
    out->nchunks = 0;
    out->base = pkt;
    out->len = len;
    size_t off = SCTP_COMMON_HDR;
    struct sctpn_chunk ch;
    int r, alone = 0;
    while ((r = chunk_at(pkt, len, &off, &ch)) > 0) {
        if (!out->nchunks)
            out->first = ch;
        out->nchunks++;
        alone |= ch.type == CT_INIT || ch.type == CT_INIT_ACK || ch.type == CT_SHUTDOWN_COMPLETE;
    }
    if (r < 0 || !out->nchunks)
        return SCTPN_EMALFORMED;
    /* INIT, INIT-ACK and SHUTDOWN-COMPLETE must be alone in their packet */
    return alone && out->nchunks != 1 ? SCTPN_EMALFORMED : 0;
}

int pkt_next(const struct sctpn_pkt *pk, size_t *off, struct sctpn_chunk *c)
{
    return chunk_at(pk->base, pk->len, off, c) > 0;
}

int tlv_next(struct tlv_iter *it, uint16_t *type, const uint8_t **val, size_t *vlen)
{
    if (it->left == 0)
        return 0;
    if (it->left < 4)
        return -1;
    uint16_t t = ld16(it->p), l = ld16(it->p + 2);
    if (l < 4 || l > it->left)
        return -1;
    *type = t;
    *val = it->p + 4;
    *vlen = l - 4u;
    size_t step = pad4(l);
    if (step > it->left)
        step = it->left;
    it->p += step;
    it->left -= step;
    return 1;
}

size_t put_common_hdr(uint8_t *p, uint16_t src, uint16_t dst, uint32_t vtag)
{
    st16(p, src);
    st16(p + 2, dst);
    st32(p + 4, vtag);
    st32(p + 8, 0);
    return SCTP_COMMON_HDR;
}

size_t put_chunk_hdr(uint8_t *p, size_t room, uint8_t type, uint8_t flags, size_t vlen)
{
    size_t total = pad4(CHUNK_HDR + vlen);
    if (total > room || CHUNK_HDR + vlen > 0xffff)
        return 0;
    p[0] = type;
    p[1] = flags;
    st16(p + 2, (uint16_t)(CHUNK_HDR + vlen));
    memset(p + CHUNK_HDR + vlen, 0, total - CHUNK_HDR - vlen); /* padding */
    return total;
}

size_t put_param(uint8_t *p, size_t room, uint16_t type, const void *val, size_t vlen)
{
    size_t total = pad4(4 + vlen);
    if (total > room || 4 + vlen > 0xffff)
        return 0;
    st16(p, type);
    st16(p + 2, (uint16_t)(4 + vlen));
    if (vlen)
        memcpy(p + 4, val, vlen);
    memset(p + 4 + vlen, 0, total - 4 - vlen);
    return total;
}

int crc_ok(const uint8_t *pkt, size_t len);

int sctpn_packet_check(const uint8_t *pkt, size_t len, int verify_crc)
{
    struct sctpn_pkt pk;
    int rc = pkt_parse(pkt, len, &pk);
    if (rc < 0)
        return rc;
    if (verify_crc && !crc_ok(pkt, len))
        return SCTPN_ECRC;
    /* walk the parameters of INIT / INIT-ACK and the causes of ABORT / ERROR too */
    size_t off = PKT_FIRST_CHUNK;
    struct sctpn_chunk ch;
    while (pkt_next(&pk, &off, &ch)) {
        const struct sctpn_chunk *c = &ch;
        struct tlv_iter it = { 0 };
        if (c->type == CT_INIT || c->type == CT_INIT_ACK)
            it = (struct tlv_iter){ c->val + 16, c->vlen - 16 };
        else if (c->type == CT_ABORT || c->type == CT_ERROR || c->type == CT_HEARTBEAT ||
                 c->type == CT_HEARTBEAT_ACK)
            it = (struct tlv_iter){ c->val, c->vlen };
        else if (c->type == CT_SACK &&
                 12 + 4 * ((size_t)ld16(c->val + 8) + ld16(c->val + 10)) > c->vlen)
            return SCTPN_EMALFORMED;
        uint16_t t;
        const uint8_t *v;
        size_t vl;
        int r;
        while ((r = tlv_next(&it, &t, &v, &vl)) > 0)
            ;
        if (r < 0)
            return SCTPN_EMALFORMED;
    }
    return pk.nchunks;
}

const char *sctpn_strerror(int err)
{
    switch (err) {
    case SCTPN_OK: return "ok";
    case SCTPN_EINVAL: return "invalid argument";
    case SCTPN_EAGAIN: return "send buffer full";
    case SCTPN_ENOMEM: return "out of memory";
    case SCTPN_ENOASSOC: return "no such association";
    case SCTPN_EMALFORMED: return "malformed packet";
    case SCTPN_ECRC: return "bad checksum";
    case SCTPN_EVTAG: return "verification tag mismatch";
    case SCTPN_ECOOKIE: return "invalid or stale state cookie";
    case SCTPN_EOOTB: return "out of the blue packet";
    case SCTPN_ESTATE: return "not allowed in this association state";
    case SCTPN_ETOOBIG: return "message too big";
    case SCTPN_ELIMIT: return "limit reached";
    default: return "unknown error";
    }
}
