/* rma_accops.c — every predefined reduction operation with accumulate-style calls on a
 * representative set of predefined datatypes, including MPI_REPLACE, MPI_NO_OP and the
 * MINLOC/MAXLOC pair types.
 *   phase 1 (fence): every rank accumulates 3 elements onto the same cell of every target, so
 *     the result is the fold of all contributions (concurrent accumulates are element-wise
 *     atomic); MPI_REPLACE from one origin only.
 *   phase 2 (lock_all): Get_accumulate from each origin onto its own cell: fetched = initial,
 *     result = initial op contribution; also MPI_NO_OP and MPI_REPLACE.
 *   phase 3 (lock shared per target): Fetch_and_op on its own element, every op; Compare_and_swap
 *     on integer types (one succeeding, one failing).
 * Values are small integers so every model computation is exact. */
#include "rma_test.h"

#include <stdbool.h>

enum kind { K_INT, K_FLOAT, K_BOOL }; /* integer, floating point, C logical */
struct type {
    const char *name;
    MPI_Datatype dt;
    int size;
    enum kind kind;
};
#define T(n, d, c, k) {n, d, sizeof(c), k}
static struct type types[] = {
    T("MPI_INT", MPI_INT, int, K_INT),
    T("MPI_UNSIGNED", MPI_UNSIGNED, unsigned, K_INT),
    T("MPI_SHORT", MPI_SHORT, short, K_INT),
    T("MPI_LONG", MPI_LONG, long, K_INT),
    T("MPI_LONG_LONG", MPI_LONG_LONG, long long, K_INT),
    T("MPI_UNSIGNED_CHAR", MPI_UNSIGNED_CHAR, unsigned char, K_INT),
    T("MPI_SIGNED_CHAR", MPI_SIGNED_CHAR, signed char, K_INT),
    T("MPI_INT8_T", MPI_INT8_T, int8_t, K_INT),
    T("MPI_UINT16_T", MPI_UINT16_T, uint16_t, K_INT),
    T("MPI_INT32_T", MPI_INT32_T, int32_t, K_INT),
    T("MPI_UINT64_T", MPI_UINT64_T, uint64_t, K_INT),
    T("MPI_FLOAT", MPI_FLOAT, float, K_FLOAT),
    T("MPI_DOUBLE", MPI_DOUBLE, double, K_FLOAT),
    T("MPI_C_BOOL", MPI_C_BOOL, bool, K_BOOL),
};
#define NTYPES (int)(sizeof types / sizeof types[0])

enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_BAND, O_LOR, O_BOR, O_LXOR, O_BXOR, O_REPLACE,
       O_NOOP, NOPS };
static const char *op_name[] = {"MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR",
                                "LXOR", "BXOR", "REPLACE", "NO_OP"};
static MPI_Op ops[NOPS];

static int valid(int ti, int o)
{
    enum kind k = types[ti].kind;
    if (o == O_REPLACE || o == O_NOOP) return 1;
    if (k == K_BOOL) return o == O_LAND || o == O_LOR || o == O_LXOR;
    if (k == K_FLOAT) return o <= O_PROD;
    return 1;
}

