/* fortran_types.c — the Fortran and C++ named datatypes from C: sizes (gfortran's defaults),
 * names, reductions (INTEGER, DOUBLE_PRECISION, LOGICAL, DOUBLE_COMPLEX, INTEGER8/16,
 * MAXLOC/MINLOC over 2INTEGER / 2DOUBLE_PRECISION), send/recv; the parameterized f90 types
 * (envelope, contents, same handle twice, not freeable, reductions on them) and
 * MPI_Type_match_size. */
#include <complex.h>
#include <stdint.h>

#include "sm_test.h"

static void check_size(MPI_Datatype t, int want, const char *name)
{
    int size;
    char got[MPI_MAX_OBJECT_NAME];
    int len;
    SM_CHECK(t != MPI_DATATYPE_NULL, "%s is MPI_DATATYPE_NULL", name);
    SM_MPI(MPI_Type_size(t, &size));
    SM_CHECK(size == want, "%s has size %d, expected %d", name, size, want);
    SM_MPI(MPI_Type_get_name(t, got, &len));
    SM_CHECK(strcmp(got, name) == 0 && len == (int)strlen(name), "%s is named '%s'", name, got);
}
#define SIZE(t, n) check_size(t, n, #t)

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &sm_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &sm_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int n = sm_size, r = sm_rank;

    SIZE(MPI_INTEGER, 4); SIZE(MPI_REAL, 4); SIZE(MPI_DOUBLE_PRECISION, 8);
    SIZE(MPI_COMPLEX, 8); SIZE(MPI_DOUBLE_COMPLEX, 16); SIZE(MPI_LOGICAL, 4);
    SIZE(MPI_CHARACTER, 1); SIZE(MPI_2INTEGER, 8); SIZE(MPI_2REAL, 8);
    SIZE(MPI_2DOUBLE_PRECISION, 16); SIZE(MPI_INTEGER1, 1); SIZE(MPI_INTEGER2, 2);
    SIZE(MPI_INTEGER4, 4); SIZE(MPI_INTEGER8, 8); SIZE(MPI_INTEGER16, 16);
    SIZE(MPI_REAL4, 4); SIZE(MPI_REAL8, 8); SIZE(MPI_REAL16, 16); SIZE(MPI_COMPLEX8, 8);
    SIZE(MPI_COMPLEX16, 16); SIZE(MPI_COMPLEX32, 32); SIZE(MPI_CXX_BOOL, 1);
    SIZE(MPI_CXX_FLOAT_COMPLEX, 8); SIZE(MPI_CXX_DOUBLE_COMPLEX, 16);
    SIZE(MPI_CXX_LONG_DOUBLE_COMPLEX, (int)sizeof(long double _Complex));
    SM_CHECK(MPI_REAL2 == MPI_DATATYPE_NULL, "MPI_REAL2 should be MPI_DATATYPE_NULL");
    /* distinct handles from the C types of the same size */
    SM_CHECK(MPI_INTEGER != MPI_INT && MPI_REAL != MPI_FLOAT && MPI_INTEGER4 != MPI_INTEGER &&
                 MPI_CXX_BOOL != MPI_C_BOOL, "Fortran types alias C types");

    /* reductions */
    int32_t isum = r + 1, iout = 0;
    SM_MPI(MPI_Allreduce(&isum, &iout, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD));
    SM_CHECK(iout == n * (n + 1) / 2, "SUM INTEGER %d", (int)iout);
    double d = 0.5 * r, dout;
    SM_MPI(MPI_Allreduce(&d, &dout, 1, MPI_DOUBLE_PRECISION, MPI_MAX, MPI_COMM_WORLD));
    SM_CHECK(dout == 0.5 * (n - 1), "MAX DOUBLE_PRECISION %g", dout);
    int32_t lg = r != 1, lout; /* Fortran .TRUE. is 1 */
    SM_MPI(MPI_Allreduce(&lg, &lout, 1, MPI_LOGICAL, MPI_LAND, MPI_COMM_WORLD));
    SM_CHECK(lout == (n == 1), "LAND LOGICAL %d", (int)lout);
    SM_MPI(MPI_Allreduce(&lg, &lout, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD));
    SM_CHECK(lout == 1, "LOR LOGICAL %d", (int)lout);
    double _Complex z = r + 2.0 * r * I, zout;
    SM_MPI(MPI_Allreduce(&z, &zout, 1, MPI_DOUBLE_COMPLEX, MPI_SUM, MPI_COMM_WORLD));
    SM_CHECK(creal(zout) == n * (n - 1) / 2 && cimag(zout) == n * (n - 1),
             "SUM DOUBLE_COMPLEX %g%+gi", creal(zout), cimag(zout));
    int64_t big = (int64_t)1 << 40, bout;
    SM_MPI(MPI_Allreduce(&big, &bout, 1, MPI_INTEGER8, MPI_SUM, MPI_COMM_WORLD));
    SM_CHECK(bout == ((int64_t)n << 40), "SUM INTEGER8");
