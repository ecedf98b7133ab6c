/* topo.c — process topologies: Cartesian (create, coords, rank, shift, sub, get, dim_get,
 * map), Dims_create, graphs (create, get, dims, neighbors), distributed graphs
 * (create_adjacent, create, neighbors(_count)), Topo_test.  Ranks are never reordered. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

struct sm_topo {
    int kind; /* MPI_CART, MPI_GRAPH, MPI_DIST_GRAPH */
    int ndims, *dims, *periods;
    int nnodes, *index, *edges;                          /* graph */
    int indeg, outdeg, *srcs, *dsts, *sw, *dw, weighted; /* dist graph (this process) */
};

void sm_topo_free(struct sm_topo *t)
{
    if (!t)
        return;
    free(t->dims), free(t->periods), free(t->index), free(t->edges);
    free(t->srcs), free(t->dsts), free(t->sw), free(t->dw);
    free(t);
}

static int *dupi(const int *a, int n)
{
    if (!a)
        return NULL;
    int *d = sm_xmalloc(sizeof(int) * ((size_t)n + 1));
    if (n > 0)
        memcpy(d, a, sizeof(int) * (size_t)n);
    return d;
}

struct sm_topo *sm_topo_dup(const struct sm_topo *t)
{
    if (!t)
        return NULL;
    struct sm_topo *d = sm_xmalloc(sizeof *d);
    *d = *t;
    d->dims = dupi(t->dims, t->ndims);
    d->periods = dupi(t->periods, t->ndims);
    d->index = dupi(t->index, t->nnodes);
    d->edges = dupi(t->edges, t->nnodes ? t->index[t->nnodes - 1] : 0);
    d->srcs = dupi(t->srcs, t->indeg);
    d->dsts = dupi(t->dsts, t->outdeg);
    d->sw = dupi(t->sw, t->indeg);
    d->dw = dupi(t->dw, t->outdeg);
    return d;
}

static struct sm_topo *topo_of(MPI_Comm c, int kind, const char *fn, int *err)
{
    *err = sm_check_comm(c, fn);
    if (*err)
        return NULL;
    struct sm_topo *t = c->x ? c->x->topo : NULL;
    if (!t || (kind && t->kind != kind)) {
        *err = sm_error(c, MPI_ERR_TOPOLOGY, fn, "communicator has no %s topology",
                        kind == MPI_CART    ? "Cartesian"
                        : kind == MPI_GRAPH ? "graph"
                                            : "suitable");
        return NULL;
    }
    return t;
}

/* a communicator over the first n ranks of comm (the others get COMM_NULL) */
static int sub_first(MPI_Comm comm, int n, MPI_Comm *out)
{
    MPI_Group g, sub;
    PMPI_Comm_group(comm, &g);
    int range[1][3] = { { 0, n - 1, 1 } };
    if (n > 0)
        PMPI_Group_range_incl(g, 1, range, &sub);
    else
        sub = MPI_GROUP_EMPTY;
    int rc = PMPI_Comm_create(comm, sub, out);
    PMPI_Group_free(&g);
    if (sub != MPI_GROUP_EMPTY)
        PMPI_Group_free(&sub);
    return rc;
}

int PMPI_Topo_test(MPI_Comm comm, int *status)
{
    SM_TRY(sm_check_comm(comm, "MPI_Topo_test"));
    *status = comm->x && comm->x->topo ? comm->x->topo->kind : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- Cartesian --------------------------------------------------------------------------- */
int PMPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm *comm_cart)
{
    const char *fn = "MPI_Cart_create";
    (void)reorder;
    SM_TRY(sm_check_comm(comm, fn));
    if (ndims < 0 || (ndims > 0 && (!dims || !periods)) || !comm_cart)
        return sm_error(comm, MPI_ERR_ARG, fn, "bad arguments");
    int n = 1;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] <= 0)
            return sm_error(comm, MPI_ERR_DIMS, fn, "dims[%d] = %d", i, dims[i]);
        n *= dims[i];
    }
    if (n > comm->size)
        return sm_error(comm, MPI_ERR_TOPOLOGY, fn, "grid of %d is larger than the group (%d)", n,
                        comm->size);
    SM_TRY(sub_first(comm, n, comm_cart));
    if (*comm_cart == MPI_COMM_NULL)
        return MPI_SUCCESS;
    struct sm_topo *t = sm_xcalloc(1, sizeof *t);
    t->kind = MPI_CART;
    t->ndims = ndims;
    t->dims = dupi(dims, ndims);
    t->periods = sm_xmalloc(sizeof(int) * ((size_t)ndims + 1));
    for (int i = 0; i < ndims; i++)
        t->periods[i] = periods[i] != 0;
    sm_comm_x(*comm_cart)->topo = t;
    return MPI_SUCCESS;
}

