/* proxy_pmi.c — what the PMI-1 commands of a proxy's local ranks do (the wire protocol itself
 * is pmi_wire.c).  Gets are answered from the proxy's copy of the key-value space; a barrier
 * costs one round trip to mpiexec per proxy (W_FENCE carrying this host's puts, W_KVS carrying
 * every host's), however many ranks the host has. */
#include <stdio.h>
#include <string.h>

#include "pmi_wire.h"
#include "proxy.h"

static struct prank *rank_of(struct pmi_wire_conn *c)
{
    return c->owner;
}

static void on_init(void *ctx, struct pmi_wire_conn *c)
{
    struct prank *pr = rank_of(c);
    if (!pr->inited)
        proxy_send(ctx, W_INIT, (uint32_t)pr->rank, NULL, 0);
    pr->inited = 1;
}

static int on_put(void *ctx, struct pmi_wire_conn *c, const char *key, const char *value)
{
    (void)c;
    struct proxy *px = ctx;
    if (kvs_put(px->cache, key, value) < 0 || strlist_add(&px->pending, key) < 0 ||
        strlist_add(&px->pending, value) < 0)
        return -1;
    return 0;
}

static const char *on_get(void *ctx, struct pmi_wire_conn *c, const char *key)
{
    (void)c;
    return kvs_get(((struct proxy *)ctx)->cache, key);
}

static int on_barrier_in(void *ctx, struct pmi_wire_conn *c)
{
    struct proxy *px = ctx;
    struct prank *pr = rank_of(c);
    if (pr->in_barrier || px->fence_sent)
        return -1;
    pr->in_barrier = 1;
    if (++px->barrier_count < px->nlocal)
        return 0;
    px->fence_sent = 1;
    proxy_send(px, W_FENCE, 0, px->pending.buf, px->pending.len);
    px->pending.len = 0;
    return 0;
}

static void on_finalize(void *ctx, struct pmi_wire_conn *c)
{
    proxy_send(ctx, W_FINALIZE, (uint32_t)c->rank, NULL, 0);
}

static void on_abort(void *ctx, struct pmi_wire_conn *c, int code)
{
    char s[16];
    snprintf(s, sizeof s, "%d", code);
    proxy_send(ctx, W_ABORT, (uint32_t)c->rank, s, strlen(s));
}

static void on_unknown(void *ctx, struct pmi_wire_conn *c, const char *cmd)
{
    fprintf(stderr, "sctpmpi_proxy on %s: rank %d sent unsupported PMI command '%s'\n",
            ((struct proxy *)ctx)->host, c->rank, cmd);
}

static void on_overlong(void *ctx, struct pmi_wire_conn *c)
{
    struct proxy *px = ctx;
    fprintf(stderr, "sctpmpi_proxy on %s: rank %d sent a PMI request longer than %d bytes\n",
            px->host, c->rank, PMI_WIRE_LINE_MAX);
    char code[] = "1";
    proxy_send(px, W_ABORT, (uint32_t)c->rank, code, 1);
}

static const struct pmi_wire_server *server_of(struct proxy *px)
{
    static struct pmi_wire_server s;
    s = (struct pmi_wire_server){
        .ctx = px,
        .kvsname = px->kvsname,
        .universe_size = px->size,
        .init = on_init,
        .put = on_put,
        .get = on_get,
        .barrier_in = on_barrier_in,
        .finalize = on_finalize,
        .abort = on_abort,
        .unknown = on_unknown,
        .overlong = on_overlong,
    };
    return &s;
}

void proxy_pmi_fence_done(struct proxy *px, const char *pairs, size_t len)
{
    size_t pos = 0;
    const char *k, *v;
    while ((k = strlist_next(pairs, len, &pos)) && (v = strlist_next(pairs, len, &pos)))
        if (kvs_put(px->cache, k, v) < 0)
            fprintf(stderr, "sctpmpi_proxy on %s: out of memory in the KVS\n", px->host);
    px->fence_sent = 0;
    px->barrier_count = 0;
    const struct pmi_wire_server *s = server_of(px);
    for (int i = 0; i < px->nlocal; i++) {
        if (px->ranks[i].in_barrier) {
            px->ranks[i].in_barrier = 0;
            pmi_wire_reply(s, &px->ranks[i].pmi, "cmd=barrier_out rc=0\n");
        }
    }
}

void proxy_pmi_pump(struct proxy *px, struct prank *pr)
{
    pmi_wire_pump(server_of(px), &pr->pmi);
}
