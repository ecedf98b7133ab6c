/* rank_spawn.h — starting one rank: pipes, PMI socketpair, environment, own process group. */
#ifndef MPIEXEC_RANK_SPAWN_H
#define MPIEXEC_RANK_SPAWN_H

#include <signal.h>

#include "job.h"

/* How rank processes are started: directly, or through `netlab exec HOST --`. */
struct spawn_plan {
    const char *netlab; /* path of the netlab tool, NULL to run locally */
    char **hosts;       /* netlab host names (rank i runs on hosts[i % nhosts]) */
    int nhosts;
    sigset_t child_sigmask; /* signal mask to restore in the child */
};

/* Forks rank `rank` of the job; fills job->ranks[rank].  Returns 0 or -1 (message printed). */
int spawn_rank(struct job *job, const struct spawn_plan *plan, int rank);

#endif
