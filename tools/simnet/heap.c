/* heap.c — the simulator's event queue: a binary min-heap of events ordered by their key
 * (virtual time, class, id, sequence), so that equal times break ties deterministically. */
#include <stdlib.h>

#include "simnet.h"

int sn_key_less(const struct sn_key *a, const struct sn_key *b)
{
    if (a->t != b->t)
        return a->t < b->t;
    if (a->cls != b->cls)
        return a->cls < b->cls;
    if (a->id != b->id)
        return a->id < b->id;
    return a->seq < b->seq;
}

int sn_heap_push(struct sn_heap *h, const struct sn_ev *e)
{
    if (h->n == h->cap) {
        size_t nc = h->cap ? h->cap * 2 : 1024;
        struct sn_ev *na = realloc(h->a, nc * sizeof *na);
        if (!na)
            return -1;
        h->a = na;
        h->cap = nc;
    }
    size_t i = h->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!sn_key_less(&e->k, &h->a[p].k))
            break;
        h->a[i] = h->a[p];
        i = p;
    }
    h->a[i] = *e;
    return 0;
}

struct sn_ev sn_heap_pop(struct sn_heap *h)
{
    struct sn_ev top = h->a[0], last = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && sn_key_less(&h->a[c + 1].k, &h->a[c].k))
            c++;
        if (!sn_key_less(&h->a[c].k, &last.k))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = last;
    return top;
}
