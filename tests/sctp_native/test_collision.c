/* test_collision.c — association set-up races the MPI transport produces (regressions found by
 * the MPI suite over the native backend):
 *  1. INIT collisions with DATA in flight: endpoint 0 connects and queues messages at once;
 *     endpoint 1 connects (and queues its own) 0..12 ms later, over links of 1..5 ms, either
 *     endpoint stepping first.  Every message must arrive exactly once on both sides.  (Bug: an
 *     INIT-ACK sent in COOKIE-ECHOED announced the TSN after the DATA that rode the COOKIE-ECHO
 *     as the initial TSN, so that DATA was taken for duplicates and lost.)
 *     Nothing is lost on these links, so no T3 may be needed either.  (Bug: when the two INITs
 *     crossed, the peer discarded our COOKIE-ECHO as 5.2.4 case C and the DATA bundled with it
 *     waited for T3 at RTO.Initial, 1 s; now the DATA goes again once the peer's cookie
 *     establishes the association.)
 *  2. Many small messages queued before the association is up, with a 32000-byte MTU: the
 *     COOKIE-ECHO packet carries hundreds of DATA chunks and must be accepted. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sctpn.h"

#define MAXQ 4096
#define PKT_MAX 65536

static int got[2], fails;
static unsigned long long rtx_total; /* DATA resent after crossed COOKIE-ECHOs */

static void on_data(void *u, const struct sctpn_data *d)
{
    if (d->last)
        got[(long)u]++;
}

static void on_event(void *u, const struct sctpn_event *e)
{
    (void)u;
    (void)e;
}

struct inflight {
    int len, to, at;
    struct sctpn_addr f, t;
    uint8_t *b;
};

/* n messages each way (endpoint 1 starts at step start1); delay in 1 ms steps */
static int run(int n, int size, int delay, int order, int start1, int mtu)
{
    struct sctpn_config c[2];
    sctpn_endpoint *ep[2];
    struct sctpn_addr ad[2] = {{0x0100007f, 1000}, {0x0100007f, 2000}};
    got[0] = got[1] = 0;
    for (long i = 0; i < 2; i++) {
        sctpn_config_defaults(&c[i]);
        c[i].sctp_port = 5001;
        c[i].accept_incoming = 1;
        c[i].on_data = on_data;
        c[i].on_event = on_event;
        c[i].user = (void *)i;
        c[i].local_addrs[0] = ad[i];
        c[i].n_local_addrs = 1;
        c[i].seed = 7 + (uint64_t)i;
        if (mtu)
            c[i].mtu = (uint16_t)mtu;
        ep[i] = sctpn_endpoint_new(&c[i]);
        if (!ep[i]) {
            printf("endpoint creation failed\n");
            return 1;
        }
    }
    uint64_t now = 1000000;
    sctpn_assoc_id a[2] = {0, 0};
    char *msg = calloc(1, (size_t)size);
    static struct inflight q[MAXQ];
    int nq = 0;
    uint8_t *buf = malloc(PKT_MAX);
    int rc = 0;
    for (int step = 0; step < 20000 && (got[0] < n || got[1] < n); step++) {
        for (int i = 0; i < 2; i++) {
            if (step != (i == 0 ? 0 : start1))
                continue;
            if (sctpn_connect(ep[i], 5001, &ad[1 - i], 1, &ad[i], 1, now, &a[i]) < 0) {
                printf("connect failed\n");
                rc = 1;
            }
            for (int k = 0; k < n; k++) {
                struct iovec v = {msg, (size_t)size};
                if (sctpn_send(ep[i], a[i], (uint16_t)(1 + k % 7), 1, SCTPN_SEND_COPY, &v, 1, NULL)) {
                    printf("send %d failed\n", k);
                    rc = 1;
                }
            }
        }
        for (int ii = 0; ii < 2; ii++) {
            int i = order ? 1 - ii : ii, len;
            struct sctpn_addr f, t;
            while (nq < MAXQ && (len = sctpn_poll_transmit(ep[i], now, buf, PKT_MAX, &f, &t)) > 0) {
                q[nq].b = malloc((size_t)len);
                memcpy(q[nq].b, buf, (size_t)len);
                q[nq].len = len;
                q[nq].to = 1 - i;
                q[nq].f = f;
                q[nq].t = t;
                q[nq].at = step + delay;
                nq++;
            }
            if (sctpn_next_deadline(ep[i]) <= now)
                sctpn_handle_timeout(ep[i], now);
        }
        for (int k = 0; k < nq;) {
            if (q[k].at <= step) {
                int r = sctpn_input(ep[q[k].to], q[k].b, (size_t)q[k].len, &q[k].f, &q[k].t, now);
                if (r < 0 && r != SCTPN_ECOOKIE && r != SCTPN_EVTAG && r != SCTPN_EOOTB) {
                    printf("packet rejected: %s\n", sctpn_strerror(r));
                    rc = 1;
                }
                free(q[k].b);
                q[k] = q[--nq];
            } else {
                k++;
            }
        }
        now += 1000;
    }
    for (int k = 0; k < nq; k++)
        free(q[k].b);
    for (int i = 0; i < 2 && !mtu; i++) { /* nothing was lost on the way: no T3 */
        struct sctpn_assoc_stats st;
        if (a[i] && sctpn_get_stats(ep[i], a[i], &st) == 0) {
            rtx_total += st.retransmitted_chunks;
            if (st.t3_timeouts) {
                printf("delay %d order %d start1 %d: endpoint %d needed %llu T3 on a lossless "
                       "network\n", delay, order, start1, i, (unsigned long long)st.t3_timeouts);
                rc = 1;
            }
        }
    }
    if (got[0] != n || got[1] != n) {
        printf("delay %d order %d start1 %d mtu %d: delivered %d and %d of %d\n", delay, order,
               start1, mtu, got[1], got[0], n);
        rc = 1;
    }
    free(buf);
    free(msg);
    sctpn_endpoint_free(ep[0]);
    sctpn_endpoint_free(ep[1]);
    return rc;
}

int main(void)
{
    int cases = 0;
    for (int delay = 1; delay <= 5; delay += 2)
        for (int start1 = 0; start1 <= 12; start1++)
            for (int order = 0; order < 2; order++) {
                fails += run(2, 100, delay, order, start1, 0);
                cases++;
            }
    /* hundreds of DATA chunks on the COOKIE-ECHO */
    fails += run(1000, 56, 1, 0, 3, 32000);
    fails += run(20000, 56, 1, 0, 3, 65000);
    cases += 2;
    printf("%d cases, %d failed; %llu DATA chunks resent at once after crossed COOKIE-ECHOs\n",
           cases, fails, rtx_total);
    if (!fails)
        printf(" No Errors\n");
    return fails != 0;
}
