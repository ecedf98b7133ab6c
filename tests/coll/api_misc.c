/* api_misc.c — the functions no other test program reaches, each checked for what it must
 * return or do:
 *   environment: Initialized, Finalized (before and after Finalize), Get_version,
 *     Get_library_version, Get_processor_name, Query_thread, Is_thread_main, Wtick, Pcontrol;
 *   MPI-1 names: Address, Type_hvector, Type_hindexed, Type_struct, Type_extent/lb/ub,
 *     Keyval_create/free, Attr_put/get/delete, Errhandler_create/set/get/free;
 *   datatypes: Aint_add, Type_create_hindexed(_block), the _x queries, Get_elements_x,
 *     Type_set/get_name, Type_match_size, Pack_external_size, type and window keyvals with
 *     copy (Type_dup) and delete callbacks, the h-types carried between ranks byte for byte;
 *   errors: Comm_create_errhandler, Comm_set/get_errhandler, Comm_call_errhandler;
 *   persistent Bsend_init, Ssend_init, Rsend_init around a ring;
 *   Status_set_elements(_x), Status_set_cancelled;
 *   topologies: Cart_get, Cart_map, Graph_get, Graph_map, Graphdims_get;
 *   communicators: Comm_idup, Comm_set_info, Comm_disconnect; Info_get_valuelen.
 * Standard MPI only. */
#include "../common/mpi_test.h"

static int copies, deletes, handler_calls, handler_code;

static int type_copy(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)t, (void)key, (void)extra;
    copies++;
    *(void **)out = (char *)in + 1;
    *flag = 1;
    return MPI_SUCCESS;
}

static int type_delete(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t, (void)key, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static int comm_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    deletes++;
    return MPI_SUCCESS;
}

static void handler(MPI_Comm *c, int *code, ...)
{
    (void)c;
    handler_calls++;
    handler_code = *code;
}

static void environment(void)
{
    int flag = 0, v = 0, sv = 0, len = 0;
    MPI_Initialized(&flag);
    CHECK(flag, "Initialized");
    MPI_Finalized(&flag);
    CHECK(!flag, "Finalized before Finalize");
    MPI_Get_version(&v, &sv);
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "Get_version %d.%d", v, sv);
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Get_library_version(lib, &len);
    CHECK(len > 0 && len < MPI_MAX_LIBRARY_VERSION_STRING && (int)strlen(lib) == len,
          "Get_library_version");
    char host[MPI_MAX_PROCESSOR_NAME];
    MPI_Get_processor_name(host, &len);
    CHECK(len > 0 && (int)strlen(host) == len, "Get_processor_name");
    MPI_Query_thread(&v);
    CHECK(v >= MPI_THREAD_SINGLE && v <= MPI_THREAD_MULTIPLE, "Query_thread %d", v);
    MPI_Is_thread_main(&flag);
    CHECK(flag, "Is_thread_main from the main thread");
    double tick = MPI_Wtick();
    CHECK(tick > 0 && tick <= 1e-3, "Wtick %g", tick);
    CHECK(MPI_Pcontrol(1) == MPI_SUCCESS && MPI_Pcontrol(0, "x") == MPI_SUCCESS, "Pcontrol");
}

