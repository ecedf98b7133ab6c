/* kvs.c — a chained hash table of strings: the PMI key-value space of one job. */
#include "kvs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct kvs_entry {
    char *key, *value;
    struct kvs_entry *next;
};

struct kvs {
    struct kvs_entry **buckets;
    size_t nbuckets, count;
};

static size_t hash_string(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

struct kvs *kvs_create(void)
{
    struct kvs *kvs = calloc(1, sizeof *kvs);
    if (!kvs)
        return NULL;
    kvs->nbuckets = 256;
    kvs->buckets = calloc(kvs->nbuckets, sizeof *kvs->buckets);
    if (!kvs->buckets) {
        free(kvs);
        return NULL;
    }
    return kvs;
}

void kvs_destroy(struct kvs *kvs)
{
    if (!kvs)
        return;
    for (size_t i = 0; i < kvs->nbuckets; i++) {
        struct kvs_entry *e = kvs->buckets[i];
        while (e) {
            struct kvs_entry *next = e->next;
            free(e->key);
            free(e->value);
            free(e);
            e = next;
        }
    }
    free(kvs->buckets);
    free(kvs);
}

static void kvs_grow(struct kvs *kvs)
{
    size_t n = kvs->nbuckets * 4;
    struct kvs_entry **b = calloc(n, sizeof *b);
    if (!b)
        return; /* keep the old table: slower, still correct */
    for (size_t i = 0; i < kvs->nbuckets; i++) {
        struct kvs_entry *e = kvs->buckets[i];
        while (e) {
            struct kvs_entry *next = e->next;
            size_t h = hash_string(e->key) % n;
            e->next = b[h];
            b[h] = e;
            e = next;
        }
    }
    free(kvs->buckets);
    kvs->buckets = b;
    kvs->nbuckets = n;
}

int kvs_put(struct kvs *kvs, const char *key, const char *value)
{
    size_t h = hash_string(key) % kvs->nbuckets;
    char *v = strdup(value);
    if (!v)
        return -1;
    for (struct kvs_entry *e = kvs->buckets[h]; e; e = e->next) {
        if (strcmp(e->key, key) == 0) {
            free(e->value);
            e->value = v;
            return 0;
        }
    }
    struct kvs_entry *e = malloc(sizeof *e);
    if (!e || !(e->key = strdup(key))) {
        free(e);
        free(v);
        return -1;
    }
    e->value = v;
    e->next = kvs->buckets[h];
    kvs->buckets[h] = e;
    if (++kvs->count > kvs->nbuckets * 2)
        kvs_grow(kvs);
    return 0;
}

const char *kvs_get(const struct kvs *kvs, const char *key)
{
    size_t h = hash_string(key) % kvs->nbuckets;
    for (const struct kvs_entry *e = kvs->buckets[h]; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e->value;
    return NULL;
}
