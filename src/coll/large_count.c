/* large_count.c — the large-count ("_c") collectives (blocking, non-blocking and
 * neighbourhood): each calls its int twin.  A count beyond the int range becomes one element
 * of a derived datatype (reductions: with an internal operation applying the real one, see
 * large_count_type.c); the v/w collectives whose counts or displacements do not fit the int
 * arrays run as (I)Alltoallw / (I)Neighbor_alltoallw with one datatype per peer.  The
 * persistent forms (*_init_c) take the same paths, ending in the int *_init functions; the
 * arrays, types and operations built for them stay with the request until it is freed. */
#include <stdlib.h>

#include "api/large_count.h"
#include "util/util.h"

/* the extra argument of the non-blocking forms */
#define LC_RQ_DECL , MPI_Request *req
#define LC_RQ_PASS , req
#define LC_PI_DECL , MPI_Info info, MPI_Request *req
#define LC_PI_PASS , info, req

/* how a v/w collective runs: blocking (a NULL struct how), non-blocking, or persistent (an
 * *_init call: the request is made, not started) */
struct how {
    MPI_Request *req;
    int init;
    MPI_Info info;
};
#define NB(req) (&(struct how){ (req), 0, MPI_INFO_NULL })
#define PI(info, req) (&(struct how){ (req), 1, (info) })
/* what a call built for the int function (see settle below) */
#define KEEP_MEM 8
struct keep {
    const struct sm_preq_ops *ops; /* first: the object of a persistent request */
    void *inner;                   /* the wrapped object (it starts with its operations) */
    void *mem[KEEP_MEM];           /* arrays to free */
    MPI_Datatype *t[2];            /* arrays of built types to free (the arrays are in mem) */
    int tn[2];
    MPI_Datatype dt[2], udt[2]; /* types from sm_lc_arg / sm_lc_red and the user's ones */
    MPI_Op op, uop;             /* the operation from sm_lc_red and the user's one */
};
static int settle(int e, const struct how *h, struct keep *k);

/* the int function B, its non-blocking form I or its persistent form B_init, as h says */
#define LC_RUN(h, B, I, ...)                                                                     \
    (!(h)        ? PMPI_##B(__VA_ARGS__)                                                         \
     : (h)->init ? PMPI_##B##_init(__VA_ARGS__, (h)->info, (h)->req)                             \
                 : PMPI_##I(__VA_ARGS__, (h)->req))

/* (count, dt) of an argument that matters only on some processes: elsewhere it is passed on
 * unchanged when it fits (else as 0) and nothing is built */
static int arg(MPI_Count c, MPI_Datatype dt, int significant, MPI_Datatype *t, int *n,
               MPI_Comm comm, const char *fn)
{
    if (significant)
        return sm_lc_arg(c, dt, t, n, comm, fn);
    *t = dt;
    *n = c >= INT_MIN && c <= INT_MAX ? (int)c : 0;
    return MPI_SUCCESS;
}

static int inter(MPI_Comm comm)
{
    return comm && comm->valid && sm_comm_is_inter(comm);
}

static int am_root(MPI_Comm comm, int root)
{
    if (inter(comm))
        return root == MPI_ROOT;
    int r = -1;
    if (!comm || !comm->valid || PMPI_Comm_rank(comm, &r) != MPI_SUCCESS)
        return 0;
    return r == root;
}

/* does a non-root process's part of a rooted collective count here */
static int leaf(MPI_Comm comm, int root, const void *buf)
{
    if (inter(comm))
        return root >= 0;
    return !(am_root(comm, root) && buf == MPI_IN_PLACE);
}

/* ---- (sbuf, scount, stype, rbuf, rcount, rtype, comm) ------------------------------------ */
#define LC_GATHERLIKE(NAME, DECL, PASS, HOW)                                                     \
    int PMPI_##NAME##_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,             \
                        MPI_Count rc, MPI_Datatype rt, MPI_Comm comm DECL)                       \
    {                                                                                            \
        const char *fn = "MPI_" #NAME "_c";                                                      \
        MPI_Datatype t1, t2;                                                                     \
        int n1, n2;                                                                              \
        SM_TRY(arg(sc, st, sbuf != MPI_IN_PLACE, &t1, &n1, comm, fn));                           \
        int e = arg(rc, rt, 1, &t2, &n2, comm, fn);                                              \
        if (e == MPI_SUCCESS)                                                                    \
            e = PMPI_##NAME(sbuf, n1, t1, rbuf, n2, t2, comm PASS);                              \
        else                                                                                     \
            t2 = rt;                                                                             \
        return settle(e, HOW, &(struct keep){ .dt = { t1, t2 }, .udt = { st, rt } });            \
    }

