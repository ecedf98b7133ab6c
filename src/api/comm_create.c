/* comm_create.c — making and freeing communicators: context ids agreed collectively,
 * Comm_dup(_with_info), Comm_idup(_with_info), split, split_type, create, create_group, free,
 * compare, test_inter, remote size, names, info.  Context ids are agreed in ctx_agree.c;
 * intercommunicators are built in comm_inter.c. */
#include <stdlib.h>
#include <string.h>

#include "api/comm_inter.h"
#include "api/dynamic.h"
#include "api/ctx_agree.h"

struct sm_comm_ext *sm_comm_x(MPI_Comm c)
{
    if (!c->x)
        c->x = sm_xcalloc(1, sizeof *c->x);
    return c->x;
}

int sm_comm_is_inter(MPI_Comm c)
{
    return c->x && c->x->is_inter;
}

int sm_coll_tag(MPI_Comm c)
{
    int t = c->coll_tag;
    c->coll_tag = (t + 1) & 0x0fffffff;
    return t;
}

MPI_Comm sm_comm_new(int rank, int size, const int *world_of, uint32_t ctx)
{
    struct sctpmpi_comm *c = sm_xcalloc(1, sizeof *c);
    c->valid = 1;
    c->rank = rank;
    c->size = size;
    c->ctx = ctx;
    c->errh = MPI_ERRORS_ARE_FATAL;
    if (world_of) {
        c->world_of = sm_xmalloc(sizeof(int) * ((size_t)size + 1));
        memcpy(c->world_of, world_of, sizeof(int) * (size_t)size);
        if (size > 1)
            for (int i = 0; i < size; i++)
                sm_map_put(&c->rank_of, (uint64_t)world_of[i] + 1, (void *)(uintptr_t)(i + 1));
    }
    return c;
}

static void comm_destroy(MPI_Comm c)
{
    if (c->x) {
        sm_topo_free(c->x->topo);
        sm_info_free(c->x->info);
        free(c->x->local_world_of);
        if (c->x->local_comm)
            comm_destroy(c->x->local_comm);
        free(c->x);
    }
    free(c->world_of);
    sm_map_free(&c->rank_of);
    sm_errh_release(c->errh);
    c->valid = 0;
    free(c);
}

void sm_comm_inherit(MPI_Comm from, MPI_Comm to)
{
    to->errh = from->errh;
    if (from->errh && from->errh->kind == SM_EH_USER)
        from->errh->refcount++;
}

static int out_check(MPI_Comm comm, void *p, const char *fn)
{
    if (!p)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL output pointer");
    return MPI_SUCCESS;
}

/* Record info hints on c.  The assertions also decide how the engine matches arrivals on c's
 * point-to-point context: with mpi_assert_allow_overtaking, or with mpi_assert_no_any_tag
 * (messages of one tag travel one ordered lane, so without MPI_ANY_TAG receives no two
 * messages that could match the same receive can overtake each other), the ordering rule's
 * per-sender sequence bookkeeping is skipped.  The sender marks those messages (SM_FL_RELAXED)
 * and the receiver goes by the mark, so messages that arrive before this rank has finished
 * creating c are matched like the rest.  The switch is made only when the communicator is
 * created (fresh): turning it on or off while messages are in flight would strand messages the
 * rule holds.  MPI_Comm_set_info records the assertions (and the wildcard checks follow them)
 * but leaves the matching as it was. */
static void apply_info(MPI_Comm c, MPI_Info info, int fresh)
{
    if (!info)
        return;
    struct sm_comm_ext *x = sm_comm_x(c);
    MPI_Info old = x->info;
    x->info = sm_info_dup(info);
    sm_info_free(old);
    const char *v;
    if ((v = sm_info_lookup(info, "mpi_assert_allow_overtaking")))
        x->assert_overtaking = strcmp(v, "true") == 0;
    if ((v = sm_info_lookup(info, "mpi_assert_no_any_tag")))
        x->assert_no_any_tag = strcmp(v, "true") == 0;
    if ((v = sm_info_lookup(info, "mpi_assert_no_any_source")))
        x->assert_no_any_source = strcmp(v, "true") == 0;
    if (fresh)
        sm_ctx_set_relaxed(c->ctx, x->assert_overtaking || x->assert_no_any_tag);
}

