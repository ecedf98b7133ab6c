/* sim_launch.h — running a job on the network simulator (--sim TOPO, docs/simulation.md). */
#ifndef MPIEXEC_SIM_LAUNCH_H
#define MPIEXEC_SIM_LAUNCH_H

/* the --sim options: returns 1 when argv[*i] was one (consumed, *i advanced), 0 when not,
 * -1 on a usage error (message printed) */
int sim_launch_option(int argc, char **argv, int *i);
/* --sim given? */
int sim_launch_active(void);
/* start the simulator for nranks ranks and set the ranks' environment (SCTPMPI_TRANSPORT=sim,
 * SCTPMPI_SIM_SOCKET, ...); transport is mpiexec --transport (NULL, "sctp" or "sim").  0 or -1. */
int sim_launch_start(int nranks, const char *transport);
/* after the ranks: wait for the simulator's verdict; returns its exit status (0 = fine) */
int sim_launch_finish(void);

#endif