LC_GATHERLIKE(Allgather, , , NULL)
LC_GATHERLIKE(Alltoall, , , NULL)
LC_GATHERLIKE(Neighbor_allgather, , , NULL)
LC_GATHERLIKE(Neighbor_alltoall, , , NULL)
LC_GATHERLIKE(Iallgather, LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_GATHERLIKE(Ialltoall, LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_GATHERLIKE(Ineighbor_allgather, LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_GATHERLIKE(Ineighbor_alltoall, LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_GATHERLIKE(Allgather_init, LC_PI_DECL, LC_PI_PASS, PI(info, req))
LC_GATHERLIKE(Alltoall_init, LC_PI_DECL, LC_PI_PASS, PI(info, req))
LC_GATHERLIKE(Neighbor_allgather_init, LC_PI_DECL, LC_PI_PASS, PI(info, req))
LC_GATHERLIKE(Neighbor_alltoall_init, LC_PI_DECL, LC_PI_PASS, PI(info, req))

/* ---- rooted: Gather (the receive side counts at the root), Scatter (the send side) ------- */
#define LC_ROOTED(NAME, SSIG, RSIG, DECL, PASS, HOW)                                             \
    int PMPI_##NAME##_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,             \
                        MPI_Count rc, MPI_Datatype rt, int root, MPI_Comm comm DECL)             \
    {                                                                                            \
        const char *fn = "MPI_" #NAME "_c";                                                      \
        MPI_Datatype t1, t2;                                                                     \
        int n1, n2;                                                                              \
        SM_TRY(arg(sc, st, SSIG, &t1, &n1, comm, fn));                                           \
        int e = arg(rc, rt, RSIG, &t2, &n2, comm, fn);                                           \
        if (e == MPI_SUCCESS)                                                                    \
            e = PMPI_##NAME(sbuf, n1, t1, rbuf, n2, t2, root, comm PASS);                        \
        else                                                                                     \
            t2 = rt;                                                                             \
        return settle(e, HOW, &(struct keep){ .dt = { t1, t2 }, .udt = { st, rt } });            \
    }

LC_ROOTED(Gather, leaf(comm, root, sbuf), am_root(comm, root), , , NULL)
LC_ROOTED(Igather, leaf(comm, root, sbuf), am_root(comm, root), LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_ROOTED(Scatter, am_root(comm, root), leaf(comm, root, rbuf), , , NULL)
LC_ROOTED(Iscatter, am_root(comm, root), leaf(comm, root, rbuf), LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_ROOTED(Gather_init, leaf(comm, root, sbuf), am_root(comm, root), LC_PI_DECL, LC_PI_PASS,
          PI(info, req))
LC_ROOTED(Scatter_init, am_root(comm, root), leaf(comm, root, rbuf), LC_PI_DECL, LC_PI_PASS,
          PI(info, req))

#define LC_BCAST(NAME, DECL, PASS, HOW)                                                          \
    int PMPI_##NAME##_c(void *buf, MPI_Count count, MPI_Datatype dt, int root,                   \
                        MPI_Comm comm DECL)                                                      \
    {                                                                                            \
        MPI_Datatype t;                                                                          \
        int n;                                                                                   \
        SM_TRY(arg(count, dt, !inter(comm) || root >= 0 || root == MPI_ROOT, &t, &n, comm,       \
                   "MPI_" #NAME "_c"));                                                          \
        int e = PMPI_##NAME(buf, n, t, root, comm PASS);                                         \
        return settle(e, HOW, &(struct keep){ .dt = { t }, .udt = { dt } });                     \
    }

LC_BCAST(Bcast, , , NULL)
LC_BCAST(Ibcast, LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_BCAST(Bcast_init, LC_PI_DECL, LC_PI_PASS, PI(info, req))

/* would size blocks of count elements add up to more than the int functions count */
static int over_total(MPI_Comm comm, MPI_Count count)
{
    int n = 1;
    if (comm && comm->valid)
        PMPI_Comm_size(comm, &n);
    return count > 0 && count * n > sm_lc_chunk();
}

/* ---- reductions ---------------------------------------------------------------------------- */
#define LC_REDUCE(NAME, FORCE, DECL, PASS, HOW)                                                  \
    int PMPI_##NAME##_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,          \
                        MPI_Op op, MPI_Comm comm DECL)                                           \
    {                                                                                            \
        MPI_Datatype t;                                                                          \
        MPI_Op o;                                                                                \
        int n;                                                                                   \
        SM_TRY(sm_lc_red(count, FORCE, dt, op, &t, &o, &n, comm, "MPI_" #NAME "_c"));            \
        int e = PMPI_##NAME(sbuf, rbuf, n, t, o, comm PASS);                                     \
        return settle(e, HOW, &(struct keep){ .dt = { t }, .udt = { dt }, .op = o, .uop = op }); \
    }

LC_REDUCE(Allreduce, 0, , , NULL)
LC_REDUCE(Scan, 0, , , NULL)
LC_REDUCE(Exscan, 0, , , NULL)
LC_REDUCE(Reduce_scatter_block, over_total(comm, count), , , NULL)
LC_REDUCE(Iallreduce, 0, LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_REDUCE(Iscan, 0, LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_REDUCE(Iexscan, 0, LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_REDUCE(Ireduce_scatter_block, over_total(comm, count), LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_REDUCE(Allreduce_init, 0, LC_PI_DECL, LC_PI_PASS, PI(info, req))
LC_REDUCE(Scan_init, 0, LC_PI_DECL, LC_PI_PASS, PI(info, req))
LC_REDUCE(Exscan_init, 0, LC_PI_DECL, LC_PI_PASS, PI(info, req))
LC_REDUCE(Reduce_scatter_block_init, over_total(comm, count), LC_PI_DECL, LC_PI_PASS,
          PI(info, req))

#define LC_REDUCE_ROOTED(NAME, FORCE, DECL, PASS, HOW)                                           \
    int PMPI_##NAME##_c(const void *sbuf, void *rbuf, MPI_Count count, MPI_Datatype dt,          \
                        MPI_Op op, int root, MPI_Comm comm DECL)                                 \
    {                                                                                            \
        MPI_Datatype t;                                                                          \
        MPI_Op o;                                                                                \
        int n;                                                                                   \
        SM_TRY(sm_lc_red(count, FORCE, dt, op, &t, &o, &n, comm, "MPI_" #NAME "_c"));            \
        int e = PMPI_##NAME(sbuf, rbuf, n, t, o, root, comm PASS);                               \
        return settle(e, HOW, &(struct keep){ .dt = { t }, .udt = { dt }, .op = o, .uop = op }); \
    }

LC_REDUCE_ROOTED(Reduce, 0, , , NULL)
LC_REDUCE_ROOTED(Ireduce, 0, LC_RQ_DECL, LC_RQ_PASS, NULL)
LC_REDUCE_ROOTED(Reduce_init, 0, LC_PI_DECL, LC_PI_PASS, PI(info, req))

/* a user operation with the large-count callback: op.c calls user_c in place of user (which
 * is set only so that the op counts as a user op everywhere; it is never called) */
static void never_called(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)dt;
    sm_die("large-count user operation called through the int callback");
}

int PMPI_Op_create_c(MPI_User_function_c *user_fn, int commute, MPI_Op *op)
{
    if (!user_fn || !op)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Op_create_c", "NULL argument");
    SM_TRY(PMPI_Op_create(never_called, commute, op));
    (*op)->user_c = user_fn;
    return MPI_SUCCESS;
}

int PMPI_Reduce_local_c(const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype dt,
                        MPI_Op op)
{
    const char *fn = "MPI_Reduce_local_c";
    if (count < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "count %lld is negative",
                        (long long)count);
    if (count <= sm_lc_chunk())
        return PMPI_Reduce_local(inbuf, inoutbuf, (int)count, dt, op);
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, dt, fn));
    MPI_Count f = sm_lc_chunk();
    for (MPI_Count off = 0; off < count; off += f) {
        MPI_Count k = count - off < f ? count - off : f;
        SM_TRY(PMPI_Reduce_local((const char *)inbuf + off * dt->extent,
                                 (char *)inoutbuf + off * dt->extent, (int)k, dt, op));
    }
    return MPI_SUCCESS;
}

/* ---- the v/w collectives ------------------------------------------------------------------- */
static int fits(MPI_Count c)
{
    return c >= INT_MIN && c <= INT_MAX;
}

/* do counts c[0..n) (and displacements d[0..n), if given) fit the int function */
static int small(int n, const MPI_Count *c, const MPI_Aint *d)
{
    for (int i = 0; i < n; i++)
        if ((c && !sm_lc_fits(c[i])) || (d && !fits(d[i])))
            return 0;
    return 1;
}

static int *ints(int n, const MPI_Count *c)
{
    int *r = sm_xmalloc(sizeof *r * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        r[i] = c ? (int)c[i] : 0;
    return r;
}

static int *aints_as_ints(int n, const MPI_Aint *d)
{
    int *r = sm_xmalloc(sizeof *r * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        r[i] = d ? (int)d[i] : 0;
    return r;
}

/* the number of peers the arrays of a v/w collective on comm describe (-1: bad comm) */
static int peers(MPI_Comm comm)
{
    int n = -1;
    if (!comm || !comm->valid)
        return -1;
    if (inter(comm))
        PMPI_Comm_remote_size(comm, &n);
    else
        PMPI_Comm_size(comm, &n);
    return n;
}

/* one side of a per-peer exchange: count c[i] elements of t[i] at byte displacement d[i] */
struct side {
    int n;
    MPI_Count *c;
    MPI_Aint *d;
    MPI_Datatype *t;
};

static void side_init(struct side *s, int n)
{
    s->n = n;
    s->c = sm_xcalloc((size_t)(n > 0 ? n : 1), sizeof *s->c);
    s->d = sm_xcalloc((size_t)(n > 0 ? n : 1), sizeof *s->d);
    s->t = sm_xcalloc((size_t)(n > 0 ? n : 1), sizeof *s->t);
    for (int i = 0; i < n; i++)
        s->t[i] = MPI_BYTE;
}

static void side_free(struct side *s)
{
    free(s->c);
    free(s->d);
    free(s->t);
}

/* fill s from (counts, element displacements or byte displacements, one type or many) */
static int side_set(struct side *s, const MPI_Count *c, const MPI_Aint *d, int bytes,
                    MPI_Datatype t1, const MPI_Datatype *tv, MPI_Comm comm, const char *fn)
{
    if (!c || !d || (!tv && !t1))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts, displacements or types");
    for (int i = 0; i < s->n; i++) {
        MPI_Datatype t = tv ? tv[i] : t1;
        if (c[i] < 0)
            return sm_error(comm, MPI_ERR_COUNT, fn, "count %lld is negative", (long long)c[i]);
        if (c[i] == 0)
            continue;
        SM_TRY(sm_check_dt(comm, t, fn));
        s->c[i] = c[i];
        s->t[i] = t;
        s->d[i] = bytes ? d[i] : d[i] * t->extent;
    }
    return MPI_SUCCESS;
}

/* one type per peer: its data as one element at displacement 0 (Alltoallw's int byte
 * displacements cannot hold a large one) or, with aint_disps, the displacement kept apart */
static int build(const struct side *s, int aint_disps, int *cnt, MPI_Aint *disp,
                 MPI_Datatype *types)
{
    for (int i = 0; i < s->n; i++) {
        cnt[i] = 0;
        disp[i] = 0;
        types[i] = MPI_BYTE;
    }
    for (int i = 0; i < s->n; i++) {
        if (!s->c[i])
            continue;
        MPI_Datatype blk;
        SM_TRY(sm_lc_contig(s->c[i], s->t[i], &blk));
        if (aint_disps) {
            types[i] = blk;
            disp[i] = s->d[i];
        } else {
            int one = 1;
            int rc = PMPI_Type_create_struct(1, &one, &s->d[i], &blk, &types[i]);
            PMPI_Type_free(&blk);
            SM_TRY(rc);
            SM_TRY(PMPI_Type_commit(&types[i]));
        }
        cnt[i] = 1;
    }
    return MPI_SUCCESS;
}

static void unbuild(int n, MPI_Datatype *types)
{
    for (int i = 0; i < n; i++)
        if (types[i] != MPI_BYTE)
            PMPI_Type_free(&types[i]);
}

/* ---- what a persistent request made here must keep ---------------------------------------
 * The int persistent collectives keep the arrays of counts, displacements and types they are
 * given (as the standard lets them: the caller's arrays must outlive the request) and use
 * them at every start; the arrays and per-peer types built here are the caller's, so they
 * stay with the request.  The request's object is wrapped: "keep" takes its place as the
 * request's owner object, hands start and free on to the wrapped one, and releases what it
 * holds once the request is freed. */

static void keep_release(struct keep *k)
{
    for (int i = 0; i < 2; i++)
        if (k->t[i])
            unbuild(k->tn[i], k->t[i]);
    for (int i = 0; i < KEEP_MEM; i++)
        free(k->mem[i]);
    sm_lc_red_done(k->dt[0], k->op, k->udt[0], k->uop);
    sm_lc_done(k->dt[1], k->udt[1]);
}

static const struct sm_preq_ops *inner_ops(struct keep *k)
{
    return *(const struct sm_preq_ops *const *)k->inner;
}

static int keep_start(MPI_Request r)
{
    struct keep *k = r->hook_buf;
    r->hook_buf = k->inner;
    int e = inner_ops(k)->start(r);
    r->hook_buf = k;
    return e;
}

static int keep_free(MPI_Request r)
{
    struct keep *k = r->hook_buf;
    r->hook_buf = k->inner;
    int e = inner_ops(k)->free(r); /* releases r on success */
    if (e != MPI_SUCCESS) {
        r->hook_buf = k;
        return e;
    }
    keep_release(k);
    free(k);
    return MPI_SUCCESS;
}

static const struct sm_preq_ops keep_ops = { keep_start, keep_free };

/* the end of a call that passed k's arrays and types to an int function: a persistent request
 * it made keeps them, else they are released now */
static int settle(int e, const struct how *h, struct keep *k)
{
    MPI_Request r = h && h->init && e == MPI_SUCCESS ? *h->req : MPI_REQUEST_NULL;
    if (r == MPI_REQUEST_NULL || !sm_preq_ops_of(r)) {
        keep_release(k);
        return e;
    }
    struct keep *x = sm_xmalloc(sizeof *x);
    *x = *k;
    x->ops = &keep_ops;
    x->inner = r->hook_buf;
    r->hook_buf = x;
    return e;
}

/* the exchange described by (ss, rs) as one (I)Alltoallw or (I)Neighbor_alltoallw */
static int exchange(const void *sbuf, const struct side *ss, void *rbuf, const struct side *rs,
                    MPI_Comm comm, int neighbor, const struct how *h)
{
    int nmax = ss->n > rs->n ? ss->n : rs->n;
    size_t m = (size_t)nmax + 1;
    int *sc = sm_xcalloc(m, sizeof *sc), *rc = sm_xcalloc(m, sizeof *rc);
    MPI_Aint *sd = sm_xcalloc(m, sizeof *sd), *rd = sm_xcalloc(m, sizeof *rd);
    MPI_Datatype *st = sm_xcalloc(m, sizeof *st), *rt = sm_xcalloc(m, sizeof *rt);
    int *zero = sm_xcalloc(m, sizeof *zero);
    struct keep k = { .mem = { sc, rc, sd, rd, st, rt, zero },
                      .t = { st, rt },
                      .tn = { ss->n, rs->n } };
    int e = build(ss, neighbor, sc, sd, st);
    if (e == MPI_SUCCESS)
        e = build(rs, neighbor, rc, rd, rt);
    if (e == MPI_SUCCESS && neighbor)
        e = LC_RUN(h, Neighbor_alltoallw, Ineighbor_alltoallw, sbuf, sc, sd, st, rbuf, rc, rd, rt,
                   comm);
    else if (e == MPI_SUCCESS)
        e = LC_RUN(h, Alltoallw, Ialltoallw, sbuf, sc, zero, st, rbuf, rc, zero, rt, comm);
    return settle(e, h, &k);
}

static int no_large_inter(MPI_Comm comm, const char *fn)
{
    return sm_error(comm, MPI_ERR_COUNT, fn,
                    "counts or displacements beyond the int range are not supported on "
                    "intercommunicators");
}

/* Gatherv / Scatterv: do they run as a per-peer exchange?  Only the root knows whether its
 * arrays fit the int function; the others follow it (a large count of a non-root process alone
 * is one element of a derived type).  The blocking form asks the root; the non-blocking and
 * persistent ones must not wait for it, so on an intracommunicator they always take the
 * exchange. */
static int root_decides(MPI_Comm comm, int root, int me, int np, const MPI_Count *counts,
                        const MPI_Aint *displs, const struct how *h, int *big)
{
    *big = me && !small(np, counts, displs);
    if (!inter(comm) && h)
        *big = 1;
    else if (!inter(comm))
        SM_TRY(PMPI_Bcast(big, 1, MPI_INT, root, comm));
    return MPI_SUCCESS;
}

static int gatherv(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                   const MPI_Count *rcs, const MPI_Aint *displs, MPI_Datatype rt, int root,
                   MPI_Comm comm, const struct how *h, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    int np = peers(comm), me = am_root(comm, root);
    if (me && (!rcs || !displs))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    int big;
    SM_TRY(root_decides(comm, root, me, np, rcs, displs, h, &big));
    if (!big) {
        MPI_Datatype t;
        int n;
        SM_TRY(arg(sc, st, leaf(comm, root, sbuf), &t, &n, comm, fn));
        int *c = ints(me ? np : 0, rcs), *d = aints_as_ints(me ? np : 0, displs);
        int e = LC_RUN(h, Gatherv, Igatherv, sbuf, n, t, rbuf, c, d, rt, root, comm);
        return settle(e, h, &(struct keep){ .mem = { c, d }, .dt = { 0, t }, .udt = { 0, st } });
    }
    if (inter(comm))
        return no_large_inter(comm, fn);
    int rank;
    PMPI_Comm_rank(comm, &rank);
    struct side ss, rs;
    side_init(&ss, np);
    side_init(&rs, np);
    int e = MPI_SUCCESS;
    const void *s = sbuf;
    if (sbuf != MPI_IN_PLACE && sc) {
        e = sm_check_dt(comm, st, fn);
        if (e == MPI_SUCCESS && sc < 0)
            e = sm_error(comm, MPI_ERR_COUNT, fn, "negative count");
        ss.c[root] = sc;
        ss.t[root] = st;
    }
    if (sbuf == MPI_IN_PLACE)
        s = rbuf;
    if (e == MPI_SUCCESS && me) {
        e = side_set(&rs, rcs, displs, 0, rt, NULL, comm, fn);
        if (sbuf == MPI_IN_PLACE)
            rs.c[rank] = 0;
    }
    if (e == MPI_SUCCESS)
        e = exchange(s, &ss, rbuf, &rs, comm, 0, h);
    side_free(&ss);
    side_free(&rs);
    return e;
}

int PMPI_Gatherv_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                   const MPI_Count rcs[], const MPI_Aint displs[], MPI_Datatype rt, int root,
                   MPI_Comm comm)
{
    return gatherv(sbuf, sc, st, rbuf, rcs, displs, rt, root, comm, NULL, "MPI_Gatherv_c");
}

int PMPI_Igatherv_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                    const MPI_Count rcs[], const MPI_Aint displs[], MPI_Datatype rt, int root,
                    MPI_Comm comm, MPI_Request *req)
{
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, "MPI_Igatherv_c", "NULL request pointer");
    return gatherv(sbuf, sc, st, rbuf, rcs, displs, rt, root, comm, NB(req), "MPI_Igatherv_c");
}

static int scatterv(const void *sbuf, const MPI_Count *scs, const MPI_Aint *displs,
                    MPI_Datatype st, void *rbuf, MPI_Count rc, MPI_Datatype rt, int root,
                    MPI_Comm comm, const struct how *h, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    int np = peers(comm), me = am_root(comm, root);
    if (me && (!scs || !displs))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    int big;
    SM_TRY(root_decides(comm, root, me, np, scs, displs, h, &big));
    if (!big) {
        MPI_Datatype t;
        int n;
        SM_TRY(arg(rc, rt, leaf(comm, root, rbuf), &t, &n, comm, fn));
        int *c = ints(me ? np : 0, scs), *d = aints_as_ints(me ? np : 0, displs);
        int e = LC_RUN(h, Scatterv, Iscatterv, sbuf, c, d, st, rbuf, n, t, root, comm);
        return settle(e, h, &(struct keep){ .mem = { c, d }, .dt = { 0, t }, .udt = { 0, rt } });
    }
    if (inter(comm))
        return no_large_inter(comm, fn);
    int rank;
    PMPI_Comm_rank(comm, &rank);
    struct side ss, rs;
    side_init(&ss, np);
    side_init(&rs, np);
    int e = MPI_SUCCESS;
    void *r = rbuf == MPI_IN_PLACE ? (void *)sbuf : rbuf;
    if (me) {
        e = side_set(&ss, scs, displs, 0, st, NULL, comm, fn);
        if (rbuf == MPI_IN_PLACE)
            ss.c[rank] = 0;
    }
    if (e == MPI_SUCCESS && rbuf != MPI_IN_PLACE && rc) {
        e = rc < 0 ? sm_error(comm, MPI_ERR_COUNT, fn, "negative count")
                   : sm_check_dt(comm, rt, fn);
        rs.c[root] = rc;
        rs.t[root] = rt;
    }
    if (e == MPI_SUCCESS)
        e = exchange(me ? sbuf : r, &ss, r, &rs, comm, 0, h);
    side_free(&ss);
    side_free(&rs);
    return e;
}

int PMPI_Scatterv_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint displs[],
                    MPI_Datatype st, void *rbuf, MPI_Count rc, MPI_Datatype rt, int root,
                    MPI_Comm comm)
{
    return scatterv(sbuf, scs, displs, st, rbuf, rc, rt, root, comm, NULL, "MPI_Scatterv_c");
}

int PMPI_Iscatterv_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint displs[],
                     MPI_Datatype st, void *rbuf, MPI_Count rc, MPI_Datatype rt, int root,
                     MPI_Comm comm, MPI_Request *req)
{
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, "MPI_Iscatterv_c", "NULL request pointer");
    return scatterv(sbuf, scs, displs, st, rbuf, rc, rt, root, comm, NB(req), "MPI_Iscatterv_c");
}

static int allgatherv(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                      const MPI_Count *rcs, const MPI_Aint *displs, MPI_Datatype rt,
                      MPI_Comm comm, const struct how *h, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    int np = peers(comm);
    if (!rcs || !displs)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    /* the counts and displacements are the same everywhere: every process decides alike; a
     * large send count alone is one element of a derived type */
    if (small(np, rcs, displs)) {
        MPI_Datatype t;
        int n;
        SM_TRY(arg(sc, st, sbuf != MPI_IN_PLACE, &t, &n, comm, fn));
        int *c = ints(np, rcs), *d = aints_as_ints(np, displs);
        int e = LC_RUN(h, Allgatherv, Iallgatherv, sbuf, n, t, rbuf, c, d, rt, comm);
        return settle(e, h, &(struct keep){ .mem = { c, d }, .dt = { 0, t }, .udt = { 0, st } });
    }
    if (inter(comm))
        return no_large_inter(comm, fn);
    int rank;
    PMPI_Comm_rank(comm, &rank);
    struct side ss, rs;
    side_init(&ss, np);
    side_init(&rs, np);
    int e = side_set(&rs, rcs, displs, 0, rt, NULL, comm, fn);
    const void *s = sbuf;
    for (int i = 0; e == MPI_SUCCESS && i < np; i++) {
        if (sbuf == MPI_IN_PLACE) {
            /* this process's block is already in place: send it from there, not to itself */
            ss.c[i] = i == rank ? 0 : rs.c[rank];
            ss.t[i] = rs.t[rank];
            ss.d[i] = rs.d[rank];
        } else if (sc) {
            e = sc < 0 ? sm_error(comm, MPI_ERR_COUNT, fn, "negative count")
                       : sm_check_dt(comm, st, fn);
            ss.c[i] = sc;
            ss.t[i] = st;
        }
    }
    if (sbuf == MPI_IN_PLACE) {
        s = rbuf;
        rs.c[rank] = 0;
    }
    if (e == MPI_SUCCESS)
        e = exchange(s, &ss, rbuf, &rs, comm, 0, h);
    side_free(&ss);
    side_free(&rs);
    return e;
}

int PMPI_Allgatherv_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                      const MPI_Count rcs[], const MPI_Aint displs[], MPI_Datatype rt,
                      MPI_Comm comm)
{
    return allgatherv(sbuf, sc, st, rbuf, rcs, displs, rt, comm, NULL, "MPI_Allgatherv_c");
}

int PMPI_Iallgatherv_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                       const MPI_Count rcs[], const MPI_Aint displs[], MPI_Datatype rt,
                       MPI_Comm comm, MPI_Request *req)
{
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, "MPI_Iallgatherv_c", "NULL request pointer");
    return allgatherv(sbuf, sc, st, rbuf, rcs, displs, rt, comm, NB(req), "MPI_Iallgatherv_c");
}

/* Alltoallv (one type each side, element displacements) and Alltoallw (types and byte
 * displacements per peer) */
static int alltoallvw(const void *sbuf, const MPI_Count *scs, const MPI_Aint *sds,
                      MPI_Datatype st1, const MPI_Datatype *stv, void *rbuf, const MPI_Count *rcs,
                      const MPI_Aint *rds, MPI_Datatype rt1, const MPI_Datatype *rtv,
                      MPI_Comm comm, const struct how *h, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    int np = peers(comm), w = stv || rtv, inplace = sbuf == MPI_IN_PLACE;
    if (!rcs || !rds || (!inplace && (!scs || !sds)))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    int big = !small(np, rcs, rds) || (!inplace && !small(np, scs, sds));
    if (!big) {
        int *a = ints(np, inplace ? rcs : scs), *b = aints_as_ints(np, inplace ? rds : sds);
        int *c = ints(np, rcs), *d = aints_as_ints(np, rds);
        int e;
        if (w)
            e = LC_RUN(h, Alltoallw, Ialltoallw, sbuf, a, b, inplace ? rtv : stv, rbuf, c, d, rtv,
                       comm);
        else
            e = LC_RUN(h, Alltoallv, Ialltoallv, sbuf, a, b, st1, rbuf, c, d, rt1, comm);
        return settle(e, h, &(struct keep){ .mem = { a, b, c, d } });
    }
    if (inplace)
        return sm_error(comm, MPI_ERR_COUNT, fn,
                        "MPI_IN_PLACE with counts or displacements beyond the int range is not "
                        "supported");
    struct side ss, rs;
    side_init(&ss, np);
    side_init(&rs, np);
    int e = side_set(&ss, scs, sds, w, st1, stv, comm, fn);
    if (e == MPI_SUCCESS)
        e = side_set(&rs, rcs, rds, w, rt1, rtv, comm, fn);
    if (e == MPI_SUCCESS)
        e = exchange(sbuf, &ss, rbuf, &rs, comm, 0, h);
    side_free(&ss);
    side_free(&rs);
    return e;
}

int PMPI_Alltoallv_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                     MPI_Datatype st, void *rbuf, const MPI_Count rcs[], const MPI_Aint rds[],
                     MPI_Datatype rt, MPI_Comm comm)
{
    return alltoallvw(sbuf, scs, sds, st, NULL, rbuf, rcs, rds, rt, NULL, comm, NULL,
                      "MPI_Alltoallv_c");
}

int PMPI_Ialltoallv_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                      MPI_Datatype st, void *rbuf, const MPI_Count rcs[], const MPI_Aint rds[],
                      MPI_Datatype rt, MPI_Comm comm, MPI_Request *req)
{
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, "MPI_Ialltoallv_c", "NULL request pointer");
    return alltoallvw(sbuf, scs, sds, st, NULL, rbuf, rcs, rds, rt, NULL, comm, NB(req),
                      "MPI_Ialltoallv_c");
}

