/* farm.c - the latency-hiding task farm of include/sctpmpi_farm.h: manager and worker loops.
 *
 * Only MPI_* calls are used here (no library internals), so this file builds against any MPI.
 * Protocol on a private duplicate of the caller's communicator (with mpi_assert_allow_overtaking
 * when asked):
 * - the manager owns k slots per worker; a slot holds one task in flight.  Filling a slot posts the
 *   result receive first (source = worker, tag = task tag), then sends the task's input with the
 *   same tag.  MPI_Waitany over all slots' result receives gives the next finished task; its slot
 *   is refilled at once with the next task.  The tag is task id mod the tag space; if a worker
 *   still has an older task with the same tag in flight, that one is completed first, so a
 *   (worker, tag) pair is never ambiguous.
 * - a worker keeps k receives posted (ANY_TAG from the manager), computes each task as it
 *   arrives, sends the result back on the task's tag and re-posts the receive.  There is no
 *   request message: the manager's refill is the only traffic towards the worker.
 * - a worker-side error travels as a result of max_result_bytes + sizeof(int) bytes (longer than
 *   any real result) whose last int is the error code.
 * - termination: once no task is in flight the manager sends k empty messages with the reserved
 *   tag (the tag space's top) to each worker, one per posted receive, so nothing stays posted. */
#include "sctpmpi_farm.h"

#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SLOTS (1L << 24)

/* Buffer strides are rounded up to this, so every slot's buffer is aligned for any type. */
static size_t sm_farm_stride(long n)
{
    const size_t a = _Alignof(max_align_t);
    return ((size_t)n + a - 1) / a * a;
}

void sctpmpi_farm_config_init(sctpmpi_farm_config *cfg)
{
    if (!cfg)
        return;
    cfg->k = 2;
    cfg->max_task_bytes = 4096;
    cfg->max_result_bytes = 4096;
    cfg->manager = 0;
    cfg->allow_overtaking = 0;
    cfg->tag_space = 0;
}

int sctpmpi_farm_tag_space(MPI_Comm comm, int *space)
{
    int *ub = NULL, flag = 0;
    if (!space)
        return MPI_ERR_ARG;
    int rc = MPI_Comm_get_attr(comm, MPI_TAG_UB, &ub, &flag);
    if (rc != MPI_SUCCESS)
        return rc;
    *space = flag && ub ? *ub : 32767; /* 32767: the least MPI_TAG_UB the standard allows */
    return MPI_SUCCESS;
}

struct sm_farm {
    MPI_Comm comm;
    const sctpmpi_farm_config *cfg;
    int errlen;              /* length of an error message: max_result_bytes + sizeof(int) */
    size_t tstride, rstride; /* slot strides of task and result (+ error) buffers */
    int stoptag;             /* the reserved termination tag; task tags are 0..stoptag-1 */
    void *ctx;
};

static int sm_farm_check(const sctpmpi_farm_config *cfg, int size)
{
    if (!cfg || cfg->k < 1 || cfg->max_task_bytes < 0 || cfg->max_result_bytes < 0 ||
        cfg->max_result_bytes > INT_MAX - (int)sizeof(int) || cfg->manager < 0 ||
        cfg->manager >= size || (long)cfg->k * (long)(size > 1 ? size - 1 : 1) > MAX_SLOTS)
        return MPI_ERR_ARG;
    return MPI_SUCCESS;
}

/* ---- manager ---------------------------------------------------------------------------- */

struct sm_mgr {
    struct sm_farm *f;
    int nw, nslots;
    long *task_of; /* slot -> task in flight, -1: free */
    int *tag_of;
    MPI_Request *rreq, *sreq;
    unsigned char *tbuf, *rbuf;
    int *freeslot, nfree;
    long inflight;
    int err;
    sctpmpi_farm_result_fn result_fn;
    sctpmpi_farm_stats *st;
};

static int sm_mgr_worker(const struct sm_mgr *m, int slot)
{
    int wi = slot % m->nw; /* slot = j * nw + wi: the first fill goes round-robin */
    return wi < m->f->cfg->manager ? wi : wi + 1;
}

/* A slot's result has arrived (status st): consume it and free the slot. */
static int sm_mgr_complete(struct sm_mgr *m, int s, MPI_Status *st)
{
    int n = 0, rc = MPI_Get_count(st, MPI_BYTE, &n);
    if (rc != MPI_SUCCESS)
        return rc;
    unsigned char *r = m->rbuf + (size_t)s * m->f->rstride;
    if (n == m->f->errlen) {
        int code;
        memcpy(&code, r + m->f->cfg->max_result_bytes, sizeof code);
        if (m->err == MPI_SUCCESS)
            m->err = code != MPI_SUCCESS ? code : MPI_ERR_OTHER;
    } else if (m->err == MPI_SUCCESS) {
        int cb = m->result_fn(m->task_of[s], r, n, st->MPI_SOURCE, m->f->ctx);
        if (cb != MPI_SUCCESS)
            m->err = cb;
        m->st->tasks++;
    }
    m->task_of[s] = -1;
    m->inflight--;
    m->freeslot[m->nfree++] = s;
    return MPI_SUCCESS;
}

