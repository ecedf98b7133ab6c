/* rdmap.c — the RDMAP operations over DDP: segmenting outgoing messages (Send, Send with
 * Invalidate / Solicited Event, RDMA Write, RDMA Read Request, atomics, Terminate), placing
 * incoming tagged and untagged segments in any arrival order, delivering complete messages in
 * message-number order (Read Requests and atomics are answered here, without the application),
 * and turning every protocol error into a Terminate. */
#include "rdma_internal.h"

#include <string.h>

/* ---- output ---- */

typedef struct src_sgl {
    sm_rdma_qp *qp;
    const sm_rdma_sge *sgl;
    int nsge;
} src_sgl;
typedef void (*fill_fn)(void *ctx, uint32_t off, uint8_t *dst, uint32_t n);
/* names the bytes [off, off + n) of a message in place as at most max pieces; returns their
 * number, or 0 when they cannot be named so (a region gone, too many pieces): then fill copies */
typedef int (*gather_fn)(void *ctx, uint32_t off, uint32_t n, struct iovec *iov, int max);

/* payload pieces per gathered segment: one (the channel below takes a header and one piece;
 * a segment whose payload spans several regions is copied) */
#define GATHER_MAX 1

static void fill_sgl(void *ctx, uint32_t off, uint8_t *dst, uint32_t n)
{
    src_sgl *s = ctx;
    for (int i = 0; i < s->nsge && n; i++) {
        uint32_t l = s->sgl[i].len;
        if (off >= l) {
            off -= l;
            continue;
        }
        uint32_t k = l - off < n ? l - off : n;
        uint8_t *p = NULL;
        /* validated when posted; a region deregistered since then sends zeros, never stray bytes */
        if (sm_rdma_resolve(s->qp->a.pd, s->sgl[i].stag, s->sgl[i].to + off, k,
                            SM_RDMA_LOCAL_READ, &p) == 0 &&
            p)
            memcpy(dst, p, k);
        else
            memset(dst, 0, k);
        dst += k;
        n -= k;
        off = 0;
    }
}

static void fill_flat(void *ctx, uint32_t off, uint8_t *dst, uint32_t n)
{
    if (n)
        memcpy(dst, (const uint8_t *)ctx + off, n);
}

static int gather_sgl(void *ctx, uint32_t off, uint32_t n, struct iovec *iov, int max)
{
    src_sgl *s = ctx;
    int k = 0;
    for (int i = 0; i < s->nsge && n; i++) {
        uint32_t l = s->sgl[i].len;
        if (off >= l) {
            off -= l;
            continue;
        }
        uint32_t c = l - off < n ? l - off : n;
        uint8_t *p = NULL;
        if (k == max ||
            sm_rdma_resolve(s->qp->a.pd, s->sgl[i].stag, s->sgl[i].to + off, c,
                            SM_RDMA_LOCAL_READ, &p) != 0 ||
            !p)
            return 0;
        iov[k].iov_base = p;
        iov[k].iov_len = c;
        k++;
        n -= c;
        off = 0;
    }
    return n ? 0 : k;
}

static int gather_flat(void *ctx, uint32_t off, uint32_t n, struct iovec *iov, int max)
{
    (void)max;
    iov[0].iov_base = (uint8_t *)ctx + off;
    iov[0].iov_len = n;
    return 1;
}

/* Cut one message into segments and hand them to the output callback: gathered in place when
 * the queue pair has outputv and gather names the payload (bulk data), else copied into the
 * segment buffer.  h carries the model, opcode and buffer fields; returns the message number
 * used. */