int PMPI_Cartdim_get(MPI_Comm comm, int *ndims)
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_CART, "MPI_Cartdim_get", &err);
    if (!t)
        return err;
    *ndims = t->ndims;
    return MPI_SUCCESS;
}

int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[])
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_CART, "MPI_Cart_get", &err);
    if (!t)
        return err;
    int r = comm->rank;
    for (int i = t->ndims - 1; i >= 0; i--) {
        if (i < maxdims) {
            dims[i] = t->dims[i];
            periods[i] = t->periods[i];
            coords[i] = r % t->dims[i];
        }
        r /= t->dims[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[])
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_CART, "MPI_Cart_coords", &err);
    if (!t)
        return err;
    if (rank < 0 || rank >= comm->size)
        return sm_error(comm, MPI_ERR_RANK, "MPI_Cart_coords", "rank %d", rank);
    for (int i = t->ndims - 1; i >= 0; i--) {
        if (i < maxdims)
            coords[i] = rank % t->dims[i];
        rank /= t->dims[i];
    }
    return MPI_SUCCESS;
}

int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int *rank)
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_CART, "MPI_Cart_rank", &err);
    if (!t)
        return err;
    int r = 0;
    for (int i = 0; i < t->ndims; i++) {
        int c = coords[i], d = t->dims[i];
        if (t->periods[i])
            c = ((c % d) + d) % d;
        else if (c < 0 || c >= d)
            return sm_error(comm, MPI_ERR_ARG, "MPI_Cart_rank", "coordinate %d out of range", c);
        r = r * d + c;
    }
    *rank = r;
    return MPI_SUCCESS;
}

int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int *source, int *dest)
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_CART, "MPI_Cart_shift", &err);
    if (!t)
        return err;
    if (direction < 0 || direction >= t->ndims)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Cart_shift", "direction %d", direction);
    int coords[64], tmp[64];
    PMPI_Cart_coords(comm, comm->rank, t->ndims, coords);
    for (int s = -1; s <= 1; s += 2) {
        memcpy(tmp, coords, sizeof(int) * (size_t)t->ndims);
        int c = coords[direction] + s * disp, d = t->dims[direction], r;
        if (!t->periods[direction] && (c < 0 || c >= d)) {
            r = MPI_PROC_NULL;
        } else {
            tmp[direction] = c;
            PMPI_Cart_rank(comm, tmp, &r);
        }
        if (s < 0)
            *source = r;
        else
            *dest = r;
    }
    return MPI_SUCCESS;
}

int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_CART, "MPI_Cart_sub", &err);
    if (!t)
        return err;
    int coords[64], color = 0, key = 0, nd = 0, dims[64], periods[64];
    PMPI_Cart_coords(comm, comm->rank, t->ndims, coords);
    for (int i = 0; i < t->ndims; i++) {
        if (remain_dims[i]) {
            key = key * t->dims[i] + coords[i];
            dims[nd] = t->dims[i];
            periods[nd++] = t->periods[i];
        } else {
            color = color * t->dims[i] + coords[i];
        }
    }
    SM_TRY(PMPI_Comm_split(comm, color, key, newcomm));
    struct sm_topo *s = sm_xcalloc(1, sizeof *s);
    s->kind = MPI_CART;
    s->ndims = nd;
    s->dims = dupi(dims, nd);
    s->periods = dupi(periods, nd);
    sm_comm_x(*newcomm)->topo = s;
    return MPI_SUCCESS;
}

