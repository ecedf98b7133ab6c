/* partitioned.c — partitioned point-to-point communication (MPI-4): MPI_Psend_init,
 * MPI_Precv_init, MPI_Pready(_range, _list) and MPI_Parrived.
 *
 * Design: the whole buffer (partitions x count elements) travels as ONE message once every
 * send partition has been marked ready; the send and receive sides may therefore use
 * different partition counts, as long as the type signatures of the whole buffers match.  The
 * message goes on the communicator's collective context with a tag of its own range
 * (0x30000000 | a mix of the user's tag and the request's "init number"), so it never matches
 * the user's point-to-point messages or the collectives' tags.  The init number counts the
 * *_init calls per (communicator, peer, tag, direction): the k-th MPI_Psend_init to a peer
 * matches that peer's k-th MPI_Precv_init with the same tag, whatever order the requests are
 * started in, as the standard wants.  The receive is posted at MPI_Start; MPI_Parrived
 * reports a partition as arrived when the message has (all partitions arrive together).
 * Rounds match in order: a later round's message cannot overtake an earlier one. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "coll/coll_util.h"

struct part {
    const struct sm_preq_ops *ops; /* first: sm_preq_ops_of */
    struct sm_waiter w;
    int is_send;
    void *buf;
    int partitions, count; /* count: elements of the whole buffer */
    MPI_Datatype dt;
    int peer, tag;
    int wire_tag; /* on the collective context */
    MPI_Comm comm;
    MPI_Request self;     /* the user's request */
    MPI_Request inner;    /* the message of this round */
    unsigned char *ready; /* send side: partitions marked ready this round */
    int nready;
};

/* init numbers per (context, peer's world rank, tag, direction) */
struct initno {
    struct initno *next;
    uint32_t ctx;
    int wpeer, tag, is_send;
    uint32_t n;
};
static struct initno *initnos;

static int wire_tag(MPI_Comm c, int peer, int tag, int is_send)
{
    int wpeer = sm_comm_world_rank(c, peer);
    struct initno *e = initnos;
    while (e &&
           !(e->ctx == c->ctx && e->wpeer == wpeer && e->tag == tag && e->is_send == is_send))
        e = e->next;
    if (!e) {
        e = sm_xcalloc(1, sizeof *e);
        *e = (struct initno){ initnos, c->ctx, wpeer, tag, is_send, 0 };
        initnos = e;
    }
    uint32_t k = e->n++;
    uint32_t mix = tag < (1 << 20) && k < 256 ? ((uint32_t)tag << 8) | k
                                              : (uint32_t)tag * 2654435761u + k * 40503u;
    return (int)(0x30000000u | (mix & 0x0fffffffu));
}

static struct part *of_waiter(struct sm_waiter *w)
{
    return (struct part *)((char *)w - offsetof(struct part, w));
}

static int part_poll(struct sm_waiter *w)
{
    return of_waiter(w)->inner->base.complete;
}

static void part_done(struct sm_waiter *w)
{
    struct part *p = of_waiter(w);
    MPI_Status st;
    int err = sm_wait_one(&p->inner, &st);
    struct sctpmpi_request *r = p->self;
    if (!p->is_send) {
        r->base.status = st;
        r->base.status.MPI_TAG = p->tag;
    }
    r->base.status.MPI_ERROR = err;
    r->base.complete = 1;
}

static void post(struct part *p)
{
    if (p->is_send)
        sm_isend_dt(p->buf, p->count, p->dt, p->peer, p->wire_tag, p->comm, CCTX(p->comm),
                    SM_MODE_STANDARD, &p->inner);
    else
        sm_irecv_dt(p->buf, p->count, p->dt, p->peer, p->wire_tag, p->comm, CCTX(p->comm),
                    &p->inner);
    if (part_poll(&p->w))
        part_done(&p->w);
    else
        sm_waiter_add(&p->w);
}

static int part_start(MPI_Request r)
{
    struct part *p = r->hook_buf;
    r->active = 1;
    r->base.complete = 0;
    sm_status_empty(&r->base.status);
    p->nready = 0;
    memset(p->ready, 0, (size_t)p->partitions);
    if (p->peer == MPI_PROC_NULL) {
        r->base.status.MPI_SOURCE = MPI_PROC_NULL;
        r->base.complete = 1;
        return MPI_SUCCESS;
    }
    if (!p->is_send)
        post(p);
    return MPI_SUCCESS;
}

static int part_free(MPI_Request r)
{
    struct part *p = r->hook_buf;
    if (r->active) /* started and not yet completed by a Wait or Test */
        return sm_error(r->base.comm, MPI_ERR_REQUEST, "MPI_Request_free",
                        "a partitioned request cannot be freed while active");
    sm_dt_release(p->dt);
    free(p->ready);
    free(p);
    sm_req_release(&r->base);
    return MPI_SUCCESS;
}

static const struct sm_preq_ops part_ops = { part_start, part_free };

