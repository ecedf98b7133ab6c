/* dynamic.h — dynamic processes inside the API layer: ports and the joining of two groups
 * (dynamic_port.c) used by connect/accept/join and by spawn (dynamic_spawn.c). */
#ifndef SCTPMPI_DYNAMIC_H
#define SCTPMPI_DYNAMIC_H

#include "api/api.h"

/* now + SCTPMPI_DYN_TIMEOUT seconds (0: no deadline) */
double sm_dyn_deadline(void);
/* waits for fd to be ready for ev, progressing the engine: 1, 0 at the deadline, -1 error */
int sm_dyn_wait_fd(int fd, short ev, double deadline);
/* a port of this process: MPI_SUCCESS or an error class (reason in why) */
int sm_dyn_open_port(char *port_name, char *why, size_t whylen);
int sm_dyn_close_port(const char *port_name);
/* the roots' connection: accepted on / connected to a port; -1 with the reason in why */
int sm_dyn_accept_fd(const char *port_name, double deadline, char *why, size_t whylen);
int sm_dyn_connect_fd(const char *port_name, double deadline, char *why, size_t whylen);
/* collective over comm: the roots (fd valid at root, unless root_err) swap their groups and
 * every process gets the intercommunicator; root_err/root_why: the root failed already */
int sm_dyn_join_groups(int fd, int root, MPI_Comm comm, int root_err, const char *root_why,
                       MPI_Comm *newcomm, const char *fn);

/* a group's description for another job: transport, then per process "job rank secret card" */
char *sm_dyn_group_blob(MPI_Comm comm);
/* the processes a description names, as peer indices of this process (*rw malloc'd): 0 or an
 * MPI error class (reason in why); blob is cut up */
int sm_dyn_adopt_blob(char *blob, int **rw, int *rsize, char *why, size_t whylen);
/* 1 when every process of comm is a rank of this job */
int sm_dyn_all_mine(MPI_Comm comm);

/* dynamic_spawn.c: MPI_Init of a spawned process connects to its parents */
void sm_dyn_parent_init(void);
/* a communicator is going away: it is no longer the parent */
void sm_dyn_forget(MPI_Comm c);
int sm_dyn_universe_size(void); /* -1: unknown (the attribute is not set) */
int sm_dyn_appnum(void);
/* the value of key in a PMI-1 reply line ("" when absent; msg= runs to the end) */
void sm_dyn_reply_field(const char *line, const char *key, char *out, size_t len);

#endif
