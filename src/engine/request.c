/* request.c — request objects: a slab of slots addressed by wire ids (slot | generation << 32),
 * so a CTS or DATA frame naming a stale or forged id is recognised and dropped. */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

static struct sm_req **slots;
static size_t *slot_cap; /* bytes of the object behind each slot */
static uint32_t nslots, *free_stack, nfree;
static uint32_t generation = 1;

struct sm_req *sm_req_alloc(int kind, size_t obj_size)
{
    if (obj_size < sizeof(struct sm_req))
        obj_size = sizeof(struct sm_req);
    if (!nfree) {
        uint32_t grow = nslots ? nslots : 256;
        struct sm_req **ns = realloc(slots, (nslots + grow) * sizeof *ns);
        if (ns)
            slots = ns;
        uint32_t *nf = realloc(free_stack, (nslots + grow) * sizeof *nf);
        if (nf)
            free_stack = nf;
        size_t *nc = realloc(slot_cap, (nslots + grow) * sizeof *nc);
        if (nc)
            slot_cap = nc;
        if (!ns || !nf || !nc)
            sm_die("out of memory allocating requests");
        for (uint32_t i = 0; i < grow; i++) {
            slots[nslots + i] = NULL;
            slot_cap[nslots + i] = 0;
            free_stack[nfree++] = nslots + grow - 1 - i;
        }
        nslots += grow;
    }
    uint32_t idx = free_stack[--nfree];
    struct sm_req *r = slots[idx];
    if (slot_cap[idx] < obj_size) {
        free(r);
        r = slots[idx] = sm_xmalloc(obj_size);
        slot_cap[idx] = obj_size;
    }
    memset(r, 0, obj_size);
    sm_list_init(&r->link);
    if (++generation == 0)
        generation = 1;
    r->id = ((uint64_t)generation << 32) | idx;
    r->kind = kind;
    r->status.MPI_SOURCE = MPI_ANY_SOURCE;
    r->status.MPI_TAG = MPI_ANY_TAG;
    return r;
}

struct sm_req *sm_req_done(int source, size_t obj_size)
{
    struct sm_req *r = sm_req_alloc(SM_REQ_DONE, obj_size);
    r->status.MPI_SOURCE = source;
    r->complete = 1;
    return r;
}

void sm_req_init(struct sm_req *r, struct sctpmpi_comm *comm, uint32_t ctx, int peer, int tag,
                 int mode)
{
    r->comm = comm;
    r->ctx = ctx;
    r->peer = peer;
    r->tag = tag;
    r->mode = mode;
    r->wpeer = peer >= 0 ? sm_comm_world_rank(comm, peer) : -1;
    if (r->kind == SM_REQ_SEND) {
        r->status.MPI_SOURCE = peer;
        r->status.MPI_TAG = tag;
    }
}

void sm_req_restart(struct sm_req *r)
{
    r->complete = 0;
    r->io_pending = r->await_cts = r->await_sync = r->matched = r->cancel_pending = 0;
    r->received = r->msg_size = 0;
}

struct sm_req *sm_req_by_id(uint64_t id)
{
    uint32_t idx = (uint32_t)id;
    if (idx >= nslots || !slots[idx] || slots[idx]->id != id || !slots[idx]->kind)
        return NULL;
    return slots[idx];
}

void sm_req_release(struct sm_req *r)
{
    uint32_t idx = (uint32_t)r->id;
    if (r->on_release)
        r->on_release(r);
    r->kind = 0;
    r->id = 0;
    free_stack[nfree++] = idx;
}

void sm_req_complete(struct sm_req *r)
{
    r->complete = 1;
    if (r->on_complete)
        r->on_complete(r);
    if (r->freed)
        sm_req_release(r);
}

/* 1 if a request not yet released refers to communicator c (api/comm_create.c defers
 * MPI_Comm_free until none does) */
int sm_req_any_for_comm(const struct sctpmpi_comm *c)
{
    for (uint32_t i = 0; i < nslots; i++)
        if (slots[i] && slots[i]->kind && slots[i]->comm == c)
            return 1;
    return 0;
}

/* a rank is gone: fail every receive that waits for it or that it was still feeding, so none
 * waits forever (also keeps MPI_Finalize's barrier from waiting for a lost rank):
 *  - posted and unmatched: those naming the rank, and wildcard-source receives on a
 *    communicator that contains it (the message may never come; ULFM reports these as
 *    MPI_ERR_PROC_FAILED_PENDING);
 *  - reserved by the ordering rule for one of its missing messages;
 *  - matched to one of its rendezvous messages, data still to come. */
static int feeds(const struct sm_req *r, int world)
{
    if (r->reserved)
        return r->wpeer == world;
    if (!sm_list_empty(&r->link)) /* on the posted queue */
        return r->wpeer == world || (r->wpeer < 0 && sm_comm_rank_of_world(r->comm, world) >= 0);
    return r->msg_size > 0 && r->status.MPI_SOURCE >= 0 && r->status.MPI_SOURCE < r->comm->size &&
           sm_comm_world_rank(r->comm, r->status.MPI_SOURCE) == world;
}

void sm_fail_receives_from(int world)
{
    for (uint32_t i = 0; i < nslots; i++) {
        struct sm_req *r = slots[i];
        if (!r || r->kind != SM_REQ_RECV || r->complete || !r->comm || !feeds(r, world))
            continue;
        sm_list_remove(&r->link); /* off the posted queue or its order's reservations */
        r->reserved = 0;
        r->status.MPI_ERROR = MPI_ERR_PROC_FAILED;
        sm_req_complete(r);
    }
}

void sm_req_pool_fini(void)
{
    for (uint32_t i = 0; i < nslots; i++)
        free(slots[i]);
    free(slots);
    free(free_stack);
    free(slot_cap);
    slots = NULL;
    free_stack = NULL;
    slot_cap = NULL;
    nslots = nfree = 0;
}
