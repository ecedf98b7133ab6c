/* coll_move.c — blocking collectives that move data: Bcast (binomial tree; scatter + ring
 * allgather for large messages), Gather(v) and Scatter(v) (root posts all, receivers one
 * message), Allgather (Bruck for small blocks or non-powers of two, recursive doubling for
 * powers of two, ring for large totals), Allgatherv (ring), Alltoall (Bruck for small blocks,
 * else pairwise exchange), Alltoallv/w (pairwise exchange).  The size-selected algorithms live
 * in coll_algo.c.  All run over point-to-point on the collective context. */
#include "coll/icoll.h"

/* ---- argument checks shared by the collectives ----------------------------------------- */
int sm_coll_check(MPI_Comm c, const char *fn)
{
    SM_TRY(sm_check_comm(c, fn));
    if (sm_comm_is_inter(c)) /* every other collective routes intercommunicators first */
        return sm_error(c, MPI_ERR_COMM, fn, "not defined on an intercommunicator");
    return MPI_SUCCESS;
}

int sm_coll_check_buf(MPI_Comm c, const void *buf, int count, MPI_Datatype dt, const char *fn)
{
    if (buf == MPI_IN_PLACE)
        return MPI_SUCCESS;
    return sm_check_buffer(c, buf, count, dt, fn);
}

int sm_coll_check_root(MPI_Comm c, int root, const char *fn)
{
    if (root < 0 || root >= c->size)
        return sm_error(c, MPI_ERR_ROOT, fn, "root %d is not in [0, %d)", root, c->size);
    return MPI_SUCCESS;
}

int sm_coll_check_gather_args(MPI_Comm c, const void *sbuf, int scount, MPI_Datatype st,
                              const void *rbuf, int rcount, const int *rcounts,
                              const int *displs, MPI_Datatype rt, int root, int is_v,
                              const char *fn)
{
    SM_TRY(sm_coll_check_root(c, root, fn));
    if (c->rank == root) {
        if (!is_v)
            SM_TRY(sm_check_buffer(c, rbuf, rcount, rt, fn));
        else if (!rcounts || !displs)
            return sm_error(c, MPI_ERR_ARG, fn, "NULL counts or displacements");
        else
            SM_TRY(sm_check_dt(c, rt, fn));
    }
    if (!(c->rank == root && sbuf == MPI_IN_PLACE))
        SM_TRY(sm_check_buffer(c, sbuf, scount, st, fn));
    return MPI_SUCCESS;
}

int sm_coll_check_scatter_args(MPI_Comm c, const void *sbuf, int scount, const int *scounts,
                               const int *displs, MPI_Datatype st, const void *rbuf,
                               int rcount, MPI_Datatype rt, int root, int is_v,
                               const char *fn)
{
    SM_TRY(sm_coll_check_root(c, root, fn));
    if (c->rank == root) {
        if (!is_v)
            SM_TRY(sm_check_buffer(c, sbuf, scount, st, fn));
        else if (!scounts || !displs)
            return sm_error(c, MPI_ERR_ARG, fn, "NULL counts or displacements");
        else
            SM_TRY(sm_check_dt(c, st, fn));
    }
    if (!(c->rank == root && rbuf == MPI_IN_PLACE))
        SM_TRY(sm_check_buffer(c, rbuf, rcount, rt, fn));
    return MPI_SUCCESS;
}

static int fail(MPI_Comm c, int err, const char *fn)
{
    return err ? sm_error(c, err, fn, NULL) : MPI_SUCCESS;
}