/* context ids of a communicator whose MPI_Comm_idup has not finished yet (never agreed on) */
#define IDUP_PENDING_CTX (SM_CTX_FINALIZE + 4u)

/* the new communicator's id is agreed: it becomes usable */
static void idup_done(void *arg, uint32_t ctx)
{
    MPI_Comm c = arg;
    c->ctx = ctx;
    if (c->x && c->x->local_comm)
        c->x->local_comm->ctx = ctx + 2;
    if (c->x)
        sm_ctx_set_relaxed(ctx, c->x->assert_overtaking || c->x->assert_no_any_tag);
}

/* Comm_dup and friends; request non-NULL: Comm_idup, which builds the communicator (copying
 * the attributes and info as they are at the call) and agrees on its context ids without
 * blocking; the request completes once they are agreed */
static int dup_common(MPI_Comm comm, MPI_Info info, int copy_info, MPI_Comm *newcomm,
                      MPI_Request *request, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(out_check(comm, newcomm, fn));
    if (request)
        SM_TRY(out_check(comm, request, fn));
    int inter = sm_comm_is_inter(comm);
    uint32_t ctx = request ? IDUP_PENDING_CTX : sm_ctx_agree_n(comm, inter ? 2 : 1);
    MPI_Comm c;
    if (inter)
        c = sm_inter_new(comm->rank, comm->x->local_size, comm->x->local_world_of, comm->size,
                         comm->world_of, ctx);
    else
        c = sm_comm_new(comm->rank, comm->size, comm->world_of, ctx);
    sm_comm_inherit(comm, c);
    if (comm->x && comm->x->topo)
        sm_comm_x(c)->topo = sm_topo_dup(comm->x->topo);
    if (copy_info && comm->x)
        apply_info(c, comm->x->info, !request);
    apply_info(c, info, !request);
    int rc = sm_attr_copy_all(comm, c);
    if (rc) {
        comm_destroy(c);
        return sm_error(comm, rc, fn, "attribute copy callback failed");
    }
    *newcomm = c;
    if (request)
        sm_ctx_agree_start(comm, inter ? 2 : 1, idup_done, c, request);
    return MPI_SUCCESS;
}

int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm *newcomm)
{
    return dup_common(comm, MPI_INFO_NULL, 1, newcomm, NULL, "MPI_Comm_dup");
}

int PMPI_Comm_dup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
    return dup_common(comm, info, 0, newcomm, NULL, "MPI_Comm_dup_with_info");
}

int PMPI_Comm_idup(MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_idup"));
    SM_TRY(out_check(comm, request, "MPI_Comm_idup"));
    return dup_common(comm, MPI_INFO_NULL, 1, newcomm, request, "MPI_Comm_idup");
}

int PMPI_Comm_idup_with_info(MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm,
                             MPI_Request *request)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_idup_with_info"));
    SM_TRY(out_check(comm, request, "MPI_Comm_idup_with_info"));
    return dup_common(comm, info, 0, newcomm, request, "MPI_Comm_idup_with_info");
}

static int no_inter(MPI_Comm comm, const char *fn)
{
    if (sm_comm_is_inter(comm))
        return sm_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                        "not supported on intercommunicators yet");
    return MPI_SUCCESS;
}

