/* sctpn_peers.c — peers and associations of the native SCTP transport: business cards
 * ("sctpn:ADDR[,ADDR...]:PORT[:zc]"), lazy association set-up, the hello that opens every stream
 * (rank + job secret; a failed check aborts the association and the job goes on), frames out
 * (copy or zero copy, queued per lane while the association's send buffer is full) and frames in
 * (gathered from the engine's in-order pieces, DATA frames placed straight into the receive
 * buffer), and association events (up, down, path changes, send completions).  With rails
 * (SCTPMPI_SCTP_STRIPE=1) each peer has one single-homed association of ours per rail, each
 * with its own hellos and queues; the rails() load comes from here too.  Processes of other
 * jobs (add_peer) follow the job's ranks in the peer table, greet with the "SMHX" hello and
 * disconnect quietly when idle. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/util.h"
#include "mpi.h"
#include "transport/sctp_card.h"
#include "transport/sctpn/sctpn_tp.h"

int nt_parse_card(struct nt_transport *t, int rank, const char *card)
{
    struct nt_peer *p = &t->peers[rank];
    struct sm_sctp_card c;
    if (sm_sctp_card_parse(card, "sctpn:", NT_MAX_ADDRS, &c))
        return -1;
    p->zero_checksum = strstr(c.flags, "zc") != NULL;
    if ((strstr(c.flags, "rails") != NULL) != (t->tu.stripe != 0))
        return -2; /* one side stripes, the other multihomes: their associations would clash */
    p->naddrs = c.naddrs;
    p->nrails = t->tu.stripe ? (c.naddrs < t->nrails ? c.naddrs : t->nrails) : 1;
    for (int i = 0; i < c.naddrs; i++) {
        p->addrs[i].ipv4 = c.addrs[i].s_addr;
        p->addrs[i].udp_port = (uint16_t)c.port;
    }
    return 0;
}

int nt_peer_init(struct nt_transport *t, int peer)
{
    struct nt_peer *p = &t->peers[peer];
    p->rank = peer;
    p->nrails = 1;
    p->hello_sent = calloc((size_t)(t->nstreams * t->nrails), 1);
    p->q = calloc((size_t)(t->nlanes * t->nrails), sizeof *p->q);
    return p->hello_sent && p->q ? 0 : -1;
}

int nt_add_peer(struct nt_transport *t, int peer, uint32_t job, int rank, const char *card,
                const char *secret)
{
    if (!t->peers || peer < t->size || peer > t->npeers)
        return -1;
    if (peer == t->npeers) {
        if (t->npeers == t->cap_peers) {
            int cap = 2 * t->cap_peers + 16;
            struct nt_peer *n = realloc(t->peers, sizeof *n * (size_t)cap);
            if (!n)
                return -1;
            t->peers = n;
            t->cap_peers = cap;
        }
        memset(&t->peers[peer], 0, sizeof t->peers[peer]);
        t->npeers++;
        if (nt_peer_init(t, peer))
            return -1;
    }
    struct nt_peer *p = &t->peers[peer];
    p->dynamic = 1;
    p->job = job;
    p->drank = rank;
    if (secret && *secret)
        snprintf(p->dsecret, sizeof p->dsecret, "%s", secret);
    if (card && *card && p->naddrs == 0) {
        int rc = nt_parse_card(t, peer, card);
        if (rc) {
            SM_ERR("sctpn: process %d of job %u: %s (card '%s')", rank, job,
                   rc == -2 ? "one of the two jobs stripes (SCTPMPI_SCTP_STRIPE), the other not"
                            : "not a native SCTP business card (SCTPMPI_SCTP_BACKEND differs)",
                   card);
            p->naddrs = 0;
            p->nrails = 1;
            return -1;
        }
    }
    return 0;
}

/* ---- associations ---- */
struct nt_assoc *nt_assoc_find(struct nt_transport *t, sctpn_assoc_id id)
{
    for (int i = 0; i < t->nassocs; i++)
        if (t->assocs[i].id == id)
            return &t->assocs[i];
    return NULL;
}

int nt_is_tx(const struct nt_peer *p, sctpn_assoc_id id)
{
    for (int r = 0; id && r < p->nrails; r++)
        if (p->tx[r] == id)
            return 1;
    return 0;
}

/* the rail of an association: the index of the local address its (single) path uses */
static int rail_of(struct nt_transport *t, sctpn_assoc_id id)
{
    struct sctpn_assoc_stats st;
    if (t->nrails <= 1 || sctpn_get_stats(t->ep, id, &st) != 0 || st.npaths < 1)
        return 0;
    for (int s = 0; s < t->nrails; s++)
        if (t->udp[s].addr.sin_addr.s_addr == st.paths[0].local.ipv4)
            return s;
    return 0;
}

