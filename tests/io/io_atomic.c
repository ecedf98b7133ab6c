/* io_atomic.c — atomic mode: with MPI_File_set_atomicity(1), concurrent overlapping accesses
 * behave as if serialised.  Writers fill one shared region again and again, each time with
 * its own value, through a non-contiguous view (two pieces far enough apart to be written
 * by separate system calls) so an interleaving would show;
 * every concurrent read of the region (by the readers, with no synchronisation) must see a
 * single writer's value throughout.  At the end the region holds one writer's value. */
#include "io_test.h"

enum { N = 16384, ITER = 40 }; /* ints in the region */

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    io_setup();
    MPI_File fh;
    SM_MPI(MPI_File_open(MPI_COMM_WORLD, io_path("atomic"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh));
    int flag;
    SM_MPI(MPI_File_get_atomicity(fh, &flag));
    SM_CHECK(flag == 0, "files start in non-atomic mode");
    SM_MPI(MPI_File_set_atomicity(fh, 1));
    SM_MPI(MPI_File_get_atomicity(fh, &flag));
    SM_CHECK(flag == 1, "atomicity not set");
    /* the region as two halves 800 KB apart (more than a sieving window): two pwrites */
    MPI_Datatype ft;
    int bl[2] = { N / 2, N / 2 }, dp[2] = { 0, 200000 };
    MPI_Type_indexed(2, bl, dp, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    SM_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    int *buf = malloc(sizeof(int) * N);
    for (int i = 0; i < N; i++)
        buf[i] = -1;
    if (sm_rank == 0)
        SM_MPI(MPI_File_write_at(fh, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    int writer = sm_size == 1 || sm_rank % 2 == 0;
    int reader = sm_size == 1 || sm_rank % 2 == 1;
    for (int it = 0; it < ITER; it++) {
        if (writer) {
            for (int i = 0; i < N; i++)
                buf[i] = sm_rank * 1000 + it;
            SM_MPI(MPI_File_write_at(fh, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE));
        }
        if (reader) {
            MPI_Status st;
            SM_MPI(MPI_File_read_at(fh, 0, buf, N, MPI_INT, &st));
            int cnt;
            MPI_Get_count(&st, MPI_INT, &cnt);
            SM_CHECK(cnt == N, "read %d ints", cnt);
            for (int i = 1; i < N; i++)
                SM_CHECK(buf[i] == buf[0], "iteration %d: int %d is %d but int 0 is %d", it, i,
                         buf[i], buf[0]);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    SM_MPI(MPI_File_read_at(fh, 0, buf, N, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 1; i < N; i++)
        SM_CHECK(buf[i] == buf[0], "final region mixed at %d", i);
    SM_CHECK(buf[0] % 1000 == ITER - 1, "final value %d is not a last write", buf[0]);
    MPI_Type_free(&ft);
    free(buf);
    SM_MPI(MPI_File_close(&fh));
    io_cleanup();
    sm_finish();
    return 0;
}
