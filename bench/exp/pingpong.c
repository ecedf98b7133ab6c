/* pingpong.c - MPBench-style ping-pong throughput between ranks 0 and 1 (paper 000, Fig. 8 and
 * Table 1).
 *
 * All messages carry the same tag (as MPBench). For each size: `--warmup` round trips, then timed
 * round trips until `--iters` are done or `--max-seconds` have passed (whichever first: under loss
 * TCP can take seconds per round trip). Throughput = 2 * size * round_trips / elapsed (bytes per
 * second moved by the exchange, i.e. size / one-way time). Every message is checked byte for byte
 * against a pattern that depends on the size, the round trip and the direction; any mismatch or
 * wrong status aborts with a non-zero exit.
 *
 * Modes: default sizes 1,2,4,...,1M (throughput vs size); `--loss` = sizes 30K,300K (the paper's
 * loss table; the network's loss is set by the harness, not here).
 * Output: one CSV row per size, "pingpong,size,round_trips,seconds,throughput_Bps,rtt_us".
 * Rank 1 receives with MPI_ANY_TAG so that rank 0 can end a size with an empty message on another
 * tag (not timed). Ranks >= 2 only join the barriers. */
#include "../common/bench.h"

#define TAG 7
#define MAXS 64

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    size_t sizes[MAXS];
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
            for (char *t = strtok_r(list, ",", &save); t && ns < MAXS; t = strtok_r(NULL, ",", &save))
                sizes[ns++] = bench_size(t);
        } else if (!strcmp(argv[i], "--iters") && i + 1 < argc) {
            iters = bench_long(argv[++i]);
        } else if (!strcmp(argv[i], "--warmup") && i + 1 < argc) {
            warmup = bench_long(argv[++i]);
        } else if (!strcmp(argv[i], "--max-seconds") && i + 1 < argc) {
            maxsec = bench_double(argv[++i]);
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: pingpong [--loss | --sizes a,b,..] [--iters N] [--warmup N] "
                                "[--max-seconds S]\n");
            MPI_Finalize();
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
                MPI_Send(sbuf, (int)n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD, &st);
                int cnt = -1;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                if (st.MPI_SOURCE != peer || st.MPI_TAG != TAG || cnt != (int)n)
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
            MPI_Send(sbuf, 0, MPI_BYTE, peer, TAG + 1, MPI_COMM_WORLD);
        } else if (rank == 1) {
            int peer = 0;
            for (long it = 0;; it++) {
                uint32_t seed_ping = (uint32_t)(it * 2 + 1) ^ (uint32_t)n, seed_pong = seed_ping + 0x9e37u;
                MPI_Status st;
                MPI_Recv(rbuf, (int)n, MPI_BYTE, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                if (st.MPI_TAG == TAG + 1)
                    break;
                int cnt = -1;
                MPI_Get_count(&st, MPI_BYTE, &cnt);
                if (st.MPI_SOURCE != peer || st.MPI_TAG != TAG || cnt != (int)n)
                    bench_fail("wrong ping status");
                if (bench_check(rbuf, n, seed_ping) != (size_t)-1)
                    bench_fail("ping data corrupt");
                bench_fill(sbuf, n, seed_pong);
                MPI_Send(sbuf, (int)n, MPI_BYTE, peer, TAG, MPI_COMM_WORLD);
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
    MPI_Finalize();
    return 0;
}
