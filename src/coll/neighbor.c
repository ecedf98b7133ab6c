/* neighbor.c — the neighbourhood collectives (MPI_Neighbor_allgather(v), alltoall(v,w), their
 * MPI_Ineighbor_ and persistent *_init forms) on Cartesian, graph and distributed-graph
 * communicators, as one schedule round (sched.h) of point-to-point: a receive from every
 * source and a send to every destination, in the topology's neighbour order; the blocking forms
 * wait for it.
 *
 * Matching: all messages of one call share a tag, so between one pair of processes they pair
 * up in posting order.  On a Cartesian communicator a process can be both neighbours of
 * another in one dimension (a periodic dimension of size 1 or 2); the block sent towards +1
 * must land in the receiver's slot for its -1 neighbour, so in each dimension the +1 block is
 * sent before the -1 block while the receives are posted -1 first.  Graph and distributed
 * graph neighbourhoods with repeated edges pair up in list order, as in MPICH. */
#include "coll/coll.h"

struct nb_side {
    const void **buf;
    int *count;
    MPI_Datatype *type;
};

/* one round: receive rs[j] from in[j], send ss[j] to out[j] */
static int exchange(MPI_Comm c, int kind, int ni, const int *in, struct nb_side *rs, int no,
                    const int *out, struct nb_side *ss, const struct sm_how *how, const char *fn)
{
    struct sm_sched *s = sm_sched_new(c);
    sm_sched_round(s);
    for (int j = 0; j < ni; j++)
        if (in[j] != MPI_PROC_NULL)
            sm_sched_recv(s, (void *)rs->buf[j], rs->count[j], rs->type[j], in[j]);
    for (int k = 0; k < no; k++) {
        int j = kind == MPI_CART ? (k ^ 1) : k; /* Cartesian: +1 first in each dimension */
        if (out[j] != MPI_PROC_NULL)
            sm_sched_send(s, ss->buf[j], ss->count[j], ss->type[j], out[j]);
    }
    return sm_sched_run(s, how, fn);
}

static void side_alloc(struct nb_side *sd, int n)
{
    size_t m = (size_t)n + 1;
    sd->buf = sm_xmalloc(sizeof *sd->buf * m);
    sd->count = sm_xmalloc(sizeof *sd->count * m);
    sd->type = sm_xmalloc(sizeof *sd->type * m);
}

static void side_free(struct nb_side *sd)
{
    free(sd->buf);
    free(sd->count);
    free(sd->type);
}

enum { NB_ALLGATHER, NB_ALLGATHERV, NB_ALLTOALL, NB_ALLTOALLV, NB_ALLTOALLW };

/* every neighbour collective: check, lay the blocks out per neighbour, run.  Count and
 * displacement arrays are indexed by neighbour; v displacements count receive-type extents,
 * w displacements are bytes. */