struct member {
    int color, key, rank;
};
static int by_key(const void *a, const void *b)
{
    const struct member *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

/* members of my color ordered by (key, rank); color UNDEFINED: COMM_NULL */
static int split_by(MPI_Comm comm, int color, int key, MPI_Comm *newcomm, const char *fn)
{
    int n = comm->size;
    int mine[2] = { color, key };
    int *all = sm_xmalloc(sizeof(int) * 2 * (size_t)n);
    int err = sm_coll_allgather(mine, 2, MPI_INT, all, 2, MPI_INT, comm);
    uint32_t ctx = sm_ctx_agree(comm);
    if (err) {
        free(all);
        return sm_error(comm, err, fn, NULL);
    }
    if (color == MPI_UNDEFINED) {
        free(all);
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    struct member *m = sm_xmalloc(sizeof *m * (size_t)n);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (all[2 * i] == color)
            m[k++] = (struct member){ color, all[2 * i + 1], i };
    qsort(m, (size_t)k, sizeof *m, by_key);
    int *w = sm_xmalloc(sizeof(int) * (size_t)k), me = 0;
    for (int i = 0; i < k; i++) {
        w[i] = sm_comm_world_rank(comm, m[i].rank);
        if (m[i].rank == comm->rank)
            me = i;
    }
    MPI_Comm c = sm_comm_new(me, k, w, ctx);
    sm_comm_inherit(comm, c);
    free(w);
    free(m);
    free(all);
    *newcomm = c;
    return MPI_SUCCESS;
}

int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split";
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(out_check(comm, newcomm, fn));
    if (color < 0 && color != MPI_UNDEFINED)
        return sm_error(comm, MPI_ERR_ARG, fn, "color %d is negative", color);
    if (sm_comm_is_inter(comm))
        return sm_inter_split(comm, color, key, newcomm, fn);
    return split_by(comm, color, key, newcomm, fn);
}

/* the hardware level a guided split names through the info key mpi_hw_resource_type: the
 * host (shared memory) is the only level known here; 1 when info asks for it */
static int guided_host(MPI_Info info)
{
    char v[64];
    int len = sizeof v, flag = 0;
    if (info == MPI_INFO_NULL ||
        PMPI_Info_get_string(info, "mpi_hw_resource_type", &len, v, &flag) != MPI_SUCCESS ||
        !flag)
        return 0;
    return strcmp(v, "mpi_shared_memory") == 0 || strcmp(v, "machine") == 0;
}

int PMPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_split_type";
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(no_inter(comm, fn));
    SM_TRY(out_check(comm, newcomm, fn));
    if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED &&
        split_type != MPI_COMM_TYPE_HW_GUIDED && split_type != MPI_COMM_TYPE_HW_UNGUIDED &&
        split_type != MPI_COMM_TYPE_RESOURCE_GUIDED)
        return sm_error(comm, MPI_ERR_ARG, fn, "unknown split type %d", split_type);
    /* shared memory domain = host: the color is the lowest rank with my host name */
    int n = comm->size, len;
    char *names = sm_xcalloc((size_t)n, MPI_MAX_PROCESSOR_NAME);
    char me[MPI_MAX_PROCESSOR_NAME] = "";
    PMPI_Get_processor_name(me, &len);
    sm_coll_allgather(me, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
                      MPI_CHAR, comm);
    int color = 0, hosts = 0;
    while (strcmp(names + (size_t)color * MPI_MAX_PROCESSOR_NAME, me) != 0)
        color++;
    for (int r = 0; r < n; r++) {
        int first = 0;
        while (strcmp(names + (size_t)first * MPI_MAX_PROCESSOR_NAME,
                      names + (size_t)r * MPI_MAX_PROCESSOR_NAME) != 0)
            first++;
        hosts += first == r;
    }
    free(names);
    if (split_type == MPI_UNDEFINED)
        color = MPI_UNDEFINED;
    else if (split_type == MPI_COMM_TYPE_HW_GUIDED || split_type == MPI_COMM_TYPE_RESOURCE_GUIDED)
        color = guided_host(info) ? color : MPI_UNDEFINED;
    else if (split_type == MPI_COMM_TYPE_HW_UNGUIDED) {
        /* the host is the only level known: a strict subset only when there are several */
        if (hosts > 1 && info != MPI_INFO_NULL)
            PMPI_Info_set(info, "mpi_hw_resource_type", "mpi_shared_memory");
        else if (hosts <= 1)
            color = MPI_UNDEFINED;
    }
    return split_by(comm, color, key, newcomm, fn);
}

static int member_of(MPI_Group g, int world)
{
    for (int i = 0; i < g->size; i++)
        if (g->world_of[i] == world)
            return i;
    return -1;
}