/* ---- Bcast --------------------------------------------------------------------------------- */
int sm_coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c)
{
    int n = c->size, err = 0;
    if (n == 1 || count == 0)
        return MPI_SUCCESS;
    if (n > 2 && sm_dt_psize(dt) * (size_t)count >= sm_coll_tunables()->bcast_large)
        return sm_coll_bcast_scatter_ring(buf, count, dt, root, c);
    int tag = sm_coll_tag(c);
    int rel = (c->rank - root + n) % n, mask = 1;
    while (mask < n) {
        if (rel & mask) {
            err = c_recv(buf, count, dt, (rel - mask + root) % n, tag, c);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    while (mask > 0) {
        if (rel + mask < n) {
            int e = c_send(buf, count, dt, (rel + mask + root) % n, tag, c);
            if (e && !err)
                err = e;
        }
        mask >>= 1;
    }
    return err;
}

#pragma weak MPI_Bcast = PMPI_Bcast
int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Bcast";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_bcast(buf, count, dt, root, comm);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_check_buffer(comm, buf, count, dt, fn));
    SM_TRY(sm_coll_check_root(comm, root, fn));
    return fail(comm, sm_coll_bcast(buf, count, dt, root, comm), fn);
}

/* ---- Gather(v) / Scatter(v) -------------------------------------------------------------- */
static int gatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                   const int *rcounts, const int *displs, int rcount, MPI_Datatype rt, int root,
                   MPI_Comm c)
{
    int n = c->size, tag = sm_coll_tag(c);
    if (c->rank != root)
        return scount ? c_send(sbuf, scount, st, root, tag, c) : MPI_SUCCESS;
    MPI_Request *rq = sm_xmalloc(sizeof *rq * (size_t)n);
    int k = 0;
    for (int i = 0; i < n; i++) {
        int cnt = rcounts ? rcounts[i] : rcount;
        void *dst = at(rbuf, displs ? displs[i] : (MPI_Aint)i * rcount, rt);
        if (i == root) {
            if (sbuf != MPI_IN_PLACE)
                sm_dt_copy(sbuf, scount, st, dst, cnt, rt);
        } else if (cnt) {
            sm_irecv_dt(dst, cnt, rt, i, tag, c, CCTX(c), &rq[k++]);
        }
    }
    int err = c_waitall(k, rq);
    free(rq);
    return err;
}

int sm_coll_gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                   MPI_Datatype rt, int root, MPI_Comm c)
{
    return gatherv(sbuf, scount, st, rbuf, NULL, NULL, rcount, rt, root, c);
}

#pragma weak MPI_Gather = PMPI_Gather
int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
               MPI_Datatype rt, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Gather";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_gather(sbuf, scount, st, rbuf, rcount, rt, root, comm);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_coll_check_gather_args(comm, sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, root,
                                     0, fn));
    return fail(comm, gatherv(sbuf, scount, st, rbuf, NULL, NULL, rcount, rt, root, comm), fn);
}

#pragma weak MPI_Gatherv = PMPI_Gatherv
int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, const int rcounts[],
                const int displs[], MPI_Datatype rt, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Gatherv";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_igatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, root, comm, NULL,
                                 fn);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_coll_check_gather_args(comm, sbuf, scount, st, rbuf, 0, rcounts, displs, rt, root,
                                     1, fn));
    return fail(comm, gatherv(sbuf, scount, st, rbuf, rcounts, displs, 0, rt, root, comm), fn);
}

static int scatterv(const void *sbuf, const int *scounts, const int *displs, int scount,
                    MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt, int root,
                    MPI_Comm c)
{
    int n = c->size, tag = sm_coll_tag(c);
    if (c->rank != root)
        return rcount ? c_recv(rbuf, rcount, rt, root, tag, c) : MPI_SUCCESS;
    MPI_Request *rq = sm_xmalloc(sizeof *rq * (size_t)n);
    int k = 0;
    for (int i = 0; i < n; i++) {
        int cnt = scounts ? scounts[i] : scount;
        const void *src = at(sbuf, displs ? displs[i] : (MPI_Aint)i * scount, st);
        if (i == root) {
            if (rbuf != MPI_IN_PLACE)
                sm_dt_copy(src, cnt, st, rbuf, rcount, rt);
        } else if (cnt) {
            sm_isend_dt(src, cnt, st, i, tag, c, CCTX(c), SM_MODE_STANDARD, &rq[k++]);
        }
    }
    int err = c_waitall(k, rq);
    free(rq);
    return err;
}

#pragma weak MPI_Scatter = PMPI_Scatter
int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                MPI_Datatype rt, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Scatter";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_scatter(sbuf, scount, st, rbuf, rcount, rt, root, comm);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_coll_check_scatter_args(comm, sbuf, scount, NULL, NULL, st, rbuf, rcount, rt,
                                      root, 0, fn));
    return fail(comm, scatterv(sbuf, NULL, NULL, scount, st, rbuf, rcount, rt, root, comm), fn);
}

