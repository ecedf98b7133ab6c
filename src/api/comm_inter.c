/* comm_inter.c — intercommunicators: building them (Intercomm_create, and Comm_split /
 * Comm_create given an intercommunicator) and merging one into an intracommunicator.
 * An intercommunicator's rank and size are the local rank and the remote group's size; the
 * local group lives in comm->x (local_world_of, and a hidden intracommunicator local_comm for
 * the collectives' steps inside one group).  It takes context ids ctx .. ctx + 3. */
#include <stdlib.h>
#include <string.h>

#include "api/comm_inter.h"
#include "api/ctx_agree.h"
#include "api/dynamic.h"

MPI_Comm sm_inter_new(int lrank, int lsize, const int *lw, int rsize, const int *rw, uint32_t ctx)
{
    MPI_Comm c = sm_comm_new(lrank, rsize, rw, ctx);
    struct sm_comm_ext *x = sm_comm_x(c);
    x->is_inter = 1;
    x->local_size = lsize;
    x->local_world_of = sm_xmalloc(sizeof(int) * ((size_t)lsize + 1));
    memcpy(x->local_world_of, lw, sizeof(int) * (size_t)lsize);
    x->local_comm = sm_comm_new(lrank, lsize, lw, ctx + 2);
    return c;
}

/* ---- MPI_Intercomm_create ---------------------------------------------------------------- */
struct icreate {
    MPI_Comm local, peer;
    int local_leader, remote_leader, tag;
};

/* the leaders exchange over the peer communicator, with the user's tag */
static int leaders_swap(struct icreate *a, const void *s, size_t sn, void *r, size_t rn)
{
    MPI_Request rq[2];
    sm_irecv_ctx(r, rn, a->remote_leader, a->tag, a->peer, a->peer->ctx, &rq[0]);
    sm_isend_ctx(s, sn, a->remote_leader, a->tag, a->peer, a->peer->ctx, &rq[1]);
    int e0 = sm_wait_one(&rq[0], MPI_STATUS_IGNORE);
    int e1 = sm_wait_one(&rq[1], MPI_STATUS_IGNORE);
    return e0 ? e0 : e1;
}

static int icreate_allmax(uint32_t v[2], void *arg)
{
    struct icreate *a = arg;
    uint32_t mine[2] = { 0, 0 }, theirs[2] = { 0, 0 };
    int e = sm_coll_allreduce(v, mine, 2, MPI_UNSIGNED, MPI_MAX, a->local);
    if (a->local->rank == a->local_leader) {
        int e1 = leaders_swap(a, mine, sizeof mine, theirs, sizeof theirs);
        for (int i = 0; i < 2; i++)
            if (theirs[i] > mine[i])
                mine[i] = theirs[i];
        if (!e)
            e = e1;
    }
    int e2 = sm_coll_bcast(mine, 2, MPI_UNSIGNED, a->local_leader, a->local);
    v[0] = mine[0];
    v[1] = mine[1];
    return e ? e : e2;
}

int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm,
                          int remote_leader, int tag, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create";
    SM_TRY(sm_check_comm(local_comm, fn));
    if (sm_comm_is_inter(local_comm))
        return sm_error(local_comm, MPI_ERR_COMM, fn,
                        "the local communicator is an "
                        "intercommunicator");
    if (!newintercomm)
        return sm_error(local_comm, MPI_ERR_ARG, fn, "NULL output pointer");
    if (local_leader < 0 || local_leader >= local_comm->size)
        return sm_error(local_comm, MPI_ERR_RANK, fn, "bad local leader %d", local_leader);
    struct icreate a = { local_comm, peer_comm, local_leader, remote_leader, tag };
    int lsize = local_comm->size;
    int *lw = sm_xmalloc(sizeof(int) * (size_t)lsize);
    for (int i = 0; i < lsize; i++)
        lw[i] = sm_comm_world_rank(local_comm, i);
    int rsize = 0;
    int *rw = NULL;
    if (local_comm->rank == local_leader) {
        int err = sm_check_comm(peer_comm, fn);
        if (!err && (remote_leader < 0 || remote_leader >= peer_comm->size))
            err = sm_error(peer_comm, MPI_ERR_RANK, fn, "bad remote leader %d", remote_leader);
        if (err) {
            free(lw);
            return err;
        }
    }
    /* the leaders swap world ranks when both groups are ranks of one job, else descriptions
     * of the processes (dynamic processes: groups of several jobs) */
    int hdr[3] = { lsize, sm_dyn_all_mine(local_comm), (int)sm_job_id() }, rhdr[3] = { 0 };
    char *blob = NULL;
    struct {
        int rsize, by_id;
        uint32_t bloblen;
    } st = { 0, 0, 0 };
    if (local_comm->rank == local_leader) {
        leaders_swap(&a, hdr, sizeof hdr, rhdr, sizeof rhdr);
        st.rsize = rhdr[0];
        st.by_id = !(hdr[1] && rhdr[1] && hdr[2] == rhdr[2]);
        if (!st.by_id) {
            rw = sm_xmalloc(sizeof(int) * ((size_t)st.rsize + 1));
            leaders_swap(&a, lw, sizeof(int) * (size_t)lsize, rw, sizeof(int) * (size_t)st.rsize);
        } else {
            char *mine = sm_dyn_group_blob(local_comm);
            uint32_t ml = (uint32_t)strlen(mine);
            leaders_swap(&a, &ml, sizeof ml, &st.bloblen, sizeof st.bloblen);
            blob = sm_xmalloc((size_t)st.bloblen + 1);
            leaders_swap(&a, mine, ml, blob, st.bloblen);
            free(mine);
        }
    }
    sm_coll_bcast(&st, (int)sizeof st, MPI_BYTE, local_leader, local_comm);
    rsize = st.rsize;
    if (!st.by_id) {
        if (!rw)
            rw = sm_xmalloc(sizeof(int) * ((size_t)rsize + 1));
        sm_coll_bcast(rw, rsize, MPI_INT, local_leader, local_comm);
    } else {
        if (!blob)
            blob = sm_xmalloc((size_t)st.bloblen + 1);
        sm_coll_bcast(blob, (int)st.bloblen, MPI_BYTE, local_leader, local_comm);
        blob[st.bloblen] = '\0';
        char why[200] = "";
        int n = 0, e = sm_dyn_adopt_blob(blob, &rw, &n, why, sizeof why);
        free(blob);
        if (e || n != rsize) {
            free(lw);
            free(rw);
            return sm_error(local_comm, e ? e : MPI_ERR_INTERN, fn, "%s", why);
        }
    }
    uint32_t ctx = sm_ctx_agree_with(icreate_allmax, &a, 2);
    MPI_Comm c = sm_inter_new(local_comm->rank, lsize, lw, rsize, rw, ctx);
    sm_comm_inherit(local_comm, c);
    free(lw);
    free(rw);
    *newintercomm = c;
    return MPI_SUCCESS;
}

