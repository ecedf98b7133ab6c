/* pmi_server.c — what mpiexec's PMI-1 commands do to its job (the wire protocol itself is
 * pmi_wire.c): the key-value space, the barrier over all ranks, finalize and abort. */
#include "pmi_server.h"

#include <stdio.h>

#include "names.h"
#include "pmi_wire.h"
#include "spawn.h"

static struct rank_proc *rank_of(struct pmi_wire_conn *c)
{
    return c->owner;
}

static void on_init(void *ctx, struct pmi_wire_conn *c)
{
    struct job *job = ctx;
    rank_of(c)->pmi_inited = 1;
    job->any_inited = 1;
    /* a rank that already left without finalizing can never reach a barrier: fail now */
    for (int i = 0; i < job->nranks; i++) {
        struct rank_proc *o = &job->ranks[i];
        if (!o->running && !o->finalized && !job->killing)
            job_fail(job, 1, "rank %d exited without MPI_Finalize", o->rank);
    }
}

static int on_put(void *ctx, struct pmi_wire_conn *c, const char *key, const char *value)
{
    (void)c;
    return kvs_put(((struct job *)ctx)->kvs, key, value);
}

static const char *on_get(void *ctx, struct pmi_wire_conn *c, const char *key)
{
    (void)c;
    return kvs_get(((struct job *)ctx)->kvs, key);
}

static int on_barrier_in(void *ctx, struct pmi_wire_conn *c)
{
    struct job *job = ctx;
    struct rank_proc *rp = rank_of(c);
    if (rp->in_barrier)
        return -1;
    rp->in_barrier = 1;
    if (++job->barrier_count < job->nranks)
        return 0;
    job->barrier_count = 0;
    const struct pmi_wire_server *s = job->pmi_server;
    for (int i = 0; i < job->nranks; i++) {
        job->ranks[i].in_barrier = 0;
        pmi_wire_reply(s, &job->ranks[i].pmi, "cmd=barrier_out rc=0\n");
    }
    return 0;
}

static void on_finalize(void *ctx, struct pmi_wire_conn *c)
{
    (void)ctx;
    rank_of(c)->finalized = 1;
}

static void on_abort(void *ctx, struct pmi_wire_conn *c, int code)
{
    job_fail(ctx, code, "rank %d called MPI_Abort with code %d", c->rank, code);
}

static void on_unknown(void *ctx, struct pmi_wire_conn *c, const char *cmd)
{
    (void)ctx;
    fprintf(stderr, "mpiexec: rank %d sent unsupported PMI command '%s'\n", c->rank, cmd);
}

static void on_overlong(void *ctx, struct pmi_wire_conn *c)
{
    job_fail(ctx, 1, "rank %d sent a PMI request longer than %d bytes", c->rank,
             PMI_WIRE_LINE_MAX);
}

static void on_stalled(void *ctx, struct pmi_wire_conn *c)
{
    (void)ctx;
    fprintf(stderr,
            "mpiexec: rank %d is not reading its PMI replies; closing its PMI connection\n",
            c->rank);
}

/* dynamic processes: spawn requests and the name service */
static void on_spawn(void *ctx, struct pmi_wire_conn *c, const char *blocks)
{
    names_export(); /* the children share our names */
    spawn_serve(ctx, c, blocks);
}

static int on_extra(void *ctx, struct pmi_wire_conn *c, const char *cmd,
                    const struct pmi_wire_request *rq)
{
    return names_serve(((struct job *)ctx)->pmi_server, c, cmd, rq);
}

void pmi_server_setup(struct job *job, struct pmi_wire_server *s)
{
    *s = (struct pmi_wire_server){
        .ctx = job,
        .kvsname = job->kvsname,
        .universe_size = job->nranks,
        .init = on_init,
        .put = on_put,
        .get = on_get,
        .barrier_in = on_barrier_in,
        .finalize = on_finalize,
        .abort = on_abort,
        .unknown = on_unknown,
        .overlong = on_overlong,
        .stalled = on_stalled,
        .spawn = on_spawn,
        .extra = on_extra,
    };
    job->pmi_server = s;
}

void pmi_server_pump(struct job *job, struct rank_proc *rp)
{
    pmi_wire_pump(job->pmi_server, &rp->pmi);
}
