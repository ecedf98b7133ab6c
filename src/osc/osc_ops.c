/* osc_ops.c — the origin side of every RMA operation: argument and epoch checks, flattening the
 * target datatype into byte blocks of the target's window, then
 *   - Put to a window with registered memory: one RDMA Write per target block from a packed
 *     staging copy of the origin data;
 *   - Get from such a window: one RDMA Read per target block into a registered packed buffer,
 *     unpacked into the origin buffer when the operation completes;
 *   - Accumulate, Get_accumulate, Fetch_and_op, Compare_and_swap, and Put/Get on dynamic
 *     windows: RDMAP Sends (osc_target.c applies them), cut into chunks that fit a receive
 *     buffer at element boundaries; fetched data comes back in GACC_REPLY messages;
 *   - the own rank: applied at once under the channel lock.
 * Also the completion of pending operations and flush. */
#include <stdlib.h>
#include <string.h>

#include "osc/osc.h"

/* count elements of dt at byte displacement base as byte blocks (adjacent ones merged) */
static struct osc_blk *flatten(MPI_Datatype dt, int count, int64_t base, uint32_t *nout, int *neg)
{
    MPI_Aint off;
    *neg = 0;
    if (count == 0 || sm_dt_psize(dt) == 0) {
        *nout = 0;
        return NULL;
    }
    if (sm_dt_contig(dt, count, &off)) {
        struct osc_blk *b = sm_xmalloc(sizeof *b);
        int64_t d = base + off;
        *neg = d < 0;
        b->disp = (uint64_t)d;
        b->len = sm_dt_psize(dt) * (size_t)count;
        *nout = 1;
        return b;
    }
    size_t cap = (size_t)count * dt->nblocks, n = 0;
    struct osc_blk *b = sm_xmalloc(cap * sizeof *b);
    for (int i = 0; i < count; i++)
        for (size_t k = 0; k < dt->nblocks; k++) {
            int64_t d = base + (int64_t)i * dt->extent + dt->blocks[k].disp;
            if (d < 0)
                *neg = 1;
            if (!dt->blocks[k].len)
                continue;
            if (n && b[n - 1].disp + b[n - 1].len == (uint64_t)d) {
                b[n - 1].len += dt->blocks[k].len;
                continue;
            }
            b[n].disp = (uint64_t)d;
            b[n].len = dt->blocks[k].len;
            n++;
        }
    *nout = (uint32_t)n;
    return b;
}

static int in_epoch(struct sctpmpi_win *w, int target)
{
    return w->fence_open || w->lock_all || w->t[target].lock_type ||
           (w->pscw_access && w->t[target].in_access);
}

static struct osc_op *op_new(struct sctpmpi_win *w, int target, size_t len, void *ubuf,
                             int ucount, MPI_Datatype udt)
{
    struct osc_op *op = sm_xcalloc(1, sizeof *op);
    op->target = target;
    op->tmp = sm_xcalloc(1, len ? len : 1);
    op->tmp_len = len;
    op->ubuf = ubuf;
    op->ucount = ucount;
    op->udt = udt;
    if (udt)
        sm_dt_retain(udt);
    op->next = w->ops;
    w->ops = op;
    return op;
}

/* the result goes to the program's buffer; the record stays if a request owns it */
static void op_finish(struct osc_op *op)
{
    if (!op->failed && op->ubuf && op->udt && !op->direct)
        sm_dt_unpack(op->tmp, op->tmp_len, op->ubuf, op->ucount, op->udt);
    if (op->tmp_stag)
        sm_rdma_dereg(sm_osc_pd, op->tmp_stag);
    if (op->udt)
        sm_dt_release(op->udt);
    if (!op->direct)
        free(op->tmp);
    op->tmp = NULL;
    op->settled = 1;
    if (!op->req)
        free(op);
}

/* ---- Rget / Rget_accumulate requests: a waiter polled from progress --------------------- */
struct osc_rreq {
    struct sm_waiter w; /* first: the waiter is the object */
    struct sctpmpi_win *win;
    struct osc_op *op;
};

