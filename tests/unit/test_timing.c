/* test_timing.c — the engine's time accounting (src/engine/timing.c), frames fed by hand
 * through the fake transport with real waits between them:
 *  - a message nobody asked for waits unexpected until its receive is posted;
 *  - a message that arrives ahead of a missing sequence number (another stream's) is held by
 *    the ordering rule until the missing one arrives, then waits unexpected;
 *  - an early message taken by a receive naming its tag counts as unexpected (taken early);
 *  - a matched early message and an expected in-order one wait for nothing;
 *  - a rendezvous send's RTS -> CTS and the receive's CTS -> last segment are timed;
 *  - SCTPMPI_TIMING=off counts nothing. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "engine/timing.h"
#include "fake_transport.h"
#include "unit_check.h"

static void sleep_ms(int ms)
{
    struct timespec ts = {0, (long)ms * 1000000L};
    while (nanosleep(&ts, &ts))
        ;
}

static int recv_int(int src, int tag)
{
    int v = -1;
    MPI_Recv(&v, 1, MPI_INT, src, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return v;
}

static void test_unexpected_and_order_hold(void)
{
    setenv("SCTPMPI_TIMING", "sample:1", 1);
    sm_timing_init();
    fake_engine(4, 65536, 1 << 20);
    const struct sm_timing_sums *s = sm_timing_get();
    /* expected, in order: no wait of any kind */
    MPI_Request r;
    int v = -1;
    MPI_Irecv(&v, 1, MPI_INT, 1, 5, MPI_COMM_WORLD, &r);
    fake_eager(1, 5, 0);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(v == 0 && s->unexp_n == 0 && s->order_n == 0, "expected message counted");
    /* unexpected for 30 ms */
    fake_eager(1, 5, 1);
    sleep_ms(30);
    CHECK(recv_int(1, 5) == 1, "unexpected message lost");
    CHECK(s->unexp_n == 1 && s->unexp_us >= 30000 && s->unexp_us < 1000000,
          "unexpected wait %llu us", (unsigned long long)s->unexp_us);
    /* seq 3 arrives before seq 2 (another stream), nobody waits for either: ordering hold
     * of 20 ms, then both wait unexpected for 10 ms more */
    fake_eager(1, 8, 3);
    sleep_ms(20);
    CHECK(s->order_n == 0, "hold counted before it ended");
    fake_eager(1, 7, 2);
    CHECK(s->order_n == 1 && s->order_us >= 20000 && s->order_max_us == s->order_us,
          "ordering hold %llu us over %llu msgs", (unsigned long long)s->order_us,
          (unsigned long long)s->order_n);
    sleep_ms(10);
    uint64_t before = s->unexp_us;
    CHECK(recv_int(1, 7) == 2 && recv_int(1, 8) == 3, "held messages lost");
    CHECK(s->unexp_n == 3 && s->unexp_us - before >= 20000 && s->unexp_us - before < 25000 + 30000,
          "unexpected after the hold: %llu us", (unsigned long long)(s->unexp_us - before));
    /* seq 5 early, taken by a receive naming its tag (not the ordering rule's hold) */
    fake_eager(1, 9, 5);
    sleep_ms(5);
    CHECK(recv_int(1, 9) == 5, "early message not taken by its named tag");
    CHECK(s->early_taken == 1 && s->unexp_n == 4 && s->order_n == 1, "early take counted wrong");
    fake_eager(1, 6, 4);
    CHECK(recv_int(1, 6) == 4 && s->order_n == 1, "in-order message counted as held");
    /* a matched early arrival waits for nothing */
    MPI_Irecv(&v, 1, MPI_INT, 1, 11, MPI_COMM_WORLD, &r);
    fake_eager(1, 11, 7);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    fake_eager(1, 10, 6);
    CHECK(recv_int(1, 10) == 6 && v == 7 && s->order_n == 1, "matched early message held");
    CHECK(s->unexp_n == 6, "unexpected count %llu", (unsigned long long)s->unexp_n);
    /* the report: the sums line and samples */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sm_timing_print(f, 0);
    fclose(f);
    CHECK(strstr(buf, "where the time went (engine): order-hold 1 msgs") != NULL, "report: %s", buf);
    CHECK(strstr(buf, "timing sample: order-hold peer 1 tag 8 seq 3") != NULL, "samples: %s", buf);
    free(buf);
    fake_engine_stop();
}

static void test_rendezvous(void)
{
    setenv("SCTPMPI_TIMING", "sum", 1);
    sm_timing_init();
    fake_engine(4, 1024, 1 << 20);
    const struct sm_timing_sums *s = sm_timing_get();
    /* send side: RTS, the CTS 15 ms later */
    static char big[5000];
    MPI_Request r;
    MPI_Isend(big, sizeof big, MPI_CHAR, 1, 3, MPI_COMM_WORLD, &r);
    CHECK(fake_count(SM_F_RTS, 1) == 1, "no RTS");
    uint64_t sreq = fake_sent[fake_nsent - 1].h.sreq;
    sleep_ms(15);
    fake_feed(1, SM_F_CTS, 0, 0, NULL, 0, 0, 0, sreq, 4242);
    CHECK(s->rts_n == 1 && s->rts_us >= 15000 && s->rts_us < 1000000, "RTS->CTS %llu us",
          (unsigned long long)s->rts_us);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    /* receive side: CTS sent at once (receive posted), the data 10 ms later */
    static char in[5000];
    MPI_Irecv(in, sizeof in, MPI_CHAR, 2, 4, MPI_COMM_WORLD, &r);
    fake_feed(2, SM_F_RTS, 4, 0, NULL, 0, 0, sizeof in, 99, 0);
    CHECK(fake_count(SM_F_CTS, 2) == 1, "no CTS");
    uint64_t rid = fake_sent[fake_nsent - 1].h.rreq;
    sleep_ms(10);
    fake_feed(2, SM_F_DATA, 0, 0, big, 4096, 0, 0, 0, rid);
    CHECK(s->rdata_n == 0, "counted before the last segment");
    fake_feed(2, SM_F_DATA, 0, 0, big, sizeof in - 4096, 0, 4096, 0, rid);
    CHECK(s->rdata_n == 1 && s->rdata_us >= 10000, "CTS->data %llu us",
          (unsigned long long)s->rdata_us);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    CHECK(s->unexp_n == 0 && s->order_n == 0, "rendezvous counted as waits");
    fake_engine_stop();
}

static void test_off(void)
{
    setenv("SCTPMPI_TIMING", "off", 1);
    sm_timing_init();
    fake_engine(4, 65536, 1 << 20);
    const struct sm_timing_sums *s = sm_timing_get();
    fake_eager(1, 8, 1);
    fake_eager(1, 7, 0);
    sleep_ms(2);
    CHECK(recv_int(1, 7) == 0 && recv_int(1, 8) == 1, "messages lost with timing off");
    CHECK(s->unexp_n == 0 && s->order_n == 0 && s->unexp_us == 0, "timing off counted");
    fake_engine_stop();
    unsetenv("SCTPMPI_TIMING");
    sm_timing_init();
}

int main(void)
{
    test_unexpected_and_order_hold();
    test_rendezvous();
    test_off();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
