/* ddp.c — the segment header codec: DDP control (RFC 5041), RDMAP control (RFC 5040), the
 * tagged and untagged buffer fields and our 8-byte extension (message number and, for tagged
 * segments, message offset).  Layout diagrams in docs/rdma.md. */
#include "rdma_internal.h"

void sm_rdma_put32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
void sm_rdma_put64(uint8_t *p, uint64_t v)
{
    sm_rdma_put32(p, (uint32_t)(v >> 32));
    sm_rdma_put32(p + 4, (uint32_t)v);
}
uint32_t sm_rdma_get32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
uint64_t sm_rdma_get64(const uint8_t *p)
{
    return (uint64_t)sm_rdma_get32(p) << 32 | sm_rdma_get32(p + 4);
}

/* tagged:   ctl(1) rdmap(1) STag(4) TO(8)                 | MN(4) MO(4)
 * untagged: ctl(1) rdmap(1) InvSTag(4) QN(4) MSN(4) MO(4) | MN(4) */
void sm_rdma_hdr_encode(uint8_t *p, const sm_rdma_hdr *h)
{
    p[0] =
        (uint8_t)((h->tagged ? SM_RDMA_DDP_T : 0) | (h->last ? SM_RDMA_DDP_L : 0) | (h->dv & 3u));
    p[1] = (uint8_t)((h->rv & 3u) << 6 | (h->opcode & 0xfu));
    if (h->tagged) {
        sm_rdma_put32(p + 2, h->stag);
        sm_rdma_put64(p + 6, h->to);
        sm_rdma_put32(p + 14, h->mn);
        sm_rdma_put32(p + 18, h->mo);
    } else {
        sm_rdma_put32(p + 2, h->inv_stag);
        sm_rdma_put32(p + 6, h->qn);
        sm_rdma_put32(p + 10, h->msn);
        sm_rdma_put32(p + 14, h->mo);
        sm_rdma_put32(p + 18, h->mn);
    }
}

int sm_rdma_hdr_decode(const uint8_t *p, size_t len, sm_rdma_hdr *h)
{
    if (!p || len < SM_RDMA_HDR_LEN)
        return -1;
    *h = (sm_rdma_hdr){ 0 };
    h->tagged = (p[0] & SM_RDMA_DDP_T) != 0;
    h->last = (p[0] & SM_RDMA_DDP_L) != 0;
    h->dv = p[0] & 3u;
    h->rv = p[1] >> 6;
    h->opcode = p[1] & 0xfu;
    if (h->tagged) {
        h->stag = sm_rdma_get32(p + 2);
        h->to = sm_rdma_get64(p + 6);
        h->mn = sm_rdma_get32(p + 14);
        h->mo = sm_rdma_get32(p + 18);
    } else {
        h->inv_stag = sm_rdma_get32(p + 2);
        h->qn = sm_rdma_get32(p + 6);
        h->msn = sm_rdma_get32(p + 10);
        h->mo = sm_rdma_get32(p + 14);
        h->mn = sm_rdma_get32(p + 18);
    }
    return 0;
}
