/* ksctp_transport.c — the kernel SCTP backend's function table (transport.h): endpoint and
 * business card ("ksctp:ADDR[,ADDR...]:PORT", or the engine's "sctpn:ADDR...:UDPPORT" when
 * the rank speaks SCTP in UDP), peers, lanes -> streams, payload limit,
 * finalize (drain, wait for acknowledgements, graceful shutdown of every association). */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "transport/ksctp/ksctp_internal.h"
#include "transport/local_addrs.h"
#include "transport/sctp_card.h"
#include "util/util.h"

#define KS_CARD_PREFIX "ksctp:"

static void destroy(struct ks_transport *t)
{
    if (!t)
        return;
    if (t->fd >= 0)
        close(t->fd);
    for (int r = 0; t->peers && r < t->size; r++) {
        struct ks_peer *p = &t->peers[r];
        struct sm_txq_item *it;
        while ((it = sm_txq_pop(&p->txq)))
            sm_txq_item_free(it);
        free(p->hello_sent);
        free(p->authed);
        free(p->st);
    }
    free(t->peers);
    free(t->rx);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

static int ks_init(const struct sm_transport_args *a, struct sm_transport **out, char *card,
                   size_t cardlen)
{
    if (sm_env_bool("SCTPMPI_SCTP_STRIPE", 0)) {
        SM_ERR("SCTPMPI_SCTP_STRIPE=1 is not supported by the kernel SCTP backend "
               "(SCTPMPI_SCTP_BACKEND=kernel): Linux SCTP has no concurrent multipath transfer "
               "and one association per peer pair; striping over rails needs "
               "SCTPMPI_SCTP_BACKEND=native");
        return -1;
    }
    struct ks_transport *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    t->fd = -1;
    pthread_mutexattr_t ma; /* recursive: rma_frame may send, the engine nests the lock */
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&t->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    ks_tunables_load(&t->tu);
    t->rank = a->rank;
    t->size = a->size;
    t->up = a->up;
    snprintf(t->secret, sizeof t->secret, "%s", a->secret ? a->secret : "");
    /* stream 0 = control lane, 1..N = data lanes, then the RMA lanes */
    t->p2p_lanes = t->tu.streams + 1;
    t->rma_lanes = t->tu.rma_streams;
    t->nstreams = t->p2p_lanes + t->rma_lanes;
    char local[KS_MAX_ADDRS][INET_ADDRSTRLEN];
    int nlocal = sm_local_addrs(a->addrs, a->naddrs, local, KS_MAX_ADDRS);
    if (nlocal <= 0 || ks_socket_open(t, (const char(*)[INET_ADDRSTRLEN])local, nlocal) < 0) {
        destroy(t);
        return -1;
    }
    /* a frame is one SCTP message: it must fit the send buffer several times over (the
     * kernel refuses a message above the send buffer) */
    int sndbuf = 0;
    socklen_t sl = sizeof sndbuf;
    getsockopt(t->fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &sl);
    size_t cap = sndbuf > 0 ? (size_t)sndbuf / 4 : (64u << 10);
    size_t mp = t->tu.max_payload ? t->tu.max_payload : (64u << 10) + sizeof(struct sm_frame_hdr);
    if (mp > cap)
        mp = cap;
    if (mp < 4096 + sizeof(struct sm_frame_hdr))
        mp = 4096 + sizeof(struct sm_frame_hdr);
    t->max_payload = mp - sizeof(struct sm_frame_hdr);
    t->rx_cap = mp + 64;
    t->rx = malloc(t->rx_cap);
    if (!t->rx) {
        destroy(t);
        return -1;
    }
    /* SCTP in UDP: the native engine's card, so that engine ranks and kernel ranks can meet */
    int n = snprintf(card, cardlen, "%s", t->tu.udp_port ? KS_CARD_PREFIX_UDP : KS_CARD_PREFIX);
    for (int i = 0; i < t->nlocal && n >= 0 && (size_t)n < cardlen; i++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &t->local[i].sin_addr, ip, sizeof ip);
        n += snprintf(card + n, cardlen - (size_t)n, "%s%s", i ? "," : "", ip);
    }
    if (n >= 0 && (size_t)n < cardlen)
        n += snprintf(card + n, cardlen - (size_t)n, ":%u",
                      t->tu.udp_port ? (unsigned)t->tu.udp_port : t->port);
    if (n < 0 || (size_t)n >= cardlen) {
        destroy(t);
        return -1;
    }
    if (t->tu.debug)
        ks_debug("rank %d: kernel SCTP on %s (%d stream(s), frames up to %zu bytes, failover "
                 "preset %s)",
                 t->rank, card, t->nstreams, t->max_payload,
                 t->tu.failover == 2   ? "lan"
                 : t->tu.failover == 1 ? "wan"
                                       : "none");
    *out = (struct sm_transport *)t;
    return 0;
}

