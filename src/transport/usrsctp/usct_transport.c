/* usct_transport.c — the SCTP transport's function table (transport.h): endpoint creation and
 * business card, peers, lanes -> streams, payload limit, finalize.  One per process (usrsctp
 * is a process-wide stack). */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "transport/usrsctp/usct_internal.h"
#include "util/util.h"

static struct usct_transport *the_transport; /* usrsctp is process-wide: one endpoint */

static void destroy(struct usct_transport *t)
{
    if (!t)
        return;
    usct_progress_stop_thread(t);
    if (t->sock)
        usct_endpoint_close(t);
    usct_recv_free_list(t->arr_head);
    t->arr_head = t->arr_tail = NULL;
    usct_recv_free_list(t->rma_head);
    t->rma_head = t->rma_tail = NULL;
    for (int r = 0; t->peers && r < t->size; r++) {
        struct usct_peer *p = &t->peers[r];
        for (int q = 0; p->txq && q < t->nlanes; q++) {
            struct sm_txq_item *it;
            while ((it = sm_txq_pop(&p->txq[q])))
                sm_txq_item_free(it);
        }
        for (int s = 0; p->rx && s < USCT_MAX_STREAMS; s++)
            free(p->rx[s].part);
        free(p->hello_sent);
        free(p->rx);
        free(p->txq);
        free(p->st);
    }
    free(t->peers);
    usct_udp_close(t);
    usct_inet_close(t);
    free(t->gather);
    pthread_mutex_destroy(&t->stack_lock);
    pthread_mutex_destroy(&t->rma_lock);
    free(t);
}

static int usct_init(const struct sm_transport_args *a, struct sm_transport **out, char *card,
                     size_t cardlen)
{
    if (the_transport) {
        usct_log("only one SCTP endpoint per process");
        return -1;
    }
    if (sm_env_bool("SCTPMPI_SCTP_STRIPE", 0)) {
        SM_ERR(
            "SCTPMPI_SCTP_STRIPE=1 is not supported by the usrsctp backend "
            "(SCTPMPI_SCTP_BACKEND=usrsctp): striping over rails needs the native backend "
            "(SCTPMPI_SCTP_BACKEND=native); usrsctp offers multihoming and SCTPMPI_SCTP_CMT=on");
        return -1;
    }
    struct usct_transport *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    t->wake_fd = -1;
    pthread_mutex_init(&t->stack_lock, NULL);
    pthread_mutexattr_t ma; /* recursive: rma_frame may send, the engine nests the lock */
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&t->rma_lock, &ma);
    pthread_mutexattr_destroy(&ma);
    usct_tunables_load(&t->tu, a->local_ranks);
    t->rank = a->rank;
    t->size = a->size;
    t->up = a->up;
    snprintf(t->secret, sizeof t->secret, "%s", a->secret ? a->secret : "");
    if (t->tu.streams <= 1) {
        t->nstreams = 1; /* single-stream variant: every lane on stream 0 */
        t->nlanes = 1;
        t->p2p_lanes = t->rma_lanes = 1;
    } else {
        /* stream 0 = control lane, 1..N = data lanes, then the RMA lanes (SM_F_RMA frames,
         * also delivered from the watchdog/receive thread: strong progress) */
        long long rma = sm_env_int("SCTPMPI_SCTP_RMA_STREAMS", 2);
        if (rma < 1)
            rma = 1;
        if (t->tu.streams + 1 + rma > USCT_MAX_STREAMS)
            rma = USCT_MAX_STREAMS - 1 - t->tu.streams;
        t->p2p_lanes = t->tu.streams + 1;
        t->rma_lanes = (int)rma;
        t->nstreams = t->p2p_lanes + t->rma_lanes;
        t->nlanes = t->nstreams;
    }
    /* a frame is one SCTP message: it must fit the send buffer several times over, and stay
     * below the partial-delivery point (half the receive buffer) to arrive in one piece */
    size_t cap = t->tu.sockbuf / 4;
    /* without I-DATA a frame in flight holds back frames of other streams until it is whole
     * (at the sender's queue and in the receiver's reassembly): keep frames to one eager
     * message (64 KiB) then, so that wait is short; with I-DATA larger frames are harmless */
    size_t dflt = t->tu.interleave ? (256u << 10) : (64u << 10) + sizeof(struct sm_frame_hdr);
    size_t mp = t->tu.max_payload ? t->tu.max_payload : dflt;
    if (mp > cap)
        mp = cap;
    if (mp < 4096 + sizeof(struct sm_frame_hdr))
        mp = 4096 + sizeof(struct sm_frame_hdr);
    t->max_payload = mp - sizeof(struct sm_frame_hdr);
    /* local addresses: SCTPMPI_SCTP_ADDRS, SCTPMPI_SCTP_BINDALL, SCTPMPI_ADDRS, loopback */
    char local[USCT_MAX_ADDRS][INET_ADDRSTRLEN];
    const char *lp[USCT_MAX_ADDRS];
    int nlocal = sm_local_addrs(a->addrs, a->naddrs, local, USCT_MAX_ADDRS);
    if (nlocal <= 0) {
        destroy(t);
        return -1;
    }
    for (int i = 0; i < nlocal; i++)
        lp[i] = local[i];
    /* several addresses: multihomed mode (one association, a path per address), unless
     * SCTPMPI_SCTP_MULTIHOME=off keeps the AF_CONN mode on the first address */
    int multihome = t->tu.multihome < 0 ? nlocal > 1 : t->tu.multihome;
    if (multihome && t->tu.progress == SCTP_PROGRESS_THREAD)
        usct_log("SCTPMPI_SCTP_PROGRESS=thread has no effect in the multihomed mode (usrsctp's "
                 "own threads run the stack)");
    int rc = multihome ? usct_inet_open(t, lp, nlocal) : usct_udp_open(t, lp, nlocal);
    if (rc < 0 || usct_endpoint_open(t) < 0) {
        destroy(t);
        return -1;
    }
    if (t->tu.debug) {
        char list[USCT_MAX_ADDRS * INET_ADDRSTRLEN + 8] = "";
        for (int i = 0; i < nlocal; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? "," : "",
                     local[i]);
        usct_log("rank %d: %s mode on %s, UDP port %u, CMT %d, failover preset %s", t->rank,
                 t->inet ? "multihomed (AF_INET)" : "AF_CONN", list, t->udp_port, t->tu.cmt,
                 t->tu.failover == 2   ? "lan"
                 : t->tu.failover == 1 ? "wan"
                                       : "none");
    }
    int n = snprintf(card, cardlen, "sctp:");
    for (int i = 0; i < t->nudp && n >= 0 && (size_t)n < cardlen; i++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &t->udp[i].addr.sin_addr, ip, sizeof ip);
        n += snprintf(card + n, cardlen - (size_t)n, "%s%s", i ? "," : "", ip);
    }
    if (n >= 0 && (size_t)n < cardlen)
        n += snprintf(card + n, cardlen - (size_t)n, ":%u%s%s", t->udp_port,
                      t->tu.crc32c ? "" : ":nocrc", t->inet ? ":mh" : "");
    if (n < 0 || (size_t)n >= cardlen) {
        destroy(t);
        return -1;
    }
    the_transport = t;
    *out = (struct sm_transport *)t;
    return 0;
}

