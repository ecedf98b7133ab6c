/* move.c — the collectives that move data, blocking and non-blocking: Bcast (binomial tree;
 * scatter + ring allgather for large messages), Gather(v) and Scatter(v) (root posts all,
 * receivers one message), Allgather (Bruck for small blocks or non-powers of two, recursive
 * doubling for powers of two, ring for large totals), Allgatherv (ring), Alltoall (Bruck for
 * small blocks, else pairwise exchange), Alltoallv/w (pairwise exchange).  Each collective has
 * one builder (coll.h) that its blocking, non-blocking and persistent forms share, and one
 * function that checks the arguments for the blocking and non-blocking entry points (how NULL:
 * blocking).  The size-selected algorithms live in algo.c; intercommunicators go to
 * inter.c. */
#include "coll/coll.h"

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
                              const void *rbuf, int rcount, const int *rcounts, const int *displs,
                              MPI_Datatype rt, int root, int is_v, const char *fn)
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
                               const int *displs, MPI_Datatype st, const void *rbuf, int rcount,
                               MPI_Datatype rt, int root, int is_v, const char *fn)
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

int sm_coll_check_nb(MPI_Comm c, MPI_Request *req, const char *fn)
{
    SM_TRY(sm_check_comm(c, fn));
    if (!req)
        return sm_error(c, MPI_ERR_REQUEST, fn, "NULL request pointer");
    return MPI_SUCCESS;
}

/* ---- Bcast --------------------------------------------------------------------------------- */
void sm_build_bcast(struct sm_sched *s, void *buf, int count, MPI_Datatype dt, int root)
{
    int n = s->comm->size;
    if (n == 1 || count == 0)
        return;
    if (n > 2 && sm_dt_psize(dt) * (size_t)count >= sm_coll_tunables()->bcast_large)
        sm_algo_bcast_scatter_ring(s, buf, count, dt, root);
    else
        sm_algo_bcast_binomial(s, buf, count, dt, root);
}

int sm_coll_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c)
{
    struct sm_sched *s = sm_sched_new(c);
    sm_build_bcast(s, buf, count, dt, root);
    return sm_sched_wait(s);
}

static int bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                 const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ibcast(buf, count, dt, root, comm, how, fn);
    SM_TRY(sm_check_buffer(comm, buf, count, dt, fn));
    SM_TRY(sm_coll_check_root(comm, root, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_build_bcast(s, buf, count, dt, root);
    return sm_sched_run(s, how, fn);
}

int PMPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    return bcast(buf, count, dt, root, comm, NULL, "MPI_Bcast");
}

int PMPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
                MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Ibcast"));
    return bcast(buf, count, dt, root, comm, SM_NB(request), "MPI_Ibcast");
}

/* ---- Gather(v) / Scatter(v) -------------------------------------------------------------- */
void sm_build_gatherv(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                      void *rbuf, const int *rcounts, const int *displs, int rcount,
                      MPI_Datatype rt, int root)
{
    MPI_Comm c = s->comm;
    sm_sched_round(s);
    if (c->rank != root) {
        if (scount)
            sm_sched_send(s, sbuf, scount, st, root);
        return;
    }
    for (int i = 0; i < c->size; i++) {
        int cnt = rcounts ? rcounts[i] : rcount;
        void *dst = at(rbuf, displs ? displs[i] : (MPI_Aint)i * rcount, rt);
        if (i == root) {
            if (sbuf != MPI_IN_PLACE)
                sm_sched_copy(s, sbuf, scount, st, dst, cnt, rt);
        } else if (cnt) {
            sm_sched_recv(s, dst, cnt, rt, i);
        }
    }
}

int sm_coll_gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                   MPI_Datatype rt, int root, MPI_Comm c)
{
    struct sm_sched *s = sm_sched_new(c);
    sm_build_gatherv(s, sbuf, scount, st, rbuf, NULL, NULL, rcount, rt, root);
    return sm_sched_wait(s);
}

/* rcounts and displs NULL: Gather */
static int gatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                   const int *rcounts, const int *displs, MPI_Datatype rt, int root,
                   MPI_Comm comm, int is_v, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_igatherv(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, root, comm,
                                 how, fn);
    SM_TRY(sm_coll_check_gather_args(comm, sbuf, scount, st, rbuf, rcount, rcounts, displs, rt,
                                     root, is_v, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_build_gatherv(s, sbuf, scount, st, rbuf, rcounts, displs, rcount, rt, root);
    return sm_sched_run(s, how, fn);
}

int PMPI_Gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                MPI_Datatype rt, int root, MPI_Comm comm)
{
    return gatherv(sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, root, comm, 0, NULL,
                   "MPI_Gather");
}