int PMPI_Alltoallw_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                     const MPI_Datatype sts[], void *rbuf, const MPI_Count rcs[],
                     const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm)
{
    if (!rts)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Alltoallw_c", "NULL types");
    return alltoallvw(sbuf, scs, sds, NULL, sts ? sts : rts, rbuf, rcs, rds, NULL, rts, comm,
                      NULL, "MPI_Alltoallw_c");
}

int PMPI_Ialltoallw_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                      const MPI_Datatype sts[], void *rbuf, const MPI_Count rcs[],
                      const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm,
                      MPI_Request *req)
{
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, "MPI_Ialltoallw_c", "NULL request pointer");
    if (!rts)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Ialltoallw_c", "NULL types");
    return alltoallvw(sbuf, scs, sds, NULL, sts ? sts : rts, rbuf, rcs, rds, NULL, rts, comm,
                      NB(req), "MPI_Ialltoallw_c");
}

/* ---- Reduce_scatter: equal counts are Reduce_scatter_block; unequal large ones a reduction
 * to rank 0 and a scatter (blocking only) ----------------------------------------------------- */
static int reduce_scatter(const void *sbuf, void *rbuf, const MPI_Count *rcs, MPI_Datatype dt,
                          MPI_Op op, MPI_Comm comm, const struct how *h, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    int np = -1;
    PMPI_Comm_size(comm, &np);
    if (!rcs)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts");
    MPI_Count total = 0;
    for (int i = 0; i < np; i++)
        total += rcs[i] > 0 ? rcs[i] : 0;
    if (small(np, rcs, NULL) && total <= sm_lc_chunk()) {
        int *c = ints(np, rcs);
        int e = LC_RUN(h, Reduce_scatter, Ireduce_scatter, sbuf, rbuf, c, dt, op, comm);
        return settle(e, h, &(struct keep){ .mem = { c } });
    }
    int equal = 1;
    for (int i = 1; i < np; i++)
        equal = equal && rcs[i] == rcs[0];
    if (equal)
        return !h        ? PMPI_Reduce_scatter_block_c(sbuf, rbuf, rcs[0], dt, op, comm)
               : h->init ? PMPI_Reduce_scatter_block_init_c(sbuf, rbuf, rcs[0], dt, op, comm,
                                                            h->info, h->req)
                         : PMPI_Ireduce_scatter_block_c(sbuf, rbuf, rcs[0], dt, op, comm, h->req);
    if (h || inter(comm))
        return sm_error(comm, MPI_ERR_COUNT, fn,
                        "unequal counts beyond the int range are supported by the blocking "
                        "intracommunicator form only (not by the non-blocking or persistent "
                        "ones)");
    SM_TRY(sm_check_dt(comm, dt, fn));
    int rank;
    PMPI_Comm_rank(comm, &rank);
    MPI_Aint *displs = sm_xmalloc(sizeof *displs * (size_t)np);
    total = 0;
    for (int i = 0; i < np; i++) {
        displs[i] = total;
        total += rcs[i];
    }
    void *tmp = NULL, *base = NULL;
    if (rank == 0) {
        base = malloc((size_t)(total * dt->extent) + 1);
        if (!base) {
            free(displs);
            return sm_error(comm, MPI_ERR_NO_MEM, fn, "no memory for %lld elements",
                            (long long)total);
        }
        tmp = (char *)base - dt->lb;
    }
    const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    int e = PMPI_Reduce_c(in, tmp, total, dt, op, 0, comm);
    if (e == MPI_SUCCESS)
        e = PMPI_Scatterv_c(tmp, rcs, displs, dt, rbuf, rcs[rank], dt, 0, comm);
    free(base);
    free(displs);
    return e;
}