static int usct_set_peers(struct sm_transport *handle, const char *const *cards)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    t->peers = calloc((size_t)t->size, sizeof *t->peers);
    if (!t->peers)
        return -1;
    int all_nocrc = 1;
    for (int r = 0; r < t->size; r++) {
        struct usct_peer *p = &t->peers[r];
        p->t = t;
        p->rank = r;
        p->hello_sent = calloc((size_t)t->nstreams, 1);
        p->rx = calloc(USCT_MAX_STREAMS, sizeof *p->rx);
        p->txq = calloc((size_t)t->nlanes, sizeof *p->txq);
        p->st = calloc((size_t)t->nstreams, sizeof *p->st);
        if (!p->hello_sent || !p->rx || !p->txq || !p->st)
            return -1;
        if (!cards[r] || usct_assoc_parse_card(t, r, cards[r]) < 0) {
            usct_log("rank %d: bad business card for rank %d: '%s'", t->rank, r,
                     cards[r] ? cards[r] : "(none)");
            return -1;
        }
        if (p->crc32c)
            all_nocrc = 0;
        if (p->inet != t->inet) {
            usct_log("rank %d: rank %d runs the %s mode, this rank the %s mode: give every rank "
                     "the same number of addresses or the same SCTPMPI_SCTP_MULTIHOME",
                     t->rank, r, p->inet ? "multihomed" : "single-homed (AF_CONN)",
                     t->inet ? "multihomed" : "single-homed (AF_CONN)");
            return -1;
        }
    }
    pthread_mutex_lock(&t->stack_lock);
    /* CRC32c off only when every rank asked for it (nobody then checks it) */
    t->all_crc32c = !all_nocrc;
    if (!all_nocrc && !t->inet && t->tu.crc32c_hw && usct_crc32c_hw_init())
        t->crc_ours = 1; /* same CRC32c on the wire, computed by us in hardware */
    if (all_nocrc || t->crc_ours)
        usrsctp_enable_crc32c_offload();
    else if (!t->tu.crc32c && t->rank == 0)
        usct_log("SCTPMPI_SCTP_CRC32C=off ignored: not every rank asked for it");
    for (int r = 0; r < t->size && !t->inet; r++)
        if (r != t->rank)
            usrsctp_register_address(&t->peers[r]);
    int rc = usct_udp_build_map(t);
    t->peers_known = 1;
    usct_udp_replay_early(t);
    usct_udp_flush(t);
    pthread_mutex_unlock(&t->stack_lock);
    if (rc == 0)
        rc = usct_progress_start_thread(t);
    return rc;
}

static int usct_lanes(struct sm_transport *handle)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    return t->p2p_lanes;
}

static int usct_rma_lanes(struct sm_transport *handle)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    return t->rma_lanes;
}

/* the RMA lock (transport.h "One-sided traffic"): held around every rma_frame upcall */
static void usct_lock(struct sm_transport *handle)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    pthread_mutex_lock(&t->rma_lock);
}

static void usct_unlock(struct sm_transport *handle)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    pthread_mutex_unlock(&t->rma_lock);
}

static size_t usct_max_payload(struct sm_transport *handle)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    return t->max_payload;
}

static int usct_busy(struct sm_transport *handle)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    return t->txq_total > 0;
}

static void usct_stats(struct sm_transport *handle, void *file)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    usct_stats_print(t, file ? file : stderr);
}

static int usct_finalize(struct sm_transport *handle)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    destroy(t);
    the_transport = NULL;
    return 0;
}

const struct sm_transport_ops sm_transport_usrsctp = {
    .name = "sctp",
    .init = usct_init,
    .set_peers = usct_set_peers,
    .lanes = usct_lanes,
    .max_payload = usct_max_payload,
    .send = usct_send_frame,
    .progress = usct_progress,
    .busy = usct_busy,
    .peer_info = usct_stats_peer_info,
    .stats = usct_stats,
    .finalize = usct_finalize,
    .rma_lanes = usct_rma_lanes,
    .lock = usct_lock,
    .unlock = usct_unlock,
};
