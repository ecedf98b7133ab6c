/* assoc.c — association objects: creation, paths and the pairing of remote with local
 * addresses, stream tables, lookups (by id, verification tag, remote address), going down
 * (events, failing queued sends) and freeing at a safe point (reap). */
#include <stdlib.h>

#include "sctpn_internal.h"

struct sctpn_assoc *assoc_new(struct sctpn_endpoint *ep, uint32_t my_vtag, uint32_t my_itsn)
{
    struct sctpn_assoc *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->out_ssn = calloc(ep->cfg.num_ostreams, sizeof *a->out_ssn);
    a->out_mid = calloc(ep->cfg.num_ostreams, sizeof *a->out_mid);
    a->out_umid = calloc(ep->cfg.num_ostreams, sizeof *a->out_umid);
    a->sq_head = calloc(ep->cfg.num_ostreams, sizeof *a->sq_head);
    a->sq_tail = calloc(ep->cfg.num_ostreams, sizeof *a->sq_tail);
    a->ring_cap = 1024;
    a->ring = calloc(a->ring_cap, sizeof *a->ring);
    if (!a->out_ssn || !a->out_mid || !a->out_umid || !a->ring || !a->sq_head || !a->sq_tail) {
        free(a->sq_head);
        free(a->sq_tail);
        free(a->out_ssn);
        free(a->out_mid);
        free(a->out_umid);
        free(a->ring);
        free(a);
        return NULL;
    }
    a->id = ep->next_id++;
    if (!ep->next_id)
        ep->next_id = 1;
    a->my_vtag = my_vtag;
    a->next_tsn = my_itsn;
    a->cum_ack = my_itsn - 1;
    a->rtx_hint = my_itsn;
    a->os = ep->cfg.num_ostreams;
    a->t1 = a->t2 = a->sack_due = NEVER;
    a->shutdown_from = -1;
    a->peer_rwnd = 4380;
    a->idata = 0;
    if (u32map_put(&ep->by_vtag, my_vtag, a) < 0 || u32map_put(&ep->by_id, a->id, a) < 0) {
        u32map_del(&ep->by_vtag, my_vtag);
        free(a->sq_head);
        free(a->sq_tail);
        free(a->out_ssn);
        free(a->out_mid);
        free(a->out_umid);
        free(a->ring);
        free(a);
        return NULL;
    }
    a->link = ep->assocs;
    ep->assocs = a;
    ep->nassocs++;
    return a;
}

void assoc_change_vtag(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t vtag)
{
    u32map_del(&ep->by_vtag, a->my_vtag);
    a->my_vtag = vtag;
    u32map_put(&ep->by_vtag, vtag, a);
}

void assoc_set_streams(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint16_t os, uint16_t is)
{
    (void)ep;
    a->os = os;
    a->is = is;
}

int assoc_init_recv(struct sctpn_endpoint *ep, struct sctpn_assoc *a, uint32_t peer_itsn)
{
    free(a->in);
    a->in = calloc(a->is ? a->is : 1, sizeof *a->in);
    if (!a->in)
        return SCTPN_ENOMEM;
    uint32_t bits = 4096;
    while (bits < ep->cfg.rwnd / 32 && bits < (1u << 20))
        bits <<= 1;
    return tsnmap_init(a, peer_itsn, bits);
}

int assoc_add_path(struct sctpn_endpoint *ep, struct sctpn_assoc *a, struct sctpn_addr remote,
                   struct sctpn_addr local)
{
    (void)ep;
    if (assoc_path_of(a, &remote) >= 0)
        return 0;
    if (a->npaths == SCTPN_MAX_PATHS)
        return SCTPN_ELIMIT;
    struct path *p = &a->paths[a->npaths++];
    memset(p, 0, sizeof *p);
    p->remote = remote;
    p->local = local;
    p->state = SCTPN_PATH_ACTIVE;
    p->t3 = p->hb_due = NEVER;
    return a->npaths - 1;
}