static uint32_t emit_message(sm_rdma_qp *qp, sm_rdma_hdr *h, uint32_t total, fill_fn fill,
                             gather_fn gather, void *ctx)
{
    uint32_t pay = sm_rdma_qp_payload(qp);
    uint64_t to0 = h->to;
    uint32_t off = 0, i = 0;
    h->mn = qp->next_mn++;
    h->dv = SM_RDMA_DDP_VERSION;
    h->rv = SM_RDMA_RDMAP_VERSION;
    do {
        uint32_t n = total - off < pay ? total - off : pay;
        unsigned lane = (h->mn + i) % qp->a.lanes;
        h->mo = off;
        h->to = to0 + off;
        h->last = off + n == total;
        sm_rdma_hdr_encode(qp->txbuf, h);
        struct iovec iov[1 + GATHER_MAX];
        int k = 0;
        if (qp->a.outputv && gather && n)
            k = gather(ctx, off, n, iov + 1, GATHER_MAX);
        if (k > 0) {
            iov[0].iov_base = qp->txbuf;
            iov[0].iov_len = SM_RDMA_HDR_LEN;
            qp->a.outputv(qp->a.output_ctx, iov, k + 1, SM_RDMA_HDR_LEN + n, lane);
        } else {
            fill(ctx, off, qp->txbuf + SM_RDMA_HDR_LEN, n);
            qp->a.output(qp->a.output_ctx, qp->txbuf, SM_RDMA_HDR_LEN + n, lane);
        }
        off += n;
        i++;
    } while (off < total);
    return h->mn;
}

void sm_rdma_emit_wr(sm_rdma_qp *qp, sm_rdma_swr *w)
{
    sm_rdma_hdr h = { 0 };
    src_sgl src = { qp, w->sge, w->nsge };
    bool se = (w->flags & SM_RDMA_WR_SOLICITED) != 0;
    w->pending = 0;
    switch (w->opcode) {
    case SM_RDMA_WR_SEND:
    case SM_RDMA_WR_SEND_INV:
        if (w->opcode == SM_RDMA_WR_SEND_INV) {
            h.opcode = se ? SM_RDMA_OP_SEND_SE_INV : SM_RDMA_OP_SEND_INV;
            h.inv_stag = w->inv_stag;
        } else {
            h.opcode = se ? SM_RDMA_OP_SEND_SE : SM_RDMA_OP_SEND;
        }
        h.qn = SM_RDMA_QN_SEND;
        h.msn = qp->msn_out[SM_RDMA_QN_SEND]++;
        w->mn = emit_message(qp, &h, w->byte_len, fill_sgl, gather_sgl, &src);
        w->done = 1;
        return;
    case SM_RDMA_WR_WRITE:
        h.tagged = 1;
        h.opcode = SM_RDMA_OP_WRITE;
        h.stag = w->remote_stag;
        h.to = w->remote_to;
        w->mn = emit_message(qp, &h, w->byte_len, fill_sgl, gather_sgl, &src);
        w->done = 1;
        return;
    case SM_RDMA_WR_READ: {
        uint8_t b[SM_RDMA_READREQ_LEN];
        sm_rdma_put32(b, w->sge[0].stag);
        sm_rdma_put64(b + 4, w->sge[0].to);
        sm_rdma_put32(b + 12, w->sge[0].len);
        sm_rdma_put32(b + 16, w->remote_stag);
        sm_rdma_put64(b + 20, w->remote_to);
        h.opcode = SM_RDMA_OP_READ_REQ;
        h.qn = SM_RDMA_QN_READ;
        h.msn = qp->msn_out[SM_RDMA_QN_READ]++;
        w->mn = emit_message(qp, &h, sizeof b, fill_flat, NULL, b);
        w->byte_len = 0;
        return;
    }
    case SM_RDMA_WR_FETCH_ADD:
    case SM_RDMA_WR_CMP_SWAP: {
        uint8_t b[SM_RDMA_ATOMREQ_LEN];
        bool cas = w->opcode == SM_RDMA_WR_CMP_SWAP;
        sm_rdma_put32(b, cas ? SM_RDMA_ATOMIC_CMP_SWAP : SM_RDMA_ATOMIC_FETCH_ADD);
        sm_rdma_put32(b + 4, w->seq);
        sm_rdma_put32(b + 8, w->remote_stag);
        sm_rdma_put64(b + 12, w->remote_to);
        sm_rdma_put64(b + 20, w->add_or_swap);
        sm_rdma_put64(b + 28, UINT64_MAX);
        sm_rdma_put64(b + 36, cas ? w->compare : 0);
        sm_rdma_put64(b + 44, cas ? UINT64_MAX : 0);
        h.opcode = SM_RDMA_OP_ATOMIC_REQ;
        h.qn = SM_RDMA_QN_ATOMIC_REQ;
        h.msn = qp->msn_out[SM_RDMA_QN_ATOMIC_REQ]++;
        w->mn = emit_message(qp, &h, sizeof b, fill_flat, NULL, b);
        w->byte_len = 0;
        return;
    }
    default: /* refused by sm_rdma_post_send */ return;
    }
}

