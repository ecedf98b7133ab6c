/* rma_channel_test.c — the RMA channel (src/engine/rma_channel.h) between the ranks of a real
 * job, without the one-sided layer on top.
 *
 *   order   every rank sends segments of varying length (up to the largest the channel carries)
 *           to every rank, itself included, on every RMA lane; the receiver checks the sender,
 *           the lane, the per-(sender, lane) sequence and every byte.  With a time limit, the
 *           last rank first computes without MPI calls until the others' segments have all
 *           reached its receiver (its transport's thread delivers them, in order; looking at
 *           the receiver's count under the channel lock is no MPI call), failing if that takes
 *           longer than the limit; then it sends its own.
 *   strong  strong progress: rank 1 computes for a while (2 s) without any MPI call while
 *           rank 0 sends pings that rank 1's receiver answers from its callback; every answer
 *           must reach rank 0 long before rank 1 is done, and rank 1's receiver must have seen
 *           every ping when its computation ends (before it makes any MPI call).  Meanwhile
 *           rank 0 also sends point-to-point messages (eager and rendezvous; half of them
 *           pre-posted at rank 1): the transport's thread must keep them, in order, for rank
 *           1's next MPI call, and every byte must arrive.  With an answer size (fourth
 *           argument, bytes), rank 1 sends that much data (in segments as large as the channel
 *           carries, checked byte by byte at rank 0) ahead of each pong on the same lane: more
 *           than the send buffer holds, so the transport's thread must also push what waits in
 *           its send queue while rank 1 computes.
 * Prints " No Errors" from rank 0 on success. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/rma_channel.h"
#include "mpi.h"

static int rank, size;

#define FAIL(...)                                                                  \
    do {                                                                           \
        fprintf(stderr, "rank %d: sm-test FAILED: ", rank);                        \
        fprintf(stderr, __VA_ARGS__);                                              \
        fprintf(stderr, "\n");                                                     \
        MPI_Abort(MPI_COMM_WORLD, 1);                                              \
    } while (0)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct seg_hdr {
    uint32_t magic;
    int32_t src;
    uint32_t lane, seq;
    uint32_t kind; /* order: 0; strong: 1 ping, 2 pong, 3 answer data */
    uint32_t len;
};
#define MAGIC 0x524d4348u

static unsigned char pattern(int src, unsigned lane, unsigned seq, size_t i)
{
    return (unsigned char)((unsigned)src * 131u + lane * 29u + seq * 7u + i * 13u + (i >> 8));
}

static long bad;

static void peer_failed(void *ctx, int peer, const char *why)
{
    (void)ctx;
    fprintf(stderr, "rank %d: sm-test FAILED: peer %d failed: %s\n", rank, peer, why);
    bad++;
}

/* ---- order ---- */
static unsigned nlanes;
static unsigned *next_seq; /* [src * nlanes + lane] */
static long received;

static void order_segment(void *ctx, int peer, const void *seg, size_t len)
{
    (void)ctx;
    struct seg_hdr h;
    if (len < sizeof h) {
        bad++;
        return;
    }
    memcpy(&h, seg, sizeof h);
    if (h.magic != MAGIC || h.src != peer || h.lane >= nlanes || h.len != len || h.kind != 0) {
        fprintf(stderr, "rank %d: bad segment from %d (src %d lane %u len %u/%zu)\n", rank, peer,
                h.src, h.lane, h.len, len);
        bad++;
        return;
    }
    unsigned *exp = &next_seq[(unsigned)peer * nlanes + h.lane];
    if (h.seq != *exp) {
        fprintf(stderr, "rank %d: from %d lane %u: seq %u, expected %u\n", rank, peer, h.lane,
                h.seq, *exp);
        bad++;
    }
    *exp = h.seq + 1;
    const unsigned char *b = seg;
    for (size_t i = sizeof h; i < len; i++)
        if (b[i] != pattern(peer, h.lane, h.seq, i)) {
            fprintf(stderr, "rank %d: from %d lane %u seq %u: byte %zu wrong\n", rank, peer,
                    h.lane, h.seq, i);
            bad++;
            break;
        }
    received++;
}