static int neighbor(int op, const void *sbuf, int scount, const int *scounts, const int *sdispls,
                    const MPI_Aint *sdisplsw, const MPI_Datatype *sts, void *rbuf, int rcount,
                    const int *rcounts, const int *rdispls, const MPI_Aint *rdisplsw,
                    const MPI_Datatype *rts, MPI_Comm c, const struct sm_how *how, const char *fn)
{
    SM_TRY(sm_check_comm(c, fn));
    if (how && !how->req)
        return sm_error(c, MPI_ERR_REQUEST, fn, "NULL request pointer");
    if (sm_comm_is_inter(c))
        return sm_error(c, MPI_ERR_COMM, fn, "intercommunicators have no topology");
    if (sbuf == MPI_IN_PLACE || rbuf == MPI_IN_PLACE)
        return sm_error(c, MPI_ERR_BUFFER, fn, "MPI_IN_PLACE is not allowed");
    int kind, ni, no, *in, *out;
    SM_TRY(sm_topo_neighbors(c, fn, &kind, &ni, &in, &no, &out));
    int err = MPI_SUCCESS;
    struct nb_side rs, ss;
    side_alloc(&rs, ni);
    side_alloc(&ss, no);
    int vs = op == NB_ALLTOALLV || op == NB_ALLTOALLW;
    int vr = op == NB_ALLGATHERV || vs;
    if ((vs && (!scounts || !(sdispls || sdisplsw))) ||
        (vr && (!rcounts || !(rdispls || rdisplsw))) || (op == NB_ALLTOALLW && (!sts || !rts)))
        err = sm_error(c, MPI_ERR_ARG, fn, "NULL counts, displacements or types");
    for (int k = 0; !err && k < no; k++) {
        MPI_Datatype t = op == NB_ALLTOALLW ? sts[k] : sts[0];
        ss.type[k] = t;
        ss.count[k] = vs ? scounts[k] : scount;
        if (op == NB_ALLGATHER || op == NB_ALLGATHERV)
            ss.buf[k] = sbuf;
        else if (op == NB_ALLTOALL)
            ss.buf[k] = at(sbuf, (MPI_Aint)k * scount, t);
        else if (op == NB_ALLTOALLV)
            ss.buf[k] = at(sbuf, sdispls[k], t);
        else
            ss.buf[k] = at_bytes(sbuf, sdisplsw[k]);
        /* the address used, so MPI_BOTTOM with absolute displacements passes */
        err = sm_check_buffer(c, ss.buf[k], ss.count[k], t, fn);
        if (err)
            break;
    }
    for (int j = 0; !err && j < ni; j++) {
        MPI_Datatype t = op == NB_ALLTOALLW ? rts[j] : rts[0];
        rs.type[j] = t;
        rs.count[j] = vr ? rcounts[j] : rcount;
        if (op == NB_ALLGATHER || op == NB_ALLTOALL)
            rs.buf[j] = at(rbuf, (MPI_Aint)j * rcount, t);
        else if (op == NB_ALLTOALLW)
            rs.buf[j] = at_bytes(rbuf, rdisplsw[j]);
        else
            rs.buf[j] = at(rbuf, rdispls[j], t);
        err = sm_check_buffer(c, rs.buf[j], rs.count[j], t, fn);
        if (err)
            break;
    }
    if (!err)
        err = exchange(c, kind, ni, in, &rs, no, out, &ss, how, fn);
    side_free(&rs);
    side_free(&ss);
    free(in);
    free(out);
    return err;
}

int PMPI_Neighbor_allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                            MPI_Datatype rt, MPI_Comm comm)
{
    return neighbor(NB_ALLGATHER, sbuf, scount, NULL, NULL, NULL, &st, rbuf, rcount, NULL, NULL,
                    NULL, &rt, comm, NULL, "MPI_Neighbor_allgather");
}

int PMPI_Neighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                             const int rcounts[], const int displs[], MPI_Datatype rt,
                             MPI_Comm comm)
{
    return neighbor(NB_ALLGATHERV, sbuf, scount, NULL, NULL, NULL, &st, rbuf, 0, rcounts, displs,
                    NULL, &rt, comm, NULL, "MPI_Neighbor_allgatherv");
}

int PMPI_Neighbor_alltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                           MPI_Datatype rt, MPI_Comm comm)
{
    return neighbor(NB_ALLTOALL, sbuf, scount, NULL, NULL, NULL, &st, rbuf, rcount, NULL, NULL,
                    NULL, &rt, comm, NULL, "MPI_Neighbor_alltoall");
}

int PMPI_Neighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                            MPI_Datatype st, void *rbuf, const int rcounts[], const int rdispls[],
                            MPI_Datatype rt, MPI_Comm comm)
{
    return neighbor(NB_ALLTOALLV, sbuf, 0, scounts, sdispls, NULL, &st, rbuf, 0, rcounts, rdispls,
                    NULL, &rt, comm, NULL, "MPI_Neighbor_alltoallv");
}

int PMPI_Neighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                            const MPI_Datatype sts[], void *rbuf, const int rcounts[],
                            const MPI_Aint rdispls[], const MPI_Datatype rts[], MPI_Comm comm)
{
    return neighbor(NB_ALLTOALLW, sbuf, 0, scounts, NULL, sdispls, sts, rbuf, 0, rcounts, NULL,
                    rdispls, rts, comm, NULL, "MPI_Neighbor_alltoallw");
}

int PMPI_Ineighbor_allgather(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                             int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    return neighbor(NB_ALLGATHER, sbuf, scount, NULL, NULL, NULL, &st, rbuf, rcount, NULL, NULL,
                    NULL, &rt, comm, SM_NB(request), "MPI_Ineighbor_allgather");
}

int PMPI_Ineighbor_allgatherv(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                              const int rcounts[], const int displs[], MPI_Datatype rt,
                              MPI_Comm comm, MPI_Request *request)
{
    return neighbor(NB_ALLGATHERV, sbuf, scount, NULL, NULL, NULL, &st, rbuf, 0, rcounts, displs,
                    NULL, &rt, comm, SM_NB(request), "MPI_Ineighbor_allgatherv");
}

