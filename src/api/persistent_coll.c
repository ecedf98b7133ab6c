/* persistent_coll.c — persistent collectives (MPI_Bcast_init and the others of MPI-4) and the
 * machinery shared by every persistent request that is not point-to-point.
 *
 * A persistent collective is an SM_REQ_DONE request with persistent set; its hook_buf points
 * to a struct pcoll that keeps the arguments of the *_init call.  MPI_Start runs the matching
 * non-blocking collective (icoll.c, neighbor.c) and chains the user's request to that inner
 * request through the inner request's completion hook: when the schedule finishes, the outer
 * request becomes complete with the inner one's error, and the inner one is released.  The
 * schedule's tag (a sequence number of the communicator's non-blocking collectives) is
 * reserved at *_init and reused by every start, so the processes' requests match in the order
 * of their *_init calls; successive starts of one request between two processes cannot be
 * confused because messages between a pair on one context and tag stay in order.
 *
 * Also here: "waiters", composite requests (Isendrecv, partitioned requests) whose state is
 * advanced by one progress hook that polls them until they report completion. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

/* ---- waiters ------------------------------------------------------------------------------ */
static struct sm_waiter *waiters;
static int in_waiters;

static int waiter_hook(void)
{
    if (in_waiters || !waiters)
        return 0;
    in_waiters = 1;
    int moved = 0;
    struct sm_waiter **pp = &waiters;
    while (*pp) {
        struct sm_waiter *w = *pp;
        if (w->poll(w)) {
            *pp = w->next;
            w->queued = 0;
            moved++;
            if (w->done)
                w->done(w);
        } else {
            pp = &w->next;
        }
    }
    in_waiters = 0;
    return moved;
}

void sm_waiter_add(struct sm_waiter *w)
{
    static int hooked;
    if (!hooked) {
        sm_progress_hook_add(waiter_hook);
        hooked = 1;
    }
    if (w->queued)
        return;
    w->queued = 1;
    struct sm_waiter **pp = &waiters;
    while (*pp)
        pp = &(*pp)->next;
    w->next = NULL;
    *pp = w;
}

