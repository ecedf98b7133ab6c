/* registry.c — maps a transport name (SCTPMPI_TRANSPORT, mpiexec --transport) to its table. */
#include <stdlib.h>
#include <string.h>

#include "transport/transport.h"
#include "util/util.h"

extern const struct sm_transport_ops sm_transport_sctpn; /* native engine: transport/sctpn/ */
extern const struct sm_transport_ops sm_transport_sim;   /* mpiexec --sim: transport/sim/ */
#ifdef SCTPMPI_HAVE_KSCTP
extern const struct sm_transport_ops sm_transport_ksctp; /* kernel SCTP: transport/ksctp/ */
int sm_ksctp_available(void);
#endif

/* SCTPMPI_SCTP_BACKEND=native|usrsctp|kernel|auto picks the SCTP implementation behind "sctp":
 * our own engine (transport/sctpn/, the default), usrsctp (transport/usrsctp/, when built with
 * it), the operating system's SCTP (transport/ksctp/, when built with netinet/sctp.h), or
 * auto: the kernel's where a kernel SCTP socket can be opened, else our engine */
static const struct sm_transport_ops *sctp_backend(void)
{
    const char *b = getenv("SCTPMPI_SCTP_BACKEND");
    if (!b || !*b || !strcmp(b, "native"))
        return &sm_transport_sctpn;
    if (!strcmp(b, "usrsctp")) {
#ifdef SCTPMPI_HAVE_SCTP
        return &sm_transport_usrsctp;
#else
        SM_ERR("SCTPMPI_SCTP_BACKEND=usrsctp: this build has no usrsctp (libusrsctp-dev)");
        return NULL;
#endif
    }
    if (!strcmp(b, "kernel") || !strcmp(b, "auto")) {
#ifdef SCTPMPI_HAVE_KSCTP
        if (!strcmp(b, "kernel") || sm_ksctp_available())
            return &sm_transport_ksctp;
#else
        if (!strcmp(b, "kernel")) {
            SM_ERR("SCTPMPI_SCTP_BACKEND=kernel: this build has no kernel SCTP backend "
                   "(netinet/sctp.h from libsctp-dev was missing)");
            return NULL;
        }
#endif
        return &sm_transport_sctpn;
    }
    SM_ERR("unknown SCTPMPI_SCTP_BACKEND=%s (expected native, usrsctp, kernel or auto)", b);
    return NULL;
}

const struct sm_transport_ops *sm_transport_find(const char *name)
{
    if (!strcmp(name, "tcp"))
        return &sm_transport_tcp;
    if (!strcmp(name, "sctp"))
        return sctp_backend();
    if (!strcmp(name, "sim"))
        return &sm_transport_sim;
    return NULL;
}