static void datatypes(void)
{
    /* MPI-1 constructors and queries beside their MPI-2 twins */
    double d[8];
    MPI_Aint a0, a3;
    MPI_Address(&d[0], &a0);
    MPI_Address(&d[3], &a3);
    CHECK(a3 - a0 == 3 * (MPI_Aint)sizeof(double), "Address");
    CHECK(MPI_Aint_add(a0, 3 * sizeof(double)) == a3, "Aint_add");
    MPI_Datatype hv, hv2, hi, hi2, hib, st;
    MPI_Type_hvector(3, 2, 4 * sizeof(int), MPI_INT, &hv);
    MPI_Type_create_hvector(3, 2, 4 * sizeof(int), MPI_INT, &hv2);
    int bl[3] = {2, 1, 3};
    MPI_Aint disp[3] = {0, 3 * sizeof(int), 8 * sizeof(int)};
    MPI_Type_hindexed(3, bl, disp, MPI_INT, &hi);
    MPI_Type_create_hindexed(3, bl, disp, MPI_INT, &hi2);
    MPI_Type_create_hindexed_block(3, 2, disp, MPI_INT, &hib);
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    struct { int i; double x; char c; } rec;
    MPI_Aint rd[3];
    MPI_Address(&rec.i, &rd[0]);
    MPI_Address(&rec.x, &rd[1]);
    MPI_Address(&rec.c, &rd[2]);
    for (int i = 2; i >= 0; i--)
        rd[i] -= rd[0];
    int one[3] = {1, 1, 1};
    MPI_Type_struct(3, one, rd, types, &st);
    MPI_Datatype all[6] = {hv, hv2, hi, hi2, hib, st};
    for (int i = 0; i < 6; i++)
        MPI_Type_commit(&all[i]);
    MPI_Aint ext, lb, ub;
    MPI_Type_extent(hv, &ext);
    CHECK(ext == 10 * (MPI_Aint)sizeof(int), "Type_extent hvector %ld", (long)ext);
    MPI_Type_lb(hi, &lb);
    MPI_Type_ub(hi, &ub);
    CHECK(lb == 0 && ub == 11 * (MPI_Aint)sizeof(int), "Type_lb/ub %ld %ld", (long)lb, (long)ub);
    MPI_Count clb, cext, csz, tlb, text;
    MPI_Type_get_extent_x(hi, &clb, &cext);
    MPI_Type_get_true_extent_x(hi, &tlb, &text);
    MPI_Type_size_x(hi, &csz);
    CHECK(clb == 0 && cext == 11 * (MPI_Count)sizeof(int) && tlb == 0 &&
              text == cext && csz == 6 * (MPI_Count)sizeof(int),
          "_x queries");
    MPI_Type_extent(st, &ext);
    CHECK(ext == (MPI_Aint)sizeof rec, "Type_struct extent %ld", (long)ext);
    /* names */
    char name[MPI_MAX_OBJECT_NAME];
    int len;
    MPI_Type_set_name(hv, "my hvector");
    MPI_Type_get_name(hv, name, &len);
    CHECK(strcmp(name, "my hvector") == 0 && len == 10, "Type_get_name '%s'", name);
    MPI_Type_get_name(MPI_INT, name, &len);
    CHECK(strcmp(name, "MPI_INT") == 0, "predefined name '%s'", name);
    /* Type_match_size, Pack_external_size */
    MPI_Datatype m;
    MPI_Type_match_size(MPI_TYPECLASS_REAL, sizeof(double), &m);
    CHECK(m == MPI_DOUBLE, "Type_match_size real 8");
    MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 4, &m);
    int msz;
    MPI_Type_size(m, &msz);
    CHECK(msz == 4, "Type_match_size integer 4");
    MPI_Aint psz;
    MPI_Pack_external_size("external32", 5, MPI_INT, &psz);
    CHECK(psz == 20, "Pack_external_size %ld", (long)psz);
    MPI_Pack_external_size("external32", 2, hi, &psz);
    CHECK(psz == 48, "Pack_external_size hindexed %ld", (long)psz);
    /* the h-types travel: rank r sends to r+1 with hv / hi / hib, receives contiguous ints */
    int src[16], got[16];
    for (int i = 0; i < 16; i++)
        src[i] = rank_ * 100 + i;
    int to = (rank_ + 1) % size_, from = (rank_ - 1 + size_) % size_;
    const int want_hv[6] = {0, 1, 4, 5, 8, 9}, want_hi[6] = {0, 1, 3, 8, 9, 10},
              want_hib[6] = {0, 1, 3, 4, 8, 9};
    const int *want[3] = {want_hv, want_hi, want_hib};
    MPI_Datatype sendt[3] = {hv, hi2, hib};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < 16; i++)
            got[i] = -1;
        MPI_Sendrecv(src, 1, sendt[k], to, k, got, 6, MPI_INT, from, k, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
        for (int i = 0; i < 6; i++)
            CHECK(got[i] == from * 100 + want[k][i], "h-type %d element %d", k, i);
        CHECK(got[6] == -1, "h-type %d wrote too much", k);
    }
    /* Get_elements_x and the Status_set_ functions */
    MPI_Status stt;
    MPI_Sendrecv(src, 1, hi, rank_, 9, got, 1, hi, rank_, 9, MPI_COMM_WORLD, &stt);
    MPI_Count ex;
    MPI_Get_elements_x(&stt, MPI_INT, &ex);
    CHECK(ex == 6, "Get_elements_x %lld", (long long)ex);
    MPI_Status_set_elements(&stt, MPI_INT, 4);
    int e;
    MPI_Get_elements(&stt, MPI_INT, &e);
    CHECK(e == 4, "Status_set_elements");
    MPI_Status_set_elements_x(&stt, MPI_DOUBLE, 7);
    MPI_Get_elements_x(&stt, MPI_DOUBLE, &ex);
    CHECK(ex == 7, "Status_set_elements_x");
    int flag;
    MPI_Status_set_cancelled(&stt, 1);
    MPI_Test_cancelled(&stt, &flag);
    CHECK(flag, "Status_set_cancelled 1");
    MPI_Status_set_cancelled(&stt, 0);
    MPI_Test_cancelled(&stt, &flag);
    CHECK(!flag, "Status_set_cancelled 0");
    /* type attributes: copied by Type_dup through the copy callback, deleted by the delete
     * callback on Type_delete_attr and Type_free */
    int tkey, wkey;
    copies = deletes = 0;
    MPI_Type_create_keyval(type_copy, type_delete, &tkey, NULL);
    static char base[4];
    MPI_Type_set_attr(hv, tkey, base);
    void *v;
    MPI_Type_get_attr(hv, tkey, &v, &flag);
    CHECK(flag && v == base, "Type_get_attr");
    MPI_Datatype dup;
    MPI_Type_dup(hv, &dup);
    MPI_Type_get_attr(dup, tkey, &v, &flag);
    CHECK(copies == 1 && flag && v == base + 1, "Type_dup copied the attribute");
    MPI_Type_delete_attr(hv, tkey);
    MPI_Type_get_attr(hv, tkey, &v, &flag);
    CHECK(!flag && deletes == 1, "Type_delete_attr");
    MPI_Type_free(&dup);
    CHECK(deletes == 2, "Type_free ran the delete callback (%d)", deletes);
    MPI_Type_free_keyval(&tkey);
    CHECK(tkey == MPI_KEYVAL_INVALID, "Type_free_keyval");
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &wkey, NULL);
    CHECK(wkey != MPI_KEYVAL_INVALID, "Win_create_keyval");
    MPI_Win_free_keyval(&wkey);
    CHECK(wkey == MPI_KEYVAL_INVALID, "Win_free_keyval");
    for (int i = 0; i < 6; i++)
        MPI_Type_free(&all[i]);
}

