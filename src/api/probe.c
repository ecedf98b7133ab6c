/* probe.c — Probe/Iprobe and matched probes (Mprobe/Improbe/Mrecv/Imrecv).  Probes see only
 * the in-order unexpected queue: what in-order delivery would show (docs/design.md). */
#include <stdlib.h>

#include "api/api.h"

static int check_probe(int source, int tag, MPI_Comm comm, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(sm_check_source(comm, source, fn));
    return sm_check_recv_tag(comm, tag, fn);
}

/* probes and matched receives complete one operation: they leave the status's MPI_ERROR
 * field as the program set it (only multiple-completion calls write it) */
static void proc_null_status(MPI_Status *s)
{
    if (!s)
        return;
    int keep = s->MPI_ERROR;
    sm_status_empty(s);
    s->MPI_SOURCE = MPI_PROC_NULL;
    s->MPI_ERROR = keep;
}

static void msg_status(MPI_Comm comm, const struct sm_msg *m, MPI_Status *s)
{
    if (!s)
        return;
    s->MPI_SOURCE = sm_comm_rank_of_world(comm, m->src);
    s->MPI_TAG = m->tag;
    s->sm_cancelled = 0;
    s->sm_count = m->size;
}

struct probe_arg { int src; uint32_t ctx; int tag; int remove; struct sm_msg *found; };
static int probe_found(void *a)
{
    struct probe_arg *p = a;
    p->found = sm_unexpected_find(p->src, p->ctx, p->tag, p->remove);
    return p->found != NULL;
}

static struct sm_msg *probe(int source, int tag, MPI_Comm comm, int block, int remove)
{
    struct probe_arg a = {source == MPI_ANY_SOURCE ? -1 : sm_comm_world_rank(comm, source),
                          comm->ctx, tag, remove, NULL};
    if (block)
        sm_progress_until(probe_found, &a);
    else if (!probe_found(&a)) {
        sm_progress_poll();
        probe_found(&a);
    }
    return a.found;
}

#pragma weak MPI_Iprobe = PMPI_Iprobe
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    SM_TRY(check_probe(source, tag, comm, "MPI_Iprobe"));
    if (!flag)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Iprobe", "NULL flag");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    struct sm_msg *m = probe(source, tag, comm, 0, 0);
    *flag = m != NULL;
    if (m)
        msg_status(comm, m, status);
    return MPI_SUCCESS;
}

#pragma weak MPI_Probe = PMPI_Probe
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    SM_TRY(check_probe(source, tag, comm, "MPI_Probe"));
    if (source == MPI_PROC_NULL) {
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    msg_status(comm, probe(source, tag, comm, 1, 0), status);
    return MPI_SUCCESS;
}

static MPI_Message wrap(MPI_Comm comm, struct sm_msg *m)
{
    struct sctpmpi_message *h = sm_xcalloc(1, sizeof *h);
    h->msg = m;
    h->comm = comm;
    return h;
}

#pragma weak MPI_Improbe = PMPI_Improbe
int PMPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status)
{
    SM_TRY(check_probe(source, tag, comm, "MPI_Improbe"));
    if (!flag || !message)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Improbe", "NULL argument");
    if (source == MPI_PROC_NULL) {
        *flag = 1;
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    struct sm_msg *m = probe(source, tag, comm, 0, 1);
    *flag = m != NULL;
    if (m) {
        msg_status(comm, m, status);
        *message = wrap(comm, m);
    }
    return MPI_SUCCESS;
}

#pragma weak MPI_Mprobe = PMPI_Mprobe
int PMPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    SM_TRY(check_probe(source, tag, comm, "MPI_Mprobe"));
    if (!message)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Mprobe", "NULL message");
    if (source == MPI_PROC_NULL) {
        *message = MPI_MESSAGE_NO_PROC;
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    struct sm_msg *m = probe(source, tag, comm, 1, 1);
    msg_status(comm, m, status);
    *message = wrap(comm, m);
    return MPI_SUCCESS;
}

#pragma weak MPI_Imrecv = PMPI_Imrecv
int PMPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
               MPI_Request *request)
{
    SM_TRY(sm_check_init("MPI_Imrecv"));
    if (!message || !*message || !request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Imrecv", "null message or request");
    struct sctpmpi_message *h = *message;
    if (h->is_no_proc) {
        struct sctpmpi_request *r = sm_req_alloc(SM_REQ_DONE);
        r->status.MPI_SOURCE = MPI_PROC_NULL;
        r->complete = 1;
        *request = r;
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    SM_TRY(sm_check_buffer(h->comm, buf, count, dt, "MPI_Imrecv"));
    struct sctpmpi_request *r = sm_req_alloc(SM_REQ_RECV);
    sm_req_recv_buffer(r, buf, count, dt);
    r->comm = h->comm;
    r->ctx = h->msg->ctx;
    r->peer = sm_comm_rank_of_world(h->comm, h->msg->src);
    r->wpeer = h->msg->src;
    r->tag = h->msg->tag;
    *request = r;
    sm_recv_deliver(r, h->msg);
    free(h);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

#pragma weak MPI_Mrecv = PMPI_Mrecv
int PMPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    MPI_Request r;
    SM_TRY(PMPI_Imrecv(buf, count, dt, message, &r));
    MPI_Comm c = r->comm ? r->comm : MPI_COMM_WORLD;
    int err = sm_wait_one(&r, status);
    return err ? sm_error(c, err, "MPI_Mrecv", NULL) : MPI_SUCCESS;
}
