/* group.c — process groups: a group is the list of its members' MPI_COMM_WORLD ranks.
 * Comm_group/Comm_remote_group, size/rank, incl/excl/range forms, set operations,
 * translate_ranks, compare, free. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

static const char *const G = "group";

MPI_Group sm_group_new(int size, const int *world_of)
{
    struct sctpmpi_group *g = sm_xcalloc(1, sizeof *g);
    g->valid = 1;
    g->size = size;
    g->refcount = 1;
    g->world_of = sm_xmalloc(sizeof(int) * ((size_t)size + 1));
    for (int i = 0; i < size; i++)
        g->world_of[i] = world_of ? world_of[i] : i; /* NULL: identity (MPI_COMM_WORLD) */
    return g;
}

/* the (local) group of a communicator */
MPI_Group sm_comm_local_group(MPI_Comm c)
{
    int n = c->x && c->x->is_inter ? c->x->local_size : c->size;
    const int *w = c->x && c->x->is_inter ? c->x->local_world_of : c->world_of;
    return sm_group_new(n, w);
}

static int check_group(MPI_Group g, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!g || !g->valid)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_GROUP, fn, "null or freed %s", G);
    return MPI_SUCCESS;
}

static int rank_in(MPI_Group g, int world)
{
    for (int i = 0; i < g->size; i++)
        if (g->world_of[i] == world)
            return i;
    return MPI_UNDEFINED;
}

int PMPI_Comm_group(MPI_Comm comm, MPI_Group *group)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_group"));
    if (!group)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_group", "NULL group pointer");
    *group = sm_comm_local_group(comm);
    return MPI_SUCCESS;
}

int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_remote_group"));
    if (!sm_comm_is_inter(comm))
        return sm_error(comm, MPI_ERR_COMM, "MPI_Comm_remote_group", "not an intercommunicator");
    if (!group)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_remote_group", "NULL group pointer");
    *group = sm_group_new(comm->size, comm->world_of);
    return MPI_SUCCESS;
}

int PMPI_Group_size(MPI_Group group, int *size)
{
    SM_TRY(check_group(group, "MPI_Group_size"));
    if (!size)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Group_size", "NULL pointer");
    *size = group->size;
    return MPI_SUCCESS;
}

int PMPI_Group_rank(MPI_Group group, int *rank)
{
    SM_TRY(check_group(group, "MPI_Group_rank"));
    if (!rank)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Group_rank", "NULL pointer");
    *rank = rank_in(group, sm_world_rank());
    return MPI_SUCCESS;
}

int PMPI_Group_free(MPI_Group *group)
{
    if (!group)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_GROUP, "MPI_Group_free", "NULL pointer");
    SM_TRY(check_group(*group, "MPI_Group_free"));
    if (*group != MPI_GROUP_EMPTY && --(*group)->refcount <= 0) {
        (*group)->valid = 0;
        free((*group)->world_of);
        free(*group);
    }
    *group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

static int check_ranks(MPI_Group g, int n, const int *ranks, int distinct, const char *fn)
{
    if (n < 0 || n > g->size || (n > 0 && !ranks))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad count %d", n);
    char *seen = sm_xcalloc((size_t)g->size + 1, 1);
    for (int i = 0; i < n; i++) {
        if (ranks[i] < 0 || ranks[i] >= g->size || (distinct && seen[ranks[i]])) {
            free(seen);
            return sm_error(MPI_COMM_WORLD, MPI_ERR_RANK, fn, "rank %d invalid or repeated",
                            ranks[i]);
        }
        seen[ranks[i]] = 1;
    }
    free(seen);
    return MPI_SUCCESS;
}

int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_incl";
    SM_TRY(check_group(group, fn));
    SM_TRY(check_ranks(group, n, ranks, 1, fn));
    int *w = sm_xmalloc(sizeof(int) * ((size_t)n + 1));
    for (int i = 0; i < n; i++)
        w[i] = group->world_of[ranks[i]];
    *newgroup = n ? sm_group_new(n, w) : MPI_GROUP_EMPTY;
    free(w);
    return MPI_SUCCESS;
}

int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_excl";
    SM_TRY(check_group(group, fn));
    SM_TRY(check_ranks(group, n, ranks, 1, fn));
    char *out = sm_xcalloc((size_t)group->size + 1, 1);
    for (int i = 0; i < n; i++)
        out[ranks[i]] = 1;
    int *w = sm_xmalloc(sizeof(int) * ((size_t)group->size + 1)), k = 0;
    for (int i = 0; i < group->size; i++)
        if (!out[i])
            w[k++] = group->world_of[i];
    *newgroup = k ? sm_group_new(k, w) : MPI_GROUP_EMPTY;
    free(w);
    free(out);
    return MPI_SUCCESS;
}