static size_t seg_len(unsigned seq, size_t maxseg)
{
    if (seq % 50 == 49)
        return maxseg; /* the largest the channel carries */
    size_t l = sizeof(struct seg_hdr) + (seq * 977u) % 20000u;
    return l > maxseg ? maxseg : l;
}

static void compute(double s)
{
    double t0 = now_s();
    volatile double x = 1.0;
    while (now_s() - t0 < s) /* no MPI call in here */
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
}

static void run_order(int per_lane, double compute_s)
{
    nlanes = sm_rma_chan_lanes();
    size_t maxseg = sm_rma_chan_max_segment();
    if (nlanes < 1 || maxseg < 4096)
        FAIL("lanes %u, max segment %zu", nlanes, maxseg);
    if (maxseg > (1u << 20))
        maxseg = 1u << 20;
    next_seq = calloc((size_t)size * nlanes, sizeof *next_seq);
    struct sm_rma_receiver rx = {NULL, order_segment, peer_failed};
    if (sm_rma_chan_open(&rx) != MPI_SUCCESS)
        FAIL("open");
    /* bad input is refused */
    char tiny[8] = {0};
    if (sm_rma_chan_send(size, 0, tiny, sizeof tiny) == MPI_SUCCESS ||
        sm_rma_chan_send(0, nlanes, tiny, sizeof tiny) == MPI_SUCCESS ||
        sm_rma_chan_send(0, 0, tiny, sm_rma_chan_max_segment() + 1) == MPI_SUCCESS)
        FAIL("a bad send was accepted");
    MPI_Barrier(MPI_COMM_WORLD);
    if (compute_s > 0 && rank == size - 1) {
        long want_others = (long)per_lane * nlanes * (size - 1), got = 0;
        double t0 = now_s();
        while (now_s() - t0 < compute_s) {
            compute(0.01);
            sm_rma_chan_lock();
            got = received;
            sm_rma_chan_unlock();
            if (got >= want_others)
                break;
        }
        printf("rank %d: %ld of the others' %ld segments arrived while it computed %.2f s\n",
               rank, got, want_others, now_s() - t0);
        fflush(stdout);
        if (got != want_others)
            FAIL("only %ld of %ld segments arrived while this rank computed", got, want_others);
    }
    unsigned char *buf = malloc(maxseg);
    for (int s = 0; s < per_lane; s++)
        for (unsigned lane = 0; lane < nlanes; lane++)
            for (int k = 1; k <= size; k++) {
                int dst = (rank + k) % size;
                size_t len = seg_len((unsigned)s, maxseg);
                struct seg_hdr h = {MAGIC, rank, lane, (unsigned)s, 0, (uint32_t)len};
                memcpy(buf, &h, sizeof h);
                for (size_t i = sizeof h; i < len; i++)
                    buf[i] = pattern(rank, lane, (unsigned)s, i);
                int rc = sm_rma_chan_send(dst, lane, buf, len);
                if (rc != MPI_SUCCESS)
                    FAIL("send to %d lane %u: error %d", dst, lane, rc);
                memset(buf, 0xee, len); /* the channel copied it */
                if (s % 16 == 0)
                    sm_rma_chan_progress(0);
            }
    long want = (long)per_lane * nlanes * size;
    double t0 = now_s();
    for (;;) {
        sm_rma_chan_lock();
        long got = received;
        sm_rma_chan_unlock();
        if (got >= want)
            break;
        if (now_s() - t0 > 60)
            FAIL("received %ld of %ld segments", got, want);
        sm_rma_chan_progress(1000);
    }
    if (bad)
        FAIL("%ld bad segments", bad);
    if (received != want)
        FAIL("received %ld, expected %ld", received, want);
    MPI_Barrier(MPI_COMM_WORLD);
    sm_rma_chan_close();
    free(buf);
    free(next_seq);
    if (rank == 0)
        printf("rma channel order: %d ranks, %u lanes, max segment %zu, %d segments per lane "
               "and pair\n", size, nlanes, sm_rma_chan_max_segment(), per_lane);
}

