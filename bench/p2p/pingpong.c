/* pingpong.c — ping-pong between ranks 0 and 1, in two modes (ranks >= 2 only join the
 * barriers; standard MPI only, so the same source builds against sctpmpi, Open MPI and MPICH):
 *
 * --mode latency (default; bench/p2p/pingpong): osu_latency-style one-way latency.  For each
 * size: warm-up iterations, then timed iterations of Send/Recv ping and pong; latency = elapsed
 * / (2 * iterations).  Every iteration checks the first and last byte of each message (an
 * iteration- and direction-dependent marker) plus the status source and tag; after the timed
 * loop one extra round checks every byte.  Run with --help for options; --csv prints
 * "pingpong,size_bytes,iters,latency_us" rows.
 *
 * --mode mpbench (the default of bench/exp/pingpong, built with PINGPONG_DEFAULT_MODE=1):
 * MPBench-style throughput (paper 000, Fig. 8 and Table 1).  All messages carry the same tag.
 * For each size: `--warmup` round trips, then timed round trips until `--iters` are done or
 * `--max-seconds` have passed (under loss TCP can take seconds per round trip).  Throughput =
 * 2 * size * round_trips / elapsed.  Every message is checked byte for byte against a pattern
 * of the size, the round trip and the direction.  Default sizes 1,2,4,...,1M; `--loss` = sizes
 * 30K,300K (the paper's loss table; the network's loss is set by the harness).  Output: one CSV
 * row per size, "pingpong,size,round_trips,seconds,throughput_Bps,rtt_us".  Rank 1 receives with
 * MPI_ANY_TAG so that rank 0 can end a size with an empty message on another tag (not timed).
 *
 * Any mismatch or wrong status aborts with a non-zero exit. */
#include "../common/bench.h"

#ifndef PINGPONG_DEFAULT_MODE
#define PINGPONG_DEFAULT_MODE 0 /* 0: latency, 1: mpbench */
#endif

#define MP_TAG 7

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

/* osu_latency style: one-way latency per size */
static int latency(int argc, char **argv, int rank, int nprocs)
{
    struct bench_opts o;
    int rc = bench_parse_args(argc, argv, &o, 0, rank);
    if (rc != 0)
        return rc > 0 ? 0 : 1;
    if (nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks\n");
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
    return 0;
}

/* MPBench style: throughput per size, all messages on one tag */
static int mpbench(int argc, char **argv, int rank, int np)
{
    size_t sizes[BENCH_MAX_SIZES];
    int ns = 0;
    long iters = 200, warmup = 5;
    double maxsec = 30;
    for (size_t s = 1; s <= (1u << 20); s *= 2)
        sizes[ns++] = s;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--loss")) {
            ns = 0;
            sizes[ns++] = 30 * 1024;
            sizes[ns++] = 300 * 1024;
        } else if (!strcmp(argv[i], "--sizes") && i + 1 < argc) {
            ns = 0;
            char *list = argv[++i], *save = NULL;
            for (char *t = strtok_r(list, ",", &save); t && ns < BENCH_MAX_SIZES; t = strtok_r(NULL, ",", &save))
                sizes[ns++] = bench_size(t);
        } else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = bench_long(argv[++i]);
        } else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) {
            warmup = bench_long(argv[++i]);
        } else if (!strcmp(argv[i], "--max-seconds") && i + 1 < argc) {
            maxsec = bench_double(argv[++i]);
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: pingpong [--mode mpbench] [--loss | --sizes a,b,..] [--iters N] "
                                "[--warmup N] [--max-seconds S]\n");
            return 2;
        }
    }
    if (np < 2)
        bench_fail("pingpong needs at least 2 ranks");
    size_t maxsize = 1;
    for (int i = 0; i < ns; i++)
        if (sizes[i] > maxsize)
            maxsize = sizes[i];
    unsigned char *sbuf = malloc(maxsize), *rbuf = malloc(maxsize);
    if (!sbuf || !rbuf)
        bench_fail("out of memory");
    if (rank == 0) {
        bench_print_env(stdout);
        printf("# pingpong ranks=%d iters=%ld warmup=%ld max_seconds=%g\n", np, iters, warmup, maxsec);
        printf("bench,size,round_trips,seconds,throughput_Bps,rtt_us\n");
        fflush(stdout);
    }
    for (int si = 0; si < ns; si++) {
        size_t n = sizes[si];
        long done = 0;
        double t0 = 0, t1 = 0;
        MPI_Barrier(MPI_COMM_WORLD);
        if (rank == 0) {
            int peer = 1;
            for (long it = 0;; it++) {
                if (it == warmup)
                    t0 = MPI_Wtime();
                uint32_t seed_ping = (uint32_t)(it * 2 + 1) ^ (uint32_t)n, seed_pong = seed_ping + 0x9e37u;
                MPI_Status st;
                bench_fill(sbuf, n, seed_ping);
                MPI_Send(sbuf, (int)n, MPI_BYTE, peer, MP_TAG, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, MP_TAG, MPI_COMM_WORLD, &st);
                int cnt = -1;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                if (st.MPI_SOURCE != peer || st.MPI_TAG != MP_TAG || cnt != (int)n)
                    bench_fail("wrong pong status");
                if (bench_check(rbuf, n, seed_pong) != (size_t)-1)
                    bench_fail("pong data corrupt");
                if (it >= warmup) {
                    done = it - warmup + 1;
                    t1 = MPI_Wtime();
                    if (done >= iters || t1 - t0 >= maxsec)
                        break;
                }
            }
            /* end of this size: an empty message on another tag (not timed) */
            MPI_Send(sbuf, 0, MPI_BYTE, peer, MP_TAG + 1, MPI_COMM_WORLD);
        } else if (rank == 1) {
            int peer = 0;
            for (long it = 0;; it++) {
                uint32_t seed_ping = (uint32_t)(it * 2 + 1) ^ (uint32_t)n, seed_pong = seed_ping + 0x9e37u;
                MPI_Status st;
                MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                if (st.MPI_TAG == MP_TAG + 1)
                    break;
                int cnt = -1;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                if (st.MPI_SOURCE != peer || st.MPI_TAG != MP_TAG || cnt != (int)n)
                    bench_fail("wrong ping status");
                if (bench_check(rbuf, n, seed_ping) != (size_t)-1)
                    bench_fail("ping data corrupt");
                bench_fill(sbuf, n, seed_pong);
                MPI_Send(sbuf, (int)n, MPI_BYTE, peer, MP_TAG, MPI_COMM_WORLD);
            }
        }
        if (rank == 0) {
            double el = t1 - t0;
            printf("pingpong,%zu,%ld,%.6f,%.1f,%.2f\n", n, done, el, el > 0 ? 2.0 * (double)n * (double)done / el : 0.0,
                   done > 0 ? el / (double)done * 1e6 : 0.0);
            fflush(stdout);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    free(sbuf);
    free(rbuf);
    return 0;
}

int main(int argc, char **argv)
{
    int rank = 0, np = 0, mode = PINGPONG_DEFAULT_MODE;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (argc > 2 && !strcmp(argv[1], "--mode")) {
        if (strcmp(argv[2], "latency") && strcmp(argv[2], "mpbench")) {
            if (rank == 0)
                fprintf(stderr, "pingpong: --mode latency|mpbench\n");
            MPI_Finalize();
            return 2;
        }
        mode = !strcmp(argv[2], "mpbench");
        argv[2] = argv[0];
        argv += 2;
        argc -= 2;
    }
    int rc = mode ? mpbench(argc, argv, rank, np) : latency(argc, argv, rank, np);
    MPI_Finalize();
    return rc;
}
