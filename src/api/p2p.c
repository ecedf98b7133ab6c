/* p2p.c — point-to-point communication calls: argument checks, then requests for the engine. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

static struct sctpmpi_request *new_send(const void *buf, size_t bytes, int dest, int tag,
                                        MPI_Comm comm, uint32_t ctx, int mode)
{
    struct sctpmpi_request *r = sm_request_alloc(SM_REQ_SEND);
    sm_req_init(&r->base, comm, ctx, dest, tag, mode);
    r->base.buf = (void *)buf;
    r->base.bytes = bytes;
    return r;
}

int sm_isend_ctx(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm, uint32_t ctx,
                 MPI_Request *req)
{
    struct sctpmpi_request *r = new_send(buf, bytes, dest, tag, comm, ctx, SM_MODE_STANDARD);
    *req = r;
    return sm_send_start(&r->base);
}

static struct sctpmpi_request *new_recv(int source, int tag, MPI_Comm comm, uint32_t ctx)
{
    struct sctpmpi_request *r = sm_request_alloc(SM_REQ_RECV);
    sm_req_init(&r->base, comm, ctx, source, tag, SM_MODE_STANDARD);
    return r;
}

int sm_irecv_ctx(void *buf, size_t bytes, int source, int tag, MPI_Comm comm, uint32_t ctx,
                 MPI_Request *req)
{
    struct sctpmpi_request *r = new_recv(source, tag, comm, ctx);
    r->base.buf = buf;
    r->base.bytes = bytes;
    *req = r;
    return sm_recv_post(&r->base);
}

/* derived-type receive completed: unpack the bytes that arrived into the user's buffer */
static void unpack_on_complete(struct sm_req *e)
{
    struct sctpmpi_request *r = sm_request_of(e);
    size_t n = r->base.status.sm_count < r->base.bytes ? r->base.status.sm_count : r->base.bytes;
    sm_dt_unpack(r->base.buf, n, r->hook_buf, r->hook_count, r->hook_dt);
    sm_dt_release(r->hook_dt);
    r->hook_dt = NULL;
    r->base.on_complete = NULL;
}

/* ---- streamed non-contiguous buffers (docs/design.md, Protocols: Non-contiguous buffers) --
 * Above the eager limit a non-contiguous buffer is never packed whole: the rendezvous sender
 * packs each DATA segment into a small ring (engine/protocol.c) and the receiver unpacks each
 * segment at its offset as it arrives. */
static void stream_pack(struct sm_req *e, size_t off, size_t n, void *out)
{
    struct sctpmpi_request *r = sm_request_of(e);
    sm_dt_pack_range(r->hook_buf, r->hook_count, r->hook_dt, off, n, out);
}

static void stream_unpack(struct sm_req *e, size_t off, const void *in, size_t n)
{
    struct sctpmpi_request *r = sm_request_of(e);
    sm_dt_unpack_range(in, off, n, r->hook_buf, r->hook_count, r->hook_dt);
}

static void stream_send_complete(struct sm_req *e)
{
    struct sctpmpi_request *r = sm_request_of(e);
    sm_dt_release(r->hook_dt);
    r->hook_dt = NULL;
    r->base.pack_seg = NULL;
    r->base.on_complete = NULL;
}

/* a streamed receive completed: an eager message (no DATA segments) landed in the small
 * buffer r->buf and is unpacked now; rendezvous segments were unpacked as they came */
static void stream_recv_complete(struct sm_req *e)
{
    struct sctpmpi_request *r = sm_request_of(e);
    if (r->base.received == 0 && r->base.status.MPI_ERROR != MPI_ERR_PROC_FAILED) {
        size_t n =
            r->base.status.sm_count < r->base.bytes ? r->base.status.sm_count : r->base.bytes;
        if (n > sm_eager_limit())
            n = sm_eager_limit(); /* the size of r->buf (never more for eager data) */
        sm_dt_unpack(r->base.buf, n, r->hook_buf, r->hook_count, r->hook_dt);
    }
    sm_dt_release(r->hook_dt);
    r->hook_dt = NULL;
    r->base.unpack_seg = NULL;
    r->base.on_complete = NULL;
}

/* point r (send) at the bytes of (buf, count, dt): the user's memory when contiguous, a packed
 * copy the request owns when small, else nothing: streamed segment by segment */
