/* dtypes_more.c — the derived-datatype behaviour dtypes.c does not pin down:
 *   darray (BLOCK, CYCLIC(k), NONE; C and Fortran order) element for element against the
 *   ownership rule computed here, for every rank of 4- and 6-process grids;
 *   Pack_external / Unpack_external of a struct type and of a vector, byte for byte
 *   (external32 is big-endian IEEE), with Pack_external_size;
 *   Get_count / Get_elements on derived types when a partial element arrives;
 *   send and receive types that differ but have the same type signature, in point-to-point
 *   (eager and rendezvous sizes, a padded struct received into an unpadded layout) and in
 *   Bcast, Scatter, Gatherv, Allgather and Alltoall;
 *   get_envelope / get_contents for vector, hvector, indexed_block, subarray, darray, resized
 *   and dup (the types it returns are handles of their own: freeing one leaves the original,
 *   and a constituent the user already freed comes back usable); Type_match_size for each type class and an impossible size.
 * Standard MPI only. */
#include <stdint.h>

#include "../common/mpi_test.h"

/* ---- darray ---------------------------------------------------------------------------- */
/* the coordinate of the process that owns index i of a dimension of size g over p processes */
static int owner(int i, int g, int p, int distrib, int darg)
{
    if (distrib == MPI_DISTRIBUTE_NONE)
        return 0;
    if (distrib == MPI_DISTRIBUTE_BLOCK) {
        int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
        return i / b;
    }
    int b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
    return (i / b) % p;
}

static void darray_case(int nprocs, const int psizes[2], const int gsizes[2],
                        const int distribs[2], const int dargs[2], int order)
{
    int total = gsizes[0] * gsizes[1];
    int *m = xmalloc(sizeof(int) * (size_t)total), *packed = xmalloc(sizeof(int) * (size_t)total);
    for (int i = 0; i < total; i++)
        m[i] = i;
    int covered = 0;
    for (int r = 0; r < nprocs; r++) {
        int pc[2] = {r / psizes[1], r % psizes[1]}; /* the process grid is row-major */
        MPI_Datatype t;
        MPI_Type_create_darray(nprocs, r, 2, gsizes, distribs, dargs, psizes, order, MPI_INT, &t);
        MPI_Type_commit(&t);
        MPI_Aint lb, ext;
        MPI_Type_get_extent(t, &lb, &ext);
        CHECK(lb == 0 && ext == total * (MPI_Aint)sizeof(int), "darray extent %ld", (long)ext);
        int sz, pos = 0;
        MPI_Type_size(t, &sz);
        MPI_Pack(m, 1, t, packed, total * (int)sizeof(int), &pos, MPI_COMM_SELF);
        CHECK(pos == sz, "darray pack size");
        /* expected: the owned elements in array order (row-major for C, column-major for
         * Fortran), storage offsets computed in the same order */
        int k = 0;
        for (int a = 0; a < (order == MPI_ORDER_C ? gsizes[0] : gsizes[1]); a++)
            for (int b = 0; b < (order == MPI_ORDER_C ? gsizes[1] : gsizes[0]); b++) {
                int i0 = order == MPI_ORDER_C ? a : b, i1 = order == MPI_ORDER_C ? b : a;
                if (owner(i0, gsizes[0], psizes[0], distribs[0], dargs[0]) != pc[0] ||
                    owner(i1, gsizes[1], psizes[1], distribs[1], dargs[1]) != pc[1])
                    continue;
                int off = order == MPI_ORDER_C ? i0 * gsizes[1] + i1 : i1 * gsizes[0] + i0;
                CHECK(k < sz / (int)sizeof(int) && packed[k] == off,
                      "darray rank %d of %d element %d: %d, want %d", r, nprocs, k,
                      k < sz / (int)sizeof(int) ? packed[k] : -1, off);
                k++;
            }
        CHECK(k * (int)sizeof(int) == sz, "darray rank %d holds %d elements, want %d", r,
              sz / (int)sizeof(int), k);
        covered += k;
        MPI_Type_free(&t);
    }
    CHECK(covered == total, "the darrays of all ranks cover the array once");
    free(m);
    free(packed);
}

