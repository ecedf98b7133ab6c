/* transport_test.c — a transport-level test driver that plays the engine: it forks N ranks,
 * exchanges business cards through files in a temporary directory, and through
 * sm_transport_find(name) sends frames of sizes 0..max_payload on every lane from every rank to
 * every rank at once, checking per-(peer, lane) order, integrity, no loss, no duplication, and
 * that upcalls come one whole frame at a time per peer.
 *
 *   transport_test TRANSPORT NRANKS [options]
 *     -f FRAMES   frames per (sender, receiver) pair (default 300)
 *     -r          add a rogue rank: a process holding a valid card slot but a wrong secret, that
 *                 also sends garbage datagrams to every rank (SCTP only: UDP ports from cards);
 *                 its associations must be rejected while the real traffic completes
 *     -k          add a victim rank with a valid secret that sends a little and then dies
 *                 (_exit, no finalize); every other rank must see peer_failed for it
 *     -s SEED     size pattern seed
 *     -t SECONDS  timeout (default 60)
 *     -p SIZE     benchmark instead: ping-pong latency of SIZE-byte frames between pairs of
 *                 ranks (0-1, 2-3, ...), -i iterations (default 2000)
 *     -b SIZE     benchmark instead: streaming bandwidth, windows of 64 frames then a 0-byte ack
 *     -S US       benchmarks: spin US microseconds in progress(0) before blocking (default 0)
 *     -w N        with -b: frames per window (default 64)
 *     -c MS       with -b: the receiver "computes" (sleeps without progress) MS ms per window;
 *                 prints how long the sender needed to hand its window over (strong progress)
 * Prints " No Errors" on success.  Statistics (SCTPMPI_STATS=1) go to stderr, as does the count
 * of frames that overtook an earlier-sent frame of the same sender on another lane. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine/wire.h"
#include "transport/transport.h"

struct pending_send { /* a frame's memory, alive until send_done */
    struct sm_frame_hdr h;
    unsigned char payload[];
};

struct test_rank {
    const struct sm_transport_ops *ops;
    struct sm_transport *t;
    int rank, size, honest, lanes, frames;
    size_t max_payload;
    unsigned seed;
    uint32_t **next_seq;        /* [src][lane] next expected sequence number */
    uint64_t *max_order;        /* [src] highest send order seen */
    long *received;             /* [src] frames received */
    int *in_frame;              /* [src] between frame_begin and frame_end */
    void **own_buf;             /* [src] buffer returned by frame_begin */
    long outstanding;           /* sends waiting for send_done */
    long errors, overtakes, failed_peers, total_expected, total_received;
};

static struct test_rank T;
static int kill_mode;
static int victim_failed;

/* benchmark state */
static int bench_mode; /* 'p' ping-pong, 'b' bandwidth */
static size_t bench_size;
static int bench_iters = 2000, bench_spin_us, bench_compute_ms, bench_window = 64;
static double bench_push_s;
static char bench_cookie;
static unsigned char *bench_rx;
static long bench_arrived;
static const char *g_dir;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "transport_test rank %d: ", T.rank);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    T.errors++;
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

/* the size of frame `seq` from src to dst: mostly small, some medium, a few up to max */
static size_t frame_size(int src, int dst, uint32_t seq)
{
    uint64_t r = mix(((uint64_t)src << 48) ^ ((uint64_t)dst << 32) ^ seq ^ ((uint64_t)T.seed << 56));
    unsigned k = (unsigned)(r % 100);
    size_t mp = T.max_payload;
    if (seq < 8) { /* the edge sizes first */
        static const size_t edge[8] = {0, 1, 47, 48, 1452, 4096, 65536, (size_t)-1};
        size_t s = edge[seq];
        return s > mp ? mp : s;
    }
    if (k < 70)
        return (size_t)((r >> 8) % 2048);
    if (k < 92)
        return (size_t)((r >> 8) % (mp < 65536 ? mp : 65536));
    return (size_t)((r >> 8) % (mp + 1));
}

