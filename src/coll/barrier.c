/* barrier.c — MPI_Barrier and MPI_Ibarrier (dissemination: ceil(log2 n) rounds of empty
 * messages), and the dissemination barrier on an explicit context that MPI_Finalize uses. */
#include "coll/coll.h"

/* dissemination barrier over point-to-point on the given context: ceil(log2 n) rounds */
int sm_barrier_ctx(MPI_Comm comm, uint32_t ctx)
{
    int n = comm->size, me = comm->rank, err = MPI_SUCCESS;
    char s = 0, r = 0;
    /* every round runs even after an error (a failed peer fails its round at once): a rank
     * that stopped early would leave its healthy successors waiting for good */
    for (int d = 1; d < n; d <<= 1) {
        MPI_Request rq[2];
        sm_irecv_ctx(&r, 1, (me - d + n) % n, d, comm, ctx, &rq[0]);
        sm_isend_ctx(&s, 1, (me + d) % n, d, comm, ctx, &rq[1]);
        int e1 = sm_wait_one(&rq[0], MPI_STATUS_IGNORE);
        int e2 = sm_wait_one(&rq[1], MPI_STATUS_IGNORE);
        if (!err)
            err = e1 ? e1 : e2;
    }
    return err;
}

/* the same dissemination as a schedule, on the collective context */
void sm_build_barrier(struct sm_sched *s)
{
    static char dummy;
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    for (int d = 1; d < n; d <<= 1) {
        sm_sched_round(s);
        sm_sched_recv(s, &dummy, 0, MPI_BYTE, (me - d + n) % n);
        sm_sched_send(s, &dummy, 0, MPI_BYTE, (me + d) % n);
    }
}

static int barrier(MPI_Comm comm, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm)) /* local ranks report to the leader, leaders swap, release */
        return sm_inter_ibarrier(comm, how, fn);
    struct sm_sched *s = sm_sched_new(comm);
    sm_build_barrier(s);
    return sm_sched_run(s, how, fn);
}

int PMPI_Barrier(MPI_Comm comm)
{
    return barrier(comm, NULL, "MPI_Barrier");
}

int PMPI_Ibarrier(MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_coll_check_nb(comm, request, "MPI_Ibarrier"));
    return barrier(comm, SM_NB(request), "MPI_Ibarrier");
}

/* ---- persistent forms (MPI-4): the schedule is built here and run at every MPI_Start ---- */
int PMPI_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Barrier_init"));
    return barrier(comm, SM_INIT(request), "MPI_Barrier_init");
}