/* rail: the association's rail, or -1 to learn it from its path */
static struct nt_assoc *assoc_add(struct nt_transport *t, sctpn_assoc_id id, int rank, int rail)
{
    struct nt_assoc *a = nt_assoc_find(t, id);
    if (a)
        return a;
    if (t->nassocs == t->cap_assocs) {
        int cap = t->cap_assocs ? 2 * t->cap_assocs : 16;
        struct nt_assoc *n = realloc(t->assocs, (size_t)cap * sizeof *n);
        if (!n)
            return NULL;
        t->assocs = n;
        t->cap_assocs = cap;
    }
    a = &t->assocs[t->nassocs++];
    memset(a, 0, sizeof *a);
    a->id = id;
    a->rank = rank;
    a->rail = rail >= 0 ? rail : rail_of(t, id);
    a->nin = NT_MAX_STREAMS;
    a->rx = calloc(NT_MAX_STREAMS, sizeof *a->rx);
    if (!a->rx) {
        t->nassocs--;
        return NULL;
    }
    return a;
}

static void rx_reset(struct nt_rx *rx)
{
    free(rx->buf);
    rx->buf = NULL;
    rx->dst = NULL;
    rx->in_msg = rx->bad = 0;
    rx->got = 0;
}

static void assoc_release_rx(struct nt_assoc *a)
{
    for (int s = 0; a->rx && s < a->nin; s++)
        rx_reset(&a->rx[s]);
}

void nt_peers_free(struct nt_transport *t)
{
    for (int i = 0; i < t->nassocs; i++) {
        assoc_release_rx(&t->assocs[i]);
        free(t->assocs[i].rx);
    }
    free(t->assocs);
    t->assocs = NULL;
    t->nassocs = 0;
    for (int r = 0; t->peers && r < t->npeers; r++) {
        struct nt_peer *p = &t->peers[r];
        for (int l = 0; p->q && l < t->nlanes * t->nrails; l++) {
            struct sm_txq_item *it;
            while ((it = sm_txq_pop(&p->q[l])))
                sm_txq_item_free(it);
        }
        free(p->q);
        free(p->hello_sent);
    }
    free(t->peers);
    t->peers = NULL;
}

/* ---- engine upcalls: direct inside progress(), deferred otherwise ---- */
static void report_done(struct nt_transport *t, void *cookie)
{
    if (!cookie)
        return;
    if (t->in_progress) {
        t->up->send_done(t->up->ctx, cookie);
        return;
    }
    if (t->ndone == t->cap_done) {
        size_t cap = t->cap_done ? 2 * t->cap_done : 64;
        void **n = realloc(t->done_cookies, cap * sizeof(void *));
        if (!n)
            sm_die("out of memory queueing send completions");
        t->done_cookies = n;
        t->cap_done = cap;
    }
    t->done_cookies[t->ndone++] = cookie;
}

static void report_failed(struct nt_transport *t, int rank, const char *why)
{
    struct nt_peer *p = &t->peers[rank];
    if (p->state == NT_FAILED)
        return;
    p->state = NT_FAILED;
    snprintf(p->fail_why, sizeof p->fail_why, "%s", why);
    SM_INFO("sctpn: association to rank %d lost: %s", rank, why);
    if (t->in_progress) {
        t->up->peer_failed(t->up->ctx, rank, why);
        return;
    }
    if (t->nfailed == t->cap_failed) {
        int cap = t->cap_failed ? 2 * t->cap_failed : 8;
        int *n = realloc(t->failed_ranks, (size_t)cap * sizeof *n);
        if (!n)
            sm_die("out of memory");
        t->failed_ranks = n;
        t->cap_failed = cap;
    }
    t->failed_ranks[t->nfailed++] = rank;
}

void nt_hand_over_deferred(struct nt_transport *t)
{
    while (t->ndone) {
        size_t n = t->ndone;
        t->ndone = 0;
        for (size_t i = 0; i < n; i++)
            t->up->send_done(t->up->ctx, t->done_cookies[i]);
    }
    while (t->nfailed) {
        int r = t->failed_ranks[--t->nfailed];
        t->up->peer_failed(t->up->ctx, r, t->peers[r].fail_why);
    }
}

/* abort every live association with rank (its peer is lost) */
static void abort_all(struct nt_transport *t, int rank)
{
    for (int k = 0; k < t->nassocs; k++)
        if (t->assocs[k].rank == rank && !t->assocs[k].down) {
            t->assocs[k].down = 1;
            assoc_release_rx(&t->assocs[k]);
            sctpn_abort(t->ep, t->assocs[k].id, nt_now_us());
        }
}

