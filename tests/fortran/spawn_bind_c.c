/* spawn_bind_c.c — the C half of spawn_bind.f90: MPI_Comm_spawn and MPI_Comm_spawn_multiple
 * defined here replace the library's (as a profiling layer would), so the test sees exactly
 * what the Fortran bindings hand to C: the commands and argument vectors built from the
 * CHARACTER arrays, the sentinels as C's NULLs, the converted handles.  Each call answers
 * MPI_COMM_SELF and error codes 0, 1, 2, ...; mismatches are counted in sm_spawn_errs. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int errs;
static int calls;

void c_spawn_result_(MPI_Fint *nerrs, MPI_Fint *ncalls);
void c_spawn_result_(MPI_Fint *nerrs, MPI_Fint *ncalls)
{
    *nerrs = errs;
    *ncalls = calls;
}

static void expect(int ok, const char *what)
{
    if (!ok) {
        errs++;
        printf("spawn binding: %s\n", what);
    }
}

/* argv equals the NULL-terminated list want */
static int same_argv(char **argv, const char *const *want)
{
    if (!argv)
        return want == NULL;
    if (!want)
        return 0;
    int i = 0;
    for (; want[i]; i++)
        if (!argv[i] || strcmp(argv[i], want[i]))
            return 0;
    return argv[i] == NULL;
}

static int info_value(MPI_Info info, const char *key, const char *want)
{
    char v[64];
    int flag = 0;
    if (info == MPI_INFO_NULL || MPI_Info_get(info, key, sizeof v - 1, v, &flag) != MPI_SUCCESS)
        return 0;
    return flag && !strcmp(v, want);
}

int MPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                   MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char *const args1[] = { "-x", "two words", NULL };
    calls++;
    expect(root == 0 && comm == MPI_COMM_WORLD, "root or comm");
    if (!strcmp(command, "./child")) {
        expect(same_argv(argv, args1), "argv of ./child");
        expect(maxprocs == 3 && info == MPI_INFO_NULL, "maxprocs or info of ./child");
        expect(array_of_errcodes != MPI_ERRCODES_IGNORE, "errcodes of ./child");
    } else if (!strcmp(command, "prog")) {
        expect(argv == MPI_ARGV_NULL, "MPI_ARGV_NULL");
        expect(array_of_errcodes == MPI_ERRCODES_IGNORE, "MPI_ERRCODES_IGNORE");
        expect(maxprocs == 1 && info_value(info, "host", "node7"), "maxprocs or info of prog");
    } else {
        expect(0, "command");
    }
    for (int i = 0; array_of_errcodes && i < maxprocs; i++)
        array_of_errcodes[i] = i;
    *intercomm = MPI_COMM_SELF;
    return MPI_SUCCESS;
}

int MPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                            const int array_of_maxprocs[], const MPI_Info array_of_info[],
                            int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    static const char *const a0[] = { "p", "q", NULL }, *const a1[] = { "r", NULL };
    calls++;
    expect(count == 2 && root == 0 && comm == MPI_COMM_WORLD, "count, root or comm");
    if (count != 2)
        return MPI_ERR_COUNT;
    expect(!strcmp(array_of_commands[0], "a") && !strcmp(array_of_commands[1], "bb"), "commands");
    expect(array_of_maxprocs[0] == 1 && array_of_maxprocs[1] == 2, "maxprocs");
    expect(array_of_info[0] == MPI_INFO_NULL && info_value(array_of_info[1], "host", "node7"),
           "infos");
    if (array_of_errcodes == MPI_ERRCODES_IGNORE) {
        expect(array_of_argv == MPI_ARGVS_NULL, "MPI_ARGVS_NULL");
    } else {
        expect(array_of_argv != MPI_ARGVS_NULL && same_argv(array_of_argv[0], a0) &&
                   same_argv(array_of_argv[1], a1),
               "array_of_argv");
        for (int i = 0; i < 3; i++)
            array_of_errcodes[i] = i;
    }
    *intercomm = MPI_COMM_SELF;
    return MPI_SUCCESS;
}