/* ---- exchanging lists between the two groups of an intercommunicator --------------------- */
/* every process of each group passes the same list (n ints); every one gets the other
 * group's (*rn ints, malloc'd) */
static int *swap_lists(MPI_Comm inter, const int *mine, int n, int *rn, int *err)
{
    MPI_Comm l = inter->x->local_comm;
    int tag = sm_coll_tag(inter), e = 0, theirs = 0;
    int *r = NULL;
    if (l->rank == 0) {
        MPI_Request rq[2];
        sm_irecv_ctx(&theirs, sizeof theirs, 0, tag, inter, inter->ctx + 1, &rq[0]);
        sm_isend_ctx(&n, sizeof n, 0, tag, inter, inter->ctx + 1, &rq[1]);
        e = sm_wait_one(&rq[0], MPI_STATUS_IGNORE);
        int e1 = sm_wait_one(&rq[1], MPI_STATUS_IGNORE);
        r = sm_xmalloc(sizeof(int) * ((size_t)theirs + 1));
        sm_irecv_ctx(r, sizeof(int) * (size_t)theirs, 0, tag, inter, inter->ctx + 1, &rq[0]);
        sm_isend_ctx(mine, sizeof(int) * (size_t)n, 0, tag, inter, inter->ctx + 1, &rq[1]);
        int e2 = sm_wait_one(&rq[0], MPI_STATUS_IGNORE);
        int e3 = sm_wait_one(&rq[1], MPI_STATUS_IGNORE);
        e = e ? e : e1 ? e1 : e2 ? e2 : e3;
    }
    int e4 = sm_coll_bcast(&theirs, 1, MPI_INT, 0, l);
    if (!r)
        r = sm_xmalloc(sizeof(int) * ((size_t)theirs + 1));
    int e5 = sm_coll_bcast(r, theirs, MPI_INT, 0, l);
    *err = e ? e : e4 ? e4 : e5;
    *rn = theirs;
    return r;
}