int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank)
{
    (void)periods;
    SM_TRY(sm_check_comm(comm, "MPI_Cart_map"));
    int n = 1;
    for (int i = 0; i < ndims; i++)
        n *= dims[i];
    *newrank = comm->rank < n ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- Dims_create ------------------------------------------------------------------------- */
struct dims_search {
    int k;     /* number of free dimensions */
    int *divs; /* divisors of the number to split, ascending */
    int ndivs;
    int *cur;        /* the sequence being built, non-increasing */
    int *best;       /* the best complete sequence so far */
    int best_spread; /* its largest minus smallest; -1 before the first */
};

static int cmp_int_up(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* is the complete sequence cur better than best (equal spreads: compare smallest first) */
static int dims_better(const struct dims_search *s)
{
    int spread = s->cur[0] - s->cur[s->k - 1];
    if (s->best_spread < 0 || spread < s->best_spread)
        return 1;
    if (spread > s->best_spread)
        return 0;
    for (int i = s->k - 1; i >= 0; i--)
        if (s->cur[i] != s->best[i])
            return s->cur[i] > s->best[i];
    return 0;
}

/* the largest y with y^e <= v (e >= 1) */
static int iroot(int v, int e)
{
    int lo = 1, hi = v;
    while (lo < hi) {
        int mid = lo + (hi - lo + 1) / 2;
        long long p = 1;
        for (int j = 0; j < e && p <= v; j++)
            p *= mid;
        if (p <= v)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* fill cur[i..k-1] with a non-increasing split of r (each at most cur[i-1]) */
static void dims_dfs(struct dims_search *s, int i, int r)
{
    int m = s->k - i;
    if (m == 1) {
        if (i > 0 && r > s->cur[i - 1])
            return;
        s->cur[i] = r;
        if (dims_better(s)) {
            memcpy(s->best, s->cur, sizeof(int) * (size_t)s->k);
            s->best_spread = s->cur[0] - r;
        }
        return;
    }
    for (int j = 0; j < s->ndivs; j++) {
        int x = s->divs[j];
        if (x > r || (i > 0 && x > s->cur[i - 1]))
            break;
        if (r % x)
            continue;
        /* x must be at least the m-th root of r (the rest are no larger than x) */
        long long p = 1;
        for (int e = 0; e < m && p < r; e++)
            p *= x;
        if (p < r)
            continue;
        /* the smallest value is at most the (m-1)-th root of r / x, so the spread is at
         * least first minus that; this bound only grows with x */
        if (s->best_spread >= 0 && (i ? s->cur[0] : x) - iroot(r / x, m - 1) > s->best_spread)
            break;
        s->cur[i] = x;
        dims_dfs(s, i + 1, r / x);
    }
}

int PMPI_Dims_create(int nnodes, int ndims, int dims[])
{
    const char *fn = "MPI_Dims_create";
    SM_TRY(sm_check_init(fn));
    if (nnodes <= 0 || ndims < 0 || (ndims > 0 && !dims))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad arguments");
    int fixed = 1, free_n = 0;
    for (int i = 0; i < ndims; i++) {
        if (dims[i] < 0)
            return sm_error(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "dims[%d] < 0", i);
        if (dims[i] > 0)
            fixed *= dims[i];
        else
            free_n++;
    }
    if (nnodes % fixed)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "%d is not divisible by %d", nnodes,
                        fixed);
    int rest = nnodes / fixed;
    if (!free_n) {
        if (rest != 1)
            return sm_error(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "dims do not multiply to %d",
                            nnodes);
        return MPI_SUCCESS;
    }
    /* the free dimensions get the most balanced factorisation of rest: smallest spread
     * (largest minus smallest); among equal spreads, the one whose values sorted upward are
     * lexicographically largest.  Searched exhaustively over rest's divisors. */
    struct dims_search s = { .k = free_n };
    s.divs = sm_xmalloc(sizeof(int) * 1600);
    for (int x = 1; (long long)x * x <= rest; x++)
        if (rest % x == 0) {
            s.divs[s.ndivs++] = x;
            if (x != rest / x)
                s.divs[s.ndivs++] = rest / x;
        }
    qsort(s.divs, (size_t)s.ndivs, sizeof(int), cmp_int_up);
    s.cur = sm_xmalloc(sizeof(int) * (size_t)free_n * 2);
    s.best = s.cur + free_n;
    s.best_spread = -1;
    dims_dfs(&s, 0, rest);
    int *d = s.best;
    for (int i = 0, k = 0; i < ndims; i++)
        if (dims[i] == 0)
            dims[i] = d[k++];
    free(s.divs);
    free(s.cur);
    return MPI_SUCCESS;
}

/* ---- graphs ------------------------------------------------------------------------------ */
int PMPI_Graph_create(MPI_Comm comm, int nnodes, const int index[], const int edges[],
                      int reorder, MPI_Comm *comm_graph)
{
    const char *fn = "MPI_Graph_create";
    (void)reorder;
    SM_TRY(sm_check_comm(comm, fn));
    if (nnodes < 0 || nnodes > comm->size || (nnodes > 0 && (!index || !edges)))
        return sm_error(comm, MPI_ERR_ARG, fn, "bad arguments");
    SM_TRY(sub_first(comm, nnodes, comm_graph));
    if (*comm_graph == MPI_COMM_NULL)
        return MPI_SUCCESS;
    struct sm_topo *t = sm_xcalloc(1, sizeof *t);
    t->kind = MPI_GRAPH;
    t->nnodes = nnodes;
    t->index = dupi(index, nnodes);
    t->edges = dupi(edges, nnodes ? index[nnodes - 1] : 0);
    sm_comm_x(*comm_graph)->topo = t;
    return MPI_SUCCESS;
}

int PMPI_Graphdims_get(MPI_Comm comm, int *nnodes, int *nedges)
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_GRAPH, "MPI_Graphdims_get", &err);
    if (!t)
        return err;
    *nnodes = t->nnodes;
    *nedges = t->nnodes ? t->index[t->nnodes - 1] : 0;
    return MPI_SUCCESS;
}

int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[])
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_GRAPH, "MPI_Graph_get", &err);
    if (!t)
        return err;
    for (int i = 0; i < t->nnodes && i < maxindex; i++)
        index[i] = t->index[i];
    int ne = t->nnodes ? t->index[t->nnodes - 1] : 0;
    for (int i = 0; i < ne && i < maxedges; i++)
        edges[i] = t->edges[i];
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int *nneighbors)
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_GRAPH, "MPI_Graph_neighbors_count", &err);
    if (!t)
        return err;
    if (rank < 0 || rank >= t->nnodes)
        return sm_error(comm, MPI_ERR_RANK, "MPI_Graph_neighbors_count", "rank %d", rank);
    *nneighbors = t->index[rank] - (rank ? t->index[rank - 1] : 0);
    return MPI_SUCCESS;
}