int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create";
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(out_check(comm, newcomm, fn));
    if (!group || !group->valid)
        return sm_error(comm, MPI_ERR_GROUP, fn, "null or freed group");
    if (sm_comm_is_inter(comm))
        return sm_inter_create(comm, group, newcomm, fn);
    for (int i = 0; i < group->size; i++)
        if (sm_comm_rank_of_world(comm, group->world_of[i]) < 0)
            return sm_error(comm, MPI_ERR_GROUP, fn, "group is not a subset of the communicator");
    uint32_t ctx = sm_ctx_agree(comm);
    int me = member_of(group, sm_world_rank());
    if (me < 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    MPI_Comm c = sm_comm_new(me, group->size, group->world_of, ctx);
    sm_comm_inherit(comm, c);
    *newcomm = c;
    return MPI_SUCCESS;
}

/* the agreement of Comm_create_group runs over the group alone */
struct group_agree {
    MPI_Comm tmp;
    int err;
    int tag;
};
static int group_allmax(uint32_t v[2], void *arg)
{
    struct group_agree *g = arg;
    uint32_t out[2] = { 0, 0 };
    /* every round on tags derived from the user's: rounds are sequential, and the next
     * sequence number would be another creator's (threads creating from one parent at once
     * each have a temporary communicator on the parent's context), so the schedule's
     * sequence is set too, in a range the parent's own collectives never reach */
    g->tmp->coll_tag = g->tag;
    sm_comm_x(g->tmp)->nbc_seq = 0x08000000u | ((uint32_t)g->tag & 0x07ffffffu);
    int e = sm_coll_allreduce(v, out, 2, MPI_UNSIGNED, MPI_MAX, g->tmp);
    v[0] = out[0];
    v[1] = out[1];
    if (e && !g->err)
        g->err = e;
    return e;
}

int PMPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_group";
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm)) /* MPI-3.1 6.4.2: comm is an intracommunicator */
        return sm_error(comm, MPI_ERR_COMM, fn, "not defined on intercommunicators");
    SM_TRY(out_check(comm, newcomm, fn));
    if (!group || !group->valid)
        return sm_error(comm, MPI_ERR_GROUP, fn, "null or freed group");
    int me = member_of(group, sm_world_rank());
    if (me < 0) {
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    /* agreement among the group only: a temporary communicator on comm's collective
     * context, with tags of their own (derived from the user's tag) */
    MPI_Comm tmp = sm_comm_new(me, group->size, group->world_of, comm->ctx);
    tmp->coll_tag = 0x10000000 | (tag & 0x0fffffff);
    struct group_agree ga = { tmp, 0, tmp->coll_tag };
    uint32_t ctx = sm_ctx_agree_with(group_allmax, &ga, 1);
    comm_destroy(tmp);
    if (ga.err)
        return sm_error(comm, ga.err, fn, NULL);
    MPI_Comm c = sm_comm_new(me, group->size, group->world_of, ctx);
    sm_comm_inherit(comm, c);
    *newcomm = c;
    return MPI_SUCCESS;
}

/* ---- freeing: the standard marks a communicator for deallocation and frees it once the
 * operations pending on it complete.  A freed communicator that a request still refers to
 * (point-to-point, a non-blocking collective's own request, or one of its steps on the hidden
 * local communicator of an intercommunicator) waits in this list. */
static MPI_Comm *doomed;
static int ndoomed, doomed_cap;

static int still_used(MPI_Comm c)
{
    return sm_req_any_for_comm(c) ||
           (c->x && c->x->local_comm && sm_req_any_for_comm(c->x->local_comm));
}

static int reap_hook(void)
{
    int k = 0;
    for (int i = 0; i < ndoomed; i++) {
        if (still_used(doomed[i]))
            doomed[k++] = doomed[i];
        else
            comm_destroy(doomed[i]);
    }
    int freed = ndoomed - k;
    ndoomed = k;
    return freed;
}

void sm_comm_reap_all(void)
{
    for (int i = 0; i < ndoomed; i++)
        comm_destroy(doomed[i]);
    free(doomed);
    doomed = NULL;
    ndoomed = doomed_cap = 0;
}

static void defer_destroy(MPI_Comm c)
{
    static int hooked;
    if (!still_used(c)) {
        comm_destroy(c);
        return;
    }
    if (!hooked) {
        sm_progress_hook_add(reap_hook);
        hooked = 1;
    }
    if (ndoomed == doomed_cap) {
        doomed_cap = doomed_cap ? 2 * doomed_cap : 8;
        MPI_Comm *d = realloc(doomed, sizeof *d * (size_t)doomed_cap);
        if (!d)
            sm_die("out of memory freeing a communicator");
        doomed = d;
    }
    doomed[ndoomed++] = c;
}