int PMPI_Igather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                 MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Igather"));
    return gatherv(sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, root, comm, 0, SM_NB(request),
                   "MPI_Igather");
}

int PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, const int rcounts[],
                 const int displs[], MPI_Datatype rt, int root, MPI_Comm comm)
{
    return gatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, root, comm, 1, NULL,
                   "MPI_Gatherv");
}

int PMPI_Igatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, const int rcounts[],
                  const int displs[], MPI_Datatype rt, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Igatherv"));
    return gatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, root, comm, 1, SM_NB(request),
                   "MPI_Igatherv");
}

void sm_build_scatterv(struct sm_sched *s, const void *sbuf, const int *scounts,
                       const int *displs, int scount, MPI_Datatype st, void *rbuf, int rcount,
                       MPI_Datatype rt, int root)
{
    MPI_Comm c = s->comm;
    sm_sched_round(s);
    if (c->rank != root) {
        if (rcount)
            sm_sched_recv(s, rbuf, rcount, rt, root);
        return;
    }
    for (int i = 0; i < c->size; i++) {
        int cnt = scounts ? scounts[i] : scount;
        const void *src = at(sbuf, displs ? displs[i] : (MPI_Aint)i * scount, st);
        if (i == root) {
            if (rbuf != MPI_IN_PLACE)
                sm_sched_copy(s, src, cnt, st, rbuf, rcount, rt);
        } else if (cnt) {
            sm_sched_send(s, src, cnt, st, i);
        }
    }
}

/* scounts and displs NULL: Scatter */
static int scatterv(const void *sbuf, int scount, const int *scounts, const int *displs,
                    MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt, int root,
                    MPI_Comm comm, int is_v, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iscatterv(sbuf, scount, scounts, displs, st, rbuf, rcount, rt, root, comm,
                                  how, fn);
    SM_TRY(sm_coll_check_scatter_args(comm, sbuf, scount, scounts, displs, st, rbuf, rcount, rt,
                                      root, is_v, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_build_scatterv(s, sbuf, scounts, displs, scount, st, rbuf, rcount, rt, root);
    return sm_sched_run(s, how, fn);
}

int PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                 MPI_Datatype rt, int root, MPI_Comm comm)
{
    return scatterv(sbuf, scount, NULL, NULL, st, rbuf, rcount, rt, root, comm, 0, NULL,
                    "MPI_Scatter");
}

int PMPI_Iscatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                  MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Iscatter"));
    return scatterv(sbuf, scount, NULL, NULL, st, rbuf, rcount, rt, root, comm, 0, SM_NB(request),
                    "MPI_Iscatter");
}

int PMPI_Scatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype st,
                  void *rbuf, int rcount, MPI_Datatype rt, int root, MPI_Comm comm)
{
    return scatterv(sbuf, 0, scounts, displs, st, rbuf, rcount, rt, root, comm, 1, NULL,
                    "MPI_Scatterv");
}

int PMPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype st,
                   void *rbuf, int rcount, MPI_Datatype rt, int root, MPI_Comm comm,
                   MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Iscatterv"));
    return scatterv(sbuf, 0, scounts, displs, st, rbuf, rcount, rt, root, comm, 1, SM_NB(request),
                    "MPI_Iscatterv");
}

/* ---- Allgather(v) ------------------------------------------------------------------------ */
void sm_build_allgather(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                        void *rbuf, int rcount, MPI_Datatype rt)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    if (sbuf != MPI_IN_PLACE) {
        sm_sched_round(s);
        sm_sched_copy(s, sbuf, scount, st, at(rbuf, (MPI_Aint)me * rcount, rt), rcount, rt);
    }
    if (n == 1 || rcount == 0)
        return;
    const struct sm_coll_tun *t = sm_coll_tunables();
    size_t block = sm_dt_psize(rt) * (size_t)rcount, total = block * (size_t)n;
    int pof2 = (n & (n - 1)) == 0;
    if (block <= t->ag_bruck || (!pof2 && total < t->ag_ring))
        sm_algo_allgather_bruck(s, rbuf, rcount, rt);
    else if (pof2 && total < t->ag_ring)
        sm_algo_allgather_recdbl(s, rbuf, rcount, rt);
    else
        sm_algo_allgatherv_ring(s, rbuf, NULL, NULL, rcount, rt);
}

