/* job.h — the state of one mpiexec job: its ranks (process, PMI connection, output pipes),
 * the KVS, the barrier, and how the job fails (first failure wins, then everyone is killed). */
#ifndef MPIEXEC_JOB_H
#define MPIEXEC_JOB_H

#include <sys/types.h>

#include "kvs.h"
#include "options.h"
#include "output_forward.h"
#include "pmi_wire.h"

#define KILL_GRACE_SECONDS 2.0 /* SIGTERM, then SIGKILL this much later */

struct rank_proc {
    int rank;
    pid_t pid;                /* also its process group id (each rank leads its own group) */
    int running;              /* not yet reaped */
    struct pmi_wire_conn pmi; /* our end of the PMI socketpair (fd -1 once closed) */
    int pmi_inited, finalized, in_barrier;
    struct output_stream out, err;
};

struct job {
    const struct mpiexec_options *opt;
    pid_t launcher_pid;
    int nranks;
    struct rank_proc *ranks;
    struct kvs *kvs;
    char kvsname[64];
    char secret[33];
    int barrier_count;
    const struct pmi_wire_server *pmi_server; /* pmi_server.c */
    int any_inited;                           /* some rank spoke PMI: this is an MPI job */
    int nrunning;
    int failed; /* first failure recorded */
    int exit_code;
    int killing; /* SIGTERM sent; SIGKILL at kill_deadline */
    double kill_deadline;
    int killed_hard;
    /* multi-host: ranks live behind proxies; signals go to them through this */
    void (*signal_hook)(struct job *job, int sig);
    void *remote;
};

double job_now(void); /* monotonic seconds */

/* Records the job's failure (only the first one sets the exit code and prints its message)
 * and starts killing every rank.  msg is printed as "mpiexec: <msg>". */
void job_fail(struct job *job, int exit_code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Signals every rank's process group (ranks already reaped included: their children may
 * still live).  */
void job_signal_all(struct job *job, int sig);

/* Escalates to SIGKILL once the grace period after job_fail has passed. */
void job_kill_tick(struct job *job);

/* A rank exited or was killed: decide whether that fails the job. */
void job_rank_exited(struct job *job, struct rank_proc *rp, int wait_status);

#endif
