/* misc.c — the smaller calls programs link against: Alloc_mem/Free_mem, user error classes,
 * codes and strings (added and removed), MPI-1 error handler names, Pcontrol,
 * Status_set_elements/cancelled, Get_address, Aint_add/diff, Get_hw_resource_info,
 * Type_get_value_index. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api.h"

int PMPI_Alloc_mem(MPI_Aint size, MPI_Info info, void *baseptr)
{
    (void)info;
    SM_TRY(sm_check_init("MPI_Alloc_mem"));
    if (size < 0 || !baseptr)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Alloc_mem", "bad size or pointer");
    void *p = malloc(size ? (size_t)size : 1);
    if (!p)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, "MPI_Alloc_mem", "%zd bytes", size);
    *(void **)baseptr = p;
    return MPI_SUCCESS;
}

int PMPI_Free_mem(void *base)
{
    SM_TRY(sm_check_init("MPI_Free_mem"));
    free(base);
    return MPI_SUCCESS;
}

/* ---- user error classes and codes: numbered after MPI_ERR_LASTCODE --------------------- */
struct uerr {
    int klass;
    char *text;
    int removed;
    int live_codes; /* a class: its codes not yet removed (removing a class needs none) */
};
static struct uerr *uerrs;
static int nuerr;

static int add(int klass)
{
    static int cap;
    if (nuerr == cap) {
        cap = cap ? 2 * cap : 64;
        uerrs = realloc(uerrs, sizeof *uerrs * (size_t)cap);
        if (!uerrs)
            sm_die("out of memory");
    }
    uerrs[nuerr].klass = klass;
    uerrs[nuerr].text = NULL;
    uerrs[nuerr].removed = 0;
    uerrs[nuerr].live_codes = 0;
    return MPI_ERR_LASTCODE + 1 + nuerr++;
}

static struct uerr *find(int code)
{
    int i = code - MPI_ERR_LASTCODE - 1;
    return i >= 0 && i < nuerr && !uerrs[i].removed ? &uerrs[i] : NULL;
}

/* errors.c asks here for codes it does not know */
const char *sm_user_error_string(int code, int *klass)
{
    struct uerr *u = find(code);
    if (!u)
        return NULL;
    if (klass)
        *klass = u->klass < 0 ? code : u->klass;
    return u->text ? u->text : "";
}

int sm_last_used_code(void)
{
    return MPI_ERR_LASTCODE + nuerr;
}

int PMPI_Add_error_class(int *errorclass)
{
    SM_TRY(sm_check_init("MPI_Add_error_class"));
    *errorclass = add(-1);
    return MPI_SUCCESS;
}

int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    SM_TRY(sm_check_init("MPI_Add_error_code"));
    struct uerr *u = find(errorclass);
    if (!(errorclass >= 0 && errorclass <= MPI_ERR_PROC_FAILED) && !(u && u->klass < 0))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_code",
                        "%d is not an error class", errorclass);
    *errorcode = add(errorclass);
    if (u)
        find(errorclass)->live_codes++; /* add() may have moved the table */
    return MPI_SUCCESS;
}

int PMPI_Add_error_string(int errorcode, const char *string)
{
    SM_TRY(sm_check_init("MPI_Add_error_string"));
    struct uerr *u = find(errorcode);
    if (!u || !string)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Add_error_string",
                        "%d is not a user error code", errorcode);
    free(u->text);
    size_t n = strlen(string);
    if (n >= MPI_MAX_ERROR_STRING)
        n = MPI_MAX_ERROR_STRING - 1;
    u->text = sm_xmalloc(n + 1);
    memcpy(u->text, string, n);
    u->text[n] = 0;
    return MPI_SUCCESS;
}

/* MPI-4.1: a removed class or code is gone for good (its number is not given out again) */
int PMPI_Remove_error_class(int errorclass)
{
    const char *fn = "MPI_Remove_error_class";
    SM_TRY(sm_check_init(fn));
    struct uerr *u = find(errorclass);
    if (!u || u->klass >= 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "%d is not a user error class",
                        errorclass);
    if (u->live_codes)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "error class %d still has error codes",
                        errorclass);
    free(u->text);
    u->text = NULL;
    u->removed = 1;
    return MPI_SUCCESS;
}

int PMPI_Remove_error_code(int errorcode)
{
    const char *fn = "MPI_Remove_error_code";
    SM_TRY(sm_check_init(fn));
    struct uerr *u = find(errorcode);
    if (!u || u->klass < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "%d is not a user error code",
                        errorcode);
    struct uerr *k = find(u->klass);
    if (k)
        k->live_codes--;
    free(u->text);
    u->text = NULL;
    u->removed = 1;
    return MPI_SUCCESS;
}

