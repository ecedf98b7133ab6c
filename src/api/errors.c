/* errors.c — error classes and strings, error handlers, and the argument checks every MPI
 * function runs before touching the engine. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

static const char *const class_text[] = {
    [MPI_SUCCESS] = "success",
    [MPI_ERR_BUFFER] = "invalid buffer pointer",
    [MPI_ERR_COUNT] = "invalid count argument",
    [MPI_ERR_TYPE] = "invalid datatype",
    [MPI_ERR_TAG] = "invalid tag",
    [MPI_ERR_COMM] = "invalid communicator",
    [MPI_ERR_RANK] = "invalid rank",
    [MPI_ERR_REQUEST] = "invalid request",
    [MPI_ERR_ROOT] = "invalid root",
    [MPI_ERR_GROUP] = "invalid group",
    [MPI_ERR_OP] = "invalid reduction operation",
    [MPI_ERR_TOPOLOGY] = "invalid topology",
    [MPI_ERR_DIMS] = "invalid dimensions",
    [MPI_ERR_ARG] = "invalid argument",
    [MPI_ERR_UNKNOWN] = "unknown error",
    [MPI_ERR_TRUNCATE] = "message truncated: receive buffer too small",
    [MPI_ERR_OTHER] = "other error",
    [MPI_ERR_INTERN] = "internal error",
    [MPI_ERR_IN_STATUS] = "error code is in status",
    [MPI_ERR_PENDING] = "pending request",
    [MPI_ERR_KEYVAL] = "invalid keyval",
    [MPI_ERR_NO_MEM] = "out of memory",
    [MPI_ERR_BASE] = "invalid base",
    [MPI_ERR_INFO_KEY] = "invalid info key",
    [MPI_ERR_INFO_VALUE] = "invalid info value",
    [MPI_ERR_INFO_NOKEY] = "info key not defined",
    [MPI_ERR_SPAWN] = "spawn error",
    [MPI_ERR_PORT] = "invalid port",
    [MPI_ERR_SERVICE] = "invalid service",
    [MPI_ERR_NAME] = "invalid name",
    [MPI_ERR_WIN] = "invalid window",
    [MPI_ERR_SIZE] = "invalid size",
    [MPI_ERR_DISP] = "invalid displacement",
    [MPI_ERR_INFO] = "invalid info object",
    [MPI_ERR_LOCKTYPE] = "invalid lock type",
    [MPI_ERR_ASSERT] = "invalid assert",
    [MPI_ERR_RMA_CONFLICT] = "conflicting RMA accesses",
    [MPI_ERR_RMA_SYNC] = "wrong RMA synchronisation",
    [MPI_ERR_FILE] = "invalid file",
    [MPI_ERR_NOT_SAME] = "arguments not the same on all processes",
    [MPI_ERR_AMODE] = "invalid access mode",
    [MPI_ERR_UNSUPPORTED_DATAREP] = "unsupported data representation",
    [MPI_ERR_UNSUPPORTED_OPERATION] = "operation not supported by sctpmpi (yet)",
    [MPI_ERR_NO_SUCH_FILE] = "no such file",
    [MPI_ERR_FILE_EXISTS] = "file exists",
    [MPI_ERR_BAD_FILE] = "bad file name",
    [MPI_ERR_ACCESS] = "permission denied",
    [MPI_ERR_NO_SPACE] = "no space left",
    [MPI_ERR_QUOTA] = "quota exceeded",
    [MPI_ERR_READ_ONLY] = "read-only file",
    [MPI_ERR_FILE_IN_USE] = "file in use",
    [MPI_ERR_DUP_DATAREP] = "data representation already defined",
    [MPI_ERR_CONVERSION] = "conversion error",
    [MPI_ERR_IO] = "I/O error",
    [MPI_ERR_RMA_RANGE] = "RMA target out of range",
    [MPI_ERR_RMA_ATTACH] = "RMA attach failed",
    [MPI_ERR_RMA_SHARED] = "RMA shared memory error",
    [MPI_ERR_RMA_FLAVOR] = "wrong RMA window flavour",
    [MPI_ERR_PROC_FAILED] = "a peer process failed or its connection was lost",
    /* MPI-4 */
    [MPI_ERR_SESSION] = "invalid session",
    [MPI_ERR_PROC_ABORTED] = "a peer process aborted",
    [MPI_ERR_VALUE_TOO_LARGE] = "value too large for the output argument",
    [MPI_ERR_ERRHANDLER] = "invalid error handler",
    /* the tool information interface (MPI_T) */
    [MPI_T_ERR_MEMORY] = "MPI_T: out of memory",
    [MPI_T_ERR_NOT_INITIALIZED] = "MPI_T: the tool interface is not initialized",
    [MPI_T_ERR_CANNOT_INIT] = "MPI_T: the tool interface cannot be initialized",
    [MPI_T_ERR_INVALID_INDEX] = "MPI_T: invalid index",
    [MPI_T_ERR_INVALID_ITEM] = "MPI_T: invalid enumeration item",
    [MPI_T_ERR_INVALID_HANDLE] = "MPI_T: invalid handle",
    [MPI_T_ERR_OUT_OF_HANDLES] = "MPI_T: no more handles",
    [MPI_T_ERR_OUT_OF_SESSIONS] = "MPI_T: no more performance-variable sessions",
    [MPI_T_ERR_INVALID_SESSION] = "MPI_T: invalid performance-variable session",
    [MPI_T_ERR_CVAR_SET_NOT_NOW] = "MPI_T: the control variable cannot be set now",
    [MPI_T_ERR_CVAR_SET_NEVER] = "MPI_T: the control variable can never be set",
    [MPI_T_ERR_PVAR_NO_STARTSTOP] = "MPI_T: this variable cannot be started or stopped",
    [MPI_T_ERR_PVAR_NO_WRITE] = "MPI_T: the performance variable cannot be written or reset",
    [MPI_T_ERR_PVAR_NO_ATOMIC] = "MPI_T: no atomic read-and-reset of this variable",
    [MPI_T_ERR_INVALID_NAME] = "MPI_T: no variable, category or event of that name",
    [MPI_T_ERR_INVALID] = "MPI_T: invalid use of the tool interface",
    [MPI_T_ERR_NOT_ACCESSIBLE] = "MPI_T: not accessible",
    [MPI_T_ERR_NOT_SUPPORTED] = "MPI_T: not supported",
};