static void darrays(void)
{
    const int g1[2] = {7, 5}, g2[2] = {9, 8};
    const int p4[2] = {2, 2}, p6[2] = {3, 2}, p3[2] = {3, 1};
    const int dflt[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    const int bb[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_BLOCK};
    const int cb[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_BLOCK};
    const int cc[2] = {MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC};
    const int bn[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE};
    const int k2[2] = {2, MPI_DISTRIBUTE_DFLT_DARG}, k23[2] = {2, 3};
    for (int order = 0; order < 2; order++) {
        int o = order ? MPI_ORDER_FORTRAN : MPI_ORDER_C;
        darray_case(4, p4, g1, bb, dflt, o);
        darray_case(4, p4, g1, cb, k2, o);
        darray_case(6, p6, g2, cc, k23, o);
        darray_case(6, p6, g2, cb, dflt, o);
        darray_case(3, p3, g1, bn, dflt, o);
    }
}

/* ---- external32 ---------------------------------------------------------------------------- */
struct rec { char c; double d; int i; short s[2]; };

static MPI_Datatype rec_type(void)
{
    struct rec r = {0};
    int bl[4] = {1, 1, 1, 2};
    MPI_Aint base, disp[4];
    MPI_Datatype ty[4] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT}, t, res;
    MPI_Get_address(&r, &base);
    MPI_Get_address(&r.c, &disp[0]);
    MPI_Get_address(&r.d, &disp[1]);
    MPI_Get_address(&r.i, &disp[2]);
    MPI_Get_address(&r.s, &disp[3]);
    for (int k = 0; k < 4; k++)
        disp[k] = MPI_Aint_diff(disp[k], base);
    MPI_Type_create_struct(4, bl, disp, ty, &t);
    MPI_Type_create_resized(t, 0, sizeof(struct rec), &res);
    MPI_Type_free(&t);
    MPI_Type_commit(&res);
    return res;
}

static uint64_t be(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int k = 0; k < n; k++)
        v = v << 8 | p[k];
    return v;
}

static void external32(void)
{
    MPI_Datatype rt = rec_type();
    struct rec in[2] = {{'A', 1.5, -2, {0x1234, -1}}, {'z', -0.25, 0x01020304, {7, 8}}}, out[2];
    MPI_Aint sz, pos = 0;
    MPI_Pack_external_size("external32", 2, rt, &sz);
    CHECK(sz == 2 * (1 + 8 + 4 + 2 * 2), "Pack_external_size struct %ld", (long)sz);
    unsigned char buf[64];
    MPI_Pack_external("external32", in, 2, rt, buf, sizeof buf, &pos);
    CHECK(pos == sz, "Pack_external position %ld", (long)pos);
    for (int e = 0; e < 2; e++) {
        const unsigned char *p = buf + 17 * e;
        uint64_t dbits;
        memcpy(&dbits, &in[e].d, 8);
        CHECK(p[0] == (unsigned char)in[e].c, "external32 char");
        CHECK(be(p + 1, 8) == dbits, "external32 double is big-endian IEEE");
        CHECK(be(p + 9, 4) == (uint32_t)in[e].i, "external32 int");
        CHECK(be(p + 13, 2) == (uint16_t)in[e].s[0] && be(p + 15, 2) == (uint16_t)in[e].s[1],
              "external32 shorts");
    }
    memset(out, 0, sizeof out);
    pos = 0;
    MPI_Unpack_external("external32", buf, sz, &pos, out, 2, rt);
    CHECK(pos == sz, "Unpack_external position");
    for (int e = 0; e < 2; e++)
        CHECK(out[e].c == in[e].c && out[e].d == in[e].d && out[e].i == in[e].i &&
                  out[e].s[0] == in[e].s[0] && out[e].s[1] == in[e].s[1],
              "external32 struct round trip %d", e);
    /* a vector of doubles: every other one, unpacked into a contiguous array */
    double v[6] = {1, -1, 2, -1, 3.75, -1}, back[3] = {0, 0, 0};
    MPI_Datatype vec;
    MPI_Type_vector(3, 1, 2, MPI_DOUBLE, &vec);
    MPI_Type_commit(&vec);
    pos = 0;
    MPI_Pack_external("external32", v, 1, vec, buf, sizeof buf, &pos);
    CHECK(pos == 24, "external32 vector size");
    for (int k = 0; k < 3; k++) {
        uint64_t bits;
        memcpy(&bits, &v[2 * k], 8);
        CHECK(be(buf + 8 * k, 8) == bits, "external32 vector element %d", k);
    }
    pos = 0;
    MPI_Unpack_external("external32", buf, 24, &pos, back, 3, MPI_DOUBLE);
    CHECK(back[0] == 1 && back[1] == 2 && back[2] == 3.75, "external32 vector -> doubles");
    MPI_Type_free(&vec);
    MPI_Type_free(&rt);
}

