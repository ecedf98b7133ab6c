/* job.c — failure policy of a job: which rank event fails it, the exit code it gets, and the
 * SIGTERM-then-SIGKILL sweep over every rank's process group. */
#include "job.h"
#include "spawn.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

double job_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void job_signal_all(struct job *job, int sig)
{
    spawn_signal_all(sig); /* jobs MPI_Comm_spawn started go with us */
    if (job->signal_hook)
        job->signal_hook(job, sig);
    for (int i = 0; i < job->nranks; i++) {
        pid_t pg = job->ranks[i].pid;
        if (pg <= 0)
            continue;
        if (kill(-pg, sig) < 0 && errno == ESRCH && job->ranks[i].running)
            (void)kill(pg, sig); /* not (yet) a group leader */
    }
}

void job_fail(struct job *job, int exit_code, const char *fmt, ...)
{
    if (!job->failed) {
        va_list ap;
        va_start(ap, fmt);
        fprintf(stderr, "mpiexec: ");
        vfprintf(stderr, fmt, ap);
        fprintf(stderr, "\n");
        va_end(ap);
        job->failed = 1;
        job->exit_code = exit_code & 0xff ? exit_code & 0xff : 1;
    }
    if (!job->killing) {
        job->killing = 1;
        job->kill_deadline = job_now() + KILL_GRACE_SECONDS;
        job_signal_all(job, SIGTERM);
    }
}

void job_kill_tick(struct job *job)
{
    if (job->killing && !job->killed_hard && job_now() >= job->kill_deadline) {
        job->killed_hard = 1;
        job_signal_all(job, SIGKILL);
    }
}

void job_rank_exited(struct job *job, struct rank_proc *rp, int status)
{
    rp->running = 0;
    job->nrunning--;
    if (job->killing)
        return; /* we are killing it: the first failure has been reported already */
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        job_fail(job, 128 + sig, "rank %d was killed by signal %d (%s)", rp->rank, sig,
                 strsignal(sig));
    } else if (WEXITSTATUS(status) != 0) {
        job_fail(job, WEXITSTATUS(status), "rank %d exited with code %d", rp->rank,
                 WEXITSTATUS(status));
    } else if (!rp->finalized && (rp->pmi_inited || job->any_inited)) {
        job_fail(job, 1, "rank %d exited without MPI_Finalize", rp->rank);
    }
}
