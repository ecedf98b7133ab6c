/* usct_udp.c — the UDP side of the SCTP transport: our own UDP socket(s) carrying SCTP packets
 * (RFC 6951 framing: the SCTP common header directly in the UDP payload), the usrsctp AF_CONN
 * output callback (batched with sendmmsg, and the SCTPMPI_SCTP_TEST_DROP loss exercise), input
 * (recvmmsg -> usrsctp_conninput) and the map from a datagram's source to a peer rank. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <linux/errqueue.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "transport/usrsctp/usct_internal.h"
#include "transport/udp_socket.h"

int usct_udp_open(struct usct_transport *t, const char *const *addrs, int naddrs)
{
    static const char *const loopback[] = { "127.0.0.1" };
    if (!addrs || naddrs <= 0) {
        addrs = loopback;
        naddrs = 1;
    }
    /* one port for every address: the card lists one */
    if (sm_udp_open_all(addrs, naddrs, USCT_MAX_ADDRS, t->tu.port, t->tu.udpbuf, t->udp, &t->nudp,
                        "sctp") < 0)
        return -1;
    t->udp_port = ntohs(t->udp[0].addr.sin_port);
    return usct_udp_setup_buffers(t);
}

/* the automatic MTU, the wake-up eventfd and the datagram buffers (both modes) */
int usct_udp_setup_buffers(struct usct_transport *t)
{
    if (t->tu.mtu == 0) { /* automatic: the smallest MTU of our interfaces */
        int mtu = sm_udp_auto_mtu(t->udp, t->nudp, USCT_AUTO_MTU_MAX);
        t->tu.mtu = mtu < 576 ? 576 : mtu;
    }
    t->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (t->wake_fd < 0)
        return -1;
    t->rx_buf_size = 65536; /* any datagram, whatever MTU the peer uses */
    t->tx_buf_size = (size_t)t->tu.mtu + 512;
    t->rx_bufs = malloc(t->rx_buf_size * USCT_RX_BATCH);
    t->tx_bufs = malloc(t->tx_buf_size * USCT_TX_BATCH);
    if (!t->rx_bufs || !t->tx_bufs)
        return -1;
    t->drop_state = 0x9e3779b97f4a7c15ull ^ ((uint64_t)t->tu.test_seed << 20) ^ (uint64_t)t->rank;
    return 0;
}

void usct_udp_close(struct usct_transport *t)
{
    for (int i = 0; i < t->nudp; i++)
        if (t->udp[i].fd >= 0)
            close(t->udp[i].fd);
    t->nudp = 0;
    if (t->wake_fd >= 0)
        close(t->wake_fd);
    t->wake_fd = -1;
    free(t->rx_bufs);
    free(t->tx_bufs);
    free(t->addr_keys);
    free(t->addr_ranks);
    while (t->early) {
        struct usct_early_dgram *e = t->early;
        t->early = e->next;
        free(e);
    }
    t->rx_bufs = t->tx_bufs = NULL;
    t->addr_keys = NULL;
    t->addr_ranks = NULL;
}

/* ---- source address -> peer ---- */
static uint64_t addr_key(const struct sockaddr_in *a)
{
    return ((uint64_t)a->sin_addr.s_addr << 16) | a->sin_port;
}

static size_t addr_hash(uint64_t k, size_t mask)
{
    k ^= k >> 29;
    k *= 0xbf58476d1ce4e5b9ull;
    k ^= k >> 32;
    return (size_t)k & mask;
}

int usct_udp_build_map(struct usct_transport *t)
{
    size_t n = 0;
    for (int r = 0; r < t->size; r++)
        n += (size_t)t->peers[r].naddrs;
    size_t cap = 16;
    while (cap < 2 * n + 2)
        cap <<= 1;
    free(t->addr_keys);
    free(t->addr_ranks);
    t->addr_keys = calloc(cap, sizeof *t->addr_keys);
    t->addr_ranks = calloc(cap, sizeof *t->addr_ranks);
    if (!t->addr_keys || !t->addr_ranks)
        return -1;
    t->addr_mask = cap - 1;
    for (int r = 0; r < t->size; r++) {
        for (int i = 0; i < t->peers[r].naddrs; i++) {
            uint64_t k = addr_key(&t->peers[r].addrs[i]);
            size_t h = addr_hash(k, t->addr_mask);
            while (t->addr_ranks[h] && t->addr_keys[h] != k)
                h = (h + 1) & t->addr_mask;
            t->addr_keys[h] = k;
            t->addr_ranks[h] = r + 1;
        }
    }
    return 0;
}

