/* coll_reduce.c — every reduction collective (Reduce at each root, Allreduce,
 * Reduce_scatter(_block), Scan, Exscan, Reduce_local) for every predefined op and every type
 * it accepts, against a serial reference built with MPI_Reduce_local in rank order; counts 0,
 * 1, 7, 300; MPI_IN_PLACE; MINLOC/MAXLOC on the pair types; user ops, commutative and not. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include <wchar.h>

#include "../common/mpi_test.h"

enum { KI = 1, KF = 2, KC = 4, KL = 8, KB = 16 };
#define TYPES(X)                                                                                 \
    X(MPI_CHAR, char, KI) X(MPI_SIGNED_CHAR, signed char, KI) X(MPI_UNSIGNED_CHAR, unsigned char, KI) \
    X(MPI_SHORT, short, KI) X(MPI_UNSIGNED_SHORT, unsigned short, KI) X(MPI_INT, int, KI)          \
    X(MPI_UNSIGNED, unsigned, KI) X(MPI_LONG, long, KI) X(MPI_UNSIGNED_LONG, unsigned long, KI)    \
    X(MPI_LONG_LONG, long long, KI) X(MPI_UNSIGNED_LONG_LONG, unsigned long long, KI)             \
    X(MPI_INT8_T, int8_t, KI) X(MPI_INT16_T, int16_t, KI) X(MPI_INT32_T, int32_t, KI)              \
    X(MPI_INT64_T, int64_t, KI) X(MPI_UINT8_T, uint8_t, KI) X(MPI_UINT16_T, uint16_t, KI)          \
    X(MPI_UINT32_T, uint32_t, KI) X(MPI_UINT64_T, uint64_t, KI) X(MPI_AINT, MPI_Aint, KI)          \
    X(MPI_FLOAT, float, KF) X(MPI_DOUBLE, double, KF) X(MPI_LONG_DOUBLE, long double, KF)          \
    X(MPI_C_BOOL, bool, KL) X(MPI_BYTE, unsigned char, KB)                                         \
    X(MPI_C_FLOAT_COMPLEX, float _Complex, KC) X(MPI_C_DOUBLE_COMPLEX, double _Complex, KC)

struct tinfo {
    MPI_Datatype t;
    const char *name;
    size_t size;
    int kind;
    void (*set)(void *, int, int);
    int (*eq)(const void *, const void *, int);
};
#define X(D, T, K)                                                                               \
    static void set_##K##_##D(void *b, int i, int v) { ((T *)b)[i] = (T)v; }                    \
    static int eq_##K##_##D(const void *a, const void *b, int i)                               \
    {                                                                                            \
        return ((const T *)a)[i] == ((const T *)b)[i];                                           \
    }
TYPES(X)
#undef X

static struct tinfo types[64];
static int ntypes;

static void init_types(void)
{
#define X(D, T, K) types[ntypes++] = (struct tinfo){D, #D, sizeof(T), K, set_##K##_##D, eq_##K##_##D};
    TYPES(X)
#undef X
}

struct opinfo { MPI_Op op; const char *name; int kinds; };
static const struct opinfo *ops(int *n)
{
    static struct opinfo o[10];
    o[0] = (struct opinfo){MPI_MAX, "MAX", KI | KF};
    o[1] = (struct opinfo){MPI_MIN, "MIN", KI | KF};
    o[2] = (struct opinfo){MPI_SUM, "SUM", KI | KF | KC};
    o[3] = (struct opinfo){MPI_PROD, "PROD", KI | KF | KC};
    o[4] = (struct opinfo){MPI_LAND, "LAND", KI | KL};
    o[5] = (struct opinfo){MPI_LOR, "LOR", KI | KL};
    o[6] = (struct opinfo){MPI_LXOR, "LXOR", KI | KL};
    o[7] = (struct opinfo){MPI_BAND, "BAND", KI | KB};
    o[8] = (struct opinfo){MPI_BOR, "BOR", KI | KB};
    o[9] = (struct opinfo){MPI_BXOR, "BXOR", KI | KB};
    *n = 10;
    return o;
}

/* the value rank r contributes at index i: small, so products and sums stay exact */
static int value(int r, int i, int prod)
{
    if (prod)
        return 1 + (r + i) % 2;
    return (r * 7 + i * 3) % 13 + (i % 5 == 0 ? r : 0);
}

