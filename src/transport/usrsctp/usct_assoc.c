/* usct_assoc.c — peers and their associations: business cards ("sctp:ADDR[,ADDR...]:PORT"
 * plus ":nocrc" when a rank skips CRC32c, ":mh" in the multihomed mode), the AF_CONN address of each peer, the hello that opens
 * every stream (sender's rank + job secret; a failed check aborts the association and the job
 * goes on), usrsctp notifications (association up, lost, shut down) and peer failure reports. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"
#include "transport/usrsctp/usct_internal.h"
#include "transport/sctp_card.h"

int usct_assoc_parse_card(struct usct_transport *t, int rank, const char *card)
{
    struct usct_peer *p = &t->peers[rank];
    struct sm_sctp_card c;
    if (sm_sctp_card_parse(card, "sctp:", USCT_MAX_ADDRS, &c))
        return -1;
    p->crc32c = strstr(c.flags, "nocrc") == NULL;
    p->inet = strstr(c.flags, "mh") != NULL;
    p->naddrs = c.naddrs;
    for (int i = 0; i < c.naddrs; i++) {
        struct sockaddr_in *sin = &p->addrs[i];
        memset(sin, 0, sizeof *sin);
        sin->sin_family = AF_INET;
        sin->sin_port = htons((uint16_t)c.port);
        sin->sin_addr = c.addrs[i];
    }
    return 0;
}

void usct_assoc_fill_sconn(struct usct_peer *p, struct sockaddr_conn *sc)
{
    memset(sc, 0, sizeof *sc);
    sc->sconn_family = AF_CONN;
    sc->sconn_port = htons(USCT_SCTP_PORT);
    sc->sconn_addr = p;
}

void usct_assoc_fill_dest(struct usct_peer *p, union sctp_sockstore *d)
{
    memset(d, 0, sizeof *d);
    if (p->t->inet)
        d->sin = p->addrs[0];
    else
        usct_assoc_fill_sconn(p, &d->sconn);
}

struct usct_peer *usct_assoc_peer_of_addr(struct usct_transport *t, void *conn_addr)
{
    if (!t->peers || !conn_addr)
        return NULL;
    uintptr_t a = (uintptr_t)conn_addr, b = (uintptr_t)t->peers;
    if (a < b || a >= b + (uintptr_t)t->size * sizeof *t->peers ||
        (a - b) % sizeof *t->peers != 0)
        return NULL;
    return (struct usct_peer *)conn_addr;
}

struct usct_peer *usct_assoc_peer_of_id(struct usct_transport *t, sctp_assoc_t id)
{
    if (!id)
        return NULL;
    for (int r = 0; r < t->size; r++)
        if (t->peers[r].assoc_id == id)
            return &t->peers[r];
    /* not seen yet (e.g. an association the peer set up): ask usrsctp for its address */
    struct sockaddr *addrs = NULL;
    int n = usrsctp_getpaddrs(t->sock, id, &addrs);
    struct usct_peer *p = NULL;
    if (n > 0 && addrs && addrs->sa_family == AF_CONN)
        p = usct_assoc_peer_of_addr(t, ((struct sockaddr_conn *)addrs)->sconn_addr);
    else if (n > 0 && addrs && addrs->sa_family == AF_INET)
        p = usct_udp_peer_of(t, (struct sockaddr_in *)addrs);
    if (addrs)
        usrsctp_freepaddrs(addrs);
    return p;
}

/* forget the association: the next send to the peer sets up a new one */
void usct_assoc_reset(struct usct_transport *t, struct usct_peer *p)
{
    p->assoc_id = 0;
    memset(p->hello_sent, 0, (size_t)t->nstreams);
    for (int s = 0; s < USCT_MAX_STREAMS; s++) {
        p->rx[s].authed = 0;
        free(p->rx[s].part);
        p->rx[s].part = NULL;
        p->rx[s].part_len = p->rx[s].part_cap = 0;
    }
    p->tsn_valid = 0;
}

void usct_assoc_queue_failure(struct usct_transport *t, struct usct_peer *p, const char *why)
{
    struct usct_arrival *a = calloc(1, sizeof *a);
    if (!a)
        return;
    a->kind = SCTP_ARR_PEER_FAILED;
    a->peer = p->rank;
    snprintf(a->why, sizeof a->why, "%s", why);
    usct_recv_queue(t, a);
}

/* called from the receive callback: log now, abort after usrsctp_conninput() returned */
void usct_assoc_abort(struct usct_transport *t, struct usct_peer *p, const char *why)
{
    usct_log("rank %d: aborting the association from rank %d's address: %s", t->rank, p->rank,
             why);
    p->rejected_id = p->assoc_id;
    p->abort_pending = p->assoc_id != 0;
    t->aborts_pending |= p->abort_pending;
    usct_assoc_reset(t, p);
    p->state = SCTP_PEER_IDLE;
}

/* the peer is gone for good (seen outside SCTP): drop the association, tell the engine */
void usct_assoc_fail(struct usct_transport *t, struct usct_peer *p, const char *why)
{
    p->rejected_id = p->assoc_id;
    p->abort_pending = p->assoc_id != 0;
    t->aborts_pending |= p->abort_pending;
    usct_assoc_reset(t, p);
    p->state = SCTP_PEER_FAILED;
    usct_assoc_queue_failure(t, p, why);
}

void usct_assoc_run_aborts(struct usct_transport *t)
{
    if (!t->aborts_pending)
        return;
    t->aborts_pending = 0;
    for (int r = 0; r < t->size; r++) {
        struct usct_peer *p = &t->peers[r];
        if (!p->abort_pending)
            continue;
        p->abort_pending = 0;
        struct sctp_sndinfo si;
        memset(&si, 0, sizeof si);
        si.snd_flags = SCTP_ABORT;
        si.snd_assoc_id = p->rejected_id;
        static const char none = 0; /* usrsctp rejects a NULL buffer even for 0 bytes */
        usrsctp_sendv(t->sock, &none, 0, NULL, 0, &si, sizeof si, SCTP_SENDV_SNDINFO, 0);
    }
}

