/* op_ref.c — every predefined reduction op on every predefined C type it is defined for,
 * against a reference computed here in plain C (coll_reduce.c builds its reference with
 * MPI_Reduce_local, so a wrong kernel would agree with itself there): Reduce_local,
 * Reduce, Allreduce (also MPI_IN_PLACE), Iallreduce, Scan and Reduce_scatter_block, counts
 * 0, 1, 5 and 33; MINLOC/MAXLOC on all six pair types with ties; the combinations the
 * standard does not define fail with MPI_ERR_OP under MPI_ERRORS_RETURN.  Standard MPI only. */
#include <complex.h>
#include <stdbool.h>
#include <stdint.h>

#include "../common/mpi_test.h"

enum { OMAX, OMIN, OSUM, OPROD, OLAND, OLOR, OLXOR, OBAND, OBOR, OBXOR, NOPS };
static const char *opname[NOPS] = {"MAX", "MIN", "SUM", "PROD", "LAND",
                                   "LOR", "LXOR", "BAND", "BOR", "BXOR"};
static MPI_Op mpiop(int o)
{
    MPI_Op t[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                      MPI_LOR, MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR};
    return t[o];
}

/* the C reference of y = x op y, one case list per class of types (MPI-3.1 5.9.2) */
#define C_ORDER                                                                                  \
    case OMAX: y[i] = x[i] > y[i] ? x[i] : y[i]; break;                                          \
    case OMIN: y[i] = x[i] < y[i] ? x[i] : y[i]; break;
#define C_ARITH(T)                                                                               \
    case OSUM: y[i] = (T)(x[i] + y[i]); break;                                                   \
    case OPROD: y[i] = (T)(x[i] * y[i]); break;
#define C_LOGIC(T)                                                                               \
    case OLAND: y[i] = (T)(x[i] && y[i]); break;                                                 \
    case OLOR: y[i] = (T)(x[i] || y[i]); break;                                                  \
    case OLXOR: y[i] = (T)(!x[i] != !y[i]); break;
#define C_BITS(T)                                                                                \
    case OBAND: y[i] = (T)(x[i] & y[i]); break;                                                  \
    case OBOR: y[i] = (T)(x[i] | y[i]); break;                                                   \
    case OBXOR: y[i] = (T)(x[i] ^ y[i]); break;
#define CASES_INT(T) C_ORDER C_ARITH(T) C_LOGIC(T) C_BITS(T)
#define CASES_FLOAT(T) C_ORDER C_ARITH(T)
#define CASES_COMPLEX(T) C_ARITH(T)
#define CASES_BOOL(T) C_LOGIC(T)
#define CASES_BYTE(T) C_BITS(T)

#define TYPES(X)                                                                                 \
    X(MPI_SIGNED_CHAR, signed char, INT) X(MPI_UNSIGNED_CHAR, unsigned char, INT)                \
    X(MPI_SHORT, short, INT) X(MPI_UNSIGNED_SHORT, unsigned short, INT) X(MPI_INT, int, INT)     \
    X(MPI_UNSIGNED, unsigned, INT) X(MPI_LONG, long, INT) X(MPI_UNSIGNED_LONG, unsigned long, INT) \
    X(MPI_LONG_LONG_INT, long long, INT) X(MPI_LONG_LONG, long long, INT)                        \
    X(MPI_UNSIGNED_LONG_LONG, unsigned long long, INT) X(MPI_INT8_T, int8_t, INT)                \
    X(MPI_INT16_T, int16_t, INT) X(MPI_INT32_T, int32_t, INT) X(MPI_INT64_T, int64_t, INT)       \
    X(MPI_UINT8_T, uint8_t, INT) X(MPI_UINT16_T, uint16_t, INT) X(MPI_UINT32_T, uint32_t, INT)   \
    X(MPI_UINT64_T, uint64_t, INT) X(MPI_AINT, MPI_Aint, INT) X(MPI_OFFSET, MPI_Offset, INT)     \
    X(MPI_COUNT, MPI_Count, INT) X(MPI_FLOAT, float, FLOAT) X(MPI_DOUBLE, double, FLOAT)         \
    X(MPI_LONG_DOUBLE, long double, FLOAT) X(MPI_C_COMPLEX, float _Complex, COMPLEX)             \
    X(MPI_C_FLOAT_COMPLEX, float _Complex, COMPLEX)                                              \
    X(MPI_C_DOUBLE_COMPLEX, double _Complex, COMPLEX)                                            \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex, COMPLEX) X(MPI_C_BOOL, bool, BOOL)        \
    X(MPI_BYTE, unsigned char, BYTE)

struct tinfo {
    MPI_Datatype t;
    const char *name;
    size_t size;
    int (*fold)(int op, const void *x, void *y, int n); /* 0: op not defined for the type */
    void (*fill)(void *b, int r, int n, int op);
    int (*eq)(const void *a, const void *b, int i);
};

