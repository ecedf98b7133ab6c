/* mpit_pvar.c — MPI_T performance variables: counters and levels the engine already keeps
 * (src/engine/engine_internal.h), bound to no object, as MPI_UNSIGNED_LONG_LONG.  Counters
 * are started and stopped per handle (a handle accumulates the engine's increments while it is
 * started) and may be reset or written; levels and the high-water mark are continuous and
 * read-only.  Sessions and handles are kept in lists so a stale handle is reported, not
 * followed. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/mpit.h"
#include "engine/engine_internal.h"

struct pvar {
    const char *name;
    int var_class;
    int verbosity;
    const char *desc;
};

static const struct pvar pvars[] = {
    { "sctpmpi_eager_sends", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC,
      "messages this process sent with the eager protocol" },
    { "sctpmpi_rndv_sends", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_USER_BASIC,
      "messages this process sent with the rendezvous protocol (larger than "
      "SCTPMPI_EAGER_LIMIT)" },
    { "sctpmpi_early_matched", MPI_T_PVAR_CLASS_COUNTER, MPI_T_VERBOSITY_TUNER_DETAIL,
      "messages matched by a receive naming their tag while an earlier message from the same "
      "sender was still missing (arrived on another stream)" },
    { "sctpmpi_unexpected_count", MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_USER_BASIC,
      "messages now in the unexpected queue (arrived before a matching receive)" },
    { "sctpmpi_unexpected_bytes", MPI_T_PVAR_CLASS_LEVEL, MPI_T_VERBOSITY_TUNER_BASIC,
      "bytes of unexpected data now held (limited by SCTPMPI_UNEXPECTED_MAX)" },
    { "sctpmpi_unexpected_peak", MPI_T_PVAR_CLASS_HIGHWATERMARK, MPI_T_VERBOSITY_TUNER_BASIC,
      "largest number of messages the unexpected queue has held" },
};
#define NPVARS ((int)(sizeof pvars / sizeof *pvars))

static uint64_t current(int index)
{
    switch (index) {
    case 0: return sm_eng.stats_eager;
    case 1: return sm_eng.stats_rndv;
    case 2: return sm_eng.stats_early_matched;
    case 3: return sm_eng.unexpected_count;
    case 4: return sm_eng.unexpected_bytes;
    default: return sm_eng.unexpected_peak;
    }
}

static int is_counter(int index)
{
    return pvars[index].var_class == MPI_T_PVAR_CLASS_COUNTER;
}

struct sctpmpi_t_pvar_handle {
    struct sctpmpi_t_pvar_handle *next;
    int index;
    int started;
    uint64_t acc;  /* counters: increments gathered over earlier start..stop spans */
    uint64_t base; /* counters: the engine's value at the last start (or reset) */
};

struct sctpmpi_t_pvar_session {
    struct sctpmpi_t_pvar_session *next;
    struct sctpmpi_t_pvar_handle *handles;
};

static struct sctpmpi_t_pvar_session *sessions;

int sm_t_pvar_count(void)
{
    return NPVARS;
}

static void session_release(struct sctpmpi_t_pvar_session *s)
{
    while (s->handles) {
        struct sctpmpi_t_pvar_handle *h = s->handles;
        s->handles = h->next;
        free(h);
    }
    free(s);
}

void sm_t_pvar_free_all(void)
{
    while (sessions) {
        struct sctpmpi_t_pvar_session *s = sessions;
        sessions = s->next;
        session_release(s);
    }
}

static int valid_session(MPI_T_pvar_session session)
{
    for (struct sctpmpi_t_pvar_session *s = sessions; s; s = s->next)
        if (s == session)
            return 1;
    return 0;
}

static int valid_handle(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    for (struct sctpmpi_t_pvar_handle *h = session->handles; h; h = h->next)
        if (h == handle)
            return 1;
    return 0;
}

/* the common checks of the calls that take (session, handle); ALL_HANDLES allowed or not */
static int check(MPI_T_pvar_session session, MPI_T_pvar_handle handle, int all_ok)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_session(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (handle == MPI_T_PVAR_ALL_HANDLES)
        return all_ok ? MPI_SUCCESS : MPI_T_ERR_INVALID_HANDLE;
    if (!valid_handle(session, handle))
        return MPI_T_ERR_INVALID_HANDLE;
    return MPI_SUCCESS;
}

static uint64_t value_of(const struct sctpmpi_t_pvar_handle *h)
{
    if (!is_counter(h->index))
        return current(h->index);
    uint64_t v = h->acc;
    if (h->started) {
        uint64_t c = current(h->index);
        if (c > h->base) /* the engine's counters restart at MPI_Init */
            v += c - h->base;
    }
    return v;
}

int PMPI_T_pvar_get_num(int *num_pvar)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!num_pvar)
        return MPI_ERR_ARG;
    *num_pvar = NPVARS;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_get_info(int pvar_index, char *name, int *name_len, int *verbosity,
                         int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc,
                         int *desc_len, int *bind, int *readonly, int *continuous, int *atomic)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    const struct pvar *p = &pvars[pvar_index];
    sm_t_strcpy(name, name_len, p->name);
    sm_t_strcpy(desc, desc_len, p->desc);
    if (verbosity)
        *verbosity = p->verbosity;
    if (var_class)
        *var_class = p->var_class;
    if (datatype)
        *datatype = MPI_UNSIGNED_LONG_LONG;
    if (enumtype)
        *enumtype = MPI_T_ENUM_NULL;
    if (bind)
        *bind = MPI_T_BIND_NO_OBJECT;
    if (readonly)
        *readonly = !is_counter(pvar_index);
    if (continuous)
        *continuous = !is_counter(pvar_index);
    if (atomic)
        *atomic = 1; /* every call holds the library's lock */
    return MPI_SUCCESS;
}

