/* objects.c — the predefined MPI objects: communicators WORLD and SELF, error handlers,
 * basic datatypes, the empty group, reduction operations (used by the collectives). */
#include <complex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

#include "api/api.h"

struct sctpmpi_comm sctpmpi_comm_world = {
    .valid = 1, .ctx = 0, .errh = MPI_ERRORS_ARE_FATAL, .name = "MPI_COMM_WORLD"
};
struct sctpmpi_comm sctpmpi_comm_self = {
    .valid = 1, .ctx = 2, .errh = MPI_ERRORS_ARE_FATAL, .name = "MPI_COMM_SELF"
};
struct sctpmpi_comm sctpmpi_comm_null_obj = { .valid = 0 };

struct sctpmpi_errhandler sctpmpi_errors_are_fatal = { SM_EH_FATAL, NULL, 1 };
struct sctpmpi_errhandler sctpmpi_errors_return = { SM_EH_RETURN, NULL, 1 };
struct sctpmpi_errhandler sctpmpi_errors_abort = { SM_EH_ABORT, NULL, 1 };

struct sctpmpi_group sctpmpi_group_empty = { .valid = 1, .size = 0, .refcount = 1 };
int sctpmpi_unweighted[1], sctpmpi_weights_empty[1];
struct sctpmpi_message sctpmpi_message_no_proc = { NULL, 1, NULL };

#define BASIC(id, type)                                                                          \
    struct sctpmpi_datatype sctpmpi_dt_##id = {                                                  \
        .valid = 1, .basic = 1, .size = sizeof(type), .extent = sizeof(type), .name = #id        \
    };
#define PAIR(id, a, b)                                                                           \
    struct sctpmpi_datatype sctpmpi_dt_##id = { .valid = 1,                                      \
                                                .basic = 1,                                      \
                                                .size = sizeof(a) + sizeof(b),                   \
                                                .extent = sizeof(struct {                        \
                                                    a x;                                         \
                                                    b y;                                         \
                                                }),                                              \
                                                .name = #id };
BASIC(char, char)
BASIC(signed_char, signed char)
BASIC(unsigned_char, unsigned char)
BASIC(byte, unsigned char)
BASIC(wchar, wchar_t)
BASIC(short, short)
BASIC(unsigned_short, unsigned short)
BASIC(int, int)
BASIC(unsigned, unsigned)
BASIC(long, long)
BASIC(unsigned_long, unsigned long)
BASIC(long_long_int, long long)
BASIC(unsigned_long_long, unsigned long long)
BASIC(float, float)
BASIC(double, double)
BASIC(long_double, long double)
BASIC(c_bool, bool)
BASIC(int8_t, int8_t)
BASIC(int16_t, int16_t)
BASIC(int32_t, int32_t)
BASIC(int64_t, int64_t)
BASIC(uint8_t, uint8_t)
BASIC(uint16_t, uint16_t)
BASIC(uint32_t, uint32_t)
BASIC(uint64_t, uint64_t)
BASIC(aint, MPI_Aint)
BASIC(offset, MPI_Offset)
BASIC(count, MPI_Count)
/* MPI_C_COMPLEX and MPI_C_FLOAT_COMPLEX are one type; its name is the shorter one */
struct sctpmpi_datatype sctpmpi_dt_c_float_complex = { .valid = 1,
                                                       .basic = 1,
                                                       .size = sizeof(float _Complex),
                                                       .extent = sizeof(float _Complex),
                                                       .name = "c_complex" };
BASIC(c_double_complex, double _Complex)
BASIC(c_long_double_complex, long double _Complex)
BASIC(packed, unsigned char)
PAIR(float_int, float, int)
PAIR(double_int, double, int)
PAIR(long_int, long, int)
PAIR(2int, int, int)
PAIR(short_int, short, int)
PAIR(long_double_int, long double, int)
struct sctpmpi_datatype sctpmpi_dt_ub = { .valid = 1, .basic = 1, .name = "MPI_UB" };
struct sctpmpi_datatype sctpmpi_dt_lb = { .valid = 1, .basic = 1, .name = "MPI_LB" };

/* the reduction functions are in op.c */
#define OP(id)                                                                                   \
    extern sm_op_fn sm_op_##id;                                                                  \
    struct sctpmpi_op sctpmpi_op_##id = {                                                        \
        .valid = 1, .name = "MPI_" #id, .commute = 1, .fn = sm_op_##id                           \
    };
OP(max)
OP(min) OP(sum) OP(prod) OP(land) OP(band) OP(lor) OP(bor) OP(lxor) OP(bxor) OP(minloc) OP(maxloc)
    OP(replace) OP(no_op)
