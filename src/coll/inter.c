/* inter.c — collectives on intercommunicators as schedules (sched.h), blocking (the same
 * schedule, waited for) and non-blocking.  Data movement is direct between the groups (root
 * to every remote rank; every rank to every remote rank for Allgather(v) / Alltoall(v,w));
 * reductions combine
 * in each group on the hidden local communicator (binomial, rank order for non-commutative
 * ops) to the local leader, the two leaders swap, and each leader broadcasts or scatters what
 * it got to its group.  Roots follow MPI_ROOT / MPI_PROC_NULL; MPI_IN_PLACE is refused, as
 * the standard says for intercommunicators. */
#include "coll/coll.h"

int sm_inter_check_root(MPI_Comm c, int root, const char *fn)
{
    if (root == MPI_ROOT || root == MPI_PROC_NULL || (root >= 0 && root < c->size))
        return MPI_SUCCESS;
    return sm_error(c, MPI_ERR_ROOT, fn, "root %d is not MPI_ROOT, MPI_PROC_NULL or in [0, %d)",
                    root, c->size);
}

int sm_inter_no_in_place(MPI_Comm c, const void *buf, const char *fn)
{
    if (buf == MPI_IN_PLACE)
        return sm_error(c, MPI_ERR_BUFFER, fn,
                        "MPI_IN_PLACE is not allowed on intercommunicators");
    return MPI_SUCCESS;
}

static MPI_Comm local_of(MPI_Comm c)
{
    return c->x->local_comm;
}

static int check_counts(MPI_Comm c, const int *counts, const int *displs, int n, const char *fn)
{
    if (!counts || !displs)
        return sm_error(c, MPI_ERR_ARG, fn, "NULL counts or displacements");
    for (int i = 0; i < n; i++)
        if (counts[i] < 0)
            return sm_error(c, MPI_ERR_COUNT, fn, "count %d (rank %d) is negative", counts[i], i);
    return MPI_SUCCESS;
}

/* the local leader's exchange with the remote leader, as one round on the intercommunicator */
static void leader_swap(struct sm_sched *s, const void *sb, void *rb, int count, MPI_Datatype dt)
{
    MPI_Comm c = s->owner;
    if (local_of(c)->rank != 0)
        return;
    s->comm = c;
    sm_sched_round(s);
    sm_sched_send(s, sb, count, dt, 0);
    sm_sched_recv(s, rb, count, dt, 0);
}

/* ---- Ibarrier: local ranks report to the leader, leaders swap, leaders release -------------- */
int sm_inter_ibarrier(MPI_Comm c, const struct sm_how *how, const char *fn)
{
    static char dummy;
    struct sm_sched *s = sm_sched_new(c);
    MPI_Comm l = local_of(c);
    s->comm = l;
    if (l->size > 1) {
        sm_sched_round(s);
        if (l->rank == 0)
            for (int i = 1; i < l->size; i++)
                sm_sched_recv(s, &dummy, 0, MPI_BYTE, i);
        else
            sm_sched_send(s, &dummy, 0, MPI_BYTE, 0);
    }
    leader_swap(s, &dummy, &dummy, 0, MPI_BYTE);
    s->comm = l;
    if (l->size > 1) {
        sm_sched_round(s);
        if (l->rank == 0)
            for (int i = 1; i < l->size; i++)
                sm_sched_send(s, &dummy, 0, MPI_BYTE, i);
        else
            sm_sched_recv(s, &dummy, 0, MPI_BYTE, 0);
    }
    return sm_sched_run(s, how, fn);
}

/* ---- Ibcast: the root sends to every remote rank ---------------------------------------- */
int sm_inter_ibcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c,
                    const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_inter_check_root(c, root, fn));
    if (root != MPI_PROC_NULL)
        SM_TRY(sm_check_buffer(c, buf, count, dt, fn));
    struct sm_sched *s = sm_sched_new(c);
    if (root != MPI_PROC_NULL && count > 0) {
        sm_sched_round(s);
        if (root == MPI_ROOT)
            for (int i = 0; i < c->size; i++)
                sm_sched_send(s, buf, count, dt, i);
        else
            sm_sched_recv(s, buf, count, dt, root);
    }
    return sm_sched_run(s, how, fn);
}

/* ---- reductions ------------------------------------------------------------------------- */
/* the reduction of the local group's sbuf, at the local leader (NULL elsewhere) */
static void *reduce_to_leader(struct sm_sched *s, const void *sbuf, int count, MPI_Datatype dt,
                              MPI_Op op)
{
    MPI_Comm l = local_of(s->owner);
    void *acc = l->rank == 0 ? sm_sched_tmp(s, count, dt) : NULL;
    s->comm = l;
    sm_build_reduce(s, sbuf, acc, count, dt, op, 0);
    return acc;
}

