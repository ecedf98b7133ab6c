/* neighbor.c — the neighbourhood collectives (Neighbor_allgather(v), alltoall(v,w), blocking
 * and MPI_Ineighbor_) on a 2-D Cartesian torus (periodic, non-periodic and mixed), a graph
 * (an undirected ring) and a distributed graph (Dist_graph_create_adjacent: r receives from
 * r-1 and r+2, sends to r+1 and r-2), every result against a serial reference that computes
 * the neighbourhoods itself.  With 1, 2 or 4 ranks one process is both neighbours of another
 * (periodic dimensions of size 1 or 2, repeated graph edges): blocks pair as the standard
 * says (Cartesian: what goes towards +1 arrives from -1) or in list order (graphs).  A
 * communicator without a topology gives MPI_ERR_TOPOLOGY.  Standard MPI only. */
#include "../common/mpi_test.h"

#define MAXN 8

struct hood { int kind, ni, no, in[MAXN], out[MAXN]; };

static int dims[2], periods[2];

static int cart_rank(int r0, int r1) { return r0 * dims[1] + r1; }

/* the neighbourhood of rank r, computed here and not asked of the library */
static void hood_of(int kind, int r, struct hood *h)
{
    int n = size_;
    h->kind = kind;
    if (kind == MPI_CART) {
        int c[2] = {r / dims[1], r % dims[1]};
        for (int d = 0; d < 2; d++)
            for (int s = -1; s <= 1; s += 2) {
                int cc[2] = {c[0], c[1]};
                cc[d] += s;
                int q;
                if (periods[d])
                    cc[d] = (cc[d] + dims[d]) % dims[d];
                if (cc[d] < 0 || cc[d] >= dims[d])
                    q = MPI_PROC_NULL;
                else
                    q = cart_rank(cc[0], cc[1]);
                h->in[2 * d + (s > 0)] = h->out[2 * d + (s > 0)] = q;
            }
        h->ni = h->no = 4;
    } else if (kind == MPI_GRAPH) {
        h->in[0] = h->out[0] = (r - 1 + n) % n;
        h->in[1] = h->out[1] = (r + 1) % n;
        h->ni = h->no = 2;
    } else {
        h->in[0] = (r - 1 + n) % n;
        h->in[1] = (r + 2) % n;
        h->out[0] = (r + 1) % n;
        h->out[1] = (r - 2 + 2 * n) % n;
        h->ni = h->no = 2;
    }
}

/* which of sender q's blocks arrives in my receive slot j */
static int block_from(const struct hood *me, int j)
{
    int q = me->in[j];
    if (me->kind == MPI_CART)
        return j ^ 1;
    struct hood h = {0}; /* (zeroed: gcc -O3 cannot see that hood_of fills it) */
    hood_of(me->kind, q, &h);
    int occ = 0;
    for (int i = 0; i < j; i++)
        occ += me->in[i] == q;
    for (int k = 0; k < h.no; k++)
        if (h.out[k] == rank_ && occ-- == 0)
            return k;
    CHECK(0, "no block of %d for slot %d", q, j);
    return -1;
}

static int val(int sender, int block, int i) { return sender * 10000 + block * 1000 + i; }
/* element count of the block sender sends as its block k (v and w forms) */
static int vcount(int sender, int k) { return (sender + k) % 3 + 1; }

static void run_all(MPI_Comm t, const struct hood *h, int nb, int n)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    int *s = xmalloc(sizeof(int) * (size_t)(MAXN * n + 16));
    int *r = xmalloc(sizeof(int) * (size_t)(2 * MAXN * (n + 1) + 16));
    int ni = h->ni, no = h->no;