/* Put task t into free slot s (its worker has no other task with the same tag in flight). */
static int sm_mgr_fill(struct sm_mgr *m, int s, long t, sctpmpi_farm_task_fn task_fn)
{
    struct sm_farm *f = m->f;
    int w = sm_mgr_worker(m, s), tag = (int)(t % f->stoptag), len = 0;
    unsigned char *tb = m->tbuf + (size_t)s * f->tstride;
    int rc = MPI_Wait(&m->sreq[s], MPI_STATUS_IGNORE); /* the slot's previous task */
    if (rc != MPI_SUCCESS)
        return rc;
    rc = task_fn(t, tb, &len, f->ctx);
    if (rc == MPI_SUCCESS && (len < 0 || len > f->cfg->max_task_bytes))
        rc = MPI_ERR_COUNT;
    if (rc != MPI_SUCCESS) {
        m->err = rc;
        m->freeslot[m->nfree++] = s;
        return MPI_SUCCESS;
    }
    rc = MPI_Irecv(m->rbuf + (size_t)s * f->rstride, f->errlen, MPI_BYTE, w, tag, f->comm,
                   &m->rreq[s]);
    if (rc == MPI_SUCCESS)
        rc = MPI_Isend(tb, len, MPI_BYTE, w, tag, f->comm, &m->sreq[s]);
    if (rc != MPI_SUCCESS)
        return rc;
    m->task_of[s] = t;
    m->tag_of[s] = tag;
    if (++m->inflight > m->st->max_inflight)
        m->st->max_inflight = m->inflight;
    return MPI_SUCCESS;
}

static int sm_mgr_run(struct sm_farm *f, int size, long ntasks, sctpmpi_farm_task_fn task_fn,
                      sctpmpi_farm_result_fn result_fn, sctpmpi_farm_stats *st)
{
    struct sm_mgr m;
    memset(&m, 0, sizeof m);
    m.f = f;
    m.nw = size - 1;
    m.nslots = m.nw * f->cfg->k;
    m.result_fn = result_fn;
    m.st = st;
    m.err = ntasks < 0 || !task_fn || !result_fn ? MPI_ERR_ARG : MPI_SUCCESS;
    size_t ns = (size_t)m.nslots;
    m.task_of = malloc(ns * sizeof *m.task_of);
    m.tag_of = malloc(ns * sizeof *m.tag_of);
    m.rreq = malloc(ns * sizeof *m.rreq);
    m.sreq = malloc(ns * sizeof *m.sreq);
    m.freeslot = malloc(ns * sizeof *m.freeslot);
    m.tbuf = malloc(ns * f->tstride + 1);
    m.rbuf = malloc(ns * f->rstride);
    int rc = MPI_SUCCESS;
    if (!m.task_of || !m.tag_of || !m.rreq || !m.sreq || !m.freeslot || !m.tbuf || !m.rbuf) {
        m.err = MPI_ERR_NO_MEM;
        m.nslots = 0; /* run no task, but still stop the workers */
    }
    for (int s = m.nslots - 1; s >= 0; s--) {
        m.task_of[s] = -1;
        m.rreq[s] = m.sreq[s] = MPI_REQUEST_NULL;
        m.freeslot[m.nfree++] = s;
    }
    long next = 0;
    while (rc == MPI_SUCCESS) {
        while (rc == MPI_SUCCESS && m.err == MPI_SUCCESS && next < ntasks && m.nfree > 0) {
            int s = m.freeslot[--m.nfree], tag = (int)(next % f->stoptag);
            /* an older task with this tag still at the same worker: finish it first */
            for (int j = 0; j < f->cfg->k && rc == MPI_SUCCESS; j++) {
                int s2 = j * m.nw + s % m.nw;
                if (s2 != s && m.task_of[s2] >= 0 && m.tag_of[s2] == tag) {
                    MPI_Status sst;
                    rc = MPI_Wait(&m.rreq[s2], &sst);
                    if (rc == MPI_SUCCESS)
                        rc = sm_mgr_complete(&m, s2, &sst);
                }
            }
            if (rc == MPI_SUCCESS && m.err != MPI_SUCCESS) {
                m.freeslot[m.nfree++] = s; /* a completed result stopped the farm */
                break;
            }
            if (rc == MPI_SUCCESS)
                rc = sm_mgr_fill(&m, s, next, task_fn);
            if (rc == MPI_SUCCESS && m.err == MPI_SUCCESS)
                next++;
        }
        if (rc != MPI_SUCCESS || m.inflight == 0)
            break;
        int s = MPI_UNDEFINED;
        MPI_Status sst;
        rc = MPI_Waitany(m.nslots, m.rreq, &s, &sst);
        if (rc == MPI_SUCCESS && s == MPI_UNDEFINED)
            rc = MPI_ERR_INTERN;
        if (rc == MPI_SUCCESS)
            rc = sm_mgr_complete(&m, s, &sst);
    }
    for (int s = 0; s < m.nslots && rc == MPI_SUCCESS; s++)
        rc = MPI_Wait(&m.sreq[s], MPI_STATUS_IGNORE);
    /* one empty stop message per posted receive of every worker */
    for (int r = 0; r < size && rc == MPI_SUCCESS; r++)
        for (int j = 0; r != f->cfg->manager && j < f->cfg->k && rc == MPI_SUCCESS; j++)
            rc = MPI_Send(NULL, 0, MPI_BYTE, r, f->stoptag, f->comm);
    free(m.task_of);
    free(m.tag_of);
    free(m.rreq);
    free(m.sreq);
    free(m.freeslot);
    free(m.tbuf);
    free(m.rbuf);
    return rc != MPI_SUCCESS ? rc : m.err;
}