int PMPI_Remove_error_string(int errorcode)
{
    const char *fn = "MPI_Remove_error_string";
    SM_TRY(sm_check_init(fn));
    struct uerr *u = find(errorcode);
    if (!u || !u->text)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                        "%d is not a user error class or code with a string", errorcode);
    free(u->text);
    u->text = NULL;
    return MPI_SUCCESS;
}

/* ---- MPI-4.1: the hardware this process runs on, as an info object -------------------- */
int PMPI_Get_hw_resource_info(MPI_Info *hw_info)
{
    const char *fn = "MPI_Get_hw_resource_info";
    SM_TRY(sm_check_init(fn));
    if (!hw_info)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    SM_TRY(PMPI_Info_create(hw_info));
    char v[64];
    snprintf(v, sizeof v, "%ld", sysconf(_SC_NPROCESSORS_ONLN));
    SM_TRY(PMPI_Info_set(*hw_info, "sctpmpi_cpus_online", v));
    snprintf(v, sizeof v, "%lld",
             (long long)sysconf(_SC_PHYS_PAGES) * (long long)sysconf(_SC_PAGESIZE));
    SM_TRY(PMPI_Info_set(*hw_info, "sctpmpi_memory_bytes", v));
    if (gethostname(v, sizeof v) == 0) {
        v[sizeof v - 1] = 0;
        SM_TRY(PMPI_Info_set(*hw_info, "sctpmpi_host", v));
    }
    return MPI_SUCCESS;
}

/* ---- MPI-4.1: the predefined (value, index) pair type for MINLOC / MAXLOC --------------- */
int PMPI_Type_get_value_index(MPI_Datatype value_type, MPI_Datatype index_type,
                              MPI_Datatype *pair_type)
{
    const char *fn = "MPI_Type_get_value_index";
    SM_TRY(sm_check_init(fn));
    if (!pair_type)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    static const struct {
        MPI_Datatype value, index, pair;
    } pairs[] = {
        { MPI_FLOAT, MPI_INT, MPI_FLOAT_INT },
        { MPI_DOUBLE, MPI_INT, MPI_DOUBLE_INT },
        { MPI_LONG, MPI_INT, MPI_LONG_INT },
        { MPI_INT, MPI_INT, MPI_2INT },
        { MPI_SHORT, MPI_INT, MPI_SHORT_INT },
        { MPI_LONG_DOUBLE, MPI_INT, MPI_LONG_DOUBLE_INT },
#ifdef MPI_2INTEGER
        { MPI_INTEGER, MPI_INTEGER, MPI_2INTEGER },
        { MPI_REAL, MPI_REAL, MPI_2REAL },
        { MPI_DOUBLE_PRECISION, MPI_DOUBLE_PRECISION, MPI_2DOUBLE_PRECISION },
#endif
    };
    *pair_type = MPI_DATATYPE_NULL;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
        if (pairs[i].value == value_type && pairs[i].index == index_type)
            *pair_type = pairs[i].pair;
    return MPI_SUCCESS;
}

/* ---- MPI-1 error handler names ---------------------------------------------------------- */
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(function, errhandler);
}
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}

int PMPI_Pcontrol(const int level, ...)
{
    (void)level; /* no profiling library attached: nothing to control */
    return MPI_SUCCESS;
}

/* ---- statuses ----------------------------------------------------------------------------- */
int PMPI_Status_set_elements_x(MPI_Status *status, MPI_Datatype dt, MPI_Count count)
{
    SM_TRY(sm_check_init("MPI_Status_set_elements"));
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, dt, "MPI_Status_set_elements"));
    if (!status || count < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_set_elements", "bad argument");
    /* whole elements of dt, then the basic elements of a partial one */
    size_t bytes = sm_dt_elements_bytes(dt, count);
    status->sm_count = bytes;
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements(MPI_Status *status, MPI_Datatype dt, int count)
{
    return PMPI_Status_set_elements_x(status, dt, count);
}

int PMPI_Status_set_cancelled(MPI_Status *status, int flag)
{
    if (!status)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_set_cancelled", "NULL status");
    status->sm_cancelled = flag != 0;
    return MPI_SUCCESS;
}

/* ---- addresses ---------------------------------------------------------------------------- */
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_address", "NULL address");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

int PMPI_Address(void *location, MPI_Aint *address)
{
    return MPI_Get_address(location, address);
}

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

MPI_Aint PMPI_Aint_diff(MPI_Aint a, MPI_Aint b)
{
    return (MPI_Aint)((uintptr_t)a - (uintptr_t)b);
}