static int rreq_poll(struct sm_waiter *w)
{
    struct osc_rreq *x = (struct osc_rreq *)w;
    sm_rma_chan_lock();
    int done = x->op->settled || x->op->outstanding <= 0 ||
               sm_osc_peer_failed(x->win->peers[x->op->target].world);
    sm_rma_chan_unlock();
    return done;
}

static void rreq_done(struct sm_waiter *w)
{
    struct osc_rreq *x = (struct osc_rreq *)w;
    struct osc_op *op = x->op;
    sm_rma_chan_lock();
    if (!op->settled) {
        /* still on the window's list (no flush or unlock took it): take it off */
        for (struct osc_op **p = &x->win->ops; *p; p = &(*p)->next)
            if (*p == op) {
                *p = op->next;
                break;
            }
        if (op->outstanding > 0)
            op->failed = 1; /* the peer failed */
        op_finish(op);
    }
    struct sctpmpi_request *r = op->req;
    r->base.status.MPI_ERROR = op->failed ? MPI_ERR_PROC_FAILED : MPI_SUCCESS;
    free(op);
    sm_rma_chan_unlock();
    free(x);
    sm_req_complete(&r->base); /* releases it if MPI_Request_free was called */
}

/* a request completed by progress once op's answers are in */
static void rreq_start(struct sctpmpi_win *w, struct osc_op *op, MPI_Request *req)
{
    struct sctpmpi_request *r = sm_request_alloc(SM_REQ_DONE);
    sm_status_empty(&r->base.status);
    r->base.comm = w->comm;
    struct osc_rreq *x = sm_xcalloc(1, sizeof *x);
    x->win = w;
    x->op = op;
    x->w.poll = rreq_poll;
    x->w.done = rreq_done;
    sm_rma_chan_lock();
    op->req = r;
    sm_rma_chan_unlock();
    *req = r;
    if (rreq_poll(&x->w))
        rreq_done(&x->w);
    else
        sm_waiter_add(&x->w);
}

/* channel lock held */
static int ops_pending(struct sctpmpi_win *w, int target)
{
    for (struct osc_op *op = w->ops; op; op = op->next)
        if ((target < 0 || op->target == target) && op->outstanding > 0) {
            if (sm_osc_peer_failed(w->peers[op->target].world)) {
                op->failed = 1;
                op->outstanding = 0;
                continue;
            }
            return 1;
        }
    return 0;
}

/* channel lock held */
static int complete_ops_locked(struct sctpmpi_win *w, int target)
{
    int spins = 0, err = MPI_SUCCESS;
    while (ops_pending(w, target))
        sm_osc_step(&spins);
    for (struct osc_op **p = &w->ops; *p;) {
        struct osc_op *op = *p;
        if (target >= 0 && op->target != target) {
            p = &op->next;
            continue;
        }
        *p = op->next;
        if (op->failed)
            err = MPI_ERR_PROC_FAILED;
        op_finish(op);
    }
    return err;
}

int sm_osc_complete_ops(struct sctpmpi_win *w, int target)
{
    sm_rma_chan_lock();
    int rc = complete_ops_locked(w, target);
    sm_rma_chan_unlock();
    return rc;
}