/* Send a Terminate describing the error (with a copy of the offending header and, for a
 * refused Read Request, of its body) and enter the error state. */
static int terminate(sm_rdma_qp *qp, const uint8_t *hdr, const uint8_t *readreq, uint8_t layer,
                     uint8_t etype, uint8_t ecode)
{
    if (qp->state != SM_RDMA_QPS_RTS)
        return SM_RDMA_EPROTO;
    uint8_t b[SM_RDMA_TERM_FIXED + SM_RDMA_HDR_LEN + SM_RDMA_READREQ_LEN];
    uint32_t n = SM_RDMA_TERM_FIXED;
    b[0] = (uint8_t)((layer & 0xfu) << 4 | (etype & 0xfu));
    b[1] = ecode;
    b[2] = 0;
    b[3] = 0;
    if (hdr) {
        b[2] |= SM_RDMA_TERM_D;
        memcpy(b + n, hdr, SM_RDMA_HDR_LEN);
        n += SM_RDMA_HDR_LEN;
        if (readreq) {
            b[2] |= SM_RDMA_TERM_R;
            memcpy(b + n, readreq, SM_RDMA_READREQ_LEN);
            n += SM_RDMA_READREQ_LEN;
        }
    }
    sm_rdma_hdr h = { .opcode = SM_RDMA_OP_TERMINATE,
                      .qn = SM_RDMA_QN_TERM,
                      .msn = qp->msn_out[SM_RDMA_QN_TERM]++ };
    emit_message(qp, &h, n, fill_flat, NULL, b);
    sm_rdma_qp_fail(qp, layer, etype, ecode, 0, 0, false);
    return SM_RDMA_EPROTO;
}

static int term_tagged(sm_rdma_qp *qp, const uint8_t *hdr, int rc)
{
    switch (rc) {
    case SM_RDMA_EACCESS:
        return terminate(qp, hdr, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_PROT,
                         SM_RDMA_RP_ACCESS);
    case SM_RDMA_EBOUNDS:
        return terminate(qp, hdr, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_TAGGED, SM_RDMA_DT_BOUNDS);
    case SM_RDMA_EWRAP:
        return terminate(qp, hdr, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_TAGGED,
                         SM_RDMA_DT_TO_WRAP);
    default:
        return terminate(qp, hdr, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_TAGGED,
                         SM_RDMA_DT_INV_STAG);
    }
}

static int term_remote_prot(sm_rdma_qp *qp, const uint8_t *hdr, const uint8_t *rr, int rc)
{
    uint8_t code = rc == SM_RDMA_EACCESS   ? SM_RDMA_RP_ACCESS
                   : rc == SM_RDMA_EBOUNDS ? SM_RDMA_RP_BOUNDS
                   : rc == SM_RDMA_EWRAP   ? SM_RDMA_RP_TO_WRAP
                                           : SM_RDMA_RP_INV_STAG;
    return terminate(qp, hdr, rr, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_PROT, code);
}

/* ---- input ---- */

static void on_terminate(sm_rdma_qp *qp, const uint8_t *pl, uint32_t plen)
{
    if (plen < SM_RDMA_TERM_FIXED) {
        sm_rdma_qp_fail(qp, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP, SM_RDMA_RO_UNSPEC, 1, 0,
                        false);
        return;
    }
    sm_rdma_hdr copy;
    bool have = (pl[2] & SM_RDMA_TERM_D) && plen >= SM_RDMA_TERM_FIXED + SM_RDMA_HDR_LEN &&
                sm_rdma_hdr_decode(pl + SM_RDMA_TERM_FIXED, SM_RDMA_HDR_LEN, &copy) == 0;
    sm_rdma_qp_fail(qp, pl[0] >> 4, pl[0] & 0xfu, pl[1], 1, have ? copy.mn : 0, have);
}

