/* icoll.c — MPI-3 non-blocking collectives (Ibarrier ... Iexscan): argument checks and the
 * schedules of the intracommunicator algorithms; intercommunicators go to icoll_inter.c and
 * the schedules run in nbc_sched.c.  Algorithms: dissemination barrier, binomial bcast and
 * reduce (rank order for non-commutative ops), recursive-doubling allreduce / scan / exscan
 * (the blocking ones' order), linear gather/scatter/allgather/alltoall (all posts in one
 * round). */
#include "coll/icoll.h"

static int check_req(MPI_Comm c, MPI_Request *req, const char *fn)
{
    if (!req)
        return sm_error(c, MPI_ERR_REQUEST, fn, "NULL request pointer");
    return MPI_SUCCESS;
}

static int check(MPI_Comm c, MPI_Request *req, const char *fn)
{
    SM_TRY(sm_check_comm(c, fn));
    return check_req(c, req, fn);
}

/* Scan and Exscan are not defined on intercommunicators */
static int intra_only(MPI_Comm c, const char *fn)
{
    if (sm_comm_is_inter(c))
        return sm_error(c, MPI_ERR_COMM, fn, "not defined on an intercommunicator");
    return MPI_SUCCESS;
}


/* ---- builders ----------------------------------------------------------------------------- */
void sm_sched_add_bcast(struct sm_sched *s, void *buf, int count, MPI_Datatype dt, int root)
{
    MPI_Comm c = s->comm;
    int n = c->size;
    if (n == 1 || count == 0)
        return;
    int rel = (c->rank - root + n) % n, mask = 1;
    while (mask < n) {
        if (rel & mask) {
            sm_sched_round(s);
            sm_sched_recv(s, buf, count, dt, (rel - mask + root) % n);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    sm_sched_round(s);
    for (; mask > 0; mask >>= 1)
        if (rel + mask < n)
            sm_sched_send(s, buf, count, dt, (rel + mask + root) % n);
}

void sm_sched_add_reduce(struct sm_sched *s, const void *sbuf, void *rbuf, int count,
                         MPI_Datatype dt, MPI_Op op, int root)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    const void *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (count == 0)
        return;
    sm_sched_round(s);
    if (n == 1) {
        if (sbuf != MPI_IN_PLACE)
            sm_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
        return;
    }
    int base = op->commute ? root : 0, rel = (me - base + n) % n;
    char *acc = sm_sched_tmp(s, count, dt);
    sm_sched_copy(s, src, count, dt, acc, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        if (rel & mask) {
            sm_sched_round(s);
            sm_sched_send(s, acc, count, dt, (rel - mask + base) % n);
            break;
        }
        if (rel + mask < n) {
            char *tmp = sm_sched_tmp(s, count, dt);
            sm_sched_round(s);
            sm_sched_recv(s, tmp, count, dt, (rel + mask + base) % n);
            sm_sched_combine_higher(s, op, acc, tmp, count, dt);
        }
    }
    if (me == base && base != root) {
        sm_sched_round(s);
        sm_sched_send(s, acc, count, dt, root);
    }
    if (me == root) {
        sm_sched_round(s);
        if (base != root)
            sm_sched_recv(s, rbuf, count, dt, base);
        else
            sm_sched_copy(s, acc, count, dt, rbuf, count, dt);
    }
}

/* rbuf = reduction of src over all ranks (src NULL: rbuf holds this rank's contribution) */
static void b_allreduce(struct sm_sched *s, const void *src, void *rbuf, int count,
                        MPI_Datatype dt, MPI_Op op)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    if (src) {
        sm_sched_round(s);
        sm_sched_copy(s, src, count, dt, rbuf, count, dt);
    }
    if (n == 1 || count == 0)
        return;
    int pof2 = 1;
    while (pof2 * 2 <= n)
        pof2 *= 2;
    int rem = n - pof2, newrank;
    if (me < 2 * rem) {
        sm_sched_round(s);
        if (me % 2 == 0) {
            sm_sched_send(s, rbuf, count, dt, me + 1);
            newrank = -1;
        } else {
            char *tmp = sm_sched_tmp(s, count, dt);
            sm_sched_recv(s, tmp, count, dt, me - 1);
            sm_sched_reduce(s, op, tmp, rbuf, count, dt);
            newrank = me / 2;
        }
    } else {
        newrank = me - rem;
    }
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int nd = newrank ^ mask, dst = nd < rem ? nd * 2 + 1 : nd + rem;
            char *tmp = sm_sched_tmp(s, count, dt);
            sm_sched_round(s);
            sm_sched_send(s, rbuf, count, dt, dst);
            sm_sched_recv(s, tmp, count, dt, dst);
            if (dst < me)
                sm_sched_reduce(s, op, tmp, rbuf, count, dt);
            else
                sm_sched_combine_higher(s, op, rbuf, tmp, count, dt);
        }
    }
    if (me < 2 * rem) {
        sm_sched_round(s);
        if (me % 2)
            sm_sched_send(s, rbuf, count, dt, me - 1);
        else
            sm_sched_recv(s, rbuf, count, dt, me + 1);
    }
}

