/* isendrecv.c — MPI_Isendrecv and MPI_Isendrecv_replace (MPI-4): one user request over an
 * internal receive and send, completed (a waiter, preq.c) when both have; its
 * status is the receive's.  The replace form sends a packed copy of the buffer, so the
 * incoming message may overwrite the buffer while the send is still under way. */
#include <stdlib.h>

#include "api/api.h"

struct isr {
    struct sm_waiter w; /* first: the waiter is the object */
    MPI_Request outer, s, r;
    void *tmp;
};

static int isr_poll(struct sm_waiter *w)
{
    struct isr *x = (struct isr *)w;
    return x->s->base.complete && x->r->base.complete;
}

static void isr_done(struct sm_waiter *w)
{
    struct isr *x = (struct isr *)w;
    MPI_Status st;
    int es = sm_wait_one(&x->s, MPI_STATUS_IGNORE);
    int er = sm_wait_one(&x->r, &st);
    struct sctpmpi_request *o = x->outer;
    o->base.status = st;
    o->base.status.MPI_ERROR = er ? er : es;
    free(x->tmp);
    free(x);
    sm_req_complete(&o->base); /* releases it if MPI_Request_free was called */
}

static int start(const void *sbuf, int scount, MPI_Datatype st, int dest, int stag, void *rbuf,
                 int rcount, MPI_Datatype rt, int source, int rtag, MPI_Comm comm, void *tmp,
                 MPI_Request *request, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(sm_check_buffer(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_dest(comm, dest, fn));
    SM_TRY(sm_check_send_tag(comm, stag, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, rt, fn));
    SM_TRY(sm_check_source(comm, source, fn));
    SM_TRY(sm_check_recv_tag(comm, rtag, fn));
    if (!request)
        return sm_error(comm, MPI_ERR_REQUEST, fn, "NULL request pointer");
    struct isr *x = sm_xcalloc(1, sizeof *x);
    x->tmp = tmp;
    SM_TRY(sm_irecv(rbuf, rcount, rt, source, rtag, comm, &x->r, fn));
    SM_TRY(sm_isend(sbuf, scount, st, dest, stag, comm, SM_MODE_STANDARD, &x->s, fn));
    struct sctpmpi_request *o = sm_request_alloc(SM_REQ_DONE);
    o->base.comm = comm;
    x->outer = o;
    x->w.poll = isr_poll;
    x->w.done = isr_done;
    *request = o;
    if (isr_poll(&x->w))
        isr_done(&x->w);
    else
        sm_waiter_add(&x->w);
    return MPI_SUCCESS;
}

int PMPI_Isendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                   int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                   int recvtag, MPI_Comm comm, MPI_Request *request)
{
    return start(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                 source, recvtag, comm, NULL, request, "MPI_Isendrecv");
}

int PMPI_Isendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                           int source, int recvtag, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Isendrecv_replace";
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(sm_check_buffer(comm, buf, count, dt, fn));
    size_t n = sm_dt_psize(dt) * (size_t)count;
    if (n > (size_t)0x7fffffff)
        return sm_error(comm, MPI_ERR_COUNT, fn, "message too large");
    void *tmp = sm_xmalloc(n ? n : 1);
    sm_dt_pack(buf, count, dt, tmp); /* the outgoing copy, packed */
    int rc = start(tmp, (int)n, MPI_PACKED, dest, sendtag, buf, count, dt, source, recvtag, comm,
                   tmp, request, fn);
    if (rc != MPI_SUCCESS)
        free(tmp); /* the checks failed before anything was posted */
    return rc;
}
