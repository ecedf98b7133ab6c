/* names.h — the name service mpiexec serves (MPI_Publish_name / Lookup_name, names.c). */
#ifndef MPIEXEC_NAMES_H
#define MPIEXEC_NAMES_H

#include "pmi_wire.h"

/* answers publish_name, unpublish_name and lookup_name: 1 handled, 0 not a name command */
int names_serve(const struct pmi_wire_server *s, struct pmi_wire_conn *c, const char *cmd,
                const struct pmi_wire_request *rq);
/* the directory of names this mpiexec made for itself goes (at exit) */
void names_cleanup(void);
/* makes sure SCTPMPI_NAME_DIR is set before jobs are spawned (they share our names) */
void names_export(void);

#endif