int PMPI_Reduce_scatter_c(const void *sbuf, void *rbuf, const MPI_Count rcs[], MPI_Datatype dt,
                          MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(sbuf, rbuf, rcs, dt, op, comm, NULL, "MPI_Reduce_scatter_c");
}

int PMPI_Ireduce_scatter_c(const void *sbuf, void *rbuf, const MPI_Count rcs[], MPI_Datatype dt,
                           MPI_Op op, MPI_Comm comm, MPI_Request *req)
{
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, "MPI_Ireduce_scatter_c", "NULL request pointer");
    return reduce_scatter(sbuf, rbuf, rcs, dt, op, comm, NB(req), "MPI_Ireduce_scatter_c");
}

/* ---- neighbourhood v/w collectives --------------------------------------------------------- */
static int neighbor_vw(int kind, const void *sbuf, MPI_Count sc, const MPI_Count *scs,
                       const MPI_Aint *sds, MPI_Datatype st1, const MPI_Datatype *stv, void *rbuf,
                       const MPI_Count *rcs, const MPI_Aint *rds, MPI_Datatype rt1,
                       const MPI_Datatype *rtv, MPI_Comm comm, const struct how *h,
                       const char *fn)
{
    enum { ALLGATHERV, ALLTOALLV, ALLTOALLW };
    SM_TRY(sm_check_comm(comm, fn));
    int topo, ni, no, *in, *out;
    SM_TRY(sm_topo_neighbors(comm, fn, &topo, &ni, &in, &no, &out));
    free(in);
    free(out);
    if (!rcs || !rds || (kind != ALLGATHERV && (!scs || !sds)))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    int big =
        !small(ni, rcs, kind == ALLTOALLW ? NULL : rds) ||
        (kind == ALLGATHERV ? !sm_lc_fits(sc) : !small(no, scs, kind == ALLTOALLW ? NULL : sds));
    if (!big) {
        int *c = ints(ni, rcs), e;
        struct keep k = { .mem = { c } };
        if (kind == ALLGATHERV) {
            int *d = k.mem[1] = aints_as_ints(ni, rds);
            e = LC_RUN(h, Neighbor_allgatherv, Ineighbor_allgatherv, sbuf, (int)sc, st1, rbuf, c,
                       d, rt1, comm);
        } else if (kind == ALLTOALLV) {
            int *a = k.mem[1] = ints(no, scs), *b = k.mem[2] = aints_as_ints(no, sds);
            int *d = k.mem[3] = aints_as_ints(ni, rds);
            e = LC_RUN(h, Neighbor_alltoallv, Ineighbor_alltoallv, sbuf, a, b, st1, rbuf, c, d,
                       rt1, comm);
        } else {
            int *a = k.mem[1] = ints(no, scs);
            e = LC_RUN(h, Neighbor_alltoallw, Ineighbor_alltoallw, sbuf, a, sds, stv, rbuf, c,
                       rds, rtv, comm);
        }
        return settle(e, h, &k);
    }
    struct side ss, rs;
    side_init(&ss, no);
    side_init(&rs, ni);
    int e = side_set(&rs, rcs, rds, kind == ALLTOALLW, rt1, rtv, comm, fn);
    if (e == MPI_SUCCESS && kind != ALLGATHERV)
        e = side_set(&ss, scs, sds, kind == ALLTOALLW, st1, stv, comm, fn);
    for (int i = 0; e == MPI_SUCCESS && kind == ALLGATHERV && i < no; i++) {
        if (!sc)
            break;
        e = sc < 0 ? sm_error(comm, MPI_ERR_COUNT, fn, "negative count")
                   : sm_check_dt(comm, st1, fn);
        ss.c[i] = sc;
        ss.t[i] = st1;
    }
    if (e == MPI_SUCCESS)
        e = exchange(sbuf, &ss, rbuf, &rs, comm, 1, h);
    side_free(&ss);
    side_free(&rs);
    return e;
}

