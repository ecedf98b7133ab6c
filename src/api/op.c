/* op.c — reduction operations: the predefined ops over every predefined type they accept
 * (MINLOC/MAXLOC over the pair types), user ops (Op_create/Op_free/Op_commutative), their
 * application to derived types, and MPI_Reduce_local. */
#include <complex.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

#define INT_TYPES(X)                                                                             \
    X(MPI_CHAR, char)                                                                            \
    X(MPI_SIGNED_CHAR, signed char)                                                              \
    X(MPI_UNSIGNED_CHAR, unsigned char) X(MPI_SHORT, short)                                      \
        X(MPI_UNSIGNED_SHORT, unsigned short) X(MPI_INT, int) X(MPI_UNSIGNED, unsigned)          \
            X(MPI_LONG, long) X(MPI_UNSIGNED_LONG, unsigned long)                                \
                X(MPI_LONG_LONG_INT, long long) X(MPI_UNSIGNED_LONG_LONG, unsigned long long)    \
                    X(MPI_INT8_T, int8_t) X(MPI_INT16_T, int16_t) X(MPI_INT32_T, int32_t)        \
                        X(MPI_INT64_T, int64_t) X(MPI_UINT8_T, uint8_t)                          \
                            X(MPI_UINT16_T, uint16_t) X(MPI_UINT32_T, uint32_t)                  \
                                X(MPI_UINT64_T, uint64_t) X(MPI_AINT, MPI_Aint)                  \
                                    X(MPI_OFFSET, MPI_Offset) X(MPI_COUNT, MPI_Count)            \
                                        X(MPI_WCHAR, wchar_t) X(MPI_INTEGER, int32_t)            \
                                            X(MPI_INTEGER1, int8_t) X(MPI_INTEGER2, int16_t)     \
                                                X(MPI_INTEGER4, int32_t)                         \
                                                    X(MPI_INTEGER8, int64_t) INT16_TYPES(X)
#define FLOAT_TYPES(X)                                                                           \
    X(MPI_FLOAT, float)                                                                          \
    X(MPI_DOUBLE, double)                                                                        \
    X(MPI_LONG_DOUBLE, long double) X(MPI_REAL, float) X(MPI_DOUBLE_PRECISION, double)           \
        X(MPI_REAL4, float) X(MPI_REAL8, double) REAL16_TYPES(X)
#define COMPLEX_TYPES(X)                                                                         \
    X(MPI_C_FLOAT_COMPLEX, float _Complex)                                                       \
    X(MPI_C_DOUBLE_COMPLEX, double _Complex)                                                     \
    X(MPI_C_LONG_DOUBLE_COMPLEX, long double _Complex) X(MPI_COMPLEX, float _Complex)            \
        X(MPI_DOUBLE_COMPLEX, double _Complex) X(MPI_COMPLEX8, float _Complex)                   \
            X(MPI_COMPLEX16, double _Complex) X(MPI_CXX_FLOAT_COMPLEX, float _Complex)           \
                X(MPI_CXX_DOUBLE_COMPLEX, double _Complex)                                       \
                    X(MPI_CXX_LONG_DOUBLE_COMPLEX, long double _Complex) COMPLEX32_TYPES(X)
/* Fortran LOGICAL: 4 bytes, .TRUE. is 1 (gfortran), any non-zero value counts as true */
#define BOOL_TYPES(X) X(MPI_C_BOOL, bool) X(MPI_CXX_BOOL, bool) X(MPI_LOGICAL, int32_t)

/* INTEGER*16, REAL*16 and COMPLEX*32 (gfortran's kinds 16: a 128-bit integer and IEEE
 * binary128) where the compiler has them; elsewhere no operation accepts these types */
#ifdef __SIZEOF_INT128__
__extension__ typedef __int128 sm_int128;
#define INT16_TYPES(X) X(MPI_INTEGER16, sm_int128)
#else
#define INT16_TYPES(X)
#endif
#if defined(__SIZEOF_FLOAT128__)
__extension__ typedef __float128 sm_real16;
__extension__ typedef _Complex float __attribute__((mode(TC))) sm_complex32;
#define REAL16_TYPES(X) X(MPI_REAL16, sm_real16)
#define COMPLEX32_TYPES(X) X(MPI_COMPLEX32, sm_complex32)
#elif defined(__LDBL_MANT_DIG__) && __LDBL_MANT_DIG__ == 113
#define REAL16_TYPES(X) X(MPI_REAL16, long double)
#define COMPLEX32_TYPES(X) X(MPI_COMPLEX32, long double _Complex)
#else
#define REAL16_TYPES(X)
#define COMPLEX32_TYPES(X)
#endif
#define BYTE_TYPES(X) X(MPI_BYTE, unsigned char)

#define LOOP(T, EXPR)                                                                            \
    {                                                                                            \
        const T *a = in;                                                                         \
        T *b = inout;                                                                            \
        for (int i = 0; i < count; i++)                                                          \
            b[i] = (T)(EXPR);                                                                    \
        return 1;                                                                                \
    }