static void fill(const struct tinfo *t, void *b, int r, int n, int prod)
{
    for (int i = 0; i < n; i++)
        t->set(b, i, t->kind == KL ? (value(r, i, 0) % 3 == 0) : value(r, i, prod));
}

/* reference prefix results: ref[k] = v_0 op ... op v_k for k < size */
static void reference(const struct tinfo *t, MPI_Op op, int n, int prod, char *ref)
{
    size_t bytes = t->size * (size_t)n;
    char *v = xmalloc(bytes);
    fill(t, ref, 0, n, prod);
    for (int r = 1; r < size_; r++) {
        fill(t, v, r, n, prod);
        memcpy(ref + bytes * (size_t)r, v, bytes);
        /* ref_r = ref_{r-1} op v_r */
        MPI_Reduce_local(ref + bytes * (size_t)(r - 1), ref + bytes * (size_t)r, n, t->t, op);
    }
    free(v);
}

static void expect(const struct tinfo *t, const void *got, const void *want, int n,
                   const char *what, const char *opname, int cnt)
{
    for (int i = 0; i < n; i++)
        CHECK(t->eq(got, want, i), "%s %s %s count %d: element %d differs", what, opname,
              t->name, cnt, i);
}

static void test_type_op(const struct tinfo *t, const struct opinfo *o, int n)
{
    int prod = o->op == MPI_PROD;
    size_t bytes = t->size * (size_t)n;
    char *ref = xmalloc(bytes * (size_t)size_);
    char *in = xmalloc(bytes), *out = xmalloc(bytes * (size_t)size_);
    reference(t, o->op, n, prod, ref);
    const char *total = ref + bytes * (size_t)(size_ - 1);
    for (int ip = 0; ip < 2; ip++) {
        /* Reduce at two roots */
        for (int root = 0; root < size_; root += (size_ > 2 ? size_ - 1 : 1)) {
            fill(t, in, rank_, n, prod);
            if (ip && rank_ == root) {
                fill(t, out, rank_, n, prod);
                MPI_Reduce(MPI_IN_PLACE, out, n, t->t, o->op, root, MPI_COMM_WORLD);
            } else {
                MPI_Reduce(in, out, n, t->t, o->op, root, MPI_COMM_WORLD);
            }
            if (rank_ == root)
                expect(t, out, total, n, "Reduce", o->name, n);
        }
        /* Allreduce */
        fill(t, in, rank_, n, prod);
        if (ip) {
            fill(t, out, rank_, n, prod);
            MPI_Allreduce(MPI_IN_PLACE, out, n, t->t, o->op, MPI_COMM_WORLD);
        } else {
            MPI_Allreduce(in, out, n, t->t, o->op, MPI_COMM_WORLD);
        }
        expect(t, out, total, n, "Allreduce", o->name, n);
        /* Scan / Exscan */
        if (ip) {
            fill(t, out, rank_, n, prod);
            MPI_Scan(MPI_IN_PLACE, out, n, t->t, o->op, MPI_COMM_WORLD);
        } else {
            MPI_Scan(in, out, n, t->t, o->op, MPI_COMM_WORLD);
        }
        expect(t, out, ref + bytes * (size_t)rank_, n, "Scan", o->name, n);
        if (ip) {
            fill(t, out, rank_, n, prod);
            MPI_Exscan(MPI_IN_PLACE, out, n, t->t, o->op, MPI_COMM_WORLD);
        } else {
            MPI_Exscan(in, out, n, t->t, o->op, MPI_COMM_WORLD);
        }
        if (rank_ > 0)
            expect(t, out, ref + bytes * (size_t)(rank_ - 1), n, "Exscan", o->name, n);
    }
    free(ref);
    free(in);
    free(out);
}

