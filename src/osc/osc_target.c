/* osc_target.c — the target side of one-sided communication: the MPI messages that travel as
 * RDMAP Sends (accumulates, fetching accumulates, compare-and-swap, flush, lock, unlock, PSCW
 * post/complete, and the replies an origin receives), handled in message order with the
 * channel lock held, which makes every accumulate element-wise atomic with respect to every
 * other one.  Also the window lock queue and the wire codes of predefined types and ops. */
#include <stdlib.h>
#include <string.h>

#include "osc/osc.h"

/* ---- wire codes of predefined ops and types (handles are addresses, which differ between
 * processes) ---------------------------------------------------------------------------- */
static MPI_Op op_table(int i)
{
    static MPI_Op t[14];
    if (!t[0]) {
        MPI_Op v[14] = { MPI_MAX,    MPI_MIN,    MPI_SUM,     MPI_PROD, MPI_LAND,
                         MPI_BAND,   MPI_LOR,    MPI_BOR,     MPI_LXOR, MPI_BXOR,
                         MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP };
        memcpy(t, v, sizeof t);
    }
    return (i >= 0 && i < 14) ? t[i] : NULL;
}

int sm_osc_op_code(MPI_Op op)
{
    for (int i = 0; i < 14; i++)
        if (op_table(i) == op)
            return i;
    return -1;
}

MPI_Op sm_osc_op_of(int code)
{
    return op_table(code);
}

#define DT_ENTRY(name, id) name,
static MPI_Datatype dt_table[] = { SCTPMPI_DT_LIST(DT_ENTRY) SCTPMPI_DT_LIST_MPI3(DT_ENTRY) };
#undef DT_ENTRY
#define NDT ((int)(sizeof dt_table / sizeof dt_table[0]))

int sm_osc_dt_code(MPI_Datatype dt)
{
    for (int i = 0; i < NDT; i++)
        if (dt_table[i] == dt)
            return i;
    return -1;
}

MPI_Datatype sm_osc_dt_of(int code)
{
    return (code >= 0 && code < NDT) ? dt_table[code] : NULL;
}

/* ---- applying blocks --------------------------------------------------------------------- */
static uint8_t *resolve(struct sctpmpi_win *w, uint64_t disp, uint64_t len)
{
    if (w->flavor == MPI_WIN_FLAVOR_DYNAMIC) {
        /* [disp, disp + len) must be covered by attached regions (adjacent ones may be
         * spanned) */
        uint64_t at = disp, end = disp + len;
        if (end < disp)
            return NULL;
        do {
            struct osc_region *r = w->regions;
            for (; r; r = r->next)
                if (at >= r->base && at - r->base < r->len)
                    break;
            if (!r)
                return len == 0 && at == disp && w->regions ? (uint8_t *)(uintptr_t)disp : NULL;
            at = r->base + r->len;
        } while (at < end);
        return (uint8_t *)(uintptr_t)disp;
    }
    if (disp > (uint64_t)w->wsize || len > (uint64_t)w->wsize - disp)
        return NULL;
    return (uint8_t *)w->base + disp;
}

static void apply_one(MPI_Op op, MPI_Datatype dt, const uint8_t *src, uint8_t *dst, size_t len)
{
    if (op == MPI_REPLACE) {
        memcpy(dst, src, len);
        return;
    }
    if (op == MPI_NO_OP || !len)
        return;
    size_t es = (size_t)dt->extent;
    if (!es)
        return;
    int n = (int)(len / es);
    if ((uintptr_t)dst % 16 == 0 && (uintptr_t)src % 16 == 0) {
        sm_op_apply(op, src, dst, n, dt);
        return;
    }
    /* the program's window offsets need not be aligned for the element type */
    uint8_t *a = sm_xmalloc(len), *b = sm_xmalloc(len);
    memcpy(a, src, len);
    memcpy(b, dst, len);
    sm_op_apply(op, a, b, n, dt);
    memcpy(dst, b, len);
    free(a);
    free(b);
}

int sm_osc_apply(struct sctpmpi_win *w, int opc, int dtc, const struct osc_blk *b, uint32_t nblk,
                 const uint8_t *data, uint8_t *out)
{
    MPI_Op op = sm_osc_op_of(opc);
    MPI_Datatype dt = sm_osc_dt_of(dtc);
    if (!op || !dt)
        return MPI_ERR_OP;
    /* check every block first: a bad one changes nothing */
    for (uint32_t i = 0; i < nblk; i++)
        if (!resolve(w, b[i].disp, b[i].len))
            return MPI_ERR_RMA_RANGE;
    size_t pos = 0;
    for (uint32_t i = 0; i < nblk; i++) {
        uint8_t *addr = resolve(w, b[i].disp, b[i].len);
        if (out)
            memcpy(out + pos, addr, b[i].len);
        if (data)
            apply_one(op, dt, data + pos, addr, b[i].len);
        pos += b[i].len;
    }
    return MPI_SUCCESS;
}

/* ---- the window lock --------------------------------------------------------------------- */
static void grant(struct sctpmpi_win *w, int origin)
{
    if (origin == w->rank) {
        w->t[origin].granted = 1;
        return;
    }
    struct osc_msg h = { 0 };
    h.type = OSC_M_LOCK_GRANT;
    h.win = w->peers[origin].id;
    h.origin = w->rank;
    sm_osc_send(w->peers[origin].world, &h, NULL, 0, NULL, 0);
}

static int compatible(struct sctpmpi_win *w, int type)
{
    if (w->excl_holder >= 0)
        return 0;
    return type == MPI_LOCK_SHARED || w->shared_count == 0;
}

