/* pingpong: osu_latency-style one-way latency between ranks 0 and 1.
 *
 * For each size: warm-up iterations, then timed iterations of Send/Recv ping and pong;
 * latency = elapsed / (2 * iterations). Every iteration checks the first and last byte of each
 * message (an iteration- and direction-dependent marker) plus the status source and tag; after
 * the timed loop one extra round checks every byte. Any mismatch aborts with a non-zero exit.
 *
 * Standard MPI only (Init, Finalize, Comm_rank/size, Send, Recv, Barrier, Wtime, Abort), so the
 * same source builds against sctpmpi, Open MPI and MPICH. Ranks >= 2 only join the barriers.
 * Run with --help for options; --csv prints "bench,size_bytes,iters,latency_us" rows. */
#include "../common/bench.h"

#define TAG_PING 1
#define TAG_PONG 2

static void check_status(const MPI_Status *st, int src, int tag, int rank, size_t size)
{
    if (st->MPI_SOURCE != src || st->MPI_TAG != tag) {
        char msg[160];
        snprintf(msg, sizeof msg, "size %zu: status source %d tag %d, expected %d/%d", size,
                 st->MPI_SOURCE, st->MPI_TAG, src, tag);
        bench_die(rank, "%s", msg);
    }
}

static void check_marker(const unsigned char *buf, size_t n, unsigned char want, int rank, long iter)
{
    if (n == 0)
        return;
    if (buf[0] != want || buf[n - 1] != want) {
        char msg[160];
        snprintf(msg, sizeof msg, "size %zu iter %ld: corrupt data (first %u last %u, expected %u)", n,
                 iter, buf[0], buf[n - 1], want);
        bench_die(rank, "%s", msg);
    }
}

static void check_full(const unsigned char *buf, size_t n, uint32_t seed, int rank)
{
    size_t bad = bench_check(buf, n, seed);
    if (bad != (size_t)-1) {
        char msg[160];
        snprintf(msg, sizeof msg, "size %zu: corrupt byte at offset %zu (got %u, expected %u)", n, bad,
                 buf[bad], bench_pattern(seed, bad));
        bench_die(rank, "%s", msg);
    }
}

static inline void stamp(unsigned char *buf, size_t n, unsigned char m)
{
    if (n > 0) {
        buf[0] = m;
        buf[n - 1] = m;
    }
}

int main(int argc, char **argv)
{
    int rank = 0, nprocs = 0;
    struct bench_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    int rc = bench_parse_args(argc, argv, &o, 0, rank);
    if (rc != 0) {
        MPI_Finalize();
        return rc > 0 ? 0 : 1;
    }
    if (nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks\n");
        MPI_Finalize();
        return 1;
    }

    size_t maxsz = 0;
    for (int s = 0; s < o.nsizes; s++)
        if (o.sizes[s] > maxsz)
            maxsz = o.sizes[s];
    unsigned char *sbuf = bench_alloc(maxsz, rank);
    unsigned char *rbuf = bench_alloc(maxsz, rank);

    if (rank == 0) {
        if (o.csv) {
            printf("bench,size_bytes,iters,latency_us\n");
        } else {
            printf("# sctpmpi bench: pingpong (one-way latency, %d ranks, %s check)\n", nprocs,
                   o.full_check ? "full" : "first/last byte");
            printf("%-12s %12s %10s\n", "# Size", "Latency(us)", "Iters");
        }
        fflush(stdout);
    }

    for (int s = 0; s < o.nsizes; s++) {
        const size_t n = o.sizes[s];
        const int count = (int)n;
        const int large = n > o.large_threshold;
        const long iters = large ? o.iters_large : o.iters;
        const long skip = large ? o.skip_large : o.skip;
        MPI_Status st;
        double t0 = 0.0, t1 = 0.0;

        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            for (long i = 0; i < skip + iters; i++) {
                if (i == skip)
                    t0 = MPI_Wtime();
                if (o.full_check)
                    bench_fill(sbuf, n, (uint32_t)(2 * i));
                else
                    stamp(sbuf, n, bench_marker(i, 0, 0));
                MPI_Send(sbuf, count, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
                MPI_Recv(rbuf, count, MPI_BYTE, 1, TAG_PONG, MPI_COMM_WORLD, &st);
                check_status(&st, 1, TAG_PONG, rank, n);
                if (o.full_check)
                    check_full(rbuf, n, (uint32_t)(2 * i + 1), rank);
                else
                    check_marker(rbuf, n, bench_marker(i, 0, 1), rank, i);
            }
            t1 = MPI_Wtime();
        } else if (rank == 1) {
            for (long i = 0; i < skip + iters; i++) {
                MPI_Recv(rbuf, count, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, &st);
                check_status(&st, 0, TAG_PING, rank, n);
                if (o.full_check) {
                    check_full(rbuf, n, (uint32_t)(2 * i), rank);
                    bench_fill(sbuf, n, (uint32_t)(2 * i + 1));
                } else {
                    check_marker(rbuf, n, bench_marker(i, 0, 0), rank, i);
                    stamp(sbuf, n, bench_marker(i, 0, 1));
                }
                MPI_Send(sbuf, count, MPI_BYTE, 0, TAG_PONG, MPI_COMM_WORLD);
            }
        }

        /* One untimed round with every byte checked, both directions. */
        const uint32_t seed = (uint32_t)n * 7u + 3u;
        if (rank == 0) {
            bench_fill(sbuf, n, seed);
            MPI_Send(sbuf, count, MPI_BYTE, 1, TAG_PING, MPI_COMM_WORLD);
            MPI_Recv(rbuf, count, MPI_BYTE, 1, TAG_PONG, MPI_COMM_WORLD, &st);
            check_status(&st, 1, TAG_PONG, rank, n);
            check_full(rbuf, n, seed + 1, rank);
        } else if (rank == 1) {
            MPI_Recv(rbuf, count, MPI_BYTE, 0, TAG_PING, MPI_COMM_WORLD, &st);
            check_status(&st, 0, TAG_PING, rank, n);
            check_full(rbuf, n, seed, rank);
            bench_fill(sbuf, n, seed + 1);
            MPI_Send(sbuf, count, MPI_BYTE, 0, TAG_PONG, MPI_COMM_WORLD);
        }

        if (rank == 0) {
            double lat = (t1 - t0) * 1e6 / (2.0 * (double)iters);
            if (o.csv)
                printf("pingpong,%zu,%ld,%.3f\n", n, iters, lat);
            else
                printf("%-12zu %12.2f %10ld\n", n, lat, iters);
            fflush(stdout);
        }
    }

    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