/* expand ranges into a rank list; returns count or -1 */
static int expand(MPI_Group g, int n, int ranges[][3], int **out, const char *fn)
{
    size_t cap = 16, k = 0;
    int *r = sm_xmalloc(cap * sizeof *r);
    for (int i = 0; i < n; i++) {
        int first = ranges[i][0], last = ranges[i][1], stride = ranges[i][2];
        if (stride == 0 || first < 0 || first >= g->size || last < 0 || last >= g->size) {
            free(r);
            sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad range %d", i);
            return -1;
        }
        for (int x = first; stride > 0 ? x <= last : x >= last; x += stride) {
            if (k == cap)
                r = realloc(r, (cap *= 2) * sizeof *r);
            r[k++] = x;
        }
    }
    *out = r;
    return (int)k;
}

int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_range_incl";
    SM_TRY(check_group(group, fn));
    int *r, k = expand(group, n, ranges, &r, fn);
    if (k < 0)
        return MPI_ERR_ARG;
    int rc = PMPI_Group_incl(group, k, r, newgroup);
    free(r);
    return rc;
}

int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_range_excl";
    SM_TRY(check_group(group, fn));
    int *r, k = expand(group, n, ranges, &r, fn);
    if (k < 0)
        return MPI_ERR_ARG;
    int rc = PMPI_Group_excl(group, k, r, newgroup);
    free(r);
    return rc;
}

static int setop(MPI_Group a, MPI_Group b, int op, MPI_Group *out, const char *fn)
{
    SM_TRY(check_group(a, fn));
    SM_TRY(check_group(b, fn));
    if (!out)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL output");
    int *w = sm_xmalloc(sizeof(int) * ((size_t)a->size + (size_t)b->size + 1)), k = 0;
    for (int i = 0; i < a->size; i++) {
        int inb = rank_in(b, a->world_of[i]) != MPI_UNDEFINED;
        if (op == 0 || (op == 1 && inb) || (op == 2 && !inb))
            w[k++] = a->world_of[i];
    }
    if (op == 0)
        for (int i = 0; i < b->size; i++)
            if (rank_in(a, b->world_of[i]) == MPI_UNDEFINED)
                w[k++] = b->world_of[i];
    *out = k ? sm_group_new(k, w) : MPI_GROUP_EMPTY;
    free(w);
    return MPI_SUCCESS;
}

int PMPI_Group_union(MPI_Group a, MPI_Group b, MPI_Group *out)
{
    return setop(a, b, 0, out, "MPI_Group_union");
}
int PMPI_Group_intersection(MPI_Group a, MPI_Group b, MPI_Group *out)
{
    return setop(a, b, 1, out, "MPI_Group_intersection");
}
int PMPI_Group_difference(MPI_Group a, MPI_Group b, MPI_Group *out)
{
    return setop(a, b, 2, out, "MPI_Group_difference");
}

int PMPI_Group_translate_ranks(MPI_Group a, int n, const int ranks1[], MPI_Group b, int ranks2[])
{
    const char *fn = "MPI_Group_translate_ranks";
    SM_TRY(check_group(a, fn));
    SM_TRY(check_group(b, fn));
    if (n < 0 || (n > 0 && (!ranks1 || !ranks2)))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad arguments");
    for (int i = 0; i < n; i++) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        if (ranks1[i] < 0 || ranks1[i] >= a->size)
            return sm_error(MPI_COMM_WORLD, MPI_ERR_RANK, fn, "rank %d not in group", ranks1[i]);
        ranks2[i] = rank_in(b, a->world_of[ranks1[i]]);
    }
    return MPI_SUCCESS;
}

int sm_group_compare(MPI_Group a, MPI_Group b)
{
    if (a->size != b->size)
        return MPI_UNEQUAL;
    int same_order = 1;
    for (int i = 0; i < a->size; i++) {
        if (a->world_of[i] != b->world_of[i])
            same_order = 0;
        if (rank_in(b, a->world_of[i]) == MPI_UNDEFINED)
            return MPI_UNEQUAL;
    }
    return same_order ? MPI_IDENT : MPI_SIMILAR;
}

int PMPI_Group_compare(MPI_Group a, MPI_Group b, int *result)
{
    SM_TRY(check_group(a, "MPI_Group_compare"));
    SM_TRY(check_group(b, "MPI_Group_compare"));
    if (!result)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Group_compare", "NULL result");
    *result = sm_group_compare(a, b);
    return MPI_SUCCESS;
}
