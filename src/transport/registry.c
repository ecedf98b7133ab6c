/* registry.c — maps a transport name (SCTPMPI_TRANSPORT, mpiexec --transport) to its table. */
#include <string.h>

#include "transport/transport.h"

const struct sm_transport_ops *sm_transport_find(const char *name)
{
    if (!strcmp(name, "tcp"))
        return &sm_transport_tcp;
#ifdef SCTPMPI_HAVE_SCTP
    if (!strcmp(name, "sctp"))
        return &sm_transport_sctp;
#endif
    return NULL;
}