int sm_osc_flush(struct sctpmpi_win *w, int target, int only_dirty)
{
    int err = MPI_SUCCESS, spins = 0;
    sm_rma_chan_lock();
    for (int r = 0; r < w->size; r++) {
        if (target >= 0 && r != target)
            continue;
        if (r == w->rank || (only_dirty && !w->t[r].dirty))
            continue;
        if (w->t[r].dirty && w->t[r].fetch_last)
            continue; /* the pending answer proves it */
        struct osc_msg h = { 0 };
        h.type = OSC_M_FLUSH;
        h.win = w->peers[r].id;
        h.origin = w->rank;
        w->t[r].acks_wanted++;
        if (sm_osc_send(w->peers[r].world, &h, NULL, 0, NULL, 0) != MPI_SUCCESS)
            err = MPI_ERR_PROC_FAILED;
    }
    for (int r = 0; r < w->size; r++) {
        if (target >= 0 && r != target)
            continue;
        while (w->t[r].acks < w->t[r].acks_wanted) {
            if (sm_osc_peer_failed(w->peers[r].world)) {
                err = MPI_ERR_PROC_FAILED;
                w->t[r].acks = w->t[r].acks_wanted;
                break;
            }
            sm_osc_step(&spins);
        }
        w->t[r].dirty = 0;
    }
    int rc = complete_ops_locked(w, target);
    sm_rma_chan_unlock();
    return err != MPI_SUCCESS ? err : rc;
}

/* Send blocks + data as messages of type mtype, cut to fit a receive buffer at multiples of es
 * bytes.  data NULL: no data travels (the target replies with the blocks' contents).  Returns
 * the number of messages (each answered once when op is set). */
static int send_chunks(struct sctpmpi_win *w, int target, int mtype, int opc, int dtc,
                       const struct osc_blk *b, uint32_t nb, const uint8_t *data, size_t es,
                       struct osc_op *op, int *nmsg)
{
    const size_t room = OSC_BUFSZ - sizeof(struct osc_msg);
    struct osc_blk *cb = sm_xmalloc(room);
    uint32_t k = 0;
    size_t d = 0, pos = 0, start = 0;
    int err = MPI_SUCCESS;
    *nmsg = 0;
    uint32_t i = 0;
    uint64_t done_in_block = 0;
    if (es == 0)
        es = 1;
    while (i < nb || k > 0) {
        size_t avail = room >= (k + 1) * sizeof *cb + d ? room - (k + 1) * sizeof *cb - d : 0;
        avail -= avail % es;
        if (i < nb && avail > 0) {
            uint64_t left = b[i].len - done_in_block;
            uint64_t take = left < avail ? left : avail;
            cb[k].disp = b[i].disp + done_in_block;
            cb[k].len = take;
            k++;
            d += take;
            pos += take;
            done_in_block += take;
            if (done_in_block == b[i].len) {
                i++;
                done_in_block = 0;
            }
            if (i < nb)
                continue;
        }
        struct osc_msg h = { 0 };
        h.type = (uint8_t)mtype;
        h.op = (uint8_t)opc;
        h.dtype = (uint8_t)dtc;
        h.win = w->peers[target].id;
        h.origin = w->rank;
        h.nblk = k;
        h.tag = (uint64_t)(uintptr_t)op;
        h.off = start;
        h.len = data ? d : 0;
        if (op)
            op->outstanding++;
        int rc = sm_osc_send(w->peers[target].world, &h, cb, k * sizeof *cb,
                             data ? data + start : NULL, data ? d : 0);
        if (rc != MPI_SUCCESS) {
            err = rc;
            if (op) {
                op->outstanding--;
                op->failed = 1;
            }
        }
        (*nmsg)++;
        start = pos;
        k = 0;
        d = 0;
    }
    free(cb);
    return err;
}

static void done_request(MPI_Request *req)
{
    if (!req)
        return;
    struct sctpmpi_request *r = sm_request_alloc(SM_REQ_DONE);
    sm_status_empty(&r->base.status);
    r->base.complete = 1;
    *req = r;
}