/* ---- Get_count / Get_elements with partial elements ------------------------------------ */
static void partial_elements(void)
{
    struct id { int i; double d; } two[2] = {{0, 0}, {0, 0}};
    int bl[2] = {1, 1};
    MPI_Aint base, disp[2];
    MPI_Get_address(&two[0], &base);
    MPI_Get_address(&two[0].i, &disp[0]);
    MPI_Get_address(&two[0].d, &disp[1]);
    disp[0] = MPI_Aint_diff(disp[0], base);
    disp[1] = MPI_Aint_diff(disp[1], base);
    MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, idt, idt_r, three;
    MPI_Type_create_struct(2, bl, disp, ty, &idt);
    MPI_Type_create_resized(idt, 0, sizeof(struct id), &idt_r);
    MPI_Type_commit(&idt_r);
    /* int, double, int: one and a half elements of idt_r */
    struct { int a; double b; int c; } src = {11, 2.5, 13};
    MPI_Aint d3[3];
    MPI_Get_address(&src.a, &d3[0]);
    MPI_Get_address(&src.b, &d3[1]);
    MPI_Get_address(&src.c, &d3[2]);
    for (int k = 2; k >= 0; k--)
        d3[k] -= d3[0];
    MPI_Datatype t3[3] = {MPI_INT, MPI_DOUBLE, MPI_INT};
    MPI_Type_create_struct(3, (int[]){1, 1, 1}, d3, t3, &three);
    MPI_Type_commit(&three);
    MPI_Status st;
    memset(two, 0, sizeof two);
    MPI_Sendrecv(&src, 1, three, rank_, 1, two, 2, idt_r, rank_, 1, MPI_COMM_WORLD, &st);
    int cnt, el;
    MPI_Get_count(&st, idt_r, &cnt);
    MPI_Get_elements(&st, idt_r, &el);
    CHECK(cnt == MPI_UNDEFINED, "Get_count of 1.5 elements %d", cnt);
    CHECK(el == 3, "Get_elements of 1.5 elements %d", el);
    CHECK(two[0].i == 11 && two[0].d == 2.5 && two[1].i == 13, "partial element data");
    MPI_Get_count(&st, three, &cnt);
    CHECK(cnt == 1, "Get_count in the sender's type %d", cnt);
    MPI_Count elx;
    MPI_Get_elements_x(&st, idt_r, &elx);
    CHECK(elx == 3, "Get_elements_x %lld", (long long)elx);
    /* 5 ints into a 3 x (2 of stride 4) vector */
    MPI_Datatype vec;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int five[5] = {1, 2, 3, 4, 5}, v[12];
    for (int k = 0; k < 12; k++)
        v[k] = -1;
    MPI_Sendrecv(five, 5, MPI_INT, rank_, 2, v, 1, vec, rank_, 2, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, vec, &cnt);
    MPI_Get_elements(&st, vec, &el);
    CHECK(cnt == MPI_UNDEFINED && el == 5, "vector partial: count %d elements %d", cnt, el);
    CHECK(v[0] == 1 && v[1] == 2 && v[4] == 3 && v[5] == 4 && v[8] == 5 && v[9] == -1 &&
              v[2] == -1,
          "vector partial data");
    MPI_Get_elements(&st, MPI_INT, &el);
    CHECK(el == 5, "Get_elements MPI_INT");
    MPI_Type_free(&vec);
    MPI_Type_free(&three);
    MPI_Type_free(&idt);
    MPI_Type_free(&idt_r);
}