int PMPI_Neighbor_allgatherv_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                               const MPI_Count rcs[], const MPI_Aint displs[], MPI_Datatype rt,
                               MPI_Comm comm)
{
    return neighbor_vw(0, sbuf, sc, NULL, NULL, st, NULL, rbuf, rcs, displs, rt, NULL, comm, NULL,
                       "MPI_Neighbor_allgatherv_c");
}

int PMPI_Ineighbor_allgatherv_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                                const MPI_Count rcs[], const MPI_Aint displs[], MPI_Datatype rt,
                                MPI_Comm comm, MPI_Request *req)
{
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, "MPI_Ineighbor_allgatherv_c", "NULL request");
    return neighbor_vw(0, sbuf, sc, NULL, NULL, st, NULL, rbuf, rcs, displs, rt, NULL, comm,
                       NB(req), "MPI_Ineighbor_allgatherv_c");
}

int PMPI_Neighbor_alltoallv_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                              MPI_Datatype st, void *rbuf, const MPI_Count rcs[],
                              const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm)
{
    return neighbor_vw(1, sbuf, 0, scs, sds, st, NULL, rbuf, rcs, rds, rt, NULL, comm, NULL,
                       "MPI_Neighbor_alltoallv_c");
}

int PMPI_Ineighbor_alltoallv_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                               MPI_Datatype st, void *rbuf, const MPI_Count rcs[],
                               const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm,
                               MPI_Request *req)
{
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, "MPI_Ineighbor_alltoallv_c", "NULL request");
    return neighbor_vw(1, sbuf, 0, scs, sds, st, NULL, rbuf, rcs, rds, rt, NULL, comm, NB(req),
                       "MPI_Ineighbor_alltoallv_c");
}

