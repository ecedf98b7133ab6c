/* netlab: the timer heap of packet release times (binary min-heap on (time, sequence)). */
#ifndef NETLAB_HEAP_H
#define NETLAB_HEAP_H
#include <stdint.h>
#include <stdlib.h>

typedef struct {
    uint64_t t;    /* release time, ns CLOCK_MONOTONIC */
    uint32_t seq;  /* arrival order: equal times leave in arrival order */
    uint32_t slot; /* packet slot in the pool */
} nl_hent;

typedef struct {
    nl_hent *a;
    uint32_t n, cap;
} nl_heap;

static inline int nl_hless(const nl_hent *x, const nl_hent *y)
{
    return x->t < y->t || (x->t == y->t && (int32_t)(x->seq - y->seq) < 0);
}

static inline int nl_heap_push(nl_heap *h, nl_hent e)
{
    if (h->n == h->cap) {
        uint32_t nc = h->cap ? h->cap * 2 : 1024;
        nl_hent *na = realloc(h->a, (size_t)nc * sizeof *na);
        if (!na)
            return -1;
        h->a = na;
        h->cap = nc;
    }
    uint32_t i = h->n++;
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (!nl_hless(&e, &h->a[p]))
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = e;
    return 0;
}

static inline nl_hent nl_heap_pop(nl_heap *h)
{
    nl_hent top = h->a[0], last = h->a[--h->n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && nl_hless(&h->a[c + 1], &h->a[c]))
            c++;
        if (!nl_hless(&h->a[c], &last))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = last;
    return top;
}

#endif
