/* dt_fortran.c — the Fortran named datatypes and the C++ ones, usable from C (sizes of
 * gfortran's defaults: INTEGER, REAL and LOGICAL 4 bytes, DOUBLE PRECISION 8, CHARACTER 1),
 * and the parameterized Fortran 90 types of MPI_Type_create_f90_integer/real/complex.
 *
 * A parameterized type is a predefined type (it cannot be freed) that get_envelope reports with
 * combiner MPI_COMBINER_F90_* and its (p, r) arguments; its one-entry signature names the sized
 * named type of the same size, so reductions treat it like that type.  One object exists per
 * distinct (combiner, p, r), so asking twice returns the same handle. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "api/api.h"

#define NAMED(id, sz)                                                                            \
    struct sctpmpi_datatype sctpmpi_dt_##id = {                                                  \
        .valid = 1, .basic = 1, .size = (sz), .extent = (MPI_Aint)(sz), .name = #id              \
    };
NAMED(integer, sizeof(int32_t))
NAMED(real, sizeof(float))
NAMED(double_precision, sizeof(double))
NAMED(complex, sizeof(float _Complex))
NAMED(double_complex, sizeof(double _Complex))
NAMED(logical, sizeof(int32_t))
NAMED(character, 1)
NAMED(2integer, 2 * sizeof(int32_t))
NAMED(2real, 2 * sizeof(float))
NAMED(2double_precision, 2 * sizeof(double))
NAMED(integer1, 1)
NAMED(integer2, 2)
NAMED(integer4, 4)
NAMED(integer8, 8)
NAMED(integer16, 16)
NAMED(real4, 4)
NAMED(real8, 8)
NAMED(real16, 16)
NAMED(complex8, 8)
NAMED(complex16, 16)
NAMED(complex32, 32)
NAMED(cxx_bool, sizeof(bool))
NAMED(cxx_float_complex, sizeof(float _Complex))
NAMED(cxx_double_complex, sizeof(double _Complex))
NAMED(cxx_long_double_complex, sizeof(long double _Complex))

/* ---- MPI_Type_create_f90_* ---- */
struct f90_type {
    struct sctpmpi_datatype dt;
    struct sm_dt_sig sig;
    int args[2];
    struct f90_type *next;
};
static struct f90_type *f90_types; /* lives until the process ends, like the named types */

static int f90_get(int combiner, int p, int r, MPI_Datatype named, MPI_Datatype *out)
{
    for (struct f90_type *t = f90_types; t; t = t->next)
        if (t->dt.combiner == combiner &&
            t->args[0] == (combiner == MPI_COMBINER_F90_INTEGER ? r : p) &&
            (combiner == MPI_COMBINER_F90_INTEGER || t->args[1] == r)) {
            *out = &t->dt;
            return MPI_SUCCESS;
        }
    struct f90_type *t = sm_xcalloc(1, sizeof *t);
    t->dt = *named;
    t->dt.combiner = combiner;
    if (combiner == MPI_COMBINER_F90_INTEGER) {
        t->dt.ni = 1;
        t->args[0] = r;
    } else {
        t->dt.ni = 2;
        t->args[0] = p;
        t->args[1] = r;
    }
    t->dt.ints = t->args;
    t->sig.type = named;
    t->sig.count = 1;
    t->dt.sig = &t->sig;
    t->dt.nsig = 1;
    t->next = f90_types;
    f90_types = t;
    *out = &t->dt;
    return MPI_SUCCESS;
}

/* decimal digits and exponent ranges of the IEEE kinds (what gfortran's SELECTED_*_KIND
 * answers): binary32 6 / 37, binary64 15 / 307, binary128 33 / 4931 */
static MPI_Datatype real_kind(int p, int r)
{
    if (p <= 6 && r <= 37)
        return MPI_REAL4;
    if (p <= 15 && r <= 307)
        return MPI_REAL8;
    if (p <= 33 && r <= 4931)
        return MPI_REAL16;
    return MPI_DATATYPE_NULL;
}

int PMPI_Type_create_f90_integer(int r, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_f90_integer";
    SM_TRY(sm_check_init(fn));
    if (!newtype)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    /* the smallest integer holding every value of -10^r < n < 10^r */
    MPI_Datatype named = r == MPI_UNDEFINED ? MPI_INTEGER
                         : r < 0            ? MPI_DATATYPE_NULL
                         : r <= 2           ? MPI_INTEGER1
                         : r <= 4           ? MPI_INTEGER2
                         : r <= 9           ? MPI_INTEGER4
                         : r <= 18          ? MPI_INTEGER8
                         : r <= 38          ? MPI_INTEGER16
                                            : MPI_DATATYPE_NULL;
    if (!named)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "no integer kind has range %d", r);
    return f90_get(MPI_COMBINER_F90_INTEGER, 0, r, named, newtype);
}

static int f90_real(int p, int r, int is_complex, MPI_Datatype *newtype, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!newtype)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    if (p == MPI_UNDEFINED && r == MPI_UNDEFINED)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "p and r cannot both be MPI_UNDEFINED");
    MPI_Datatype named = real_kind(p == MPI_UNDEFINED ? 0 : p, r == MPI_UNDEFINED ? 0 : r);
    if (!named)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                        "no real kind has precision %d and range %d", p, r);
    if (is_complex)
        named = named == MPI_REAL4   ? MPI_COMPLEX8
                : named == MPI_REAL8 ? MPI_COMPLEX16
                                     : MPI_COMPLEX32;
    return f90_get(is_complex ? MPI_COMBINER_F90_COMPLEX : MPI_COMBINER_F90_REAL, p, r, named,
                   newtype);
}

int PMPI_Type_create_f90_real(int p, int r, MPI_Datatype *newtype)
{
    return f90_real(p, r, 0, newtype, "MPI_Type_create_f90_real");
}

int PMPI_Type_create_f90_complex(int p, int r, MPI_Datatype *newtype)
{
    return f90_real(p, r, 1, newtype, "MPI_Type_create_f90_complex");
}