int PMPI_Neighbor_alltoallw_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                              const MPI_Datatype sts[], void *rbuf, const MPI_Count rcs[],
                              const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm)
{
    if (!sts || !rts)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Neighbor_alltoallw_c", "NULL types");
    return neighbor_vw(2, sbuf, 0, scs, sds, NULL, sts, rbuf, rcs, rds, NULL, rts, comm, NULL,
                       "MPI_Neighbor_alltoallw_c");
}

int PMPI_Ineighbor_alltoallw_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                               const MPI_Datatype sts[], void *rbuf, const MPI_Count rcs[],
                               const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm,
                               MPI_Request *req)
{
    if (!req)
        return sm_error(comm, MPI_ERR_REQUEST, "MPI_Ineighbor_alltoallw_c", "NULL request");
    if (!sts || !rts)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Ineighbor_alltoallw_c", "NULL types");
    return neighbor_vw(2, sbuf, 0, scs, sds, NULL, sts, rbuf, rcs, rds, NULL, rts, comm, NB(req),
                       "MPI_Ineighbor_alltoallw_c");
}

/* ---- the persistent v/w collectives: the same helpers in their persistent mode ------------- */
#define LC_NULLREQ(FN)                                                                           \
    do {                                                                                         \
        if (!req)                                                                                \
            return sm_error(comm, MPI_ERR_REQUEST, FN, "NULL request pointer");                  \
    } while (0)

