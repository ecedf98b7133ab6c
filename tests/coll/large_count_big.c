/* large_count_big.c — a real count beyond the int range: 2^31 + 8 chars sent with MPI_Send_c
 * and received with MPI_Recv_c (Get_count_c must report the count), broadcast with
 * MPI_Bcast_c, then reduced locally with MPI_Reduce_local_c.  Needs about 5 GB of memory for
 * two ranks: when /proc/meminfo says less is available, it prints why and exits with status
 * 77 (ctest reports the test as skipped). */
#include "../common/mpi_test.h"

#include <limits.h>

#define NEED_BYTES (7LL << 30) /* two 2 GiB buffers plus headroom */

static long long available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

static unsigned char pattern(MPI_Count i, int salt)
{
    return (unsigned char)((i * 131 + salt) >> 3);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    const MPI_Count count = ((MPI_Count)1 << 31) + 8;
    int go = 0;
    if (rank_ == 0) {
        long long avail = available();
        go = size_ == 2 && avail >= NEED_BYTES;
        if (!go)
            printf("SKIPPED: needs 2 ranks and %lld bytes available (have %d ranks, %lld bytes)\n",
                   NEED_BYTES, size_, avail);
    }
    MPI_Bcast(&go, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!go) {
        MPI_Finalize();
        return 77;
    }
    unsigned char *buf = xmalloc((size_t)count);
    MPI_Status st;
    MPI_Count got;
    if (rank_ == 0) {
        for (MPI_Count i = 0; i < count; i++)
            buf[i] = pattern(i, 1);
        MPI_Send_c(buf, count, MPI_CHAR, 1, 7, MPI_COMM_WORLD);
    } else {
        memset(buf, 0, (size_t)count);
        MPI_Recv_c(buf, count, MPI_CHAR, 0, 7, MPI_COMM_WORLD, &st);
        MPI_Get_count_c(&st, MPI_CHAR, &got);
        CHECK(got == count, "Get_count_c %lld, want %lld", (long long)got, (long long)count);
        MPI_Get_elements_c(&st, MPI_CHAR, &got);
        CHECK(got == count, "Get_elements_c %lld", (long long)got);
        for (MPI_Count i = 0; i < count; i++)
            CHECK(buf[i] == pattern(i, 1), "received byte %lld", (long long)i);
    }
    /* the other way round, as a broadcast from rank 1 */
    if (rank_ == 1)
        for (MPI_Count i = 0; i < count; i++)
            buf[i] = pattern(i, 2);
    MPI_Bcast_c(buf, count, MPI_CHAR, 1, MPI_COMM_WORLD);
    if (rank_ == 0)
        for (MPI_Count i = 0; i < count; i++)
            CHECK(buf[i] == pattern(i, 2), "broadcast byte %lld", (long long)i);
    /* a local reduction of the whole count (int-sized pieces underneath) */
    if (rank_ == 1)
        free(buf);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0) {
        unsigned char *acc = xmalloc((size_t)count);
        for (MPI_Count i = 0; i < count; i++)
            acc[i] = pattern(i, 3);
        MPI_Reduce_local_c(buf, acc, count, MPI_UNSIGNED_CHAR, MPI_BXOR);
        for (MPI_Count i = 0; i < count; i++)
            CHECK(acc[i] == (unsigned char)(pattern(i, 2) ^ pattern(i, 3)),
                  "Reduce_local_c byte %lld", (long long)i);
        free(acc);
        free(buf);
    }
    return finish();
}