/* The manager alone (a communicator of one rank): compute every task in place. */
static int sm_mgr_serial(struct sm_farm *f, long ntasks, sctpmpi_farm_task_fn task_fn,
                         sctpmpi_farm_work_fn work_fn, sctpmpi_farm_result_fn result_fn,
                         sctpmpi_farm_stats *st)
{
    if (ntasks < 0 || (ntasks > 0 && (!task_fn || !work_fn || !result_fn)))
        return MPI_ERR_ARG;
    unsigned char *in = malloc((size_t)f->cfg->max_task_bytes + 1);
    unsigned char *out = malloc((size_t)f->cfg->max_result_bytes + 1);
    int rc = in && out ? MPI_SUCCESS : MPI_ERR_NO_MEM;
    for (long t = 0; t < ntasks && rc == MPI_SUCCESS; t++) {
        int len = 0, olen = 0;
        rc = task_fn(t, in, &len, f->ctx);
        if (rc == MPI_SUCCESS && (len < 0 || len > f->cfg->max_task_bytes))
            rc = MPI_ERR_COUNT;
        if (rc == MPI_SUCCESS)
            rc = work_fn((int)(t % f->stoptag), in, len, out, &olen, f->ctx);
        if (rc == MPI_SUCCESS && (olen < 0 || olen > f->cfg->max_result_bytes))
            rc = MPI_ERR_COUNT;
        if (rc == MPI_SUCCESS)
            rc = result_fn(t, out, olen, f->cfg->manager, f->ctx);
        if (rc == MPI_SUCCESS)
            st->tasks++;
    }
    free(in);
    free(out);
    return rc;
}

/* ---- worker ----------------------------------------------------------------------------- */

