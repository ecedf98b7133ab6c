/* spawn.h — MPI_Comm_spawn served by mpiexec: each request starts a job of its own under a
 * second mpiexec (spawn.c). */
#ifndef MPIEXEC_SPAWN_H
#define MPIEXEC_SPAWN_H

#include <signal.h>
#include <sys/types.h>

#include "job.h"
#include "pmi_wire.h"

/* the signal mask spawned mpiexecs start with (ours has the job's signals blocked) */
void spawn_init(const sigset_t *child_sigmask);
/* serves a whole spawn request (mcmd=spawn blocks) from rank connection c */
void spawn_serve(struct job *job, struct pmi_wire_conn *c, const char *blocks);
/* a child exited: 1 if it was a spawned mpiexec (now accounted for), else 0 */
int spawn_reaped(pid_t pid, int status);
int spawn_running(void); /* spawned mpiexecs not yet reaped */
int spawn_failed(void);  /* one ended with a non-zero code */
void spawn_signal_all(int sig);

/* In a spawned mpiexec (SCTPMPI_SPAWN_APPS set): rank's command, working directory ("" for
 * ours) and application number.  1 found, 0 not a spawned job, -1 malformed. */
int spawn_app_of(int rank, char ***argv, char *wdir, size_t wdirlen, int *appnum);

#endif
