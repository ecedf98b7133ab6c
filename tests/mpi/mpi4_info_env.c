/* mpi4_info_env.c — MPI_Info_create_env describes the environment the program was started in,
 * so it gives the same keys and values before MPI_Init, while MPI runs and after MPI_Finalize
 * (thread_level included: it once followed the level MPI_Init granted). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static const char *const keys[] = { "command", "argv", "maxprocs", "soft",        "host",
                                    "arch",    "wdir", "file",     "thread_level" };
#define NKEYS (int)(sizeof keys / sizeof keys[0])

static int differs(MPI_Info a, MPI_Info b, const char *when)
{
    int errs = 0;
    for (int i = 0; i < NKEYS; i++) {
        char va[MPI_MAX_INFO_VAL], vb[MPI_MAX_INFO_VAL];
        int la = sizeof va, lb = sizeof vb, fa = 0, fb = 0;
        MPI_Info_get_string(a, keys[i], &la, va, &fa);
        MPI_Info_get_string(b, keys[i], &lb, vb, &fb);
        if (fa != fb || (fa && strcmp(va, vb))) {
            printf("%s: key %s: '%s' (%s) then '%s' (%s)\n", when, keys[i], fa ? va : "",
                   fa ? "set" : "unset", fb ? vb : "", fb ? "set" : "unset");
            errs++;
        }
    }
    return errs;
}

int main(int argc, char **argv)
{
    MPI_Info before, during, after;
    int errs = 0, me = 0;
    MPI_Info_create_env(argc, argv, &before);
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Info_create_env(argc, argv, &during);
    errs += differs(before, during, "before MPI_Init / while MPI runs");
    char v[MPI_MAX_INFO_VAL];
    int len = sizeof v, flag = 0;
    MPI_Info_get_string(during, "thread_level", &len, v, &flag);
    if (flag && strncmp(v, "MPI_THREAD_", 11)) {
        printf("thread_level '%s' is not a level\n", v);
        errs++;
    }
    MPI_Finalize();
    MPI_Info_create_env(argc, argv, &after);
    errs += differs(before, after, "before MPI_Init / after MPI_Finalize");
    MPI_Info_free(&before);
    MPI_Info_free(&during);
    MPI_Info_free(&after);
    if (me == 0 && errs == 0)
        printf(" No Errors\n");
    return errs ? 1 : 0;
}