/* The oldest outstanding RDMA Read whose sink holds [to, to+n) of STag stag, or NULL. */
static sm_rdma_swr *find_read(sm_rdma_qp *qp, uint32_t stag, uint64_t to, uint64_t n)
{
    for (uint32_t i = 0; i < qp->sq_count; i++) {
        sm_rdma_swr *w = sm_rdma_sq_at(qp, i);
        if (w->done || w->pending || w->opcode != SM_RDMA_WR_READ)
            continue;
        if (stag == UINT32_MAX)
            return w; /* any: the oldest */
        const sm_rdma_sge *s = &w->sge[0];
        if (s->stag == stag && to >= s->to && to - s->to <= s->len && n <= s->len - (to - s->to))
            return w;
    }
    return NULL;
}

static int place_send(sm_rdma_qp *qp, const sm_rdma_rwr *r, uint32_t off, const uint8_t *src,
                      uint32_t n)
{
    for (int i = 0; i < r->nsge && n; i++) {
        uint32_t l = r->sge[i].len;
        if (off >= l) {
            off -= l;
            continue;
        }
        uint32_t k = l - off < n ? l - off : n;
        uint8_t *p;
        if (sm_rdma_resolve(qp->a.pd, r->sge[i].stag, r->sge[i].to + off, k, SM_RDMA_LOCAL_WRITE,
                            &p))
            return -1;
        memcpy(p, src, k);
        src += k;
        n -= k;
        off = 0;
    }
    return 0;
}

static int deliver_read_req(sm_rdma_qp *qp, sm_rdma_msg *m)
{
    const uint8_t *b = m->ctl;
    uint32_t sink = sm_rdma_get32(b), size = sm_rdma_get32(b + 12), src = sm_rdma_get32(b + 16);
    uint64_t sink_to = sm_rdma_get64(b + 4), src_to = sm_rdma_get64(b + 20);
    uint8_t *p;
    int rc = sm_rdma_resolve(qp->a.pd, src, src_to, size, SM_RDMA_REMOTE_READ, &p);
    if (rc)
        return term_remote_prot(qp, m->hdr, m->ctl, rc);
    sm_rdma_hdr h = { .tagged = 1, .opcode = SM_RDMA_OP_READ_RESP, .stag = sink, .to = sink_to };
    emit_message(qp, &h, size, fill_flat, gather_flat, p);
    return 0;
}

static int deliver_atomic_req(sm_rdma_qp *qp, sm_rdma_msg *m)
{
    const uint8_t *b = m->ctl;
    uint32_t op = sm_rdma_get32(b) & 0xfu, id = sm_rdma_get32(b + 4), stag = sm_rdma_get32(b + 8);
    uint64_t to = sm_rdma_get64(b + 12), data = sm_rdma_get64(b + 20),
             dmask = sm_rdma_get64(b + 28);
    uint64_t cmp = sm_rdma_get64(b + 36), cmask = sm_rdma_get64(b + 44);
    if (op != SM_RDMA_ATOMIC_FETCH_ADD && op != SM_RDMA_ATOMIC_CMP_SWAP)
        return terminate(qp, m->hdr, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                         SM_RDMA_RO_OPCODE);
    uint8_t *p;
    int rc = sm_rdma_resolve(qp->a.pd, stag, to, 8, SM_RDMA_REMOTE_ATOMIC, &p);
    if (rc == 0 && (to & 7u))
        rc = SM_RDMA_EBOUNDS; /* 64-bit operands must be aligned */
    if (rc)
        return term_remote_prot(qp, m->hdr, NULL, rc);
    uint64_t old;
    memcpy(&old, p, 8);
    uint64_t nv = old;
    if (op == SM_RDMA_ATOMIC_FETCH_ADD)
        nv = old + data;
    else if (((old ^ cmp) & cmask) == 0)
        nv = (old & ~dmask) | (data & dmask);
    memcpy(p, &nv, 8);
    uint8_t r[SM_RDMA_ATOMRESP_LEN];
    sm_rdma_put32(r, id);
    sm_rdma_put64(r + 4, old);
    sm_rdma_hdr h = { .opcode = SM_RDMA_OP_ATOMIC_RESP,
                      .qn = SM_RDMA_QN_ATOMIC_RESP,
                      .msn = qp->msn_out[SM_RDMA_QN_ATOMIC_RESP]++ };
    emit_message(qp, &h, sizeof r, fill_flat, NULL, r);
    return 0;
}

