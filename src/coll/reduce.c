/* reduce.c — the reductions, blocking and non-blocking: Reduce (binomial tree; non-commutative
 * ops reduce in rank order towards rank 0), Allreduce (recursive doubling with the fold for
 * non-powers of two, order-preserving; Rabenseifner for large vectors and commutative ops),
 * Reduce_scatter(_block) (pairwise exchange for commutative ops and large vectors, else
 * allreduce and keep my block), Scan and Exscan (recursive doubling).  Each has one builder
 * (coll.h) shared by its blocking, non-blocking and persistent forms, and one argument check
 * for the blocking and non-blocking entry points (how NULL: blocking). */
#include "coll/coll.h"

/* ---- Reduce -------------------------------------------------------------------------------- */
void sm_build_reduce(struct sm_sched *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                     MPI_Op op, int root)
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
    int base = op->commute ? root : 0, rel = (me - base + n) % n; /* tree root */
    char *acc = sm_sched_tmp(s, count, dt), *tmp = NULL;
    sm_sched_copy(s, src, count, dt, acc, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        if (rel & mask) {
            sm_sched_round(s);
            sm_sched_send(s, acc, count, dt, (rel - mask + base) % n);
            break;
        }
        if (rel + mask < n) {
            if (!tmp)
                tmp = sm_sched_tmp(s, count, dt);
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

static int reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                  MPI_Comm comm, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ireduce(sbuf, rbuf, count, dt, op, root, comm, how, fn);
    SM_TRY(sm_coll_check_root(comm, root, fn));
    SM_TRY(sm_check_buffer(comm, comm->rank == root ? rbuf : sbuf, count, dt, fn));
    if (sbuf == MPI_IN_PLACE && comm->rank != root)
        return sm_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only allowed at the root");
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_build_reduce(s, sbuf, rbuf, count, dt, op, root);
    return sm_sched_run(s, how, fn);
}

int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                MPI_Comm comm)
{
    return reduce(sbuf, rbuf, count, dt, op, root, comm, NULL, "MPI_Reduce");
}

int PMPI_Ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                 MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Ireduce"));
    return reduce(sbuf, rbuf, count, dt, op, root, comm, SM_NB(request), "MPI_Ireduce");
}

/* ---- Allreduce ----------------------------------------------------------------------------- */
void sm_build_allreduce(struct sm_sched *s, const void *sbuf, void *rbuf, int count,
                        MPI_Datatype dt, MPI_Op op)
{
    int n = s->comm->size;
    if (sbuf != MPI_IN_PLACE) {
        sm_sched_round(s);
        sm_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    }
    if (n == 1 || count == 0)
        return;
    if (op->commute && count >= sm_algo_pof2_below(n) &&
        sm_dt_psize(dt) * (size_t)count >= sm_coll_tunables()->allreduce_rab)
        sm_algo_allreduce_rabenseifner(s, rbuf, count, dt, op);
    else
        sm_algo_allreduce_recdbl(s, rbuf, count, dt, op);
}

int sm_coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm c)
{
    struct sm_sched *s = sm_sched_new(c);
    sm_build_allreduce(s, sbuf, rbuf, count, dt, op);
    return sm_sched_wait(s);
}

static int allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_iallreduce(sbuf, rbuf, count, dt, op, comm, how, fn);
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_build_allreduce(s, sbuf, rbuf, count, dt, op);
    return sm_sched_run(s, how, fn);
}

int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm)
{
    return allreduce(sbuf, rbuf, count, dt, op, comm, NULL, "MPI_Allreduce");
}

int PMPI_Iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                    MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Iallreduce"));
    return allreduce(sbuf, rbuf, count, dt, op, comm, SM_NB(request), "MPI_Iallreduce");
}

/* ---- Reduce_scatter(_block) ---------------------------------------------------------------- */
void sm_build_reduce_scatter(struct sm_sched *s, const void *sbuf, void *rbuf, const int *counts,
                             int rcount, MPI_Datatype dt, MPI_Op op)
{
    MPI_Comm c = s->comm;
    int n = c->size, total = 0, mine = 0;
    if (!counts) {
        int *k = sm_sched_bytes(s, sizeof(int) * (size_t)n);
        for (int i = 0; i < n; i++)
            k[i] = rcount;
        counts = k;
    }
    for (int i = 0; i < n; i++) {
        if (i == c->rank)
            mine = total;
        total += counts[i];
    }
    if (n > 1 && op->commute &&
        sm_dt_psize(dt) * (size_t)total >= sm_coll_tunables()->redscat_pairwise) {
        sm_algo_reduce_scatter_pairwise(s, sbuf, rbuf, counts, dt, op);
        return;
    }
    char *all = sm_sched_tmp(s, total, dt);
    sm_build_allreduce(s, sbuf == MPI_IN_PLACE ? rbuf : sbuf, all, total, dt, op);
    sm_sched_round(s);
    sm_sched_copy(s, all + (MPI_Aint)mine * dt->extent, counts[c->rank], dt, rbuf,
                  counts[c->rank], dt);
}