/* store / load a small integer value in a typed element */
static void put_v(int ti, void *p, long long v)
{
    MPI_Datatype d = types[ti].dt;
    if (d == MPI_INT) *(int *)p = (int)v;
    else if (d == MPI_UNSIGNED) *(unsigned *)p = (unsigned)v;
    else if (d == MPI_SHORT) *(short *)p = (short)v;
    else if (d == MPI_LONG) *(long *)p = (long)v;
    else if (d == MPI_LONG_LONG) *(long long *)p = v;
    else if (d == MPI_UNSIGNED_CHAR) *(unsigned char *)p = (unsigned char)v;
    else if (d == MPI_SIGNED_CHAR) *(signed char *)p = (signed char)v;
    else if (d == MPI_INT8_T) *(int8_t *)p = (int8_t)v;
    else if (d == MPI_UINT16_T) *(uint16_t *)p = (uint16_t)v;
    else if (d == MPI_INT32_T) *(int32_t *)p = (int32_t)v;
    else if (d == MPI_UINT64_T) *(uint64_t *)p = (uint64_t)v;
    else if (d == MPI_FLOAT) *(float *)p = (float)v;
    else if (d == MPI_DOUBLE) *(double *)p = (double)v;
    else *(bool *)p = v != 0;
}
static long long get_v(int ti, const void *p)
{
    MPI_Datatype d = types[ti].dt;
    if (d == MPI_INT) return *(const int *)p;
    if (d == MPI_UNSIGNED) return *(const unsigned *)p;
    if (d == MPI_SHORT) return *(const short *)p;
    if (d == MPI_LONG) return *(const long *)p;
    if (d == MPI_LONG_LONG) return *(const long long *)p;
    if (d == MPI_UNSIGNED_CHAR) return *(const unsigned char *)p;
    if (d == MPI_SIGNED_CHAR) return *(const signed char *)p;
    if (d == MPI_INT8_T) return *(const int8_t *)p;
    if (d == MPI_UINT16_T) return *(const uint16_t *)p;
    if (d == MPI_INT32_T) return *(const int32_t *)p;
    if (d == MPI_UINT64_T) return (long long)*(const uint64_t *)p;
    if (d == MPI_FLOAT) return (long long)*(const float *)p;
    if (d == MPI_DOUBLE) return (long long)*(const double *)p;
    return *(const bool *)p;
}

/* initial value and contribution of origin o to element e of target t for op */
static long long init_of(int t, int o, int e)
{
    switch (o) {
    case O_PROD: return 1 + (t + e) % 3;
    case O_LAND: return 1;
    case O_LOR: case O_LXOR: return (t + e) % 2;
    case O_BAND: return 0x7f;
    case O_BOR: case O_BXOR: return (t * 3 + e) & 0x15;
    default: return 10 + (t * 7 + e * 3) % 40;
    }
}
static long long contrib(int r, int t, int o, int e)
{
    switch (o) {
    case O_PROD: return 1 + ((r + t + e) % 5 == 0); /* product stays below 100 */
    case O_LAND: return (r + e + t) % 5 != 2;
    case O_LOR: return (r + e) % 4 == 3;
    case O_LXOR: return (r * 3 + e + t) % 3 == 0;
    case O_BAND: return 0x7f & ~(1 << ((r + e) % 7));
    case O_BOR: case O_BXOR: return 1 << ((r * 2 + e + t) % 7);
    default: return 1 + (r * 13 + t * 5 + e * 11 + o) % 50;
    }
}
static long long apply(int o, long long a, long long b)
{
    switch (o) {
    case O_MAX: return a > b ? a : b;
    case O_MIN: return a < b ? a : b;
    case O_SUM: return a + b;
    case O_PROD: return a * b;
    case O_LAND: return a && b;
    case O_BAND: return a & b;
    case O_LOR: return a || b;
    case O_BOR: return a | b;
    case O_LXOR: return !a != !b;
    case O_BXOR: return a ^ b;
    case O_REPLACE: return b;
    default: return a;
    }
}

/* pair types for MINLOC / MAXLOC */
struct p_int { int v, i; };
struct p_dbl { double v; int i; };
struct p_flt { float v; int i; };
struct p_lng { long v; int i; };
struct p_sht { short v; int i; };
struct pair { const char *name; MPI_Datatype dt; size_t sz; };
static struct pair pairs[] = {
    {"MPI_2INT", MPI_2INT, sizeof(struct p_int)},
    {"MPI_DOUBLE_INT", MPI_DOUBLE_INT, sizeof(struct p_dbl)},
    {"MPI_FLOAT_INT", MPI_FLOAT_INT, sizeof(struct p_flt)},
    {"MPI_LONG_INT", MPI_LONG_INT, sizeof(struct p_lng)},
    {"MPI_SHORT_INT", MPI_SHORT_INT, sizeof(struct p_sht)},
};
#define NPAIRS (int)(sizeof pairs / sizeof pairs[0])
#define PSZ 16 /* bytes reserved per pair element (the largest is 16) */