int sm_coll_allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      MPI_Datatype rt, MPI_Comm c)
{
    struct sm_sched *s = sm_sched_new(c);
    sm_build_allgather(s, sbuf, scount, st, rbuf, rcount, rt);
    return sm_sched_wait(s);
}

void sm_build_allgatherv(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                         void *rbuf, const int *rcounts, const int *displs, MPI_Datatype rt)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    if (sbuf != MPI_IN_PLACE) {
        sm_sched_round(s);
        sm_sched_copy(s, sbuf, scount, st, at(rbuf, displs[me], rt), rcounts[me], rt);
    }
    if (n == 1)
        return;
    MPI_Aint *d = sm_sched_bytes(s, sizeof(MPI_Aint) * (size_t)n);
    for (int i = 0; i < n; i++)
        d[i] = displs[i];
    sm_algo_allgatherv_ring(s, rbuf, rcounts, d, 0, rt);
}

/* rcounts NULL: Allgather */
static int allgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      const int *rcounts, const int *displs, MPI_Datatype rt, MPI_Comm comm,
                      int is_v, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iallgatherv(sbuf, scount, st, rbuf, rcount, rcounts, displs, rt, comm,
                                    how, fn);
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    if (is_v) {
        SM_TRY(sm_check_dt(comm, rt, fn));
        if (!rcounts || !displs)
            return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    } else {
        SM_TRY(sm_check_buffer(comm, rbuf, rcount, rt, fn));
    }
    struct sm_sched *s = sm_sched_new(comm);
    if (is_v)
        sm_build_allgatherv(s, sbuf, scount, st, rbuf, rcounts, displs, rt);
    else
        sm_build_allgather(s, sbuf, scount, st, rbuf, rcount, rt);
    return sm_sched_run(s, how, fn);
}

int PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                   MPI_Datatype rt, MPI_Comm comm)
{
    return allgatherv(sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, comm, 0, NULL,
                      "MPI_Allgather");
}

int PMPI_Iallgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                    MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Iallgather"));
    return allgatherv(sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, comm, 0, SM_NB(request),
                      "MPI_Iallgather");
}

int PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rt, MPI_Comm comm)
{
    return allgatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, comm, 1, NULL,
                      "MPI_Allgatherv");
}

int PMPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                     const int rcounts[], const int displs[], MPI_Datatype rt, MPI_Comm comm,
                     MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Iallgatherv"));
    return allgatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, comm, 1, SM_NB(request),
                      "MPI_Iallgatherv");
}

/* ---- Alltoall(v,w) ----------------------------------------------------------------------- */
/* MPI_IN_PLACE: send from a copy of the receive buffer with the receive layout, taken by the
 * schedule's first round (at the call, or at every MPI_Start) */
static const void *in_place_copy(struct sm_sched *s, struct sm_a2a *a, const void *rbuf, int n)
{
    MPI_Aint lo = 0, hi = 0;
    int any = 0;
    for (int i = 0; i < n; i++) {
        if (!a->rc[i] || !sm_dt_psize(a->rt[i]))
            continue;
        MPI_Datatype t = a->rt[i];
        MPI_Aint tlb = t->basic ? 0 : t->true_lb, text = t->basic ? t->extent : t->true_extent;
        MPI_Aint l = a->rd[i] + tlb;
        MPI_Aint h = a->rd[i] + tlb + (MPI_Aint)(a->rc[i] - 1) * t->extent + text;
        if (!any || l < lo)
            lo = l;
        if (!any || h > hi)
            hi = h;
        any = 1;
    }
    char *copy = sm_sched_bytes(s, (size_t)(hi - lo) + 1);
    if (any) {
        sm_sched_round(s);
        sm_sched_copy(s, (const char *)rbuf + lo, (int)(hi - lo), MPI_BYTE, copy, (int)(hi - lo),
                      MPI_BYTE);
    }
    for (int i = 0; i < n; i++) {
        a->sc[i] = a->rc[i];
        a->sd[i] = a->rd[i];
        a->st[i] = a->rt[i];
    }
    return copy - lo;
}

