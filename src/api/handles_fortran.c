/* handles_fortran.c — conversion between C handles (pointers) and Fortran handles (MPI_Fint):
 * MPI_<Kind>_c2f / MPI_<Kind>_f2c for every handle kind, and the status conversions between C,
 * Fortran (an array of MPI_F_STATUS_SIZE integers) and mpi_f08 (MPI_F08_status, the same
 * integers as a struct).
 *
 * Each kind has a table from small integers to handles.  The null handle is 0.  The predefined
 * handles are entered first, in a fixed order, so they always get the same numbers (for example
 * MPI_COMM_WORLD 1, MPI_COMM_SELF 2); any other handle gets the next free number the first time
 * it is converted, and keeps it (a map from the handle's address to its number).  f2c of a
 * number never handed out answers the null handle. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

struct htab {
    void **obj; /* number -> handle; obj[0] is the null handle */
    int n, cap;
    struct sm_map rev; /* handle address -> number */
};

enum {
    H_COMM,
    H_GROUP,
    H_TYPE,
    H_REQUEST,
    H_OP,
    H_ERRH,
    H_INFO,
    H_WIN,
    H_FILE,
    H_MESSAGE,
    H_SESSION,
    H_N
};
static struct htab tabs[H_N];
static int tabs_ready;

/* the map's slot is the key's low bits: spread the (aligned) addresses by an odd multiplier,
 * a bijection, so distinct handles keep distinct keys */
static uint64_t key_of(void *h)
{
    return (uint64_t)(uintptr_t)h * 0x9e3779b97f4a7c15ull;
}

static MPI_Fint add(struct htab *t, void *h)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        void **o = sm_xmalloc(sizeof(void *) * (size_t)t->cap);
        if (t->n)
            memcpy(o, t->obj, sizeof(void *) * (size_t)t->n);
        free(t->obj);
        t->obj = o;
    }
    t->obj[t->n] = h;
    if (h && sm_map_put(&t->rev, key_of(h), (void *)(uintptr_t)t->n) < 0)
        sm_die("out of memory converting handles");
    return t->n++;
}

static void init_tabs(void)
{
    if (tabs_ready)
        return;
    tabs_ready = 1;
    for (int k = 0; k < H_N; k++)
        add(&tabs[k], NULL);
    add(&tabs[H_COMM], MPI_COMM_WORLD);
    add(&tabs[H_COMM], MPI_COMM_SELF);
    add(&tabs[H_GROUP], MPI_GROUP_EMPTY);
#define SM_ADD_TYPE(name, id) add(&tabs[H_TYPE], &sctpmpi_dt_##id);
    SCTPMPI_DT_LIST(SM_ADD_TYPE)
    SCTPMPI_DT_LIST_MPI3(SM_ADD_TYPE)
#undef SM_ADD_TYPE
    MPI_Op ops[] = {
        MPI_MAX, MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,   MPI_BAND,    MPI_LOR,
        MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MINLOC, MPI_MAXLOC, MPI_REPLACE, MPI_NO_OP
    };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        add(&tabs[H_OP], ops[i]);
    add(&tabs[H_ERRH], MPI_ERRORS_ARE_FATAL);
    add(&tabs[H_ERRH], MPI_ERRORS_RETURN);
    add(&tabs[H_ERRH], MPI_ERRORS_ABORT);
    add(&tabs[H_INFO], MPI_INFO_ENV);
    add(&tabs[H_MESSAGE], MPI_MESSAGE_NO_PROC);
}

static MPI_Fint c2f(int kind, void *h)
{
    init_tabs();
    if (!h)
        return 0;
    struct htab *t = &tabs[kind];
    void *v = sm_map_get(&t->rev, key_of(h));
    if (v)
        return (MPI_Fint)(uintptr_t)v;
    return add(t, h);
}

static void *f2c(int kind, MPI_Fint f)
{
    init_tabs();
    struct htab *t = &tabs[kind];
    return f > 0 && f < t->n ? t->obj[f] : NULL;
}