static unsigned char pattern(int src, uint32_t seq, size_t i)
{
    return (unsigned char)((size_t)src * 131 + seq * 7 + i * 13 + (i >> 8));
}

/* ---- upcalls ---- */
static void *up_frame_begin(void *ctx, int peer, const struct sm_frame_hdr *h)
{
    (void)ctx;
    if (peer < 0 || peer >= T.size) {
        fail("frame_begin for bad peer %d", peer);
        return NULL;
    }
    if (T.in_frame[peer])
        fail("frame_begin for peer %d inside another frame of that peer", peer);
    if (bench_mode) {
        T.in_frame[peer] = 1;
        return bench_rx;
    }
    T.in_frame[peer] = 1;
    T.own_buf[peer] = NULL;
    if (h->seq % 2 == 0 && h->payload_len) { /* half the frames into "user" memory */
        T.own_buf[peer] = malloc(h->payload_len);
        return T.own_buf[peer];
    }
    return NULL;
}

static void up_frame_end(void *ctx, int peer, const struct sm_frame_hdr *h, void *payload)
{
    (void)ctx;
    if (peer < 0 || peer >= T.size || !T.in_frame[peer]) {
        fail("frame_end without frame_begin (peer %d)", peer);
        return;
    }
    T.in_frame[peer] = 0;
    if (bench_mode) {
        (void)h;
        (void)payload;
        bench_arrived++;
        return;
    }
    if (T.own_buf[peer] && payload != T.own_buf[peer])
        fail("frame_end payload is not the buffer frame_begin returned");
    int lane = h->tag;
    if (peer >= T.honest) {
        if (!kill_mode)
            fail("frame from the rogue rank %d was delivered", peer);
        goto out;
    }
    if (h->src != peer || lane < 0 || lane >= T.lanes || h->version != SM_WIRE_VERSION) {
        fail("bad header from %d: src %d lane %d", peer, h->src, lane);
        goto out;
    }
    if (h->seq != T.next_seq[peer][lane])
        fail("peer %d lane %d: got seq %u, expected %u (order/loss/duplicate)", peer, lane,
             h->seq, T.next_seq[peer][lane]);
    T.next_seq[peer][lane] = h->seq + 1;
    uint32_t gseq = (uint32_t)h->size; /* per (src, dst) sequence over all lanes */
    size_t want = frame_size(peer, T.rank, gseq);
    if (h->payload_len != want)
        fail("peer %d seq %u: %u bytes, expected %zu", peer, gseq, h->payload_len, want);
    else {
        const unsigned char *p = payload;
        for (size_t i = 0; i < want; i++)
            if (p[i] != pattern(peer, gseq, i)) {
                fail("peer %d seq %u: byte %zu corrupt", peer, gseq, i);
                break;
            }
    }
    if (h->rreq < T.max_order[peer])
        T.overtakes++;
    else
        T.max_order[peer] = h->rreq;
    T.received[peer]++;
    T.total_received++;
out:
    free(T.own_buf[peer]);
    T.own_buf[peer] = NULL;
}

static void up_send_done(void *ctx, void *cookie)
{
    (void)ctx;
    if (cookie != &bench_cookie)
        free(cookie);
    T.outstanding--;
}

static void up_peer_failed(void *ctx, int peer, const char *why)
{
    (void)ctx;
    if (peer < T.honest)
        fail("peer %d reported failed: %s", peer, why);
    else if (kill_mode) {
        victim_failed = 1;
        fprintf(stderr, "rank %d: rank %d failed: %s\n", T.rank, peer, why);
    }
    T.failed_peers++;
}

static const struct sm_upcalls up = {.frame_begin = up_frame_begin,
                                     .frame_end = up_frame_end,
                                     .send_done = up_send_done,
                                     .peer_failed = up_peer_failed};

