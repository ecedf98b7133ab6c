/* coll_inter.c — blocking collectives on intercommunicators (Bcast, Allreduce, Allgather,
 * Gather, Scatter, Alltoall, Reduce; Barrier is in comm.c) with the MPI_ROOT / MPI_PROC_NULL
 * root semantics.  Rooted ones between the root and the other group: the root talks to the
 * remote leader (rank 0) or to every remote rank directly; the all-to-all ones reduce or gather
 * in each group over the hidden local intracommunicator, the two leaders swap, and each leader
 * broadcasts what it got.  Every call takes one tag of the intercommunicator on every process
 * of both groups, so the two groups' tag counters stay in step.  The MPI_* entry points in
 * coll_move.c / coll_reduce.c call these after sm_check_comm. */
#include "coll/coll_util.h"

int sm_coll_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                   int root, MPI_Comm c);

static int fail(MPI_Comm c, int err, const char *fn)
{
    return err ? sm_error(c, err, fn, NULL) : MPI_SUCCESS;
}

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
        return sm_error(c, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed on intercommunicators");
    return MPI_SUCCESS;
}

static MPI_Comm local_of(MPI_Comm c) { return c->x->local_comm; }

/* the leaders swap (sbuf, scount, st) for (rbuf, rcount, rt) */
static int leader_swap(const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt,
                       int tag, MPI_Comm c)
{
    return c_sendrecv(sb, sn, st, 0, rb, rn, rt, 0, tag, c);
}

int sm_inter_bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c)
{
    const char *fn = "MPI_Bcast";
    SM_TRY(sm_inter_check_root(c, root, fn));
    int tag = sm_coll_tag(c), err = 0;
    if (root == MPI_PROC_NULL || count == 0)
        return MPI_SUCCESS;
    SM_TRY(sm_check_buffer(c, buf, count, dt, fn));
    if (root == MPI_ROOT)
        return fail(c, c_send(buf, count, dt, 0, tag, c), fn);
    MPI_Comm l = local_of(c);
    if (l->rank == 0)
        err = c_recv(buf, count, dt, root, tag, c);
    int e = sm_coll_bcast(buf, count, dt, 0, l);
    return fail(c, err ? err : e, fn);
}

int sm_inter_reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
                    MPI_Comm c)
{
    const char *fn = "MPI_Reduce";
    SM_TRY(sm_inter_check_root(c, root, fn));
    int tag = sm_coll_tag(c), err = 0;
    if (root == MPI_PROC_NULL || count == 0)
        return MPI_SUCCESS;
    SM_TRY(sm_op_check(c, op, dt, fn));
    if (root == MPI_ROOT) {
        SM_TRY(sm_check_buffer(c, rbuf, count, dt, fn));
        return fail(c, c_recv(rbuf, count, dt, 0, tag, c), fn);
    }
    SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
    SM_TRY(sm_check_buffer(c, sbuf, count, dt, fn));
    MPI_Comm l = local_of(c);
    void *b = NULL;
    char *tmp = l->rank == 0 ? sm_dt_tmp(count, dt, &b) : NULL;
    err = sm_coll_reduce(sbuf, tmp, count, dt, op, 0, l);
    if (l->rank == 0) {
        int e = c_send(tmp, count, dt, root, tag, c);
        if (!err)
            err = e;
    }
    free(b);
    return fail(c, err, fn);
}

int sm_inter_allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                       MPI_Comm c)
{
    const char *fn = "MPI_Allreduce";
    int tag = sm_coll_tag(c), err = 0, e;
    SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
    SM_TRY(sm_check_buffer(c, sbuf, count, dt, fn));
    SM_TRY(sm_check_buffer(c, rbuf, count, dt, fn));
    SM_TRY(sm_op_check(c, op, dt, fn));
    if (count == 0)
        return MPI_SUCCESS;
    MPI_Comm l = local_of(c);
    void *b = NULL;
    char *tmp = l->rank == 0 ? sm_dt_tmp(count, dt, &b) : NULL;
    err = sm_coll_reduce(sbuf, tmp, count, dt, op, 0, l);
    if (l->rank == 0 && (e = leader_swap(tmp, count, dt, rbuf, count, dt, tag, c)) && !err)
        err = e;
    if ((e = sm_coll_bcast(rbuf, count, dt, 0, l)) && !err)
        err = e;
    free(b);
    return fail(c, err, fn);
}