struct usct_peer *usct_udp_peer_of(struct usct_transport *t, const struct sockaddr_in *from)
{
    if (!t->addr_keys || from->sin_family != AF_INET)
        return NULL;
    uint64_t k = addr_key(from);
    size_t h = addr_hash(k, t->addr_mask);
    while (t->addr_ranks[h]) {
        if (t->addr_keys[h] == k)
            return &t->peers[t->addr_ranks[h] - 1];
        h = (h + 1) & t->addr_mask;
    }
    return NULL;
}

/* ---- output ---- */
static int packet_has_data(const unsigned char *pkt, size_t len)
{
    size_t off = 12; /* common header */
    while (off + 4 <= len) {
        unsigned type = pkt[off];
        size_t clen = ((size_t)pkt[off + 2] << 8) | pkt[off + 3];
        if (type == 0x00 || type == 0x40) /* DATA, I-DATA */
            return 1;
        if (clen < 4)
            break;
        off += (clen + 3) & ~(size_t)3;
    }
    return 0;
}

static int test_drop(struct usct_transport *t, const unsigned char *pkt, size_t len)
{
    if (t->tu.test_drop <= 0 || !packet_has_data(pkt, len))
        return 0;
    /* xorshift64*: deterministic for a given seed, rank and packet sequence */
    uint64_t x = t->drop_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    t->drop_state = x;
    double u = (double)((x * 0x2545f4914f6cdd1dull) >> 11) / 9007199254740992.0;
    return u * 100.0 < t->tu.test_drop;
}

void usct_udp_flush(struct usct_transport *t)
{
    int done = 0, retried = 0;
    while (done < t->tx_count) {
        int n = sendmmsg(t->udp[0].fd, t->tx_msgs + done, (unsigned)(t->tx_count - done), 0);
        if (n > 0) {
            done += n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == ENOBUFS) && retried < 3) {
            struct pollfd pfd = { .fd = t->udp[0].fd, .events = POLLOUT };
            poll(&pfd, 1, 1);
            retried++;
            continue;
        }
        /* a datagram the kernel refuses (e.g. unreachable peer): skip it, SCTP retransmits */
        t->udp_send_errors++;
        done++;
    }
    t->tx_count = 0;
}

int usct_udp_conn_output(void *addr, void *buffer, size_t length, uint8_t tos, uint8_t set_df)
{
    (void)tos;
    (void)set_df;
    struct usct_peer *p = addr;
    struct usct_transport *t = p->t;
    if (t->nudp == 0)
        return -1;
    if (test_drop(t, buffer, length)) {
        p->tx_dropped_test++;
        return 0;
    }
    usct_stats_note_output(p, buffer, length);
    p->tx_datagrams++;
    if (length > t->tx_buf_size) { /* larger than the batch slots: send on its own */
        usct_udp_flush(t);
        if (t->crc_ours)
            usct_crc32c_fill(buffer, length);
        if (sendto(t->udp[0].fd, buffer, length, 0, (struct sockaddr *)&p->addrs[0],
                   sizeof p->addrs[0]) < 0)
            t->udp_send_errors++;
        return 0;
    }
    if (t->tx_count == USCT_TX_BATCH)
        usct_udp_flush(t);
    int i = t->tx_count++;
    unsigned char *slot = t->tx_bufs + (size_t)i * t->tx_buf_size;
    memcpy(slot, buffer, length);
    if (t->crc_ours)
        usct_crc32c_fill(slot, length);
    t->tx_iov[i].iov_base = slot;
    t->tx_iov[i].iov_len = length;
    memset(&t->tx_msgs[i], 0, sizeof t->tx_msgs[i]);
    t->tx_msgs[i].msg_hdr.msg_name = &p->addrs[0];
    t->tx_msgs[i].msg_hdr.msg_namelen = sizeof p->addrs[0];
    t->tx_msgs[i].msg_hdr.msg_iov = &t->tx_iov[i];
    t->tx_msgs[i].msg_hdr.msg_iovlen = 1;
    return 0;
}