static void attributes_and_errors(void)
{
    /* MPI-1 attribute calls */
    int key;
    deletes = 0;
    MPI_Keyval_create(MPI_NULL_COPY_FN, comm_delete, &key, NULL);
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    static int payload = 42;
    MPI_Attr_put(c, key, &payload);
    int *p, flag;
    MPI_Attr_get(c, key, &p, &flag);
    CHECK(flag && p == &payload && *p == 42, "Attr_get");
    MPI_Attr_delete(c, key);
    MPI_Attr_get(c, key, &p, &flag);
    CHECK(!flag && deletes == 1, "Attr_delete");
    MPI_Keyval_free(&key);
    CHECK(key == MPI_KEYVAL_INVALID, "Keyval_free");
    /* error handlers: MPI-2 and MPI-1 names */
    MPI_Errhandler eh, got;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(c, eh);
    MPI_Comm_get_errhandler(c, &got);
    CHECK(got == eh, "Comm_get_errhandler");
    MPI_Errhandler_free(&got);
    handler_calls = 0;
    MPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
    CHECK(handler_calls == 1 && handler_code == MPI_ERR_OTHER, "Comm_call_errhandler");
    int x = 0;
    int rc = MPI_Send(&x, 1, MPI_INT, size_ + 5, 0, c); /* bad rank: the handler runs */
    CHECK(handler_calls == 2 && rc != MPI_SUCCESS, "user handler on an error (%d)", handler_calls);
    int cls;
    MPI_Error_class(handler_code, &cls);
    CHECK(cls == MPI_ERR_RANK, "handler got class %d", cls);
    MPI_Errhandler e1, e2;
    MPI_Errhandler_create(handler, &e1);
    MPI_Errhandler_set(c, e1);
    MPI_Errhandler_get(c, &e2);
    CHECK(e2 == e1, "Errhandler_get");
    MPI_Comm_call_errhandler(c, MPI_ERR_ARG);
    CHECK(handler_calls == 3 && handler_code == MPI_ERR_ARG, "Errhandler_create handler");
    MPI_Errhandler_free(&e2);
    MPI_Errhandler_free(&e1);
    MPI_Errhandler_free(&eh);
    CHECK(e1 == MPI_ERRHANDLER_NULL && eh == MPI_ERRHANDLER_NULL, "Errhandler_free");
    MPI_Comm_free(&c);
}

