/* pmi.h — how a rank talks to its launcher, whatever PMI that launcher speaks.
 *
 * sm_pmi_init() picks the client from the environment (pmi_select.c):
 *   PMI_FD or PMI_PORT          PMI-1 (our mpiexec, MPICH hydra, Slurm --mpi=pmi2), or the
 *                               PMI-2 wire protocol when Slurm's pmi2 plugin started us
 *                               (SLURM_MPI_TYPE=pmi2);
 *   PMIX_NAMESPACE + PMIX_RANK  PMIx (Open MPI's mpirun, Slurm --mpi=pmix), when built with it;
 *   nothing                     singleton: rank 0 of 1, put/get served from a local table.
 * SCTPMPI_PMI=auto|pmi1|pmi2|pmix forces the choice.  All functions return 0 on success, -1 on
 * error (message on stderr). */
#ifndef SCTPMPI_PMI_H
#define SCTPMPI_PMI_H

#include <stddef.h>

int sm_pmi_init(int *rank, int *size);
int sm_pmi_is_singleton(void);
const char *sm_pmi_name(void); /* "pmi1", "pmi2", "pmix" or "singleton"; NULL before init */
/* ranks of this job on this host and this rank's index among them; -1 if the launcher does
 * not say */
int sm_pmi_local(int *local_size, int *local_rank);
int sm_pmi_put(const char *key, const char *value); /* into this job's KVS; commit is implicit */
int sm_pmi_get(const char *key, char *value, size_t len); /* -1 if absent */
/* the same, naming the rank that put the key (required by PMIx to find it quickly) */
int sm_pmi_get_from(int src, const char *key, char *value, size_t len);
/* n gets, rank srcs[i] having put keys[i] (pipelined when the server says it can: our mpiexec
 * and proxies); -1 if one fails */
int sm_pmi_get_many(int n, const int *srcs, const char *const *keys, char *const *values,
                    size_t len);
int sm_pmi_barrier(void);                    /* also makes earlier puts visible */
int sm_pmi_abort(int code, const char *msg); /* tell the launcher; does not exit */
int sm_pmi_finalize(void);
/* PMI-1 requests beyond the key-value space (spawn, name service): -1 with the reason in
 * reply when this launcher's PMI has none */
int sm_pmi_command(const char *request, char *reply, size_t len);

#endif
