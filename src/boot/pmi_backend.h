/* pmi_backend.h — the table each PMI client fills in (PMI-1 and the singleton in pmi_client.c,
 * PMI-2 in pmi2_client.c, PMIx in pmix/pmix_client.c), and the helpers they share.
 * pmi_select.c picks one from the environment and forwards the calls of pmi.h to it, so
 * nothing above src/boot/ knows which PMI the launcher speaks.  Every function returns 0 on
 * success and -1 on error (with a message on stderr), as in pmi.h. */
#ifndef SCTPMPI_PMI_BACKEND_H
#define SCTPMPI_PMI_BACKEND_H

#include <stddef.h>

struct sm_pmi_ops {
    const char *name; /* "pmi1", "pmi2", "pmix", "singleton" */
    int (*init)(int *rank, int *size);
    /* ranks of this job on this host and this rank's index among them; -1 if unknown */
    int (*local)(int *local_size, int *local_rank);
    int (*put)(const char *key, const char *value);
    /* src: the rank that put the key, or -1 if unknown (PMIx needs it, the others ignore it) */
    int (*get)(int src, const char *key, char *value, size_t len);
    /* optional (NULL: one get after another): n gets at once, srcs[i] putting keys[i] (srcs
     * may be NULL) */
    int (*get_many)(int n, const int *srcs, const char *const *keys, char *const *values,
                    size_t len);
    int (*barrier)(void); /* also makes every earlier put visible to every rank */
    int (*abort)(int code, const char *msg);
    int (*finalize)(void);
    /* optional: raw request lines out, one reply line back (spawn, name service) */
    int (*command)(const char *request, char *reply, size_t len);
};

/* PMI-1 over PMI_FD or PMI_PORT (pmi_client.c) */
extern const struct sm_pmi_ops sm_pmi1_ops;
/* no launcher: rank 0 of 1, put/get served from a local table (pmi_client.c) */
extern const struct sm_pmi_ops sm_pmi_singleton_ops;
/* the length-prefixed PMI-2 wire protocol over PMI_FD (Slurm --mpi=pmi2, hydra) */
extern const struct sm_pmi_ops sm_pmi2_ops;
#ifdef SCTPMPI_HAVE_PMIX
extern const struct sm_pmi_ops sm_pmix_ops; /* libpmix: Open MPI's mpirun, srun --mpi=pmix */
#endif

void sm_pmi_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* a non-negative integer from the environment; -1 if unset or not a number */
int sm_pmi_env_int(const char *name, int *out);
/* local size and rank from an MPICH/Slurm PMI_process_mapping value, e.g.
 * "(vector,(0,2,4),(2,1,3))" = nodes 0-1 hold 4 consecutive ranks each, node 2 holds 3 */
int sm_pmi_parse_mapping(const char *map, int rank, int size, int *local_size, int *local_rank);

#endif