#pragma weak MPI_Scatterv = PMPI_Scatterv
int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype st,
                 void *rbuf, int rcount, MPI_Datatype rt, int root, MPI_Comm comm)
{
    const char *fn = "MPI_Scatterv";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iscatterv(sbuf, 0, scounts, displs, st, rbuf, rcount, rt, root, comm,
                                  NULL, fn);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_coll_check_scatter_args(comm, sbuf, 0, scounts, displs, st, rbuf, rcount, rt,
                                      root, 1, fn));
    return fail(comm, scatterv(sbuf, scounts, displs, 0, st, rbuf, rcount, rt, root, comm), fn);
}

/* ---- Allgather(v) ------------------------------------------------------------------------ */
/* ring: in step s, pass on the block received in step s-1 */
static int allgatherv_ring(void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rt,
                           int tag, MPI_Comm c)
{
    int n = c->size, me = c->rank, right = (me + 1) % n, left = (me - 1 + n) % n, err = 0;
    for (int s = 0; s < n - 1; s++) {
        int sb = (me - s + n) % n, rb = (me - s - 1 + n) % n;
        int e = c_sendrecv(at(rbuf, displs[sb], rt), rcounts[sb], rt, right,
                           at(rbuf, displs[rb], rt), rcounts[rb], rt, left, tag, c);
        if (e && !err)
            err = e;
    }
    return err;
}

int sm_coll_allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      MPI_Datatype rt, MPI_Comm c)
{
    int n = c->size, me = c->rank, tag = sm_coll_tag(c), err = 0;
    if (sbuf != MPI_IN_PLACE)
        sm_dt_copy(sbuf, scount, st, at(rbuf, (MPI_Aint)me * rcount, rt), rcount, rt);
    if (n == 1 || rcount == 0)
        return MPI_SUCCESS;
    const struct sm_coll_tun *t = sm_coll_tunables();
    size_t block = sm_dt_psize(rt) * (size_t)rcount, total = block * (size_t)n;
    int pof2 = (n & (n - 1)) == 0;
    if (block <= t->ag_bruck || (!pof2 && total < t->ag_ring))
        return sm_coll_allgather_bruck(rbuf, rcount, rt, tag, c);
    if (pof2 && total < t->ag_ring) { /* recursive doubling: blocks stay contiguous */
        for (int mask = 1; mask < n; mask <<= 1) {
            int peer = me ^ mask;
            int mine = me & ~(mask - 1), theirs = peer & ~(mask - 1);
            int e = c_sendrecv(at(rbuf, (MPI_Aint)mine * rcount, rt), mask * rcount, rt, peer,
                               at(rbuf, (MPI_Aint)theirs * rcount, rt), mask * rcount, rt, peer,
                               tag, c);
            if (e && !err)
                err = e;
        }
        return err;
    }
    int *cnt = sm_xmalloc(sizeof(int) * (size_t)n), *dis = sm_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        cnt[i] = rcount;
        dis[i] = i * rcount;
    }
    err = allgatherv_ring(rbuf, cnt, dis, rt, tag, c);
    free(cnt);
    free(dis);
    return err;
}

#pragma weak MPI_Allgather = PMPI_Allgather
int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                  MPI_Datatype rt, MPI_Comm comm)
{
    const char *fn = "MPI_Allgather";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_allgather(sbuf, scount, st, rbuf, rcount, rt, comm);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, rt, fn));
    return fail(comm, sm_coll_allgather(sbuf, scount, st, rbuf, rcount, rt, comm), fn);
}

#pragma weak MPI_Allgatherv = PMPI_Allgatherv
int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                   const int rcounts[], const int displs[], MPI_Datatype rt, MPI_Comm comm)
{
    const char *fn = "MPI_Allgatherv";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iallgatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, comm, NULL, fn);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_dt(comm, rt, fn));
    if (!rcounts || !displs)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    int me = comm->rank, tag = sm_coll_tag(comm);
    if (sbuf != MPI_IN_PLACE)
        sm_dt_copy(sbuf, scount, st, at(rbuf, displs[me], rt), rcounts[me], rt);
    if (comm->size == 1)
        return MPI_SUCCESS;
    return fail(comm, allgatherv_ring(rbuf, rcounts, displs, rt, tag, comm), fn);
}