/* contributions: small values so sums and products stay exact in every type; negative ones
 * for the order and logical ops (unsigned types wrap them, consistently on both sides) */
static int ival(int r, int i, int op)
{
    if (op == OPROD)
        return 1 + (r + i) % 3;
    if (op == OBAND || op == OBOR || op == OBXOR)
        return (r * 37 + i * 11 + 5) & 0x7f;
    return (r * 7 + i * 3) % 11 - 5;
}

#define MAKE_INT(T, r, i, op) ((T)ival(r, i, op))
#define MAKE_FLOAT MAKE_INT
#define MAKE_BOOL MAKE_INT
#define MAKE_BYTE MAKE_INT
#define MAKE_COMPLEX(T, r, i, op)                                                                \
    ((T)ival(r, i, op) + (T)((r + 2 * i) % 2 * (op == OPROD ? 1 : 3)) * (T)I)

#define X(D, T, CLASS)                                                                           \
    static int fold_##CLASS##_##D(int op, const void *xv, void *yv, int n)                      \
    {                                                                                            \
        const T *x = xv;                                                                         \
        T *y = yv;                                                                               \
        for (int i = 0; i < n; i++)                                                              \
            switch (op) {                                                                        \
            CASES_##CLASS(T)                                                                     \
            default: return 0;                                                                   \
            }                                                                                    \
        return 1;                                                                                \
    }                                                                                            \
    static void fill_##CLASS##_##D(void *b, int r, int n, int op)                               \
    {                                                                                            \
        for (int i = 0; i < n; i++)                                                              \
            ((T *)b)[i] = MAKE_##CLASS(T, r, i, op);                                             \
    }                                                                                            \
    static int eq_##CLASS##_##D(const void *a, const void *b, int i)                            \
    {                                                                                            \
        return ((const T *)a)[i] == ((const T *)b)[i];                                           \
    }
TYPES(X)
#undef X

static struct tinfo types[64];
static int ntypes;