static void b_scan(struct sm_sched *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                   MPI_Op op, int inclusive)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank, have = inclusive;
    if (count == 0)
        return;
    sm_sched_round(s);
    char *partial = sm_sched_tmp(s, count, dt);
    sm_sched_copy(s, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt, partial, count, dt);
    if (inclusive && sbuf != MPI_IN_PLACE)
        sm_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        int dst = me ^ mask;
        if (dst >= n)
            continue;
        char *tmp = sm_sched_tmp(s, count, dt);
        sm_sched_round(s);
        sm_sched_send(s, partial, count, dt, dst);
        sm_sched_recv(s, tmp, count, dt, dst);
        if (me > dst) {
            if (have) {
                sm_sched_reduce(s, op, tmp, rbuf, count, dt);
            } else {
                sm_sched_copy(s, tmp, count, dt, rbuf, count, dt);
                have = 1;
            }
            sm_sched_reduce(s, op, tmp, partial, count, dt);
        } else {
            sm_sched_combine_higher(s, op, partial, tmp, count, dt);
        }
    }
}

/* ---- Ibarrier, Ibcast --------------------------------------------------------------------- */
#pragma weak MPI_Ibarrier = PMPI_Ibarrier
int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ibarrier";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ibarrier(comm, request, fn);
    struct sm_sched *s = sm_sched_new(comm);
    static char dummy;
    int n = comm->size, me = comm->rank;
    for (int mask = 1; mask < n; mask <<= 1) {
        sm_sched_round(s);
        sm_sched_send(s, &dummy, 0, MPI_BYTE, (me + mask) % n);
        sm_sched_recv(s, &dummy, 0, MPI_BYTE, (me - mask + n) % n);
    }
    return sm_sched_start(s, request);
}

#pragma weak MPI_Ibcast = PMPI_Ibcast
int PMPI_Ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm,
               MPI_Request *request)
{
    const char *fn = "MPI_Ibcast";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ibcast(buf, count, dt, root, comm, request, fn);
    SM_TRY(sm_check_buffer(comm, buf, count, dt, fn));
    SM_TRY(sm_coll_check_root(comm, root, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_sched_add_bcast(s, buf, count, dt, root);
    return sm_sched_start(s, request);
}

/* ---- reductions --------------------------------------------------------------------------- */
#pragma weak MPI_Ireduce = PMPI_Ireduce
int PMPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ireduce";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ireduce(sbuf, rbuf, count, dt, op, root, comm, request, fn);
    SM_TRY(sm_coll_check_root(comm, root, fn));
    SM_TRY(sm_check_buffer(comm, comm->rank == root ? rbuf : sbuf, count, dt, fn));
    if (sbuf == MPI_IN_PLACE && comm->rank != root)
        return sm_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only allowed at the root");
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_sched_add_reduce(s, sbuf, rbuf, count, dt, op, root);
    return sm_sched_start(s, request);
}

#pragma weak MPI_Iallreduce = PMPI_Iallreduce
int PMPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iallreduce";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iallreduce(sbuf, rbuf, count, dt, op, comm, request, fn);
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sm_sched *s = sm_sched_new(comm);
    b_allreduce(s, sbuf == MPI_IN_PLACE ? NULL : sbuf, rbuf, count, dt, op);
    return sm_sched_start(s, request);
}