static int ks_set_peers(struct sm_transport *handle, const char *const *cards)
{
    struct ks_transport *t = (struct ks_transport *)handle;
    t->peers = calloc((size_t)t->size, sizeof *t->peers);
    if (!t->peers)
        return -1;
    for (int r = 0; r < t->size; r++) {
        struct ks_peer *p = &t->peers[r];
        p->rank = r;
        size_t ns = (size_t)t->nstreams;
        p->hello_sent = calloc(ns, 1);
        p->authed = calloc(KS_MAX_STREAMS, 1);
        p->st = calloc(KS_MAX_STREAMS, sizeof *p->st);
        if (!p->hello_sent || !p->authed || !p->st)
            return -1;
        struct sm_sctp_card c;
        int udp = t->tu.udp_port != 0;
        const char *prefix = udp ? KS_CARD_PREFIX_UDP : KS_CARD_PREFIX;
        if (!cards[r] || sm_sctp_card_parse(cards[r], prefix, KS_MAX_ADDRS, &c) < 0) {
            ks_log("rank %d: bad business card for rank %d: '%s'%s", t->rank, r,
                   cards[r] ? cards[r] : "(none)",
                   !cards[r] || !strncmp(cards[r], prefix, strlen(prefix)) ? ""
                   : udp ? " (with SCTPMPI_KSCTP_UDP_PORT every other rank needs "
                           "SCTPMPI_SCTP_BACKEND=native, or kernel with SCTPMPI_KSCTP_UDP_PORT)"
                         : " (every rank of a job needs SCTPMPI_SCTP_BACKEND=kernel; to mix "
                           "with native ranks set SCTPMPI_KSCTP_UDP_PORT)");
            return -1;
        }
        for (int i = 0; i < c.naddrs; i++) {
            p->addrs[i].sin_family = AF_INET;
            p->addrs[i].sin_addr = c.addrs[i];
            p->addrs[i].sin_port = htons(udp ? (uint16_t)KS_ENGINE_SCTP_PORT : (uint16_t)c.port);
        }
        p->encap_port = udp ? (uint16_t)c.port : 0;
        p->naddrs = c.naddrs;
    }
    return 0;
}

static int ks_lanes(struct sm_transport *handle)
{
    return ((struct ks_transport *)handle)->p2p_lanes;
}

static int ks_rma_lanes(struct sm_transport *handle)
{
    return ((struct ks_transport *)handle)->rma_lanes;
}

static void ks_lock(struct sm_transport *handle)
{
    pthread_mutex_lock(&((struct ks_transport *)handle)->lock);
}

static void ks_unlock(struct sm_transport *handle)
{
    pthread_mutex_unlock(&((struct ks_transport *)handle)->lock);
}

static size_t ks_max_payload(struct sm_transport *handle)
{
    return ((struct ks_transport *)handle)->max_payload;
}

static int ks_busy(struct sm_transport *handle)
{
    return ((struct ks_transport *)handle)->txq_total > 0;
}

static void ks_stats(struct sm_transport *handle, void *file)
{
    ks_stats_print((struct ks_transport *)handle, file ? file : stderr);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000;
}

/* bytes the kernel still holds for the peers (not yet acknowledged or not yet sent) */
static long unacked(struct ks_transport *t)
{
    long sum = 0;
    for (int r = 0; r < t->size; r++) {
        struct ks_peer *p = &t->peers[r];
        if (r == t->rank || (p->state != KS_UP && p->state != KS_CONNECTING) || !p->assoc)
            continue;
        struct sctp_status st;
        socklen_t len = sizeof st;
        memset(&st, 0, sizeof st);
        st.sstat_assoc_id = p->assoc;
        if (getsockopt(t->fd, IPPROTO_SCTP, SCTP_STATUS, &st, &len) == 0)
            sum += st.sstat_unackdata + st.sstat_penddata;
    }
    return sum;
}

static int ks_finalize(struct sm_transport *handle)
{
    struct ks_transport *t = (struct ks_transport *)handle;
    t->finalizing = 1;
    if (t->peers && t->fd >= 0) {
        /* wait (bounded) until every frame has been acknowledged, reading what arrives so
         * that close() finds no unread data (which would abort instead of shutting down) */
        long end = now_ms() + t->tu.linger_ms;
        char sink[4096];
        while (now_ms() < end) {
            while (recv(t->fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
            }
            int handled = 0;
            if (t->txq_total)
                ks_send_retry(t, &handled);
            if (!t->txq_total && unacked(t) == 0)
                break;
            struct pollfd pf = { .fd = t->fd, .events = POLLIN };
            poll(&pf, 1, 5);
        }
        while (recv(t->fd, sink, sizeof sink, MSG_DONTWAIT) > 0) {
        }
    }
    destroy(t); /* close(): a graceful SHUTDOWN of every association */
    return 0;
}

const struct sm_transport_ops sm_transport_ksctp = {
    .name = "sctp",
    .init = ks_init,
    .set_peers = ks_set_peers,
    .lanes = ks_lanes,
    .max_payload = ks_max_payload,
    .send = ks_send,
    .progress = ks_progress,
    .busy = ks_busy,
    .peer_info = ks_peer_info,
    .stats = ks_stats,
    .finalize = ks_finalize,
    .rma_lanes = ks_rma_lanes,
    .lock = ks_lock,
    .unlock = ks_unlock,
};

int sm_ksctp_available(void)
{
    return ks_kernel_has_sctp();
}