/* a process of another job whose association ended while nothing waited for it: that is how it
 * disconnects (MPI_Comm_disconnect, its exit).  Forget our associations to it; a later send
 * sets up a new one.  Returns 1 when handled so (no failure to report). */
static int dyn_idle_lost(struct nt_transport *t, int rank)
{
    struct nt_peer *p = &t->peers[rank];
    if (rank < t->size || p->q_frames || p->state == NT_FAILED)
        return 0;
    for (int k = 0; k < t->nassocs; k++)
        if (t->assocs[k].rank == rank && !t->assocs[k].down) {
            t->assocs[k].down = 1;
            assoc_release_rx(&t->assocs[k]);
            sctpn_abort(t->ep, t->assocs[k].id, nt_now_us());
        }
    for (int r = 0; r < NT_MAX_RAILS; r++)
        p->tx[r] = 0;
    memset(p->hello_sent, 0, (size_t)(t->nstreams * t->nrails));
    p->state = NT_IDLE;
    return 1;
}

void nt_peer_unreachable(struct nt_transport *t, const struct sctpn_addr *addr, const char *why)
{
    if (t->finalizing || !t->peers)
        return;
    for (int r = 0; r < t->npeers; r++) {
        struct nt_peer *p = &t->peers[r];
        for (int i = 0; i < p->naddrs; i++) {
            if (p->addrs[i].ipv4 != addr->ipv4 || p->addrs[i].udp_port != addr->udp_port)
                continue;
            if (p->state == NT_CLOSED || p->state == NT_FAILED)
                return;
            /* with several addresses one unreachable path is the SCTP engine's business;
             * with rails every address in use is a rail of its own (and an unused one is
             * nobody's business) */
            if (t->tu.stripe ? i >= p->nrails : p->naddrs > 1)
                return;
            if (dyn_idle_lost(t, r))
                return;
            report_failed(t, r, why);
            abort_all(t, r);
            return;
        }
    }
}

/* ---- sending ---- */
static int stream_of(struct nt_transport *t, int lane)
{
    lane = SM_LANE_INDEX(lane);
    if (t->nstreams == 1 || lane < 0 || lane >= t->nstreams)
        return 0;
    return lane;
}

static int ensure_assoc(struct nt_transport *t, struct nt_peer *p, int rail)
{
    if (p->tx[rail])
        return 0;
    /* the peer already opened one to us (on this rail) and proved who it is: use it */
    for (int i = 0; i < t->nassocs; i++) {
        struct nt_assoc *a = &t->assocs[i];
        if (a->rank == p->rank && a->rail == rail && a->up && !a->down) {
            p->tx[rail] = a->id;
            if (p->state == NT_IDLE || p->state == NT_CONNECTING)
                p->state = NT_UP;
            return 0;
        }
    }
    sctpn_assoc_id id;
    struct sctpn_addr local[NT_MAX_ADDRS];
    for (int i = 0; i < t->nudp; i++) {
        local[i].ipv4 = t->udp[i].addr.sin_addr.s_addr;
        local[i].udp_port = ntohs(t->udp[i].addr.sin_port);
    }
    /* striped: rail r is single-homed, from our address r to the peer's address r */
    int rc = t->tu.stripe ? sctpn_connect(t->ep, NT_SCTP_PORT, &p->addrs[rail], 1, &local[rail],
                                          1, nt_now_us(), &id)
                          : sctpn_connect(t->ep, NT_SCTP_PORT, p->addrs, p->naddrs, local,
                                          t->nudp, nt_now_us(), &id);
    if (rc < 0) {
        SM_ERR("sctpn: cannot start an association to rank %d (rail %d): %s", p->rank, rail,
               sctpn_strerror(rc));
        return -1;
    }
    if (!assoc_add(t, id, p->rank, rail))
        return -1;
    p->tx[rail] = id;
    if (p->state == NT_IDLE)
        p->state = NT_CONNECTING;
    return 0;
}

static int send_hello(struct nt_transport *t, struct nt_peer *p, int rail, int stream)
{
    unsigned char *sent = &p->hello_sent[rail * t->nstreams + stream];
    if (*sent)
        return 0;
    struct sm_hello h;
    uint32_t ppid = p->dynamic ? NT_PPID_HELLOX : NT_PPID_HELLO;
    if (p->dynamic) /* to another job: our identity and the secret of its job */
        sm_hello_make(&h, ppid, t->rank, (int)t->job_id, 0, p->dsecret);
    else
        sm_hello_make(&h, ppid, t->rank, t->size, 0, t->secret);
    struct iovec v = { &h, sizeof h };
    int rc = sctpn_send(t->ep, p->tx[rail], (uint16_t)stream, ppid, SCTPN_SEND_COPY, &v, 1, NULL);
    if (rc == 0)
        *sent = 1;
    return rc;
}