/* ---- card exchange through files ---- */
static void write_file(const char *name, int rank, const char *text)
{
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s.%d", g_dir, name, rank);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0 || rename(tmp, path) != 0) {
        perror("write_file");
        exit(2);
    }
}

static int read_file(const char *name, int rank, char *buf, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%d", g_dir, name, rank);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, len - 1, f);
    fclose(f);
    buf[n] = '\0';
    return 0;
}

static int count_files(const char *name, int n)
{
    char buf[16];
    int c = 0;
    for (int r = 0; r < n; r++)
        if (read_file(name, r, buf, sizeof buf) == 0)
            c++;
    return c;
}

/* ---- rank bodies ---- */
static void progress(long us)
{
    int rc = T.ops->progress(T.t, us);
    if (rc < 0) {
        fail("progress failed");
        exit(1);
    }
}

static void send_frame(int dst, int lane, uint32_t lane_seq, uint32_t gseq, uint64_t order,
                       const char *secret_note)
{
    (void)secret_note;
    size_t n = frame_size(T.rank, dst, gseq);
    struct pending_send *ps = malloc(sizeof *ps + n);
    memset(&ps->h, 0, sizeof ps->h);
    ps->h.version = SM_WIRE_VERSION;
    ps->h.type = SM_F_EAGER;
    ps->h.payload_len = (uint32_t)n;
    ps->h.src = T.rank;
    ps->h.tag = lane;
    ps->h.seq = lane_seq;
    ps->h.size = gseq;
    ps->h.rreq = order;
    for (size_t i = 0; i < n; i++)
        ps->payload[i] = pattern(T.rank, gseq, i);
    /* the header goes from a stack copy, as the engine does */
    struct sm_frame_hdr h = ps->h;
    struct iovec iov[2] = {{&h, sizeof h}, {ps->payload, n}};
    int rc = T.ops->send(T.t, dst, lane, iov, n ? 2 : 1, ps);
    if (rc == 0)
        free(ps);
    else if (rc == 1)
        T.outstanding++;
    else {
        free(ps);
        if (dst < T.honest)
            fail("send to %d failed: %d", dst, rc);
    }
}

static void run_traffic(void)
{
    int peers = T.honest;
    uint32_t *gseq = calloc((size_t)peers, sizeof *gseq);
    uint32_t **lseq = calloc((size_t)peers, sizeof *lseq);
    for (int d = 0; d < peers; d++)
        lseq[d] = calloc((size_t)T.lanes, sizeof **lseq);
    uint64_t order = 0;
    for (int i = 0; i < T.frames; i++) {
        for (int k = 1; k < peers; k++) {
            int dst = (T.rank + k) % peers;
            uint64_t r = mix((uint64_t)T.rank * 1000003u + (uint64_t)dst * 7919u + (uint64_t)i);
            int lane = (int)(r % (uint64_t)T.lanes);
            send_frame(dst, lane, lseq[dst][lane]++, gseq[dst]++, order++, NULL);
        }
        progress(0);
        while (T.outstanding > 64)
            progress(1000);
    }
    for (int d = 0; d < peers; d++)
        free(lseq[d]);
    free(lseq);
    free(gseq);
}

