/* usct_inet.c — the multihomed mode: SCTP over usrsctp's own AF_INET UDP encapsulation (RFC
 * 6951) instead of our AF_CONN pipe, so that one association has a path per peer address.
 *
 * Why not AF_CONN: an AF_CONN address is an opaque pointer with no wire form, so an INIT or
 * INIT-ACK cannot list more than the address it came from, and usrsctp (0.9.5,
 * sctp_load_addresses_from_init) drops every remote address of an association that the INIT /
 * INIT-ACK does not list — an association set up with usrsctp_connectx() to several AF_CONN
 * handles ends with one path.  Over AF_INET the INIT and INIT-ACK carry each side's bound
 * addresses, usrsctp's path management (heartbeats, failover, CMT) works as in a kernel, and
 * usrsctp encapsulates in UDP on its own socket.  The price: usrsctp's threads (receive, timers)
 * run the stack, its UDP socket keeps the kernel's default buffers, our CRC32c, test-drop and
 * rogue-datagram filter (usct_udp.c) do not apply; the hello with the job secret still
 * authenticates every stream.
 *
 * Each rank picks a free UDP port P; its SCTP port is P too, so the card (addresses + P) names
 * both and the peer's UDP encapsulation port is set from it before connecting.  usrsctp's
 * threads call usct_inet_callback, which only queues the event (its own small lock, never held
 * across a usrsctp call) and wakes progress(); progress() processes the queue under the stack
 * lock exactly as the AF_CONN mode's callback would. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/usrsctp/usct_internal.h"

/* a UDP port free on the wildcard address, which usrsctp_init() binds (its failure to bind
 * would be silent: usct_inet_bind checks the socket exists) */
static int pick_port(int want)
{
    for (int attempt = 0; attempt < (want ? 256 : 16); attempt++) {
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        struct sockaddr_in any = { .sin_family = AF_INET,
                                   .sin_port = htons((uint16_t)(want ? want + attempt : 0)) };
        int ok = bind(fd, (struct sockaddr *)&any, sizeof any) == 0;
        socklen_t sl = sizeof any;
        if (ok)
            getsockname(fd, (struct sockaddr *)&any, &sl);
        close(fd);
        if (!ok)
            continue;
        return ntohs(any.sin_port);
    }
    return -1;
}

int usct_inet_open(struct usct_transport *t, const char *const *addrs, int naddrs)
{
    pthread_mutex_init(&t->raw_lock, NULL);
    t->inet = 1;
    if (naddrs > USCT_MAX_ADDRS)
        naddrs = USCT_MAX_ADDRS;
    int port = pick_port(t->tu.port);
    if (port <= 0) {
        usct_log("multihomed mode: no free UDP port%s: %s",
                 t->tu.port ? " at SCTPMPI_SCTP_PORT" : "", strerror(errno));
        return -1;
    }
    t->udp_port = (uint16_t)port;
    t->nudp = 0;
    for (int i = 0; i < naddrs; i++) {
        struct sm_udp_sock *u = &t->udp[t->nudp];
        memset(u, 0, sizeof *u);
        u->fd = -1;
        u->addr.sin_family = AF_INET;
        u->addr.sin_port = htons(t->udp_port);
        if (inet_pton(AF_INET, addrs[i], &u->addr.sin_addr) != 1) {
            usct_log("bad local address '%s' (IPv4 only)", addrs[i]);
            return -1;
        }
        usct_paths_interface_counters(&u->addr, t->if_base[t->nudp]);
        t->nudp++;
    }
    if (t->tu.test_drop > 0)
        usct_log("SCTPMPI_SCTP_TEST_DROP ignored in the multihomed mode (usrsctp owns the UDP "
                 "socket; use netlab loss)");
    return usct_udp_setup_buffers(t);
}

/* usrsctp's own UDP socket keeps the kernel's default buffers (~200 KB), which overflow under a
 * burst (spurious fast retransmissions on an idle loopback); find it — the UDP socket of this
 * process bound to our port — and give it SCTPMPI_SCTP_UDPBUF like the AF_CONN mode's socket */
static int grow_usrsctp_buffers(struct usct_transport *t)
{
    int found = 0;
    for (int fd = 0; fd < 4096; fd++) {
        struct sockaddr_in a;
        socklen_t sl = sizeof a;
        int type = 0;
        socklen_t tl = sizeof type;
        if (getsockname(fd, (struct sockaddr *)&a, &sl) != 0 || a.sin_family != AF_INET ||
            ntohs(a.sin_port) != t->udp_port ||
            getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_DGRAM)
            continue;
        int v = t->tu.udpbuf > 0x7fffffff ? 0x7fffffff : (int)t->tu.udpbuf;
        if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &v, sizeof v) != 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &v, sizeof v);
        if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof v) != 0)
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof v);
        found++;
    }
    if (!found) {
        usct_log("rank %d: usrsctp's UDP socket on port %u not found: usrsctp could not bind "
                 "it (port taken meanwhile?), so nothing would be received",
                 t->rank, t->udp_port);
        return -1;
    }
    return 0;
}

