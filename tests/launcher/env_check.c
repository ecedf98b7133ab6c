/* env_check.c — MPI program for the launcher's flag tests: every rank checks that each
 * argument VAR=VALUE is set in its environment (VAR=! : must be unset), prints what it saw,
 * and rank 0 prints " No Errors" when every rank of MPI_COMM_WORLD agreed. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, errs = 0, total = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 1; i < argc; i++) {
        char name[128];
        const char *eq = strchr(argv[i], '=');
        size_t nl = eq ? (size_t)(eq - argv[i]) : strlen(argv[i]);
        if (!eq || nl >= sizeof name) {
            fprintf(stderr, "env_check: argument '%s' is not VAR=VALUE\n", argv[i]);
            errs++;
            continue;
        }
        memcpy(name, argv[i], nl);
        name[nl] = '\0';
        const char *want = eq + 1, *got = getenv(name);
        int ok = strcmp(want, "!") == 0 ? got == NULL : (got && strcmp(got, want) == 0);
        if (!ok) {
            fprintf(stderr, "env_check: rank %d: %s is '%s', want '%s'\n", rank, name,
                    got ? got : "(unset)", want);
            errs++;
        }
    }
    /* ranks really talk: the error count is summed over the job */
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        printf("size %d\n", size);
        if (total == 0)
            printf(" No Errors\n");
        else
            printf("Found %d errors\n", total);
    }
    MPI_Finalize();
    return total != 0;
}