static void rogue_garbage(void)
{
    /* garbage from an unknown address to every rank, and from the rogue's own (known) port */
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    char card[1024];
    for (int r = 0; r < T.honest; r++) {
        if (read_file("card", r, card, sizeof card) < 0)
            continue;
        char *colon = strrchr(card, ':');
        if (colon && strstr(colon, "nocrc")) {
            *colon = '\0';
            colon = strrchr(card, ':');
        }
        char *comma = strchr(card, ',');
        if (comma)
            *comma = '\0';
        if (!colon)
            continue;
        struct sockaddr_in sin = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(colon + 1))};
        *colon = '\0';
        const char *ip = strchr(card, ':') ? strchr(card, ':') + 1 : card;
        if (inet_pton(AF_INET, ip, &sin.sin_addr) != 1)
            continue;
        unsigned char junk[600];
        for (int k = 0; k < 50; k++) {
            for (size_t i = 0; i < sizeof junk; i++)
                junk[i] = (unsigned char)mix((uint64_t)k * 977 + i);
            /* a fake INIT chunk after a common header, then pure noise */
            junk[12] = k % 2 ? 0x01 : junk[12];
            sendto(fd, junk, (size_t)(k % 7) * 80 + 5, 0, (struct sockaddr *)&sin, sizeof sin);
        }
    }
    close(fd);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void bench_send(int dst, const unsigned char *buf, size_t n)
{
    struct sm_frame_hdr h;
    memset(&h, 0, sizeof h);
    h.version = SM_WIRE_VERSION;
    h.type = SM_F_EAGER;
    h.payload_len = (uint32_t)n;
    h.src = T.rank;
    h.tag = 1;
    struct iovec iov[2] = {{&h, sizeof h}, {(void *)buf, n}};
    int rc = T.ops->send(T.t, dst, T.lanes > 1 ? 1 : 0, iov, n ? 2 : 1, &bench_cookie);
    if (rc == 1)
        T.outstanding++;
    else if (rc < 0)
        fail("bench send failed: %d", rc);
}

/* wait like the engine: spin in progress(0), then block in progress() */
static void bench_wait(long target)
{
    double t0 = now_s();
    while (bench_arrived < target) {
        if (bench_spin_us && (now_s() - t0) * 1e6 < bench_spin_us)
            progress(0);
        else
            progress(100000);
    }
}

static void run_bench(void)
{
    int partner = T.rank ^ 1;
    if (partner >= T.honest)
        return;
    unsigned char *buf = calloc(bench_size ? bench_size : 1, 1);
    bench_rx = malloc(bench_size ? bench_size : 1);
    int leader = T.rank % 2 == 0;
    const int window = bench_window;
    int warm = bench_iters / 10 + 1;
    double t0 = 0;
    for (int it = -warm; it < bench_iters; it++) {
        if (it == 0)
            t0 = now_s();
        if (bench_mode == 'p') {
            if (leader) {
                bench_send(partner, buf, bench_size);
                bench_wait(bench_arrived + 1);
            } else {
                bench_wait(bench_arrived + 1);
                bench_send(partner, buf, bench_size);
            }
        } else {
            if (leader) {
                double p0 = now_s();
                /* the partner's ack may arrive while we still wait for send_done below */
                long ack = bench_arrived + 1;
                for (int w = 0; w < window; w++) {
                    bench_send(partner, buf, bench_size);
                    while (T.outstanding > 2 * window)
                        progress(1000);
                }
                while (T.outstanding > 0)
                    progress(1000);
                if (it >= 0)
                    bench_push_s += now_s() - p0;
                bench_wait(ack);
            } else {
                if (bench_compute_ms)
                    usleep((useconds_t)bench_compute_ms * 1000);
                bench_wait(bench_arrived + window);
                bench_send(partner, buf, 0);
            }
        }
    }
    double el = now_s() - t0;
    while (T.outstanding > 0 || T.ops->busy(T.t))
        progress(1000);
    if (leader && bench_compute_ms && bench_push_s / bench_iters * 1e3 > 0.8 * bench_compute_ms)
        fail("no strong progress: the window waited for the computing receiver");
    if (leader) {
        if (bench_mode == 'p')
            printf("pair %d-%d: %zu bytes one-way latency %.2f us\n", T.rank, partner, bench_size,
                   el / bench_iters / 2 * 1e6);
        else if (bench_compute_ms)
            printf("pair %d-%d: %zu bytes x %d handed over in %.1f ms while the receiver "
                   "computed %d ms\n", T.rank, partner, bench_size, window,
                   bench_push_s / bench_iters * 1e3, bench_compute_ms);
        else
            printf("pair %d-%d: %zu bytes bandwidth %.1f MB/s\n", T.rank, partner, bench_size,
                   (double)bench_size * window * bench_iters / el / 1e6);
        fflush(stdout);
    }
    free(buf);
}