void sm_osc_lock_request(struct sctpmpi_win *w, int origin, int type)
{
    if (w->nwait == 0 && compatible(w, type)) {
        if (type == MPI_LOCK_EXCLUSIVE)
            w->excl_holder = origin;
        else
            w->shared_count++;
        grant(w, origin);
        return;
    }
    if (w->nwait == w->capwait) {
        w->capwait = w->capwait ? 2 * w->capwait : 8;
        w->waitq = realloc(w->waitq, (size_t)w->capwait * sizeof *w->waitq);
        if (!w->waitq)
            sm_die("out of memory");
    }
    w->waitq[w->nwait++] = (struct osc_lockwait){ origin, type };
}

void sm_osc_lock_release(struct sctpmpi_win *w, int origin)
{
    if (w->excl_holder == origin)
        w->excl_holder = -1;
    else if (w->shared_count > 0)
        w->shared_count--;
    while (w->nwait > 0 && compatible(w, w->waitq[0].type)) {
        struct osc_lockwait q = w->waitq[0];
        memmove(w->waitq, w->waitq + 1, (size_t)(w->nwait - 1) * sizeof *w->waitq);
        w->nwait--;
        if (q.type == MPI_LOCK_EXCLUSIVE)
            w->excl_holder = q.origin;
        else
            w->shared_count++;
        grant(w, q.origin);
    }
}

/* ---- messages ---------------------------------------------------------------------------- */
static void reply(struct sctpmpi_win *w, int peer, int origin, int type, uint64_t tag,
                  uint64_t off, const void *data, size_t len)
{
    struct osc_msg h = { 0 };
    h.type = (uint8_t)type;
    h.win = w->peers[origin].id;
    h.origin = w->rank;
    h.tag = tag;
    h.off = off;
    h.len = len;
    sm_osc_send(peer, &h, NULL, 0, data, len);
}

void sm_osc_handle(int peer, const uint8_t *m, size_t len)
{
    struct osc_msg h;
    if (len < sizeof h)
        return;
    memcpy(&h, m, sizeof h);
    if (h.type == OSC_M_GACC_REPLY) {
        struct osc_op *op = (struct osc_op *)(uintptr_t)h.tag;
        if (!op || h.len > len - sizeof h || h.off > op->tmp_len || h.len > op->tmp_len - h.off)
            return;
        memcpy(op->tmp + h.off, m + sizeof h, h.len);
        op->outstanding--;
        return;
    }
    if (h.type == OSC_M_NOP)
        return;
    struct sctpmpi_win *w = sm_osc_win_by_id(h.win);
    if (!w || h.origin < 0 || h.origin >= w->size) {
        SM_WARN("one-sided message type %d for unknown window %u from rank %d dropped", h.type,
                h.win, peer);
        return;
    }
    size_t blen = (size_t)h.nblk * sizeof(struct osc_blk);
    if (h.nblk > OSC_BUFSZ || blen > len - sizeof h || h.len > len - sizeof h - blen)
        return;
    struct osc_blk *blk = NULL;
    if (h.nblk) {
        blk = sm_xmalloc(blen);
        memcpy(blk, m + sizeof h, blen);
    }
    const uint8_t *data = m + sizeof h + blen;
    int o = h.origin;
    switch (h.type) {
    case OSC_M_ACC:
        if (sm_osc_apply(w, h.op, h.dtype, blk, h.nblk, data, NULL) != MPI_SUCCESS)
            SM_WARN("one-sided accumulate from rank %d outside the window: ignored", o);
        break;
    case OSC_M_GACC: {
        size_t tot = 0;
        for (uint32_t i = 0; i < h.nblk; i++)
            tot += blk[i].len;
        uint8_t *out = sm_xcalloc(1, tot ? tot : 1);
        int with_data = h.len > 0;
        if (sm_osc_apply(w, h.op, h.dtype, blk, h.nblk, with_data ? data : NULL, out) !=
            MPI_SUCCESS)
            SM_WARN("one-sided get-accumulate from rank %d outside the window", o);
        reply(w, peer, o, OSC_M_GACC_REPLY, h.tag, h.off, out, tot);
        free(out);
        break;
    }
    case OSC_M_CAS: {
        uint64_t es = h.nblk == 1 ? blk[0].len : 0;
        uint8_t old[64] = { 0 };
        uint8_t *addr = es && es <= 32 && h.len == 2 * es ? resolve(w, blk[0].disp, es) : NULL;
        if (addr) {
            memcpy(old, addr, es);
            if (memcmp(old, data + es, es) == 0)
                memcpy(addr, data, es);
        }
        reply(w, peer, o, OSC_M_GACC_REPLY, h.tag, 0, old, es);
        break;
    }
    case OSC_M_FLUSH: reply(w, peer, o, OSC_M_FLUSH_ACK, 0, 0, NULL, 0); break;
    case OSC_M_FLUSH_ACK:
    case OSC_M_UNLOCK_ACK: w->t[o].acks++; break;
    case OSC_M_LOCK:
        sm_osc_lock_request(w, o, h.flags == 1 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED);
        break;
    case OSC_M_LOCK_GRANT: w->t[o].granted = 1; break;
    case OSC_M_UNLOCK:
        sm_osc_lock_release(w, o);
        reply(w, peer, o, OSC_M_UNLOCK_ACK, 0, 0, NULL, 0);
        break;
    case OSC_M_POST: w->t[o].posts++; break;
    case OSC_M_COMPLETE: w->completes++; break;
    default: SM_WARN("unknown one-sided message type %d from rank %d dropped", h.type, peer);
    }
    free(blk);
}