static int ireduce_scatter(const void *sbuf, void *rbuf, const int *counts, MPI_Datatype dt,
                           MPI_Op op, MPI_Comm c, MPI_Request *request)
{
    int n = c->size, total = 0, mine = 0;
    for (int i = 0; i < n; i++) {
        if (i == c->rank)
            mine = total;
        total += counts[i];
    }
    struct sm_sched *s = sm_sched_new(c);
    char *all = sm_sched_tmp(s, total, dt);
    b_allreduce(s, sbuf == MPI_IN_PLACE ? rbuf : sbuf, all, total, dt, op);
    sm_sched_round(s);
    sm_sched_copy(s, all + (MPI_Aint)mine * dt->extent, counts[c->rank], dt, rbuf, counts[c->rank],
           dt);
    return sm_sched_start(s, request);
}

#pragma weak MPI_Ireduce_scatter = PMPI_Ireduce_scatter
int PMPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ireduce_scatter";
    SM_TRY(check(comm, request, fn));
    if (!rcounts)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts");
    if (sm_comm_is_inter(comm))
        return sm_inter_ireduce_scatter(sbuf, rbuf, rcounts, 0, dt, op, comm, request, fn);
    for (int i = 0; i < comm->size; i++)
        if (rcounts[i] < 0)
            return sm_error(comm, MPI_ERR_COUNT, fn, "count %d is negative", rcounts[i]);
    SM_TRY(sm_check_buffer(comm, rbuf, rcounts[comm->rank], dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    return ireduce_scatter(sbuf, rbuf, rcounts, dt, op, comm, request);
}

#pragma weak MPI_Ireduce_scatter_block = PMPI_Ireduce_scatter_block
int PMPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ireduce_scatter_block";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ireduce_scatter(sbuf, rbuf, NULL, rcount, dt, op, comm, request, fn);
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    int *counts = sm_xmalloc(sizeof(int) * (size_t)comm->size);
    for (int i = 0; i < comm->size; i++)
        counts[i] = rcount;
    int err = ireduce_scatter(sbuf, rbuf, counts, dt, op, comm, request);
    free(counts);
    return err;
}

