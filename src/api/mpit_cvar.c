/* mpit_cvar.c — MPI_T control variables: one read-only variable per SCTPMPI_* tunable.  The
 * table is generated at build time from docs/tunables.md (tools/sctpmpi_info/gen_tunables.cmake,
 * the same list sctpmpi_info prints).  A variable's value is a string (MPI_CHAR): the
 * environment variable when it is set, the documented default otherwise.  Tunables are read
 * from the environment at start-up, so writing one is never possible (MPI_T_SCOPE_READONLY). */
#include <stdlib.h>
#include <string.h>

#include "api/mpit.h"

struct sm_tunable {
    const char *name;
    const char *section;
    const char *dflt;
    const char *short_meaning;
    const char *meaning;
};

#include "tunables_gen.h"

/* characters (NUL included) of every control variable's buffer */
#define SM_T_CVAR_LEN 256

struct sctpmpi_t_cvar_handle {
    struct sctpmpi_t_cvar_handle *next;
    int index;
};

static struct sctpmpi_t_cvar_handle *cvar_handles;

/* a tunable documented in more than one table is one variable (its first row): the variables
 * are the rows whose name no earlier row has */
static int rows[SM_NTUNABLES];
static int nrows = -1;

static void build(void)
{
    if (nrows >= 0)
        return;
    nrows = 0;
    for (int i = 0; i < SM_NTUNABLES; i++) {
        int k = 0;
        while (k < nrows && strcmp(sm_tunables[rows[k]].name, sm_tunables[i].name) != 0)
            k++;
        if (k == nrows)
            rows[nrows++] = i;
    }
}

static const struct sm_tunable *tunable(int index)
{
    build();
    return &sm_tunables[rows[index]];
}

int sm_t_cvar_count(void)
{
    build();
    return nrows;
}

const char *sm_t_cvar_section(int index)
{
    return tunable(index)->section;
}

void sm_t_cvar_free_all(void)
{
    while (cvar_handles) {
        struct sctpmpi_t_cvar_handle *h = cvar_handles;
        cvar_handles = h->next;
        free(h);
    }
}

static int valid_handle(MPI_T_cvar_handle handle)
{
    for (struct sctpmpi_t_cvar_handle *h = cvar_handles; h; h = h->next)
        if (h == handle)
            return 1;
    return 0;
}

int PMPI_T_cvar_get_num(int *num_cvar)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!num_cvar)
        return MPI_ERR_ARG;
    *num_cvar = sm_t_cvar_count();
    return MPI_SUCCESS;
}

int PMPI_T_cvar_get_info(int cvar_index, char *name, int *name_len, int *verbosity,
                         MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len,
                         int *bind, int *scope)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (cvar_index < 0 || cvar_index >= sm_t_cvar_count())
        return MPI_T_ERR_INVALID_INDEX;
    const struct sm_tunable *t = tunable(cvar_index);
    sm_t_strcpy(name, name_len, t->name);
    sm_t_strcpy(desc, desc_len, t->meaning);
    if (verbosity)
        *verbosity = strcmp(t->section, tunable(0)->section) == 0 ? MPI_T_VERBOSITY_USER_BASIC
                                                                  : MPI_T_VERBOSITY_TUNER_DETAIL;
    if (datatype)
        *datatype = MPI_CHAR;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (scope)
        *scope = MPI_T_SCOPE_READONLY;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_get_index(const char *name, int *cvar_index)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!name || !cvar_index)
        return MPI_ERR_ARG;
    for (int i = 0; i < sm_t_cvar_count(); i++) {
        if (strcmp(tunable(i)->name, name) == 0) {
            *cvar_index = i;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_cvar_handle_alloc(int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle,
                             int *count)
{
    (void)obj_handle; /* bound to no object */
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (cvar_index < 0 || cvar_index >= sm_t_cvar_count())
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_ERR_ARG;
    struct sctpmpi_t_cvar_handle *h = calloc(1, sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->index = cvar_index;
    h->next = cvar_handles;
    cvar_handles = h;
    *handle = h;
    *count = SM_T_CVAR_LEN;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_handle_free(MPI_T_cvar_handle *handle)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!handle || !valid_handle(*handle))
        return MPI_T_ERR_INVALID_HANDLE;
    for (struct sctpmpi_t_cvar_handle **p = &cvar_handles; *p; p = &(*p)->next) {
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    }
    free(*handle);
    *handle = MPI_T_CVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

int PMPI_T_cvar_read(MPI_T_cvar_handle handle, void *buf)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_handle(handle))
        return MPI_T_ERR_INVALID_HANDLE;
    if (!buf)
        return MPI_ERR_ARG;
    const struct sm_tunable *t = tunable(handle->index);
    const char *v = getenv(t->name);
    int len = SM_T_CVAR_LEN;
    sm_t_strcpy(buf, &len, v ? v : t->dflt);
    return MPI_SUCCESS;
}

int PMPI_T_cvar_write(MPI_T_cvar_handle handle, const void *buf)
{
    (void)buf;
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_handle(handle))
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_T_ERR_CVAR_SET_NEVER;
}