#ifdef __SIZEOF_INT128__
    __extension__ typedef __int128 i128;
    i128 h = (i128)1 << 100, hout;
    SM_MPI(MPI_Allreduce(&h, &hout, 1, MPI_INTEGER16, MPI_SUM, MPI_COMM_WORLD));
    SM_CHECK(hout == ((i128)n << 100), "SUM INTEGER16");
#endif
    /* MAXLOC over 2INTEGER: (value, index) pairs of INTEGERs; ties take the lower index */
    int32_t pin[2][2] = {{r % 2, r}, {-r, r}}, pout[2][2];
    SM_MPI(MPI_Allreduce(pin, pout, 2, MPI_2INTEGER, MPI_MAXLOC, MPI_COMM_WORLD));
    SM_CHECK(pout[0][0] == (n > 1) && pout[0][1] == (n > 1) && pout[1][0] == 0 && pout[1][1] == 0,
             "MAXLOC 2INTEGER (%d,%d) (%d,%d)", (int)pout[0][0], (int)pout[0][1],
             (int)pout[1][0], (int)pout[1][1]);
    double qin[2] = {10.0 - r, (double)r}, qout[2];
    SM_MPI(MPI_Allreduce(qin, qout, 1, MPI_2DOUBLE_PRECISION, MPI_MINLOC, MPI_COMM_WORLD));
    SM_CHECK(qout[0] == 10.0 - (n - 1) && qout[1] == n - 1, "MINLOC 2DOUBLE_PRECISION");
    /* no operation is defined on CHARACTER */
    char c = 'a', cout;
    int err = MPI_Allreduce(&c, &cout, 1, MPI_CHARACTER, MPI_SUM, MPI_COMM_WORLD);
    int cls = -1;
    MPI_Error_class(err, &cls);
    SM_CHECK(cls == MPI_ERR_OP, "SUM on CHARACTER gave class %d", cls);

    /* send / recv around a ring */
    int right = (r + 1) % n, left = (r + n - 1) % n;
    int32_t ints[5], got[5];
    char text[8], gtext[8];
    for (int i = 0; i < 5; i++)
        ints[i] = 100 * r + i;
    snprintf(text, sizeof text, "rank%d", r % 10);
    SM_MPI(MPI_Sendrecv(ints, 5, MPI_INTEGER, right, 1, got, 5, MPI_INTEGER, left, 1,
                        MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    MPI_Status st;
    SM_MPI(MPI_Sendrecv(text, 6, MPI_CHARACTER, right, 2, gtext, 8, MPI_CHARACTER, left, 2,
                        MPI_COMM_WORLD, &st));
    int cnt;
    SM_MPI(MPI_Get_count(&st, MPI_CHARACTER, &cnt));
    for (int i = 0; i < 5; i++)
        SM_CHECK(got[i] == 100 * left + i, "INTEGER ring element %d: %d", i, (int)got[i]);
    SM_CHECK(cnt == 6 && gtext[4] == '0' + left % 10, "CHARACTER ring: count %d", cnt);

    /* parameterized f90 types */
    MPI_Datatype fi, fi2, fr, fc;
    SM_MPI(MPI_Type_create_f90_integer(9, &fi));
    SM_MPI(MPI_Type_create_f90_integer(9, &fi2));
    SM_CHECK(fi == fi2, "f90_integer(9) twice gave two handles");
    int size, ni, na, nt, comb, ints2[2];
    SM_MPI(MPI_Type_size(fi, &size));
    SM_MPI(MPI_Type_get_envelope(fi, &ni, &na, &nt, &comb));
    SM_CHECK(size == 4 && comb == MPI_COMBINER_F90_INTEGER && ni == 1 && na == 0 && nt == 0,
             "f90_integer(9): size %d combiner %d ni %d", size, comb, ni);
    SM_MPI(MPI_Type_get_contents(fi, 1, 0, 0, ints2, NULL, NULL));
    SM_CHECK(ints2[0] == 9, "f90_integer contents %d", ints2[0]);
    SM_MPI(MPI_Type_create_f90_real(15, 300, &fr));
    SM_MPI(MPI_Type_size(fr, &size));
    SM_MPI(MPI_Type_get_envelope(fr, &ni, &na, &nt, &comb));
    SM_MPI(MPI_Type_get_contents(fr, 2, 0, 0, ints2, NULL, NULL));
    SM_CHECK(size == 8 && comb == MPI_COMBINER_F90_REAL && ni == 2 && ints2[0] == 15 &&
                 ints2[1] == 300, "f90_real(15, 300): size %d combiner %d", size, comb);
    SM_MPI(MPI_Type_create_f90_complex(6, MPI_UNDEFINED, &fc));
    SM_MPI(MPI_Type_size(fc, &size));
    SM_MPI(MPI_Type_get_envelope(fc, &ni, &na, &nt, &comb));
    SM_CHECK(size == 8 && comb == MPI_COMBINER_F90_COMPLEX, "f90_complex(6): size %d", size);
    SM_MPI(MPI_Type_create_f90_integer(4, &fi2));
    SM_MPI(MPI_Type_size(fi2, &size));
    SM_CHECK(size == 2, "f90_integer(4) size %d", size);
    err = MPI_Type_create_f90_real(40, 10, &fi2);
    SM_CHECK(err != MPI_SUCCESS, "f90_real(40, 10) should fail");
    MPI_Datatype tmp = fi;
    err = MPI_Type_free(&tmp);
    SM_CHECK(err != MPI_SUCCESS, "freeing a predefined f90 type succeeded");
    double fd = r, fdout;
    SM_MPI(MPI_Allreduce(&fd, &fdout, 1, fr, MPI_SUM, MPI_COMM_WORLD));
    SM_CHECK(fdout == n * (n - 1) / 2, "SUM over f90 real: %g", fdout);
    MPI_Datatype vec;
    SM_MPI(MPI_Type_contiguous(2, fi, &vec));
    SM_MPI(MPI_Type_commit(&vec));
    int32_t v2[2] = {r, 2 * r}, v2out[2];
    SM_MPI(MPI_Allreduce(v2, v2out, 1, vec, MPI_MAX, MPI_COMM_WORLD));
    SM_CHECK(v2out[0] == n - 1 && v2out[1] == 2 * (n - 1), "MAX over contiguous f90 integer");
    SM_MPI(MPI_Type_free(&vec));

    /* match_size: a predefined type of the class and size */
    MPI_Datatype m;
    SM_MPI(MPI_Type_match_size(MPI_TYPECLASS_REAL, 8, &m));
    SM_MPI(MPI_Type_size(m, &size));
    SM_CHECK(m == MPI_DOUBLE && size == 8, "match_size REAL 8");
    SM_MPI(MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 16, &m));
    SM_MPI(MPI_Type_size(m, &size));
    SM_CHECK(m == MPI_INTEGER16 && size == 16, "match_size INTEGER 16");
    SM_MPI(MPI_Type_match_size(MPI_TYPECLASS_COMPLEX, 16, &m));
    SM_MPI(MPI_Type_size(m, &size));
    SM_CHECK(size == 16, "match_size COMPLEX 16");
    err = MPI_Type_match_size(MPI_TYPECLASS_INTEGER, 3, &m);
    SM_CHECK(err != MPI_SUCCESS, "match_size INTEGER 3 should fail");

    MPI_Barrier(MPI_COMM_WORLD);
    if (r == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
