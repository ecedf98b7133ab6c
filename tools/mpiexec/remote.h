/* remote.h — mpiexec's side of a multi-host job: placing ranks on the hosts of -H/--hostfile,
 * starting one sctpmpi_proxy per host through the rsh-style launcher, and the event loop that
 * relays PMI fences, output, exits and signals to and from the proxies. */
#ifndef MPIEXEC_REMOTE_H
#define MPIEXEC_REMOTE_H

#include <signal.h>

#include "job.h"

/* Rank -> host index for the job's options (blocks of slots, round-robin with --map-by node,
 * N per host with -ppn).  Returns a malloc'd array of job->nranks entries, or NULL. */
int *remote_place(const struct mpiexec_options *opt, int nranks);

/* Runs the whole job through proxies; returns when every proxy is gone.  The job's exit code
 * and failure are in job. */
void remote_run(struct job *job, int sfd, double deadline, const sigset_t *child_sigmask);

#endif
