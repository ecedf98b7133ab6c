/* pmi.h — the PMI-1 client the library boots with.
 *
 * Works under our mpiexec and MPICH hydra (inherited socket: PMI_FD, PMI_RANK, PMI_SIZE),
 * hydra's -pmi-port mode (PMI_PORT=host:port, PMI_ID), Slurm's `srun --mpi=pmi2` (PMI_FD), and
 * with no PMI environment at all as a singleton (rank 0 of 1).  Replies are parsed as key=value
 * pairs in any order.  All functions return 0 on success, -1 on error (message on stderr). */
#ifndef SCTPMPI_PMI_H
#define SCTPMPI_PMI_H

#include <stddef.h>

int sm_pmi_init(int *rank, int *size);
int sm_pmi_is_singleton(void);
int sm_pmi_put(const char *key, const char *value); /* into this job's KVS; commit is implicit */
int sm_pmi_get(const char *key, char *value, size_t len); /* -1 if absent */
/* n gets (pipelined when the server says it can: our mpiexec and proxies); -1 if one fails */
int sm_pmi_get_many(int n, const char *const *keys, char *const *values, size_t len);
int sm_pmi_barrier(void);                                 /* also makes earlier puts visible */
int sm_pmi_abort(int code, const char *msg);              /* tell the launcher; does not exit */
int sm_pmi_finalize(void);

#endif