/* ---- Alltoall(v,w) ----------------------------------------------------------------------- */
/* general form: per-peer counts, byte displacements and types; pairwise exchange order */
static int alltoallw(const void *sbuf, const int *sc, const MPI_Aint *sd, const MPI_Datatype *st,
                     void *rbuf, const int *rc, const MPI_Aint *rd, const MPI_Datatype *rt,
                     MPI_Comm c)
{
    int n = c->size, me = c->rank, tag = sm_coll_tag(c), err = 0;
    sm_dt_copy(at_bytes(sbuf, sd[me]), sc[me], st[me], at_bytes(rbuf, rd[me]), rc[me], rt[me]);
    int pof2 = (n & (n - 1)) == 0;
    for (int s = 1; s < n; s++) {
        int to = pof2 ? me ^ s : (me + s) % n, from = pof2 ? me ^ s : (me - s + n) % n;
        MPI_Request rq[2];
        int k = 0;
        /* a pair exchanges a message only when it carries data: the two sides may describe
         * zero bytes differently (count 0, or elements of a zero-size type) */
        if (rc[from] && sm_dt_psize(rt[from]))
            sm_irecv_dt(at_bytes(rbuf, rd[from]), rc[from], rt[from], from, tag, c, CCTX(c),
                        &rq[k++]);
        if (sc[to] && sm_dt_psize(st[to]))
            sm_isend_dt(at_bytes(sbuf, sd[to]), sc[to], st[to], to, tag, c, CCTX(c),
                        SM_MODE_STANDARD, &rq[k++]);
        int e = c_waitall(k, rq);
        if (e && !err)
            err = e;
    }
    return err;
}

struct a2a { int *sc, *rc; MPI_Aint *sd, *rd; MPI_Datatype *st, *rt; void *tmpbase; };

static void a2a_alloc(struct a2a *a, int n)
{
    a->sc = sm_xmalloc(sizeof(int) * (size_t)n);
    a->rc = sm_xmalloc(sizeof(int) * (size_t)n);
    a->sd = sm_xmalloc(sizeof(MPI_Aint) * (size_t)n);
    a->rd = sm_xmalloc(sizeof(MPI_Aint) * (size_t)n);
    a->st = sm_xmalloc(sizeof(MPI_Datatype) * (size_t)n);
    a->rt = sm_xmalloc(sizeof(MPI_Datatype) * (size_t)n);
    a->tmpbase = NULL;
}

static void a2a_free(struct a2a *a)
{
    free(a->sc), free(a->rc), free(a->sd), free(a->rd), free(a->st), free(a->rt);
    free(a->tmpbase);
}

/* MPI_IN_PLACE: send from a copy of the receive buffer with the receive layout */
static const void *in_place_copy(struct a2a *a, const void *rbuf, int n)
{
    MPI_Aint lo = 0, hi = 0;
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (!a->rc[i] || !sm_dt_psize(a->rt[i]))
            continue;
        MPI_Datatype t = a->rt[i];
        MPI_Aint tlb = t->basic ? 0 : t->true_lb, text = t->basic ? t->extent : t->true_extent;
        MPI_Aint l = a->rd[i] + tlb, h = a->rd[i] + tlb + (MPI_Aint)(a->rc[i] - 1) * t->extent + text;
        if (!any || l < lo)
            lo = l;
        if (!any || h > hi)
            hi = h;
        any = 1;
    }
    char *copy = sm_xmalloc((size_t)(hi - lo) + 1);
    if (any)
        memcpy(copy, (const char *)rbuf + lo, (size_t)(hi - lo));
    a->tmpbase = copy;
    for (int i = 0; i < n; i++) {
        a->sc[i] = a->rc[i];
        a->sd[i] = a->rd[i];
        a->st[i] = a->rt[i];
    }
    return copy - lo;
}

