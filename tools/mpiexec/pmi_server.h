/* pmi_server.h — mpiexec's side of PMI-1: answers each rank's requests over its socketpair. */
#ifndef MPIEXEC_PMI_SERVER_H
#define MPIEXEC_PMI_SERVER_H

#include "job.h"
#include "pmi_wire.h"

/* Fills s with mpiexec's answers to the PMI-1 commands for job (s must outlive the job). */
void pmi_server_setup(struct job *job, struct pmi_wire_server *s);

/* Reads what rank rp sent and answers every complete request line.  Closes rp->pmi.fd
 * when the rank closes its end. */
void pmi_server_pump(struct job *job, struct rank_proc *rp);

#endif