int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[])
{
    int n;
    SM_TRY(PMPI_Graph_neighbors_count(comm, rank, &n));
    struct sm_topo *t = comm->x->topo;
    int start = rank ? t->index[rank - 1] : 0;
    for (int i = 0; i < n && i < maxneighbors; i++)
        neighbors[i] = t->edges[start + i];
    return MPI_SUCCESS;
}

int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank)
{
    (void)index, (void)edges;
    SM_TRY(sm_check_comm(comm, "MPI_Graph_map"));
    *newrank = comm->rank < nnodes ? comm->rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

/* ---- distributed graphs ------------------------------------------------------------------ */
static void set_dist(MPI_Comm c, int indeg, const int *srcs, const int *sw, int outdeg,
                     const int *dsts, const int *dw)
{
    struct sm_topo *t = sm_xcalloc(1, sizeof *t);
    t->kind = MPI_DIST_GRAPH;
    t->indeg = indeg;
    t->outdeg = outdeg;
    t->srcs = dupi(srcs, indeg);
    t->dsts = dupi(dsts, outdeg);
    t->weighted = sw != MPI_UNWEIGHTED && dw != MPI_UNWEIGHTED;
    if (t->weighted) {
        t->sw = sw == MPI_WEIGHTS_EMPTY ? NULL : dupi(sw, indeg);
        t->dw = dw == MPI_WEIGHTS_EMPTY ? NULL : dupi(dw, outdeg);
    }
    sm_comm_x(c)->topo = t;
}

int PMPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[],
                                    const int sourceweights[], int outdegree,
                                    const int destinations[], const int destweights[],
                                    MPI_Info info, int reorder, MPI_Comm *newcomm)
{
    (void)info, (void)reorder;
    SM_TRY(PMPI_Comm_dup(comm, newcomm));
    set_dist(*newcomm, indegree, sources, sourceweights, outdegree, destinations, destweights);
    return MPI_SUCCESS;
}