static void init_types(void)
{
#define X(D, T, CLASS)                                                                           \
    types[ntypes++] = (struct tinfo){D, #D, sizeof(T), fold_##CLASS##_##D, fill_##CLASS##_##D,  \
                                     eq_##CLASS##_##D};
    TYPES(X)
#undef X
}

static void expect(const struct tinfo *t, const void *got, const void *want, int n,
                   const char *what, int op)
{
    for (int i = 0; i < n; i++)
        CHECK(t->eq(got, want, i), "%s %s %s count %d: element %d differs", what, opname[op],
              t->name, n, i);
}

/* ref[r] = v_0 op ... op v_r, folded in rank order by the C reference */
static void prefixes(const struct tinfo *t, int op, int n, char *ref)
{
    size_t bytes = t->size * (size_t)n;
    t->fill(ref, 0, n, op);
    for (int r = 1; r < size_; r++) {
        char *cur = ref + bytes * (size_t)r;
        t->fill(cur, r, n, op);
        /* cur = prev op cur: the reference is written as y = x op y */
        t->fold(op, ref + bytes * (size_t)(r - 1), cur, n);
    }
}

static void run(const struct tinfo *t, int op, int n)
{
    size_t bytes = t->size * (size_t)n, all = bytes * (size_t)size_;
    char *ref = xmalloc(all), *in = xmalloc(all), *out = xmalloc(all), *loc = xmalloc(bytes);
    prefixes(t, op, n, ref);
    const char *total = ref + bytes * (size_t)(size_ - 1);
    MPI_Op o = mpiop(op);
    /* Reduce_local: my contribution into the next rank's, against the C fold of the two */
    t->fill(in, rank_, n, op);
    t->fill(out, rank_ + 1, n, op);
    t->fill(loc, rank_ + 1, n, op);
    t->fold(op, in, loc, n);
    CHECK(MPI_Reduce_local(in, out, n, t->t, o) == MPI_SUCCESS, "Reduce_local");
    expect(t, out, loc, n, "Reduce_local", op);
    /* Reduce at the last rank, Allreduce, Allreduce in place, Iallreduce, Scan */
    int root = size_ - 1;
    MPI_Reduce(in, out, n, t->t, o, root, MPI_COMM_WORLD);
    if (rank_ == root)
        expect(t, out, total, n, "Reduce", op);
    MPI_Allreduce(in, out, n, t->t, o, MPI_COMM_WORLD);
    expect(t, out, total, n, "Allreduce", op);
    t->fill(out, rank_, n, op);
    MPI_Allreduce(MPI_IN_PLACE, out, n, t->t, o, MPI_COMM_WORLD);
    expect(t, out, total, n, "Allreduce(IN_PLACE)", op);
    MPI_Request rq;
    MPI_Iallreduce(in, out, n, t->t, o, MPI_COMM_WORLD, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    expect(t, out, total, n, "Iallreduce", op);
    MPI_Scan(in, out, n, t->t, o, MPI_COMM_WORLD);
    expect(t, out, ref + bytes * (size_t)rank_, n, "Scan", op);
    free(ref);
    free(in);
    free(out);
    free(loc);
    /* Reduce_scatter_block: n elements per rank out of n * size */
    int m = n * size_;
    size_t mb = t->size * (size_t)m;
    ref = xmalloc(mb * (size_t)size_);
    in = xmalloc(mb);
    out = xmalloc(mb);
    prefixes(t, op, m, ref);
    t->fill(in, rank_, m, op);
    MPI_Reduce_scatter_block(in, out, n, t->t, o, MPI_COMM_WORLD);
    expect(t, out, ref + mb * (size_t)(size_ - 1) + bytes * (size_t)rank_, n,
           "Reduce_scatter_block", op);
    free(ref);
    free(in);
    free(out);
}

/* ---- MINLOC / MAXLOC on every pair type, values with ties ------------------------------ */
#define PAIRS(X)                                                                                 \
    X(MPI_FLOAT_INT, float) X(MPI_DOUBLE_INT, double) X(MPI_LONG_INT, long) X(MPI_2INT, int)    \
    X(MPI_SHORT_INT, short) X(MPI_LONG_DOUBLE_INT, long double)

#define X(D, T)                                                                                  \
    static void loc_##D(void)                                                                    \
    {                                                                                            \
        enum { N = 9 };                                                                          \
        struct p { T v; int i; } mine[N], got[N], want[N];                                       \
        for (int maxloc = 0; maxloc < 2; maxloc++) {                                             \
            for (int r = 0; r < size_; r++)                                                      \
                for (int k = 0; k < N; k++) {                                                    \
                    struct p c = {(T)((r * 5 + k * 3) % 4 - 1), r};                              \
                    if (r == rank_)                                                              \
                        mine[k] = c;                                                             \
                    if (r == 0 || (maxloc ? c.v > want[k].v : c.v < want[k].v))                  \
                        want[k] = c; /* ties keep the lower index: r grows */                    \
                }                                                                                \
            MPI_Op op = maxloc ? MPI_MAXLOC : MPI_MINLOC;                                        \
            MPI_Allreduce(mine, got, N, D, op, MPI_COMM_WORLD);                                  \
            for (int k = 0; k < N; k++)                                                          \
                CHECK(got[k].v == want[k].v && got[k].i == want[k].i,                            \
                      "%s %s[%d]: index %d want %d", #D, maxloc ? "MAXLOC" : "MINLOC", k,        \
                      got[k].i, want[k].i);                                                      \
            MPI_Reduce(mine, got, N, D, op, 0, MPI_COMM_WORLD);                                  \
            if (rank_ == 0)                                                                      \
                for (int k = 0; k < N; k++)                                                      \
                    CHECK(got[k].v == want[k].v && got[k].i == want[k].i, "%s Reduce", #D);      \
        }                                                                                        \
    }
PAIRS(X)
#undef X

static void undefined_combinations(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    struct { MPI_Op op; MPI_Datatype t; const char *what; } bad[] = {
        {MPI_SUM, MPI_C_BOOL, "SUM on C_BOOL"},     {MPI_BAND, MPI_FLOAT, "BAND on FLOAT"},
        {MPI_MAX, MPI_C_DOUBLE_COMPLEX, "MAX on complex"}, {MPI_MAXLOC, MPI_INT, "MAXLOC on INT"},
        {MPI_LOR, MPI_DOUBLE, "LOR on DOUBLE"},     {MPI_PROD, MPI_BYTE, "PROD on BYTE"},
        {MPI_MIN, MPI_2INT, "MIN on 2INT"},
    };
    char a[64] = {0}, b[64] = {0};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int cls, rc = MPI_Allreduce(a, b, 1, bad[k].t, bad[k].op, MPI_COMM_WORLD);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP, "Allreduce %s gave class %d", bad[k].what, cls);
        rc = MPI_Reduce_local(a, b, 1, bad[k].t, bad[k].op);
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_OP, "Reduce_local %s gave class %d", bad[k].what, cls);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    init_types();
    const int counts[] = {0, 1, 5, 33};
    int combos = 0;
    for (int ti = 0; ti < ntypes; ti++)
        for (int op = 0; op < NOPS; op++) {
            long double x[4] = {0}, y[4] = {0}; /* room for one of any type */
            if (!types[ti].fold(op, x, y, 1))
                continue; /* not defined for this type (checked below for a sample) */
            combos++;
            for (int c = 0; c < 4; c++)
                run(&types[ti], op, counts[c]);
        }
    CHECK(combos == 22 * 10 + 3 * 4 + 4 * 2 + 3 + 3, "combinations covered: %d", combos);
#define X(D, T) loc_##D();
    PAIRS(X)
#undef X
    undefined_combinations();
    return finish();
}