#define CONVERT(Kind, CType, K)                                                                  \
                                                                                                 \
    MPI_Fint PMPI_##Kind##_c2f(CType h)                                                          \
    {                                                                                            \
        return c2f(K, (void *)h);                                                                \
    }                                                                                            \
                                                                                                 \
    CType PMPI_##Kind##_f2c(MPI_Fint f)                                                          \
    {                                                                                            \
        return (CType)f2c(K, f);                                                                 \
    }

CONVERT(Comm, MPI_Comm, H_COMM)
CONVERT(Group, MPI_Group, H_GROUP)
CONVERT(Type, MPI_Datatype, H_TYPE)
CONVERT(Request, MPI_Request, H_REQUEST)
CONVERT(Op, MPI_Op, H_OP)
CONVERT(Errhandler, MPI_Errhandler, H_ERRH)
CONVERT(Info, MPI_Info, H_INFO)
CONVERT(Win, MPI_Win, H_WIN)
CONVERT(File, MPI_File, H_FILE)
CONVERT(Message, MPI_Message, H_MESSAGE)
CONVERT(Session, MPI_Session, H_SESSION)

/* A Fortran status is MPI_F_STATUS_SIZE integers: MPI_SOURCE, MPI_TAG, MPI_ERROR (Fortran's
 * indices 1-3), then the private fields (cancelled flag, received byte count). */
_Static_assert(3 * sizeof(int) + sizeof(int) + sizeof(size_t) <=
                   MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_F_STATUS_SIZE too small for MPI_Status");

int PMPI_Status_c2f(const MPI_Status *c, MPI_Fint *f)
{
    if (!c || !f)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_c2f", "NULL or ignored status");
    memset(f, 0, MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
    f[0] = c->MPI_SOURCE;
    f[1] = c->MPI_TAG;
    f[2] = c->MPI_ERROR;
    f[3] = c->sm_cancelled;
    memcpy(&f[4], &c->sm_count, sizeof c->sm_count);
    return MPI_SUCCESS;
}

int PMPI_Status_f2c(const MPI_Fint *f, MPI_Status *c)
{
    if (!c || !f)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_f2c", "NULL or ignored status");
    c->MPI_SOURCE = f[0];
    c->MPI_TAG = f[1];
    c->MPI_ERROR = f[2];
    c->sm_cancelled = f[3];
    memcpy(&c->sm_count, &f[4], sizeof c->sm_count);
    return MPI_SUCCESS;
}

/* mpi_f08's status is the Fortran status's integers under names */
_Static_assert(sizeof(MPI_F08_status) == MPI_F_STATUS_SIZE * sizeof(MPI_Fint),
               "MPI_F08_status must hold exactly a Fortran status");

int PMPI_Status_c2f08(const MPI_Status *c, MPI_F08_status *f08)
{
    if (!f08)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_c2f08", "NULL status");
    MPI_Fint f[MPI_F_STATUS_SIZE];
    SM_TRY(PMPI_Status_c2f(c, f));
    memcpy(f08, f, sizeof f);
    return MPI_SUCCESS;
}

int PMPI_Status_f082c(const MPI_F08_status *f08, MPI_Status *c)
{
    if (!f08)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_f082c", "NULL status");
    MPI_Fint f[MPI_F_STATUS_SIZE];
    memcpy(f, f08, sizeof f);
    return PMPI_Status_f2c(f, c);
}

int PMPI_Status_f082f(const MPI_F08_status *f08, MPI_Fint *f)
{
    if (!f08 || !f)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_f082f", "NULL status");
    memcpy(f, f08, MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
    return MPI_SUCCESS;
}

int PMPI_Status_f2f08(const MPI_Fint *f, MPI_F08_status *f08)
{
    if (!f08 || !f)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Status_f2f08", "NULL status");
    memcpy(f08, f, MPI_F_STATUS_SIZE * sizeof(MPI_Fint));
    return MPI_SUCCESS;
}