int sm_osc_rma(MPI_Win win, int kind, const void *oaddr, int ocount, MPI_Datatype odt,
               void *raddr, int rcount, MPI_Datatype rdt, const void *caddr, int target,
               MPI_Aint tdisp, int tcount, MPI_Datatype tdt, MPI_Op op, MPI_Request *req,
               const char *fn)
{
    SM_TRY(sm_osc_check_win(win, fn));
    struct sctpmpi_win *w = win;
    if (req)
        *req = MPI_REQUEST_NULL;
    if (target == MPI_PROC_NULL) {
        done_request(req);
        return MPI_SUCCESS;
    }
    if (target < 0 || target >= w->size)
        return sm_osc_error(win, MPI_ERR_RANK, fn, "target rank %d of %d", target, w->size);
    /* origin data travels (Get: the origin buffer receives; NO_OP: it is not read) */
    int has_origin =
        kind != OSC_GET && !((kind == OSC_GACC || kind == OSC_FOP) && op == MPI_NO_OP);
    if (((has_origin || kind == OSC_GET) && ocount < 0) || tcount < 0 ||
        (kind == OSC_GACC && rcount < 0))
        return sm_osc_error(win, MPI_ERR_COUNT, fn, "negative count");
    if ((has_origin || kind == OSC_GET) && (!odt || !odt->valid))
        return sm_osc_error(win, MPI_ERR_TYPE, fn, "invalid origin datatype");
    if (!tdt || !tdt->valid || (!tdt->basic && !tdt->committed))
        return sm_osc_error(win, MPI_ERR_TYPE, fn, "invalid target datatype");
    if ((has_origin || kind == OSC_GET) && !odt->basic && !odt->committed)
        return sm_osc_error(win, MPI_ERR_TYPE, fn, "origin datatype not committed");
    if ((kind == OSC_GACC || kind == OSC_FOP || kind == OSC_CAS) &&
        (!rdt || !rdt->valid || (!rdt->basic && !rdt->committed)))
        return sm_osc_error(win, MPI_ERR_TYPE, fn, "invalid result datatype");
    if (!in_epoch(w, target))
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "no access epoch to rank %d is open",
                            target);
    size_t tbytes = sm_dt_psize(tdt) * (size_t)tcount;
    size_t obytes = (has_origin || kind == OSC_GET) ? sm_dt_psize(odt) * (size_t)ocount : 0;
    if (tbytes == 0 && obytes == 0 && kind != OSC_CAS && kind != OSC_FOP) {
        done_request(req); /* nothing moves (zero counts or zero-size types) */
        return MPI_SUCCESS;
    }
    if ((kind == OSC_GET || has_origin) && obytes != tbytes)
        return sm_osc_error(win, MPI_ERR_TYPE, fn,
                            "origin (%zu bytes) and target (%zu bytes) do not match", obytes,
                            tbytes);
    if (kind == OSC_GACC && sm_dt_psize(rdt) * (size_t)rcount != tbytes)
        return sm_osc_error(win, MPI_ERR_TYPE, fn, "result and target sizes do not match");
    /* the element type and op code of messages */
    int opc = sm_osc_op_code(kind == OSC_PUT ? MPI_REPLACE : kind == OSC_GET ? MPI_NO_OP : op);
    if (kind == OSC_ACC || kind == OSC_GACC || kind == OSC_FOP) {
        if (!op || !op->valid || opc < 0)
            return sm_osc_error(win, MPI_ERR_OP, fn, "one-sided operations take predefined ops");
    }
    /* Put/Get move bytes; REPLACE/NO_OP on a type of mixed elements too */
    MPI_Datatype leaf = sm_op_leaf_type(tdt);
    if (kind == OSC_PUT || kind == OSC_GET || ((op == MPI_REPLACE || op == MPI_NO_OP) && !leaf))
        leaf = MPI_BYTE;
    int dtc = leaf ? sm_osc_dt_code(leaf) : -1;
    if (dtc < 0)
        return sm_osc_error(win, MPI_ERR_TYPE, fn,
                            "target datatype is not built of one predefined type");
    if ((kind == OSC_ACC || kind == OSC_GACC || kind == OSC_FOP) && op != MPI_REPLACE &&
        op != MPI_NO_OP) {
        int rc = sm_op_check(w->comm, op, leaf, fn);
        if (rc != MPI_SUCCESS)
            return sm_osc_error(win, rc, fn, "%s does not apply to this datatype", op->name);
        if (has_origin && sm_op_leaf_type(odt) != leaf)
            return sm_osc_error(win, MPI_ERR_TYPE, fn, "origin and target element types differ");
    }
    if (kind == OSC_CAS) {
        if (!tdt->basic || (size_t)tdt->extent > 32 || tdt->extent <= 0)
            return sm_osc_error(win, MPI_ERR_TYPE, fn,
                                "compare-and-swap needs a predefined type");
        tbytes = (size_t)tdt->extent;
    }
    int dyn = w->flavor == MPI_WIN_FLAVOR_DYNAMIC;
    int rdma_ok = !dyn; /* Writes/Reads go straight to the registered memory */
    struct osc_rinfo *ti = &w->peers[target];
    int64_t base = dyn ? (int64_t)tdisp : (int64_t)tdisp * ti->disp_unit;
    uint32_t nb = 0;
    int neg = 0;
    struct osc_blk *b = flatten(tdt, kind == OSC_CAS ? 1 : tcount, base, &nb, &neg);
    if (!dyn) {
        for (uint32_t i = 0; i < nb && !neg; i++)
            if (b[i].disp > ti->size || b[i].len > ti->size - b[i].disp)
                neg = 1;
        if (neg) {
            free(b);
            return sm_osc_error(win, MPI_ERR_RMA_RANGE, fn,
                                "target displacement %zd outside rank %d's window of %llu bytes",
                                (ssize_t)tdisp, target, (unsigned long long)ti->size);
        }
    } else if (neg) {
        free(b);
        return sm_osc_error(win, MPI_ERR_RMA_RANGE, fn, "negative address");
    }
    if (nb > OSC_MANY_BLOCKS && tbytes / nb < OSC_SMALL_BLOCK)
        rdma_ok = 0; /* many small blocks: their list travels in messages */
    /* the origin data, packed (or, for a contiguous Put, the origin buffer itself) */
    uint8_t *odata = NULL, *borrowed = NULL;
    if (kind == OSC_CAS) {
        odata = sm_xmalloc(2 * tbytes);
        memcpy(odata, oaddr, tbytes);
        memcpy(odata + tbytes, caddr, tbytes);
    } else if (has_origin && obytes) {
        MPI_Aint ooff;
        if (kind == OSC_PUT && rdma_ok && target != w->rank && sm_dt_contig(odt, ocount, &ooff)) {
            borrowed = (uint8_t *)oaddr + ooff; /* written from where it is: no copy */
        } else {
            odata = sm_xmalloc(obytes);
            sm_dt_pack(oaddr, ocount, odt, odata);
        }
    }
    int err = MPI_SUCCESS;
    struct osc_op *fetch_op = NULL; /* the record whose answers a request waits for */
    size_t es = (size_t)leaf->extent;
    sm_rma_chan_lock();
    w->t[target].dirty = 1;
    /* only a handler's answer proves the messages before it applied: an RDMA Read is answered
     * by the layer at delivery, possibly before an accumulate delivered just ahead of it has
     * been handled */
    w->t[target].fetch_last =
        kind == OSC_GACC || kind == OSC_FOP || kind == OSC_CAS || (kind == OSC_GET && !rdma_ok);
    if (target == w->rank) {
        /* own memory: applied here */
        uint8_t *out = NULL;
        if (kind == OSC_GET || kind == OSC_GACC || kind == OSC_FOP || kind == OSC_CAS)
            out = sm_xcalloc(1, tbytes ? tbytes : 1);
        if (kind == OSC_CAS) {
            err = sm_osc_apply(w, sm_osc_op_code(MPI_NO_OP), dtc, b, nb, NULL, out);
            if (err == MPI_SUCCESS && memcmp(out, odata + tbytes, tbytes) == 0)
                err = sm_osc_apply(w, sm_osc_op_code(MPI_REPLACE), dtc, b, nb, odata, NULL);
        } else {
            err = sm_osc_apply(w, opc, dtc, b, nb, odata, out);
        }
        if (out && err == MPI_SUCCESS) {
            if (kind == OSC_GET)
                sm_dt_unpack(out, tbytes, (void *)oaddr, ocount, odt);
            else if (kind == OSC_GACC)
                sm_dt_unpack(out, tbytes, raddr, rcount, rdt);
            else
                sm_dt_unpack(out, tbytes, raddr, 1, rdt);
        }
        free(out);
    } else if (kind == OSC_PUT && rdma_ok) {
        struct osc_stage *s =
            borrowed ? sm_osc_stage_new(borrowed, obytes, 1) : sm_osc_stage_new(odata, obytes, 0);
        odata = NULL; /* the stage owns it now */
        size_t pos = 0;
        for (uint32_t i = 0; i < nb && err == MPI_SUCCESS; i++) {
            err = sm_osc_write(ti->world, s, pos, b[i].len, ti->stag, b[i].disp);
            pos += b[i].len;
        }
        sm_osc_stage_done(s);
    } else if (kind == OSC_GET && rdma_ok) {
        struct osc_op *o = op_new(w, target, tbytes, (void *)oaddr, ocount, odt);
        fetch_op = o;
        MPI_Aint ooff;
        if (tbytes && sm_dt_contig(odt, ocount, &ooff)) { /* the segments land in place */
            free(o->tmp);
            o->tmp = (uint8_t *)oaddr + ooff;
            o->direct = 1;
        }
        if (sm_rdma_reg(sm_osc_pd, o->tmp, tbytes ? tbytes : 1, SM_RDMA_LOCAL_WRITE,
                        &o->tmp_stag) != 0) {
            o->failed = 1;
            err = MPI_ERR_NO_MEM;
        }
        size_t pos = 0;
        for (uint32_t i = 0; i < nb && err == MPI_SUCCESS; i++) {
            err = sm_osc_read(ti->world, o, pos, b[i].len, ti->stag, b[i].disp);
            pos += b[i].len;
        }
    } else {
        int nmsg = 0;
        struct osc_op *o = NULL;
        int mtype = OSC_M_ACC;
        if (kind == OSC_GET) {
            o = op_new(w, target, tbytes, (void *)oaddr, ocount, odt);
            mtype = OSC_M_GACC;
        } else if (kind == OSC_GACC) {
            o = op_new(w, target, tbytes, raddr, rcount, rdt);
            mtype = OSC_M_GACC;
        } else if (kind == OSC_FOP) {
            o = op_new(w, target, tbytes, raddr, 1, rdt);
            mtype = OSC_M_GACC;
        }
        if (kind == OSC_CAS) {
            o = op_new(w, target, tbytes, raddr, 1, rdt);
            struct osc_msg h = { 0 };
            h.type = OSC_M_CAS;
            h.dtype = (uint8_t)dtc;
            h.win = ti->id;
            h.origin = w->rank;
            h.nblk = 1;
            h.tag = (uint64_t)(uintptr_t)o;
            h.len = 2 * tbytes;
            struct osc_blk one = { b[0].disp, tbytes };
            o->outstanding++;
            err = sm_osc_send(ti->world, &h, &one, sizeof one, odata, 2 * tbytes);
            if (err != MPI_SUCCESS) {
                o->outstanding--;
                o->failed = 1;
            }
        } else {
            err = send_chunks(w, target, mtype, opc, dtc, b, nb,
                              (kind == OSC_GET || !has_origin) ? NULL : odata, es, o, &nmsg);
        }
        fetch_op = o;
    }
    sm_rma_chan_unlock();
    free(odata);
    free(b);
    if (err != MPI_SUCCESS)
        return sm_osc_error(win, err, fn, "the operation to rank %d failed", target);
    if (req) {
        /* Rput / Raccumulate are complete locally (the data was copied); Rget /
         * Rget_accumulate complete when their answers are in */
        if (fetch_op)
            rreq_start(w, fetch_op, req);
        else
            done_request(req);
    }
    return MPI_SUCCESS;
}

