/* map.c — open-addressing hash map (uint64 key -> pointer) and allocation that fails loudly. */
#include <stdlib.h>

#include "util/util.h"

#define EMPTY UINT64_MAX

static size_t slot(uint64_t key, size_t cap)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (cap - 1);
}

void *sm_map_get(const struct sm_map *m, uint64_t key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = slot(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
        if (m->keys[i] == key)
            return m->vals[i];
        if (m->keys[i] == EMPTY)
            return NULL;
    }
}

static int grow(struct sm_map *m)
{
    size_t ncap = m->cap ? m->cap * 2 : 64;
    uint64_t *nk = malloc(ncap * sizeof *nk);
    void **nv = malloc(ncap * sizeof *nv);
    if (!nk || !nv) {
        free(nk);
        free(nv);
        return -1;
    }
    for (size_t i = 0; i < ncap; i++)
        nk[i] = EMPTY;
    for (size_t j = 0; j < m->cap; j++) {
        if (m->keys[j] == EMPTY)
            continue;
        size_t i = slot(m->keys[j], ncap);
        while (nk[i] != EMPTY)
            i = (i + 1) & (ncap - 1);
        nk[i] = m->keys[j];
        nv[i] = m->vals[j];
    }
    free(m->keys);
    free(m->vals);
    m->keys = nk;
    m->vals = nv;
    m->cap = ncap;
    return 0;
}

int sm_map_put(struct sm_map *m, uint64_t key, void *val)
{
    if ((m->used + 1) * 2 > m->cap && grow(m))
        return -1;
    size_t i = slot(key, m->cap);
    while (m->keys[i] != EMPTY && m->keys[i] != key)
        i = (i + 1) & (m->cap - 1);
    if (m->keys[i] == EMPTY)
        m->used++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

void sm_map_free(struct sm_map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->used = 0;
}

void *sm_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        sm_die("out of memory allocating %zu bytes", n);
    return p;
}

void *sm_xcalloc(size_t n, size_t sz)
{
    void *p = calloc(n ? n : 1, sz ? sz : 1);
    if (!p)
        sm_die("out of memory allocating %zu x %zu bytes", n, sz);
    return p;
}