int PMPI_Comm_free(MPI_Comm *comm)
{
    const char *fn = "MPI_Comm_free";
    if (!comm)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COMM, fn, "NULL pointer");
    SM_TRY(sm_check_comm(*comm, fn));
    if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
        return sm_error(*comm, MPI_ERR_COMM, fn, "%s cannot be freed", (*comm)->name);
    int rc = sm_attr_delete_all(*comm);
    if (rc)
        return sm_error(*comm, rc, fn, "attribute delete callback failed");
    sm_dyn_forget(*comm); /* freeing the parent intercommunicator */
    defer_destroy(*comm);
    *comm = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    if (comm && *comm && (*comm)->valid)
        PMPI_Barrier(*comm);
    return PMPI_Comm_free(comm);
}

int PMPI_Comm_compare(MPI_Comm a, MPI_Comm b, int *result)
{
    SM_TRY(sm_check_comm(a, "MPI_Comm_compare"));
    SM_TRY(sm_check_comm(b, "MPI_Comm_compare"));
    SM_TRY(out_check(a, result, "MPI_Comm_compare"));
    if (a == b) {
        *result = MPI_IDENT;
        return MPI_SUCCESS;
    }
    if (sm_comm_is_inter(a) != sm_comm_is_inter(b)) {
        *result = MPI_UNEQUAL;
        return MPI_SUCCESS;
    }
    MPI_Group ga = sm_comm_local_group(a), gb = sm_comm_local_group(b);
    int r = sm_group_compare(ga, gb);
    PMPI_Group_free(&ga);
    PMPI_Group_free(&gb);
    if (sm_comm_is_inter(a) && r != MPI_UNEQUAL) {
        MPI_Group ra = sm_group_new(a->size, a->world_of),
                  rb = sm_group_new(b->size, b->world_of);
        int r2 = sm_group_compare(ra, rb);
        PMPI_Group_free(&ra);
        PMPI_Group_free(&rb);
        if (r2 == MPI_UNEQUAL || (r2 == MPI_SIMILAR))
            r = r2;
    }
    *result = r == MPI_IDENT ? MPI_CONGRUENT : r;
    return MPI_SUCCESS;
}

int PMPI_Comm_test_inter(MPI_Comm comm, int *flag)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_test_inter"));
    SM_TRY(out_check(comm, flag, "MPI_Comm_test_inter"));
    *flag = sm_comm_is_inter(comm);
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_remote_size"));
    SM_TRY(out_check(comm, size, "MPI_Comm_remote_size"));
    if (!sm_comm_is_inter(comm))
        return sm_error(comm, MPI_ERR_COMM, "MPI_Comm_remote_size", "not an intercommunicator");
    *size = comm->size;
    return MPI_SUCCESS;
}

int PMPI_Comm_set_name(MPI_Comm comm, const char *name)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_set_name"));
    SM_TRY(out_check(comm, (void *)name, "MPI_Comm_set_name"));
    snprintf(comm->name, sizeof comm->name, "%s", name);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_name(MPI_Comm comm, char *name, int *resultlen)
{
    if (comm == MPI_COMM_NULL && name && resultlen) { /* MPI-4.1: the null handle's name */
        SM_TRY(sm_check_init("MPI_Comm_get_name"));
        *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "MPI_COMM_NULL");
        return MPI_SUCCESS;
    }
    SM_TRY(sm_check_comm(comm, "MPI_Comm_get_name"));
    if (!name || !resultlen)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_get_name", "NULL argument");
    *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "%s", comm->name);
    return MPI_SUCCESS;
}

int PMPI_Comm_set_info(MPI_Comm comm, MPI_Info info)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_set_info"));
    apply_info(comm, info, 0);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_info(MPI_Comm comm, MPI_Info *info)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_get_info"));
    SM_TRY(out_check(comm, info, "MPI_Comm_get_info"));
    if (comm->x && comm->x->info) {
        *info = sm_info_dup(comm->x->info);
        return MPI_SUCCESS;
    }
    return PMPI_Info_create(info);
}