void sm_waiter_remove(struct sm_waiter *w)
{
    if (!w->queued)
        return;
    for (struct sm_waiter **pp = &waiters; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    w->queued = 0;
}

/* ---- persistent requests of kind SM_REQ_DONE ---------------------------------------------- */
MPI_Request sm_preq_new(MPI_Comm comm, void *obj)
{
    struct sctpmpi_request *r = sm_request_alloc(SM_REQ_DONE);
    r->persistent = 1;
    r->base.complete = 1;
    r->base.comm = comm;
    r->hook_buf = obj;
    sm_status_empty(&r->base.status);
    return r;
}

const struct sm_preq_ops *sm_preq_ops_of(MPI_Request r)
{
    if (!r || !r->persistent || r->base.kind != SM_REQ_DONE || !r->hook_buf)
        return NULL;
    return *(const struct sm_preq_ops *const *)r->hook_buf;
}

/* ---- persistent collectives --------------------------------------------------------------- */
enum pc_kind {
    PC_BARRIER, PC_BCAST, PC_GATHER, PC_GATHERV, PC_SCATTER, PC_SCATTERV, PC_ALLGATHER,
    PC_ALLGATHERV, PC_ALLTOALL, PC_ALLTOALLV, PC_ALLTOALLW, PC_REDUCE, PC_ALLREDUCE,
    PC_REDUCE_SCATTER, PC_REDUCE_SCATTER_BLOCK, PC_SCAN, PC_EXSCAN, PC_NB_ALLGATHER,
    PC_NB_ALLGATHERV, PC_NB_ALLTOALL, PC_NB_ALLTOALLV, PC_NB_ALLTOALLW
};

struct pcoll {
    const struct sm_preq_ops *ops;
    int kind;
    MPI_Comm comm;
    const void *sbuf;
    void *rbuf;
    int scount, rcount, root;
    const int *scounts, *sdispls, *rcounts, *rdispls;
    const MPI_Aint *sdispls_a, *rdispls_a;
    MPI_Datatype st, rt;
    const MPI_Datatype *sts, *rts;
    MPI_Op op;
    uint32_t seq; /* the schedule sequence number (tag) taken at *_init */
};

static void pc_inner_done(struct sm_req *e)
{
    struct sctpmpi_request *in = sm_request_of(e);
    struct sctpmpi_request *outer = (struct sctpmpi_request *)in->p_buf;
    outer->base.status.MPI_ERROR = in->base.status.MPI_ERROR;
    outer->base.complete = 1;
}

static int pc_run(struct pcoll *p, MPI_Request *q)
{
    MPI_Comm c = p->comm;
    switch (p->kind) {
    case PC_BARRIER: return PMPI_Ibarrier(c, q);
    case PC_BCAST: return PMPI_Ibcast(p->rbuf, p->rcount, p->rt, p->root, c, q);
    case PC_GATHER:
        return PMPI_Igather(p->sbuf, p->scount, p->st, p->rbuf, p->rcount, p->rt, p->root, c, q);
    case PC_GATHERV:
        return PMPI_Igatherv(p->sbuf, p->scount, p->st, p->rbuf, p->rcounts, p->rdispls, p->rt,
                             p->root, c, q);
    case PC_SCATTER:
        return PMPI_Iscatter(p->sbuf, p->scount, p->st, p->rbuf, p->rcount, p->rt, p->root, c,
                             q);
    case PC_SCATTERV:
        return PMPI_Iscatterv(p->sbuf, p->scounts, p->sdispls, p->st, p->rbuf, p->rcount, p->rt,
                              p->root, c, q);
    case PC_ALLGATHER:
        return PMPI_Iallgather(p->sbuf, p->scount, p->st, p->rbuf, p->rcount, p->rt, c, q);
    case PC_ALLGATHERV:
        return PMPI_Iallgatherv(p->sbuf, p->scount, p->st, p->rbuf, p->rcounts, p->rdispls,
                                p->rt, c, q);
    case PC_ALLTOALL:
        return PMPI_Ialltoall(p->sbuf, p->scount, p->st, p->rbuf, p->rcount, p->rt, c, q);
    case PC_ALLTOALLV:
        return PMPI_Ialltoallv(p->sbuf, p->scounts, p->sdispls, p->st, p->rbuf, p->rcounts,
                               p->rdispls, p->rt, c, q);
    case PC_ALLTOALLW:
        return PMPI_Ialltoallw(p->sbuf, p->scounts, p->sdispls, p->sts, p->rbuf, p->rcounts,
                               p->rdispls, p->rts, c, q);
    case PC_REDUCE:
        return PMPI_Ireduce(p->sbuf, p->rbuf, p->rcount, p->rt, p->op, p->root, c, q);
    case PC_ALLREDUCE:
        return PMPI_Iallreduce(p->sbuf, p->rbuf, p->rcount, p->rt, p->op, c, q);
    case PC_REDUCE_SCATTER:
        return PMPI_Ireduce_scatter(p->sbuf, p->rbuf, p->rcounts, p->rt, p->op, c, q);
    case PC_REDUCE_SCATTER_BLOCK:
        return PMPI_Ireduce_scatter_block(p->sbuf, p->rbuf, p->rcount, p->rt, p->op, c, q);
    case PC_SCAN: return PMPI_Iscan(p->sbuf, p->rbuf, p->rcount, p->rt, p->op, c, q);
    case PC_EXSCAN: return PMPI_Iexscan(p->sbuf, p->rbuf, p->rcount, p->rt, p->op, c, q);
    case PC_NB_ALLGATHER:
        return PMPI_Ineighbor_allgather(p->sbuf, p->scount, p->st, p->rbuf, p->rcount, p->rt, c,
                                        q);
    case PC_NB_ALLGATHERV:
        return PMPI_Ineighbor_allgatherv(p->sbuf, p->scount, p->st, p->rbuf, p->rcounts,
                                         p->rdispls, p->rt, c, q);
    case PC_NB_ALLTOALL:
        return PMPI_Ineighbor_alltoall(p->sbuf, p->scount, p->st, p->rbuf, p->rcount, p->rt, c,
                                       q);
    case PC_NB_ALLTOALLV:
        return PMPI_Ineighbor_alltoallv(p->sbuf, p->scounts, p->sdispls, p->st, p->rbuf,
                                        p->rcounts, p->rdispls, p->rt, c, q);
    case PC_NB_ALLTOALLW:
        return PMPI_Ineighbor_alltoallw(p->sbuf, p->scounts, p->sdispls_a, p->sts, p->rbuf,
                                        p->rcounts, p->rdispls_a, p->rts, c, q);
    }
    return MPI_ERR_INTERN;
}

static int pc_start(MPI_Request r)
{
    struct pcoll *p = r->hook_buf;
    MPI_Request in = MPI_REQUEST_NULL;
    /* the schedule's tag is the one reserved at *_init: persistent collectives match in the
     * order they were initialised, whatever order the processes start them in */
    struct sm_comm_ext *x = sm_comm_x(p->comm);
    uint32_t next = x->nbc_seq;
    x->nbc_seq = p->seq;
    /* the program may have freed the datatypes and the op since *_init, as the standard
     * allows: this request's references keep them alive, and they were valid when it was
     * made, so they count as valid while the operation is started */
    int st_valid = p->st ? p->st->valid : 0, rt_valid = p->rt ? p->rt->valid : 0;
    int op_valid = p->op ? p->op->valid : 0;
    if (p->st)
        p->st->valid = 1;
    if (p->rt)
        p->rt->valid = 1;
    if (p->op)
        p->op->valid = 1;
    int rc = pc_run(p, &in);
    if (p->st)
        p->st->valid = st_valid;
    if (p->rt)
        p->rt->valid = rt_valid;
    if (p->op)
        p->op->valid = op_valid;
    x->nbc_seq = next;
    if (rc != MPI_SUCCESS)
        return rc;
    r->active = 1;
    r->base.complete = 0;
    sm_status_empty(&r->base.status);
    if (in->base.complete) {
        r->base.status.MPI_ERROR = in->base.status.MPI_ERROR;
        r->base.complete = 1;
        sm_req_release(&in->base);
        return MPI_SUCCESS;
    }
    in->p_buf = r;
    in->base.on_complete = pc_inner_done;
    in->base.freed = 1; /* released by the schedule after pc_inner_done */
    return MPI_SUCCESS;
}

static int pc_free(MPI_Request r)
{
    struct pcoll *p = r->hook_buf;
    if (r->active) /* started and not yet completed by a Wait or Test */
        return sm_error(r->base.comm, MPI_ERR_REQUEST, "MPI_Request_free",
                        "a persistent collective request cannot be freed while active");
    sm_dt_release(p->st);
    sm_dt_release(p->rt);
    if (p->op)
        sm_op_release(p->op);
    free(p);
    sm_req_release(&r->base);
    return MPI_SUCCESS;
}

static const struct sm_preq_ops pc_ops = {pc_start, pc_free};

static int pc_make(struct pcoll *t, MPI_Info info, MPI_Request *request, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_comm(t->comm, fn));
    if (!request)
        return sm_error(t->comm, MPI_ERR_REQUEST, fn, "NULL request pointer");
    if (info != MPI_INFO_NULL && !sm_info_valid(info))
        return sm_error(t->comm, MPI_ERR_INFO, fn, "invalid info object");
    if (t->op && !t->op->valid)
        return sm_error(t->comm, MPI_ERR_OP, fn, "invalid reduction operation");
    if (t->root != MPI_ROOT && t->root != MPI_PROC_NULL && !sm_comm_is_inter(t->comm) &&
        (t->root < 0 || t->root >= t->comm->size))
        return sm_error(t->comm, MPI_ERR_ROOT, fn, "root %d out of range", t->root);
    struct pcoll *p = sm_xmalloc(sizeof *p);
    *p = *t;
    p->ops = &pc_ops;
    p->seq = sm_comm_x(p->comm)->nbc_seq++;
    sm_dt_retain(p->st);
    sm_dt_retain(p->rt);
    if (p->op)
        sm_op_retain(p->op);
    *request = sm_preq_new(p->comm, p);
    return MPI_SUCCESS;
}

