/* coll_reduce.c — blocking reductions: Reduce (binomial tree; non-commutative ops reduce in
 * rank order towards rank 0), Allreduce (recursive doubling with the fold for non-powers of
 * two, order-preserving), Reduce_scatter(_block) (pairwise exchange for commutative ops and
 * large vectors, coll_algo.c; else allreduce, keep my block), Scan and Exscan (recursive
 * doubling). */
#include "coll/icoll.h"


static int fail(MPI_Comm c, int err, const char *fn)
{
    return err ? sm_error(c, err, fn, NULL) : MPI_SUCCESS;
}

/* a = b op a where b comes from lower ranks; for the other order the result goes through t */
static void combine_lower(MPI_Op op, const void *lower, void *acc, int n, MPI_Datatype dt)
{
    sm_op_apply(op, lower, acc, n, dt);
}
static void combine_higher(MPI_Op op, void *acc, void *higher, int n, MPI_Datatype dt)
{
    if (op->commute) {
        sm_op_apply(op, higher, acc, n, dt);
    } else {
        sm_op_apply(op, acc, higher, n, dt); /* higher = acc op higher */
        sm_dt_copy(higher, n, dt, acc, n, dt);
    }
}

int sm_coll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm c)
{
    int n = c->size, me = c->rank, tag = sm_coll_tag(c), err = 0;
    const void *src = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
    if (count == 0)
        return MPI_SUCCESS;
    if (n == 1) {
        if (sbuf != MPI_IN_PLACE)
            sm_dt_copy(sbuf, count, dt, rbuf, count, dt);
        return MPI_SUCCESS;
    }
    int base = op->commute ? root : 0; /* tree root */
    int rel = (me - base + n) % n;
    void *b1, *b2;
    char *acc = sm_dt_tmp(count, dt, &b1), *tmp = sm_dt_tmp(count, dt, &b2);
    sm_dt_copy(src, count, dt, acc, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        if (rel & mask) {
            err = c_send(acc, count, dt, (rel - mask + base) % n, tag, c);
            break;
        }
        if (rel + mask < n) {
            int e = c_recv(tmp, count, dt, (rel + mask + base) % n, tag, c);
            if (e && !err)
                err = e;
            combine_higher(op, acc, tmp, count, dt);
        }
    }
    if (me == base && base != root)
        err = c_send(acc, count, dt, root, tag, c);
    if (me == root) {
        if (base != root)
            err = c_recv(rbuf, count, dt, base, tag, c);
        else
            sm_dt_copy(acc, count, dt, rbuf, count, dt);
    }
    free(b1);
    free(b2);
    return err;
}

#pragma weak MPI_Reduce = PMPI_Reduce
int PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    const char *fn = "MPI_Reduce";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_reduce(sbuf, rbuf, count, dt, op, root, comm);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_coll_check_root(comm, root, fn));
    SM_TRY(sm_check_buffer(comm, comm->rank == root ? rbuf : sbuf, count, dt, fn));
    if (sbuf == MPI_IN_PLACE && comm->rank != root)
        return sm_error(comm, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is only allowed at the root");
    SM_TRY(sm_op_check(comm, op, dt, fn));
    return fail(comm, sm_coll_reduce(sbuf, rbuf, count, dt, op, root, comm), fn);
}

int sm_coll_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm c)
{
    int n = c->size, me = c->rank, tag = sm_coll_tag(c), err = 0, e;
    if (sbuf != MPI_IN_PLACE)
        sm_dt_copy(sbuf, count, dt, rbuf, count, dt);
    if (n == 1 || count == 0)
        return MPI_SUCCESS;
    int pof2 = 1;
    while (pof2 * 2 <= n)
        pof2 *= 2;
    if (op->commute && count >= pof2 &&
        sm_dt_psize(dt) * (size_t)count >= sm_coll_tunables()->allreduce_rab)
        return sm_coll_allreduce_rabenseifner(rbuf, count, dt, op, tag, c);
    void *b;
    char *tmp = sm_dt_tmp(count, dt, &b);
    int rem = n - pof2;
    int newrank = sm_coll_pof2_enter(rbuf, tmp, count, dt, op, pof2, tag, c, &err);
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int nd = newrank ^ mask, dst = sm_coll_pof2_real(nd, rem);
            e = c_sendrecv(rbuf, count, dt, dst, tmp, count, dt, dst, tag, c);
            if (e && !err)
                err = e;
            if (dst < me)
                combine_lower(op, tmp, rbuf, count, dt);
            else
                combine_higher(op, rbuf, tmp, count, dt);
        }
    }
    sm_coll_pof2_leave(rbuf, count, dt, pof2, tag, c, &err);
    free(b);
    return err;
}