struct member {
    int key, rank;
};
static int by_key(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* the members of color in a (color, key) list of n, ordered by (key, rank), as world ranks */
static int pick(const int *ck, int n, int color, const int *world, int *out, int me, int *my)
{
    struct member *m = sm_xmalloc(sizeof *m * ((size_t)n + 1));
    int k = 0;
    for (int i = 0; i < n; i++)
        if (ck[2 * i] == color)
            m[k++] = (struct member){ ck[2 * i + 1], i };
    qsort(m, (size_t)k, sizeof *m, by_key);
    for (int i = 0; i < k; i++) {
        out[i] = world[m[i].rank];
        if (m[i].rank == me)
            *my = i;
    }
    free(m);
    return k;
}

/* MPI-3.1 6.4.2: the processes of each color in the two groups form an intercommunicator;
 * a color present in one group only gives MPI_COMM_NULL */
int sm_inter_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm, const char *fn)
{
    MPI_Comm l = comm->x->local_comm;
    int ln = l->size, rn2 = 0, err;
    int mine[2] = { color, key };
    int *la = sm_xmalloc(sizeof(int) * 2 * (size_t)ln);
    err = sm_coll_allgather(mine, 2, MPI_INT, la, 2, MPI_INT, l);
    int e2;
    int *ra = swap_lists(comm, la, 2 * ln, &rn2, &e2);
    uint32_t ctx = sm_ctx_agree_n(comm, 2);
    if (!err)
        err = e2;
    if (!err && rn2 != 2 * comm->size)
        err = MPI_ERR_INTERN;
    *newcomm = MPI_COMM_NULL;
    if (!err && color != MPI_UNDEFINED) {
        int *lw = sm_xmalloc(sizeof(int) * ((size_t)ln + 1));
        int *rw = sm_xmalloc(sizeof(int) * ((size_t)comm->size + 1));
        int me = 0, dummy = 0;
        int lk = pick(la, ln, color, comm->x->local_world_of, lw, l->rank, &me);
        int rk = pick(ra, comm->size, color, comm->world_of, rw, -1, &dummy);
        if (rk > 0) {
            *newcomm = sm_inter_new(me, lk, lw, rk, rw, ctx);
            sm_comm_inherit(comm, *newcomm);
        }
        free(lw);
        free(rw);
    }
    free(la);
    free(ra);
    return err ? sm_error(comm, err, fn, NULL) : MPI_SUCCESS;
}

/* MPI-3.1 6.4.2: each group names a subgroup of itself; the two subgroups form the new
 * intercommunicator, MPI_COMM_NULL outside them or when either is empty */
int sm_inter_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm, const char *fn)
{
    MPI_Comm l = comm->x->local_comm;
    int me = -1;
    for (int i = 0; i < group->size; i++) {
        int w = group->world_of[i];
        if (sm_comm_rank_of_world(l, w) < 0)
            return sm_error(comm, MPI_ERR_GROUP, fn,
                            "group is not a subset of the intercommunicator's local group");
        if (w == sm_world_rank())
            me = i;
    }
    int rn = 0, err;
    int *rw = swap_lists(comm, group->world_of, group->size, &rn, &err);
    uint32_t ctx = sm_ctx_agree_n(comm, 2);
    *newcomm = MPI_COMM_NULL;
    if (!err && me >= 0 && rn > 0) {
        *newcomm = sm_inter_new(me, group->size, group->world_of, rn, rw, ctx);
        sm_comm_inherit(comm, *newcomm);
    }
    free(rw);
    return err ? sm_error(comm, err, fn, NULL) : MPI_SUCCESS;
}

/* ---- MPI_Intercomm_merge ----------------------------------------------------------------- */
int PMPI_Intercomm_merge(MPI_Comm inter, int high, MPI_Comm *newintracomm)
{
    const char *fn = "MPI_Intercomm_merge";
    SM_TRY(sm_check_comm(inter, fn));
    if (!newintracomm)
        return sm_error(inter, MPI_ERR_ARG, fn, "NULL output pointer");
    if (!sm_comm_is_inter(inter))
        return sm_error(inter, MPI_ERR_COMM, fn, "not an intercommunicator");
    MPI_Comm local = inter->x->local_comm;
    /* the leader's high decides for its group; ties are broken by the leaders' universe
     * identities (job id, rank: the world ranks when both groups are of one job) */
    uint32_t ljob = 0;
    int lrank = 0;
    const char *unused_secret, *unused_card;
    sm_peer_describe(inter->x->local_world_of[0], &ljob, &lrank, &unused_secret, &unused_card);
    int mine[3] = { high ? 1 : 0, (int)ljob, lrank }, n2 = 0, err;
    sm_coll_bcast(mine, 1, MPI_INT, 0, local);
    int *theirs = swap_lists(inter, mine, 3, &n2, &err);
    uint32_t ctx = sm_ctx_agree(inter);
    if (err || n2 != 3) {
        free(theirs);
        return sm_error(inter, err ? err : MPI_ERR_INTERN, fn, NULL);
    }
    int local_first = mine[0] != theirs[0] ? mine[0] < theirs[0]
                      : (uint32_t)mine[1] != (uint32_t)theirs[1]
                          ? (uint32_t)mine[1] < (uint32_t)theirs[1]
                          : mine[2] < theirs[2];
    free(theirs);
    int ls = inter->x->local_size, rs = inter->size, n = ls + rs;
    int *w = sm_xmalloc(sizeof(int) * (size_t)n);
    const int *first = local_first ? inter->x->local_world_of : inter->world_of;
    const int *second = local_first ? inter->world_of : inter->x->local_world_of;
    int nf = local_first ? ls : rs;
    memcpy(w, first, sizeof(int) * (size_t)nf);
    memcpy(w + nf, second, sizeof(int) * (size_t)(n - nf));
    int me = local_first ? local->rank : rs + local->rank;
    MPI_Comm c = sm_comm_new(me, n, w, ctx);
    sm_comm_inherit(inter, c);
    free(w);
    *newintracomm = c;
    return MPI_SUCCESS;
}