int usct_assoc_send_hello(struct usct_transport *t, struct usct_peer *p, int sid)
{
    struct sm_hello h;
    sm_hello_make(&h, USCT_PPID_HELLO, t->rank, t->size, (uint32_t)t->nstreams, t->secret);
    struct sctp_sndinfo si;
    memset(&si, 0, sizeof si);
    si.snd_sid = (uint16_t)sid;
    si.snd_ppid = htonl(USCT_PPID_HELLO);
    if (t->inet && !p->assoc_id && usct_inet_connect(t, p) < 0)
        return -1;
    si.snd_assoc_id = p->assoc_id;
    union sctp_sockstore dest;
    usct_assoc_fill_dest(p, &dest);
    if (usrsctp_sendv(t->sock, &h, sizeof h, &dest.sa, 1, &si, sizeof si, SCTP_SENDV_SNDINFO, 0) <
        0)
        return -1;
    p->hello_sent[sid] = 1;
    if (!p->assoc_id) {
        p->assoc_id = usrsctp_getassocid(t->sock, &dest.sa);
        if (p->state == SCTP_PEER_IDLE || p->state == SCTP_PEER_CLOSED)
            p->state = SCTP_PEER_CONNECTING;
    }
    return 0;
}

int usct_assoc_check_hello(struct usct_transport *t, struct usct_peer *p, int sid,
                           const char *data, size_t len)
{
    struct sm_hello h;
    const char *bad =
        sm_hello_check(data, len, USCT_PPID_HELLO, t->rank, t->size, p->rank, t->secret, &h);
    if (bad) {
        usct_assoc_abort(t, p, bad);
        return -1;
    }
    p->rx[sid].authed = 1;
    p->ever_authed = 1;
    return 0;
}

static void on_assoc_change(struct usct_transport *t, const struct sctp_assoc_change *ac)
{
    struct usct_peer *p = usct_assoc_peer_of_id(t, ac->sac_assoc_id);
    if (t->tu.debug)
        usct_log("rank %d: association %u (rank %d) state change %u error %u", t->rank,
                 ac->sac_assoc_id, p ? p->rank : -1, ac->sac_state, ac->sac_error);
    if (!p)
        return;
    switch (ac->sac_state) {
    case SCTP_COMM_UP:
    case SCTP_RESTART:
        if (ac->sac_state == SCTP_RESTART || (p->assoc_id && p->assoc_id != ac->sac_assoc_id))
            usct_assoc_reset(t, p);
        p->assoc_id = ac->sac_assoc_id;
        p->state = SCTP_PEER_UP;
        p->out_streams = ac->sac_outbound_streams;
        p->in_streams = ac->sac_inbound_streams;
        p->assoc_count++;
        if (t->tu.debug)
            usct_log("rank %d: association %u with rank %d up (%d out / %d in streams)", t->rank,
                     ac->sac_assoc_id, p->rank, p->out_streams, p->in_streams);
        break;
    case SCTP_COMM_LOST:
    case SCTP_CANT_STR_ASSOC: {
        if (p->assoc_id != ac->sac_assoc_id)
            return; /* an association we aborted ourselves */
        int was = p->state;
        usct_assoc_reset(t, p);
        if (t->finalizing || was == SCTP_PEER_CLOSED) {
            p->state = SCTP_PEER_CLOSED;
            return;
        }
        p->state = SCTP_PEER_FAILED;
        char why[96];
        snprintf(why, sizeof why, "SCTP association %s (error %u)",
                 ac->sac_state == SCTP_COMM_LOST ? "lost" : "could not be set up", ac->sac_error);
        usct_assoc_queue_failure(t, p, why);
        break;
    }
    case SCTP_SHUTDOWN_COMP:
        if (p->assoc_id == ac->sac_assoc_id) {
            usct_assoc_reset(t, p);
            p->state = SCTP_PEER_CLOSED;
        }
        break;
    default: break;
    }
}

void usct_assoc_notification(struct usct_transport *t, const void *data, size_t len)
{
    const union sctp_notification *n = data;
    if (len < sizeof n->sn_header)
        return;
    switch (n->sn_header.sn_type) {
    case SCTP_ASSOC_CHANGE:
        if (len >= sizeof n->sn_assoc_change)
            on_assoc_change(t, &n->sn_assoc_change);
        break;
    case SCTP_SHUTDOWN_EVENT: {
        /* the peer is finalizing: its end of the association closes gracefully */
        struct usct_peer *p = usct_assoc_peer_of_id(t, n->sn_shutdown_event.sse_assoc_id);
        if (p && p->state != SCTP_PEER_FAILED)
            p->state = SCTP_PEER_CLOSED;
        break;
    }
    case SCTP_PEER_ADDR_CHANGE:
        if (len >= sizeof n->sn_paddr_change)
            usct_paths_on_change(t, &n->sn_paddr_change);
        break;
    case SCTP_REMOTE_ERROR:
        if (t->tu.debug)
            usct_log("rank %d: remote error %u on association %u", t->rank,
                     n->sn_remote_error.sre_error, n->sn_remote_error.sre_assoc_id);
        break;
    case SCTP_SEND_FAILED_EVENT:
        if (t->tu.debug)
            usct_log("rank %d: send failed on association %u", t->rank,
                     n->sn_send_failed_event.ssfe_assoc_id);
        break;
    default: break;
    }
}