#pragma weak MPI_Iscan = PMPI_Iscan
int PMPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
              MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iscan";
    SM_TRY(check(comm, request, fn));
    SM_TRY(intra_only(comm, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sm_sched *s = sm_sched_new(comm);
    b_scan(s, sbuf, rbuf, count, dt, op, 1);
    return sm_sched_start(s, request);
}

#pragma weak MPI_Iexscan = PMPI_Iexscan
int PMPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iexscan";
    SM_TRY(check(comm, request, fn));
    SM_TRY(intra_only(comm, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sm_sched *s = sm_sched_new(comm);
    b_scan(s, sbuf, rbuf, count, dt, op, 0);
    return sm_sched_start(s, request);
}

/* ---- Gather(v), Scatter(v) ---------------------------------------------------------------- */
static void b_gatherv(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                      void *rbuf, const int *rcounts, const int *displs, int rcount,
                      MPI_Datatype rt, int root)
{
    MPI_Comm c = s->comm;
    sm_sched_round(s);
    if (c->rank != root) {
        sm_sched_send(s, sbuf, scount, st, root);
        return;
    }
    for (int i = 0; i < c->size; i++) {
        int cnt = rcounts ? rcounts[i] : rcount;
        void *dst = at(rbuf, displs ? displs[i] : (MPI_Aint)i * rcount, rt);
        if (i != root)
            sm_sched_recv(s, dst, cnt, rt, i);
        else if (sbuf != MPI_IN_PLACE)
            sm_sched_copy(s, sbuf, scount, st, dst, cnt, rt);
    }
}

void sm_sched_add_scatterv(struct sm_sched *s, const void *sbuf, const int *scounts,
                           const int *displs, int scount, MPI_Datatype st, void *rbuf, int rcount,
                           MPI_Datatype rt, int root)
{
    MPI_Comm c = s->comm;
    sm_sched_round(s);
    if (c->rank != root) {
        sm_sched_recv(s, rbuf, rcount, rt, root);
        return;
    }
    for (int i = 0; i < c->size; i++) {
        int cnt = scounts ? scounts[i] : scount;
        const void *src = at(sbuf, displs ? displs[i] : (MPI_Aint)i * scount, st);
        if (i != root)
            sm_sched_send(s, src, cnt, st, i);
        else if (rbuf != MPI_IN_PLACE)
            sm_sched_copy(s, src, cnt, st, rbuf, rcount, rt);
    }
}

#pragma weak MPI_Igather = PMPI_Igather
int PMPI_Igather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Igather";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_igatherv(sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, root, comm,
                                 request, fn);
    SM_TRY(sm_coll_check_gather_args(comm, sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, root,
                                     0, fn));
    struct sm_sched *s = sm_sched_new(comm);
    b_gatherv(s, sbuf, scount, st, rbuf, NULL, NULL, rcount, rt, root);
    return sm_sched_start(s, request);
}

#pragma weak MPI_Igatherv = PMPI_Igatherv
int PMPI_Igatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                 const int rcounts[], const int displs[], MPI_Datatype rt, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Igatherv";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_igatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, root, comm,
                                 request, fn);
    SM_TRY(sm_coll_check_gather_args(comm, sbuf, scount, st, rbuf, 0, rcounts, displs, rt, root,
                                     1, fn));
    struct sm_sched *s = sm_sched_new(comm);
    b_gatherv(s, sbuf, scount, st, rbuf, rcounts, displs, 0, rt, root);
    return sm_sched_start(s, request);
}

#pragma weak MPI_Iscatter = PMPI_Iscatter
int PMPI_Iscatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                 MPI_Datatype rt, int root, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iscatter";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iscatterv(sbuf, scount, NULL, NULL, st, rbuf, rcount, rt, root, comm,
                                  request, fn);
    SM_TRY(sm_coll_check_scatter_args(comm, sbuf, scount, NULL, NULL, st, rbuf, rcount, rt,
                                      root, 0, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_sched_add_scatterv(s, sbuf, NULL, NULL, scount, st, rbuf, rcount, rt, root);
    return sm_sched_start(s, request);
}

#pragma weak MPI_Iscatterv = PMPI_Iscatterv
int PMPI_Iscatterv(const void *sbuf, const int scounts[], const int displs[], MPI_Datatype st,
                  void *rbuf, int rcount, MPI_Datatype rt, int root, MPI_Comm comm,
                  MPI_Request *request)
{
    const char *fn = "MPI_Iscatterv";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iscatterv(sbuf, 0, scounts, displs, st, rbuf, rcount, rt, root, comm,
                                  request, fn);
    SM_TRY(sm_coll_check_scatter_args(comm, sbuf, 0, scounts, displs, st, rbuf, rcount, rt,
                                      root, 1, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_sched_add_scatterv(s, sbuf, scounts, displs, 0, st, rbuf, rcount, rt, root);
    return sm_sched_start(s, request);
}

/* ---- Allgather(v): every rank sends its block to every other, one round ------------------ */
static void b_allgatherv(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                         void *rbuf, const int *rcounts, const int *displs, int rcount,
                         MPI_Datatype rt)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
#define RC(i) (rcounts ? rcounts[i] : rcount)
#define RD(i) (displs ? (MPI_Aint)displs[i] : (MPI_Aint)(i) * rcount)
    sm_sched_round(s);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        if (sbuf == MPI_IN_PLACE)
            sm_sched_send(s, at(rbuf, RD(me), rt), RC(me), rt, to);
        else
            sm_sched_send(s, sbuf, scount, st, to);
        sm_sched_recv(s, at(rbuf, RD(from), rt), RC(from), rt, from);
    }
    if (sbuf != MPI_IN_PLACE)
        sm_sched_copy(s, sbuf, scount, st, at(rbuf, RD(me), rt), RC(me), rt);
#undef RC
#undef RD
}

#pragma weak MPI_Iallgather = PMPI_Iallgather
int PMPI_Iallgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                   MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Iallgather";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iallgatherv(sbuf, scount, st, rbuf, rcount, NULL, NULL, rt, comm, request,
                                    fn);
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, rt, fn));
    struct sm_sched *s = sm_sched_new(comm);
    b_allgatherv(s, sbuf, scount, st, rbuf, NULL, NULL, rcount, rt);
    return sm_sched_start(s, request);
}

