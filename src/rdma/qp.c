/* qp.c — the queue pair: its send and receive queues of work requests, posting (argument and
 * local-region checks), in-order send-queue completion, and the error state (flushing every
 * outstanding work request once a Terminate was sent or received). */
#include "rdma_internal.h"

#include <stdlib.h>
#include <string.h>

sm_rdma_qp *sm_rdma_qp_new(const sm_rdma_qp_attr *attr)
{
    if (!attr || !attr->pd || !attr->send_cq || !attr->recv_cq || !attr->output ||
        attr->lanes == 0 || attr->max_segment < 64 || attr->max_send_wr == 0 ||
        attr->max_recv_wr == 0)
        return NULL;
    sm_rdma_qp *qp = calloc(1, sizeof *qp);
    if (!qp)
        return NULL;
    qp->a = *attr;
    qp->state = SM_RDMA_QPS_RTS;
    qp->sq = calloc(attr->max_send_wr, sizeof *qp->sq);
    qp->rq = calloc(attr->max_recv_wr, sizeof *qp->rq);
    qp->txbuf = malloc(attr->max_segment);
    if (!qp->sq || !qp->rq || !qp->txbuf ||
        sm_rdma_msgtab_init(&qp->mt, attr->max_inflight_msgs)) {
        sm_rdma_qp_free(qp);
        return NULL;
    }
    for (int q = 0; q < SM_RDMA_NQN; q++)
        qp->msn_out[q] = qp->msn_in[q] = 1;
    return qp;
}

void sm_rdma_qp_free(sm_rdma_qp *qp)
{
    if (!qp)
        return;
    sm_rdma_msgtab_free(&qp->mt);
    free(qp->sq);
    free(qp->rq);
    free(qp->txbuf);
    free(qp);
}

int sm_rdma_qp_state(const sm_rdma_qp *qp)
{
    return qp->state;
}

int sm_rdma_qp_error(const sm_rdma_qp *qp, sm_rdma_term *t)
{
    if (qp->state != SM_RDMA_QPS_ERROR)
        return SM_RDMA_ESTATE;
    if (t)
        *t = qp->term;
    return 0;
}

uint32_t sm_rdma_qp_payload(const sm_rdma_qp *qp)
{
    return qp->a.max_segment - SM_RDMA_HDR_LEN;
}

sm_rdma_swr *sm_rdma_sq_at(sm_rdma_qp *qp, uint32_t idx)
{
    return &qp->sq[(qp->sq_head + idx) % qp->a.max_send_wr];
}
sm_rdma_rwr *sm_rdma_rq_at(sm_rdma_qp *qp, uint32_t idx)
{
    return &qp->rq[(qp->rq_head + idx) % qp->a.max_recv_wr];
}

static uint8_t wc_opcode(uint8_t wr_opcode)
{
    switch (wr_opcode) {
    case SM_RDMA_WR_WRITE: return SM_RDMA_WC_WRITE;
    case SM_RDMA_WR_READ: return SM_RDMA_WC_READ;
    case SM_RDMA_WR_FETCH_ADD: return SM_RDMA_WC_FETCH_ADD;
    case SM_RDMA_WR_CMP_SWAP: return SM_RDMA_WC_CMP_SWAP;
    default: return SM_RDMA_WC_SEND;
    }
}

/* Report the completed work requests at the head of the send queue, in posting order. */
void sm_rdma_sq_drain(sm_rdma_qp *qp)
{
    while (qp->sq_count && qp->sq[qp->sq_head].done) {
        sm_rdma_swr *w = &qp->sq[qp->sq_head];
        sm_rdma_wc wc = { .wr_id = w->wr_id,
                          .qp_num = qp->a.qp_num,
                          .opcode = wc_opcode(w->opcode),
                          .status = w->status,
                          .byte_len = w->byte_len };
        sm_rdma_cq_push(qp->a.send_cq, &wc);
        qp->sq_head = (qp->sq_head + 1) % qp->a.max_send_wr;
        qp->sq_count--;
    }
}

