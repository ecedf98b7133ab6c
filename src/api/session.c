/* session.c — the Sessions Model of MPI-4: MPI_Session_init/finalize, process sets
 * ("mpi://WORLD" and "mpi://SELF"), groups from process sets, MPI_Comm_create_from_group,
 * and session error handlers.
 *
 * Sessions share the engine with the World Model (init.c, sm_lib_acquire/sm_lib_release):
 * the first of MPI_Init and MPI_Session_init starts it, and a session may be opened before,
 * during or after the World Model.  Communicators made from a session's groups are ordinary
 * communicators; MPI_Comm_create_from_group agrees on their context over the group only,
 * with a tag derived from the string tag. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "engine/thread_lock.h"

struct sctpmpi_session {
    int valid;
    MPI_Errhandler errh;
    MPI_Info info; /* what MPI_Session_get_info returns (a copy of it) */
};

static const char *const psets[] = { "mpi://WORLD", "mpi://SELF" };
#define NPSETS 2

int sm_lib_acquire(void);
int sm_lib_release(void);

static int session_error(MPI_Session s, int err, const char *fn, const char *what, ...)
    __attribute__((format(printf, 4, 5)));
static int session_error(MPI_Session s, int err, const char *fn, const char *what, ...)
{
    va_list ap;
    va_start(ap, what);
    int rc = sm_errh_vraise((s && s->valid && s->errh) ? s->errh : MPI_ERRORS_RETURN,
                            SM_ERRH_SESSION, &s, err, MPI_COMM_SELF, fn, what, ap);
    va_end(ap);
    return rc;
}

static int check_session(MPI_Session s, const char *fn)
{
    if (!s || !s->valid)
        return session_error(MPI_SESSION_NULL, MPI_ERR_SESSION, fn, "null or finalized session");
    return MPI_SUCCESS;
}

static int pset_index(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < NPSETS; i++)
        if (strcasecmp(name, psets[i]) == 0)
            return i;
    return -1;
}

int PMPI_Session_init(MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session)
{
    const char *fn = "MPI_Session_init";
    if (!session)
        return session_error(MPI_SESSION_NULL, MPI_ERR_ARG, fn, "NULL session pointer");
    if (errhandler && errhandler->kind != SM_EH_FATAL && errhandler->kind != SM_EH_RETURN &&
        errhandler->kind != SM_EH_ABORT && errhandler->kind != SM_EH_USER)
        return session_error(MPI_SESSION_NULL, MPI_ERR_ERRHANDLER, fn, "invalid error handler");
    if (info != MPI_INFO_NULL && !sm_info_valid(info))
        return session_error(MPI_SESSION_NULL, MPI_ERR_INFO, fn, "invalid info object");
    if (sm_lib_acquire() != MPI_SUCCESS)
        return session_error(MPI_SESSION_NULL, MPI_ERR_OTHER, fn,
                             "the library was shut down by MPI_Finalize");
    struct sctpmpi_session *s = sm_xcalloc(1, sizeof *s);
    s->valid = 1;
    s->errh = errhandler ? errhandler : MPI_ERRORS_ARE_FATAL;
    sm_errh_retain(s->errh);
    s->info = info != MPI_INFO_NULL ? sm_info_dup(info) : MPI_INFO_NULL;
    if (!s->info)
        PMPI_Info_create(&s->info);
    const char *lv[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED",
                         "MPI_THREAD_MULTIPLE" };
    /* a session asks for its level with the "thread_level" key; without it, it gets
     * MPI_THREAD_MULTIPLE when the process already has it, else SERIALIZED (which costs
     * nothing); MPI_THREAD_MULTIPLE turns the global lock on (thread_lock.h) */
    const char *req = sm_info_lookup(s->info, "thread_level");
    int lvl = atomic_load(&sm_threads_on) ? MPI_THREAD_MULTIPLE : MPI_THREAD_SERIALIZED;
    if (req)
        for (int i = 0; i < 4; i++)
            if (strcasecmp(req, lv[i]) == 0)
                lvl = i;
    if (lvl == MPI_THREAD_MULTIPLE)
        sm_threads_enable();
    PMPI_Info_set(s->info, "thread_level", lv[lvl]);
    *session = s;
    return MPI_SUCCESS;
}

