/* util.c — small containers of the engine: the u32 -> pointer open-addressing map (lookup of
 * associations by verification tag and by id) and the buffer pool that holds the payloads of
 * received chunks waiting for delivery (recycled, so no malloc in steady state). */
#include <stdlib.h>

#include "sctpn_internal.h"

#define TOMB ((void *)&tomb_marker)
static char tomb_marker;

static uint32_t mix(uint32_t k)
{
    k ^= k >> 16;
    k *= 0x7feb352du;
    k ^= k >> 15;
    k *= 0x846ca68bu;
    k ^= k >> 16;
    return k;
}

static int grow(struct u32map *m)
{
    uint32_t ncap = m->cap ? m->cap * 2 : 16;
    if (m->cap && (m->used - m->tomb) * 4 < m->cap)
        ncap = m->cap; /* mostly tombstones: rehash in place size */
    uint32_t *nk = calloc(ncap, sizeof *nk);
    void **nv = calloc(ncap, sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->keys[i] || m->vals[i] == TOMB)
            continue;
        uint32_t j = mix(m->keys[i]) & (ncap - 1);
        while (nk[j])
            j = (j + 1) & (ncap - 1);
        nk[j] = m->keys[i];
        nv[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->used -= m->tomb;
    m->tomb = 0;
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
    return 0;
}

int u32map_put(struct u32map *m, uint32_t key, void *val)
{
    if (!key)
        return -1;
    if ((m->used + 1) * 4 > m->cap * 3 && grow(m) < 0)
        return -1;
    uint32_t j = mix(key) & (m->cap - 1);
    while (m->keys[j] && m->keys[j] != key)
        j = (j + 1) & (m->cap - 1);
    if (!m->keys[j])
        m->used++;
    else if (m->vals[j] == TOMB)
        m->tomb--;
    m->keys[j] = key;
    m->vals[j] = val;
    return 0;
}

void *u32map_get(const struct u32map *m, uint32_t key)
{
    if (!key || !m->cap)
        return NULL;
    uint32_t j = mix(key) & (m->cap - 1);
    while (m->keys[j]) {
        if (m->keys[j] == key)
            return m->vals[j] == TOMB ? NULL : m->vals[j];
        j = (j + 1) & (m->cap - 1);
    }
    return NULL;
}

void u32map_del(struct u32map *m, uint32_t key)
{
    if (!key || !m->cap)
        return;
    uint32_t j = mix(key) & (m->cap - 1);
    while (m->keys[j]) {
        if (m->keys[j] == key) {
            if (m->vals[j] != TOMB) {
                m->vals[j] = TOMB;
                m->tomb++;
            }
            return;
        }
        j = (j + 1) & (m->cap - 1);
    }
}

void u32map_free(struct u32map *m)
{
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}

void *bufpool_get(struct bufpool *p, size_t len)
{
    if (len > p->big_size) /* a chunk from a peer with a larger MTU: not pooled */
        return malloc(len);
    void **fl = len <= BUFPOOL_SMALL ? &p->free_small : &p->free_big;
    size_t sz = len <= BUFPOOL_SMALL ? BUFPOOL_SMALL : p->big_size;
    if (*fl) {
        void *b = *fl;
        memcpy(fl, b, sizeof(void *));
        return b;
    }
    return malloc(sz < sizeof(void *) ? sizeof(void *) : sz);
}

void bufpool_put(struct bufpool *p, void *b, size_t len)
{
    if (!b)
        return;
    if (len > p->big_size) {
        free(b);
        return;
    }
    void **fl = len <= BUFPOOL_SMALL ? &p->free_small : &p->free_big;
    memcpy(b, fl, sizeof(void *));
    *fl = b;
}

static void free_list(void *b)
{
    while (b) {
        void *n;
        memcpy(&n, b, sizeof n);
        free(b);
        b = n;
    }
}

void bufpool_free(struct bufpool *p)
{
    free_list(p->free_small);
    free_list(p->free_big);
    p->free_small = p->free_big = NULL;
}
