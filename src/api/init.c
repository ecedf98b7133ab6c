/* init.c — MPI environment management: Init/Finalize/Abort, thread level, versions, time,
 * processor name. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api/api.h"
#include "api/dynamic.h"
#include "engine/thread_lock.h"
#include "boot/pmi.h"

int sm_initialized, sm_finalized, sm_thread_level = MPI_THREAD_SINGLE;
static pthread_t main_thread;
static int world_of_self;

static void setup_comms(void)
{
    struct sctpmpi_comm *w = &sctpmpi_comm_world, *s = &sctpmpi_comm_self;
    w->rank = sm_world_rank();
    w->size = sm_world_size();
    w->ctx = 0;
    s->rank = 0;
    s->size = 1;
    s->ctx = 2;
    world_of_self = sm_world_rank();
    s->world_of = &world_of_self;
}

/* The World Model (MPI_Init .. MPI_Finalize) and the sessions (session.c) share one engine,
 * reference counted: the first user starts it; when the last one is done, every process
 * drains and meets in a barrier.  The engine itself stops at MPI_Finalize, or, when the World
 * Model was never finalized, at process exit (so that MPI_Init may still follow the last
 * MPI_Session_finalize). */
static int world_init, world_done, engine_up, engine_stopped, lib_users;

static void lib_atexit(void)
{
    if (engine_up && !engine_stopped && lib_users == 0) {
        engine_stopped = 1;
        sm_engine_stop();
    }
}

int sm_lib_acquire(void)
{
    if (engine_stopped)
        return MPI_ERR_OTHER;
    if (!engine_up) {
        if (sm_engine_start())
            exit(1);
        setup_comms();
        main_thread = pthread_self();
        engine_up = 1;
        atexit(lib_atexit);
    }
    lib_users++;
    sm_initialized = 1;
    return MPI_SUCCESS;
}

int sm_lib_release(void)
{
    if (--lib_users > 0)
        return MPI_SUCCESS;
    sm_bsend_drain();
    /* a barrier through the engine first: every rank keeps answering its peers (sync acks,
     * cancel answers, rendezvous data) until all have arrived here */
    int rc = sm_barrier_ctx(MPI_COMM_WORLD, SM_CTX_FINALIZE);
    sm_initialized = 0;
    if (world_done) {
        engine_stopped = 1;
        if (sm_engine_stop())
            rc = MPI_ERR_OTHER;
        sm_comm_reap_all();
        sm_finalized = 1;
    }
    return rc;
}

int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    (void)argc;
    (void)argv;
    if (world_init) {
        fprintf(stderr, "sctpmpi: MPI_Init called %s\n",
                world_done ? "after MPI_Finalize" : "twice");
        exit(1);
    }
    if (sm_lib_acquire() != MPI_SUCCESS) {
        fprintf(stderr, "sctpmpi: MPI_Init called after the library was shut down\n");
        exit(1);
    }
    world_init = 1;
    sm_dyn_parent_init(); /* a spawned process meets its parents */
    /* every level is granted; MPI_THREAD_MULTIPLE turns the global lock on (thread_lock.h) */
    sm_thread_level = required < MPI_THREAD_SINGLE     ? MPI_THREAD_SINGLE
                      : required > MPI_THREAD_MULTIPLE ? MPI_THREAD_MULTIPLE
                                                       : required;
    if (sm_thread_level == MPI_THREAD_MULTIPLE)
        sm_threads_enable();
    if (provided)
        *provided = sm_thread_level;
    return MPI_SUCCESS;
}

int PMPI_Init(int *argc, char ***argv)
{
    int provided;
    return PMPI_Init_thread(argc, argv, MPI_THREAD_SINGLE, &provided);
}

int PMPI_Initialized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = world_init;
    return MPI_SUCCESS;
}

int PMPI_Finalized(int *flag)
{
    if (!flag)
        return MPI_ERR_ARG;
    *flag = world_done;
    return MPI_SUCCESS;
}

int PMPI_Query_thread(int *provided)
{
    SM_TRY(sm_check_init("MPI_Query_thread"));
    *provided = sm_thread_level;
    return MPI_SUCCESS;
}

int PMPI_Is_thread_main(int *flag)
{
    SM_TRY(sm_check_init("MPI_Is_thread_main"));
    *flag = pthread_equal(pthread_self(), main_thread);
    return MPI_SUCCESS;
}

int PMPI_Finalize(void)
{
    SM_TRY(sm_check_init("MPI_Finalize"));
    if (!world_init || world_done) {
        fprintf(stderr, "sctpmpi: MPI_Finalize called %s\n",
                world_done ? "twice" : "before MPI_Init");
        exit(1);
    }
    /* delete callbacks of MPI_COMM_SELF's attributes run first, while MPI is fully usable */
    int arc = sm_attr_finalize();
    world_done = 1;
    sm_bsend_drain();
    int rc = sm_lib_release();
    if (lib_users > 0) /* sessions are still open: the World Model's objects stay usable */
        sm_initialized = 1;
    return rc ? rc : arc;
}

int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    (void)comm;
    fprintf(stderr, "sctpmpi[%d]: MPI_Abort called with error code %d\n", sm_log_rank, errorcode);
    fflush(stderr);
    fflush(stdout);
    char msg[64];
    snprintf(msg, sizeof msg, "MPI_Abort with error code %d", errorcode);
    if (sm_initialized)
        sm_pmi_abort(errorcode, msg);
    _exit(errorcode & 255 ? errorcode & 255 : 1);
}

int PMPI_Get_processor_name(char *name, int *resultlen)
{
    if (!name || !resultlen)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_processor_name", NULL);
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME))
        strcpy(name, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = 0;
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int PMPI_Get_version(int *version, int *subversion)
{
    if (!version || !subversion)
        return MPI_ERR_ARG;
    *version = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (!version || !resultlen)
        return MPI_ERR_ARG;
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "sctpmpi %s (MPI %d.%d; transports: tcp, sctp; SCTP backends: native%s)",
                     SCTPMPI_VERSION_STRING, MPI_VERSION, MPI_SUBVERSION,
#ifdef SCTPMPI_HAVE_SCTP
                     ", usrsctp"
#else
                     ""
#endif
    );
    *resultlen = n;
    return MPI_SUCCESS;
}

double PMPI_Wtime(void)
{
    if (sm_clock_hook) /* virtual time under mpiexec --sim */
        return (double)sm_clock_hook() * 1e-9;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

double PMPI_Wtick(void)
{
    return 1e-9;
}