static void pset(int pi, void *p, long long v, int i)
{
    switch (pi) {
    case 0: ((struct p_int *)p)->v = (int)v; ((struct p_int *)p)->i = i; break;
    case 1: ((struct p_dbl *)p)->v = (double)v; ((struct p_dbl *)p)->i = i; break;
    case 2: ((struct p_flt *)p)->v = (float)v; ((struct p_flt *)p)->i = i; break;
    case 3: ((struct p_lng *)p)->v = (long)v; ((struct p_lng *)p)->i = i; break;
    default: ((struct p_sht *)p)->v = (short)v; ((struct p_sht *)p)->i = i; break;
    }
}
static void pget(int pi, const void *p, long long *v, int *i)
{
    switch (pi) {
    case 0: *v = ((const struct p_int *)p)->v; *i = ((const struct p_int *)p)->i; break;
    case 1: *v = (long long)((const struct p_dbl *)p)->v; *i = ((const struct p_dbl *)p)->i; break;
    case 2: *v = (long long)((const struct p_flt *)p)->v; *i = ((const struct p_flt *)p)->i; break;
    case 3: *v = ((const struct p_lng *)p)->v; *i = ((const struct p_lng *)p)->i; break;
    default: *v = ((const struct p_sht *)p)->v; *i = ((const struct p_sht *)p)->i; break;
    }
}
/* pair values: few distinct values so ties exercise the "smaller index wins" rule */
static long long pval(int r, int t, int e) { return (r * 5 + t + e) % 3; }
static int pidx(int r, int t, int e) { return 100 + ((r * 3 + t + e) % 7); }
static void ploc(int maxloc, long long *v, int *i, long long v2, int i2)
{
    if ((maxloc ? v2 > *v : v2 < *v) || (v2 == *v && i2 < *i)) { *v = v2; *i = i2; }
}

#define NE 3   /* elements per accumulate */
#define ESZ 8  /* bytes per scalar element slot */
static unsigned char *base;
static MPI_Win win;
static MPI_Aint cell_bytes;

/* byte offset of (type, op) cell; in phase 2/3 each origin has its own sub-cell */
static MPI_Aint scal_off(int ti, int o, int r) { return ((MPI_Aint)(ti * NOPS + o) * (size_ + 1) + r) * NE * ESZ; }
static MPI_Aint pair_off(int pi, int maxloc, int r)
{
    return (MPI_Aint)NTYPES * NOPS * (size_ + 1) * NE * ESZ +
           ((MPI_Aint)(pi * 2 + maxloc) * (size_ + 1) + r) * NE * PSZ;
}

static void init_window(void)
{
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
    memset(base, 0, (size_t)cell_bytes);
    for (int ti = 0; ti < NTYPES; ti++)
        for (int o = 0; o < NOPS; o++)
            for (int r = 0; r <= size_; r++)
                for (int e = 0; e < NE; e++)
                    put_v(ti, base + scal_off(ti, o, r) + e * ESZ, init_of(rank_, o, e + r));
    for (int pi = 0; pi < NPAIRS; pi++)
        for (int m = 0; m < 2; m++)
            for (int r = 0; r <= size_; r++)
                for (int e = 0; e < NE; e++)
                    pset(pi, base + pair_off(pi, m, r) + e * pairs[pi].sz, 1, 50 + e);
    MPI_OK(MPI_Win_unlock(rank_, win));
    MPI_Barrier(MPI_COMM_WORLD);
}

/* a contiguous origin buffer of NE typed elements (the window stores them ESZ apart, so the
 * target side uses a vector type: stride ESZ bytes); pair elements are contiguous on both sides */
static MPI_Datatype tvec[NTYPES];

