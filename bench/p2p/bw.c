/* bw: osu_bw-style streaming bandwidth from rank 0 to rank 1.
 *
 * For each size, each iteration rank 0 posts a window (default 64) of Isends and rank 1 a window of
 * Irecvs; both Waitall, then rank 1 returns a small ack (the iteration number) that rank 0 checks.
 * Bandwidth = size * window * iterations / elapsed, in MB/s (10^6 bytes/s, as osu_bw).
 *
 * Data checks: every receive slot has its own buffer (no overlapping pending receives, unlike
 * osu_bw), so every message can be checked. Each iteration stamps a marker depending on
 * (iteration, slot) in the first and last byte of every message and rank 1 checks them all; after
 * the timed loop one more window is checked byte by byte. Mismatch: abort, non-zero exit.
 * Send side: for sizes <= 4 KiB each slot has its own send buffer; for larger sizes slot j sends
 * from offset j of one shared buffer (pending sends may share memory), which keeps the send side
 * cache-resident like osu_bw's single buffer while still giving each slot distinct first/last bytes.
 *
 * CPU cost: each of ranks 0 and 1 reads its own user+system CPU time (getrusage RUSAGE_SELF: all
 * threads of the process, so progress threads count) at the start and end of its timed loop; the
 * sum over the ranks is reported in CPU seconds per GB moved (10^9 bytes of payload).
 *
 * Standard MPI only (Init, Finalize, Comm_rank/size, Send, Recv, Isend, Irecv, Waitall, Barrier,
 * Reduce, Wtime, Abort). --csv prints "bench,size_bytes,iters,window,mb_per_s,cpu_s_per_gb" rows. */
#include "../common/bench.h"

#include <sys/resource.h>

#define TAG_DATA 100
#define TAG_ACK 101
#define SMALL_SEPARATE 4096 /* sizes up to this use one send buffer per slot */

static size_t stride_for(size_t n)
{
    return n <= SMALL_SEPARATE ? n : 1;
}

/* User + system CPU seconds of this process so far (all threads). */
static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0.0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec * 1e-6;
}

static void fail(int rank, size_t n, long iter, int slot, size_t off, unsigned got, unsigned want)
{
    char msg[200];
    snprintf(msg, sizeof msg, "size %zu iter %ld slot %d: corrupt byte at offset %zu (got %u, expected %u)",
             n, iter, slot, off, got, want);
    bench_die(rank, "%s", msg);
}

/* Full pattern over the whole send area; slot j's byte k is pattern(seed, j*stride + k). */
static void check_slot_full(const unsigned char *buf, size_t n, size_t stride, int slot, uint32_t seed,
                            int rank, long iter)
{
    size_t base = (size_t)slot * stride;
    for (size_t k = 0; k < n; k++) {
        unsigned char want = bench_pattern(seed, base + k);
        if (buf[k] != want)
            fail(rank, n, iter, slot, k, buf[k], want);
    }
}

