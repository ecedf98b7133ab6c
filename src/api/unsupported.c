/* unsupported.c — functions of the standard that sctpmpi does not provide yet: dynamic
 * processes (spawn, ports, name service) and MPI-IO.  Each
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

#pragma weak MPI_Comm_get_parent = PMPI_Comm_get_parent
int PMPI_Comm_get_parent(MPI_Comm *parent)
{
    SM_TRY(sm_check_init("MPI_Comm_get_parent"));
    if (!parent)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_get_parent", "NULL argument");
    *parent = MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* ---- dynamic processes ---- */
#pragma weak MPI_Comm_spawn = PMPI_Comm_spawn
int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    return unsupported(comm, "MPI_Comm_spawn", "dynamic process management is not supported");
}

#pragma weak MPI_Comm_spawn_multiple = PMPI_Comm_spawn_multiple
int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    return unsupported(comm, "MPI_Comm_spawn_multiple",
                       "dynamic process management is not supported");
}

#pragma weak MPI_Comm_connect = PMPI_Comm_connect
int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    return unsupported(comm, "MPI_Comm_connect", "dynamic process management is not supported");
}

#pragma weak MPI_Comm_accept = PMPI_Comm_accept
int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    return unsupported(comm, "MPI_Comm_accept", "dynamic process management is not supported");
}

#pragma weak MPI_Comm_join = PMPI_Comm_join
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Comm_join",
                       "dynamic process management is not supported");
}

#pragma weak MPI_Open_port = PMPI_Open_port
int PMPI_Open_port(MPI_Info info, char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Open_port",
                       "dynamic process management is not supported");
}

#pragma weak MPI_Close_port = PMPI_Close_port
int PMPI_Close_port(const char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Close_port",
                       "dynamic process management is not supported");
}

#pragma weak MPI_Publish_name = PMPI_Publish_name
int PMPI_Publish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Publish_name",
                       "dynamic process management is not supported");
}

#pragma weak MPI_Unpublish_name = PMPI_Unpublish_name
int PMPI_Unpublish_name(const char *service_name, MPI_Info info, const char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Unpublish_name",
                       "dynamic process management is not supported");
}

#pragma weak MPI_Lookup_name = PMPI_Lookup_name
int PMPI_Lookup_name(const char *service_name, MPI_Info info, char *port_name)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Lookup_name",
                       "dynamic process management is not supported");
}

/* ---- MPI-IO ---- */
#pragma weak MPI_File_open = PMPI_File_open
int PMPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh)
{
    if (fh)
        *fh = MPI_FILE_NULL; /* no half-made handle for the caller to use */
    return unsupported(comm, "MPI_File_open", "MPI-IO is not supported");
}

#pragma weak MPI_File_close = PMPI_File_close
int PMPI_File_close(MPI_File *fh)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_close", "MPI-IO is not supported");
}

#pragma weak MPI_File_delete = PMPI_File_delete
int PMPI_File_delete(const char *filename, MPI_Info info)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_delete", "MPI-IO is not supported");
}

#pragma weak MPI_File_read = PMPI_File_read
int PMPI_File_read(MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read", "MPI-IO is not supported");
}

#pragma weak MPI_File_write = PMPI_File_write
int PMPI_File_write(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                    MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_all = PMPI_File_read_all
int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                       MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_all", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_all = PMPI_File_write_all
int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                        MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_all", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_at = PMPI_File_read_at
int PMPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype,
                      MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_at", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_at = PMPI_File_write_at
int PMPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                       MPI_Datatype datatype, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_at", "MPI-IO is not supported");
}

#pragma weak MPI_File_seek = PMPI_File_seek
int PMPI_File_seek(MPI_File fh, MPI_Offset offset, int whence)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_seek", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_size = PMPI_File_get_size
int PMPI_File_get_size(MPI_File fh, MPI_Offset *size)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_size", "MPI-IO is not supported");
}

#pragma weak MPI_File_set_view = PMPI_File_set_view
int PMPI_File_set_view(MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype,
                       const char *datarep, MPI_Info info)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_set_view", "MPI-IO is not supported");
}

/* ---- the rest of MPI-IO: no file can be opened, so none of these can do anything ---- */
#pragma weak MPI_File_set_size = PMPI_File_set_size
int PMPI_File_set_size(MPI_File fh, MPI_Offset size)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_set_size", "MPI-IO is not supported");
}

#pragma weak MPI_File_preallocate = PMPI_File_preallocate
int PMPI_File_preallocate(MPI_File fh, MPI_Offset size)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_preallocate", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_group = PMPI_File_get_group
int PMPI_File_get_group(MPI_File fh, MPI_Group *group)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_group", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_amode = PMPI_File_get_amode
int PMPI_File_get_amode(MPI_File fh, int *amode)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_amode", "MPI-IO is not supported");
}

#pragma weak MPI_File_set_info = PMPI_File_set_info
int PMPI_File_set_info(MPI_File fh, MPI_Info info)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_set_info", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_info = PMPI_File_get_info
int PMPI_File_get_info(MPI_File fh, MPI_Info *info_used)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_info", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_view = PMPI_File_get_view
int PMPI_File_get_view(MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype,
                       char *datarep)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_view", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype datatype, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_at_all", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype datatype, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_at_all", "MPI-IO is not supported");
}

#pragma weak MPI_File_iread_at = PMPI_File_iread_at
int PMPI_File_iread_at(MPI_File fh, MPI_Offset offset, void *buf, int count,
                       MPI_Datatype datatype, MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iread_at", "MPI-IO is not supported");
}