void sm_build_alltoallw(struct sm_sched *s, int kind, const void *sbuf, int scount,
                        const int *scounts, const int *sdispls, const MPI_Datatype *sts,
                        void *rbuf, int rcount, const int *rcounts, const int *rdispls,
                        const MPI_Datatype *rts)
{
    int n = s->comm->size;
    MPI_Datatype rt0 = rts[0];
    if (kind == 0 && n > 2 && rcount > 0 &&
        sm_dt_psize(rt0) * (size_t)rcount <= sm_coll_tunables()->a2a_bruck) {
        sm_algo_alltoall_bruck(s, sbuf, scount, sbuf == MPI_IN_PLACE ? rt0 : sts[0], rbuf, rcount,
                               rt0);
        return;
    }
    struct sm_a2a a;
    a.sc = sm_sched_bytes(s, sizeof(int) * 2 * (size_t)n);
    a.rc = a.sc + n;
    a.sd = sm_sched_bytes(s, sizeof(MPI_Aint) * 2 * (size_t)n);
    a.rd = a.sd + n;
    a.st = sm_sched_bytes(s, sizeof(MPI_Datatype) * 2 * (size_t)n);
    a.rt = a.st + n;
    for (int i = 0; i < n; i++) {
        MPI_Datatype rt = rts[kind == 2 ? i : 0];
        a.rc[i] = kind ? rcounts[i] : rcount;
        a.rd[i] = kind == 2 ? rdispls[i]
                            : (kind ? (MPI_Aint)rdispls[i] : (MPI_Aint)i * rcount) * rt->extent;
        a.rt[i] = rt;
        if (sbuf != MPI_IN_PLACE) {
            MPI_Datatype st = sts[kind == 2 ? i : 0];
            a.sc[i] = kind ? scounts[i] : scount;
            a.sd[i] = kind == 2
                          ? sdispls[i]
                          : (kind ? (MPI_Aint)sdispls[i] : (MPI_Aint)i * scount) * st->extent;
            a.st[i] = st;
        }
    }
    if (sbuf == MPI_IN_PLACE)
        sbuf = in_place_copy(s, &a, rbuf, n);
    sm_algo_alltoallw_pairwise(s, sbuf, &a, rbuf);
}

static int alltoallw(int kind, const void *sbuf, int scount, const int *scounts,
                     const int *sdispls, const MPI_Datatype *sts, void *rbuf, int rcount,
                     const int *rcounts, const int *rdispls, const MPI_Datatype *rts,
                     MPI_Comm comm, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ialltoallw(kind, sbuf, scount, scounts, sdispls, sts, rbuf, rcount,
                                   rcounts, rdispls, rts, comm, how, fn);
    int in_place = sbuf == MPI_IN_PLACE;
    if (kind == 0) {
        SM_TRY(sm_coll_check_buf(comm, sbuf, scount, sts[0], fn));
        SM_TRY(sm_check_buffer(comm, rbuf, rcount, rts[0], fn));
    } else if (kind == 1) {
        SM_TRY(sm_check_dt(comm, rts[0], fn));
        if (!rcounts || !rdispls || (!in_place && (!scounts || !sdispls)))
            return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
        if (!in_place)
            SM_TRY(sm_check_dt(comm, sts[0], fn));
    } else {
        if (!rcounts || !rdispls || !rts || (!in_place && (!scounts || !sdispls || !sts)))
            return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts, displacements or types");
        for (int i = 0; i < comm->size; i++) {
            SM_TRY(sm_check_dt(comm, rts[i], fn));
            if (!in_place)
                SM_TRY(sm_check_dt(comm, sts[i], fn));
        }
    }
    struct sm_sched *s = sm_sched_new(comm);
    sm_build_alltoallw(s, kind, sbuf, scount, scounts, sdispls, sts, rbuf, rcount, rcounts,
                       rdispls, rts);
    return sm_sched_run(s, how, fn);
}

int PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                  MPI_Datatype rt, MPI_Comm comm)
{
    return alltoallw(0, sbuf, scount, NULL, NULL, &st, rbuf, rcount, NULL, NULL, &rt, comm, NULL,
                     "MPI_Alltoall");
}

int PMPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                   MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Ialltoall"));
    return alltoallw(0, sbuf, scount, NULL, NULL, &st, rbuf, rcount, NULL, NULL, &rt, comm,
                     SM_NB(request), "MPI_Ialltoall");
}

