/* own_names.c — a program that defines functions with the names of the library's internal
 * functions (SCTP engine, buffer pool, checksum, engine entry points) and data.  With only the
 * MPI names exported, the library keeps calling its own code and MPI traffic (point-to-point,
 * a large rendezvous message, collectives) still works.  Prints " No Errors" on rank 0. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

/* same names, unrelated meanings: a call from inside the library would fail loudly */
int assoc_new(void) { fprintf(stderr, "the library called the program's assoc_new\n"); abort(); }
int bufpool_get(void) { fprintf(stderr, "the library called the program's bufpool_get\n"); abort(); }
int crc32c_update(void) { fprintf(stderr, "the library called the program's crc32c_update\n"); abort(); }
int cookie_mac(void) { fprintf(stderr, "the library called the program's cookie_mac\n"); abort(); }
int sm_send_start(void) { fprintf(stderr, "the library called the program's sm_send_start\n"); abort(); }
int sm_eng = 7; /* an engine global's name, as a plain int */

int main(int argc, char **argv)
{
    int rank, size, errs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    enum { N = 1 << 18 };
    int *big = malloc(N * sizeof *big);
    if (size > 1 && rank < 2) {
        if (rank == 0) {
            for (int i = 0; i < N; i++)
                big[i] = i ^ 0x5a5a;
            MPI_Send(big, N, MPI_INT, 1, 3, MPI_COMM_WORLD);
        } else {
            MPI_Recv(big, N, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            for (int i = 0; i < N; i++)
                if (big[i] != (i ^ 0x5a5a)) {
                    errs++;
                    break;
                }
        }
    }
    free(big);
    int v = rank, sum = -1;
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (sum != size * (size - 1) / 2)
        errs++;
    if (sm_eng != 7)
        errs++;
    int all = 0;
    MPI_Reduce(&errs, &all, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf(all ? "%d errors\n" : " No Errors\n", all);
    MPI_Finalize();
    return 0;
}
