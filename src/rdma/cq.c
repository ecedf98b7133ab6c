/* cq.c — completion queues: a fixed ring of work completions that any number of queue pairs
 * may share; a full ring counts the completions it had to drop (overflow). */
#include "rdma_internal.h"

#include <stdlib.h>

sm_rdma_cq *sm_rdma_cq_new(uint32_t depth)
{
    if (depth == 0)
        return NULL;
    sm_rdma_cq *cq = calloc(1, sizeof *cq);
    if (!cq)
        return NULL;
    cq->ring = calloc(depth, sizeof *cq->ring);
    if (!cq->ring) {
        free(cq);
        return NULL;
    }
    cq->depth = depth;
    return cq;
}

void sm_rdma_cq_free(sm_rdma_cq *cq)
{
    if (!cq)
        return;
    free(cq->ring);
    free(cq);
}

void sm_rdma_cq_push(sm_rdma_cq *cq, const sm_rdma_wc *wc)
{
    if (cq->count == cq->depth) {
        cq->overflow++;
        return;
    }
    cq->ring[(cq->head + cq->count) % cq->depth] = *wc;
    cq->count++;
    if (wc->flags & SM_RDMA_WC_SOLICITED)
        cq->solicited++;
}

int sm_rdma_cq_poll(sm_rdma_cq *cq, sm_rdma_wc *wc, int max)
{
    if (!cq || (!wc && max > 0))
        return SM_RDMA_EINVAL;
    int n = 0;
    while (n < max && cq->count) {
        wc[n++] = cq->ring[cq->head];
        cq->head = (cq->head + 1) % cq->depth;
        cq->count--;
    }
    return n;
}

uint64_t sm_rdma_cq_overflow(const sm_rdma_cq *cq)
{
    return cq ? cq->overflow : 0;
}
uint64_t sm_rdma_cq_solicited(const sm_rdma_cq *cq)
{
    return cq ? cq->solicited : 0;
}