static size_t iov_len(const struct iovec *iov, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        s += iov[i].iov_len;
    return s;
}

/* hand one frame to the engine: 0 sent (memory free again), 1 sent zero-copy (SEND_DONE later),
 * SCTPN_EAGAIN no room, other negative: error.  adopt: iov is one malloc'd block without a
 * cookie, which the engine takes over on success instead of copying it */
static int try_send(struct nt_transport *t, struct nt_peer *p, int rail, int stream,
                    const struct iovec *iov, int iovcnt, void *cookie, int adopt)
{
    int rc = send_hello(t, p, rail, stream);
    if (rc < 0)
        return rc;
    size_t len = iov_len(iov, iovcnt);
    int zcopy = cookie && len >= t->tu.zcopy_min;
    unsigned flags = zcopy ? SCTPN_SEND_COPY_HEAD : adopt ? SCTPN_SEND_ADOPT : SCTPN_SEND_COPY;
    if (zcopy || (t->tu.sack_immediately && len <= t->tu.sack_imm_max))
        flags |= SCTPN_SEND_SACK_IMMEDIATELY;
    rc = sctpn_send(t->ep, p->tx[rail], (uint16_t)stream, NT_PPID_FRAME, flags, iov, iovcnt,
                    zcopy ? cookie : NULL);
    if (rc < 0)
        return rc;
    p->tx_frames++;
    p->tx_bytes += len;
    p->rail_tx_frames[rail]++;
    p->rail_tx_bytes[rail] += len;
    if (zcopy)
        p->zcopy_frames++;
    return zcopy;
}

/* returns what send() returns: 1 when the item keeps the cookie (send_done follows), 0 when it
 * holds a copy */
static int enqueue(struct nt_peer *p, int lane, int rail, const struct iovec *iov, int iovcnt,
                   void *cookie)
{
    /* copies only when there is no cookie (the caller's memory is free once we return) */
    struct sm_txq_item *it = sm_txq_item_new(iov, iovcnt, cookie, 0);
    if (!it)
        sm_die("sctpn: out of memory queueing a frame");
    sm_txq_push(&p->q[lane], it);
    p->q_frames++;
    p->q_bytes[rail] += it->len;
    p->eagain++;
    return it->cookie ? 1 : 0;
}

int nt_send_frame(struct nt_transport *t, int peer, int lane, const struct iovec *iov, int iovcnt,
                  void *cookie)
{
    if (peer < 0 || peer >= t->npeers)
        return -MPI_ERR_RANK;
    if (iovcnt < 1 || iovcnt > SCTPN_MAX_IOV)
        return -MPI_ERR_INTERN;
    struct nt_peer *p = &t->peers[peer];
    if (p->state == NT_FAILED)
        return -MPI_ERR_OTHER;
    int rail = SM_LANE_RAIL(lane);
    if (rail < 0 || rail >= p->nrails) {
        SM_ERR("sctpn: a frame for rail %d of rank %d, which has %d rail(s)", rail, peer,
               p->nrails);
        return -MPI_ERR_INTERN;
    }
    if (p->dynamic && !p->tx[rail] && (!p->naddrs || !p->dsecret[0])) {
        /* it reached us first: until the connect/accept exchange gives us its card and its
         * job's secret, we can only answer on an association it opened */
        int usable = 0;
        for (int i = 0; i < t->nassocs && !usable; i++)
            usable = t->assocs[i].rank == peer && t->assocs[i].up && !t->assocs[i].down;
        if (!usable || !p->dsecret[0]) {
            SM_ERR("sctpn: no business card or job secret yet for process %d of job %u", p->drank,
                   p->job);
            return -MPI_ERR_OTHER;
        }
    }
    if (ensure_assoc(t, p, rail))
        return -MPI_ERR_OTHER;
    int stream = stream_of(t, lane), q = rail * t->nlanes + stream; /* per rail and stream */
    if (!p->q[q].head) {
        int rc = try_send(t, p, rail, stream, iov, iovcnt, cookie, 0);
        if (rc >= 0)
            return rc;
        if (rc != SCTPN_EAGAIN) {
            SM_ERR("sctpn: send to rank %d failed: %s", peer, sctpn_strerror(rc));
            return -MPI_ERR_OTHER;
        }
    }
    return enqueue(p, q, rail, iov, iovcnt, cookie);
}