int usct_inet_bind(struct usct_transport *t)
{
    if (grow_usrsctp_buffers(t) < 0)
        return -1;
    struct sockaddr_in a[USCT_MAX_ADDRS];
    for (int i = 0; i < t->nudp; i++)
        a[i] = t->udp[i].addr;
    if (usrsctp_bindx(t->sock, (struct sockaddr *)a, t->nudp, SCTP_BINDX_ADD_ADDR) < 0) {
        usct_log("usrsctp_bindx of %d address(es) at port %u failed: %s (usrsctp binds only "
                 "addresses of this host's interfaces; SCTPMPI_SCTP_MULTIHOME=off uses the first "
                 "address alone)",
                 t->nudp, t->udp_port, strerror(errno));
        return -1;
    }
    /* SCTP packets in UDP to the peers' port (set per peer before connecting); usrsctp learns
     * the port of associations the peers set up from their packets */
    return 0;
}

int usct_inet_connect(struct usct_transport *t, struct usct_peer *p)
{
    struct sctp_udpencaps ue;
    memset(&ue, 0, sizeof ue);
    ue.sue_assoc_id = SCTP_FUTURE_ASSOC;
    ue.sue_port = p->addrs[0].sin_port; /* the peer's UDP port = its SCTP port (network order) */
    if (usrsctp_setsockopt(t->sock, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &ue, sizeof ue) <
        0) {
        usct_log("rank %d: SCTP_REMOTE_UDP_ENCAPS_PORT for rank %d: %s", t->rank, p->rank,
                 strerror(errno));
        return -1;
    }
    sctp_assoc_t id = 0;
    if (usrsctp_connectx(t->sock, (struct sockaddr *)p->addrs, p->naddrs, &id) < 0 &&
        errno != EINPROGRESS) {
        if (errno == EALREADY || errno == EISCONN) { /* the peer's association reached us */
            union sctp_sockstore d;
            usct_assoc_fill_dest(p, &d);
            id = usrsctp_getassocid(t->sock, &d.sa);
        }
        if (!id) {
            usct_log("rank %d: connecting to rank %d (%d addresses): %s", t->rank, p->rank,
                     p->naddrs, strerror(errno));
            return -1;
        }
    }
    if (!id) {
        union sctp_sockstore d;
        usct_assoc_fill_dest(p, &d);
        id = usrsctp_getassocid(t->sock, &d.sa);
    }
    p->assoc_id = id;
    if (p->state == SCTP_PEER_IDLE || p->state == SCTP_PEER_CLOSED)
        p->state = SCTP_PEER_CONNECTING;
    if (t->tu.debug)
        usct_log("rank %d: association %u to rank %d over %d address(es), UDP port %u", t->rank,
                 id, p->rank, p->naddrs, ntohs(p->addrs[0].sin_port));
    return 0;
}

int usct_inet_callback(struct socket *sock, union sctp_sockstore addr, void *data, size_t datalen,
                       struct sctp_rcvinfo rcv, int flags, void *ulp_info)
{
    (void)sock;
    struct usct_transport *t = ulp_info;
    if (!data)
        return 1;
    struct usct_raw_event *e = malloc(sizeof *e);
    if (!e) {
        free(data);
        return 1;
    }
    e->next = NULL;
    e->addr = addr;
    e->data = data;
    e->len = datalen;
    e->rcv = rcv;
    e->flags = flags;
    pthread_mutex_lock(&t->raw_lock);
    if (t->raw_tail)
        t->raw_tail->next = e;
    else
        t->raw_head = e;
    t->raw_tail = e;
    t->raw_events++;
    pthread_mutex_unlock(&t->raw_lock);
    uint64_t one = 1;
    if (t->wake_fd >= 0 && write(t->wake_fd, &one, sizeof one) < 0) {
        /* counter saturated: progress() wakes anyway */
    }
    return 1;
}

void usct_inet_drain(struct usct_transport *t)
{
    pthread_mutex_lock(&t->raw_lock);
    struct usct_raw_event *e = t->raw_head;
    t->raw_head = t->raw_tail = NULL;
    pthread_mutex_unlock(&t->raw_lock);
    while (e) {
        struct usct_raw_event *next = e->next;
        usct_recv_process(t, e->addr, e->data, e->len, e->rcv, e->flags);
        free(e);
        e = next;
    }
}

void usct_inet_close(struct usct_transport *t)
{
    if (!t->inet)
        return;
    while (t->raw_head) {
        struct usct_raw_event *e = t->raw_head;
        t->raw_head = e->next;
        free(e->data);
        free(e);
    }
    t->raw_tail = NULL;
    pthread_mutex_destroy(&t->raw_lock);
}