int PMPI_Gatherv_init_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                        const MPI_Count rcs[], const MPI_Aint displs[], MPI_Datatype rt, int root,
                        MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    LC_NULLREQ("MPI_Gatherv_init_c");
    return gatherv(sbuf, sc, st, rbuf, rcs, displs, rt, root, comm, PI(info, req),
                   "MPI_Gatherv_init_c");
}

int PMPI_Scatterv_init_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint displs[],
                         MPI_Datatype st, void *rbuf, MPI_Count rc, MPI_Datatype rt, int root,
                         MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    LC_NULLREQ("MPI_Scatterv_init_c");
    return scatterv(sbuf, scs, displs, st, rbuf, rc, rt, root, comm, PI(info, req),
                    "MPI_Scatterv_init_c");
}

int PMPI_Allgatherv_init_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                           const MPI_Count rcs[], const MPI_Aint displs[], MPI_Datatype rt,
                           MPI_Comm comm, MPI_Info info, MPI_Request *req)
{
    LC_NULLREQ("MPI_Allgatherv_init_c");
    return allgatherv(sbuf, sc, st, rbuf, rcs, displs, rt, comm, PI(info, req),
                      "MPI_Allgatherv_init_c");
}

int PMPI_Alltoallv_init_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                          MPI_Datatype st, void *rbuf, const MPI_Count rcs[],
                          const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                          MPI_Request *req)
{
    LC_NULLREQ("MPI_Alltoallv_init_c");
    return alltoallvw(sbuf, scs, sds, st, NULL, rbuf, rcs, rds, rt, NULL, comm, PI(info, req),
                      "MPI_Alltoallv_init_c");
}