/* ---- strong ---- */
#define NMSG 12
static size_t msg_size(int i)
{
    static const size_t sz[] = {0, 1, 100, 4000, 65536, 70000, 300000, 1 << 20, 3 << 20};
    return sz[i % (int)(sizeof sz / sizeof sz[0])];
}

static unsigned char msg_byte(int i, size_t k)
{
    return (unsigned char)(i * 37 + k * 11 + (k >> 10));
}

static long pings_seen, pongs_seen;
static double pong_at[64];
static size_t answer_bytes;       /* data sent ahead of each pong */
static unsigned char *answer_buf; /* one largest segment */
static size_t answer_seg;
static size_t answer_seen[64];    /* per ping: answer bytes that arrived (rank 0) */

static void strong_segment(void *ctx, int peer, const void *seg, size_t len)
{
    (void)ctx;
    struct seg_hdr h;
    if (len < sizeof h) {
        bad++;
        return;
    }
    memcpy(&h, seg, sizeof h);
    if (h.magic != MAGIC || h.len != len || (h.kind != 3 && len != sizeof h)) {
        bad++;
        return;
    }
    if (h.kind == 1) { /* ping: answer from here (possibly the transport's thread) */
        for (size_t off = 0; off < answer_bytes;) { /* data first, then the pong, one lane */
            size_t n = answer_bytes - off < answer_seg - sizeof h ? answer_bytes - off
                                                                  : answer_seg - sizeof h;
            struct seg_hdr d = h;
            d.kind = 3;
            d.src = rank;
            d.len = (uint32_t)(sizeof d + n);
            memcpy(answer_buf, &d, sizeof d);
            for (size_t i = 0; i < n; i++)
                answer_buf[sizeof d + i] = pattern(rank, h.lane, h.seq, off + i);
            if (sm_rma_chan_send(peer, h.lane, answer_buf, sizeof d + n) != MPI_SUCCESS)
                bad++;
            off += n;
        }
        struct seg_hdr r = h;
        r.kind = 2;
        r.src = rank;
        if (sm_rma_chan_send(peer, h.lane, &r, sizeof r) != MPI_SUCCESS)
            bad++;
        pings_seen++;
    } else if (h.kind == 3) {
        const unsigned char *b = seg;
        size_t *seen = h.seq < 64 ? &answer_seen[h.seq] : NULL;
        if (!seen || pongs_seen > (long)h.seq) {
            bad++;
            return;
        }
        for (size_t i = sizeof h; i < len; i++)
            if (b[i] != pattern(peer, h.lane, h.seq, *seen + i - sizeof h)) {
                fprintf(stderr, "rank %d: answer %u: byte %zu wrong\n", rank, h.seq,
                        *seen + i - sizeof h);
                bad++;
                break;
            }
        *seen += len - sizeof h;
    } else if (h.kind == 2) {
        if (h.seq < 64 && answer_seen[h.seq] != answer_bytes) {
            fprintf(stderr, "rank %d: pong %u after %zu of %zu answer bytes\n", rank, h.seq,
                    answer_seen[h.seq], answer_bytes);
            bad++;
        }
        if (h.seq < 64)
            pong_at[h.seq] = now_s();
        pongs_seen++;
    } else {
        bad++;
    }
}