int PMPI_Session_finalize(MPI_Session *session)
{
    const char *fn = "MPI_Session_finalize";
    if (!session)
        return session_error(MPI_SESSION_NULL, MPI_ERR_ARG, fn, "NULL session pointer");
    SM_TRY(check_session(*session, fn));
    struct sctpmpi_session *s = *session;
    sm_bsend_session_freed(s);
    s->valid = 0;
    sm_info_free(s->info);
    sm_errh_release(s->errh);
    free(s);
    *session = MPI_SESSION_NULL;
    int rc = sm_lib_release();
    return rc ? session_error(MPI_SESSION_NULL, rc, fn, NULL) : MPI_SUCCESS;
}

int PMPI_Session_get_num_psets(MPI_Session session, MPI_Info info, int *npset_names)
{
    const char *fn = "MPI_Session_get_num_psets";
    SM_TRY(check_session(session, fn));
    (void)info;
    if (!npset_names)
        return session_error(session, MPI_ERR_ARG, fn, "NULL output pointer");
    *npset_names = NPSETS;
    return MPI_SUCCESS;
}

int PMPI_Session_get_nth_pset(MPI_Session session, MPI_Info info, int n, int *pset_len,
                              char *pset_name)
{
    const char *fn = "MPI_Session_get_nth_pset";
    SM_TRY(check_session(session, fn));
    (void)info;
    if (!pset_len)
        return session_error(session, MPI_ERR_ARG, fn, "NULL length pointer");
    if (n < 0 || n >= NPSETS)
        return session_error(session, MPI_ERR_ARG, fn, "no such process set");
    int need = (int)strlen(psets[n]) + 1;
    if (*pset_len > 0) {
        if (!pset_name)
            return session_error(session, MPI_ERR_ARG, fn, "NULL name buffer");
        int k = need <= *pset_len ? need - 1 : *pset_len - 1;
        memcpy(pset_name, psets[n], (size_t)k);
        pset_name[k] = 0;
    }
    *pset_len = need;
    return MPI_SUCCESS;
}

int PMPI_Session_get_pset_info(MPI_Session session, const char *pset_name, MPI_Info *info)
{
    const char *fn = "MPI_Session_get_pset_info";
    SM_TRY(check_session(session, fn));
    int i = pset_index(pset_name);
    if (i < 0)
        return session_error(session, MPI_ERR_ARG, fn, "no such process set");
    if (!info)
        return session_error(session, MPI_ERR_ARG, fn, "NULL info pointer");
    SM_TRY(PMPI_Info_create(info));
    char v[32];
    snprintf(v, sizeof v, "%d", i == 0 ? sm_world_size() : 1);
    PMPI_Info_set(*info, "mpi_size", v);
    return MPI_SUCCESS;
}

int PMPI_Session_get_info(MPI_Session session, MPI_Info *info_used)
{
    const char *fn = "MPI_Session_get_info";
    SM_TRY(check_session(session, fn));
    if (!info_used)
        return session_error(session, MPI_ERR_ARG, fn, "NULL info pointer");
    *info_used = sm_info_dup(session->info);
    return MPI_SUCCESS;
}

int PMPI_Group_from_session_pset(MPI_Session session, const char *pset_name, MPI_Group *newgroup)
{
    const char *fn = "MPI_Group_from_session_pset";
    SM_TRY(check_session(session, fn));
    if (!newgroup)
        return session_error(session, MPI_ERR_ARG, fn, "NULL group pointer");
    int i = pset_index(pset_name);
    if (i < 0)
        return session_error(session, MPI_ERR_ARG, fn, "no such process set");
    int me = sm_world_rank();
    *newgroup = i == 0 ? sm_group_new(sm_world_size(), NULL) : sm_group_new(1, &me);
    return MPI_SUCCESS;
}

/* a communicator made from groups takes the caller's error handler (default: fatal) and info */
static void adopt(MPI_Comm c, MPI_Errhandler errhandler, MPI_Info info)
{
    MPI_Errhandler eh = errhandler ? errhandler : MPI_ERRORS_ARE_FATAL;
    sm_errh_retain(eh);
    sm_errh_release(c->errh);
    c->errh = eh;
    if (info != MPI_INFO_NULL)
        PMPI_Comm_set_info(c, info);
}

/* a tag for the context agreement, from the string tag (FNV-1a) */
static int string_tag(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return (int)(h & 0x0fffffff);
}

int PMPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                                MPI_Errhandler errhandler, MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_create_from_group";
    SM_TRY(sm_check_init(fn));
    if (!newcomm || !stringtag)
        return sm_error(MPI_COMM_SELF, MPI_ERR_ARG, fn, "NULL argument");
    if (!group || !group->valid)
        return sm_error(MPI_COMM_SELF, MPI_ERR_GROUP, fn, "null or freed group");
    if (info != MPI_INFO_NULL && !sm_info_valid(info))
        return sm_error(MPI_COMM_SELF, MPI_ERR_INFO, fn, "invalid info object");
    int me = -1;
    for (int i = 0; i < group->size; i++)
        if (group->world_of[i] == sm_world_rank())
            me = i;
    if (me < 0) { /* not a member (MPI_GROUP_EMPTY among others): no communicator */
        *newcomm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    /* every process of a session's group is in MPI_COMM_WORLD's: agree among the group on
     * the world's collective context, like MPI_Comm_create_group */
    MPI_Errhandler keep = sctpmpi_comm_world.errh;
    sctpmpi_comm_world.errh = MPI_ERRORS_RETURN;
    int rc = PMPI_Comm_create_group(MPI_COMM_WORLD, group, string_tag(stringtag), newcomm);
    sctpmpi_comm_world.errh = keep;
    if (rc)
        return sm_error(MPI_COMM_SELF, rc, fn, NULL);
    adopt(*newcomm, errhandler, info);
    return MPI_SUCCESS;
}

int PMPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                      MPI_Group remote_group, int remote_leader,
                                      const char *stringtag, MPI_Info info,
                                      MPI_Errhandler errhandler, MPI_Comm *newintercomm)
{
    const char *fn = "MPI_Intercomm_create_from_groups";
    SM_TRY(sm_check_init(fn));
    if (!newintercomm || !stringtag)
        return sm_error(MPI_COMM_SELF, MPI_ERR_ARG, fn, "NULL argument");
    if (!local_group || !local_group->valid || !remote_group || !remote_group->valid)
        return sm_error(MPI_COMM_SELF, MPI_ERR_GROUP, fn, "null or freed group");
    if (local_leader < 0 || local_leader >= local_group->size || remote_leader < 0 ||
        remote_leader >= remote_group->size)
        return sm_error(MPI_COMM_SELF, MPI_ERR_RANK, fn, "leader out of range");
    /* the local group's communicator, then an intercommunicator through MPI_COMM_WORLD,
     * which holds both leaders */
    MPI_Comm local;
    SM_TRY(PMPI_Comm_create_from_group(local_group, stringtag, MPI_INFO_NULL, MPI_ERRORS_RETURN,
                                       &local));
    if (local == MPI_COMM_NULL)
        return sm_error(MPI_COMM_SELF, MPI_ERR_GROUP, fn,
                        "the calling process is not in the "
                        "local group");
    MPI_Errhandler keep = sctpmpi_comm_world.errh;
    sctpmpi_comm_world.errh = MPI_ERRORS_RETURN;
    int rc = PMPI_Intercomm_create(local, local_leader, MPI_COMM_WORLD,
                                   remote_group->world_of[remote_leader], string_tag(stringtag),
                                   newintercomm);
    sctpmpi_comm_world.errh = keep;
    PMPI_Comm_free(&local);
    if (rc)
        return sm_error(MPI_COMM_SELF, rc, fn, NULL);
    adopt(*newintercomm, errhandler, info);
    return MPI_SUCCESS;
}

/* ---- session error handlers --------------------------------------------------------------- */
int PMPI_Session_create_errhandler(MPI_Session_errhandler_function *function,
                                   MPI_Errhandler *errhandler)
{
    if (!function || !errhandler)
        return session_error(MPI_SESSION_NULL, MPI_ERR_ARG, "MPI_Session_create_errhandler",
                             "NULL argument");
    *errhandler = sm_errh_new_user((void (*)(void))function);
    return MPI_SUCCESS;
}

int PMPI_Session_set_errhandler(MPI_Session session, MPI_Errhandler errhandler)
{
    const char *fn = "MPI_Session_set_errhandler";
    SM_TRY(check_session(session, fn));
    if (!errhandler)
        return session_error(session, MPI_ERR_ARG, fn, "null error handler");
    sm_errh_set(&session->errh, errhandler);
    return MPI_SUCCESS;
}

int PMPI_Session_get_errhandler(MPI_Session session, MPI_Errhandler *errhandler)
{
    const char *fn = "MPI_Session_get_errhandler";
    SM_TRY(check_session(session, fn));
    if (!errhandler)
        return session_error(session, MPI_ERR_ARG, fn, "NULL output pointer");
    sm_errh_get(session->errh, errhandler);
    return MPI_SUCCESS;
}

int PMPI_Session_call_errhandler(MPI_Session session, int errorcode)
{
    const char *fn = "MPI_Session_call_errhandler";
    SM_TRY(check_session(session, fn));
    session_error(session, errorcode, fn, NULL);
    return MPI_SUCCESS;
}
