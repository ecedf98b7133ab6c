/* rma_peer_exit — failure test (run by fail_check.sh, never prints " No Errors"): while the
 * other ranks are inside passive-target epochs on rank 1's window memory (lock, Put, Get, flush,
 * unlock, over and over), rank 1 exits with status 3 without MPI_Finalize.  The launcher must
 * end the job, exit non-zero and name rank 1; no rank may hang in a flush or an unlock that can
 * no longer complete.  Each rank records its pid in $SM_TEST_PIDDIR for the script. */
#include "sm_test.h"

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    if (sm_size < 2) {
        printf("rma_peer_exit needs at least 2 ranks\n");
        MPI_Finalize();
        return 2;
    }
    static int mem[4096];
    MPI_Win win;
    MPI_Win_create(mem, sizeof mem, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Barrier(MPI_COMM_WORLD);
    if (sm_rank == 1) {
        sm_nap_us(300000); /* let the others get well into their epochs */
        printf("sm-test: exiting with status 3 without MPI_Finalize\n");
        fflush(stdout);
        exit(3);
    }
    int buf[4096], got[4096];
    for (int i = 0; i < 4096; i++)
        buf[i] = sm_rank + i;
    for (long it = 0;; it++) {
        int rc = MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Put(buf, 4096, MPI_INT, 1, 0, 4096, MPI_INT, win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Get(got, 4096, MPI_INT, 1, 0, 4096, MPI_INT, win);
        if (rc == MPI_SUCCESS)
            rc = MPI_Win_flush(1, win);
        int urc = MPI_Win_unlock(1, win);
        if (rc != MPI_SUCCESS || urc != MPI_SUCCESS) {
            /* the failure was reported: wait for the launcher to end the job */
            printf("sm-test: rank %d: one-sided call failed after %ld epochs (rc %d, %d)\n",
                   sm_rank, it, rc, urc);
            fflush(stdout);
            for (;;)
                sm_nap_us(100000);
        }
    }
}
