/* scale_check.c — a launcher test program: a point-to-point ring, Allreduce, Alltoall and
 * Bcast, all checked, plus what a launch costs: start-up time (from SM_LAUNCH_T0, the launch
 * time the caller puts in the environment as seconds since the epoch, to the end of
 * MPI_Init: the slowest rank), resident memory per rank (VmRSS after the checks) and the
 * number of sockets each rank holds (the TCP transport has one per peer it talked to).
 * Rank 0 prints one "scale:" line and " No Errors". */
#include <dirent.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static double wall(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

static int sockets(void)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    int n = 0;
    char path[512], target[128];
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t l = readlink(path, target, sizeof target - 1);
        if (l > 0) {
            target[l] = '\0';
            n += strncmp(target, "socket:", 7) == 0;
        }
    }
    if (d)
        closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double t_init = wall();
    int socks_init = sockets(), socks_init_max = 0;
    int rank, size, errs = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *t0s = getenv("SM_LAUNCH_T0");
    double startup = t0s ? t_init - atof(t0s) : -1, startup_max = 0;
    MPI_Reduce(&startup, &startup_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);

    /* ring: every rank talks to its two neighbours only */
    int right = (rank + 1) % size, left = (rank + size - 1) % size, got = -1;
    MPI_Sendrecv(&rank, 1, MPI_INT, right, 7, &got, 1, MPI_INT, left, 7, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (got != left) {
        fprintf(stderr, "rank %d: ring got %d from %d\n", rank, got, left);
        errs++;
    }
    int socks_ring = sockets();

    long sum = 0, want = (long)size * (size - 1) / 2, mine = rank;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (sum != want) {
        fprintf(stderr, "rank %d: allreduce %ld, wanted %ld\n", rank, sum, want);
        errs++;
    }
    int *snd = malloc((size_t)size * sizeof *snd), *rcv = malloc((size_t)size * sizeof *rcv);
    for (int i = 0; i < size; i++) {
        snd[i] = rank * 100000 + i;
        rcv[i] = -1;
    }
    MPI_Alltoall(snd, 1, MPI_INT, rcv, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size; i++) {
        if (rcv[i] != i * 100000 + rank) {
            fprintf(stderr, "rank %d: alltoall[%d] = %d, wanted %d\n", rank, i, rcv[i],
                    i * 100000 + rank);
            errs++;
            break;
        }
    }
    int b = rank == 0 ? 4242 : 0;
    MPI_Bcast(&b, 1, MPI_INT, 0, MPI_COMM_WORLD);
    errs += b != 4242;

    long rss = rss_kib(), rss_max = 0, rss_sum = 0;
    int socks = sockets(), socks_max = 0, socks_ring_max = 0, all_errs = 0;
    MPI_Reduce(&rss, &rss_max, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&rss, &rss_sum, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&socks, &socks_max, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&socks_ring, &socks_ring_max, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&socks_init, &socks_init_max, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&errs, &all_errs, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        printf(
            "scale: ranks %d startup_s %.3f rss_kib_mean %ld rss_kib_max %ld "
            "sockets_after_init_max %d sockets_after_ring_max %d sockets_after_alltoall_max %d\n",
            size, startup_max, rss_sum / size, rss_max, socks_init_max, socks_ring_max,
            socks_max);
        if (all_errs == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", all_errs);
    }
    free(snd);
    free(rcv);
    MPI_Finalize();
    return 0;
}