int sm_inter_allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                       MPI_Datatype rt, MPI_Comm c)
{
    const char *fn = "MPI_Allgather";
    int tag = sm_coll_tag(c), err = 0, e;
    SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
    SM_TRY(sm_check_buffer(c, sbuf, scount, st, fn));
    SM_TRY(sm_check_buffer(c, rbuf, rcount, rt, fn));
    MPI_Comm l = local_of(c);
    void *b = NULL;
    char *tmp = l->rank == 0 ? sm_dt_tmp(l->size * scount, st, &b) : NULL;
    err = sm_coll_gather(sbuf, scount, st, tmp, scount, st, 0, l);
    if (l->rank == 0 && (e = leader_swap(tmp, l->size * scount, st, rbuf, c->size * rcount, rt,
                                         tag, c)) && !err)
        err = e;
    if ((e = sm_coll_bcast(rbuf, c->size * rcount, rt, 0, l)) && !err)
        err = e;
    free(b);
    return fail(c, err, fn);
}

int sm_inter_gather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                    MPI_Datatype rt, int root, MPI_Comm c)
{
    const char *fn = "MPI_Gather";
    SM_TRY(sm_inter_check_root(c, root, fn));
    int tag = sm_coll_tag(c), n = c->size;
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root != MPI_ROOT) {
        SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
        SM_TRY(sm_check_buffer(c, sbuf, scount, st, fn));
        return fail(c, scount ? c_send(sbuf, scount, st, root, tag, c) : 0, fn);
    }
    SM_TRY(sm_check_buffer(c, rbuf, rcount, rt, fn));
    if (!rcount)
        return MPI_SUCCESS;
    MPI_Request *rq = sm_xmalloc(sizeof *rq * (size_t)n);
    for (int i = 0; i < n; i++)
        sm_irecv_dt(at(rbuf, (MPI_Aint)i * rcount, rt), rcount, rt, i, tag, c, CCTX(c), &rq[i]);
    int err = c_waitall(n, rq);
    free(rq);
    return fail(c, err, fn);
}

int sm_inter_scatter(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                     MPI_Datatype rt, int root, MPI_Comm c)
{
    const char *fn = "MPI_Scatter";
    SM_TRY(sm_inter_check_root(c, root, fn));
    int tag = sm_coll_tag(c), n = c->size;
    if (root == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (root != MPI_ROOT) {
        SM_TRY(sm_inter_no_in_place(c, rbuf, fn));
        SM_TRY(sm_check_buffer(c, rbuf, rcount, rt, fn));
        return fail(c, rcount ? c_recv(rbuf, rcount, rt, root, tag, c) : 0, fn);
    }
    SM_TRY(sm_check_buffer(c, sbuf, scount, st, fn));
    if (!scount)
        return MPI_SUCCESS;
    MPI_Request *rq = sm_xmalloc(sizeof *rq * (size_t)n);
    for (int i = 0; i < n; i++)
        sm_isend_dt(at(sbuf, (MPI_Aint)i * scount, st), scount, st, i, tag, c, CCTX(c),
                    SM_MODE_STANDARD, &rq[i]);
    int err = c_waitall(n, rq);
    free(rq);
    return fail(c, err, fn);
}

int sm_inter_alltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                      MPI_Datatype rt, MPI_Comm c)
{
    const char *fn = "MPI_Alltoall";
    int tag = sm_coll_tag(c), n = c->size, k = 0;
    SM_TRY(sm_inter_no_in_place(c, sbuf, fn));
    SM_TRY(sm_check_buffer(c, sbuf, scount, st, fn));
    SM_TRY(sm_check_buffer(c, rbuf, rcount, rt, fn));
    MPI_Request *rq = sm_xmalloc(sizeof *rq * 2 * (size_t)n);
    for (int s = 0; s < n; s++) { /* start at my own rank so the first peers differ */
        int i = (c->rank + s) % n;
        if (rcount)
            sm_irecv_dt(at(rbuf, (MPI_Aint)i * rcount, rt), rcount, rt, i, tag, c, CCTX(c), &rq[k++]);
        if (scount)
            sm_isend_dt(at(sbuf, (MPI_Aint)i * scount, st), scount, st, i, tag, c, CCTX(c),
                        SM_MODE_STANDARD, &rq[k++]);
    }
    int err = c_waitall(k, rq);
    free(rq);
    return fail(c, err, fn);
}