#pragma weak MPI_File_iwrite_at = PMPI_File_iwrite_at
int PMPI_File_iwrite_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                        MPI_Datatype datatype, MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iwrite_at", "MPI-IO is not supported");
}

#pragma weak MPI_File_iread_at_all = PMPI_File_iread_at_all
int PMPI_File_iread_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                           MPI_Datatype datatype, MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iread_at_all", "MPI-IO is not supported");
}

#pragma weak MPI_File_iwrite_at_all = PMPI_File_iwrite_at_all
int PMPI_File_iwrite_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                            MPI_Datatype datatype, MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iwrite_at_all", "MPI-IO is not supported");
}

#pragma weak MPI_File_iread = PMPI_File_iread
int PMPI_File_iread(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                    MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iread", "MPI-IO is not supported");
}

#pragma weak MPI_File_iwrite = PMPI_File_iwrite
int PMPI_File_iwrite(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                     MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iwrite", "MPI-IO is not supported");
}

#pragma weak MPI_File_iread_all = PMPI_File_iread_all
int PMPI_File_iread_all(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                        MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iread_all", "MPI-IO is not supported");
}

#pragma weak MPI_File_iwrite_all = PMPI_File_iwrite_all
int PMPI_File_iwrite_all(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                         MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iwrite_all", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_position = PMPI_File_get_position
int PMPI_File_get_position(MPI_File fh, MPI_Offset *offset)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_position", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_byte_offset = PMPI_File_get_byte_offset
int PMPI_File_get_byte_offset(MPI_File fh, MPI_Offset offset, MPI_Offset *disp)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_byte_offset", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_shared = PMPI_File_read_shared
int PMPI_File_read_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                          MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_shared", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_shared = PMPI_File_write_shared
int PMPI_File_write_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_shared", "MPI-IO is not supported");
}

#pragma weak MPI_File_iread_shared = PMPI_File_iread_shared
int PMPI_File_iread_shared(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iread_shared", "MPI-IO is not supported");
}

#pragma weak MPI_File_iwrite_shared = PMPI_File_iwrite_shared
int PMPI_File_iwrite_shared(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Request *request)
{
    if (request)
        *request = MPI_REQUEST_NULL; /* no half-made handle for the caller to use */
    return unsupported(MPI_COMM_WORLD, "MPI_File_iwrite_shared", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_ordered = PMPI_File_read_ordered
int PMPI_File_read_ordered(MPI_File fh, void *buf, int count, MPI_Datatype datatype,
                           MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_ordered", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_ordered = PMPI_File_write_ordered
int PMPI_File_write_ordered(MPI_File fh, const void *buf, int count, MPI_Datatype datatype,
                            MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_ordered", "MPI-IO is not supported");
}

#pragma weak MPI_File_seek_shared = PMPI_File_seek_shared
int PMPI_File_seek_shared(MPI_File fh, MPI_Offset offset, int whence)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_seek_shared", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_position_shared = PMPI_File_get_position_shared
int PMPI_File_get_position_shared(MPI_File fh, MPI_Offset *offset)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_position_shared", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype datatype)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_at_all_begin", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_at_all_end = PMPI_File_read_at_all_end
int PMPI_File_read_at_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_at_all_end", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype datatype)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_at_all_begin", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_at_all_end = PMPI_File_write_at_all_end
int PMPI_File_write_at_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_at_all_end", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin
int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_all_begin", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_all_end = PMPI_File_read_all_end
int PMPI_File_read_all_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_all_end", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_all_begin", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_all_end = PMPI_File_write_all_end
int PMPI_File_write_all_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_all_end", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype datatype)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_ordered_begin", "MPI-IO is not supported");
}

#pragma weak MPI_File_read_ordered_end = PMPI_File_read_ordered_end
int PMPI_File_read_ordered_end(MPI_File fh, void *buf, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_read_ordered_end", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype datatype)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_ordered_begin", "MPI-IO is not supported");
}

#pragma weak MPI_File_write_ordered_end = PMPI_File_write_ordered_end
int PMPI_File_write_ordered_end(MPI_File fh, const void *buf, MPI_Status *status)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_write_ordered_end", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_type_extent = PMPI_File_get_type_extent
int PMPI_File_get_type_extent(MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_type_extent", "MPI-IO is not supported");
}

#pragma weak MPI_File_set_atomicity = PMPI_File_set_atomicity
int PMPI_File_set_atomicity(MPI_File fh, int flag)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_set_atomicity", "MPI-IO is not supported");
}

#pragma weak MPI_File_get_atomicity = PMPI_File_get_atomicity
int PMPI_File_get_atomicity(MPI_File fh, int *flag)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_get_atomicity", "MPI-IO is not supported");
}

#pragma weak MPI_File_sync = PMPI_File_sync
int PMPI_File_sync(MPI_File fh)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_sync", "MPI-IO is not supported");
}

#pragma weak MPI_File_call_errhandler = PMPI_File_call_errhandler
int PMPI_File_call_errhandler(MPI_File fh, int errorcode)
{
    return unsupported(MPI_COMM_WORLD, "MPI_File_call_errhandler", "MPI-IO is not supported");
}

#pragma weak MPI_Register_datarep = PMPI_Register_datarep
int PMPI_Register_datarep(const char *datarep,
                          MPI_Datarep_conversion_function *read_conversion_fn,
                          MPI_Datarep_conversion_function *write_conversion_fn,
                          MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state)
{
    return unsupported(MPI_COMM_WORLD, "MPI_Register_datarep", "MPI-IO is not supported");
}