static const char *text_of(int code)
{
    if (code >= 0 && code < (int)(sizeof class_text / sizeof *class_text) && class_text[code])
        return class_text[code];
    return NULL;
}

const char *sm_user_error_string(int code, int *klass); /* misc.c */

int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    const char *t = text_of(errorcode);
    if (!t)
        t = sm_user_error_string(errorcode, NULL);
    if (!string || !resultlen)
        return MPI_ERR_ARG;
    if (!t)
        return MPI_ERR_ARG;
    int n = snprintf(string, MPI_MAX_ERROR_STRING, "%s", t);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

int PMPI_Error_class(int errorcode, int *errorclass)
{
    int k = errorcode;
    if (!errorclass || (!text_of(errorcode) && !sm_user_error_string(errorcode, &k)))
        return MPI_ERR_ARG;
    *errorclass = k;
    return MPI_SUCCESS;
}

int sm_errh_vraise(MPI_Errhandler eh, enum sm_errh_obj kind, void *obj, int err,
                   MPI_Comm abort_comm, const char *fn, const char *fmt, va_list ap)
{
    if (eh->kind == SM_EH_RETURN)
        return err;
    if (eh->kind == SM_EH_USER) {
        void (*call)(void) = (void (*)(void))eh->fn;
        switch (kind) {
        case SM_ERRH_COMM: ((MPI_Comm_errhandler_function *)call)(obj, &err); break;
        case SM_ERRH_WIN: ((MPI_Win_errhandler_function *)call)(obj, &err); break;
        case SM_ERRH_FILE: ((MPI_File_errhandler_function *)call)(obj, &err); break;
        case SM_ERRH_SESSION: ((MPI_Session_errhandler_function *)call)(obj, &err); break;
        }
        return err;
    }
    char detail[512] = "";
    if (fmt)
        vsnprintf(detail, sizeof detail, fmt, ap);
    char text[MPI_MAX_ERROR_STRING] = "error";
    int len;
    PMPI_Error_string(err, text, &len);
    fprintf(stderr, "sctpmpi[%d]: %s: %s (error class %d)%s%s\n", sm_log_rank, fn, text, err,
            *detail ? ": " : "", detail);
    fflush(stderr);
    PMPI_Abort(abort_comm, err);
    return err;
}

int sm_error(MPI_Comm comm, int err, const char *fn, const char *fmt, ...)
{
    MPI_Comm c = (comm && comm->valid) ? comm : MPI_COMM_WORLD;
    va_list ap;
    va_start(ap, fmt);
    int rc = sm_errh_vraise(c->errh ? c->errh : MPI_ERRORS_ARE_FATAL, SM_ERRH_COMM, &c, err, c,
                            fn, fmt, ap);
    va_end(ap);
    return rc;
}

int sm_check_init(const char *fn)
{
    if (!sm_initialized || sm_finalized) {
        fprintf(stderr, "sctpmpi: %s called %s\n", fn,
                sm_finalized ? "after MPI_Finalize" : "before MPI_Init");
        exit(1);
    }
    return MPI_SUCCESS;
}

