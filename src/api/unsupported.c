/* unsupported.c — functions of the standard that sctpmpi does not provide yet: dynamic
 * processes (spawn, ports, name service).  Each
 * checks that MPI is initialised and reports MPI_ERR_UNSUPPORTED_OPERATION through the
 * communicator's error handler (COMM_WORLD's when it has no communicator argument
 * or an invalid one), so a program finds out at run time with a clear message instead of
 * failing to link.  MPI_Comm_get_parent is provided (no process is ever spawned, so the
 * parent is always MPI_COMM_NULL, as the standard specifies for such a process). */
#include "api/api.h"

/* the stubs take the standard's parameters and use none of them (output handles are set to
 * their null values, so a program that ignores the error does not use garbage) */
#pragma GCC diagnostic ignored "-Wunused-parameter"

static int unsupported(MPI_Comm c, const char *fn, const char *what)
{
    SM_TRY(sm_check_init(fn));
    if (!c || !c->valid)
        c = MPI_COMM_WORLD;
    return sm_error(c, MPI_ERR_UNSUPPORTED_OPERATION, fn, "%s", what);
}

int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    SM_TRY(sm_check_init("MPI_Comm_get_parent"));
    if (!parent)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_get_parent", "NULL argument");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* ---- dynamic processes ---- */
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    return unsupported(comm, "MPI_Comm_spawn", "dynamic process management is not supported");
}

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    return unsupported(comm, "MPI_Comm_spawn_multiple",
                       "dynamic process management is not supported");
}

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    return unsupported(comm, "MPI_Comm_connect", "dynamic process management is not supported");
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    return unsupported(comm, "MPI_Comm_accept", "dynamic process management is not supported");
}

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Comm_join",
                       "dynamic process management is not supported");
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Open_port",
                       "dynamic process management is not supported");
}

int PMPI_Close_port(const char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Close_port",
                       "dynamic process management is not supported");
}

int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Publish_name",
                       "dynamic process management is not supported");
}

int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Unpublish_name",
                       "dynamic process management is not supported");
}

int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Lookup_name",
                       "dynamic process management is not supported");
}