static int sm_worker_run(struct sm_farm *f, sctpmpi_farm_work_fn work_fn, sctpmpi_farm_stats *st)
{
    const int k = f->cfg->k, mt = f->cfg->max_task_bytes, mr = f->cfg->max_result_bytes;
    unsigned char *in = malloc((size_t)k * f->tstride + 1);
    unsigned char *out = malloc((size_t)k * f->rstride);
    MPI_Request *rreq = malloc((size_t)k * sizeof *rreq),
                *sreq = malloc((size_t)k * sizeof *sreq);
    int rc = MPI_SUCCESS, err = work_fn ? MPI_SUCCESS : MPI_ERR_ARG;
    if (!in || !out || !rreq || !sreq) {
        /* cannot take part: the manager would wait for results forever */
        free(in);
        free(out);
        free(rreq);
        free(sreq);
        return MPI_Abort(f->comm, MPI_ERR_NO_MEM), MPI_ERR_NO_MEM;
    }
    for (int j = 0; j < k; j++) {
        sreq[j] = MPI_REQUEST_NULL;
        rreq[j] = MPI_REQUEST_NULL;
    }
    for (int j = 0; j < k && rc == MPI_SUCCESS; j++)
        rc = MPI_Irecv(in + (size_t)j * f->tstride, mt, MPI_BYTE, f->cfg->manager, MPI_ANY_TAG,
                       f->comm, &rreq[j]);
    for (int stops = 0; stops < k && rc == MPI_SUCCESS;) {
        int j = MPI_UNDEFINED, n = 0;
        MPI_Status sst;
        rc = MPI_Waitany(k, rreq, &j, &sst);
        if (rc == MPI_SUCCESS && j == MPI_UNDEFINED)
            rc = MPI_ERR_INTERN;
        if (rc != MPI_SUCCESS)
            break;
        if (sst.MPI_TAG == f->stoptag) {
            stops++; /* this receive is not re-posted */
            continue;
        }
        unsigned char *ib = in + (size_t)j * f->tstride, *ob = out + (size_t)j * f->rstride;
        rc = MPI_Get_count(&sst, MPI_BYTE, &n);
        if (rc == MPI_SUCCESS)
            rc = MPI_Wait(&sreq[j], MPI_STATUS_IGNORE); /* the slot's previous result */
        if (rc != MPI_SUCCESS)
            break;
        int olen = 0, cb = err;
        if (cb == MPI_SUCCESS) {
            cb = work_fn(sst.MPI_TAG, ib, n, ob, &olen, f->ctx);
            if (cb == MPI_SUCCESS && (olen < 0 || olen > mr))
                cb = MPI_ERR_COUNT;
            st->tasks++;
        }
        if (cb != MPI_SUCCESS) {
            if (err == MPI_SUCCESS)
                err = cb;
            memcpy(ob + mr, &cb, sizeof cb);
            olen = f->errlen;
        }
        rc = MPI_Isend(ob, olen, MPI_BYTE, f->cfg->manager, sst.MPI_TAG, f->comm, &sreq[j]);
        if (rc == MPI_SUCCESS)
            rc = MPI_Irecv(ib, mt, MPI_BYTE, f->cfg->manager, MPI_ANY_TAG, f->comm, &rreq[j]);
    }
    for (int j = 0; j < k && rc == MPI_SUCCESS; j++)
        rc = MPI_Wait(&sreq[j], MPI_STATUS_IGNORE);
    free(in);
    free(out);
    free(rreq);
    free(sreq);
    return rc != MPI_SUCCESS ? rc : err;
}

/* ---- entry ------------------------------------------------------------------------------ */

int sctpmpi_farm_run(MPI_Comm comm, const sctpmpi_farm_config *cfg, long ntasks,
                     sctpmpi_farm_task_fn task_fn, sctpmpi_farm_work_fn work_fn,
                     sctpmpi_farm_result_fn result_fn, void *ctx, sctpmpi_farm_stats *stats)
{
    sctpmpi_farm_stats dummy;
    sctpmpi_farm_stats *st = stats ? stats : &dummy;
    memset(st, 0, sizeof *st);
    double t0 = MPI_Wtime();
    int rank, size, rc = MPI_Comm_rank(comm, &rank);
    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_size(comm, &size);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = sm_farm_check(cfg, size);
    if (rc != MPI_SUCCESS)
        return rc; /* the configuration is the same everywhere: every rank returns here */
    struct sm_farm f;
    f.cfg = cfg;
    f.ctx = ctx;
    f.errlen = cfg->max_result_bytes + (int)sizeof(int);
    f.tstride = sm_farm_stride(cfg->max_task_bytes);
    f.rstride = sm_farm_stride(f.errlen);
    rc = sctpmpi_farm_tag_space(comm, &f.stoptag);
    if (rc != MPI_SUCCESS)
        return rc;
    if (cfg->tag_space != 0) {
        if (cfg->tag_space < cfg->k || cfg->tag_space > f.stoptag)
            return MPI_ERR_ARG; /* a worker needs k distinct tags in flight */
        f.stoptag = cfg->tag_space;
    }
    if (f.stoptag < cfg->k)
        return MPI_ERR_ARG;
    if (cfg->allow_overtaking) {
        MPI_Info info;
        rc = MPI_Info_create(&info);
        if (rc != MPI_SUCCESS)
            return rc;
        rc = MPI_Info_set(info, "mpi_assert_allow_overtaking", "true");
        if (rc == MPI_SUCCESS)
            rc = MPI_Comm_dup_with_info(comm, info, &f.comm);
        MPI_Info_free(&info);
    } else {
        rc = MPI_Comm_dup(comm, &f.comm);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (size == 1)
        rc = sm_mgr_serial(&f, ntasks, task_fn, work_fn, result_fn, st);
    else if (rank == cfg->manager)
        rc = sm_mgr_run(&f, size, ntasks, task_fn, result_fn, st);
    else
        rc = sm_worker_run(&f, work_fn, st);
    int frc = MPI_Comm_free(&f.comm);
    st->seconds = MPI_Wtime() - t0;
    return rc != MPI_SUCCESS ? rc : frc;
}