#pragma weak MPI_Allreduce = PMPI_Allreduce
int PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    const char *fn = "MPI_Allreduce";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_allreduce(sbuf, rbuf, count, dt, op, comm);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    return fail(comm, sm_coll_allreduce(sbuf, rbuf, count, dt, op, comm), fn);
}

static int reduce_scatter(const void *sbuf, void *rbuf, const int *counts, MPI_Datatype dt,
                          MPI_Op op, MPI_Comm c)
{
    int n = c->size, total = 0, mine = 0;
    for (int i = 0; i < n; i++) {
        if (i == c->rank)
            mine = total;
        total += counts[i];
    }
    if (n > 1 && op->commute &&
        sm_dt_psize(dt) * (size_t)total >= sm_coll_tunables()->redscat_pairwise)
        return sm_coll_reduce_scatter_pairwise(sbuf, rbuf, counts, dt, op, c);
    void *b;
    char *all = sm_dt_tmp(total, dt, &b);
    int err = sm_coll_allreduce(sbuf == MPI_IN_PLACE ? rbuf : sbuf, all, total, dt, op, c);
    sm_dt_copy(all + (MPI_Aint)mine * dt->extent, counts[c->rank], dt, rbuf, counts[c->rank],
               dt);
    free(b);
    return err;
}

#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
int PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int rcounts[], MPI_Datatype dt,
                       MPI_Op op, MPI_Comm comm)
{
    const char *fn = "MPI_Reduce_scatter";
    SM_TRY(sm_check_comm(comm, fn));
    if (!rcounts)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts");
    if (sm_comm_is_inter(comm))
        return sm_inter_ireduce_scatter(sbuf, rbuf, rcounts, 0, dt, op, comm, NULL, fn);
    SM_TRY(sm_coll_check(comm, fn));
    if (!rcounts)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL counts");
    SM_TRY(sm_check_buffer(comm, rbuf, rcounts[comm->rank], dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    return fail(comm, reduce_scatter(sbuf, rbuf, rcounts, dt, op, comm), fn);
}

#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
int PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm)
{
    const char *fn = "MPI_Reduce_scatter_block";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_inter_ireduce_scatter(sbuf, rbuf, NULL, rcount, dt, op, comm, NULL, fn);
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, rcount, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    int *counts = sm_xmalloc(sizeof(int) * (size_t)comm->size);
    for (int i = 0; i < comm->size; i++)
        counts[i] = rcount;
    int err = reduce_scatter(sbuf, rbuf, counts, dt, op, comm);
    free(counts);
    return fail(comm, err, fn);
}

/* inclusive (exclusive = 0) or exclusive prefix reduction by recursive doubling */
static int scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                int inclusive, MPI_Comm c)
{
    int n = c->size, me = c->rank, tag = sm_coll_tag(c), err = 0, have = inclusive;
    if (count == 0)
        return MPI_SUCCESS;
    void *b1, *b2;
    char *partial = sm_dt_tmp(count, dt, &b1), *tmp = sm_dt_tmp(count, dt, &b2);
    sm_dt_copy(sbuf == MPI_IN_PLACE ? rbuf : sbuf, count, dt, partial, count, dt);
    if (inclusive && sbuf != MPI_IN_PLACE)
        sm_dt_copy(sbuf, count, dt, rbuf, count, dt);
    for (int mask = 1; mask < n; mask <<= 1) {
        int dst = me ^ mask;
        if (dst >= n)
            continue;
        int e = c_sendrecv(partial, count, dt, dst, tmp, count, dt, dst, tag, c);
        if (e && !err)
            err = e;
        if (me > dst) {
            if (have) {
                combine_lower(op, tmp, rbuf, count, dt);
            } else {
                sm_dt_copy(tmp, count, dt, rbuf, count, dt);
                have = 1;
            }
            combine_lower(op, tmp, partial, count, dt);
        } else {
            combine_higher(op, partial, tmp, count, dt);
        }
    }
    free(b1);
    free(b2);
    return err;
}

#pragma weak MPI_Scan = PMPI_Scan
int PMPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, MPI_Comm comm)
{
    const char *fn = "MPI_Scan";
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    return fail(comm, scan(sbuf, rbuf, count, dt, op, 1, comm), fn);
}

#pragma weak MPI_Exscan = PMPI_Exscan
int PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
               MPI_Comm comm)
{
    const char *fn = "MPI_Exscan";
    SM_TRY(sm_coll_check(comm, fn));
    SM_TRY(sm_check_buffer(comm, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(comm, op, dt, fn));
    return fail(comm, scan(sbuf, rbuf, count, dt, op, 0, comm), fn);
}