void sm_req_send_buffer(struct sctpmpi_request *r, const void *buf, int count, MPI_Datatype dt)
{
    MPI_Aint off;
    size_t n = sm_dt_psize(dt) * (size_t)count;
    free(r->owned_buf);
    r->owned_buf = NULL;
    r->base.pack_seg = NULL;
    if (sm_dt_contig(dt, count, &off)) {
        r->base.buf = (char *)buf + off;
    } else if (n > sm_eager_limit()) { /* always rendezvous: stream it */
        r->base.buf = NULL;
        r->hook_buf = (void *)buf;
        r->hook_count = count;
        r->hook_dt = dt;
        sm_dt_retain(dt);
        r->base.pack_seg = stream_pack;
        r->base.on_complete = stream_send_complete;
    } else { /* non-contiguous and small: packed into a copy the request owns */
        r->owned_buf = sm_xmalloc(n ? n : 1);
        sm_dt_pack(buf, count, dt, r->owned_buf);
        r->base.buf = r->owned_buf;
    }
    r->base.bytes = n;
}

/* point r (receive) at where (buf, count, dt) wants its bytes: the user's memory when
 * contiguous; else, when small, a buffer unpacked into the user's layout when the receive
 * completes; else streamed: rendezvous segments are unpacked as they arrive and only an eager
 * message (at most the eager limit) goes through a buffer of that size */
void sm_req_recv_buffer(struct sctpmpi_request *r, void *buf, int count, MPI_Datatype dt)
{
    MPI_Aint off;
    size_t n = sm_dt_psize(dt) * (size_t)count;
    free(r->owned_buf);
    r->owned_buf = NULL;
    r->base.unpack_seg = NULL;
    r->base.received = 0;
    r->base.bytes = n;
    if (sm_dt_contig(dt, count, &off)) {
        r->base.buf = (char *)buf + off;
        return;
    }
    int stream = n > sm_eager_limit();
    size_t cap = stream ? sm_eager_limit() : n;
    r->base.buf = r->owned_buf = sm_xmalloc(cap ? cap : 1);
    r->hook_buf = buf;
    r->hook_count = count;
    r->hook_dt = dt;
    sm_dt_retain(dt);
    r->base.on_complete = stream ? stream_recv_complete : unpack_on_complete;
    if (stream)
        r->base.unpack_seg = stream_unpack;
}

int sm_isend_dt(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                uint32_t ctx, int mode, MPI_Request *req)
{
    struct sctpmpi_request *r = new_send(NULL, 0, dest, tag, comm, ctx, mode);
    sm_req_send_buffer(r, buf, count, dt);
    *req = r;
    return sm_send_start(&r->base);
}

/* a buffered send's copy went out: its attached-buffer space is free again */
static void bsend_copy_done(struct sm_req *e)
{
    struct sctpmpi_request *r = sm_request_of(e);
    sm_bsend_uncharge(r->bsend_charge);
    r->bsend_charge = 0;
    r->base.on_complete = NULL;
}

int sm_isend_copy(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  size_t bsend_charge, MPI_Request *req)
{
    struct sctpmpi_request *r = new_send(NULL, 0, dest, tag, comm, comm->ctx, SM_MODE_STANDARD);
    /* the program may reuse its buffer as soon as we return: always a packed copy */
    r->base.bytes = sm_dt_psize(dt) * (size_t)count;
    r->base.buf = r->owned_buf = sm_xmalloc(r->base.bytes ? r->base.bytes : 1);
    sm_dt_pack(buf, count, dt, r->owned_buf);
    r->bsend_charge = bsend_charge;
    r->base.on_complete = bsend_copy_done;
    *req = r;
    return sm_send_start(&r->base);
}

int sm_irecv_dt(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                uint32_t ctx, MPI_Request *req)
{
    struct sctpmpi_request *r = new_recv(source, tag, comm, ctx);
    sm_req_recv_buffer(r, buf, count, dt);
    *req = r;
    return sm_recv_post(&r->base);
}

static int check_send(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                      MPI_Comm comm, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (dest != MPI_PROC_NULL) /* nothing is sent to MPI_PROC_NULL: any buffer will do */
        SM_TRY(sm_check_buffer(comm, buf, count, dt, fn));
    SM_TRY(sm_check_dest(comm, dest, fn));
    return sm_check_send_tag(comm, tag, fn);
}