static int common_prefix(uint32_t x_be, uint32_t y_be)
{
    uint32_t d = __builtin_bswap32(x_be) ^ __builtin_bswap32(y_be);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    d = x_be ^ y_be;
#endif
    return d ? __builtin_clz(d) : 32;
}

/* the local address to send to remote from: the one sharing the longest prefix with it
 * (ties: the index-th one, so rail i pairs with rail i) */
struct sctpn_addr pick_local(const struct sctpn_addr *locals, int n, struct sctpn_addr remote,
                             int index, const struct sctpn_addr *fallback)
{
    if (n <= 0)
        return *fallback;
    int best = index % n;
    int bl = common_prefix(locals[best].ipv4, remote.ipv4);
    for (int j = 0; j < n; j++) {
        int l = common_prefix(locals[j].ipv4, remote.ipv4);
        if (l > bl) {
            bl = l;
            best = j;
        }
    }
    return locals[best];
}

void assoc_add_my_addr(struct sctpn_assoc *a, struct sctpn_addr x)
{
    if (!x.ipv4 || a->n_my_addrs == SCTPN_MAX_PATHS)
        return;
    for (int i = 0; i < a->n_my_addrs; i++)
        if (a->my_addrs[i].ipv4 == x.ipv4)
            return;
    a->my_addrs[a->n_my_addrs++] = x;
}

int assoc_path_of(struct sctpn_assoc *a, const struct sctpn_addr *remote)
{
    for (int i = 0; i < a->npaths; i++)
        if (a->paths[i].remote.ipv4 == remote->ipv4 &&
            a->paths[i].remote.udp_port == remote->udp_port)
            return i;
    return -1;
}

struct sctpn_assoc *assoc_by_id(struct sctpn_endpoint *ep, sctpn_assoc_id id)
{
    struct sctpn_assoc *a = u32map_get(&ep->by_id, id);
    return a && !a->dead ? a : NULL;
}

struct sctpn_assoc *assoc_by_addr(struct sctpn_endpoint *ep, const struct sctpn_addr *remote,
                                  uint16_t peer_port)
{
    for (struct sctpn_assoc *a = ep->assocs; a; a = a->link)
        if (!a->dead && a->peer_port == peer_port && assoc_path_of(a, remote) >= 0)
            return a;
    return NULL;
}

void assoc_down(struct sctpn_endpoint *ep, struct sctpn_assoc *a, int reason)
{
    if (a->dead)
        return;
    a->dead = 1;
    a->state = SCTPN_CLOSED;
    u32map_del(&ep->by_vtag, a->my_vtag);
    tx_free_all(ep, a, 1);
    struct sctpn_event ev = { .type = SCTPN_EV_ASSOC_DOWN, .assoc = a->id, .reason = reason };
    if (a->npaths)
        ev.addr = a->paths[a->primary].remote;
    ev_emit(ep, &ev);
}

static void assoc_free(struct sctpn_endpoint *ep, struct sctpn_assoc *a)
{
    tx_free_all(ep, a, 0);
    rx_free_all(ep, a);
    u32map_del(&ep->by_id, a->id);
    free(a->out_ssn);
    free(a->out_mid);
    free(a->out_umid);
    free(a->sq_head);
    free(a->sq_tail);
    free(a->ring);
    free(a->tsnmap);
    free(a->in);
    free(a->cookie);
    free(a);
}

void assoc_reap(struct sctpn_endpoint *ep)
{
    if (ep->in_callback)
        return;
    struct sctpn_assoc **pp = &ep->assocs;
    while (*pp) {
        struct sctpn_assoc *a = *pp;
        if (a->dead) {
            *pp = a->link;
            if (ep->rr == a)
                ep->rr = a->link;
            ep->nassocs--;
            assoc_free(ep, a);
        } else {
            pp = &a->link;
        }
    }
}
