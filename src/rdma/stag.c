/* stag.c — memory registration: the protection domain's region table, steering tags (24-bit
 * index + 8-bit key), access rights, local invalidation and the validated lookup every
 * placement and every gather goes through. */
#include "rdma_internal.h"

#include <stdlib.h>

#define SM_RDMA_MAX_INDEX 0xffffffu

sm_rdma_pd *sm_rdma_pd_new(uint32_t max_regions)
{
    if (max_regions == 0 || max_regions >= SM_RDMA_MAX_INDEX)
        return NULL;
    sm_rdma_pd *pd = calloc(1, sizeof *pd);
    if (!pd)
        return NULL;
    pd->n = max_regions + 1;
    pd->mr = calloc(pd->n, sizeof *pd->mr);
    if (!pd->mr) {
        free(pd);
        return NULL;
    }
    pd->next_key = 0x5a;
    return pd;
}

void sm_rdma_pd_free(sm_rdma_pd *pd)
{
    if (!pd)
        return;
    free(pd->mr);
    free(pd);
}

static uint8_t new_key(sm_rdma_pd *pd, uint8_t old)
{
    uint8_t k = pd->next_key;
    pd->next_key = (uint8_t)(pd->next_key * 29u + 101u);
    if (k == old)
        k = (uint8_t)(k + 1);
    return k;
}

int sm_rdma_reg(sm_rdma_pd *pd, void *addr, size_t len, unsigned access, uint32_t *stag)
{
    if (!pd || !stag || (!addr && len) || (access & ~0x3fu))
        return SM_RDMA_EINVAL;
    if ((uintptr_t)addr + len < (uintptr_t)addr)
        return SM_RDMA_EWRAP;
    for (uint32_t i = 1; i < pd->n; i++) {
        sm_rdma_mr *m = &pd->mr[i];
        if (m->state != SM_RDMA_MR_FREE)
            continue;
        m->addr = addr;
        m->len = len;
        m->access = access;
        m->key = new_key(pd, m->key);
        m->state = SM_RDMA_MR_VALID;
        *stag = i << 8 | m->key;
        return 0;
    }
    return SM_RDMA_ENOMEM;
}

sm_rdma_mr *sm_rdma_mr_lookup(const sm_rdma_pd *pd, uint32_t stag)
{
    uint32_t idx = stag >> 8;
    if (!pd || idx == 0 || idx >= pd->n)
        return NULL;
    sm_rdma_mr *m = &pd->mr[idx];
    if (m->state == SM_RDMA_MR_FREE || m->key != (uint8_t)stag)
        return NULL;
    return m;
}

int sm_rdma_dereg(sm_rdma_pd *pd, uint32_t stag)
{
    sm_rdma_mr *m = sm_rdma_mr_lookup(pd, stag);
    if (!m)
        return SM_RDMA_ESTAG;
    m->state = SM_RDMA_MR_FREE;
    m->addr = NULL;
    m->len = 0;
    m->access = 0;
    return 0;
}

int sm_rdma_invalidate(sm_rdma_pd *pd, uint32_t stag)
{
    sm_rdma_mr *m = sm_rdma_mr_lookup(pd, stag);
    if (!m || m->state != SM_RDMA_MR_VALID)
        return SM_RDMA_ESTAG;
    m->state = SM_RDMA_MR_INVALID;
    return 0;
}

int sm_rdma_revalidate(sm_rdma_pd *pd, uint32_t old_stag, uint32_t *stag)
{
    sm_rdma_mr *m = sm_rdma_mr_lookup(pd, old_stag);
    if (!m || !stag)
        return SM_RDMA_ESTAG;
    if (m->state != SM_RDMA_MR_INVALID)
        return SM_RDMA_EINVAL;
    m->key = new_key(pd, m->key);
    m->state = SM_RDMA_MR_VALID;
    *stag = (old_stag & ~0xffu) | m->key;
    return 0;
}

int sm_rdma_resolve(const sm_rdma_pd *pd, uint32_t stag, uint64_t to, uint64_t len, unsigned need,
                    uint8_t **addr)
{
    const sm_rdma_mr *m = sm_rdma_mr_lookup(pd, stag);
    if (!m || m->state != SM_RDMA_MR_VALID)
        return SM_RDMA_ESTAG;
    if ((m->access & need) != need)
        return SM_RDMA_EACCESS;
    if (to + len < to)
        return SM_RDMA_EWRAP;
    if (to > m->len || len > m->len - to)
        return SM_RDMA_EBOUNDS;
    if (addr)
        *addr = m->addr ? m->addr + to : NULL;
    return 0;
}