static void phase_accumulate(void)
{
    init_window();
    /* origin buffers stay untouched until the epoch ends: one per operation */
    size_t nbuf = (size_t)size_ * (NTYPES * NOPS + NPAIRS * 2);
    unsigned char *bufs = rt_malloc(nbuf * NE * 16), *buf;
    int k = 0;
    MPI_OK(MPI_Win_fence(0, win));
    for (int t = 0; t < size_; t++)
        for (int ti = 0; ti < NTYPES; ti++)
            for (int o = 0; o < O_NOOP; o++) {
                buf = bufs + (size_t)k++ * NE * 16;
                if (!valid(ti, o) || (o == O_REPLACE && rank_ != (t + 1) % size_)) continue;
                for (int e = 0; e < NE; e++) put_v(ti, buf + e * types[ti].size, contrib(rank_, t, o, e));
                MPI_OK(MPI_Accumulate(buf, NE, types[ti].dt, t, scal_off(ti, o, size_), 1,
                                      tvec[ti], ops[o], win));
            }
    for (int t = 0; t < size_; t++)
        for (int pi = 0; pi < NPAIRS; pi++)
            for (int m = 0; m < 2; m++) {
                unsigned char *pb = bufs + (size_t)k++ * NE * 16;
                for (int e = 0; e < NE; e++) pset(pi, pb + e * pairs[pi].sz, pval(rank_, t, e), pidx(rank_, t, e));
                MPI_OK(MPI_Accumulate(pb, NE, pairs[pi].dt, t, pair_off(pi, m, size_), NE, pairs[pi].dt,
                                      m ? MPI_MAXLOC : MPI_MINLOC, win));
            }
    MPI_OK(MPI_Win_fence(0, win));
    free(bufs);
    MPI_OK(MPI_Win_fence(0, win)); /* local reads of my memory are safe after this fence */
    int t = rank_;
    for (int ti = 0; ti < NTYPES; ti++)
        for (int o = 0; o < O_NOOP; o++) {
            if (!valid(ti, o)) continue;
            for (int e = 0; e < NE; e++) {
                long long x = init_of(t, o, e + size_);
                if (o == O_REPLACE) x = contrib((t + 1) % size_, t, o, e);
                else
                    for (int r = 0; r < size_; r++) x = apply(o, x, contrib(r, t, o, e));
                unsigned char want[16];
                put_v(ti, want, x); /* same conversion as the library's result */
                long long got = get_v(ti, base + scal_off(ti, o, size_) + e * ESZ);
                CHECK(got == get_v(ti, want), "Accumulate %s on %s element %d: %lld, expected %lld",
                      op_name[o], types[ti].name, e, got, get_v(ti, want));
            }
        }
    for (int pi = 0; pi < NPAIRS; pi++)
        for (int m = 0; m < 2; m++)
            for (int e = 0; e < NE; e++) {
                long long v = 1, gv;
                int i = 50 + e, gi;
                for (int r = 0; r < size_; r++) ploc(m, &v, &i, pval(r, t, e), pidx(r, t, e));
                pget(pi, base + pair_off(pi, m, size_) + e * pairs[pi].sz, &gv, &gi);
                CHECK(gv == v && gi == i, "Accumulate %s on %s element %d: (%lld,%d), expected (%lld,%d)",
                      m ? "MAXLOC" : "MINLOC", pairs[pi].name, e, gv, gi, v, i);
            }
    MPI_OK(MPI_Win_fence(0, win));
}