int main(int argc, char **argv)
{
    int rank = 0, nprocs = 0;
    struct bench_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    int rc = bench_parse_args(argc, argv, &o, 1, rank);
    if (rc != 0) {
        MPI_Finalize();
        return rc > 0 ? 0 : 1;
    }
    if (nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "bw: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }
    const int W = o.window;

    size_t maxsz = 0;
    for (int s = 0; s < o.nsizes; s++)
        if (o.sizes[s] > maxsz)
            maxsz = o.sizes[s];
    /* Largest send area over all sizes: W*n for separate buffers, n+W for the shared one. */
    size_t send_area = (size_t)W * (maxsz < SMALL_SEPARATE ? maxsz : SMALL_SEPARATE);
    if (maxsz + (size_t)W > send_area)
        send_area = maxsz + (size_t)W;
    unsigned char *sbuf = NULL, *rbuf = NULL;
    if (rank == 0)
        sbuf = bench_alloc(send_area, rank);
    if (rank == 1)
        rbuf = bench_alloc((size_t)W * maxsz, rank);
    MPI_Request *reqs = bench_alloc(sizeof(MPI_Request) * (size_t)W, rank);
    MPI_Status *stats = bench_alloc(sizeof(MPI_Status) * (size_t)W, rank);

    if (rank == 0) {
        if (o.csv) {
            printf("bench,size_bytes,iters,window,mb_per_s,cpu_s_per_gb\n");
        } else {
            printf("# sctpmpi bench: bw (window %d, %d ranks, %s check)\n", W, nprocs,
                   o.full_check ? "full" : "first/last byte");
            printf("%-12s %14s %10s %12s\n", "# Size", "Bandwidth(MB/s)", "Iters", "CPU s/GB");
        }
        fflush(stdout);
    }

    for (int s = 0; s < o.nsizes; s++) {
        const size_t n = o.sizes[s];
        const int count = (int)n;
        const size_t stride = stride_for(n);
        const int large = n > o.large_threshold;
        const long iters = large ? o.iters_large : o.iters;
        const long skip = large ? o.skip_large : o.skip;
        const size_t area = (size_t)(W - 1) * stride + n;
        double t0 = 0.0, t1 = 0.0, cpu0 = 0.0, cpu1 = 0.0;

        MPI_Barrier(MPI_COMM_WORLD);
        /* Iteration skip+iters is the untimed, fully checked one. */
        for (long i = 0; i <= skip + iters; i++) {
            const int full = o.full_check || i == skip + iters;
            const uint32_t seed = (uint32_t)(i * 2 + 1) ^ (uint32_t)n;
            if (rank == 0) {
                if (i == skip) {
                    t0 = MPI_Wtime();
                    cpu0 = cpu_seconds();
                }
                if (full) {
                    bench_fill(sbuf, area, seed);
                } else if (n > 0) {
                    for (int j = 0; j < W; j++) {
                        /* last byte first: for n == 1 the first-byte marker wins */
                        sbuf[(size_t)j * stride + n - 1] = bench_marker(i, j, 1);
                        sbuf[(size_t)j * stride] = bench_marker(i, j, 0);
                    }
                }
                for (int j = 0; j < W; j++)
                    MPI_Isend(sbuf + (size_t)j * stride, count, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD,
                              &reqs[j]);
                MPI_Waitall(W, reqs, stats);
                int ack = -1;
                MPI_Status st;
                MPI_Recv(&ack, 1, MPI_INT, 1, TAG_ACK, MPI_COMM_WORLD, &st);
                if (ack != (int)i || st.MPI_SOURCE != 1 || st.MPI_TAG != TAG_ACK)
                    fail(rank, n, i, -1, 0, (unsigned)ack, (unsigned)i);
                if (i == skip + iters - 1) {
                    t1 = MPI_Wtime();
                    cpu1 = cpu_seconds();
                }
            } else if (rank == 1) {
                if (i == skip)
                    cpu0 = cpu_seconds();
                for (int j = 0; j < W; j++)
                    MPI_Irecv(rbuf + (size_t)j * n, count, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &reqs[j]);
                MPI_Waitall(W, reqs, stats);
                for (int j = 0; j < W; j++) {
                    const unsigned char *r = rbuf + (size_t)j * n;
                    if (stats[j].MPI_SOURCE != 0 || stats[j].MPI_TAG != TAG_DATA)
                        fail(rank, n, i, j, 0, (unsigned)stats[j].MPI_SOURCE, 0);
                    if (full) {
                        check_slot_full(r, n, stride, j, seed, rank, i);
                    } else if (n > 0) {
                        unsigned char a = bench_marker(i, j, 0);
                        unsigned char b = n == 1 ? a : bench_marker(i, j, 1);
                        if (r[0] != a)
                            fail(rank, n, i, j, 0, r[0], a);
                        if (r[n - 1] != b)
                            fail(rank, n, i, j, n - 1, r[n - 1], b);
                    }
                }
                int ack = (int)i;
                MPI_Send(&ack, 1, MPI_INT, 0, TAG_ACK, MPI_COMM_WORLD);
                if (i == skip + iters - 1)
                    cpu1 = cpu_seconds();
            }
        }

        /* after the timed loop: CPU seconds of ranks 0 and 1 (others add 0) */
        double cpu = cpu1 - cpu0, cpu_sum = 0.0;
        MPI_Reduce(&cpu, &cpu_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            const double bytes = (double)n * (double)W * (double)iters;
            double mbs = bytes / (t1 - t0) / 1e6;
            double cpu_per_gb = bytes > 0 ? cpu_sum / (bytes / 1e9) : 0.0;
            if (o.csv)
                printf("bw,%zu,%ld,%d,%.2f,%.3f\n", n, iters, W, mbs, cpu_per_gb);
            else
                printf("%-12zu %14.2f %10ld %12.3f\n", n, mbs, iters, cpu_per_gb);
            fflush(stdout);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    free(reqs);
    free(stats);
    MPI_Finalize();
    return 0;
}