#define DEFINE_OP(NAME, TYPES)                                                                   \
    int sm_op_##NAME(const void *in, void *inout, int count, MPI_Datatype dt)                    \
    {                                                                                            \
        TYPES(void) in;                                                                          \
        (void)inout;                                                                             \
        (void)count;                                                                             \
        return 0;                                                                                \
    }

#define X_MAX(D, T)                                                                              \
    if (dt == D)                                                                                 \
    LOOP(T, a[i] > b[i] ? a[i] : b[i])
#define X_MIN(D, T)                                                                              \
    if (dt == D)                                                                                 \
    LOOP(T, a[i] < b[i] ? a[i] : b[i])
#define X_SUM(D, T)                                                                              \
    if (dt == D)                                                                                 \
    LOOP(T, b[i] + a[i])
#define X_PROD(D, T)                                                                             \
    if (dt == D)                                                                                 \
    LOOP(T, b[i] * a[i])
#define X_LAND(D, T)                                                                             \
    if (dt == D)                                                                                 \
    LOOP(T, a[i] && b[i])
#define X_LOR(D, T)                                                                              \
    if (dt == D)                                                                                 \
    LOOP(T, a[i] || b[i])
#define X_LXOR(D, T)                                                                             \
    if (dt == D)                                                                                 \
    LOOP(T, (!a[i]) != (!b[i]))
#define X_BAND(D, T)                                                                             \
    if (dt == D)                                                                                 \
    LOOP(T, a[i] & b[i])
#define X_BOR(D, T)                                                                              \
    if (dt == D)                                                                                 \
    LOOP(T, a[i] | b[i])
#define X_BXOR(D, T)                                                                             \
    if (dt == D)                                                                                 \
    LOOP(T, a[i] ^ b[i])

DEFINE_OP(max, INT_TYPES(X_MAX) FLOAT_TYPES(X_MAX))
DEFINE_OP(min, INT_TYPES(X_MIN) FLOAT_TYPES(X_MIN))
DEFINE_OP(sum, INT_TYPES(X_SUM) FLOAT_TYPES(X_SUM) COMPLEX_TYPES(X_SUM))
DEFINE_OP(prod, INT_TYPES(X_PROD) FLOAT_TYPES(X_PROD) COMPLEX_TYPES(X_PROD))
DEFINE_OP(land, INT_TYPES(X_LAND) BOOL_TYPES(X_LAND))
DEFINE_OP(lor, INT_TYPES(X_LOR) BOOL_TYPES(X_LOR))
DEFINE_OP(lxor, INT_TYPES(X_LXOR) BOOL_TYPES(X_LXOR))
DEFINE_OP(band, INT_TYPES(X_BAND) BYTE_TYPES(X_BAND))
DEFINE_OP(bor, INT_TYPES(X_BOR) BYTE_TYPES(X_BOR))
DEFINE_OP(bxor, INT_TYPES(X_BXOR) BYTE_TYPES(X_BXOR))

#define PAIR_TYPES(X)                                                                            \
    X(MPI_FLOAT_INT, float)                                                                      \
    X(MPI_DOUBLE_INT, double)                                                                    \
    X(MPI_LONG_INT, long) X(MPI_2INT, int) X(MPI_SHORT_INT, short)                               \
        X(MPI_LONG_DOUBLE_INT, long double)
/* the Fortran pairs: the index has the value's type */
#define FPAIR_TYPES(X)                                                                           \
    X(MPI_2INTEGER, int32_t, int32_t)                                                            \
    X(MPI_2REAL, float, float) X(MPI_2DOUBLE_PRECISION, double, double)

#define LOC_LOOP(D, T, CMP) LOC_LOOP2(D, T, int, CMP)
#define LOC_LOOP2(D, T, IT, CMP)                                                                 \
    if (dt == D) {                                                                               \
        struct pair {                                                                            \
            T v;                                                                                 \
            IT i;                                                                                \
        };                                                                                       \
        const struct pair *a = in;                                                               \
        struct pair *b = inout;                                                                  \
        for (int k = 0; k < count; k++) {                                                        \
            if (a[k].v CMP b[k].v)                                                               \
                b[k] = a[k];                                                                     \
            else if (a[k].v == b[k].v && a[k].i < b[k].i)                                        \
                b[k].i = a[k].i;                                                                 \
        }                                                                                        \
        return 1;                                                                                \
    }
#define X_MAXLOC(D, T) LOC_LOOP(D, T, >)
#define X_MINLOC(D, T) LOC_LOOP(D, T, <)
#define X_MAXLOC2(D, T, IT) LOC_LOOP2(D, T, IT, >)
#define X_MINLOC2(D, T, IT) LOC_LOOP2(D, T, IT, <)
DEFINE_OP(maxloc, PAIR_TYPES(X_MAXLOC) FPAIR_TYPES(X_MAXLOC2))
DEFINE_OP(minloc, PAIR_TYPES(X_MINLOC) FPAIR_TYPES(X_MINLOC2))