int sm_check_comm(MPI_Comm comm, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!comm || !comm->valid)
        return sm_error(MPI_COMM_NULL, MPI_ERR_COMM, fn, "null or freed communicator");
    return MPI_SUCCESS;
}

int sm_check_buffer(MPI_Comm c, const void *buf, int count, MPI_Datatype dt, const char *fn)
{
    if (count < 0)
        return sm_error(c, MPI_ERR_COUNT, fn, "count %d is negative", count);
    if (!dt || !dt->valid)
        return sm_error(c, MPI_ERR_TYPE, fn, "null or freed datatype");
    if (!dt->basic && !dt->committed)
        return sm_error(c, MPI_ERR_TYPE, fn, "datatype not committed");
    if (!buf && count > 0 && dt->basic && dt->size > 0)
        return sm_error(c, MPI_ERR_BUFFER, fn, "NULL buffer with count %d", count);
    return MPI_SUCCESS;
}

int sm_check_dest(MPI_Comm c, int rank, const char *fn)
{
    if (rank == MPI_PROC_NULL || (rank >= 0 && rank < c->size))
        return MPI_SUCCESS;
    return sm_error(c, MPI_ERR_RANK, fn, "rank %d is not in [0, %d) of %s", rank, c->size,
                    c->name);
}

int sm_check_source(MPI_Comm c, int rank, const char *fn)
{
    if (rank == MPI_ANY_SOURCE) {
        if (c->x && c->x->assert_no_any_source)
            return sm_error(c, MPI_ERR_RANK, fn,
                            "MPI_ANY_SOURCE on %s, which asserts mpi_assert_no_any_source",
                            c->name[0] ? c->name : "a communicator");
        return MPI_SUCCESS;
    }
    return sm_check_dest(c, rank, fn);
}

int sm_check_send_tag(MPI_Comm c, int tag, const char *fn)
{
    if (tag >= 0 && tag <= SM_TAG_UB)
        return MPI_SUCCESS;
    return sm_error(c, MPI_ERR_TAG, fn, "tag %d is not in [0, MPI_TAG_UB=%d]", tag, SM_TAG_UB);
}

int sm_check_recv_tag(MPI_Comm c, int tag, const char *fn)
{
    if (tag == MPI_ANY_TAG) {
        if (c->x && c->x->assert_no_any_tag)
            return sm_error(c, MPI_ERR_TAG, fn,
                            "MPI_ANY_TAG on %s, which asserts mpi_assert_no_any_tag",
                            c->name[0] ? c->name : "a communicator");
        return MPI_SUCCESS;
    }
    return sm_check_send_tag(c, tag, fn);
}

/* user error handlers are counted: the handle, every communicator using one, every handle
 * MPI_Comm_get_errhandler gave out; the last release frees it */
void sm_errh_retain(MPI_Errhandler e)
{
    if (e && e->kind == SM_EH_USER)
        e->refcount++;
}

void sm_errh_release(MPI_Errhandler e)
{
    if (e && e->kind == SM_EH_USER && --e->refcount == 0)
        free(e);
}

void sm_errh_set(MPI_Errhandler *slot, MPI_Errhandler e)
{
    sm_errh_retain(e);
    sm_errh_release(*slot);
    *slot = e;
}

void sm_errh_get(MPI_Errhandler e, MPI_Errhandler *out)
{
    sm_errh_retain(e);
    *out = e;
}

MPI_Errhandler sm_errh_new_user(void (*fn)(void))
{
    struct sctpmpi_errhandler *e = sm_xcalloc(1, sizeof *e);
    e->kind = SM_EH_USER;
    e->fn = (MPI_Comm_errhandler_function *)fn;
    e->refcount = 1;
    return e;
}

int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_set_errhandler"));
    if (!errhandler)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_set_errhandler", "null error handler");
    sm_errh_set(&comm->errh, errhandler);
    return MPI_SUCCESS;
}

int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_get_errhandler"));
    if (!errhandler)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Comm_get_errhandler", "NULL output pointer");
    sm_errh_get(comm->errh, errhandler);
    return MPI_SUCCESS;
}

int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler)
{
    SM_TRY(sm_check_init("MPI_Comm_create_errhandler"));
    if (!fn || !errhandler)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_create_errhandler", NULL);
    *errhandler = sm_errh_new_user((void (*)(void))fn);
    return MPI_SUCCESS;
}

int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    if (!errhandler || !*errhandler)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free", NULL);
    sm_errh_release(*errhandler); /* communicators using it keep it alive */
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_call_errhandler"));
    sm_error(comm, errorcode, "MPI_Comm_call_errhandler", NULL);
    return MPI_SUCCESS;
}