static void phase_get_accumulate(void)
{
    init_window();
    int nres = size_ * (NTYPES * NOPS + NPAIRS * 2);
    unsigned char *src = rt_malloc((size_t)nres * NE * 16), *res = rt_malloc((size_t)nres * NE * 16);
    MPI_OK(MPI_Win_lock_all(0, win));
    int k = 0;
    for (int t = 0; t < size_; t++) {
        for (int ti = 0; ti < NTYPES; ti++)
            for (int o = 0; o < NOPS; o++, k++) {
                if (!valid(ti, o)) continue;
                unsigned char *s = src + (size_t)k * NE * 16, *d = res + (size_t)k * NE * 16;
                for (int e = 0; e < NE; e++) put_v(ti, s + e * types[ti].size, contrib(rank_, t, o, e));
                MPI_OK(MPI_Get_accumulate(s, NE, types[ti].dt, d, NE, types[ti].dt, t,
                                          scal_off(ti, o, rank_), 1, tvec[ti], ops[o], win));
            }
        for (int pi = 0; pi < NPAIRS; pi++)
            for (int m = 0; m < 2; m++, k++) {
                unsigned char *s = src + (size_t)k * NE * 16, *d = res + (size_t)k * NE * 16;
                for (int e = 0; e < NE; e++) pset(pi, s + e * pairs[pi].sz, pval(rank_, t, e), pidx(rank_, t, e));
                MPI_OK(MPI_Get_accumulate(s, NE, pairs[pi].dt, d, NE, pairs[pi].dt, t,
                                          pair_off(pi, m, rank_), NE, pairs[pi].dt,
                                          m ? MPI_MAXLOC : MPI_MINLOC, win));
            }
    }
    MPI_OK(MPI_Win_unlock_all(win));
    /* fetched values: the initial contents */
    k = 0;
    for (int t = 0; t < size_; t++) {
        for (int ti = 0; ti < NTYPES; ti++)
            for (int o = 0; o < NOPS; o++, k++) {
                if (!valid(ti, o)) continue;
                for (int e = 0; e < NE; e++) {
                    unsigned char want[16];
                    put_v(ti, want, init_of(t, o, e + rank_));
                    long long got = get_v(ti, res + (size_t)k * NE * 16 + e * types[ti].size);
                    CHECK(got == get_v(ti, want), "Get_accumulate %s on %s at %d fetched %lld, expected %lld",
                          op_name[o], types[ti].name, t, got, get_v(ti, want));
                }
            }
        for (int pi = 0; pi < NPAIRS; pi++)
            for (int m = 0; m < 2; m++, k++)
                for (int e = 0; e < NE; e++) {
                    long long gv;
                    int gi;
                    pget(pi, res + (size_t)k * NE * 16 + e * pairs[pi].sz, &gv, &gi);
                    CHECK(gv == 1 && gi == 50 + e, "Get_accumulate %s on %s fetched (%lld,%d)",
                          m ? "MAXLOC" : "MINLOC", pairs[pi].name, gv, gi);
                }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
    int t = rank_;
    for (int r = 0; r < size_; r++) {
        for (int ti = 0; ti < NTYPES; ti++)
            for (int o = 0; o < NOPS; o++) {
                if (!valid(ti, o)) continue;
                for (int e = 0; e < NE; e++) {
                    unsigned char want[16];
                    put_v(ti, want, apply(o, init_of(t, o, e + r), contrib(r, t, o, e)));
                    long long got = get_v(ti, base + scal_off(ti, o, r) + e * ESZ);
                    CHECK(got == get_v(ti, want), "Get_accumulate %s on %s from %d: target has %lld, expected %lld",
                          op_name[o], types[ti].name, r, got, get_v(ti, want));
                }
            }
        for (int pi = 0; pi < NPAIRS; pi++)
            for (int m = 0; m < 2; m++)
                for (int e = 0; e < NE; e++) {
                    long long v = 1, gv;
                    int i = 50 + e, gi;
                    ploc(m, &v, &i, pval(r, t, e), pidx(r, t, e));
                    pget(pi, base + pair_off(pi, m, r) + e * pairs[pi].sz, &gv, &gi);
                    CHECK(gv == v && gi == i, "Get_accumulate %s on %s from %d: (%lld,%d), expected (%lld,%d)",
                          m ? "MAXLOC" : "MINLOC", pairs[pi].name, r, gv, gi, v, i);
                }
    }
    MPI_OK(MPI_Win_unlock(rank_, win));
    MPI_Barrier(MPI_COMM_WORLD);
    free(src);
    free(res);
}

static void phase_fetch_and_op(void)
{
    init_window();
    unsigned char src[16], res[NTYPES][NOPS][16], cas_ok[NTYPES][16], cas_bad[NTYPES][16];
    for (int k = 0; k < size_; k++) {
        int t = (rank_ + k) % size_;
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
        for (int ti = 0; ti < NTYPES; ti++) {
            for (int o = 0; o < NOPS; o++) {
                if (!valid(ti, o)) continue;
                put_v(ti, src, contrib(rank_, t, o, 0));
                MPI_OK(MPI_Fetch_and_op(src, res[ti][o], types[ti].dt, t, scal_off(ti, o, rank_),
                                        ops[o], win));
                MPI_OK(MPI_Win_flush(t, win)); /* src is reused */
            }
            if (types[ti].kind != K_INT) continue;
            /* element 1 of the SUM cell: a CAS that succeeds; element 2: one that fails */
            unsigned char cmp[16], nv[16];
            put_v(ti, cmp, init_of(t, O_SUM, 1 + rank_));
            put_v(ti, nv, 99);
            MPI_OK(MPI_Compare_and_swap(nv, cmp, cas_ok[ti], types[ti].dt, t,
                                        scal_off(ti, O_SUM, rank_) + ESZ, win));
            MPI_OK(MPI_Win_flush(t, win));
            put_v(ti, cmp, init_of(t, O_SUM, 2 + rank_) + 1);
            MPI_OK(MPI_Compare_and_swap(nv, cmp, cas_bad[ti], types[ti].dt, t,
                                        scal_off(ti, O_SUM, rank_) + 2 * ESZ, win));
        }
        MPI_OK(MPI_Win_unlock(t, win));
        for (int ti = 0; ti < NTYPES; ti++) {
            unsigned char want[16];
            for (int o = 0; o < NOPS; o++) {
                if (!valid(ti, o)) continue;
                put_v(ti, want, init_of(t, o, rank_));
                CHECK(get_v(ti, res[ti][o]) == get_v(ti, want), "Fetch_and_op %s on %s fetched %lld, expected %lld",
                      op_name[o], types[ti].name, get_v(ti, res[ti][o]), get_v(ti, want));
            }
            if (types[ti].kind != K_INT) continue;
            put_v(ti, want, init_of(t, O_SUM, 1 + rank_));
            CHECK(get_v(ti, cas_ok[ti]) == get_v(ti, want), "Compare_and_swap on %s fetched %lld",
                  types[ti].name, get_v(ti, cas_ok[ti]));
            put_v(ti, want, init_of(t, O_SUM, 2 + rank_));
            CHECK(get_v(ti, cas_bad[ti]) == get_v(ti, want), "failing Compare_and_swap on %s fetched %lld",
                  types[ti].name, get_v(ti, cas_bad[ti]));
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
    int t = rank_;
    for (int r = 0; r < size_; r++)
        for (int ti = 0; ti < NTYPES; ti++)
            for (int o = 0; o < NOPS; o++) {
                if (!valid(ti, o)) continue;
                for (int e = 0; e < NE; e++) {
                    long long x = init_of(t, o, e + r);
                    if (e == 0) x = apply(o, x, contrib(r, t, o, 0));
                    if (e == 1 && o == O_SUM && types[ti].kind == K_INT) x = 99;
                    unsigned char want[16];
                    put_v(ti, want, x);
                    long long got = get_v(ti, base + scal_off(ti, o, r) + e * ESZ);
                    CHECK(got == get_v(ti, want), "Fetch_and_op/CAS %s on %s from %d element %d: %lld, expected %lld",
                          op_name[o], types[ti].name, r, e, got, get_v(ti, want));
                }
            }
    MPI_OK(MPI_Win_unlock(rank_, win));
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    rt_start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Op o[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_BAND,
                      MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_REPLACE, MPI_NO_OP};
    memcpy(ops, o, sizeof ops);
    for (int ti = 0; ti < NTYPES; ti++) {
        MPI_Datatype v;
        MPI_Type_vector(NE, 1, ESZ / types[ti].size, types[ti].dt, &v);
        if (ESZ % types[ti].size) CHECK(0, "element size");
        tvec[ti] = v;
        MPI_Type_commit(&tvec[ti]);
    }
    for (int pi = 0; pi < NPAIRS; pi++) {
        MPI_Aint lb, ext;
        MPI_Type_get_extent(pairs[pi].dt, &lb, &ext);
        CHECK((size_t)ext == pairs[pi].sz, "%s extent %ld, C struct %zu", pairs[pi].name, (long)ext, pairs[pi].sz);
    }
    cell_bytes = pair_off(NPAIRS, 0, 0);
    MPI_OK(MPI_Win_allocate(cell_bytes, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    phase_accumulate();
    phase_get_accumulate();
    phase_fetch_and_op();
    MPI_OK(MPI_Win_free(&win));
    for (int ti = 0; ti < NTYPES; ti++) MPI_Type_free(&tvec[ti]);
    return rt_finish();
}
