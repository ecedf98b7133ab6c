/* boot.h — starting and ending a job, below the engine: rank and size from the launcher (PMI),
 * the per-job secret, the choice of transport, and the exchange of business cards that lets
 * every rank's transport find every other.  The engine calls these from sm_engine_start and
 * sm_engine_stop; it never talks to PMI itself. */
#ifndef SCTPMPI_BOOT_H
#define SCTPMPI_BOOT_H

#include <stddef.h>
#include <stdint.h>

#include "transport/transport.h"

/* PMI up, logging tagged with the rank; dies with a message when the launcher is unusable */
void sm_boot_start(int *rank, int *size);
/* ranks on this host (SCTPMPI_LOCAL_RANKS, set by the launcher) */
int sm_boot_local_ranks(void);
/* pick the transport (SCTPMPI_TRANSPORT), start it with the job secret and the upcalls, and
 * give it every rank's business card; dies with a message on failure */
void sm_boot_transport(int rank, int size, const struct sm_upcalls *up,
                       const struct sm_transport_ops **ops, struct sm_transport **tp);
/* the job-wide barrier after the last frame left (0 or -1), then PMI is closed */
int sm_boot_barrier(void);
void sm_boot_finish(void);

/* ---- dynamic processes: what connect/accept tells another job about this one ---- */
const char *sm_boot_secret(void);         /* this job's secret ("" before the transport) */
uint32_t sm_boot_job_id(void);            /* this job's universe identity (0 before) */
const char *sm_boot_card(int rank);       /* rank's business card ("" if unknown) */
const char *sm_boot_transport_name(void); /* "tcp", "sctp", ... ("" before) */
/* PMI-1 commands beyond the key-value space (spawn, name service): sends the request lines
 * (each ending in '\n') and reads one reply line into reply; -1 when the launcher's PMI
 * cannot serve them (message in reply) */
int sm_boot_pmi_command(const char *request, char *reply, size_t len);

#endif