#define PC(...) (&(struct pcoll){__VA_ARGS__})

#pragma weak MPI_Barrier_init = PMPI_Barrier_init
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_BARRIER, .comm = comm), info, request, "MPI_Barrier_init");
}

#pragma weak MPI_Bcast_init = PMPI_Bcast_init
int PMPI_Bcast_init(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                    MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_BCAST, .comm = comm, .rbuf = buf, .rcount = count, .rt = dt,
                      .root = root),
                   info, request, "MPI_Bcast_init");
}

#pragma weak MPI_Gather_init = PMPI_Gather_init
int PMPI_Gather_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                     MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    return pc_make(PC(.kind = PC_GATHER, .comm = comm, .sbuf = sbuf, .scount = scount, .st = st,
                      .rbuf = rbuf, .rcount = rcount, .rt = rt, .root = root),
                   info, request, "MPI_Gather_init");
}

#pragma weak MPI_Gatherv_init = PMPI_Gatherv_init
int PMPI_Gatherv_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                      const int rcounts[], const int displs[], MPI_Datatype rt, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_GATHERV, .comm = comm, .sbuf = sbuf, .scount = scount,
                      .st = st, .rbuf = rbuf, .rcounts = rcounts, .rdispls = displs, .rt = rt,
                      .root = root),
                   info, request, "MPI_Gatherv_init");
}

