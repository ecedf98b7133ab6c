/* topo_attr.c — Cartesian shifts on a 2-D torus with a halo exchange, Cart_sub, Dims_create,
 * graph and dist-graph queries; attribute keyvals with copy and delete callbacks across
 * Comm_dup/Comm_free; predefined attributes; info objects and communicator info. */
#include "../common/mpi_test.h"

static int deletes, copies;
static int copy_cb(MPI_Comm c, int k, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)k, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}
static int delete_cb(MPI_Comm c, int k, void *val, void *extra)
{
    (void)c, (void)k, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int dims[2] = {0, 0}, periods[2] = {1, 1};
    MPI_Dims_create(size_, 2, dims);
    CHECK(dims[0] * dims[1] == size_ && dims[0] >= dims[1], "Dims_create %d %d", dims[0], dims[1]);
    int d3[3] = {0, 2, 0};
    if (size_ % 2 == 0) {
        MPI_Dims_create(size_, 3, d3);
        CHECK(d3[0] * d3[1] * d3[2] == size_ && d3[1] == 2, "Dims_create fixed");
    }
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int st;
    MPI_Topo_test(cart, &st);
    CHECK(st == MPI_CART, "topo_test");
    int coords[2], r;
    MPI_Cart_coords(cart, rank_, 2, coords);
    MPI_Cart_rank(cart, coords, &r);
    CHECK(r == rank_, "cart rank");
    for (int dir = 0; dir < 2; dir++) {
        int src, dst;
        MPI_Cart_shift(cart, dir, 1, &src, &dst);
        int c2[2] = {coords[0], coords[1]};
        c2[dir] = (c2[dir] + 1) % dims[dir];
        int want;
        MPI_Cart_rank(cart, c2, &want);
        CHECK(dst == want, "shift dest");
        int v = rank_, got = -1;
        MPI_Sendrecv(&v, 1, MPI_INT, dst, 0, &got, 1, MPI_INT, src, 0, cart, MPI_STATUS_IGNORE);
        CHECK(got == src, "torus halo %d %d", got, src);
    }
    int rem[2] = {1, 0};
    MPI_Comm row;
    MPI_Cart_sub(cart, rem, &row);
    int rs, nd;
    MPI_Comm_size(row, &rs);
    MPI_Cartdim_get(row, &nd);
    CHECK(rs == dims[0] && nd == 1, "Cart_sub");
    MPI_Comm_free(&row);
    /* graph: a ring */
    int *index = xmalloc(sizeof(int) * (size_t)size_), *edges = xmalloc(sizeof(int) * 2 * (size_t)size_);
    for (int i = 0; i < size_; i++) {
        index[i] = 2 * (i + 1);
        edges[2 * i] = (i + 1) % size_;
        edges[2 * i + 1] = (i - 1 + size_) % size_;
    }
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, size_, index, edges, 0, &g);
    int nn, nb[2];
    MPI_Graph_neighbors_count(g, rank_, &nn);
    MPI_Graph_neighbors(g, rank_, 2, nb);
    CHECK(nn == 2 && nb[0] == (rank_ + 1) % size_, "graph neighbors");
    MPI_Comm dg;
    int out = (rank_ + 1) % size_, in = (rank_ - 1 + size_) % size_;
    MPI_Dist_graph_create(MPI_COMM_WORLD, 1, &rank_, (int[]){1}, &out, MPI_UNWEIGHTED,
                          MPI_INFO_NULL, 0, &dg);
    int indeg, outdeg, w, srcs[4], dsts[4];
    MPI_Dist_graph_neighbors_count(dg, &indeg, &outdeg, &w);
    CHECK(indeg == 1 && outdeg == 1 && !w, "dist graph degrees %d %d", indeg, outdeg);
    MPI_Dist_graph_neighbors(dg, 4, srcs, MPI_UNWEIGHTED, 4, dsts, MPI_UNWEIGHTED);
    CHECK(srcs[0] == in && dsts[0] == out, "dist graph neighbours");
    MPI_Comm_free(&dg);
    MPI_Comm_free(&g);
    free(index);
    free(edges);

    /* attributes */
    int key, *tagub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tagub, &flag);
    CHECK(flag && *tagub >= 32767, "TAG_UB");
    MPI_Comm_create_keyval(copy_cb, delete_cb, &key, NULL);
    static int payload = 99;
    MPI_Comm_set_attr(cart, key, &payload);
    MPI_Comm d;
    MPI_Comm_dup(cart, &d);
    int *p;
    MPI_Comm_get_attr(d, key, &p, &flag);
    CHECK(flag && p == &payload && copies == 1, "copied attribute");
    MPI_Topo_test(d, &st);
    CHECK(st == MPI_CART, "dup keeps topology");
    MPI_Comm_free(&d);
    CHECK(deletes == 1, "delete callback on free");
    MPI_Comm_delete_attr(cart, key);
    CHECK(deletes == 2, "delete callback on delete");
    MPI_Comm_get_attr(cart, key, &p, &flag);
    CHECK(!flag, "deleted");
    MPI_Comm_free_keyval(&key);
    MPI_Comm_free(&cart);

    /* info */
    MPI_Info info, info2;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    MPI_Info_set(info, "color", "blue");
    int nk;
    char k[MPI_MAX_INFO_KEY + 1], v[64];
    MPI_Info_get_nkeys(info, &nk);
    MPI_Info_get_nthkey(info, 1, k);
    CHECK(nk == 2 && strcmp(k, "color") == 0, "info keys");
    MPI_Info_dup(info, &info2);
    MPI_Info_delete(info, "color");
    MPI_Info_get(info2, "color", 63, v, &flag);
    CHECK(flag && strcmp(v, "blue") == 0, "info dup");
    MPI_Info_get(info, "color", 63, v, &flag);
    CHECK(!flag, "info delete");
    MPI_Comm ci;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &ci);
    MPI_Info got;
    MPI_Comm_get_info(ci, &got);
    MPI_Info_get(got, "mpi_assert_no_any_tag", 63, v, &flag);
    CHECK(flag && strcmp(v, "true") == 0, "comm info");
    MPI_Info_free(&got);
    MPI_Info_free(&info);
    MPI_Info_free(&info2);
    MPI_Comm_free(&ci);
    /* user error classes */
    int cls, code, len;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Add_error_class(&cls);
    MPI_Add_error_code(cls, &code);
    MPI_Add_error_string(code, "my error");
    MPI_Error_string(code, msg, &len);
    int c2;
    MPI_Error_class(code, &c2);
    CHECK(strcmp(msg, "my error") == 0 && c2 == cls, "user error codes");
    void *mem;
    MPI_Alloc_mem(100, MPI_INFO_NULL, &mem);
    MPI_Free_mem(mem);
    return finish();
}