static int make(void *buf, int partitions, MPI_Count count, MPI_Datatype dt, int peer, int tag,
                MPI_Comm comm, MPI_Info info, MPI_Request *request, int is_send, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (partitions < 1)
        return sm_error(comm, MPI_ERR_ARG, fn, "partitions must be at least 1 (got %d)",
                        partitions);
    if (count < 0)
        return sm_error(comm, MPI_ERR_COUNT, fn, "negative count");
    if ((long long)partitions * count > 0x7fffffffLL)
        return sm_error(comm, MPI_ERR_COUNT, fn, "partitions x count is too large");
    int total = (int)(partitions * count);
    SM_TRY(sm_check_buffer(comm, buf, total, dt, fn));
    if (is_send) {
        SM_TRY(sm_check_dest(comm, peer, fn));
        SM_TRY(sm_check_send_tag(comm, tag, fn));
    } else {
        if (peer == MPI_ANY_SOURCE)
            return sm_error(comm, MPI_ERR_RANK, fn, "MPI_ANY_SOURCE is not allowed");
        SM_TRY(sm_check_source(comm, peer, fn));
        SM_TRY(sm_check_send_tag(comm, tag, fn)); /* MPI_ANY_TAG is not allowed either */
    }
    if (info != MPI_INFO_NULL && !sm_info_valid(info))
        return sm_error(comm, MPI_ERR_INFO, fn, "invalid info object");
    if (!request)
        return sm_error(comm, MPI_ERR_REQUEST, fn, "NULL request pointer");
    struct part *p = sm_xcalloc(1, sizeof *p);
    p->ops = &part_ops;
    p->w.poll = part_poll;
    p->w.done = part_done;
    p->is_send = is_send;
    p->buf = buf;
    p->partitions = partitions;
    p->count = total;
    p->dt = dt;
    sm_dt_retain(dt);
    p->peer = peer;
    p->tag = tag;
    p->wire_tag = peer == MPI_PROC_NULL ? 0 : wire_tag(comm, peer, tag, is_send);
    p->comm = comm;
    p->ready = sm_xcalloc((size_t)partitions, 1);
    p->self = sm_preq_new(comm, p);
    *request = p->self;
    return MPI_SUCCESS;
}

int PMPI_Psend_init(const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return make((void *)buf, partitions, count, datatype, dest, tag, comm, info, request, 1,
                "MPI_Psend_init");
}

int PMPI_Precv_init(void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source,
                    int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    return make(buf, partitions, count, datatype, source, tag, comm, info, request, 0,
                "MPI_Precv_init");
}

static int check_part(MPI_Request r, int is_send, struct part **out, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!r || sm_preq_ops_of(r) != &part_ops)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "not a partitioned request");
    struct part *p = r->hook_buf;
    if (p->is_send != is_send)
        return sm_error(r->base.comm, MPI_ERR_REQUEST, fn, "not a partitioned %s request",
                        is_send ? "send" : "receive");
    *out = p;
    return MPI_SUCCESS;
}

static int ready_one(struct part *p, int k, const char *fn)
{
    if (k < 0 || k >= p->partitions)
        return sm_error(p->comm, MPI_ERR_ARG, fn, "partition %d out of range [0, %d)", k,
                        p->partitions);
    if (!p->self->active || (p->self->base.complete && p->peer != MPI_PROC_NULL))
        return sm_error(p->comm, MPI_ERR_REQUEST, fn, "the request is not active");
    if (p->ready[k])
        return sm_error(p->comm, MPI_ERR_ARG, fn, "partition %d is already ready", k);
    p->ready[k] = 1;
    if (++p->nready == p->partitions && p->peer != MPI_PROC_NULL)
        post(p);
    return MPI_SUCCESS;
}

int PMPI_Pready(int partition, MPI_Request request)
{
    struct part *p;
    SM_TRY(check_part(request, 1, &p, "MPI_Pready"));
    return ready_one(p, partition, "MPI_Pready");
}

int PMPI_Pready_range(int partition_low, int partition_high, MPI_Request request)
{
    const char *fn = "MPI_Pready_range";
    struct part *p;
    SM_TRY(check_part(request, 1, &p, fn));
    if (partition_low > partition_high)
        return sm_error(p->comm, MPI_ERR_ARG, fn, "empty range [%d, %d]", partition_low,
                        partition_high);
    for (int k = partition_low; k <= partition_high; k++)
        SM_TRY(ready_one(p, k, fn));
    return MPI_SUCCESS;
}

int PMPI_Pready_list(int length, const int array_of_partitions[], MPI_Request request)
{
    const char *fn = "MPI_Pready_list";
    struct part *p;
    SM_TRY(check_part(request, 1, &p, fn));
    if (length < 0 || (length > 0 && !array_of_partitions))
        return sm_error(p->comm, MPI_ERR_ARG, fn, "bad partition list");
    for (int i = 0; i < length; i++)
        SM_TRY(ready_one(p, array_of_partitions[i], fn));
    return MPI_SUCCESS;
}

int PMPI_Parrived(MPI_Request request, int partition, int *flag)
{
    const char *fn = "MPI_Parrived";
    struct part *p;
    SM_TRY(check_part(request, 0, &p, fn));
    if (!flag)
        return sm_error(p->comm, MPI_ERR_ARG, fn, "NULL flag pointer");
    if (partition < 0 || partition >= p->partitions)
        return sm_error(p->comm, MPI_ERR_ARG, fn, "partition %d out of range [0, %d)", partition,
                        p->partitions);
    struct sctpmpi_request *r = p->self;
    if (!r->active || r->base.complete) { /* inactive: every partition is there */
        *flag = 1;
        return MPI_SUCCESS;
    }
    sm_progress_poll();
    *flag = r->base.complete;
    return MPI_SUCCESS;
}