/* ---- input ---- */
static void note_rogue(struct usct_transport *t, const struct sockaddr_in *from, size_t len)
{
    t->rogue_datagrams++;
    if (t->rogue_logged < 1) { /* one line; the count is in the statistics */
        char ip[INET_ADDRSTRLEN] = "?";
        inet_ntop(AF_INET, &from->sin_addr, ip, sizeof ip);
        usct_log("rank %d: dropped %zu-byte datagram from unknown %s:%u (not a rank of this job)",
                 t->rank, len, ip, ntohs(from->sin_port));
        t->rogue_logged++;
    }
}

/* a peer that learnt our card first may reach us before we know its card: keep a few of its
 * datagrams (an INIT, typically) and feed them to usrsctp once set_peers() built the map */
static void keep_early(struct usct_transport *t, const struct sockaddr_in *from, const void *data,
                       size_t len)
{
    if (t->nearly >= 256)
        return;
    struct usct_early_dgram *e = malloc(sizeof *e + len);
    if (!e)
        return;
    e->next = NULL;
    e->from = *from;
    e->len = len;
    memcpy(e->data, data, len);
    struct usct_early_dgram **pp = &t->early;
    while (*pp)
        pp = &(*pp)->next;
    *pp = e;
    t->nearly++;
}

void usct_udp_replay_early(struct usct_transport *t)
{
    struct usct_early_dgram *e = t->early;
    t->early = NULL;
    t->nearly = 0;
    while (e) {
        struct usct_early_dgram *next = e->next;
        struct usct_peer *p = usct_udp_peer_of(t, &e->from);
        if (!p)
            note_rogue(t, &e->from, e->len);
        else if (e->len >= 12 && (!t->crc_ours || usct_crc32c_check(e->data, e->len))) {
            p->rx_datagrams++;
            usrsctp_conninput(p, e->data, e->len, 0);
        }
        free(e);
        e = next;
    }
}

/* ICMP port/host unreachable for a datagram we sent: that peer's process (or host) is gone */
static void on_unreachable(void *arg, const struct sockaddr_in *dst, const char *why)
{
    struct usct_transport *t = arg;
    struct usct_peer *p = usct_udp_peer_of(t, dst);
    if (p && !t->finalizing && (p->state == SCTP_PEER_UP || p->state == SCTP_PEER_CONNECTING))
        usct_assoc_fail(t, p, why);
}

int usct_udp_pump_input(struct usct_transport *t, int budget)
{
    if (t->inet) /* usrsctp's receive thread reads its own socket */
        return 0;
    struct mmsghdr msgs[USCT_RX_BATCH];
    struct iovec iov[USCT_RX_BATCH];
    struct sockaddr_in from[USCT_RX_BATCH];
    int total = 0;
    for (int s = 0; s < t->nudp; s++) {
        for (;;) {
            int want = USCT_RX_BATCH;
            if (budget - total < want)
                want = budget - total;
            if (want <= 0)
                return total;
            for (int i = 0; i < want; i++) {
                iov[i].iov_base = t->rx_bufs + (size_t)i * t->rx_buf_size;
                iov[i].iov_len = t->rx_buf_size;
                memset(&msgs[i], 0, sizeof msgs[i]);
                msgs[i].msg_hdr.msg_name = &from[i];
                msgs[i].msg_hdr.msg_namelen = sizeof from[i];
                msgs[i].msg_hdr.msg_iov = &iov[i];
                msgs[i].msg_hdr.msg_iovlen = 1;
            }
            int n = recvmmsg(t->udp[s].fd, msgs, (unsigned)want, MSG_DONTWAIT, NULL);
            if (n < 0 && errno != EAGAIN && errno != EINTR) {
                sm_udp_read_unreachable(t->udp[s].fd, on_unreachable, t); /* e.g. ECONNREFUSED */
                continue;
            }
            if (n <= 0)
                break;
            for (int i = 0; i < n; i++) {
                size_t len = msgs[i].msg_len;
                if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
                    t->udp_truncated++;
                    continue;
                }
                struct usct_peer *p = usct_udp_peer_of(t, &from[i]);
                if (!p && !t->peers_known) {
                    keep_early(t, &from[i], iov[i].iov_base, len);
                    continue;
                }
                if (!p) {
                    note_rogue(t, &from[i], len);
                    continue;
                }
                if (len < 12) /* shorter than an SCTP common header */
                    continue;
                if (t->crc_ours && !usct_crc32c_check(iov[i].iov_base, len)) {
                    t->crc_errors++;
                    continue;
                }
                p->rx_datagrams++;
                usrsctp_conninput(p, iov[i].iov_base, len, 0);
            }
            total += n;
            if (n < want)
                break;
        }
    }
    return total;
}