#pragma weak MPI_Iallgatherv = PMPI_Iallgatherv
int PMPI_Iallgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                    const int rcounts[], const int displs[], MPI_Datatype rt, MPI_Comm comm,
                    MPI_Request *request)
{
    const char *fn = "MPI_Iallgatherv";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iallgatherv(sbuf, scount, st, rbuf, 0, rcounts, displs, rt, comm, request,
                                    fn);
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_dt(comm, rt, fn));
    if (!rcounts || !displs)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    struct sm_sched *s = sm_sched_new(comm);
    b_allgatherv(s, sbuf, scount, st, rbuf, rcounts, displs, 0, rt);
    return sm_sched_start(s, request);
}

/* ---- Alltoall(v,w) ------------------------------------------------------------------------ */
struct a2a { int *sc, *rc; MPI_Aint *sd, *rd; MPI_Datatype *st, *rt; };

static void a2a_alloc(struct sm_sched *s, struct a2a *a, int n)
{
    a->sc = sm_sched_bytes(s, sizeof(int) * (size_t)n);
    a->rc = sm_sched_bytes(s, sizeof(int) * (size_t)n);
    a->sd = sm_sched_bytes(s, sizeof(MPI_Aint) * (size_t)n);
    a->rd = sm_sched_bytes(s, sizeof(MPI_Aint) * (size_t)n);
    a->st = sm_sched_bytes(s, sizeof(MPI_Datatype) * (size_t)n);
    a->rt = sm_sched_bytes(s, sizeof(MPI_Datatype) * (size_t)n);
}

/* the exchange: one round, all posted; MPI_IN_PLACE sends from a copy of the receive buffer,
 * taken when the collective is called */
static void b_alltoallw(struct sm_sched *s, const void *sbuf, struct a2a *a, void *rbuf)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    if (sbuf == MPI_IN_PLACE) {
        MPI_Aint lo = 0, hi = 0;
        int any = 0;
        for (int i = 0; i < n; i++) {
            if (!a->rc[i])
                continue;
            MPI_Datatype t = a->rt[i];
            MPI_Aint tlb = t->basic ? 0 : t->true_lb;
            MPI_Aint text = t->basic ? t->extent : t->true_extent;
            MPI_Aint l = a->rd[i] + tlb;
            MPI_Aint h = a->rd[i] + tlb + (MPI_Aint)(a->rc[i] - 1) * t->extent + text;
            if (!any || l < lo)
                lo = l;
            if (!any || h > hi)
                hi = h;
            any = 1;
        }
        char *copy = sm_sched_bytes(s, (size_t)(hi - lo));
        if (any)
            memcpy(copy, (const char *)rbuf + lo, (size_t)(hi - lo));
        sbuf = copy - lo;
        for (int i = 0; i < n; i++) {
            a->sc[i] = a->rc[i];
            a->sd[i] = a->rd[i];
            a->st[i] = a->rt[i];
        }
    }
    sm_sched_round(s);
    for (int k = 1; k < n; k++) {
        int to = (me + k) % n, from = (me - k + n) % n;
        sm_sched_recv(s, (char *)rbuf + a->rd[from], a->rc[from], a->rt[from], from);
        sm_sched_send(s, (const char *)sbuf + a->sd[to], a->sc[to], a->st[to], to);
    }
    sm_sched_copy(s, (const char *)sbuf + a->sd[me], a->sc[me], a->st[me], (char *)rbuf + a->rd[me],
           a->rc[me], a->rt[me]);
}