static int deliver_atomic_resp(sm_rdma_qp *qp, sm_rdma_msg *m)
{
    uint32_t id = sm_rdma_get32(m->ctl);
    uint64_t old = sm_rdma_get64(m->ctl + 4);
    for (uint32_t i = 0; i < qp->sq_count; i++) {
        sm_rdma_swr *w = sm_rdma_sq_at(qp, i);
        if (w->done || w->seq != id ||
            (w->opcode != SM_RDMA_WR_FETCH_ADD && w->opcode != SM_RDMA_WR_CMP_SWAP))
            continue;
        uint8_t *p;
        if (sm_rdma_resolve(qp->a.pd, w->sge[0].stag, w->sge[0].to, 8, SM_RDMA_LOCAL_WRITE, &p))
            return terminate(qp, NULL, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_LOCAL_CATA, 0);
        memcpy(p, &old, 8);
        w->done = 1;
        w->status = SM_RDMA_WC_SUCCESS;
        w->byte_len = 8;
        sm_rdma_sq_release(qp);
        sm_rdma_sq_drain(qp);
        return 0;
    }
    return terminate(qp, m->hdr, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                     SM_RDMA_RO_OPCODE);
}

/* Untagged messages are delivered in MSN order within their queue. */
static int check_msn(sm_rdma_qp *qp, sm_rdma_msg *m)
{
    if (m->msn != qp->msn_in[m->qn])
        return terminate(qp, m->hdr, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                         SM_RDMA_DU_MSN_RANGE);
    qp->msn_in[m->qn]++;
    return 0;
}

static int deliver_one(sm_rdma_qp *qp, sm_rdma_msg *m)
{
    int rc = 0;
    switch (m->opcode) {
    case SM_RDMA_OP_WRITE: return 0;
    case SM_RDMA_OP_READ_RESP: {
        sm_rdma_swr *w = find_read(qp, UINT32_MAX, 0, 0);
        if (!w || w->sge[0].stag != m->stag || w->sge[0].to != m->to0 ||
            w->sge[0].len != m->total)
            return terminate(qp, m->hdr, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                             SM_RDMA_RO_UNSPEC);
        w->done = 1;
        w->status = SM_RDMA_WC_SUCCESS;
        w->byte_len = m->total;
        sm_rdma_sq_release(qp);
        sm_rdma_sq_drain(qp);
        return 0;
    }
    case SM_RDMA_OP_SEND:
    case SM_RDMA_OP_SEND_SE:
    case SM_RDMA_OP_SEND_INV:
    case SM_RDMA_OP_SEND_SE_INV: {
        if (qp->rq_count == 0)
            return terminate(qp, m->hdr, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                             SM_RDMA_DU_NO_BUF);
        if ((rc = check_msn(qp, m)))
            return rc;
        uint8_t flags = 0;
        uint32_t inv = 0;
        if (m->opcode == SM_RDMA_OP_SEND_SE || m->opcode == SM_RDMA_OP_SEND_SE_INV)
            flags |= SM_RDMA_WC_SOLICITED;
        if (m->opcode == SM_RDMA_OP_SEND_INV || m->opcode == SM_RDMA_OP_SEND_SE_INV) {
            sm_rdma_mr *r = sm_rdma_mr_lookup(qp->a.pd, m->inv_stag);
            if (!r || r->state != SM_RDMA_MR_VALID)
                return terminate(qp, m->hdr, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_PROT,
                                 SM_RDMA_RP_INV_STAG);
            if (!(r->access & SM_RDMA_REMOTE_INVALIDATE))
                return terminate(qp, m->hdr, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                                 SM_RDMA_RO_NO_INV);
            r->state = SM_RDMA_MR_INVALID;
            flags |= SM_RDMA_WC_INVALIDATED;
            inv = m->inv_stag;
        }
        sm_rdma_rq_complete_head(qp, m->total, flags, inv);
        return 0;
    }
    case SM_RDMA_OP_READ_REQ:
        if ((rc = check_msn(qp, m)))
            return rc;
        return deliver_read_req(qp, m);
    case SM_RDMA_OP_ATOMIC_REQ:
        if ((rc = check_msn(qp, m)))
            return rc;
        return deliver_atomic_req(qp, m);
    case SM_RDMA_OP_ATOMIC_RESP:
        if ((rc = check_msn(qp, m)))
            return rc;
        return deliver_atomic_resp(qp, m);
    default:
        return terminate(qp, m->hdr, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                         SM_RDMA_RO_OPCODE);
    }
}