void sm_rdma_rq_complete_head(sm_rdma_qp *qp, uint32_t byte_len, uint8_t flags, uint32_t inv)
{
    sm_rdma_rwr *r = &qp->rq[qp->rq_head];
    sm_rdma_wc wc = { .wr_id = r->wr_id,
                      .qp_num = qp->a.qp_num,
                      .opcode = SM_RDMA_WC_RECV,
                      .status = SM_RDMA_WC_SUCCESS,
                      .flags = flags,
                      .byte_len = byte_len,
                      .invalidated_stag = inv };
    sm_rdma_cq_push(qp->a.recv_cq, &wc);
    qp->rq_head = (qp->rq_head + 1) % qp->a.max_recv_wr;
    qp->rq_count--;
}

/* Enter the error state: remember the cause, give the work request whose message the error was
 * about (bad_mn) an error status, flush everything else. */
void sm_rdma_qp_fail(sm_rdma_qp *qp, uint8_t layer, uint8_t etype, uint8_t ecode, int remote,
                     uint32_t bad_mn, bool have_mn)
{
    if (qp->state == SM_RDMA_QPS_ERROR)
        return;
    qp->state = SM_RDMA_QPS_ERROR;
    qp->term = (sm_rdma_term){
        .layer = layer, .etype = etype, .ecode = ecode, .remote = (uint8_t)remote
    };
    uint8_t st = SM_RDMA_WC_REM_OP_ERR;
    if ((layer == SM_RDMA_LAYER_RDMAP && etype == SM_RDMA_RDMAP_REMOTE_PROT) ||
        (layer == SM_RDMA_LAYER_DDP && etype == SM_RDMA_DDP_TAGGED))
        st = SM_RDMA_WC_REM_ACCESS_ERR;
    for (uint32_t i = 0; i < qp->sq_count; i++) {
        sm_rdma_swr *w = sm_rdma_sq_at(qp, i);
        if (w->done)
            continue;
        w->done = 1;
        w->byte_len = 0;
        w->status = (remote && have_mn && w->mn == bad_mn) ? st : SM_RDMA_WC_FLUSH_ERR;
    }
    sm_rdma_sq_drain(qp);
    while (qp->rq_count) {
        sm_rdma_rwr *r = &qp->rq[qp->rq_head];
        sm_rdma_wc wc = { .wr_id = r->wr_id,
                          .qp_num = qp->a.qp_num,
                          .opcode = SM_RDMA_WC_RECV,
                          .status = SM_RDMA_WC_FLUSH_ERR };
        sm_rdma_cq_push(qp->a.recv_cq, &wc);
        qp->rq_head = (qp->rq_head + 1) % qp->a.max_recv_wr;
        qp->rq_count--;
    }
}

static int check_sgl(const sm_rdma_qp *qp, const sm_rdma_sge *sgl, int nsge, unsigned need,
                     uint64_t *total)
{
    if (nsge < 0 || nsge > SM_RDMA_MAX_SGE || (nsge && !sgl))
        return SM_RDMA_EINVAL;
    uint64_t t = 0;
    for (int i = 0; i < nsge; i++) {
        int rc = sm_rdma_resolve(qp->a.pd, sgl[i].stag, sgl[i].to, sgl[i].len, need, NULL);
        if (rc)
            return rc;
        t += sgl[i].len;
    }
    *total = t;
    return 0;
}

int sm_rdma_post_recv(sm_rdma_qp *qp, uint64_t wr_id, const sm_rdma_sge *sgl, int nsge)
{
    if (!qp)
        return SM_RDMA_EINVAL;
    if (qp->state != SM_RDMA_QPS_RTS)
        return SM_RDMA_ESTATE;
    if (qp->rq_count == qp->a.max_recv_wr)
        return SM_RDMA_ENOMEM;
    uint64_t total;
    int rc = check_sgl(qp, sgl, nsge, SM_RDMA_LOCAL_WRITE, &total);
    if (rc)
        return rc;
    sm_rdma_rwr *r = sm_rdma_rq_at(qp, qp->rq_count);
    r->wr_id = wr_id;
    r->nsge = nsge;
    if (nsge)
        memcpy(r->sge, sgl, (size_t)nsge * sizeof *sgl);
    r->total = total;
    qp->rq_count++;
    return 0;
}