#pragma weak MPI_Scatter_init = PMPI_Scatter_init
int PMPI_Scatter_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    return pc_make(PC(.kind = PC_SCATTER, .comm = comm, .sbuf = sbuf, .scount = scount,
                      .st = st, .rbuf = rbuf, .rcount = rcount, .rt = rt, .root = root),
                   info, request, "MPI_Scatter_init");
}

#pragma weak MPI_Scatterv_init = PMPI_Scatterv_init
int PMPI_Scatterv_init(const void *sbuf, const int scounts[], const int displs[],
                       MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt, int root,
                       MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_SCATTERV, .comm = comm, .sbuf = sbuf, .scounts = scounts,
                      .sdispls = displs, .st = st, .rbuf = rbuf, .rcount = rcount, .rt = rt,
                      .root = root),
                   info, request, "MPI_Scatterv_init");
}

#pragma weak MPI_Allgather_init = PMPI_Allgather_init
int PMPI_Allgather_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                        MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_ALLGATHER, .comm = comm, .sbuf = sbuf, .scount = scount,
                      .st = st, .rbuf = rbuf, .rcount = rcount, .rt = rt),
                   info, request, "MPI_Allgather_init");
}

#pragma weak MPI_Allgatherv_init = PMPI_Allgatherv_init
int PMPI_Allgatherv_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                         const int rcounts[], const int displs[], MPI_Datatype rt,
                         MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_ALLGATHERV, .comm = comm, .sbuf = sbuf, .scount = scount,
                      .st = st, .rbuf = rbuf, .rcounts = rcounts, .rdispls = displs, .rt = rt),
                   info, request, "MPI_Allgatherv_init");
}

#pragma weak MPI_Alltoall_init = PMPI_Alltoall_init
int PMPI_Alltoall_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                       MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_ALLTOALL, .comm = comm, .sbuf = sbuf, .scount = scount,
                      .st = st, .rbuf = rbuf, .rcount = rcount, .rt = rt),
                   info, request, "MPI_Alltoall_init");
}

#pragma weak MPI_Alltoallv_init = PMPI_Alltoallv_init
int PMPI_Alltoallv_init(const void *sbuf, const int scounts[], const int sdispls[],
                        MPI_Datatype st, void *rbuf, const int rcounts[], const int rdispls[],
                        MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_ALLTOALLV, .comm = comm, .sbuf = sbuf, .scounts = scounts,
                      .sdispls = sdispls, .st = st, .rbuf = rbuf, .rcounts = rcounts,
                      .rdispls = rdispls, .rt = rt),
                   info, request, "MPI_Alltoallv_init");
}

#pragma weak MPI_Alltoallw_init = PMPI_Alltoallw_init
int PMPI_Alltoallw_init(const void *sbuf, const int scounts[], const int sdispls[],
                        const MPI_Datatype sts[], void *rbuf, const int rcounts[],
                        const int rdispls[], const MPI_Datatype rts[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_ALLTOALLW, .comm = comm, .sbuf = sbuf, .scounts = scounts,
                      .sdispls = sdispls, .sts = sts, .rbuf = rbuf, .rcounts = rcounts,
                      .rdispls = rdispls, .rts = rts),
                   info, request, "MPI_Alltoallw_init");
}

#pragma weak MPI_Reduce_init = PMPI_Reduce_init
int PMPI_Reduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_REDUCE, .comm = comm, .sbuf = sbuf, .rbuf = rbuf,
                      .rcount = count, .rt = dt, .op = op, .root = root),
                   info, request, "MPI_Reduce_init");
}