/* Reduce_scatter(_block): full vector of size*blk elements, rank r keeps block r */
static void test_reduce_scatter(const struct tinfo *t, const struct opinfo *o, int blk)
{
    int prod = o->op == MPI_PROD, n = blk * size_;
    size_t bytes = t->size * (size_t)n;
    char *ref = xmalloc(bytes * (size_t)size_), *in = xmalloc(bytes), *out = xmalloc(bytes);
    reference(t, o->op, n, prod, ref);
    const char *total = ref + bytes * (size_t)(size_ - 1);
    fill(t, in, rank_, n, prod);
    MPI_Reduce_scatter_block(in, out, blk, t->t, o->op, MPI_COMM_WORLD);
    expect(t, out, total + t->size * (size_t)(blk * rank_), blk, "Reduce_scatter_block",
           o->name, blk);
    fill(t, out, rank_, n, prod);
    MPI_Reduce_scatter_block(MPI_IN_PLACE, out, blk, t->t, o->op, MPI_COMM_WORLD);
    expect(t, out, total + t->size * (size_t)(blk * rank_), blk, "Reduce_scatter_block(IN_PLACE)",
           o->name, blk);
    /* uneven counts: rank r gets r % 3 elements (total may be < n) */
    int *counts = xmalloc(sizeof(int) * (size_t)size_), off = 0, mine = 0;
    for (int r = 0; r < size_; r++) {
        counts[r] = r % 3 <= blk ? r % 3 : blk;
        if (r == rank_)
            mine = off;
        off += counts[r];
    }
    reference(t, o->op, off, prod, ref);
    fill(t, in, rank_, off, prod);
    MPI_Reduce_scatter(in, out, counts, t->t, o->op, MPI_COMM_WORLD);
    expect(t, out, ref + t->size * (size_t)off * (size_t)(size_ - 1) + t->size * (size_t)mine,
           counts[rank_], "Reduce_scatter", o->name, off);
    free(counts);
    free(ref);
    free(in);
    free(out);
}

/* ---- MINLOC / MAXLOC ----------------------------------------------------------------------- */
struct di { double v; int i; };
struct ii { int v; int i; };
static void test_loc(void)
{
    enum { N = 5 };
    struct di d[N], dr[N];
    struct ii x[N], xr[N];
    for (int k = 0; k < N; k++) {
        d[k].v = (double)((rank_ * 3 + k) % 4);
        d[k].i = rank_;
        x[k].v = (rank_ + k) % 3;
        x[k].i = rank_;
    }
    MPI_Allreduce(d, dr, N, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    MPI_Allreduce(x, xr, N, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    for (int k = 0; k < N; k++) {
        double best = -1;
        int bi = -1, mn = 1 << 30, mi = -1;
        for (int r = 0; r < size_; r++) {
            double v = (double)((r * 3 + k) % 4);
            if (v > best) {
                best = v;
                bi = r;
            }
            int w = (r + k) % 3;
            if (w < mn) {
                mn = w;
                mi = r;
            }
        }
        CHECK(dr[k].v == best && dr[k].i == bi, "MAXLOC[%d] = (%g,%d) want (%g,%d)", k, dr[k].v,
              dr[k].i, best, bi);
        CHECK(xr[k].v == mn && xr[k].i == mi, "MINLOC[%d] = (%d,%d) want (%d,%d)", k, xr[k].v,
              xr[k].i, mn, mi);
    }
    struct { float v; int i; } f = {(float)(rank_ % 2), rank_}, fr;
    MPI_Reduce(&f, &fr, 1, MPI_FLOAT_INT, MPI_MAXLOC, 0, MPI_COMM_WORLD);
    if (rank_ == 0)
        CHECK(fr.v == (size_ > 1 ? 1.0f : 0.0f) && fr.i == (size_ > 1 ? 1 : 0), "FLOAT_INT");
    struct { long v; int i; } l = {-(long)rank_, rank_}, lr;
    MPI_Allreduce(&l, &lr, 1, MPI_LONG_INT, MPI_MINLOC, MPI_COMM_WORLD);
    CHECK(lr.v == -(long)(size_ - 1) && lr.i == size_ - 1, "LONG_INT");
    struct { short v; int i; } s = {1, rank_}, sr;
    MPI_Allreduce(&s, &sr, 1, MPI_SHORT_INT, MPI_MAXLOC, MPI_COMM_WORLD);
    CHECK(sr.v == 1 && sr.i == 0, "SHORT_INT ties take the lowest index");
}

/* ---- user ops ---------------------------------------------------------------------------- */
/* 2x2 integer matrix product: associative, not commutative */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3],
                    a[2] * b[0] + a[3] * b[2], a[2] * b[1] + a[3] * b[3]};
        memcpy(b, c, sizeof c);
    }
}
static void isum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int k = 0; k < *len; k++)
        ((int *)inout)[k] += ((int *)in)[k];
}