int sm_inter_ireduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                     int root, MPI_Comm c, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_inter_check_root(c, root, fn));
    if (root != MPI_PROC_NULL)
        SM_TRY(sm_op_check(c, op, dt, fn));
    if (root == MPI_ROOT)
        SM_TRY(sm_check_buffer(c, rbuf, count, dt, fn));
    if (root >= 0) {
        SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
        SM_TRY(sm_check_buffer(c, sbuf, count, dt, fn));
    }
    struct sm_sched *s = sm_sched_new(c);
    if (root == MPI_ROOT && count > 0) {
        sm_sched_round(s);
        sm_sched_recv(s, rbuf, count, dt, 0);
    } else if (root >= 0 && count > 0) {
        void *acc = reduce_to_leader(s, sbuf, count, dt, op);
        if (acc) {
            s->comm = c;
            sm_sched_round(s);
            sm_sched_send(s, acc, count, dt, root);
        }
    }
    return sm_sched_run(s, how, fn);
}

int sm_inter_iallreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                        MPI_Comm c, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
    SM_TRY(sm_check_buffer(c, sbuf, count, dt, fn));
    SM_TRY(sm_check_buffer(c, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(c, op, dt, fn));
    struct sm_sched *s = sm_sched_new(c);
    if (count > 0) {
        void *acc = reduce_to_leader(s, sbuf, count, dt, op);
        leader_swap(s, acc, rbuf, count, dt);
        s->comm = local_of(c);
        sm_build_bcast(s, rbuf, count, dt, 0);
    }
    return sm_sched_run(s, how, fn);
}

/* the reduction of the remote group's vectors (sum of the local counts long), scattered over
 * the local group by the local counts */
int sm_inter_ireduce_scatter(const void *sbuf, void *rbuf, const int *rcounts, int rcount,
                             MPI_Datatype dt, MPI_Op op, MPI_Comm c, const struct sm_how *how,
                             const char *fn)
{
    MPI_Comm l = local_of(c);
    int n = l->size;
    long long total = 0;
    for (int i = 0; i < n; i++) {
        int k = rcounts ? rcounts[i] : rcount;
        if (k < 0)
            return sm_error(c, MPI_ERR_COUNT, fn, "count %d is negative", k);
        total += k;
    }
    if (total > 0x7fffffff)
        return sm_error(c, MPI_ERR_COUNT, fn, "the counts add up to more than INT_MAX");
    SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
    SM_TRY(sm_check_buffer(c, sbuf, (int)total, dt, fn));
    SM_TRY(sm_check_buffer(c, rbuf, rcounts ? rcounts[l->rank] : rcount, dt, fn));
    SM_TRY(sm_op_check(c, op, dt, fn));
    struct sm_sched *s = sm_sched_new(c);
    int *counts = sm_sched_bytes(s, sizeof(int) * (size_t)n);
    int *displs = sm_sched_bytes(s, sizeof(int) * (size_t)n);
    for (int i = 0, d = 0; i < n; i++) {
        counts[i] = rcounts ? rcounts[i] : rcount;
        displs[i] = d;
        d += counts[i];
    }
    if (total > 0) {
        void *acc = reduce_to_leader(s, sbuf, (int)total, dt, op);
        void *theirs = l->rank == 0 ? sm_sched_tmp(s, (int)total, dt) : NULL;
        leader_swap(s, acc, theirs, (int)total, dt);
        s->comm = l;
        sm_build_scatterv(s, theirs, counts, displs, 0, dt, rbuf, counts[l->rank], dt, 0);
    }
    return sm_sched_run(s, how, fn);
}

/* ---- Gather(v), Scatter(v): between the root and every remote rank ---------------------- */
int sm_inter_igatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      const int *rcounts, const int *displs, MPI_Datatype rt, int root,
                      MPI_Comm c, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_inter_check_root(c, root, fn));
    if (root == MPI_ROOT) {
        if (rcounts || displs)
            SM_TRY(check_counts(c, rcounts, displs, c->size, fn));
        SM_TRY(sm_check_buffer(c, rbuf, rcounts ? 0 : rcount, rt, fn));
    } else if (root >= 0) {
        SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
        SM_TRY(sm_check_buffer(c, sbuf, scount, st, fn));
    }
    struct sm_sched *s = sm_sched_new(c);
    if (root == MPI_ROOT) {
        sm_sched_round(s);
        for (int i = 0; i < c->size; i++)
            sm_sched_recv(s, at(rbuf, displs ? displs[i] : (MPI_Aint)i * rcount, rt),
                          rcounts ? rcounts[i] : rcount, rt, i);
    } else if (root >= 0) {
        sm_sched_round(s);
        sm_sched_send(s, sbuf, scount, st, root);
    }
    return sm_sched_run(s, how, fn);
}