#pragma weak MPI_Allreduce_init = PMPI_Allreduce_init
int PMPI_Allreduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_ALLREDUCE, .comm = comm, .sbuf = sbuf, .rbuf = rbuf,
                      .rcount = count, .rt = dt, .op = op),
                   info, request, "MPI_Allreduce_init");
}

#pragma weak MPI_Reduce_scatter_init = PMPI_Reduce_scatter_init
int PMPI_Reduce_scatter_init(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_REDUCE_SCATTER, .comm = comm, .sbuf = sbuf, .rbuf = rbuf,
                      .rcounts = rcounts, .rt = dt, .op = op),
                   info, request, "MPI_Reduce_scatter_init");
}

#pragma weak MPI_Reduce_scatter_block_init = PMPI_Reduce_scatter_block_init
int PMPI_Reduce_scatter_block_init(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info,
                                   MPI_Request *request)
{
    return pc_make(PC(.kind = PC_REDUCE_SCATTER_BLOCK, .comm = comm, .sbuf = sbuf, .rbuf = rbuf,
                      .rcount = rcount, .rt = dt, .op = op),
                   info, request, "MPI_Reduce_scatter_block_init");
}

#pragma weak MPI_Scan_init = PMPI_Scan_init
int PMPI_Scan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_SCAN, .comm = comm, .sbuf = sbuf, .rbuf = rbuf,
                      .rcount = count, .rt = dt, .op = op),
                   info, request, "MPI_Scan_init");
}

#pragma weak MPI_Exscan_init = PMPI_Exscan_init
int PMPI_Exscan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_EXSCAN, .comm = comm, .sbuf = sbuf, .rbuf = rbuf,
                      .rcount = count, .rt = dt, .op = op),
                   info, request, "MPI_Exscan_init");
}

#pragma weak MPI_Neighbor_allgather_init = PMPI_Neighbor_allgather_init
int PMPI_Neighbor_allgather_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                                 int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    return pc_make(PC(.kind = PC_NB_ALLGATHER, .comm = comm, .sbuf = sbuf, .scount = scount,
                      .st = st, .rbuf = rbuf, .rcount = rcount, .rt = rt),
                   info, request, "MPI_Neighbor_allgather_init");
}

#pragma weak MPI_Neighbor_allgatherv_init = PMPI_Neighbor_allgatherv_init
int PMPI_Neighbor_allgatherv_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                                  const int rcounts[], const int displs[], MPI_Datatype rt,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_NB_ALLGATHERV, .comm = comm, .sbuf = sbuf, .scount = scount,
                      .st = st, .rbuf = rbuf, .rcounts = rcounts, .rdispls = displs, .rt = rt),
                   info, request, "MPI_Neighbor_allgatherv_init");
}

#pragma weak MPI_Neighbor_alltoall_init = PMPI_Neighbor_alltoall_init
int PMPI_Neighbor_alltoall_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                                int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    return pc_make(PC(.kind = PC_NB_ALLTOALL, .comm = comm, .sbuf = sbuf, .scount = scount,
                      .st = st, .rbuf = rbuf, .rcount = rcount, .rt = rt),
                   info, request, "MPI_Neighbor_alltoall_init");
}

#pragma weak MPI_Neighbor_alltoallv_init = PMPI_Neighbor_alltoallv_init
int PMPI_Neighbor_alltoallv_init(const void *sbuf, const int scounts[], const int sdispls[],
                                 MPI_Datatype st, void *rbuf, const int rcounts[],
                                 const int rdispls[], MPI_Datatype rt, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_NB_ALLTOALLV, .comm = comm, .sbuf = sbuf, .scounts = scounts,
                      .sdispls = sdispls, .st = st, .rbuf = rbuf, .rcounts = rcounts,
                      .rdispls = rdispls, .rt = rt),
                   info, request, "MPI_Neighbor_alltoallv_init");
}

#pragma weak MPI_Neighbor_alltoallw_init = PMPI_Neighbor_alltoallw_init
int PMPI_Neighbor_alltoallw_init(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sts[], void *rbuf, const int rcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype rts[],
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return pc_make(PC(.kind = PC_NB_ALLTOALLW, .comm = comm, .sbuf = sbuf, .scounts = scounts,
                      .sdispls_a = sdispls, .sts = sts, .rbuf = rbuf, .rcounts = rcounts,
                      .rdispls_a = rdispls, .rts = rts),
                   info, request, "MPI_Neighbor_alltoallw_init");
}
