/* netlab_launch.h — running a job on netlab's emulated hosts (--netlab TOPO). */
#ifndef MPIEXEC_NETLAB_LAUNCH_H
#define MPIEXEC_NETLAB_LAUNCH_H

/* The netlab tool: next to our binary (build tree ../netlab/netlab, installed ./netlab),
 * else in PATH.  Returns a malloc'd path or NULL. */
char *netlab_find(void);

/* Outside netlab (NETLAB_RUN unset): exec `netlab run TOPO -- <self> <argv[1..]>`.
 * Returns only on failure (message printed). */
void netlab_reexec(const char *netlab, const char *topo, char **argv);

/* Inside netlab: the host names from `netlab hosts`, one per line.  NULL on failure. */
char **netlab_hosts(const char *netlab, int *nhosts);

#endif