int PMPI_Ineighbor_alltoall(const void *sbuf, int scount, MPI_Datatype st, void *rbuf, int rcount,
                            MPI_Datatype rt, MPI_Comm comm, MPI_Request *request)
{
    return neighbor(NB_ALLTOALL, sbuf, scount, NULL, NULL, NULL, &st, rbuf, rcount, NULL, NULL,
                    NULL, &rt, comm, SM_NB(request), "MPI_Ineighbor_alltoall");
}

int PMPI_Ineighbor_alltoallv(const void *sbuf, const int scounts[], const int sdispls[],
                             MPI_Datatype st, void *rbuf, const int rcounts[],
                             const int rdispls[], MPI_Datatype rt, MPI_Comm comm,
                             MPI_Request *request)
{
    return neighbor(NB_ALLTOALLV, sbuf, 0, scounts, sdispls, NULL, &st, rbuf, 0, rcounts, rdispls,
                    NULL, &rt, comm, SM_NB(request), "MPI_Ineighbor_alltoallv");
}

int PMPI_Ineighbor_alltoallw(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                             const MPI_Datatype sts[], void *rbuf, const int rcounts[],
                             const MPI_Aint rdispls[], const MPI_Datatype rts[], MPI_Comm comm,
                             MPI_Request *request)
{
    return neighbor(NB_ALLTOALLW, sbuf, 0, scounts, NULL, sdispls, sts, rbuf, 0, rcounts, NULL,
                    rdispls, rts, comm, SM_NB(request), "MPI_Ineighbor_alltoallw");
}

/* ---- persistent forms (MPI-4): the schedule is built here and run at every MPI_Start ---- */
int PMPI_Neighbor_allgather_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                                 int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                                 MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Neighbor_allgather_init"));
    return neighbor(NB_ALLGATHER, sbuf, scount, NULL, NULL, NULL, &st, rbuf, rcount, NULL, NULL,
                    NULL, &rt, comm, SM_INIT(request), "MPI_Neighbor_allgather_init");
}

int PMPI_Neighbor_allgatherv_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                                  const int rcounts[], const int displs[], MPI_Datatype rt,
                                  MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Neighbor_allgatherv_init"));
    return neighbor(NB_ALLGATHERV, sbuf, scount, NULL, NULL, NULL, &st, rbuf, 0, rcounts, displs,
                    NULL, &rt, comm, SM_INIT(request), "MPI_Neighbor_allgatherv_init");
}

int PMPI_Neighbor_alltoall_init(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                                int rcount, MPI_Datatype rt, MPI_Comm comm, MPI_Info info,
                                MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Neighbor_alltoall_init"));
    return neighbor(NB_ALLTOALL, sbuf, scount, NULL, NULL, NULL, &st, rbuf, rcount, NULL, NULL,
                    NULL, &rt, comm, SM_INIT(request), "MPI_Neighbor_alltoall_init");
}

int PMPI_Neighbor_alltoallv_init(const void *sbuf, const int scounts[], const int sdispls[],
                                 MPI_Datatype st, void *rbuf, const int rcounts[],
                                 const int rdispls[], MPI_Datatype rt, MPI_Comm comm,
                                 MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Neighbor_alltoallv_init"));
    return neighbor(NB_ALLTOALLV, sbuf, 0, scounts, sdispls, NULL, &st, rbuf, 0, rcounts, rdispls,
                    NULL, &rt, comm, SM_INIT(request), "MPI_Neighbor_alltoallv_init");
}

int PMPI_Neighbor_alltoallw_init(const void *sbuf, const int scounts[], const MPI_Aint sdispls[],
                                 const MPI_Datatype sts[], void *rbuf, const int rcounts[],
                                 const MPI_Aint rdispls[], const MPI_Datatype rts[],
                                 MPI_Comm comm, MPI_Info info, MPI_Request *request)
{
    SM_TRY(sm_coll_check_init(comm, info, request, "MPI_Neighbor_alltoallw_init"));
    return neighbor(NB_ALLTOALLW, sbuf, 0, scounts, NULL, sdispls, sts, rbuf, 0, rcounts, NULL,
                    rdispls, rts, comm, SM_INIT(request), "MPI_Neighbor_alltoallw_init");
}
