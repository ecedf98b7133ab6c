/* msgtrack.c — incoming message tracking for unordered delivery: a table of the messages
 * between the delivery point and the newest one seen (indexed by message number), and for each
 * message the set of byte ranges already placed, so that completion is decided by counting
 * distinct bytes and a duplicate segment is recognised and not placed twice. */
#include "rdma_internal.h"

#include <stdlib.h>
#include <string.h>

int sm_rdma_msgtab_init(sm_rdma_msgtab *t, uint32_t limit)
{
    memset(t, 0, sizeof *t);
    t->limit = limit ? limit : 65536;
    if (t->limit > (1u << 24))
        t->limit = 1u << 24;
    t->cap = 16;
    t->slot = calloc(t->cap, sizeof *t->slot);
    return t->slot ? 0 : SM_RDMA_ENOMEM;
}

void sm_rdma_msgtab_free(sm_rdma_msgtab *t)
{
    if (!t->slot)
        return;
    for (uint32_t i = 0; i < t->cap; i++)
        free(t->slot[i].iv);
    free(t->slot);
    t->slot = NULL;
}

static int grow(sm_rdma_msgtab *t, uint32_t need)
{
    uint32_t cap = t->cap;
    while (cap < need)
        cap *= 2;
    sm_rdma_msg *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t i = 0; i < t->cap; i++) {
        uint32_t mn = t->base + i;
        s[mn & (cap - 1)] = t->slot[mn & (t->cap - 1)];
    }
    free(t->slot);
    t->slot = s;
    t->cap = cap;
    return 0;
}

sm_rdma_msg *sm_rdma_msgtab_get(sm_rdma_msgtab *t, uint32_t mn, bool *stale)
{
    uint32_t d = mn - t->base;
    *stale = false;
    if ((int32_t)d < 0) {
        *stale = true;
        return NULL;
    }
    if (d >= t->limit)
        return NULL;
    if (d >= t->cap && grow(t, d + 1) != 0)
        return NULL;
    return &t->slot[mn & (t->cap - 1)];
}

bool sm_rdma_msg_covered(const sm_rdma_msg *m, uint32_t lo, uint32_t hi)
{
    if (lo == hi)
        return false; /* nothing to place */
    /* binary search for the last interval starting at or before lo */
    uint32_t a = 0, b = m->niv;
    while (a < b) {
        uint32_t c = (a + b) / 2;
        if (m->iv[c].lo <= lo)
            a = c + 1;
        else
            b = c;
    }
    return a > 0 && m->iv[a - 1].hi >= hi;
}

uint32_t sm_rdma_msg_end(const sm_rdma_msg *m)
{
    return m->niv ? m->iv[m->niv - 1].hi : 0;
}

int64_t sm_rdma_msg_add(sm_rdma_msg *m, uint32_t lo, uint32_t hi)
{
    if (lo == hi)
        return 0;
    uint32_t i = 0;
    while (i < m->niv && m->iv[i].hi < lo)
        i++;
    /* intervals i..j-1 touch or overlap [lo, hi) */
    uint32_t j = i;
    uint64_t covered = 0;
    uint32_t nlo = lo, nhi = hi;
    while (j < m->niv && m->iv[j].lo <= hi) {
        uint32_t olo = m->iv[j].lo > lo ? m->iv[j].lo : lo;
        uint32_t ohi = m->iv[j].hi < hi ? m->iv[j].hi : hi;
        if (ohi > olo)
            covered += ohi - olo;
        if (m->iv[j].lo < nlo)
            nlo = m->iv[j].lo;
        if (m->iv[j].hi > nhi)
            nhi = m->iv[j].hi;
        j++;
    }
    if (j == i) { /* insert a new interval at i */
        if (m->niv == m->cap) {
            uint32_t nc = m->cap ? m->cap * 2 : 4;
            sm_rdma_ival *n = realloc(m->iv, nc * sizeof *n);
            if (!n)
                return -1;
            m->iv = n;
            m->cap = nc;
        }
        memmove(&m->iv[i + 1], &m->iv[i], (m->niv - i) * sizeof *m->iv);
        m->niv++;
    } else if (j > i + 1) { /* merge i..j-1 into i */
        memmove(&m->iv[i + 1], &m->iv[j], (m->niv - j) * sizeof *m->iv);
        m->niv -= j - i - 1;
    }
    m->iv[i].lo = nlo;
    m->iv[i].hi = nhi;
    uint64_t fresh = (uint64_t)(hi - lo) - covered;
    m->placed += fresh;
    return (int64_t)fresh;
}

sm_rdma_msg *sm_rdma_msgtab_head_complete(sm_rdma_msgtab *t)
{
    sm_rdma_msg *m = &t->slot[t->base & (t->cap - 1)];
    if (!m->used || !m->last_seen || m->placed != m->total)
        return NULL;
    return m;
}

void sm_rdma_msgtab_pop(sm_rdma_msgtab *t)
{
    sm_rdma_msg *m = &t->slot[t->base & (t->cap - 1)];
    sm_rdma_ival *iv = m->iv;
    uint32_t cap = m->cap;
    memset(m, 0, sizeof *m);
    m->iv = iv; /* keep the range buffer for reuse */
    m->cap = cap;
    t->base++;
}