#pragma weak MPI_Alltoall = PMPI_Alltoall
int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                 MPI_Datatype rt, MPI_Comm comm)
{
    const char *fn = "MPI_Alltoall";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_alltoall(sbuf, scount, st, rbuf, rcount, rt, comm);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, rt, fn));
    int n = comm->size;
    if (n > 2 && rcount > 0 && sm_dt_psize(rt) * (size_t)rcount <= sm_coll_tunables()->a2a_bruck)
        return fail(comm, sm_coll_alltoall_bruck(sbuf, scount, st, rbuf, rcount, rt, comm), fn);
    struct a2a a;
    a2a_alloc(&a, n);
    for (int i = 0; i < n; i++) {
        a.rc[i] = rcount;
        a.rd[i] = (MPI_Aint)i * rcount * rt->extent;
        a.rt[i] = rt;
        if (sbuf != MPI_IN_PLACE) {
            a.sc[i] = scount;
            a.sd[i] = (MPI_Aint)i * scount * st->extent;
            a.st[i] = st;
        }
    }
    if (sbuf == MPI_IN_PLACE)
        sbuf = in_place_copy(&a, rbuf, n);
    int err = alltoallw(sbuf, a.sc, a.sd, a.st, rbuf, a.rc, a.rd, a.rt, comm);
    a2a_free(&a);
    return fail(comm, err, fn);
}

#pragma weak MPI_Alltoallv = PMPI_Alltoallv
int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype st,
                  void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rt,
                  MPI_Comm comm)
{
    const char *fn = "MPI_Alltoallv";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ialltoallw(1, sbuf, 0, scounts, sdispls, &st, rbuf, 0, rcounts, rdispls,
                                   &rt, comm, NULL, fn);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_check_dt(comm, rt, fn));
    if (!rcounts || !rdispls || (sbuf != MPI_IN_PLACE && (!scounts || !sdispls)))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    if (sbuf != MPI_IN_PLACE)
        SM_TRY(sm_check_dt(comm, st, fn));
    int n = comm->size;
    struct a2a a;
    a2a_alloc(&a, n);
    for (int i = 0; i < n; i++) {
        a.rc[i] = rcounts[i];
        a.rd[i] = (MPI_Aint)rdispls[i] * rt->extent;
        a.rt[i] = rt;
        if (sbuf != MPI_IN_PLACE) {
            a.sc[i] = scounts[i];
            a.sd[i] = (MPI_Aint)sdispls[i] * st->extent;
            a.st[i] = st;
        }
    }
    if (sbuf == MPI_IN_PLACE)
        sbuf = in_place_copy(&a, rbuf, n);
    int err = alltoallw(sbuf, a.sc, a.sd, a.st, rbuf, a.rc, a.rd, a.rt, comm);
    a2a_free(&a);
    return fail(comm, err, fn);
}

#pragma weak MPI_Alltoallw = PMPI_Alltoallw
int PMPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                  const MPI_Datatype sts[], void *rbuf, const int rcounts[], const int rdispls[],
                  const MPI_Datatype rts[], MPI_Comm comm)
{
    const char *fn = "MPI_Alltoallw";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ialltoallw(2, sbuf, 0, scounts, sdispls, sts, rbuf, 0, rcounts, rdispls,
                                   rts, comm, NULL, fn);
    SM_TRY(sm_coll_check(comm, fn));
    if (!rcounts || !rdispls || !rts ||
        (sbuf != MPI_IN_PLACE && (!scounts || !sdispls || !sts)))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts, displacements or types");
    int n = comm->size;
    struct a2a a;
    a2a_alloc(&a, n);
    for (int i = 0; i < n; i++) {
        SM_TRY(sm_check_dt(comm, rts[i], fn));
        a.rc[i] = rcounts[i];
        a.rd[i] = rdispls[i];
        a.rt[i] = rts[i];
        if (sbuf != MPI_IN_PLACE) {
            SM_TRY(sm_check_dt(comm, sts[i], fn));
            a.sc[i] = scounts[i];
            a.sd[i] = sdispls[i];
            a.st[i] = sts[i];
        }
    }
    if (sbuf == MPI_IN_PLACE)
        sbuf = in_place_copy(&a, rbuf, n);
    int err = alltoallw(sbuf, a.sc, a.sd, a.st, rbuf, a.rc, a.rd, a.rt, comm);
    a2a_free(&a);
    return fail(comm, err, fn);
}