/* ---- signature-equal but different types ------------------------------------------------ */
/* struct rec (padded) is sent and received into a byte layout without padding: the same
 * signature (char, double, int, short, short) at displacements 0, 1, 9, 13 of 17 bytes */
static MPI_Datatype unpadded_type(void)
{
    int bl[4] = {1, 1, 1, 2};
    MPI_Aint disp[4] = {0, 1, 9, 13};
    MPI_Datatype ty[4] = {MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_SHORT}, t, res;
    MPI_Type_create_struct(4, bl, disp, ty, &t);
    MPI_Type_create_resized(t, 0, 17, &res);
    MPI_Type_free(&t);
    MPI_Type_commit(&res);
    return res;
}

static void p2p_signature(int n)
{
    MPI_Datatype rt = rec_type(), ut = unpadded_type();
    int to = (rank_ + 1) % size_, from = (rank_ - 1 + size_) % size_;
    struct rec *s = xmalloc(sizeof(struct rec) * (size_t)n);
    unsigned char *u = xmalloc(17 * (size_t)n);
    for (int e = 0; e < n; e++) {
        memset(&s[e], 0, sizeof s[e]);
        s[e].c = (char)('a' + e % 26);
        s[e].d = rank_ + e * 0.5;
        s[e].i = rank_ * 1000000 + e;
        s[e].s[0] = (short)e;
        s[e].s[1] = (short)-e;
    }
    memset(u, 0xee, 17 * (size_t)n);
    MPI_Status st;
    MPI_Sendrecv(s, n, rt, to, 3, u, n, ut, from, 3, MPI_COMM_WORLD, &st);
    int cnt;
    MPI_Get_count(&st, ut, &cnt);
    CHECK(cnt == n, "unpadded count %d of %d", cnt, n);
    for (int e = 0; e < n; e++) {
        const unsigned char *p = u + 17 * (size_t)e;
        double d;
        int i;
        short sh[2];
        memcpy(&d, p + 1, 8);
        memcpy(&i, p + 9, 4);
        memcpy(sh, p + 13, 4);
        CHECK(p[0] == (unsigned char)('a' + e % 26) && d == from + e * 0.5 &&
                  i == from * 1000000 + e && sh[0] == (short)e && sh[1] == (short)-e,
              "padded struct -> unpadded layout, n %d, record %d", n, e);
    }
    /* and back: unpadded layout -> padded struct */
    struct rec *b = xmalloc(sizeof(struct rec) * (size_t)n);
    memset(b, 0, sizeof(struct rec) * (size_t)n);
    MPI_Sendrecv(u, n, ut, to, 4, b, n, rt, from, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    int from2 = (from - 1 + size_) % size_;
    for (int e = 0; e < n; e++)
        CHECK(b[e].d == from2 + e * 0.5 && b[e].i == from2 * 1000000 + e &&
                  b[e].s[1] == (short)-e,
              "unpadded -> padded struct, record %d", e);
    free(s);
    free(u);
    free(b);
    MPI_Type_free(&rt);
    MPI_Type_free(&ut);
}

static void coll_signature(void)
{
    int n = size_;
    /* Bcast: the root sends 2 doubles out of a struct {double; char; double}; the others
     * receive 2 contiguous doubles */
    struct { double a; char pad; double b; } sd = {0, 0, 0};
    MPI_Aint da, db;
    MPI_Get_address(&sd.a, &da);
    MPI_Get_address(&sd.b, &db);
    MPI_Datatype two_d;
    MPI_Type_create_hindexed(2, (int[]){1, 1}, (MPI_Aint[]){0, MPI_Aint_diff(db, da)},
                             MPI_DOUBLE, &two_d);
    MPI_Type_commit(&two_d);
    for (int root = 0; root < n; root++) {
        double got[2] = {0, 0};
        if (rank_ == root) {
            sd.a = root + 0.5;
            sd.b = -root - 0.25;
            MPI_Bcast(&sd.a, 1, two_d, root, MPI_COMM_WORLD);
        } else {
            MPI_Bcast(got, 2, MPI_DOUBLE, root, MPI_COMM_WORLD);
            CHECK(got[0] == root + 0.5 && got[1] == -root - 0.25, "Bcast struct -> doubles");
        }
    }
    MPI_Type_free(&two_d);
    /* Scatter (n <= 3): the root sends the columns of an n x 3 int matrix (a column type
     * resized to one int, so column r starts at int r); every rank receives n contiguous ints */
    int *mat = xmalloc(sizeof(int) * (size_t)n * 3), *col = xmalloc(sizeof(int) * (size_t)n);
    MPI_Datatype colt, colr;
    MPI_Type_vector(n, 1, 3, MPI_INT, &colt); /* n rows, stride 3: one column */
    MPI_Type_create_resized(colt, 0, sizeof(int), &colr);
    MPI_Type_commit(&colr);
    for (int r = 0; r < n; r++)
        for (int c = 0; c < 3; c++)
            mat[r * 3 + c] = 10 * r + c;
    if (n <= 3) {
        MPI_Scatter(mat, 1, colr, col, n, MPI_INT, 0, MPI_COMM_WORLD);
        for (int r = 0; r < n; r++)
            CHECK(col[r] == 10 * r + rank_, "Scatter column %d row %d: %d", rank_, r, col[r]);
    }
    /* Gatherv into columns (n <= 3): rank r's n contiguous ints become column r */
    if (n <= 3) {
        for (int r = 0; r < n; r++)
            col[r] = 100 * rank_ + r;
        int *rc = xmalloc(sizeof(int) * (size_t)n), *dis = xmalloc(sizeof(int) * (size_t)n);
        for (int r = 0; r < n; r++) {
            rc[r] = 1;
            dis[r] = r; /* in units of colr's extent: one int */
        }
        memset(mat, 0xff, sizeof(int) * (size_t)n * 3);
        MPI_Gatherv(col, n, MPI_INT, mat, rc, dis, colr, 0, MPI_COMM_WORLD);
        if (rank_ == 0)
            for (int r = 0; r < n; r++)
                for (int c = 0; c < n; c++)
                    CHECK(mat[r * 3 + c] == 100 * c + r, "Gatherv into columns [%d][%d]", r, c);
        free(rc);
        free(dis);
    }
    MPI_Type_free(&colt);
    MPI_Type_free(&colr);
    free(mat);
    free(col);
    /* Allgather: each rank sends 2 ints taken with stride 3, receives contiguous pairs */
    int src[6] = {rank_, -1, -1, rank_ * 2, -1, -1}, *all = xmalloc(sizeof(int) * 2 * (size_t)n);
    MPI_Datatype strided, pair;
    MPI_Type_vector(2, 1, 3, MPI_INT, &strided);
    MPI_Type_commit(&strided);
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Allgather(src, 1, strided, all, 1, pair, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++)
        CHECK(all[2 * r] == r && all[2 * r + 1] == 2 * r, "Allgather strided -> pairs");
    /* Alltoall: send pairs as 'pair', receive as 2 ints; send ints, receive 'strided' */
    int *sa = xmalloc(sizeof(int) * 2 * (size_t)n), *ra = xmalloc(sizeof(int) * 6 * (size_t)n);
    for (int r = 0; r < n; r++) {
        sa[2 * r] = rank_ * 100 + r;
        sa[2 * r + 1] = -(rank_ * 100 + r);
    }
    MPI_Alltoall(sa, 1, pair, ra, 2, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++)
        CHECK(ra[2 * r] == r * 100 + rank_ && ra[2 * r + 1] == -(r * 100 + rank_),
              "Alltoall pair -> ints");
    MPI_Datatype strided_r;
    MPI_Type_create_resized(strided, 0, 6 * sizeof(int), &strided_r);
    MPI_Type_commit(&strided_r);
    for (int k = 0; k < 6 * n; k++)
        ra[k] = -7;
    MPI_Alltoall(sa, 2, MPI_INT, ra, 1, strided_r, MPI_COMM_WORLD);
    for (int r = 0; r < n; r++)
        CHECK(ra[6 * r] == r * 100 + rank_ && ra[6 * r + 3] == -(r * 100 + rank_) &&
                  ra[6 * r + 1] == -7,
              "Alltoall ints -> strided");
    MPI_Type_free(&strided);
    MPI_Type_free(&strided_r);
    MPI_Type_free(&pair);
    free(all);
    free(sa);
    free(ra);
}

/* ---- envelope / contents ---------------------------------------------------------------- */
static void envelopes(void)
{
    MPI_Datatype v, hv, ib, sub, da, rs, dup;
    MPI_Type_vector(3, 2, 5, MPI_INT, &v);
    MPI_Type_create_hvector(4, 1, 24, MPI_DOUBLE, &hv);
    MPI_Type_create_indexed_block(2, 3, (int[]){7, 1}, MPI_SHORT, &ib);
    MPI_Type_create_subarray(2, (int[]){4, 6}, (int[]){2, 3}, (int[]){1, 2}, MPI_ORDER_FORTRAN,
                             MPI_FLOAT, &sub);
    MPI_Type_create_darray(4, 3, 2, (int[]){8, 8},
                           (int[]){MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
                           (int[]){MPI_DISTRIBUTE_DFLT_DARG, 2}, (int[]){2, 2}, MPI_ORDER_C,
                           MPI_INT, &da);
    MPI_Type_create_resized(v, -4, 100, &rs);
    MPI_Type_dup(hv, &dup);
    int ni, na, nt, comb, ints[32];
    MPI_Aint ai[8];
    MPI_Datatype tys[4];
    MPI_Type_get_envelope(v, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nt == 1, "vector envelope");
    MPI_Type_get_contents(v, ni, na, nt, ints, ai, tys);
    CHECK(ints[0] == 3 && ints[1] == 2 && ints[2] == 5 && tys[0] == MPI_INT, "vector contents");
    MPI_Type_get_envelope(hv, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_HVECTOR && ni == 2 && na == 1 && nt == 1, "hvector envelope");
    MPI_Type_get_contents(hv, ni, na, nt, ints, ai, tys);
    CHECK(ints[0] == 4 && ints[1] == 1 && ai[0] == 24 && tys[0] == MPI_DOUBLE, "hvector contents");
    MPI_Type_get_envelope(ib, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_INDEXED_BLOCK && ni == 4 && nt == 1, "indexed_block envelope");
    MPI_Type_get_contents(ib, ni, na, nt, ints, ai, tys);
    CHECK(ints[0] == 2 && ints[1] == 3 && ints[2] == 7 && ints[3] == 1, "indexed_block contents");
    MPI_Type_get_envelope(sub, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_SUBARRAY && ni == 8 && nt == 1, "subarray envelope");
    MPI_Type_get_contents(sub, ni, na, nt, ints, ai, tys);
    CHECK(ints[0] == 2 && ints[1] == 4 && ints[4] == 3 && ints[6] == 2 &&
              ints[7] == MPI_ORDER_FORTRAN && tys[0] == MPI_FLOAT,
          "subarray contents");
    MPI_Type_get_envelope(da, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_DARRAY && ni == 4 * 2 + 4 && nt == 1, "darray envelope %d", ni);
    MPI_Type_get_contents(da, ni, na, nt, ints, ai, tys);
    CHECK(ints[0] == 4 && ints[1] == 3 && ints[2] == 2 && ints[5] == MPI_DISTRIBUTE_BLOCK &&
              ints[8] == 2 && ints[11] == MPI_ORDER_C,
          "darray contents");
    MPI_Type_get_envelope(rs, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_RESIZED && ni == 0 && na == 2 && nt == 1, "resized envelope");
    MPI_Type_get_contents(rs, ni, na, nt, ints, ai, tys);
    CHECK(ai[0] == -4 && ai[1] == 100, "resized contents");
    MPI_Type_get_envelope(dup, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_DUP && ni == 0 && na == 0 && nt == 1, "dup envelope");
    MPI_Type_get_contents(dup, ni, na, nt, ints, ai, tys);
    /* a derived type returned by get_contents is a new handle the caller frees */
    int ni2, na2, nt2, comb2;
    MPI_Type_get_envelope(tys[0], &ni2, &na2, &nt2, &comb2);
    CHECK(comb2 == MPI_COMBINER_HVECTOR, "dup contents is the hvector");
    MPI_Type_free(&tys[0]);
    /* the handle get_contents returns stays valid after the user freed the constituent */
    MPI_Datatype inner, outer;
    MPI_Type_contiguous(2, MPI_INT, &inner);
    MPI_Type_vector(2, 1, 3, inner, &outer);
    MPI_Type_free(&inner);
    MPI_Type_get_contents(outer, 3, 0, 1, ints, ai, tys);
    int isz;
    MPI_Type_size(tys[0], &isz);
    CHECK(isz == 2 * (int)sizeof(int), "constituent of a freed type %d", isz);
    MPI_Type_free(&tys[0]);
    MPI_Type_commit(&outer);
    MPI_Type_size(outer, &isz);
    CHECK(isz == 4 * (int)sizeof(int), "outer type after its constituent was freed twice");
    MPI_Type_free(&outer);
    MPI_Aint lb, ext;
    MPI_Type_get_extent(rs, &lb, &ext);
    CHECK(lb == -4 && ext == 100, "resized extent");
    MPI_Datatype all[7] = {v, hv, ib, sub, da, rs, dup};
    for (int k = 0; k < 7; k++)
        MPI_Type_free(&all[k]);
}

static void match_size(void)
{
    MPI_Datatype t;
    int sz;
    const int isz[4] = {1, 2, 4, 8};
    for (int k = 0; k < 4; k++) {
        MPI_Type_match_size(MPI_TYPECLASS_INTEGER, isz[k], &t);
        MPI_Type_size(t, &sz);
        CHECK(sz == isz[k], "match_size integer %d -> %d", isz[k], sz);
    }
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 4, &t);
    CHECK(t == MPI_FLOAT, "match_size real 4");
    MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &t);
    CHECK(t == MPI_DOUBLE, "match_size real 8");
    MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 2 * sizeof(double), &t);
    MPI_Type_size(t, &sz);
    CHECK(sz == 16, "match_size complex 16");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int rc = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &t);
    CHECK(rc != MPI_SUCCESS, "match_size integer 3 must fail");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    darrays();
    external32();
    partial_elements();
    p2p_signature(3);      /* eager */
    p2p_signature(20000);  /* 340 KB: rendezvous */
    coll_signature();
    envelopes();
    match_size();
    return finish();
}