int sm_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
             int mode, MPI_Request *req, const char *fn)
{
    SM_TRY(check_send(buf, count, dt, dest, tag, comm, fn));
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, fn, "NULL request pointer");
    if (dest == MPI_PROC_NULL) {
        *req = sm_request_done(MPI_PROC_NULL);
        return MPI_SUCCESS;
    }
    if (mode == SM_MODE_BUFFERED) {
        SM_TRY(sm_bsend_start(buf, count, dt, dest, tag, comm, fn));
        *req = sm_request_done(MPI_ANY_SOURCE);
        return MPI_SUCCESS;
    }
    sm_isend_dt(buf, count, dt, dest, tag, comm, comm->ctx, mode, req);
    return MPI_SUCCESS;
}

int sm_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Request *req, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (source != MPI_PROC_NULL) /* nothing arrives from MPI_PROC_NULL: any buffer will do */
        SM_TRY(sm_check_buffer(comm, buf, count, dt, fn));
    SM_TRY(sm_check_source(comm, source, fn));
    SM_TRY(sm_check_recv_tag(comm, tag, fn));
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, fn, "NULL request pointer");
    if (source == MPI_PROC_NULL) {
        *req = sm_request_done(MPI_PROC_NULL);
        return MPI_SUCCESS;
    }
    return sm_irecv_dt(buf, count, dt, source, tag, comm, comm->ctx, req);
}

static int blocking(int rc, MPI_Request *req, MPI_Status *status, MPI_Comm comm, const char *fn)
{
    if (rc != MPI_SUCCESS)
        return rc;
    int err = sm_wait_one(req, status);
    return err ? sm_error(comm, err, fn, NULL) : MPI_SUCCESS;
}

#define SEND_FAMILY(NAME, INAME, MODE)                                                           \
    int P##NAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)   \
    {                                                                                            \
        MPI_Request r;                                                                           \
        return blocking(sm_isend(buf, count, dt, dest, tag, comm, MODE, &r, #NAME), &r,          \
                        MPI_STATUS_IGNORE, comm, #NAME);                                         \
    }                                                                                            \
    int P##INAME(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,  \
                 MPI_Request *request)                                                           \
    {                                                                                            \
        return sm_isend(buf, count, dt, dest, tag, comm, MODE, request, #INAME);                 \
    }

SEND_FAMILY(MPI_Send, MPI_Isend, SM_MODE_STANDARD)
SEND_FAMILY(MPI_Ssend, MPI_Issend, SM_MODE_SYNC)
SEND_FAMILY(MPI_Rsend, MPI_Irsend, SM_MODE_READY)

int PMPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    SM_TRY(check_send(buf, count, dt, dest, tag, comm, "MPI_Bsend"));
    if (dest == MPI_PROC_NULL)
        return MPI_SUCCESS;
    return sm_bsend_start(buf, count, dt, dest, tag, comm, "MPI_Bsend");
}

int PMPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                MPI_Request *request)
{
    return sm_isend(buf, count, dt, dest, tag, comm, SM_MODE_BUFFERED, request, "MPI_Ibsend");
}

int PMPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Status *status)
{
    MPI_Request r;
    return blocking(sm_irecv(buf, count, dt, source, tag, comm, &r, "MPI_Recv"), &r, status, comm,
                    "MPI_Recv");
}

int PMPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
               MPI_Request *request)
{
    return sm_irecv(buf, count, dt, source, tag, comm, request, "MPI_Irecv");
}

int PMPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                  int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                  int recvtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Request rq[2];
    SM_TRY(sm_irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &rq[0], "MPI_Sendrecv"));
    int rc = sm_isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, SM_MODE_STANDARD, &rq[1],
                      "MPI_Sendrecv");
    if (rc) {
        sm_cancel_recv(&rq[0]->base);
        sm_wait_one(&rq[0], MPI_STATUS_IGNORE);
        return rc;
    }
    int e1 = sm_wait_one(&rq[1], MPI_STATUS_IGNORE);
    int e0 = sm_wait_one(&rq[0], status);
    int err = e0 ? e0 : e1;
    return err ? sm_error(comm, err, "MPI_Sendrecv", NULL) : MPI_SUCCESS;
}

int PMPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                          int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    SM_TRY(sm_check_comm(comm, "MPI_Sendrecv_replace"));
    SM_TRY(sm_check_buffer(comm, buf, count, dt, "MPI_Sendrecv_replace"));
    size_t n = sm_dt_psize(dt) * (size_t)count;
    void *tmp = sm_xmalloc(n ? n : 1);
    sm_dt_pack(buf, count, dt, tmp); /* the outgoing copy, packed */
    int rc = PMPI_Sendrecv(tmp, (int)n, MPI_PACKED, dest, sendtag, buf, count, dt, source,
                           recvtag, comm, status);
    free(tmp);
    return rc;
}