/* frames that waited for room: send in order per lane while the engine takes them */
void nt_retry_queued(struct nt_transport *t)
{
    for (int r = 0; r < t->npeers; r++) {
        struct nt_peer *p = &t->peers[r];
        if (!p->q_frames || p->state == NT_FAILED)
            continue;
        /* control lanes (lane 0 of every rail) first; then the queue to try first turns
         * round, so that no data lane (point-to-point or RMA) always gets the room freed by
         * the peer's SACKs last */
        int nq = t->nlanes * p->nrails, first = (int)(p->retry_turn++ % (unsigned)nq);
        for (int k = -p->nrails; k < nq && p->state != NT_FAILED; k++) {
            int q = k < 0 ? (k + p->nrails) * t->nlanes : (first + k) % nq;
            int rail = q / t->nlanes, l = q % t->nlanes;
            if (k >= 0 && l == 0 && t->nlanes > 1)
                continue; /* done in the first pass */
            while (p->q[q].head) {
                struct sm_txq_item *it = p->q[q].head;
                /* a queued copy goes to the engine as it is (no second copy) */
                int adopt = it->owned && !it->cookie && it->iovcnt == 1 &&
                            it->iov[0].iov_base == it->owned && it->len > 0;
                int rc = try_send(t, p, rail, l, it->iov, it->iovcnt, it->cookie, adopt);
                if (rc == SCTPN_EAGAIN)
                    break;
                if (rc < 0) {
                    report_failed(t, r, "send failed");
                    break;
                }
                sm_txq_pop(&p->q[q]);
                p->q_frames--;
                p->q_bytes[rail] -= it->len;
                if (rc == 0 && it->cookie) /* went out as a copy: the caller's memory is free */
                    report_done(t, it->cookie);
                if (adopt)
                    it->owned = NULL; /* the engine's now */
                sm_txq_item_free(it);
            }
        }
    }
}

/* ---- receiving ---- */
static void reject(struct nt_transport *t, struct nt_assoc *a, const char *why)
{
    t->rejected++;
    SM_WARN("sctpn: rejecting association %u (rank %d): %s", a->id, a->rank, why);
    a->down = 1;
    assoc_release_rx(a);
    sctpn_abort(t->ep, a->id, nt_now_us());
}

/* the hello of a process of another job ("SMHX": rank, its job id in the size field, and OUR
 * job's secret): the peer index it names, or NULL with the reason in *why.  Only inside
 * progress() (the watchdog defers these hellos): an unknown process is added by the engine. */
static int hellox_peer(struct nt_transport *t, const struct nt_assoc *a, const void *buf,
                       size_t len, const char **why)
{
    struct sm_hello h;
    if (len != sizeof h) {
        *why = "malformed hello";
        return -1;
    }
    memcpy(&h, buf, sizeof h);
    h.secret[NT_SECRET_MAX - 1] = '\0';
    if (h.magic != NT_PPID_HELLOX) {
        *why = "malformed hello";
        return -1;
    }
    if (!sm_secret_equal(h.secret, t->secret, NT_SECRET_MAX)) {
        *why = "wrong job secret";
        return -1;
    }
    uint32_t job = (uint32_t)h.size;
    int idx = -1;
    for (int i = t->size; i < t->npeers && idx < 0; i++)
        if (t->peers[i].dynamic && t->peers[i].job == job && t->peers[i].drank == h.rank)
            idx = i;
    if (idx < 0 && job != t->job_id && h.rank >= 0 && t->in_progress && t->up->peer_lookup)
        idx = t->up->peer_lookup(t->up->ctx, job, h.rank); /* may grow t->peers */
    if (idx < t->size || idx >= t->npeers) {
        *why = "hello names an unknown process of another job";
        return -1;
    }
    if (a->rank >= 0 && a->rank != idx) {
        *why = "hello names another process than the association's";
        return -1;
    }
    return idx;
}

/* a whole "SMHX" hello in one piece that names a process already in the peer table */
static int hellox_known(const struct nt_transport *t, const struct sctpn_data *d)
{
    struct sm_hello h;
    if (!d->first || !d->last || d->len != sizeof h)
        return 0;
    memcpy(&h, d->data, sizeof h);
    for (int i = t->size; i < t->npeers; i++)
        if (t->peers[i].dynamic && t->peers[i].job == (uint32_t)h.size &&
            t->peers[i].drank == h.rank)
            return 1;
    return 0;
}

static void on_hello(struct nt_transport *t, struct nt_assoc *a, struct nt_rx *rx,
                     const struct sctpn_data *d)
{
    if (d->ppid != NT_PPID_HELLO && d->ppid != NT_PPID_HELLOX) {
        reject(t, a, "data before the hello");
        return;
    }
    if (d->first)
        rx->got = 0;
    if (!rx->buf)
        rx->buf = sm_xcalloc(1, sizeof(struct sm_hello));
    if (rx->got + d->len > sizeof(struct sm_hello)) {
        reject(t, a, "oversized hello");
        return;
    }
    memcpy(rx->buf + rx->got, d->data, d->len);
    rx->got += d->len;
    if (!d->last)
        return;
    if (d->ppid == NT_PPID_HELLOX) {
        const char *bad = NULL;
        int idx = hellox_peer(t, a, rx->buf, rx->got, &bad);
        rx_reset(rx);
        if (idx < 0)
            reject(t, a, bad);
        else {
            a->rank = idx;
            rx->authed = 1;
        }
        return;
    }
    struct sm_hello h;
    const char *bad =
        sm_hello_check(rx->buf, rx->got, NT_PPID_HELLO, t->rank, t->size, a->rank, t->secret, &h);
    rx_reset(rx);
    if (bad)
        reject(t, a, bad);
    else {
        a->rank = h.rank;
        rx->authed = 1;
    }
}