/* ---- the MPI calls ----------------------------------------------------------------------- */
int PMPI_Put(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
             int target_rank, MPI_Aint target_disp, int target_count,
             MPI_Datatype target_datatype, MPI_Win win)
{
    return sm_osc_rma(win, OSC_PUT, origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                      NULL, target_rank, target_disp, target_count, target_datatype, NULL, NULL,
                      "MPI_Put");
}

int PMPI_Get(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
             MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win)
{
    return sm_osc_rma(win, OSC_GET, origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                      NULL, target_rank, target_disp, target_count, target_datatype, NULL, NULL,
                      "MPI_Get");
}

int PMPI_Accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                    int target_rank, MPI_Aint target_disp, int target_count,
                    MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return sm_osc_rma(win, OSC_ACC, origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                      NULL, target_rank, target_disp, target_count, target_datatype, op, NULL,
                      "MPI_Accumulate");
}

int PMPI_Get_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                        void *result_addr, int result_count, MPI_Datatype result_datatype,
                        int target_rank, MPI_Aint target_disp, int target_count,
                        MPI_Datatype target_datatype, MPI_Op op, MPI_Win win)
{
    return sm_osc_rma(win, OSC_GACC, origin_addr, origin_count, origin_datatype, result_addr,
                      result_count, result_datatype, NULL, target_rank, target_disp, target_count,
                      target_datatype, op, NULL, "MPI_Get_accumulate");
}

