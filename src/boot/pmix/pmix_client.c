/* pmix_client.c — the PMIx client (sm_pmix_ops, pmi_backend.h), built only when libpmix is
 * found: how a rank started by Open MPI's mpirun or by `srun --mpi=pmix` learns its rank, the
 * job's size and its neighbours on this host, and exchanges business cards.
 *
 * put is PMIx_Put(PMIX_GLOBAL) of a string; barrier is PMIx_Commit then PMIx_Fence over the
 * whole namespace with PMIX_COLLECT_DATA, so that after it every card is in each rank's local
 * store; get is PMIx_Get from the rank that put the key with PMIX_OPTIONAL (look locally, never
 * wait for a key that nobody put).  abort is PMIx_Abort (the server ends the job). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pmix.h>

#include "boot/pmi_backend.h"

static struct {
    int up;
    pmix_proc_t me;
    int size;
} px;

/* an integer-typed value of any width as a long; -1 if it is not an integer */
static long value_number(const pmix_value_t *v)
{
    switch (v->type) {
    case PMIX_UINT8: return v->data.uint8;
    case PMIX_UINT16: return v->data.uint16;
    case PMIX_UINT32: return v->data.uint32;
    case PMIX_UINT64: return (long)v->data.uint64;
    case PMIX_INT: return v->data.integer;
    case PMIX_INT16: return v->data.int16;
    case PMIX_INT32: return v->data.int32;
    case PMIX_INT64: return (long)v->data.int64;
    case PMIX_UINT: return (long)v->data.uint;
    case PMIX_SIZE: return (long)v->data.size;
    default: return -1;
    }
}

/* a job-level (rank = wildcard) or own integer attribute; -1 if the server does not have it */
static long get_number(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, px.me.nspace, rank);
    pmix_value_t *v = NULL;
    if (PMIx_Get(&p, key, NULL, 0, &v) != PMIX_SUCCESS || !v)
        return -1;
    long n = value_number(v);
    PMIX_VALUE_RELEASE(v);
    return n;
}

static int pmix_init(int *rank, int *size)
{
    if (!px.up) {
        pmix_status_t rc = PMIx_Init(&px.me, NULL, 0);
        if (rc != PMIX_SUCCESS) {
            sm_pmi_error("PMIx_Init failed: %s (is the launcher's PMIx server reachable? "
                         "PMIX_SERVER_URI*)",
                         PMIx_Error_string(rc));
            return -1;
        }
        long n = get_number(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
        if (n <= 0 || n > 1 << 30 || px.me.rank >= (pmix_rank_t)n) {
            sm_pmi_error("PMIx: launcher gave rank %u of job size %ld", px.me.rank, n);
            PMIx_Finalize(NULL, 0);
            return -1;
        }
        px.size = (int)n;
        px.up = 1;
    }
    *rank = (int)px.me.rank;
    *size = px.size;
    return 0;
}

static int check_up(const char *what)
{
    if (!px.up) {
        sm_pmi_error("PMIx: %s before init", what);
        return -1;
    }
    return 0;
}

static int pmix_local(int *local_size, int *local_rank)
{
    *local_size = *local_rank = -1;
    if (check_up("local ranks") < 0)
        return -1;
    long ls = get_number(PMIX_RANK_WILDCARD, PMIX_LOCAL_SIZE);
    long lr = get_number(px.me.rank, PMIX_LOCAL_RANK);
    if (ls > 0 && ls <= px.size && lr >= 0 && lr < ls) {
        *local_size = (int)ls;
        *local_rank = (int)lr;
    }
    return 0;
}

static int pmix_put(const char *key, const char *value)
{
    if (check_up("put") < 0)
        return -1;
    if (!*key || strlen(key) >= PMIX_MAX_KEYLEN) {
        sm_pmi_error("PMIx: key \"%.40s\" is empty or longer than %d bytes", key,
                     PMIX_MAX_KEYLEN - 1);
        return -1;
    }
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    pmix_status_t rc = PMIx_Value_load(&v, value, PMIX_STRING);
    if (rc == PMIX_SUCCESS)
        rc = PMIx_Put(PMIX_GLOBAL, key, &v);
    PMIX_VALUE_DESTRUCT(&v);
    if (rc != PMIX_SUCCESS) {
        sm_pmi_error("PMIx_Put of %s failed: %s", key, PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

static int pmix_get(int src, const char *key, char *value, size_t len)
{
    if (check_up("get") < 0)
        return -1;
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, px.me.nspace, src >= 0 ? (pmix_rank_t)src : PMIX_RANK_UNDEF);
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, PMIX_OPTIONAL, &yes, PMIX_BOOL);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&p, key, &info, 1, &v);
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS || !v) {
        if (v)
            PMIX_VALUE_RELEASE(v);
        return -1; /* absent: quietly -1 */
    }
    int ret = -1;
    if (v->type != PMIX_STRING || !v->data.string)
        sm_pmi_error("PMIx: value of key %s is not a string", key);
    else if (strlen(v->data.string) >= len)
        sm_pmi_error("PMIx: value of key %s does not fit the caller's %zu-byte buffer", key, len);
    else {
        strcpy(value, v->data.string);
        ret = 0;
    }
    PMIX_VALUE_RELEASE(v);
    return ret;
}

static int pmix_barrier(void)
{
    if (check_up("fence") < 0)
        return -1;
    pmix_status_t rc = PMIx_Commit();
    if (rc != PMIX_SUCCESS) {
        sm_pmi_error("PMIx_Commit failed: %s", PMIx_Error_string(rc));
        return -1;
    }
    pmix_info_t info;
    bool yes = true;
    PMIX_INFO_CONSTRUCT(&info);
    PMIx_Info_load(&info, PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    rc = PMIx_Fence(NULL, 0, &info, 1); /* NULL: every process of our namespace */
    PMIX_INFO_DESTRUCT(&info);
    if (rc != PMIX_SUCCESS) {
        sm_pmi_error("PMIx_Fence failed: %s", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

static int pmix_abort(int code, const char *msg)
{
    if (msg && *msg)
        fprintf(stderr, "sctpmpi: rank %u aborting (code %d): %s\n", px.me.rank, code, msg);
    if (!px.up)
        return 0;
    /* NULL procs: the whole job; the server kills us, or we return and the caller exits */
    pmix_status_t rc = PMIx_Abort(code, msg && *msg ? msg : "aborted", NULL, 0);
    return rc == PMIX_SUCCESS ? 0 : -1;
}

static int pmix_finalize(void)
{
    if (!px.up)
        return 0;
    px.up = 0;
    pmix_status_t rc = PMIx_Finalize(NULL, 0);
    if (rc != PMIX_SUCCESS) {
        sm_pmi_error("PMIx_Finalize failed: %s", PMIx_Error_string(rc));
        return -1;
    }
    return 0;
}

const struct sm_pmi_ops sm_pmix_ops = {
    .name = "pmix",
    .init = pmix_init,
    .local = pmix_local,
    .put = pmix_put,
    .get = pmix_get,
    .barrier = pmix_barrier,
    .abort = pmix_abort,
    .finalize = pmix_finalize,
};
