/* fairflow.c — one bulk MPI flow for the shared-bottleneck fairness benchmark (fairness.py).
 *
 * Rank --from (default 0) streams messages of --size bytes to rank --to (default 1) for --secs
 * seconds (other ranks only wait), keeping --window
 * Isends in flight (MPI_Waitany refills a ring); the first int of every message is 1 in the
 * last message, 0 otherwise.  Rank 1 receives them one by one and counts the payload per bin of
 * --bin seconds of the wall clock (CLOCK_REALTIME, so that the driver can line the bins up with
 * a kernel-TCP flow measured by another process).  At the end the receiver prints
 *   fairflow,<epoch seconds of bin 0>,<bin seconds>,<bins>,<total bytes>
 *   bins,<bytes in bin 0>,<bytes in bin 1>,...
 * and checks that every message had the expected length and fill byte (exit 1 otherwise).
 * Standard MPI only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_BINS 100000

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    int rank, nprocs;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    int size = 65536, window = 16, from = 0, to = 1;
    double secs = 10, bin = 0.1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--size"))
            size = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--window"))
            window = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--secs"))
            secs = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--bin"))
            bin = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--from"))
            from = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--to"))
            to = atoi(argv[i + 1]);
    }
    if (nprocs < 2 || from < 0 || to < 0 || from >= nprocs || to >= nprocs || from == to ||
        size < (int)sizeof(int) || window < 1 || window > 1024 || secs <= 0 || bin <= 0 ||
        secs / bin > MAX_BINS - 10) {
        if (rank == 0)
            fprintf(stderr,
                    "fairflow: needs 2 ranks, distinct --from/--to ranks, --size >= 4, --window "
                    "1..1024, --secs > 0, "
                    "--bin > 0 and secs/bin < %d\n",
                    MAX_BINS - 10);
        MPI_Finalize();
        return 1;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == from) {
        char *buf = malloc((size_t)size * (size_t)window);
        MPI_Request *req = malloc(sizeof *req * (size_t)window);
        if (!buf || !req)
            MPI_Abort(MPI_COMM_WORLD, 2);
        memset(buf, 0x5a, (size_t)size * (size_t)window);
        double t0 = MPI_Wtime();
        int last = 0, n = 0;
        for (int i = 0; i < window; i++)
            req[i] = MPI_REQUEST_NULL;
        while (!last) {
            int idx = n < window ? n : -1;
            if (idx < 0)
                MPI_Waitany(window, req, &idx, MPI_STATUS_IGNORE);
            char *m = buf + (size_t)idx * (size_t)size;
            last = MPI_Wtime() - t0 >= secs;
            memcpy(m, &last, sizeof last);
            MPI_Isend(m, size, MPI_BYTE, to, 7, MPI_COMM_WORLD, &req[idx]);
            n++;
        }
        MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
        free(buf);
        free(req);
    } else if (rank == to) {
        char *buf = malloc((size_t)size);
        static long long bins[MAX_BINS];
        if (!buf)
            MPI_Abort(MPI_COMM_WORLD, 2);
        double t0 = 0;
        long long total = 0;
        int nb = 0, bad = 0, last = 0;
        while (!last) {
            MPI_Status st;
            int count;
            MPI_Recv(buf, size, MPI_BYTE, from, 7, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_BYTE, &count);
            double t = wall_now();
            if (t0 == 0)
                t0 = t;
            int b = (int)((t - t0) / bin);
            if (b >= MAX_BINS)
                b = MAX_BINS - 1;
            if (b + 1 > nb)
                nb = b + 1;
            bins[b] += count;
            total += count;
            memcpy(&last, buf, sizeof last);
            if (count != size || buf[size - 1] != 0x5a)
                bad = 1;
        }
        printf("fairflow,%.6f,%.3f,%d,%lld\nbins", t0, bin, nb, total);
        for (int i = 0; i < nb; i++)
            printf(",%lld", bins[i]);
        printf("\n");
        fflush(stdout);
        free(buf);
        if (bad) {
            fprintf(stderr, "fairflow: a message had the wrong length or content\n");
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    MPI_Finalize();
    return 0;
}