#define DONE()                                                                                   \
    do {                                                                                         \
        if (nb)                                                                                  \
            MPI_Wait(&rq, MPI_STATUS_IGNORE);                                                    \
    } while (0)
    /* allgather: slot j holds neighbour in[j]'s send buffer */
    for (int i = 0; i < n; i++)
        s[i] = val(rank_, 9, i);
    for (int i = 0; i < ni * n; i++)
        r[i] = -1;
    if (nb)
        MPI_Ineighbor_allgather(s, n, MPI_INT, r, n, MPI_INT, t, &rq);
    else
        MPI_Neighbor_allgather(s, n, MPI_INT, r, n, MPI_INT, t);
    DONE();
    for (int j = 0; j < ni; j++)
        for (int i = 0; i < n; i++)
            CHECK(r[j * n + i] == (h->in[j] == MPI_PROC_NULL ? -1 : val(h->in[j], 9, i)),
                  "allgather nb %d kind %d slot %d [%d] = %d", nb, h->kind, j, i, r[j * n + i]);
    /* allgatherv: n elements per slot (what each sender sends), slots in reverse order with
     * a gap after each */
    int rc[MAXN], rd[MAXN], sc[MAXN], sd[MAXN], tot = 0;
    for (int j = ni - 1; j >= 0; j--) {
        rc[j] = n;
        rd[j] = tot;
        tot += n + 1;
    }
    for (int i = 0; i < tot; i++)
        r[i] = -1;
    if (nb)
        MPI_Ineighbor_allgatherv(s, n, MPI_INT, r, rc, rd, MPI_INT, t, &rq);
    else
        MPI_Neighbor_allgatherv(s, n, MPI_INT, r, rc, rd, MPI_INT, t);
    DONE();
    for (int j = 0; j < ni; j++)
        for (int i = 0; i < n; i++)
            CHECK(r[rd[j] + i] == (h->in[j] == MPI_PROC_NULL ? -1 : val(h->in[j], 9, i)),
                  "allgatherv nb %d kind %d slot %d", nb, h->kind, j);
    for (int j = 0; j < ni; j++)
        CHECK(r[rd[j] + n] == -1, "allgatherv wrote past slot %d", j);
    /* alltoall: block k goes to out[k] */
    for (int k = 0; k < no; k++)
        for (int i = 0; i < n; i++)
            s[k * n + i] = val(rank_, k, i);
    for (int i = 0; i < ni * n; i++)
        r[i] = -1;
    if (nb)
        MPI_Ineighbor_alltoall(s, n, MPI_INT, r, n, MPI_INT, t, &rq);
    else
        MPI_Neighbor_alltoall(s, n, MPI_INT, r, n, MPI_INT, t);
    DONE();
    for (int j = 0; j < ni; j++)
        for (int i = 0; i < n; i++)
            CHECK(r[j * n + i] ==
                      (h->in[j] == MPI_PROC_NULL ? -1 : val(h->in[j], block_from(h, j), i)),
                  "alltoall nb %d kind %d slot %d [%d] = %d", nb, h->kind, j, i, r[j * n + i]);
    /* alltoallv: block k has vcount(me, k) elements, packed in reverse order */
    tot = 0;
    for (int k = no - 1; k >= 0; k--) {
        sc[k] = vcount(rank_, k);
        sd[k] = tot;
        tot += sc[k];
        for (int i = 0; i < sc[k]; i++)
            s[sd[k] + i] = val(rank_, k, i);
    }
    tot = 0;
    for (int j = 0; j < ni; j++) {
        rc[j] = h->in[j] == MPI_PROC_NULL ? 0 : vcount(h->in[j], block_from(h, j));
        rd[j] = tot;
        tot += rc[j] + 1; /* a gap after each */
    }
    for (int i = 0; i < tot; i++)
        r[i] = -1;
    if (nb)
        MPI_Ineighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, t, &rq);
    else
        MPI_Neighbor_alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, t);
    DONE();
    for (int j = 0; j < ni; j++) {
        for (int i = 0; i < rc[j]; i++)
            CHECK(r[rd[j] + i] == val(h->in[j], block_from(h, j), i), "alltoallv nb %d slot %d",
                  nb, j);
        CHECK(r[rd[j] + rc[j]] == -1, "alltoallv wrote past slot %d", j);
    }
    /* alltoallw: 2 ints per block, as MPI_INT x2 to even slots and one contiguous(2) to odd
     * ones, byte displacements */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Datatype sts[MAXN], rts[MAXN];
    MPI_Aint sdw[MAXN], rdw[MAXN];
    for (int k = 0; k < no; k++) {
        sts[k] = k % 2 ? pair : MPI_INT;
        sc[k] = k % 2 ? 1 : 2;
        sdw[k] = (MPI_Aint)(2 * k * (int)sizeof(int));
        s[2 * k] = val(rank_, k, 0);
        s[2 * k + 1] = val(rank_, k, 1);
    }
    for (int j = 0; j < ni; j++) {
        rts[j] = j % 2 ? MPI_INT : pair;
        rc[j] = j % 2 ? 2 : 1;
        rdw[j] = (MPI_Aint)(2 * (ni - 1 - j) * (int)sizeof(int));
    }
    for (int i = 0; i < 2 * ni; i++)
        r[i] = -1;
    if (nb)
        MPI_Ineighbor_alltoallw(s, sc, sdw, sts, r, rc, rdw, rts, t, &rq);
    else
        MPI_Neighbor_alltoallw(s, sc, sdw, sts, r, rc, rdw, rts, t);
    MPI_Type_free(&pair); /* legal while the non-blocking one runs */
    DONE();
    for (int j = 0; j < ni; j++)
        for (int i = 0; i < 2; i++)
            CHECK(r[2 * (ni - 1 - j) + i] ==
                      (h->in[j] == MPI_PROC_NULL ? -1 : val(h->in[j], block_from(h, j), i)),
                  "alltoallw nb %d kind %d slot %d", nb, h->kind, j);