static int rank_main(const char *tname, int rank, int size, int honest, int frames, unsigned seed,
                     int timeout)
{
    alarm((unsigned)timeout);
    memset(&T, 0, sizeof T);
    T.rank = rank;
    T.size = size;
    T.honest = honest;
    T.frames = frames;
    T.seed = seed;
    T.ops = sm_transport_find(tname);
    if (!T.ops) {
        fprintf(stderr, "transport %s not available\n", tname);
        return 77;
    }
    int rogue = rank >= honest;
    struct sm_transport_args a = {
        .rank = rank,
        .size = size,
        .secret = (rogue && !kill_mode) ? "0badc0ffee0badc0ffee" : "5ec7e75ec7e75ec7e7",
        .addrs = NULL,
        .naddrs = 0,
        .local_ranks = size,
        .up = &up,
    };
    char card[1024];
    if (T.ops->init(&a, &T.t, card, sizeof card) != 0) {
        fprintf(stderr, "rank %d: init failed\n", rank);
        return 1;
    }
    if (size < 1) /* (also tells gcc -O3 that the allocations below are small) */
        return 1;
    write_file("card", rank, card);
    while (count_files("card", size) < size)
        usleep(1000);
    char **cards = calloc((size_t)size, sizeof *cards);
    for (int r = 0; r < size; r++) {
        cards[r] = malloc(1024);
        read_file("card", r, cards[r], 1024);
    }
    if (T.ops->set_peers(T.t, (const char *const *)cards) != 0) {
        fprintf(stderr, "rank %d: set_peers failed\n", rank);
        return 1;
    }
    for (int r = 0; r < size; r++)
        free(cards[r]);
    free(cards);
    T.lanes = T.ops->lanes(T.t);
    T.max_payload = T.ops->max_payload(T.t);
    T.next_seq = calloc((size_t)size, sizeof *T.next_seq);
    for (int r = 0; r < size; r++)
        T.next_seq[r] = calloc((size_t)T.lanes, sizeof **T.next_seq);
    T.max_order = calloc((size_t)size, sizeof *T.max_order);
    T.received = calloc((size_t)size, sizeof *T.received);
    T.in_frame = calloc((size_t)size, sizeof *T.in_frame);
    T.own_buf = calloc((size_t)size, sizeof *T.own_buf);

    if (rogue && kill_mode) {
        /* the victim: talk a little, then die without finalize */
        for (int i = 0; i < 10; i++)
            for (int d = 0; d < honest; d++)
                send_frame(d, i % T.lanes, (uint32_t)i, (uint32_t)i, (uint64_t)i, NULL);
        for (int i = 0; i < 20; i++)
            progress(10000);
        _exit(0);
    }
    if (rogue) {
        /* try to talk to everyone with the wrong secret, and spray garbage */
        rogue_garbage();
        for (int i = 0; i < 20; i++)
            for (int d = 0; d < honest; d++)
                send_frame(d, i % T.lanes, (uint32_t)i, (uint32_t)i, (uint64_t)i, NULL);
        while (count_files("done", honest) < honest)
            progress(10000);
        T.ops->finalize(T.t);
        return 0;
    }

    if (bench_mode) {
        run_bench();
        write_file("done", rank, "1");
        while (count_files("done", honest) < honest)
            progress(10000);
        if (getenv("SCTPMPI_STATS") && T.ops->stats)
            T.ops->stats(T.t, stderr);
        write_file("final", rank, "1");
        while (count_files("final", honest) < honest)
            usleep(1000);
        T.ops->finalize(T.t);
        return T.errors ? 1 : 0;
    }
    T.total_expected = (long)frames * (honest - 1);
    run_traffic();
    while (T.total_received < T.total_expected || T.outstanding > 0 || T.ops->busy(T.t))
        progress(100000);
    for (int r = 0; r < honest; r++)
        if (r != rank && T.received[r] != frames)
            fail("received %ld frames from rank %d, expected %d", T.received[r], r, frames);
    if (kill_mode) {
        /* keep talking to the victim until its failure is reported */
        double t0 = now_s();
        uint32_t i = 1000;
        while (!victim_failed && now_s() - t0 < 30) {
            send_frame(honest, 1 % T.lanes, i, i, i, NULL);
            i++;
            progress(10000);
        }
        if (!victim_failed)
            fail("the dead rank %d was not reported failed within 30 s", honest);
        else
            fprintf(stderr, "rank %d: dead rank reported failed after %.2f s\n", rank,
                    now_s() - t0);
    }
    write_file("done", rank, "1");
    /* keep serving (acks, retransmissions) until every honest rank is done */
    while (count_files("done", honest) < honest)
        progress(10000);
    if (getenv("SCTPMPI_STATS") && T.ops->stats)
        T.ops->stats(T.t, stderr);
    char info[256];
    if (T.ops->peer_info && honest > 1) {
        T.ops->peer_info(T.t, (rank + 1) % honest, info, sizeof info);
        if (getenv("SCTPMPI_STATS"))
            fprintf(stderr, "rank %d -> %d: %s\n", rank, (rank + 1) % honest, info);
    }
    write_file("final", rank, "1");
    /* finalize after a job-wide barrier, as the engine does */
    while (count_files("final", honest) < honest)
        usleep(1000);
    T.ops->finalize(T.t);
    fprintf(stderr, "rank %d: %ld frames received, %ld overtook an earlier frame on another lane\n",
            rank, T.total_received, T.overtakes);
    return T.errors ? 1 : 0;
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)))
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    closedir(d);
    rmdir(dir);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s TRANSPORT NRANKS [-f frames] [-r] [-s seed] [-t sec]\n",
                argv[0]);
        return 2;
    }
    const char *tname = argv[1];
    int n = atoi(argv[2]);
    int frames = 300, rogue = 0, timeout = 60;
    unsigned seed = 1;
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "-f") && i + 1 < argc)
            frames = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-r"))
            rogue = 1;
        else if (!strcmp(argv[i], "-k"))
            rogue = kill_mode = 1;
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            seed = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "-t") && i + 1 < argc)
            timeout = atoi(argv[++i]);
        else if ((!strcmp(argv[i], "-p") || !strcmp(argv[i], "-b")) && i + 1 < argc) {
            bench_mode = argv[i][1];
            bench_size = (size_t)strtoul(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "-i") && i + 1 < argc)
            bench_iters = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-w") && i + 1 < argc)
            bench_window = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-c") && i + 1 < argc)
            bench_compute_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-S") && i + 1 < argc)
            bench_spin_us = atoi(argv[++i]);
    }
    if (n < 1 || n > 64)
        return 2;
    if (!sm_transport_find(tname)) {
        printf("transport %s not built: skipped\n", tname);
        return 77;
    }
    char dir[] = "/tmp/sm_transport_test.XXXXXX";
    if (!mkdtemp(dir))
        return 2;
    g_dir = dir;
    int size = n + rogue;
    pid_t pids[65];
    for (int r = 0; r < size; r++) {
        pids[r] = fork();
        if (pids[r] == 0)
            _exit(rank_main(tname, r, size, n, frames, seed, timeout));
    }
    int bad = 0;
    for (int r = 0; r < size; r++) {
        int st;
        waitpid(pids[r], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
            fprintf(stderr, "rank %d %s %d\n", r, WIFEXITED(st) ? "exited with" : "killed by signal",
                    WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
            bad++;
        }
    }
    remove_dir(dir);
    if (bad)
        return 1;
    printf(" No Errors\n");
    return 0;
}