static int deliver(sm_rdma_qp *qp)
{
    sm_rdma_msg *m;
    while (qp->state == SM_RDMA_QPS_RTS && (m = sm_rdma_msgtab_head_complete(&qp->mt))) {
        int rc = deliver_one(qp, m);
        sm_rdma_msgtab_pop(&qp->mt);
        if (rc)
            return rc;
    }
    return 0;
}

static int untagged_qn(uint8_t op)
{
    switch (op) {
    case SM_RDMA_OP_SEND:
    case SM_RDMA_OP_SEND_INV:
    case SM_RDMA_OP_SEND_SE:
    case SM_RDMA_OP_SEND_SE_INV: return SM_RDMA_QN_SEND;
    case SM_RDMA_OP_READ_REQ: return SM_RDMA_QN_READ;
    case SM_RDMA_OP_ATOMIC_REQ: return SM_RDMA_QN_ATOMIC_REQ;
    case SM_RDMA_OP_ATOMIC_RESP: return SM_RDMA_QN_ATOMIC_RESP;
    default: return -1;
    }
}

static uint32_t control_len(uint8_t op)
{
    switch (op) {
    case SM_RDMA_OP_READ_REQ: return SM_RDMA_READREQ_LEN;
    case SM_RDMA_OP_ATOMIC_REQ: return SM_RDMA_ATOMREQ_LEN;
    case SM_RDMA_OP_ATOMIC_RESP: return SM_RDMA_ATOMRESP_LEN;
    default: return 0;
    }
}