static void persistent_modes(void)
{
    int to = (rank_ + 1) % size_, from = (rank_ - 1 + size_) % size_;
    int bufsize = 3 * (int)(sizeof(int) + MPI_BSEND_OVERHEAD) + 64;
    char *attach = xmalloc((size_t)bufsize);
    MPI_Buffer_attach(attach, bufsize);
    int out[3], in[3];
    MPI_Request s[3], r[3];
    MPI_Bsend_init(&out[0], 1, MPI_INT, to, 10, MPI_COMM_WORLD, &s[0]);
    MPI_Ssend_init(&out[1], 1, MPI_INT, to, 11, MPI_COMM_WORLD, &s[1]);
    MPI_Rsend_init(&out[2], 1, MPI_INT, to, 12, MPI_COMM_WORLD, &s[2]);
    for (int k = 0; k < 3; k++)
        MPI_Recv_init(&in[k], 1, MPI_INT, from, 10 + k, MPI_COMM_WORLD, &r[k]);
    for (int round = 0; round < 4; round++) {
        for (int k = 0; k < 3; k++) {
            out[k] = rank_ * 1000 + round * 10 + k;
            in[k] = -1;
        }
        MPI_Startall(3, r);
        MPI_Barrier(MPI_COMM_WORLD); /* every receive is posted: Rsend is legal */
        MPI_Startall(3, s);
        MPI_Waitall(3, s, MPI_STATUSES_IGNORE);
        MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
        for (int k = 0; k < 3; k++)
            CHECK(in[k] == from * 1000 + round * 10 + k, "persistent mode %d round %d", k, round);
    }
    for (int k = 0; k < 3; k++) {
        MPI_Request_free(&s[k]);
        MPI_Request_free(&r[k]);
    }
    void *b;
    int bs;
    MPI_Buffer_detach(&b, &bs);
    CHECK(b == attach && bs == bufsize, "Buffer_detach");
    free(attach);
}

static void topologies(void)
{
    int dims[2] = {0, 0}, periods[2] = {1, 0}, newrank;
    MPI_Dims_create(size_, 2, dims);
    MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &newrank);
    CHECK(newrank == rank_, "Cart_map keeps the rank (%d)", newrank);
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    int gd[2], gp[2], gc[2];
    MPI_Cart_get(cart, 2, gd, gp, gc);
    CHECK(gd[0] == dims[0] && gd[1] == dims[1] && gp[0] == 1 && gp[1] == 0 &&
              gc[0] == rank_ / dims[1] && gc[1] == rank_ % dims[1],
          "Cart_get");
    MPI_Comm_free(&cart);
    int index[8], edges[16];
    for (int i = 0; i < size_; i++) { /* a star around node 0 */
        index[i] = i == 0 ? size_ - 1 : (size_ - 1) + i;
    }
    int k = 0;
    for (int i = 1; i < size_; i++)
        edges[k++] = i;
    for (int i = 1; i < size_; i++)
        edges[k++] = 0;
    MPI_Graph_map(MPI_COMM_WORLD, size_, index, edges, &newrank);
    CHECK(newrank == rank_, "Graph_map");
    MPI_Comm g;
    MPI_Graph_create(MPI_COMM_WORLD, size_, index, edges, 0, &g);
    int nn, ne, gi[8], ge[16];
    MPI_Graphdims_get(g, &nn, &ne);
    CHECK(nn == size_ && ne == 2 * (size_ - 1), "Graphdims_get %d %d", nn, ne);
    MPI_Graph_get(g, 8, 16, gi, ge);
    for (int i = 0; i < nn; i++)
        CHECK(gi[i] == index[i], "Graph_get index %d", i);
    for (int i = 0; i < ne; i++)
        CHECK(ge[i] == edges[i], "Graph_get edge %d", i);
    MPI_Comm_free(&g);
}

static void communicators(void)
{
    MPI_Comm d;
    MPI_Request r;
    MPI_Comm_idup(MPI_COMM_WORLD, &d, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    int res, sum = 0, one = 1;
    MPI_Comm_compare(d, MPI_COMM_WORLD, &res);
    CHECK(res == MPI_CONGRUENT, "Comm_idup gives a congruent copy");
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d);
    CHECK(sum == size_, "collective on the idup'd communicator");
    MPI_Info info, got;
    MPI_Info_create(&info);
    MPI_Info_set(info, "sctpmpi_test_key", "twelve chars");
    MPI_Comm_set_info(d, info);
    MPI_Info_free(&info);
    MPI_Comm_get_info(d, &got);
    int len, flag;
    MPI_Info_get_valuelen(got, "sctpmpi_test_key", &len, &flag);
    CHECK(flag && len == 12, "Comm_set_info / Info_get_valuelen %d %d", flag, len);
    MPI_Info_get_valuelen(got, "absent", &len, &flag);
    CHECK(!flag, "Info_get_valuelen of an absent key");
    MPI_Info_free(&got);
    MPI_Comm_disconnect(&d);
    CHECK(d == MPI_COMM_NULL, "Comm_disconnect");
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    CHECK(size_ <= 8, "at most 8 ranks");
    environment();
    datatypes();
    attributes_and_errors();
    persistent_modes();
    topologies();
    communicators();
    finish();
    int flag = 0;
    MPI_Finalized(&flag);
    if (!flag) {
        printf("FAILED: Finalized is false after MPI_Finalize\n");
        return 1;
    }
    return 0;
}