/* the whole frame is in place: hand it to the engine */
static void frame_done(struct nt_transport *t, struct nt_assoc *a, struct nt_rx *rx,
                       const void *inline_payload)
{
    const struct sm_frame_hdr *h = (const struct sm_frame_hdr *)rx->hdr;
    struct nt_peer *p = &t->peers[a->rank];
    p->rx_frames++;
    p->rx_bytes += h->payload_len + sizeof *h;
    if (a->rail >= 0 && a->rail < NT_MAX_RAILS) {
        p->rail_rx_frames[a->rail]++;
        p->rail_rx_bytes[a->rail] += h->payload_len + sizeof *h;
    }
    if (h->type == SM_F_DATA) {
        t->up->frame_end(t->up->ctx, a->rank, h, rx->dst ? rx->dst : rx->buf);
    } else if (h->type == SM_F_RMA && t->up->rma_frame) { /* any thread, lock held */
        t->up->rma_frame(t->up->ctx, a->rank, h, inline_payload ? inline_payload : rx->buf);
    } else {
        const void *src = inline_payload ? inline_payload : rx->buf;
        void *dst = t->up->frame_begin(t->up->ctx, a->rank, h);
        if (dst && h->payload_len)
            memcpy(dst, src, h->payload_len);
        t->up->frame_end(t->up->ctx, a->rank, h, dst ? dst : (void *)src);
    }
    rx_reset(rx);
}

static void process_data(void *user, const struct sctpn_data *d)
{
    struct nt_transport *t = user;
    struct nt_assoc *a = nt_assoc_find(t, d->assoc);
    if (!a)
        a = assoc_add(t, d->assoc, -1, -1);
    if (!a || a->down)
        return;
    if (d->stream >= a->nin) {
        reject(t, a, "stream out of range");
        return;
    }
    struct nt_rx *rx = &a->rx[d->stream];
    if (!rx->authed) {
        on_hello(t, a, rx, d);
        return;
    }
    if (d->ppid != NT_PPID_FRAME) {
        reject(t, a, "unknown payload protocol");
        return;
    }
    if (d->first) {
        rx_reset(rx);
        rx->in_msg = 1;
    }
    if (!rx->in_msg)
        return;
    const char *src = d->data;
    size_t len = d->len;
    const size_t hl = sizeof(struct sm_frame_hdr);
    if (rx->got < hl) { /* still gathering the header */
        size_t c = hl - rx->got < len ? hl - rx->got : len;
        memcpy(rx->hdr + rx->got, src, c);
        rx->got += c;
        src += c;
        len -= c;
        if (rx->got < hl) {
            if (d->last)
                reject(t, a, "frame shorter than its header");
            return;
        }
        const struct sm_frame_hdr *h = (const struct sm_frame_hdr *)rx->hdr;
        if (h->payload_len > t->max_payload) {
            reject(t, a, "frame larger than the largest payload");
            return;
        }
        if (d->first && d->last && h->type != SM_F_DATA) { /* whole small frame: no gather */
            if (len != h->payload_len) {
                reject(t, a, "frame length does not match its header");
                return;
            }
            frame_done(t, a, rx, src);
            return;
        }
        if (h->type == SM_F_DATA)
            rx->dst = t->up->frame_begin(t->up->ctx, a->rank, h);
        if (!rx->dst && h->payload_len)
            rx->buf = sm_xmalloc(h->payload_len);
    }
    const struct sm_frame_hdr *h = (const struct sm_frame_hdr *)rx->hdr;
    size_t off = rx->got - hl;
    if (off + len > h->payload_len) {
        reject(t, a, "frame longer than its header says");
        return;
    }
    if (len)
        memcpy((char *)(rx->dst ? rx->dst : rx->buf) + off, src, len);
    rx->got += len;
    if (d->last) {
        if (rx->got != hl + h->payload_len) {
            reject(t, a, "frame shorter than its header says");
            return;
        }
        frame_done(t, a, rx, NULL);
    }
}