int sm_rdma_input(sm_rdma_qp *qp, const uint8_t *seg, size_t len)
{
    sm_rdma_hdr h;
    if (sm_rdma_hdr_decode(seg, len, &h))
        return terminate(qp, NULL, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_LOCAL_CATA, 0);
    if (h.dv != SM_RDMA_DDP_VERSION)
        return h.tagged ? terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_TAGGED,
                                    SM_RDMA_DT_VERSION)
                        : terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                                    SM_RDMA_DU_VERSION);
    if (h.rv != SM_RDMA_RDMAP_VERSION)
        return terminate(qp, seg, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                         SM_RDMA_RO_VERSION);
    if (len - SM_RDMA_HDR_LEN > UINT32_MAX)
        return terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_LOCAL_CATA, 0);
    uint32_t plen = (uint32_t)(len - SM_RDMA_HDR_LEN);
    const uint8_t *pl = seg + SM_RDMA_HDR_LEN;
    if (!h.tagged && h.opcode == SM_RDMA_OP_TERMINATE) {
        if (h.qn != SM_RDMA_QN_TERM)
            return terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                             SM_RDMA_DU_INV_QN);
        on_terminate(qp, pl, plen);
        return 0;
    }

    /* model, opcode and queue must agree */
    bool want_tagged = h.opcode == SM_RDMA_OP_WRITE || h.opcode == SM_RDMA_OP_READ_RESP;
    int qn = untagged_qn(h.opcode);
    if (!want_tagged && qn < 0)
        return terminate(qp, seg, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                         SM_RDMA_RO_OPCODE);
    if (h.tagged != want_tagged)
        return terminate(qp, seg, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                         SM_RDMA_RO_OPCODE);
    if (!h.tagged && h.qn != (uint32_t)qn)
        return terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                         SM_RDMA_DU_INV_QN);

    /* the segment's range within its message */
    if ((uint64_t)h.mo + plen > UINT32_MAX || (h.tagged && (h.to + plen < h.to || h.to < h.mo)))
        return h.tagged ? terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_TAGGED,
                                    SM_RDMA_DT_TO_WRAP)
                        : terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                                    SM_RDMA_DU_INV_MO);
    uint32_t lo = h.mo, hi = h.mo + plen;
    uint32_t clen = control_len(h.opcode);
    if (clen && (lo != 0 || !h.last || plen != clen))
        return terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                         SM_RDMA_DU_INV_MO);

    bool stale;
    sm_rdma_msg *m = sm_rdma_msgtab_get(&qp->mt, h.mn, &stale);
    if (stale)
        return 0; /* a duplicate of a message already delivered */
    if (!m)
        return terminate(qp, seg, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                         SM_RDMA_RO_CATA_STREAM);
    if (!m->used) {
        m->used = 1;
        m->tagged = h.tagged;
        m->opcode = h.opcode;
        m->stag = h.stag;
        m->to0 = h.to - h.mo;
        m->qn = h.qn;
        m->msn = h.msn;
        m->inv_stag = h.inv_stag;
        memcpy(m->hdr, seg, SM_RDMA_HDR_LEN);
    } else if (m->opcode != h.opcode || m->tagged != h.tagged ||
               (h.tagged ? (m->stag != h.stag || m->to0 != h.to - h.mo)
                         : (m->qn != h.qn || m->msn != h.msn || m->inv_stag != h.inv_stag))) {
        return terminate(qp, seg, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                         SM_RDMA_RO_UNSPEC);
    }
    /* the Last segment fixes the message length; nothing may lie beyond it */
    if ((m->last_seen && hi > m->total) ||
        (h.last && ((m->last_seen && m->total != hi) || sm_rdma_msg_end(m) > hi)))
        return h.tagged ? terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_TAGGED,
                                    SM_RDMA_DT_BOUNDS)
                        : terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                                    SM_RDMA_DU_INV_MO);

    /* untagged Sends need the posted receive their MSN names, big enough */
    const sm_rdma_rwr *r = NULL;
    if (qn == SM_RDMA_QN_SEND) {
        uint32_t idx = h.msn - qp->msn_in[SM_RDMA_QN_SEND];
        if (idx >= qp->rq_count)
            return terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                             idx < qp->a.max_recv_wr ? SM_RDMA_DU_NO_BUF : SM_RDMA_DU_MSN_RANGE);
        r = sm_rdma_rq_at(qp, idx);
        if (hi > r->total)
            return terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_UNTAGGED,
                             SM_RDMA_DU_TOO_LONG);
    }

    if (!sm_rdma_msg_covered(m, lo, hi)) {
        uint8_t *dst;
        int rc;
        switch (h.opcode) {
        case SM_RDMA_OP_WRITE:
            rc = sm_rdma_resolve(qp->a.pd, h.stag, h.to, plen, SM_RDMA_REMOTE_WRITE, &dst);
            if (rc)
                return term_tagged(qp, seg, rc);
            if (plen)
                memcpy(dst, pl, plen);
            break;
        case SM_RDMA_OP_READ_RESP:
            if (!find_read(qp, h.stag, h.to, plen))
                return find_read(qp, UINT32_MAX, 0, 0)
                           ? term_tagged(qp, seg, SM_RDMA_EBOUNDS)
                           : terminate(qp, seg, NULL, SM_RDMA_LAYER_RDMAP,
                                       SM_RDMA_RDMAP_REMOTE_OP, SM_RDMA_RO_OPCODE);
            rc = sm_rdma_resolve(qp->a.pd, h.stag, h.to, plen, SM_RDMA_LOCAL_WRITE, &dst);
            if (rc)
                return term_tagged(qp, seg, rc);
            if (plen)
                memcpy(dst, pl, plen);
            break;
        case SM_RDMA_OP_READ_REQ:
        case SM_RDMA_OP_ATOMIC_REQ:
        case SM_RDMA_OP_ATOMIC_RESP: memcpy(m->ctl, pl, plen); break;
        default: /* Sends */
            if (place_send(qp, r, lo, pl, plen))
                return terminate(qp, seg, NULL, SM_RDMA_LAYER_DDP, SM_RDMA_DDP_LOCAL_CATA, 0);
            break;
        }
        if (sm_rdma_msg_add(m, lo, hi) < 0)
            return terminate(qp, seg, NULL, SM_RDMA_LAYER_RDMAP, SM_RDMA_RDMAP_REMOTE_OP,
                             SM_RDMA_RO_CATA_STREAM);
    }
    if (h.last) {
        m->last_seen = 1;
        m->total = hi;
    }
    return deliver(qp);
}
