/* early_exit — failure test (run by fail_check.sh, never prints " No Errors"): after a barrier,
 * rank 1 calls exit(3) without MPI_Finalize while the other ranks wait in MPI_Recv for a
 * message from it.  The launcher must notice, end the job, exit non-zero and name rank 1.
 * Each rank records its pid in $SM_TEST_PIDDIR for the script. */
#include "sm_test.h"

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    if (sm_size < 2) {
        printf("early_exit needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (sm_rank == 1) {
        sm_nap_us(300000); /* let the others block in MPI_Recv */
        printf("sm-test: exiting with status 3 without MPI_Finalize\n");
        fflush(stdout);
        exit(3);
    }
    int v;
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("sm-test UNEXPECTED: rank %d's MPI_Recv returned\n", sm_rank);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
