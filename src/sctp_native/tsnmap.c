/* tsnmap.c — receive-side TSN bookkeeping (RFC 9260 6.2, 6.7): the cumulative TSN, a ring
 * bitmap of TSNs received above it, duplicate detection, and the SACK chunk built from them
 * (gap ack blocks, duplicate TSNs, advertised window). */
#include <stdlib.h>

#include "sctpn_internal.h"

int tsnmap_init(struct sctpn_assoc *a, uint32_t peer_itsn, uint32_t bits)
{
    free(a->tsnmap);
    a->tsnmap = calloc(bits / 64, sizeof(uint64_t));
    if (!a->tsnmap)
        return SCTPN_ENOMEM;
    a->map_bits = bits;
    a->peer_itsn = peer_itsn;
    a->cum_tsn = peer_itsn - 1;
    a->highest_tsn = a->cum_tsn;
    return 0;
}

static int bit_get(const struct sctpn_assoc *a, uint32_t tsn)
{
    uint32_t i = tsn & (a->map_bits - 1);
    return (int)((a->tsnmap[i >> 6] >> (i & 63)) & 1);
}
static void bit_set(struct sctpn_assoc *a, uint32_t tsn, int v)
{
    uint32_t i = tsn & (a->map_bits - 1);
    if (v)
        a->tsnmap[i >> 6] |= 1ull << (i & 63);
    else
        a->tsnmap[i >> 6] &= ~(1ull << (i & 63));
}

int tsnmap_seen(const struct sctpn_assoc *a, uint32_t tsn)
{
    if (tsn_le(tsn, a->cum_tsn))
        return 1;
    if (tsn - a->cum_tsn > a->map_bits)
        return 0;
    return bit_get(a, tsn);
}

int tsnmap_mark(struct sctpn_assoc *a, uint32_t tsn)
{
    if (tsn_le(tsn, a->cum_tsn) || tsn - a->cum_tsn > a->map_bits)
        return -1;
    if (tsn_lt(a->highest_tsn, tsn))
        a->highest_tsn = tsn;
    if (tsn != a->cum_tsn + 1) {
        bit_set(a, tsn, 1);
        return 0;
    }
    a->cum_tsn = tsn;
    while (a->cum_tsn != a->highest_tsn && bit_get(a, a->cum_tsn + 1)) {
        a->cum_tsn++;
        bit_set(a, a->cum_tsn, 0);
    }
    return 0;
}

uint32_t rx_a_rwnd(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    return a->stored_bytes >= ep->cfg.rwnd ? 0 : (uint32_t)(ep->cfg.rwnd - a->stored_bytes);
}

size_t tsnmap_build_sack(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint8_t *p,
                         size_t room)
{
    if (room < 16)
        return 0;
    size_t max_items = (room - 16) / 4;
    int ndup = a->ndups < (int)max_items ? a->ndups : (int)max_items;
    size_t max_gaps = max_items - (size_t)ndup;
    if (max_gaps > 128)
        max_gaps = 128;
    uint8_t *v = p + 4;
    st32(v, a->cum_tsn);
    st32(v + 4, rx_a_rwnd(ep, a));
    size_t ngaps = 0;
    uint8_t *g = v + 12;
    uint32_t span = a->highest_tsn - a->cum_tsn;
    uint32_t off = 1;
    while (off <= span && ngaps < max_gaps) {
        while (off <= span && !bit_get(a, a->cum_tsn + off))
            off++;
        if (off > span)
            break;
        uint32_t start = off;
        while (off <= span && bit_get(a, a->cum_tsn + off))
            off++;
        if (start > 0xffff || off - 1 > 0xffff)
            break;
        st16(g, (uint16_t)start);
        st16(g + 2, (uint16_t)(off - 1));
        g += 4;
        ngaps++;
    }
    st16(v + 8, (uint16_t)ngaps);
    st16(v + 10, (uint16_t)ndup);
    for (int i = 0; i < ndup; i++, g += 4)
        st32(g, a->dups[i]);
    a->ndups = 0;
    size_t vlen = 12 + 4 * (ngaps + (size_t)ndup);
    return put_chunk_hdr(p, room, CT_SACK, dac_sack_flags(a), vlen); /* flags: cmt_dac.c */
}