int PMPI_Alltoallw_init_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                          const MPI_Datatype sts[], void *rbuf, const MPI_Count rcs[],
                          const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm,
                          MPI_Info info, MPI_Request *req)
{
    LC_NULLREQ("MPI_Alltoallw_init_c");
    if (!rts)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Alltoallw_init_c", "NULL types");
    return alltoallvw(sbuf, scs, sds, NULL, sts ? sts : rts, rbuf, rcs, rds, NULL, rts, comm,
                      PI(info, req), "MPI_Alltoallw_init_c");
}

int PMPI_Reduce_scatter_init_c(const void *sbuf, void *rbuf, const MPI_Count rcs[],
                               MPI_Datatype dt, MPI_Op op, MPI_Comm comm, MPI_Info info,
                               MPI_Request *req)
{
    LC_NULLREQ("MPI_Reduce_scatter_init_c");
    return reduce_scatter(sbuf, rbuf, rcs, dt, op, comm, PI(info, req),
                          "MPI_Reduce_scatter_init_c");
}

int PMPI_Neighbor_allgatherv_init_c(const void *sbuf, MPI_Count sc, MPI_Datatype st, void *rbuf,
                                    const MPI_Count rcs[], const MPI_Aint displs[],
                                    MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                                    MPI_Request *req)
{
    LC_NULLREQ("MPI_Neighbor_allgatherv_init_c");
    return neighbor_vw(0, sbuf, sc, NULL, NULL, st, NULL, rbuf, rcs, displs, rt, NULL, comm,
                       PI(info, req), "MPI_Neighbor_allgatherv_init_c");
}

int PMPI_Neighbor_alltoallv_init_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                                   MPI_Datatype st, void *rbuf, const MPI_Count rcs[],
                                   const MPI_Aint rds[], MPI_Datatype rt, MPI_Comm comm,
                                   MPI_Info info, MPI_Request *req)
{
    LC_NULLREQ("MPI_Neighbor_alltoallv_init_c");
    return neighbor_vw(1, sbuf, 0, scs, sds, st, NULL, rbuf, rcs, rds, rt, NULL, comm,
                       PI(info, req), "MPI_Neighbor_alltoallv_init_c");
}

int PMPI_Neighbor_alltoallw_init_c(const void *sbuf, const MPI_Count scs[], const MPI_Aint sds[],
                                   const MPI_Datatype sts[], void *rbuf, const MPI_Count rcs[],
                                   const MPI_Aint rds[], const MPI_Datatype rts[], MPI_Comm comm,
                                   MPI_Info info, MPI_Request *req)
{
    LC_NULLREQ("MPI_Neighbor_alltoallw_init_c");
    if (!sts || !rts)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Neighbor_alltoallw_init_c", "NULL types");
    return neighbor_vw(2, sbuf, 0, scs, sds, NULL, sts, rbuf, rcs, rds, NULL, rts, comm,
                       PI(info, req), "MPI_Neighbor_alltoallw_init_c");
}