#undef DONE
    free(s);
    free(r);
}

static void check_topology(MPI_Comm t, int kind)
{
    struct hood h;
    hood_of(kind, rank_, &h);
    for (int nb = 0; nb < 2; nb++) {
        run_all(t, &h, nb, 3);
        run_all(t, &h, nb, 20000); /* rendezvous-sized blocks */
    }
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    CHECK(size_ <= MAXN, "at most %d ranks", MAXN);
    dims[0] = dims[1] = 0;
    MPI_Dims_create(size_, 2, dims);
    const int per[3][2] = {{1, 1}, {0, 0}, {1, 0}};
    for (int p = 0; p < 3; p++) {
        periods[0] = per[p][0];
        periods[1] = per[p][1];
        MPI_Comm cart;
        MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
        check_topology(cart, MPI_CART);
        MPI_Comm_free(&cart);
    }
    /* graph: an undirected ring */
    int index[MAXN], edges[2 * MAXN];
    for (int i = 0; i < size_; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i - 1 + size_) % size_;
        edges[2 * i + 1] = (i + 1) % size_;
    }
    MPI_Comm graph;
    MPI_Graph_create(MPI_COMM_WORLD, size_, index, edges, 0, &graph);
    check_topology(graph, MPI_GRAPH);
    MPI_Comm_free(&graph);
    /* distributed graph */
    struct hood h;
    hood_of(MPI_DIST_GRAPH, rank_, &h);
    MPI_Comm dg;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, h.ni, h.in, MPI_UNWEIGHTED, h.no, h.out,
                                   MPI_UNWEIGHTED, MPI_INFO_NULL, 0, &dg);
    int indeg, outdeg, weighted;
    MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &weighted);
    CHECK(indeg == 2 && outdeg == 2 && !weighted, "dist graph counts");
    check_topology(dg, MPI_DIST_GRAPH);
    MPI_Comm_free(&dg);
    /* no topology */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int a = 1, b[2], cls = 0;
    MPI_Error_class(MPI_Neighbor_allgather(&a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD), &cls);
    CHECK(cls == MPI_ERR_TOPOLOGY, "Neighbor_allgather without a topology: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    return finish();
}