int PMPI_T_pvar_get_index(const char *name, int var_class, int *pvar_index)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!name || !pvar_index)
        return MPI_ERR_ARG;
    for (int i = 0; i < NPVARS; i++) {
        if (pvars[i].var_class == var_class && strcmp(pvars[i].name, name) == 0) {
            *pvar_index = i;
            return MPI_SUCCESS;
        }
    }
    return MPI_T_ERR_INVALID_NAME;
}

int PMPI_T_pvar_session_create(MPI_T_pvar_session *session)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!session)
        return MPI_ERR_ARG;
    struct sctpmpi_t_pvar_session *s = calloc(1, sizeof *s);
    if (!s)
        return MPI_T_ERR_MEMORY;
    s->next = sessions;
    sessions = s;
    *session = s;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_session_free(MPI_T_pvar_session *session)
{
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!session || !valid_session(*session))
        return MPI_T_ERR_INVALID_SESSION;
    for (struct sctpmpi_t_pvar_session **p = &sessions; *p; p = &(*p)->next) {
        if (*p == *session) {
            *p = (*session)->next;
            break;
        }
    }
    session_release(*session);
    *session = MPI_T_PVAR_SESSION_NULL;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_alloc(MPI_T_pvar_session session, int pvar_index, void *obj_handle,
                             MPI_T_pvar_handle *handle, int *count)
{
    (void)obj_handle; /* bound to no object */
    if (!sm_t_initialized())
        return MPI_T_ERR_NOT_INITIALIZED;
    if (!valid_session(session))
        return MPI_T_ERR_INVALID_SESSION;
    if (pvar_index < 0 || pvar_index >= NPVARS)
        return MPI_T_ERR_INVALID_INDEX;
    if (!handle || !count)
        return MPI_ERR_ARG;
    struct sctpmpi_t_pvar_handle *h = calloc(1, sizeof *h);
    if (!h)
        return MPI_T_ERR_MEMORY;
    h->index = pvar_index;
    h->started = !is_counter(pvar_index); /* continuous variables are always started */
    h->next = session->handles;
    session->handles = h;
    *handle = h;
    *count = 1;
    return MPI_SUCCESS;
}

int PMPI_T_pvar_handle_free(MPI_T_pvar_session session, MPI_T_pvar_handle *handle)
{
    int rc = check(session, handle ? *handle : MPI_T_PVAR_HANDLE_NULL, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    for (struct sctpmpi_t_pvar_handle **p = &session->handles; *p; p = &(*p)->next) {
        if (*p == *handle) {
            *p = (*handle)->next;
            break;
        }
    }
    free(*handle);
    *handle = MPI_T_PVAR_HANDLE_NULL;
    return MPI_SUCCESS;
}

static void start_one(struct sctpmpi_t_pvar_handle *h)
{
    if (!h->started) {
        h->base = current(h->index);
        h->started = 1;
    }
}

static void stop_one(struct sctpmpi_t_pvar_handle *h)
{
    if (h->started) {
        h->acc = value_of(h);
        h->started = 0;
    }
}

int PMPI_T_pvar_start(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = check(session, handle, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct sctpmpi_t_pvar_handle *h = session->handles; h; h = h->next)
            if (is_counter(h->index))
                start_one(h);
        return MPI_SUCCESS;
    }
    if (!is_counter(handle->index))
        return MPI_T_ERR_PVAR_NO_STARTSTOP;
    start_one(handle);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_stop(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = check(session, handle, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct sctpmpi_t_pvar_handle *h = session->handles; h; h = h->next)
            if (is_counter(h->index))
                stop_one(h);
        return MPI_SUCCESS;
    }
    if (!is_counter(handle->index))
        return MPI_T_ERR_PVAR_NO_STARTSTOP;
    stop_one(handle);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_read(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = check(session, handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!buf)
        return MPI_ERR_ARG;
    unsigned long long v = value_of(handle);
    memcpy(buf, &v, sizeof v);
    return MPI_SUCCESS;
}

static void set_one(struct sctpmpi_t_pvar_handle *h, uint64_t v)
{
    h->acc = v;
    h->base = current(h->index);
}

int PMPI_T_pvar_write(MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf)
{
    int rc = check(session, handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!is_counter(handle->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    if (!buf)
        return MPI_ERR_ARG;
    unsigned long long v;
    memcpy(&v, buf, sizeof v);
    set_one(handle, v);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_reset(MPI_T_pvar_session session, MPI_T_pvar_handle handle)
{
    int rc = check(session, handle, 1);
    if (rc != MPI_SUCCESS)
        return rc;
    if (handle == MPI_T_PVAR_ALL_HANDLES) {
        for (struct sctpmpi_t_pvar_handle *h = session->handles; h; h = h->next)
            if (is_counter(h->index))
                set_one(h, 0);
        return MPI_SUCCESS;
    }
    if (!is_counter(handle->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    set_one(handle, 0);
    return MPI_SUCCESS;
}

int PMPI_T_pvar_readreset(MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf)
{
    int rc = check(session, handle, 0);
    if (rc != MPI_SUCCESS)
        return rc;
    if (!is_counter(handle->index))
        return MPI_T_ERR_PVAR_NO_WRITE;
    if (!buf)
        return MPI_ERR_ARG;
    unsigned long long v = value_of(handle);
    memcpy(buf, &v, sizeof v);
    set_one(handle, 0);
    return MPI_SUCCESS;
}
