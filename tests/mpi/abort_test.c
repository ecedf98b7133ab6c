/* abort_test — failure test (run by fail_check.sh, never prints " No Errors"): after a barrier,
 * rank 1 calls MPI_Abort(MPI_COMM_WORLD, 7) while rank 0 (and every other rank) is blocked in
 * an MPI_Recv that can never complete.  The launcher must end the whole job, exit non-zero and
 * name the failing rank.  Each rank records its pid in $SM_TEST_PIDDIR for the script. */
#include "sm_test.h"

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    if (sm_size < 2) {
        printf("abort_test needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (sm_rank == 1) {
        sm_nap_us(300000); /* let the others block in MPI_Recv */
        printf("sm-test: calling MPI_Abort(MPI_COMM_WORLD, 7)\n");
        fflush(stdout);
        MPI_Abort(MPI_COMM_WORLD, 7);
        printf("sm-test UNEXPECTED: MPI_Abort returned\n");
        fflush(stdout);
        return 1;
    }
    int v;
    MPI_Recv(&v, 1, MPI_INT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("sm-test UNEXPECTED: rank %d's MPI_Recv returned\n", sm_rank);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