static void process_event(void *user, const struct sctpn_event *ev)
{
    struct nt_transport *t = user;
    struct nt_assoc *a;
    switch (ev->type) {
    case SCTPN_EV_ASSOC_UP:
        a = assoc_add(t, ev->assoc, -1, -1);
        if (!a)
            break;
        a->up = 1;
        if (a->rank >= 0 && nt_is_tx(&t->peers[a->rank], a->id) &&
            t->peers[a->rank].state == NT_CONNECTING)
            t->peers[a->rank].state = NT_UP;
        if (t->tu.debug)
            SM_WARN("sctpn: association %u up (rank %d)", ev->assoc, a ? a->rank : -1);
        break;
    case SCTPN_EV_ASSOC_DOWN:
        a = nt_assoc_find(t, ev->assoc);
        if (!a)
            break;
        int was_down = a->down; /* we aborted it ourselves */
        a->down = 1;
        assoc_release_rx(a);
        if (t->tu.debug)
            SM_WARN("sctpn: association %u (rank %d) down, reason %d", a->id, a->rank,
                    ev->reason);
        /* a process of another job went away while nothing waited for it (or we ended this
         * association of its ourselves): no failure, and a later send starts afresh */
        if (a->rank >= t->size && !t->finalizing && (was_down || dyn_idle_lost(t, a->rank)))
            break;
        if (a->rank >= 0) {
            struct nt_peer *p = &t->peers[a->rank];
            if (ev->reason == SCTPN_DOWN_SHUTDOWN) {
                if (nt_is_tx(p, a->id) && p->state != NT_FAILED)
                    p->state = NT_CLOSED;
            } else if (!t->finalizing && p->state != NT_FAILED) {
                const char *why = ev->reason == SCTPN_DOWN_TIMEOUT
                                      ? "peer unreachable (retransmissions exhausted)"
                                  : ev->reason == SCTPN_DOWN_ABORT_RECEIVED
                                      ? "association aborted by the peer"
                                      : "association aborted";
                char msg[128];
                if (t->tu.stripe) /* one rail lost = the peer lost: end its other rails too */
                    snprintf(msg, sizeof msg, "rail %d (of %d): %s", a->rail, p->nrails, why);
                report_failed(t, a->rank, t->tu.stripe ? msg : why);
                if (t->tu.stripe)
                    abort_all(t, a->rank);
            }
        }
        break;
    case SCTPN_EV_PATH_CHANGE: {
        a = nt_assoc_find(t, ev->assoc);
        t->path_events++;
        if (t->tu.debug) {
            char ip[INET_ADDRSTRLEN] = "?";
            struct in_addr ia = { ev->addr.ipv4 };
            inet_ntop(AF_INET, &ia, ip, sizeof ip);
            /* same wording as the usrsctp backend (tests/multihome greps it) */
            fprintf(stderr,
                    "sctpmpi[%d] sctpn: rank %d: path to rank %d via %s: %s%s (association %u)\n",
                    t->rank, t->rank, a ? a->rank : -1, ip,
                    ev->path_state == SCTPN_PATH_ACTIVE ? "available"
                    : ev->path_state == SCTPN_PATH_PF   ? "potentially-failed"
                                                        : "unreachable",
                    ev->primary ? ", primary" : "", ev->assoc);
        }
        break;
    }
    case SCTPN_EV_SEND_DONE: report_done(t, ev->cookie); break;
    case SCTPN_EV_SEND_FAILED: break; /* the association is gone: ASSOC_DOWN reports the peer */
    case SCTPN_EV_ASSOC_RESTART:
        a = nt_assoc_find(t, ev->assoc);
        if (a && a->rank >= 0 && !t->finalizing)
            report_failed(t, a->rank, "peer restarted its association");
        break;
    }
}

/* ---- deliveries: at once inside progress(), queued (in order) everywhere else ----
 * The engine's callbacks also run inside send() and on the watchdog thread (strong progress);
 * there no upcall into the MPI engine is allowed, so data pieces (copied) and events wait in
 * one queue that the next progress() replays in arrival order. */
struct nt_deferred {
    struct nt_deferred *next;
    int is_data;
    int counted; /* counted in its stream's rx->deferred */
    struct sctpn_data d;
    struct sctpn_event ev;
    unsigned char bytes[];
};

/* the RMA streams (transport.h "One-sided traffic"): SCTPMPI_SCTP_RMA_STREAMS after the
 * point-to-point ones; the peer runs the same configuration */
static int is_rma_stream(const struct nt_transport *t, unsigned stream)
{
    return t->nstreams > 1 && stream >= (unsigned)t->p2p_lanes && stream < (unsigned)t->nstreams;
}