int sm_rdma_post_send(sm_rdma_qp *qp, const sm_rdma_send_wr *wr)
{
    if (!qp || !wr)
        return SM_RDMA_EINVAL;
    if (qp->state != SM_RDMA_QPS_RTS)
        return SM_RDMA_ESTATE;
    if (qp->sq_count == qp->a.max_send_wr)
        return SM_RDMA_ENOMEM;
    uint64_t total;
    unsigned need = SM_RDMA_LOCAL_READ;
    switch (wr->opcode) {
    case SM_RDMA_WR_SEND:
    case SM_RDMA_WR_SEND_INV:
    case SM_RDMA_WR_WRITE: break;
    case SM_RDMA_WR_READ:
    case SM_RDMA_WR_FETCH_ADD:
    case SM_RDMA_WR_CMP_SWAP:
        need = SM_RDMA_LOCAL_WRITE;
        if (wr->nsge != 1)
            return SM_RDMA_EINVAL;
        break;
    default: return SM_RDMA_EINVAL;
    }
    int rc = check_sgl(qp, wr->sgl, wr->nsge, need, &total);
    if (rc)
        return rc;
    if (total > UINT32_MAX)
        return SM_RDMA_ETOOBIG;
    if ((wr->opcode == SM_RDMA_WR_FETCH_ADD || wr->opcode == SM_RDMA_WR_CMP_SWAP) &&
        (total != 8 || (wr->remote_to & 7u)))
        return SM_RDMA_EINVAL;
    sm_rdma_swr *w = sm_rdma_sq_at(qp, qp->sq_count);
    memset(w, 0, sizeof *w);
    w->wr_id = wr->wr_id;
    w->opcode = wr->opcode;
    w->flags = wr->flags;
    w->nsge = wr->nsge;
    if (wr->nsge)
        memcpy(w->sge, wr->sgl, (size_t)wr->nsge * sizeof *wr->sgl);
    w->remote_stag = wr->remote_stag;
    w->remote_to = wr->remote_to;
    w->inv_stag = wr->invalidate_stag;
    w->add_or_swap = wr->add_or_swap;
    w->compare = wr->compare;
    w->byte_len = (uint32_t)total;
    w->seq = qp->next_seq++;
    w->pending = 1;
    qp->sq_count++;
    sm_rdma_sq_release(qp);
    sm_rdma_sq_drain(qp);
    return 0;
}

static bool is_response_wr(uint8_t op)
{
    return op == SM_RDMA_WR_READ || op == SM_RDMA_WR_FETCH_ADD || op == SM_RDMA_WR_CMP_SWAP;
}

/* Emit pending requests in posting order; a fenced one waits until no earlier Read or atomic
 * is outstanding, and everything posted after it waits with it. */
void sm_rdma_sq_release(sm_rdma_qp *qp)
{
    bool waiting = false; /* an earlier Read/atomic is emitted but not complete */
    for (uint32_t i = 0; i < qp->sq_count && qp->state == SM_RDMA_QPS_RTS; i++) {
        sm_rdma_swr *w = sm_rdma_sq_at(qp, i);
        if (!w->pending) {
            if (!w->done && is_response_wr(w->opcode))
                waiting = true;
            continue;
        }
        if ((w->flags & SM_RDMA_WR_FENCE) && waiting)
            return;
        sm_rdma_emit_wr(qp, w);
        if (is_response_wr(w->opcode))
            waiting = true;
    }
}

int sm_rdma_qp_input(sm_rdma_qp *qp, const uint8_t *seg, size_t len)
{
    if (!qp || (!seg && len))
        return SM_RDMA_EINVAL;
    if (qp->state != SM_RDMA_QPS_RTS)
        return SM_RDMA_ESTATE;
    return sm_rdma_input(qp, seg, len);
}