int sm_inter_iscatterv(const void *sbuf, int scount, const int *scounts, const int *displs,
                       MPI_Datatype st, void *rbuf, int rcount, MPI_Datatype rt, int root,
                       MPI_Comm c, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_inter_check_root(c, root, fn));
    if (root == MPI_ROOT) {
        if (scounts || displs)
            SM_TRY(check_counts(c, scounts, displs, c->size, fn));
        SM_TRY(sm_check_buffer(c, sbuf, scounts ? 0 : scount, st, fn));
    } else if (root >= 0) {
        SM_TRY(sm_inter_no_in_place(c, rbuf, fn));
        SM_TRY(sm_check_buffer(c, rbuf, rcount, rt, fn));
    }
    struct sm_sched *s = sm_sched_new(c);
    if (root == MPI_ROOT) {
        sm_sched_round(s);
        for (int i = 0; i < c->size; i++)
            sm_sched_send(s, at(sbuf, displs ? displs[i] : (MPI_Aint)i * scount, st),
                          scounts ? scounts[i] : scount, st, i);
    } else if (root >= 0) {
        sm_sched_round(s);
        sm_sched_recv(s, rbuf, rcount, rt, root);
    }
    return sm_sched_run(s, how, fn);
}

/* ---- Allgather(v), Alltoall(v,w): every rank with every remote rank, one round ------------ */
int sm_inter_iallgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                         const int *rcounts, const int *displs, MPI_Datatype rt, MPI_Comm c,
                         const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
    SM_TRY(sm_check_buffer(c, sbuf, scount, st, fn));
    if (rcounts || displs)
        SM_TRY(check_counts(c, rcounts, displs, c->size, fn));
    SM_TRY(sm_check_buffer(c, rbuf, rcounts ? 0 : rcount, rt, fn));
    struct sm_sched *s = sm_sched_new(c);
    int n = c->size;
    sm_sched_round(s);
    for (int k = 0; k < n; k++) { /* start at my own rank so the first peers differ */
        int i = (c->rank + k) % n;
        sm_sched_recv(s, at(rbuf, displs ? displs[i] : (MPI_Aint)i * rcount, rt),
                      rcounts ? rcounts[i] : rcount, rt, i);
        sm_sched_send(s, sbuf, scount, st, i);
    }
    return sm_sched_run(s, how, fn);
}

int sm_inter_ialltoallw(int kind, const void *sbuf, int scount, const int *scounts,
                        const int *sdispls, const MPI_Datatype *sts, void *rbuf, int rcount,
                        const int *rcounts, const int *rdispls, const MPI_Datatype *rts,
                        MPI_Comm c, const struct sm_how *how, const char *fn)
{
    int n = c->size;
    SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
    if (kind == 0) {
        SM_TRY(sm_check_buffer(c, sbuf, scount, sts[0], fn));
        SM_TRY(sm_check_buffer(c, rbuf, rcount, rts[0], fn));
    } else {
        SM_TRY(check_counts(c, scounts, sdispls, n, fn));
        SM_TRY(check_counts(c, rcounts, rdispls, n, fn));
        if (kind == 2 && (!sts || !rts))
            return sm_error(c, MPI_ERR_ARG, fn, "NULL type arrays");
        for (int i = 0; i < (kind == 2 ? n : 1); i++) {
            SM_TRY(sm_check_dt(c, sts[i], fn));
            SM_TRY(sm_check_dt(c, rts[i], fn));
        }
    }
    struct sm_sched *s = sm_sched_new(c);
    sm_sched_round(s);
    for (int k = 0; k < n; k++) {
        int i = (c->rank + k) % n;
        MPI_Datatype st = sts[kind == 2 ? i : 0], rt = rts[kind == 2 ? i : 0];
        const char *sp;
        char *rp;
        if (kind == 2) {
            sp = (const char *)sbuf + sdispls[i];
            rp = (char *)rbuf + rdispls[i];
        } else {
            sp = at(sbuf, kind ? sdispls[i] : (MPI_Aint)i * scount, st);
            rp = at(rbuf, kind ? rdispls[i] : (MPI_Aint)i * rcount, rt);
        }
        sm_sched_recv(s, rp, kind ? rcounts[i] : rcount, rt, i);
        sm_sched_send(s, sp, kind ? scounts[i] : scount, st, i);
    }
    return sm_sched_run(s, how, fn);
}
