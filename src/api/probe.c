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

static void msg_status(MPI_Comm comm, const struct sm_envelope *e, MPI_Status *s)
{
    if (!s)
        return;
    s->MPI_SOURCE = sm_comm_rank_of_world(comm, e->src);
    s->MPI_TAG = e->tag;
    s->sm_cancelled = 0;
    s->sm_count = e->size;
}

struct probe_arg {
    int src;
    uint32_t ctx;
    int tag;
    int take;
    struct sm_envelope env;
    struct sm_msg *msg;
};
static int probe_found(void *a)
{
    struct probe_arg *p = a;
    return sm_probe(p->src, p->ctx, p->tag, p->take, &p->env, &p->msg);
}

/* 1 if a message matches (its envelope in *env; with take, *msg is the message taken) */
static int probe(int source, int tag, MPI_Comm comm, int block, int take, struct sm_envelope *env,
                 struct sm_msg **msg)
{
    struct probe_arg a = { source == MPI_ANY_SOURCE ? -1 : sm_comm_world_rank(comm, source),
                           comm->ctx,
                           tag,
                           take,
                           { 0, 0, 0 },
                           NULL };
    int found;
    if (block)
        found = !sm_progress_until(probe_found, &a);
    else if (!(found = probe_found(&a))) {
        sm_progress_poll();
        found = probe_found(&a);
    }
    *env = a.env;
    if (msg)
        *msg = a.msg;
    return found;
}

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
    struct sm_envelope e;
    *flag = probe(source, tag, comm, 0, 0, &e, NULL);
    if (*flag)
        msg_status(comm, &e, status);
    return MPI_SUCCESS;
}

int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    SM_TRY(check_probe(source, tag, comm, "MPI_Probe"));
    if (source == MPI_PROC_NULL) {
        proc_null_status(status);
        return MPI_SUCCESS;
    }
    struct sm_envelope e;
    probe(source, tag, comm, 1, 0, &e, NULL);
    msg_status(comm, &e, status);
    return MPI_SUCCESS;
}

static MPI_Message wrap(MPI_Comm comm, struct sm_msg *m)
{
    struct sctpmpi_message *h = sm_xcalloc(1, sizeof *h);
    h->msg = m;
    h->comm = comm;
    return h;
}

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
    struct sm_envelope e;
    struct sm_msg *m;
    *flag = probe(source, tag, comm, 0, 1, &e, &m);
    if (*flag) {
        msg_status(comm, &e, status);
        *message = wrap(comm, m);
    }
    return MPI_SUCCESS;
}

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
    struct sm_envelope e;
    struct sm_msg *m;
    probe(source, tag, comm, 1, 1, &e, &m);
    msg_status(comm, &e, status);
    *message = wrap(comm, m);
    return MPI_SUCCESS;
}

int PMPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Request *request)
{
    SM_TRY(sm_check_init("MPI_Imrecv"));
    if (!message || !*message || !request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Imrecv", "null message or request");
    struct sctpmpi_message *h = *message;
    if (h->is_no_proc) {
        *request = sm_request_done(MPI_PROC_NULL);
        *message = MPI_MESSAGE_NULL;
        return MPI_SUCCESS;
    }
    SM_TRY(sm_check_buffer(h->comm, buf, count, dt, "MPI_Imrecv"));
    struct sctpmpi_request *r = sm_request_alloc(SM_REQ_RECV);
    sm_req_recv_buffer(r, buf, count, dt);
    r->base.comm = h->comm;
    *request = r;
    sm_recv_matched(&r->base, h->msg);
    free(h);
    *message = MPI_MESSAGE_NULL;
    return MPI_SUCCESS;
}

int PMPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status)
{
    MPI_Request r;
    SM_TRY(PMPI_Imrecv(buf, count, dt, message, &r));
    MPI_Comm c = r->base.comm ? r->base.comm : MPI_COMM_WORLD;
    int err = sm_wait_one(&r, status);
    return err ? sm_error(c, err, "MPI_Mrecv", NULL) : MPI_SUCCESS;
}