static void mat_of(int r, int *m)
{
    m[0] = 1;
    m[1] = r % 3;
    m[2] = (r + 1) % 2;
    m[3] = 1;
}

static void test_user_ops(void)
{
    MPI_Op mop, sop;
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    MPI_Op_create(matmul, 0, &mop);
    MPI_Op_create(isum, 1, &sop);
    int commute = -1;
    MPI_Op_commutative(mop, &commute);
    CHECK(commute == 0, "Op_commutative");
    int ref[4 * 64], mine[4], out[4];
    mat_of(0, ref);
    for (int r = 1; r < size_; r++) {
        int m[4];
        mat_of(r, m);
        memcpy(ref + 4 * r, m, sizeof m);
        matmul(ref + 4 * (r - 1), ref + 4 * r, (int[]){1}, NULL); /* ref_r = ref_{r-1} * m */
    }
    mat_of(rank_, mine);
    for (int root = 0; root < size_; root++) {
        MPI_Reduce(mine, out, 1, mat, mop, root, MPI_COMM_WORLD);
        if (rank_ == root)
            CHECK(memcmp(out, ref + 4 * (size_ - 1), sizeof out) == 0, "non-commutative Reduce root %d", root);
    }
    MPI_Allreduce(mine, out, 1, mat, mop, MPI_COMM_WORLD);
    CHECK(memcmp(out, ref + 4 * (size_ - 1), sizeof out) == 0, "non-commutative Allreduce");
    MPI_Scan(mine, out, 1, mat, mop, MPI_COMM_WORLD);
    CHECK(memcmp(out, ref + 4 * rank_, sizeof out) == 0, "non-commutative Scan");
    MPI_Exscan(mine, out, 1, mat, mop, MPI_COMM_WORLD);
    if (rank_ > 0)
        CHECK(memcmp(out, ref + 4 * (rank_ - 1), sizeof out) == 0, "non-commutative Exscan");
    int v[3] = {rank_, 1, 2 * rank_}, s[3];
    MPI_Allreduce(v, s, 3, MPI_INT, sop, MPI_COMM_WORLD);
    CHECK(s[0] == size_ * (size_ - 1) / 2 && s[1] == size_ && s[2] == size_ * (size_ - 1),
          "commutative user op");
    MPI_Op_free(&mop);
    MPI_Op_free(&sop);
    CHECK(mop == MPI_OP_NULL, "Op_free sets MPI_OP_NULL");
    MPI_Type_free(&mat);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    init_types();
    int nops;
    const struct opinfo *o = ops(&nops);
    const int counts[] = {0, 1, 7, 300};
    for (int ti = 0; ti < ntypes; ti++)
        for (int k = 0; k < nops; k++) {
            if (!(types[ti].kind & o[k].kinds))
                continue;
            for (int c = 0; c < 4; c++)
                test_type_op(&types[ti], &o[k], counts[c]);
            test_reduce_scatter(&types[ti], &o[k], 3);
        }
    test_loc();
    test_user_ops();
    return finish();
}