int PMPI_Alltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype st,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rt,
                   MPI_Comm comm)
{
    return alltoallw(1, sbuf, 0, scounts, sdispls, &st, rbuf, 0, rcounts, rdispls, &rt, comm,
                     NULL, "MPI_Alltoallv");
}

int PMPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype st,
                    void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rt,
                    MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Ialltoallv"));
    return alltoallw(1, sbuf, 0, scounts, sdispls, &st, rbuf, 0, rcounts, rdispls, &rt, comm,
                     SM_NB(request), "MPI_Ialltoallv");
}

int PMPI_Alltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype sts[], void *rbuf, const int rcounts[], const int rdispls[],
                   const MPI_Datatype rts[], MPI_Comm comm)
{
    return alltoallw(2, sbuf, 0, scounts, sdispls, sts, rbuf, 0, rcounts, rdispls, rts, comm,
                     NULL, "MPI_Alltoallw");
}

int PMPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                    const MPI_Datatype sts[], void *rbuf, const int rcounts[],
                    const int rdispls[], const MPI_Datatype rts[], MPI_Comm comm,
                    MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Ialltoallw"));
    return alltoallw(2, sbuf, 0, scounts, sdispls, sts, rbuf, 0, rcounts, rdispls, rts, comm,
                     SM_NB(request), "MPI_Ialltoallw");
}

/* ---- persistent forms (MPI-4): the schedule is built here and run at every MPI_Start ---- */
int PMPI_Bcast_init(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm, MPI_Info info,
                    MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Bcast_init"));
    return bcast(buf, count, dt, root, comm, SM_INIT(request), "MPI_Bcast_init");
}

int PMPI_Gather_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                     MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info,
                     MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Gather_init"));
    return gatherv(sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, root, comm, 0,
                   SM_INIT(request), "MPI_Gather_init");
}

int PMPI_Gatherv_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                      const int rcounts[], const int displs[], MPI_Datatype rt, int root,
                      MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Gatherv_init"));
    return gatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, root, comm, 1,
                   SM_INIT(request), "MPI_Gatherv_init");
}

int PMPI_Scatter_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      MPI_Datatype rt, int root, MPI_Comm comm, MPI_Info info,
                      MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Scatter_init"));
    return scatterv(sbuf, scount, NULL, NULL, st, rbuf, rcount, rt, root, comm, 0,
                    SM_INIT(request), "MPI_Scatter_init");
}

int PMPI_Scatterv_init(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype st,
                       void *rbuf, int rcount, MPI_Datatype rt, int root, MPI_Comm comm,
                       MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Scatterv_init"));
    return scatterv(sbuf, 0, scounts, displs, st, rbuf, rcount, rt, root, comm, 1,
                    SM_INIT(request), "MPI_Scatterv_init");
}

int PMPI_Allgather_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                        MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Allgather_init"));
    return allgatherv(sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, comm, 0, SM_INIT(request),
                      "MPI_Allgather_init");
}

int PMPI_Allgatherv_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                         const int rcounts[], const int displs[], MPI_Datatype rt, MPI_Comm comm,
                         MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Allgatherv_init"));
    return allgatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, comm, 1, SM_INIT(request),
                      "MPI_Allgatherv_init");
}

int PMPI_Alltoall_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                       MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Alltoall_init"));
    return alltoallw(0, sbuf, scount, NULL, NULL, &st, rbuf, rcount, NULL, NULL, &rt, comm,
                     SM_INIT(request), "MPI_Alltoall_init");
}

int PMPI_Alltoallv_init(const void *sbuf, const int scounts[], const int sdispls[],
                        MPI_Datatype st, void *rbuf, const int rcounts[], const int rdispls[],
                        MPI_Datatype rt, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Alltoallv_init"));
    return alltoallw(1, sbuf, 0, scounts, sdispls, &st, rbuf, 0, rcounts, rdispls, &rt, comm,
                     SM_INIT(request), "MPI_Alltoallv_init");
}

int PMPI_Alltoallw_init(const void *sbuf, const int scounts[], const int sdispls[],
                        const MPI_Datatype sts[], void *rbuf, const int rcounts[],
                        const int rdispls[], const MPI_Datatype rts[], MPI_Comm comm,
                        MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Alltoallw_init"));
    return alltoallw(2, sbuf, 0, scounts, sdispls, sts, rbuf, 0, rcounts, rdispls, rts, comm,
                     SM_INIT(request), "MPI_Alltoallw_init");
}