static void run_strong(double compute_s, int npings, size_t answer)
{
    if (size < 2)
        FAIL("strong needs 2 ranks");
    if (npings > 64)
        npings = 64;
    answer_bytes = answer;
    answer_seg = sm_rma_chan_max_segment();
    answer_buf = malloc(answer_seg);
    if (!answer_buf)
        FAIL("out of memory");
    struct sm_rma_receiver rx = {NULL, strong_segment, peer_failed};
    sm_rma_chan_open(&rx);
    nlanes = sm_rma_chan_lanes();
    unsigned char *msg[NMSG];
    MPI_Request req[NMSG];
    for (int i = 0; i < NMSG; i++) {
        msg[i] = malloc(msg_size(i) + 1);
        for (size_t k = 0; k < msg_size(i); k++)
            msg[i][k] = rank == 0 ? msg_byte(i, k) : 0;
        req[i] = MPI_REQUEST_NULL;
    }
    /* rank 1 pre-posts the even messages before it computes, the odd ones after */
    if (rank == 1)
        for (int i = 0; i < NMSG; i += 2)
            MPI_Irecv(msg[i], (int)msg_size(i), MPI_BYTE, 0, 100 + i, MPI_COMM_WORLD, &req[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1) {
        compute(compute_s);
        sm_rma_chan_lock();
        long seen = pings_seen;
        sm_rma_chan_unlock();
        if (seen != npings)
            FAIL("the receiver saw %ld of %d pings while this rank computed", seen, npings);
        printf("rank 1: computed %.2f s, answered %ld pings meanwhile\n", compute_s, seen);
        fflush(stdout);
        for (int i = 1; i < NMSG; i += 2)
            MPI_Irecv(msg[i], (int)msg_size(i), MPI_BYTE, 0, 100 + i, MPI_COMM_WORLD, &req[i]);
        MPI_Waitall(NMSG, req, MPI_STATUSES_IGNORE);
        for (int i = 0; i < NMSG; i++)
            for (size_t k = 0; k < msg_size(i); k++)
                if (msg[i][k] != msg_byte(i, k))
                    FAIL("message %d (%zu bytes): byte %zu wrong", i, msg_size(i), k);
    } else if (rank == 0) {
        /* let rank 1 leave the barrier and start computing */
        double w = now_s();
        while (now_s() - w < 0.2)
            sm_rma_chan_progress(1000);
        double start = now_s(), worst = 0;
        for (int p = 0; p < npings; p++) {
            if (p < NMSG) /* point-to-point traffic while the target computes, too */
                MPI_Isend(msg[p], (int)msg_size(p), MPI_BYTE, 1, 100 + p, MPI_COMM_WORLD,
                          &req[p]);
            struct seg_hdr h = {MAGIC, rank, (unsigned)p % nlanes, (unsigned)p, 1, sizeof h};
            double t = now_s();
            if (sm_rma_chan_send(1, h.lane, &h, sizeof h) != MPI_SUCCESS)
                FAIL("ping send");
            for (;;) {
                sm_rma_chan_lock();
                long got = pongs_seen;
                sm_rma_chan_unlock();
                if (got > p)
                    break;
                if (now_s() - t > 10)
                    FAIL("no answer to ping %d after 10 s", p);
                sm_rma_chan_progress(1000);
            }
            double rtt = pong_at[p] - t;
            if (rtt > worst)
                worst = rtt;
        }
        double total = now_s() - start;
        printf("rank 0: %d pings answered in %.3f s (worst round trip %.1f ms) while rank 1 "
               "computed %.2f s\n", npings, total, worst * 1e3, compute_s);
        fflush(stdout);
        if (total + 0.2 > compute_s * 0.75)
            FAIL("the answers took %.3f s: no progress while the target computed", total);
        for (int p = npings; p < NMSG; p++)
            MPI_Isend(msg[p], (int)msg_size(p), MPI_BYTE, 1, 100 + p, MPI_COMM_WORLD, &req[p]);
        MPI_Waitall(NMSG, req, MPI_STATUSES_IGNORE);
    }
    for (int i = 0; i < NMSG; i++)
        free(msg[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    if (bad)
        FAIL("%ld bad segments", bad);
    sm_rma_chan_close();
    free(answer_buf);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    const char *mode = argc > 1 ? argv[1] : "order";
    if (!strcmp(mode, "order"))
        run_order(argc > 2 ? atoi(argv[2]) : 200, argc > 3 ? atof(argv[3]) : 0);
    else if (!strcmp(mode, "strong"))
        run_strong(argc > 2 ? atof(argv[2]) : 2.0, argc > 3 ? atoi(argv[3]) : 20,
                   argc > 4 ? (size_t)atol(argv[4]) : 0);
    else
        FAIL("unknown mode %s", mode);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
