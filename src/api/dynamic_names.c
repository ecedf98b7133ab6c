/* dynamic_names.c — the name service: MPI_Publish_name, MPI_Unpublish_name, MPI_Lookup_name.
 * Names live in the launcher: our mpiexec serves the PMI-1 commands publish_name,
 * unpublish_name and lookup_name from one table per mpiexec (jobs it spawned ask the same
 * table).  Separately started mpiexec jobs share names through a directory: with
 * SCTPMPI_NAME_DIR set, mpiexec keeps each name as a file there (docs/launcher.md). */
#include <stdio.h>
#include <string.h>

#include "api/dynamic.h"
#include "boot/boot.h"

/* a PMI-1 value: no whitespace, no '=' */
static int bad_token(const char *s)
{
    return !s || !*s || strpbrk(s, " \t\r\n=") != NULL || strlen(s) > 255;
}

static int name_command(const char *fn, int err_class, char *out, size_t outlen, const char *fmt,
                        const char *a, const char *b)
{
    char req[2048], reply[2048], rc[16], msg[256];
    snprintf(req, sizeof req, fmt, a, b);
    if (sm_boot_pmi_command(req, reply, sizeof reply))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_SERVICE, fn, "%s", reply);
    sm_dyn_reply_field(reply, "rc", rc, sizeof rc);
    if (strcmp(rc, "0")) {
        sm_dyn_reply_field(reply, "msg", msg, sizeof msg);
        return sm_error(MPI_COMM_WORLD, err_class, fn, "%s", *msg ? msg : reply);
    }
    if (out)
        sm_dyn_reply_field(reply, "port", out, outlen);
    return MPI_SUCCESS;
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    const char *fn = "MPI_Publish_name";
    SM_TRY(sm_check_init(fn));
    (void)info;
    if (bad_token(service_name) || bad_token(port_name))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                        "service and port names must be non-empty, at most 255 characters, "
                        "without blanks or '='");
    return name_command(fn, MPI_ERR_SERVICE, NULL, 0, "cmd=publish_name service=%s port=%s\n",
                        service_name, port_name);
}

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    const char *fn = "MPI_Unpublish_name";
    SM_TRY(sm_check_init(fn));
    (void)info;
    (void)port_name;
    if (bad_token(service_name))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad service name");
    return name_command(fn, MPI_ERR_SERVICE, NULL, 0, "cmd=unpublish_name service=%s%s\n",
                        service_name, "");
}

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    const char *fn = "MPI_Lookup_name";
    SM_TRY(sm_check_init(fn));
    (void)info;
    if (!port_name)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL port name buffer");
    if (bad_token(service_name))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_NAME, fn, "bad service name");
    return name_command(fn, MPI_ERR_NAME, port_name, MPI_MAX_PORT_NAME,
                        "cmd=lookup_name service=%s%s\n", service_name, "");
}