#pragma weak MPI_Ialltoall = PMPI_Ialltoall
int PMPI_Ialltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                  MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ialltoall";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ialltoallw(0, sbuf, scount, NULL, NULL, &st, rbuf, rcount, NULL, NULL,
                                   &rt, comm, request, fn);
    SM_TRY(sm_coll_check_buf(comm, sbuf, scount, st, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, rt, fn));
    int n = comm->size;
    struct sm_sched *s = sm_sched_new(comm);
    struct a2a a;
    a2a_alloc(s, &a, n);
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
    b_alltoallw(s, sbuf, &a, rbuf);
    return sm_sched_start(s, request);
}

#pragma weak MPI_Ialltoallv = PMPI_Ialltoallv
int PMPI_Ialltoallv(const void *sbuf, const int scounts[], const int sdispls[], MPI_Datatype st,
                   void *rbuf, const int rcounts[], const int rdispls[], MPI_Datatype rt,
                   MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Ialltoallv";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ialltoallw(1, sbuf, 0, scounts, sdispls, &st, rbuf, 0, rcounts, rdispls,
                                   &rt, comm, request, fn);
    SM_TRY(sm_check_dt(comm, rt, fn));
    if (!rcounts || !rdispls || (sbuf != MPI_IN_PLACE && (!scounts || !sdispls)))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts or displacements");
    if (sbuf != MPI_IN_PLACE)
        SM_TRY(sm_check_dt(comm, st, fn));
    int n = comm->size;
    struct sm_sched *s = sm_sched_new(comm);
    struct a2a a;
    a2a_alloc(s, &a, n);
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
    b_alltoallw(s, sbuf, &a, rbuf);
    return sm_sched_start(s, request);
}

#pragma weak MPI_Ialltoallw = PMPI_Ialltoallw
int PMPI_Ialltoallw(const void *sbuf, const int scounts[], const int sdispls[],
                   const MPI_Datatype sts[], void *rbuf, const int rcounts[],
                   const int rdispls[], const MPI_Datatype rts[], MPI_Comm comm,
                   MPI_Request *request)
{
    const char *fn = "MPI_Ialltoallw";
    SM_TRY(check(comm, request, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ialltoallw(2, sbuf, 0, scounts, sdispls, sts, rbuf, 0, rcounts, rdispls,
                                   rts, comm, request, fn);
    if (!rcounts || !rdispls || !rts ||
        (sbuf != MPI_IN_PLACE && (!scounts || !sdispls || !sts)))
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts, displacements or types");
    int n = comm->size;
    for (int i = 0; i < n; i++) {
        SM_TRY(sm_check_dt(comm, rts[i], fn));
        if (sbuf != MPI_IN_PLACE)
            SM_TRY(sm_check_dt(comm, sts[i], fn));
    }
    struct sm_sched *s = sm_sched_new(comm);
    struct a2a a;
    a2a_alloc(s, &a, n);
    for (int i = 0; i < n; i++) {
        a.rc[i] = rcounts[i];
        a.rd[i] = rdispls[i];
        a.rt[i] = rts[i];
        if (sbuf != MPI_IN_PLACE) {
            a.sc[i] = scounts[i];
            a.sd[i] = sdispls[i];
            a.st[i] = sts[i];
        }
    }
    b_alltoallw(s, sbuf, &a, rbuf);
    return sm_sched_start(s, request);
}
