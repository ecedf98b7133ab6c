/* persistent.c — persistent requests: *_init keeps the arguments, Start/Startall run them. */
#include <string.h>

#include "api/api.h"

static int make(const void *buf, int count, MPI_Datatype dt, int peer, int tag, MPI_Comm comm,
                int kind, int mode, MPI_Request *request, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(sm_check_buffer(comm, buf, count, dt, fn));
    if (kind == SM_REQ_SEND) {
        SM_TRY(sm_check_dest(comm, peer, fn));
        SM_TRY(sm_check_send_tag(comm, tag, fn));
    } else {
        SM_TRY(sm_check_source(comm, peer, fn));
        SM_TRY(sm_check_recv_tag(comm, tag, fn));
    }
    if (!request)
        return sm_error(comm, MPI_ERR_REQUEST, fn, "NULL request pointer");
    struct sctpmpi_request *r = sm_request_alloc(kind);
    r->persistent = 1;
    r->p_buf = buf;
    r->p_count = count;
    r->p_dt = dt;
    sm_dt_retain(dt); /* the type may be freed before the request: released by Request_free */
    sm_req_init(&r->base, comm, comm->ctx, peer, tag, mode);
    r->base.complete = 1;
    *request = r;
    return MPI_SUCCESS;
}

int PMPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return make(buf, count, dt, dest, tag, comm, SM_REQ_SEND, SM_MODE_STANDARD, request,
                "MPI_Send_init");
}
int PMPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return make(buf, count, dt, dest, tag, comm, SM_REQ_SEND, SM_MODE_SYNC, request,
                "MPI_Ssend_init");
}
int PMPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return make(buf, count, dt, dest, tag, comm, SM_REQ_SEND, SM_MODE_READY, request,
                "MPI_Rsend_init");
}
int PMPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                    MPI_Request *request)
{
    return make(buf, count, dt, dest, tag, comm, SM_REQ_SEND, SM_MODE_BUFFERED, request,
                "MPI_Bsend_init");
}
int PMPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                   MPI_Request *request)
{
    return make(buf, count, dt, source, tag, comm, SM_REQ_RECV, SM_MODE_STANDARD, request,
                "MPI_Recv_init");
}

int PMPI_Start(MPI_Request *request)
{
    SM_TRY(sm_check_init("MPI_Start"));
    if (!request || !*request || !(*request)->persistent)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_REQUEST, "MPI_Start", "not a persistent request");
    struct sctpmpi_request *r = *request;
    if (r->active)
        return sm_error(r->base.comm, MPI_ERR_REQUEST, "MPI_Start", "request is already active");
    const struct sm_preq_ops *ops = sm_preq_ops_of(r); /* persistent collective, partitioned */
    if (ops)
        return ops->start(r);
    r->active = 1;
    sm_req_restart(&r->base);
    sm_status_empty(&r->base.status);
    if (r->base.peer == MPI_PROC_NULL) {
        r->base.status.MPI_SOURCE = MPI_PROC_NULL;
        r->base.complete = 1;
        return MPI_SUCCESS;
    }
    if (r->base.kind == SM_REQ_RECV) {
        sm_req_recv_buffer(r, (void *)r->p_buf, r->p_count, r->p_dt);
        sm_req_init(&r->base, r->base.comm, r->base.comm->ctx, r->base.peer, r->base.tag,
                    r->base.mode);
        return sm_recv_post(&r->base);
    }
    if (r->base.mode == SM_MODE_BUFFERED) {
        int rc = sm_bsend_start(r->p_buf, r->p_count, r->p_dt, r->base.peer, r->base.tag,
                                r->base.comm, "MPI_Start");
        r->base.complete = 1;
        return rc;
    }
    sm_req_send_buffer(r, r->p_buf, r->p_count, r->p_dt);
    sm_req_init(&r->base, r->base.comm, r->base.comm->ctx, r->base.peer, r->base.tag,
                r->base.mode);
    return sm_send_start(&r->base);
}

int PMPI_Startall(int count, MPI_Request requests[])
{
    for (int i = 0; i < count; i++)
        SM_TRY(PMPI_Start(&requests[i]));
    return MPI_SUCCESS;
}