/* rcounts NULL: Reduce_scatter_block */
static int reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, int rcount,
                          MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int is_block,
                          const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (!is_block && !rcounts)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts");
    if (sm_comm_is_inter(comm))
        return sm_inter_ireduce_scatter(sbuf, rbuf, rcounts, rcount, dt, op, comm, how, fn);
    if (!is_block)
        for (int i = 0; i < comm->size; i++)
            if (rcounts[i] < 0)
                return sm_error(comm, MPI_ERR_COUNT, fn, "count %d is negative", rcounts[i]);
    SM_TRY(sm_check_buffer(comm, rbuf, is_block ? rcount : rcounts[comm->rank], dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_build_reduce_scatter(s, sbuf, rbuf, rcounts, rcount, dt, op);
    return sm_sched_run(s, how, fn);
}

int PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                        MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(sbuf, rbuf, rcounts, 0, dt, op, comm, 0, NULL, "MPI_Reduce_scatter");
}

int PMPI_Ireduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                         MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Ireduce_scatter"));
    return reduce_scatter(sbuf, rbuf, rcounts, 0, dt, op, comm, 0, SM_NB(request),
                          "MPI_Ireduce_scatter");
}

int PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                              MPI_Op op, MPI_Comm comm)
{
    return reduce_scatter(sbuf, rbuf, NULL, rcount, dt, op, comm, 1, NULL,
                          "MPI_Reduce_scatter_block");
}

int PMPI_Ireduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                               MPI_Op op, MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Ireduce_scatter_block"));
    return reduce_scatter(sbuf, rbuf, NULL, rcount, dt, op, comm, 1, SM_NB(request),
                          "MPI_Ireduce_scatter_block");
}

/* ---- Scan, Exscan: inclusive (exclusive = 0) or exclusive prefix by recursive doubling ---- */
void sm_build_scan(struct sm_sched *s, const void *sbuf, void *rbuf, int count, MPI_Datatype dt,
                   MPI_Op op, int inclusive)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank, have = inclusive;
    if (count == 0)
        return;
    sm_sched_round(s);
    char *partial = sm_sched_tmp(s, count, dt), *tmp = sm_sched_tmp(s, count, dt);
    sm_sched_copy(s, sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt, partial, count, dt);
    if (inclusive && sbuf != MPI_IN_PLACE)
        sm_sched_copy(s, sbuf, count, dt, rbuf, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        int dst = me ^ mask;
        if (dst >= n)
            continue;
        sm_sched_round(s);
        sm_sched_recv(s, tmp, count, dt, dst);
        sm_sched_send(s, partial, count, dt, dst);
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

static int scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                int inclusive, MPI_Comm comm, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_coll_check(comm, fn)); /* not defined on intercommunicators */
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    struct sm_sched *s = sm_sched_new(comm);
    sm_build_scan(s, sbuf, rbuf, count, dt, op, inclusive);
    return sm_sched_run(s, how, fn);
}

int PMPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    return scan(sbuf, rbuf, count, dt, op, 1, comm, NULL, "MPI_Scan");
}

int PMPI_Iscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
               MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Iscan"));
    return scan(sbuf, rbuf, count, dt, op, 1, comm, SM_NB(request), "MPI_Iscan");
}

int PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                MPI_Comm comm)
{
    return scan(sbuf, rbuf, count, dt, op, 0, comm, NULL, "MPI_Exscan");
}

int PMPI_Iexscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                 MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Iexscan"));
    return scan(sbuf, rbuf, count, dt, op, 0, comm, SM_NB(request), "MPI_Iexscan");
}

/* ---- persistent forms (MPI-4): the schedule is built here and run at every MPI_Start ---- */
int PMPI_Reduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Reduce_init"));
    return reduce(sbuf, rbuf, count, dt, op, root, comm, SM_INIT(request), "MPI_Reduce_init");
}

int PMPI_Allreduce_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Allreduce_init"));
    return allreduce(sbuf, rbuf, count, dt, op, comm, SM_INIT(request), "MPI_Allreduce_init");
}

int PMPI_Reduce_scatter_init(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Reduce_scatter_init"));
    return reduce_scatter(sbuf, rbuf, rcounts, 0, dt, op, comm, 0, SM_INIT(request),
                          "MPI_Reduce_scatter_init");
}

int PMPI_Reduce_scatter_block_init(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                                   MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Reduce_scatter_block_init"));
    return reduce_scatter(sbuf, rbuf, NULL, rcount, dt, op, comm, 1, SM_INIT(request),
                          "MPI_Reduce_scatter_block_init");
}

int PMPI_Scan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Scan_init"));
    return scan(sbuf, rbuf, count, dt, op, 1, comm, SM_INIT(request), "MPI_Scan_init");
}

int PMPI_Exscan_init(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Exscan_init"));
    return scan(sbuf, rbuf, count, dt, op, 0, comm, SM_INIT(request), "MPI_Exscan_init");
}