/* each process names edges (sources[i] -> destinations[...]); everyone learns its own in-
 * and out-edges through an all-to-all of edge counts and edge lists */
int PMPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[],
                           const int destinations[], const int weights[], MPI_Info info,
                           int reorder, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Dist_graph_create";
    (void)info, (void)reorder;
    SM_TRY(sm_check_comm(comm, fn));
    int p = comm->size, weighted = weights != MPI_UNWEIGHTED;
    /* edges as triples (src, dst, weight) sent to both endpoints */
    int *cnt = sm_xcalloc((size_t)p, sizeof(int)), *rcnt = sm_xcalloc((size_t)p, sizeof(int));
    int ne = 0;
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            cnt[sources[i]] += 3;
            if (destinations[k] != sources[i]) /* a self loop is sent once */
                cnt[destinations[k]] += 3;
            ne++;
        }
    int *sd = sm_xcalloc((size_t)p + 1, sizeof(int)),
        *rd = sm_xcalloc((size_t)p + 1, sizeof(int));
    for (int i = 0; i < p; i++)
        sd[i + 1] = sd[i] + cnt[i];
    int *sbuf = sm_xmalloc(sizeof(int) * ((size_t)sd[p] + 1)),
        *fill = sm_xcalloc((size_t)p, sizeof(int));
    for (int i = 0, k = 0; i < n; i++)
        for (int j = 0; j < degrees[i]; j++, k++) {
            int e[3] = { sources[i], destinations[k],
                         weighted && weights != MPI_WEIGHTS_EMPTY ? weights[k] : 1 };
            int tgt[2] = { sources[i], destinations[k] };
            for (int z = 0; z < (tgt[0] == tgt[1] ? 1 : 2); z++) {
                memcpy(&sbuf[sd[tgt[z]] + fill[tgt[z]]], e, sizeof e);
                fill[tgt[z]] += 3;
            }
        }
    (void)ne;
    PMPI_Alltoall(cnt, 1, MPI_INT, rcnt, 1, MPI_INT, comm);
    for (int i = 0; i < p; i++)
        rd[i + 1] = rd[i] + rcnt[i];
    int *rbuf = sm_xmalloc(sizeof(int) * ((size_t)rd[p] + 1));
    PMPI_Alltoallv(sbuf, cnt, sd, MPI_INT, rbuf, rcnt, rd, MPI_INT, comm);
    int me = comm->rank, indeg = 0, outdeg = 0, tot = rd[p] / 3;
    int *srcs = sm_xmalloc(sizeof(int) * ((size_t)tot + 1)),
        *dsts = sm_xmalloc(sizeof(int) * ((size_t)tot + 1));
    int *sw = sm_xmalloc(sizeof(int) * ((size_t)tot + 1)),
        *dw = sm_xmalloc(sizeof(int) * ((size_t)tot + 1));
    for (int i = 0; i < tot; i++) {
        int *e = &rbuf[3 * i];
        if (e[1] == me) {
            srcs[indeg] = e[0];
            sw[indeg++] = e[2];
        }
        if (e[0] == me) {
            dsts[outdeg] = e[1];
            dw[outdeg++] = e[2];
        }
    }
    int rc = PMPI_Comm_dup(comm, newcomm);
    if (!rc)
        set_dist(*newcomm, indeg, srcs, weighted ? sw : MPI_UNWEIGHTED, outdeg, dsts,
                 weighted ? dw : MPI_UNWEIGHTED);
    free(cnt), free(rcnt), free(sd), free(rd), free(sbuf), free(fill), free(rbuf);
    free(srcs), free(dsts), free(sw), free(dw);
    return rc;
}

