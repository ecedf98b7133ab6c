/* peers_dyn.c — processes of other jobs in the engine's peer table (dynamic processes).
 *
 * Peer indices 0 .. size-1 are this job's ranks; connect/accept, spawn and join add the
 * processes of other jobs after them, one index per universe identity (job id, rank), found
 * or added here whether the connect/accept exchange names the process first (with its
 * business card and its job's secret) or the process reaches us first (its hello names it:
 * the transport asks through the peer_lookup upcall).  The transport learns each new peer
 * through its add_peer entry and opens connections to it lazily like to any peer.  A process
 * started without a transport (a singleton) starts one the first time it needs it. */
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "engine/engine_internal.h"

struct dyn_peer {
    uint32_t job;
    int rank;
    char *card, *secret;
};

static struct {
    struct dyn_peer *tab; /* index - size */
    int n, cap;
    struct sm_map by_ident; /* (job << 32 | rank) -> index + 1 */
} dp;

static uint64_t ident_key(uint32_t job, int rank)
{
    return ((uint64_t)job << 32) | (uint32_t)rank;
}

int sm_peer_count(void)
{
    return sm_eng.npeers;
}

uint32_t sm_job_id(void)
{
    return sm_boot_job_id();
}

int sm_peer_describe(int w, uint32_t *job, int *rank, const char **secret, const char **card)
{
    if (w >= 0 && w < sm_eng.size) {
        *job = sm_boot_job_id();
        *rank = w;
        *secret = sm_boot_secret();
        *card = sm_boot_card(w);
        return 0;
    }
    if (w < sm_eng.size || w >= sm_eng.npeers)
        return -1;
    const struct dyn_peer *d = &dp.tab[w - sm_eng.size];
    *job = d->job;
    *rank = d->rank;
    *secret = d->secret ? d->secret : "";
    *card = d->card ? d->card : "";
    return 0;
}

const char *sm_dyn_transport_name(void)
{
    return sm_eng.tp_ops ? sm_eng.tp_ops->name : "";
}

int sm_dyn_transport_ready(void)
{
    if (!sm_eng.tp && sm_engine_transport_start())
        return -MPI_ERR_OTHER;
    if (!sm_eng.tp_ops->add_peer)
        return -MPI_ERR_UNSUPPORTED_OPERATION;
    return 0;
}

static char *dup_or_null(const char *s)
{
    return s && *s ? strdup(s) : NULL;
}

int sm_peer_add(uint32_t job, int rank, const char *card, const char *secret)
{
    if (!sm_eng.tp && job == 0) /* described by a process without transport: itself */
        return rank >= 0 && rank < sm_eng.size ? rank : -MPI_ERR_RANK;
    if (job == sm_boot_job_id() && sm_eng.tp) /* this job's own rank */
        return rank >= 0 && rank < sm_eng.size ? rank : -MPI_ERR_RANK;
    int rc = sm_dyn_transport_ready();
    if (rc)
        return rc;
    if (job == sm_boot_job_id())
        return rank >= 0 && rank < sm_eng.size ? rank : -MPI_ERR_RANK;
    uintptr_t v = (uintptr_t)sm_map_get(&dp.by_ident, ident_key(job, rank));
    int idx;
    if (v) {
        idx = (int)v - 1;
        struct dyn_peer *d = &dp.tab[idx - sm_eng.size];
        if (!card || !*card || d->card)
            return idx;
        d->card = dup_or_null(card); /* it reached us first: now we can reach it too */
        if (secret && *secret && !d->secret)
            d->secret = dup_or_null(secret);
    } else {
        if (dp.n == dp.cap) {
            int cap = dp.cap ? 2 * dp.cap : 16;
            struct dyn_peer *t = realloc(dp.tab, sizeof *t * (size_t)cap);
            struct sm_peer *p = realloc(sm_eng.peers, sizeof *p * (size_t)(sm_eng.size + cap));
            if (p)
                sm_eng.peers = p;
            if (t)
                dp.tab = t;
            if (!t || !p)
                return -MPI_ERR_NO_MEM;
            dp.cap = cap;
        }
        idx = sm_eng.size + dp.n;
        dp.tab[dp.n++] = (struct dyn_peer){
            .job = job, .rank = rank, .card = dup_or_null(card), .secret = dup_or_null(secret)
        };
        memset(&sm_eng.peers[idx], 0, sizeof sm_eng.peers[idx]);
        sm_eng.peers[idx].credit = sm_eng.credit_window;
        sm_eng.npeers = idx + 1;
        if (sm_map_put(&dp.by_ident, ident_key(job, rank), (void *)(uintptr_t)(idx + 1)))
            return -MPI_ERR_NO_MEM;
    }
    const struct dyn_peer *d = &dp.tab[idx - sm_eng.size];
    if (sm_eng.tp_ops->add_peer(sm_eng.tp, idx, job, rank, d->card, d->secret))
        return -MPI_ERR_OTHER;
    return idx;
}

/* a process of another job reached us first (upcall from the transport) */
int sm_up_peer_lookup(void *ctx, uint32_t job, int rank)
{
    (void)ctx;
    if (job == sm_boot_job_id() || rank < 0)
        return -1;
    int idx = sm_peer_add(job, rank, NULL, NULL);
    return idx < 0 ? -1 : idx;
}

void sm_dyn_fini(void)
{
    for (int i = 0; i < dp.n; i++) {
        free(dp.tab[i].card);
        free(dp.tab[i].secret);
    }
    free(dp.tab);
    sm_map_free(&dp.by_ident);
    memset(&dp, 0, sizeof dp);
}