int PMPI_Fetch_and_op(const void *origin_addr, void *result_addr, MPI_Datatype datatype,
                      int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win)
{
    return sm_osc_rma(win, OSC_FOP, origin_addr, 1, datatype, result_addr, 1, datatype, NULL,
                      target_rank, target_disp, 1, datatype, op, NULL, "MPI_Fetch_and_op");
}

int PMPI_Compare_and_swap(const void *origin_addr, const void *compare_addr, void *result_addr,
                          MPI_Datatype datatype, int target_rank, MPI_Aint target_disp,
                          MPI_Win win)
{
    return sm_osc_rma(win, OSC_CAS, origin_addr, 1, datatype, result_addr, 1, datatype,
                      compare_addr, target_rank, target_disp, 1, datatype, NULL, NULL,
                      "MPI_Compare_and_swap");
}

int PMPI_Rput(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
              int target_rank, MPI_Aint target_disp, int target_count,
              MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request)
{
    if (!request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Rput", "NULL request");
    return sm_osc_rma(win, OSC_PUT, origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                      NULL, target_rank, target_disp, target_count, target_datatype, NULL,
                      request, "MPI_Rput");
}

int PMPI_Rget(void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank,
              MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win,
              MPI_Request *request)
{
    if (!request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Rget", "NULL request");
    return sm_osc_rma(win, OSC_GET, origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                      NULL, target_rank, target_disp, target_count, target_datatype, NULL,
                      request, "MPI_Rget");
}

int PMPI_Raccumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                     int target_rank, MPI_Aint target_disp, int target_count,
                     MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request)
{
    if (!request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Raccumulate", "NULL request");
    return sm_osc_rma(win, OSC_ACC, origin_addr, origin_count, origin_datatype, NULL, 0, NULL,
                      NULL, target_rank, target_disp, target_count, target_datatype, op, request,
                      "MPI_Raccumulate");
}

int PMPI_Rget_accumulate(const void *origin_addr, int origin_count, MPI_Datatype origin_datatype,
                         void *result_addr, int result_count, MPI_Datatype result_datatype,
                         int target_rank, MPI_Aint target_disp, int target_count,
                         MPI_Datatype target_datatype, MPI_Op op, MPI_Win win,
                         MPI_Request *request)
{
    if (!request)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Rget_accumulate", "NULL request");
    return sm_osc_rma(win, OSC_GACC, origin_addr, origin_count, origin_datatype, result_addr,
                      result_count, result_datatype, NULL, target_rank, target_disp, target_count,
                      target_datatype, op, request, "MPI_Rget_accumulate");
}
