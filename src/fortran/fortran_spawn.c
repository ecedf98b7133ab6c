/* fortran_spawn.c — the Fortran entry points of MPI_Comm_spawn and MPI_Comm_spawn_multiple,
 * whose argument vectors are CHARACTER arrays: each entry loses its trailing blanks and the
 * first all-blank entry ends the vector (MPI_ARGV_NULL / MPI_ARGVS_NULL: no arguments).  The
 * argv of command i of spawn_multiple is column i of array_of_argv(count, *), that is the
 * entries i, i + count, i + 2 count, ... of the array in storage order. */
#include <string.h>

#include "fortran_support.h"

static int blank(const char *f, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (f[i] != ' ')
            return 0;
    return 1;
}

/* a NULL-terminated C argv from the entries f, f + stride, ... (each len characters long) */
static char **argv_in(const char *f, size_t len, size_t stride)
{
    size_t n = 0;
    while (!blank(f + n * stride, len))
        n++;
    char **v = sm_f_xmalloc((n + 1) * sizeof *v);
    for (size_t i = 0; i < n; i++)
        v[i] = sm_f_str_in(f + i * stride, len);
    v[n] = NULL;
    return v;
}

static void argv_free(char **v)
{
    if (!v)
        return;
    for (char **p = v; *p; p++)
        free(*p);
    free(v);
}

SM_FENTRY(mpi_comm_spawn, char *command, char *argv, MPI_Fint *maxprocs, MPI_Fint *info,
          MPI_Fint *root, MPI_Fint *comm, MPI_Fint *intercomm, MPI_Fint *array_of_errcodes,
          MPI_Fint *ierr, size_t command_len, size_t argv_len)
{
    char *c_command = sm_f_str_in(command, command_len);
    char **c_argv = argv == mpi_fortran_argv_null_ ? NULL : argv_in(argv, argv_len, argv_len);
    MPI_Comm c_inter = MPI_COMM_NULL;
    int rc =
        MPI_Comm_spawn(c_command, c_argv ? c_argv : MPI_ARGV_NULL, *maxprocs, MPI_Info_f2c(*info),
                       *root, MPI_Comm_f2c(*comm), &c_inter, sm_f_errcodes(array_of_errcodes));
    if (rc == MPI_SUCCESS)
        *intercomm = MPI_Comm_c2f(c_inter);
    free(c_command);
    argv_free(c_argv);
    if (ierr)
        *ierr = rc;
}

SM_FENTRY(mpi_comm_spawn_multiple, MPI_Fint *count, char *array_of_commands, char *array_of_argv,
          MPI_Fint *array_of_maxprocs, MPI_Fint *array_of_info, MPI_Fint *root, MPI_Fint *comm,
          MPI_Fint *intercomm, MPI_Fint *array_of_errcodes, MPI_Fint *ierr, size_t commands_len,
          size_t argv_len)
{
    int n = *count > 0 ? *count : 0;
    char **cmds = sm_f_xmalloc((size_t)(n + 1) * sizeof *cmds);
    char ***argvs = NULL;
    MPI_Info *infos = sm_f_xmalloc((size_t)(n + 1) * sizeof *infos);
    for (int i = 0; i < n; i++) {
        cmds[i] = sm_f_str_in(array_of_commands + (size_t)i * commands_len, commands_len);
        infos[i] = MPI_Info_f2c(array_of_info[i]);
    }
    if (array_of_argv != mpi_fortran_argvs_null_) {
        argvs = sm_f_xmalloc((size_t)(n + 1) * sizeof *argvs);
        for (int i = 0; i < n; i++)
            argvs[i] =
                argv_in(array_of_argv + (size_t)i * argv_len, argv_len, (size_t)n * argv_len);
    }
    MPI_Comm c_inter = MPI_COMM_NULL;
    int rc = MPI_Comm_spawn_multiple(*count, cmds, argvs ? argvs : MPI_ARGVS_NULL,
                                     array_of_maxprocs, infos, *root, MPI_Comm_f2c(*comm),
                                     &c_inter, sm_f_errcodes(array_of_errcodes));
    if (rc == MPI_SUCCESS)
        *intercomm = MPI_Comm_c2f(c_inter);
    for (int i = 0; i < n; i++) {
        free(cmds[i]);
        if (argvs)
            argv_free(argvs[i]);
    }
    free(cmds);
    free(argvs);
    free(infos);
    if (ierr)
        *ierr = rc;
}