int sm_op_replace(const void *in, void *inout, int count, MPI_Datatype dt)
{
    if (count > 0)
        memcpy(inout, in, (size_t)count * (size_t)dt->extent);
    return 1;
}

int sm_op_no_op(const void *in, void *inout, int count, MPI_Datatype dt)
{
    (void)in, (void)inout, (void)count, (void)dt;
    return 1;
}

/* the predefined type a predefined op works on: dt itself, or the only type of a derived
 * type's signature */
MPI_Datatype sm_op_leaf_type(MPI_Datatype dt)
{
    MPI_Datatype l = NULL;
    if (dt->basic)
        l = dt;
    else if (dt->nsig == 1)
        l = dt->sig[0].type;
    else if (dt->nsig == 0)
        l = MPI_BYTE;
    /* a parameterized f90 type (dt_fortran.c) stands for its sized named type */
    if (l && l->basic && l->nsig == 1)
        l = l->sig[0].type;
    return l;
}

int sm_op_check(MPI_Comm c, MPI_Op op, MPI_Datatype dt, const char *fn)
{
    if (!op || !op->valid)
        return sm_error(c, MPI_ERR_OP, fn, "null or freed operation");
    if (op->user)
        return MPI_SUCCESS;
    MPI_Datatype leaf = sm_op_leaf_type(dt);
    if (!leaf || !op->fn(NULL, NULL, 0, leaf))
        return sm_error(c, MPI_ERR_OP, fn, "%s is not defined for datatype %s", op->name,
                        dt->basic ? dt->name : "(derived)");
    return MPI_SUCCESS;
}

void sm_op_apply(MPI_Op op, const void *in, void *inout, int count, MPI_Datatype dt)
{
    if (count <= 0)
        return;
    if (op->user_c) {
        MPI_Datatype d = dt;
        MPI_Count n = count;
        op->user_c((void *)in, inout, &n, &d);
        return;
    }
    if (op->user) {
        MPI_Datatype d = dt;
        int n = count;
        op->user((void *)in, inout, &n, &d);
        return;
    }
    if (dt->basic) {
        op->fn(in, inout, count, sm_op_leaf_type(dt));
        return;
    }
    MPI_Datatype leaf = sm_op_leaf_type(dt);
    size_t per = dt->nsig == 1 ? dt->sig[0].count : 0;
    size_t bytes = sm_dt_psize(dt) * (size_t)count;
    MPI_Aint off;
    if (sm_dt_contig(dt, count, &off)) {
        op->fn((const char *)in + off, (char *)inout + off, (int)(per * (size_t)count), leaf);
        return;
    }
    char *a = sm_xmalloc(bytes ? bytes : 1), *b = sm_xmalloc(bytes ? bytes : 1);
    sm_dt_pack(in, count, dt, a);
    sm_dt_pack(inout, count, dt, b);
    op->fn(a, b, (int)(per * (size_t)count), leaf);
    sm_dt_unpack(b, bytes, inout, count, dt);
    free(a);
    free(b);
}

void sm_op_retain(MPI_Op op)
{
    if (op->user)
        op->refcount++;
}

void sm_op_release(MPI_Op op)
{
    if (op->user && --op->refcount == 0)
        free(op);
}

int PMPI_Op_create(MPI_User_function *user_fn, int commute, MPI_Op *op)
{
    SM_TRY(sm_check_init("MPI_Op_create"));
    if (!user_fn || !op)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Op_create", "NULL argument");
    struct sctpmpi_op *o = sm_xcalloc(1, sizeof *o);
    o->valid = 1;
    o->name = "user op";
    o->commute = commute != 0;
    o->user = user_fn;
    o->refcount = 1; /* the user's handle */
    *op = o;
    return MPI_SUCCESS;
}

int PMPI_Op_free(MPI_Op *op)
{
    SM_TRY(sm_check_init("MPI_Op_free"));
    if (!op || !*op || !(*op)->valid)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_free", "null or freed operation");
    if (!(*op)->user)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_free",
                        "%s is predefined and cannot be freed", (*op)->name);
    (*op)->valid = 0;
    sm_op_release(*op); /* a running non-blocking collective may still hold it */
    *op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

int PMPI_Op_commutative(MPI_Op op, int *commute)
{
    SM_TRY(sm_check_init("MPI_Op_commutative"));
    if (!op || !op->valid || !commute)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_OP, "MPI_Op_commutative", "invalid argument");
    *commute = op->commute;
    return MPI_SUCCESS;
}

int PMPI_Reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype dt, MPI_Op op)
{
    const char *fn = "MPI_Reduce_local";
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_buffer(MPI_COMM_WORLD, inoutbuf, count, dt, fn));
    SM_TRY(sm_op_check(MPI_COMM_WORLD, op, dt, fn));
    sm_op_apply(op, inbuf, inoutbuf, count, dt);
    return MPI_SUCCESS;
}