int PMPI_Dist_graph_neighbors_count(MPI_Comm comm, int *indegree, int *outdegree, int *weighted)
{
    int err;
    struct sm_topo *t = topo_of(comm, 0, "MPI_Dist_graph_neighbors_count", &err);
    if (!t)
        return err;
    if (t->kind == MPI_DIST_GRAPH) {
        *indegree = t->indeg;
        *outdegree = t->outdeg;
        *weighted = t->weighted;
    } else if (t->kind == MPI_GRAPH) {
        int n;
        PMPI_Graph_neighbors_count(comm, comm->rank, &n);
        *indegree = *outdegree = n;
        *weighted = 0;
    } else {
        *indegree = *outdegree = 2 * t->ndims;
        *weighted = 0;
    }
    return MPI_SUCCESS;
}

int PMPI_Dist_graph_neighbors(MPI_Comm comm, int maxin, int sources[], int sourceweights[],
                              int maxout, int destinations[], int destweights[])
{
    int err;
    struct sm_topo *t = topo_of(comm, MPI_DIST_GRAPH, "MPI_Dist_graph_neighbors", &err);
    if (!t)
        return err;
    for (int i = 0; i < t->indeg && i < maxin; i++) {
        sources[i] = t->srcs[i];
        if (t->weighted && t->sw && sourceweights != MPI_UNWEIGHTED)
            sourceweights[i] = t->sw[i];
    }
    for (int i = 0; i < t->outdeg && i < maxout; i++) {
        destinations[i] = t->dsts[i];
        if (t->weighted && t->dw && destweights != MPI_UNWEIGHTED)
            destweights[i] = t->dw[i];
    }
    return MPI_SUCCESS;
}

/* ---- neighbourhoods (the neighbour collectives, neighbor.c) ----------------------------- */
int sm_topo_neighbors(MPI_Comm c, const char *fn, int *kind, int *indeg, int **in, int *outdeg,
                      int **out)
{
    int err;
    struct sm_topo *t = topo_of(c, 0, fn, &err);
    if (!t)
        return err;
    *kind = t->kind;
    if (t->kind == MPI_CART) {
        /* dimension by dimension, the neighbour at -1 then the one at +1 (PROC_NULL off a
         * non-periodic edge); the same list for sources and destinations */
        int n = 2 * t->ndims;
        *in = sm_xmalloc(sizeof(int) * ((size_t)n + 1));
        *out = sm_xmalloc(sizeof(int) * ((size_t)n + 1));
        for (int d = 0; d < t->ndims; d++)
            PMPI_Cart_shift(c, d, 1, &(*in)[2 * d], &(*in)[2 * d + 1]);
        if (n)
            memcpy(*out, *in, sizeof(int) * (size_t)n);
        *indeg = *outdeg = n;
    } else if (t->kind == MPI_GRAPH) {
        int start = c->rank ? t->index[c->rank - 1] : 0, n = t->index[c->rank] - start;
        *in = dupi(t->edges + start, n);
        *out = dupi(t->edges + start, n);
        if (!*in) /* n == 0 with no edges at all */
            *in = sm_xmalloc(sizeof(int)), *out = sm_xmalloc(sizeof(int));
        *indeg = *outdeg = n;
    } else {
        *indeg = t->indeg;
        *outdeg = t->outdeg;
        *in = t->srcs ? dupi(t->srcs, t->indeg) : sm_xmalloc(sizeof(int));
        *out = t->dsts ? dupi(t->dsts, t->outdeg) : sm_xmalloc(sizeof(int));
    }
    return MPI_SUCCESS;
}