static void defer(struct nt_transport *t, const struct sctpn_data *d,
                  const struct sctpn_event *ev)
{
    size_t n = d ? d->len : 0;
    struct nt_deferred *q = sm_xmalloc(sizeof *q + n);
    q->next = NULL;
    q->is_data = d != NULL;
    q->counted = 0;
    if (d && is_rma_stream(t, d->stream)) {
        /* learn a new association now (as process_data would): rma_direct must see this
         * piece waiting even if it is the association's first */
        struct nt_assoc *a = nt_assoc_find(t, d->assoc);
        if (!a)
            a = assoc_add(t, d->assoc, -1, -1);
        if (a && d->stream < a->nin) {
            a->rx[d->stream].deferred++;
            q->counted = 1;
        }
    }
    if (d) {
        q->d = *d;
        if (n)
            memcpy(q->bytes, d->data, n);
        q->d.data = q->bytes;
    } else {
        q->ev = *ev;
    }
    if (t->dq_tail)
        t->dq_tail->next = q;
    else
        t->dq_head = q;
    t->dq_tail = q;
    t->deferred_total++;
}

int nt_replay_deferred(struct nt_transport *t, uint64_t until_us)
{
    for (unsigned k = 0; t->dq_head; k++) {
        if (k && nt_now_us() >= until_us) /* at least one per call */
            return 1;
        if (t->tu_test_upcall_us > 0) { /* tests: an MPI engine slow to take deliveries */
            struct timespec ts = { t->tu_test_upcall_us / 1000000,
                                   t->tu_test_upcall_us % 1000000 * 1000 };
            nanosleep(&ts, NULL);
        }
        struct nt_deferred *q = t->dq_head;
        t->dq_head = q->next;
        if (!t->dq_head)
            t->dq_tail = NULL;
        if (q->is_data && q->counted) {
            struct nt_assoc *a = nt_assoc_find(t, q->d.assoc);
            if (a && q->d.stream < a->nin && a->rx[q->d.stream].deferred > 0)
                a->rx[q->d.stream].deferred--;
        }
        if (q->is_data)
            process_data(t, &q->d);
        else
            process_event(t, &q->ev);
        free(q);
    }
    return 0;
}

/* strong progress for one-sided traffic: in the watchdog's drive (outside progress()), a
 * piece on an RMA stream is processed at once (whole RMA frames go to rma_frame) unless earlier
 * pieces of the same stream still wait in the queue: order per stream holds.  Pieces of other
 * streams keep waiting for progress() in arrival order. */
static int rma_direct(struct nt_transport *t, const struct sctpn_data *d)
{
    if (!t->in_drive || !t->up->rma_frame || !is_rma_stream(t, d->stream))
        return 0;
    struct nt_assoc *a = nt_assoc_find(t, d->assoc);
    if (!a) /* first piece of a new association: learn it (as process_data would) */
        a = assoc_add(t, d->assoc, -1, -1);
    /* a hello of another job's process naming one we do not know yet needs the engine
     * (peer_lookup): progress() only */
    if (a && d->stream < a->nin && !a->rx[d->stream].authed && d->ppid == NT_PPID_HELLOX &&
        !hellox_known(t, d))
        return 0;
    return a && d->stream < a->nin && a->rx[d->stream].deferred == 0;
}

void nt_on_data(void *user, const struct sctpn_data *d)
{
    struct nt_transport *t = user;
    if (t->in_progress && !t->dq_head)
        process_data(user, d);
    else if (!t->in_progress && rma_direct(t, d))
        process_data(user, d);
    else
        defer(t, d, NULL);
}

void nt_on_event(void *user, const struct sctpn_event *ev)
{
    struct nt_transport *t = user;
    if (t->in_progress && !t->dq_head)
        process_event(user, ev);
    else
        defer(t, NULL, ev);
}

/* ---- rails (transport.h): per rail, the bytes not yet on the wire (our queues plus what the
 * engine holds unsent) and the bytes in flight; a rail whose paths are slower keeps more unsent
 * and so gets fewer striped segments ---- */
int nt_rails(struct nt_transport *t, int peer, struct sm_rail_load *load, int max)
{
    if (peer < 0 || peer >= t->npeers || !t->peers)
        return 1;
    struct nt_peer *p = &t->peers[peer];
    for (int r = 0; load && r < p->nrails && r < max; r++) {
        struct sctpn_assoc_stats st;
        load[r].queued = p->q_bytes[r];
        load[r].unacked = 0;
        if (!p->tx[r] || sctpn_get_stats(t->ep, p->tx[r], &st) != 0)
            continue;
        uint64_t flight = 0;
        for (int k = 0; k < st.npaths; k++)
            flight += st.paths[k].flight_bytes;
        load[r].queued += st.bytes_queued > flight ? (size_t)(st.bytes_queued - flight) : 0;
        load[r].unacked = (size_t)flight;
    }
    return p->nrails;
}
