/* sctpn_io.c — the I/O side of the native SCTP transport: our UDP socket(s) (one per local
 * address, one port), and the drive loop that feeds received datagrams to the sans-IO engine
 * (recvmmsg; coalesced GRO buffers split back into packets), runs its timers and sends its
 * packets (sendmmsg; runs of equal-sized packets to one destination as one GSO
 * super-datagram), blocking in poll() only when asked to and nothing is ready.  Also the
 * SCTPMPI_SCTP_TEST_DROP loss exercise. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/errqueue.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <time.h>
#include <unistd.h>

#include "transport/sctpn/sctpn_tp.h"
#include "transport/udp_offload.h"
#include "transport/udp_socket.h"

#define NT_DGRAM_MAX 65536
#define NT_ARENA ((size_t)NT_BATCH * NT_DGRAM_MAX) /* t->mmbuf: receive slots / send arena */

uint64_t nt_now_us(void)
{
    return sm_now_ns() / 1000;
}

int nt_udp_open(struct nt_transport *t, const char *const *addrs, int naddrs)
{
    if (sm_udp_open_all(addrs, naddrs, NT_MAX_ADDRS, t->tu.port, t->tu.udpbuf, t->udp, &t->nudp,
                        "sctpn") < 0)
        return -1;
    /* the smallest MTU of our interfaces, at most 32000 (loopback's 65536 is not worth it) */
    int mtu = t->tu.mtu ? t->tu.mtu : sm_udp_auto_mtu(t->udp, t->nudp, 32000);
    t->mtu = mtu;
    t->mm = calloc(NT_BATCH, sizeof *t->mm);
    t->mmiov = calloc(NT_BATCH, sizeof *t->mmiov);
    t->mmaddr = calloc(NT_BATCH, sizeof *t->mmaddr);
    t->mmbuf = malloc(NT_ARENA);
    t->mmctl = calloc(NT_BATCH, sizeof *t->mmctl);
    t->mmcount = calloc(NT_BATCH, sizeof *t->mmcount);
    t->mmseg = calloc(NT_BATCH, sizeof *t->mmseg);
    t->mmlen = calloc(NT_BATCH, sizeof *t->mmlen);
    t->txiov = calloc(NT_TXIOV, sizeof *t->txiov);
    if (!t->mm || !t->mmiov || !t->mmaddr || !t->mmbuf || !t->mmctl || !t->mmcount || !t->mmseg ||
        !t->mmlen || !t->txiov)
        return -1;
    for (int i = 0; i < t->nudp; i++) {
        struct sm_udp_sock *u = &t->udp[i];
        if (t->tu.gso != SM_OFFLOAD_OFF) {
            u->gso = sm_udp_gso_supported(u->fd);
            t->gso_unsupported |= !u->gso;
        }
        if (t->tu.gro != SM_OFFLOAD_OFF) {
            u->gro = sm_udp_gro_enable(u->fd) == 0;
            t->gro_unsupported |= !u->gro;
        }
    }
    if (t->tu.gso == SM_OFFLOAD_ON && t->gso_unsupported)
        SM_WARN("sctpn: SCTPMPI_SCTP_GSO=on, but the kernel has no UDP_SEGMENT: one datagram "
                "per packet");
    if (t->tu.gro == SM_OFFLOAD_ON && t->gro_unsupported)
        SM_WARN("sctpn: SCTPMPI_SCTP_GRO=on, but the kernel has no UDP_GRO: one datagram per "
                "read");
    return 0;
}

void nt_udp_close(struct nt_transport *t)
{
    for (int i = 0; i < t->nudp; i++)
        if (t->udp[i].fd >= 0)
            close(t->udp[i].fd);
    t->nudp = 0;
    free(t->mm);
    free(t->mmiov);
    free(t->mmaddr);
    free(t->mmbuf);
    free(t->mmctl);
    free(t->mmcount);
    free(t->mmseg);
    free(t->mmlen);
    free(t->txiov);
    t->mmlen = NULL;
    t->txiov = NULL;
    t->mmctl = NULL;
    t->mmcount = NULL;
    t->mmseg = NULL;
    t->mm = NULL;
    t->mmiov = NULL;
    t->mmaddr = NULL;
    t->mmbuf = NULL;
}

/* ---- loss exercise: drop a share of outgoing packets (tests only) ---- */
static int test_drop(struct nt_transport *t)
{
    if (t->tu_test_drop <= 0)
        return 0;
    t->drop_state = t->drop_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(t->drop_state >> 11) / 9007199254740992.0 * 100.0 < t->tu_test_drop;
}

/* ICMP port/host unreachable for a datagram we sent: that peer's process (or host) is gone */
static void on_unreachable(void *arg, const struct sockaddr_in *dst, const char *why)
{
    struct sctpn_addr a = { dst->sin_addr.s_addr, ntohs(dst->sin_port) };
    nt_peer_unreachable(arg, &a, why);
}

/* hand one received datagram to the engine: a coalesced (GRO) one packet by packet */
static void input_datagram(struct nt_transport *t, struct msghdr *mh, size_t len,
                           const struct sctpn_addr *from, const struct sctpn_addr *to,
                           uint64_t now)
{
    const uint8_t *p = ((struct iovec *)mh->msg_iov)->iov_base;
    if (mh->msg_flags & MSG_TRUNC) { /* cannot happen with 64 KiB buffers; never feed a part */
        t->rx_truncated++;
        return;
    }
    size_t seg = (size_t)sm_udp_gro_size(mh);
    if (seg == 0 || seg >= len)
        seg = len;
    else {
        t->gro_batches++;
        t->gro_packets += (len + seg - 1) / seg;
    }
    for (size_t off = 0; off < len; off += seg) {
        size_t n = len - off < seg ? len - off : seg;
        t->rx_datagrams++;
        if (sctpn_input(t->ep, p + off, n, from, to, now) < 0)
            t->rx_bad++;
    }
}

/* read every datagram waiting on every socket; returns how many */
static int input(struct nt_transport *t)
{
    int total = 0;
    for (int s = 0; s < t->nudp; s++) {
        struct sctpn_addr to = { t->udp[s].addr.sin_addr.s_addr, ntohs(t->udp[s].addr.sin_port) };
        for (;;) {
            for (int i = 0; i < NT_BATCH; i++) {
                t->mmiov[i].iov_base = t->mmbuf + (size_t)i * NT_DGRAM_MAX;
                t->mmiov[i].iov_len = NT_DGRAM_MAX;
                memset(&t->mm[i].msg_hdr, 0, sizeof t->mm[i].msg_hdr);
                t->mm[i].msg_hdr.msg_iov = &t->mmiov[i];
                t->mm[i].msg_hdr.msg_iovlen = 1;
                t->mm[i].msg_hdr.msg_name = &t->mmaddr[i];
                t->mm[i].msg_hdr.msg_namelen = sizeof t->mmaddr[i];
                if (t->udp[s].gro) {
                    t->mm[i].msg_hdr.msg_control = t->mmctl[i].buf;
                    t->mm[i].msg_hdr.msg_controllen = sizeof t->mmctl[i].buf;
                }
            }
            int n = recvmmsg(t->udp[s].fd, t->mm, NT_BATCH, MSG_DONTWAIT, NULL);
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                sm_udp_read_unreachable(t->udp[s].fd, on_unreachable, t); /* ECONNREFUSED & co */
            if (n <= 0)
                break;
            uint64_t now = nt_now_us();
            for (int i = 0; i < n; i++) {
                struct sctpn_addr from = { t->mmaddr[i].sin_addr.s_addr,
                                           ntohs(t->mmaddr[i].sin_port) };
                input_datagram(t, &t->mm[i].msg_hdr, t->mm[i].msg_len, &from, &to, now);
            }
            total += n;
            if (n < NT_BATCH)
                break;
        }
    }
    return total;
}

static int socket_of(struct nt_transport *t, const struct sctpn_addr *from)
{
    for (int s = 0; s < t->nudp; s++)
        if (t->udp[s].addr.sin_addr.s_addr == from->ipv4)
            return s;
    return 0;
}

/* a route or device refused a super-datagram: send its packets one by one, each gathered from
 * the part of the message's iovecs it covers */
static void send_split(struct nt_transport *t, int s, int m)
{
    const struct msghdr *mh = &t->mm[m].msg_hdr;
    const struct iovec *iov = mh->msg_iov;
    size_t niov = mh->msg_iovlen, len = t->mmlen[m], seg = t->mmseg[m];
    size_t k = 0, in = 0; /* iovec k, offset in it */
    for (size_t off = 0; off < len; off += seg) {
        size_t want = len - off < seg ? len - off : seg;
        struct iovec part[2 * NT_TX_REFS + 2];
        size_t np = 0;
        while (want && k < niov && np < sizeof part / sizeof part[0]) {
            size_t n = iov[k].iov_len - in;
            if (n > want)
                n = want;
            part[np].iov_base = (uint8_t *)iov[k].iov_base + in;
            part[np++].iov_len = n;
            want -= n;
            in += n;
            if (in == iov[k].iov_len) {
                k++;
                in = 0;
            }
        }
        struct msghdr one = { .msg_name = mh->msg_name,
                              .msg_namelen = mh->msg_namelen,
                              .msg_iov = part,
                              .msg_iovlen = np };
        ssize_t r;
        do
            r = want ? -1 : sendmsg(t->udp[s].fd, &one, MSG_DONTWAIT);
        while (r < 0 && errno == EINTR);
        if (r < 0)
            t->tx_lost++;
        else
            t->tx_datagrams++;
    }
}

static void gso_refused(struct nt_transport *t, int s, int err)
{
    if (!t->udp[s].gso)
        return;
    t->udp[s].gso = 0; /* remembered for this socket */
    char ip[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &t->udp[s].addr.sin_addr, ip, sizeof ip);
    if (t->tu.gso == SM_OFFLOAD_ON)
        SM_WARN("sctpn: UDP GSO refused on %s (%s): one datagram per packet from now on", ip,
                strerror(err));
    else
        SM_INFO("sctpn: UDP GSO refused on %s (%s): one datagram per packet from now on", ip,
                strerror(err));
}

/* send messages 0..n-1 of the batch on socket s (a message with mmcount > 1 is a GSO
 * super-datagram of mmcount packets of mmseg bytes, the last one maybe shorter) */
static void send_batch(struct nt_transport *t, int s, int n)
{
    for (int i = 0; i < n; i++) {
        struct msghdr *mh = &t->mm[i].msg_hdr;
        if (t->mmcount[i] > 1)
            sm_udp_set_segment(mh, t->mmctl[i].buf, t->mmseg[i]);
        else {
            mh->msg_control = NULL;
            mh->msg_controllen = 0;
        }
    }
    int off = 0;
    while (off < n) {
        int k = sendmmsg(t->udp[s].fd, t->mm + off, (unsigned)(n - off), MSG_DONTWAIT);
        if (k < 0) {
            int err = errno;
            if (err == EINTR)
                continue;
            if (t->mmcount[off] > 1 && sm_udp_gso_refused(err)) {
                t->gso_refused++;
                gso_refused(t, s, err);
                send_split(t, s, off);
            } else {
                /* full socket buffer or unreachable: the packets are lost, SCTP retransmits */
                t->tx_lost += (uint64_t)t->mmcount[off];
            }
            off++;
            continue;
        }
        for (int i = off; i < off + k; i++) {
            t->tx_datagrams += (uint64_t)t->mmcount[i];
            if (t->mmcount[i] > 1) {
                t->gso_sent++;
                t->gso_packets += (uint64_t)t->mmcount[i];
            }
        }
        off += k;
    }
}

/* can a packet of len bytes in niov iovecs join message m (the last of the batch) as one more
 * segment?  Segments are all of one size but the last, which may be shorter */
static int gso_joins(struct nt_transport *t, int m, size_t len, int niov,
                     const struct sctpn_addr *to)
{
    size_t have = t->mmlen[m], seg = t->mmcount[m] > 1 ? t->mmseg[m] : have;
    return t->mmcount[m] < SM_GSO_MAX_SEGMENTS && have == (size_t)t->mmcount[m] * seg &&
           len <= seg && have + len <= SM_UDP_MAX_PAYLOAD &&
           t->mm[m].msg_hdr.msg_iovlen + (size_t)niov <= NT_MSG_IOV_MAX &&
           t->mmaddr[m].sin_addr.s_addr == to->ipv4 &&
           t->mmaddr[m].sin_port == htons(to->udp_port);
}

/* append the packet buf[0..len) with its payload references to the batch's iovecs; adjacent
 * pieces of buf merge with the iovec before them.  Returns how many iovecs it added */
static int put_iovs(struct nt_transport *t, uint8_t *buf, size_t len,
                    const struct sctpn_txref *refs, int nrefs, int joins)
{
    int before = t->ntxiov;
    size_t at = 0;
    for (int r = 0; r <= nrefs; r++) {
        size_t end = r < nrefs ? refs[r].off : len;
        const uint8_t *piece[2] = { buf + at, r < nrefs ? refs[r].data : NULL };
        size_t plen[2] = { end - at, r < nrefs ? refs[r].len : 0 };
        for (int k = 0; k < 2; k++) {
            if (!plen[k])
                continue;
            struct iovec *prev = t->ntxiov > before || joins ? &t->txiov[t->ntxiov - 1] : NULL;
            if (prev && (const uint8_t *)prev->iov_base + prev->iov_len == piece[k]) {
                prev->iov_len += plen[k];
                continue;
            }
            t->txiov[t->ntxiov].iov_base = (void *)piece[k];
            t->txiov[t->ntxiov++].iov_len = plen[k];
        }
        if (r < nrefs)
            at = refs[r].off + refs[r].len;
    }
    return t->ntxiov - before;
}

/* send everything the engine has to send now.  The packets' headers (and small payloads) are
 * written one after the other into t->mmbuf, larger DATA payloads stay in the engine's queued
 * messages (sctpn_poll_transmit_refs): each packet is a run of iovecs in t->txiov.  With GSO
 * on the socket, a packet that can join the previous message (gso_joins) extends it instead of
 * starting a new one */
int nt_flush_output(struct nt_transport *t)
{
    int sent = 0, n = 0, cur = -1;
    size_t used = 0, cap = (size_t)(t->mtu > 65000 ? 65000 : t->mtu); /* the engine's MTU */
    uint64_t now = nt_now_us();
    struct sctpn_txref refs[NT_TX_REFS];
    t->ntxiov = 0;
    for (;;) {
        if (n == NT_BATCH || used + cap > NT_ARENA || t->ntxiov + 2 * NT_TX_REFS + 2 > NT_TXIOV) {
            send_batch(t, cur, n);
            n = 0;
            used = 0;
            t->ntxiov = 0;
        }
        struct sctpn_addr from, to;
        uint8_t *buf = t->mmbuf + used;
        int nrefs = 0;
        int len = sctpn_poll_transmit_refs(t->ep, now, buf, cap, &from, &to, refs, t->tu.tx_refs,
                                           &nrefs);
        if (len <= 0)
            break;
        if (test_drop(t)) {
            t->tx_dropped_test++;
            continue;
        }
        int s = socket_of(t, &from);
        if (cur >= 0 && s != cur && n) {
            send_batch(t, cur, n);
            n = 0;
            t->ntxiov = 0;
            /* re-place this packet at the start (the references point elsewhere) */
            memmove(t->mmbuf, buf, (size_t)len);
            buf = t->mmbuf;
            used = 0;
        }
        cur = s;
        used += (size_t)len;
        sent++;
        int niov = 1 + 2 * nrefs; /* at most */
        if (n && t->udp[s].gso && gso_joins(t, n - 1, (size_t)len, niov, &to)) {
            if (t->mmcount[n - 1] == 1)
                t->mmseg[n - 1] = (uint16_t)t->mmlen[n - 1];
            t->mm[n - 1].msg_hdr.msg_iovlen +=
                (size_t)put_iovs(t, buf, (size_t)len, refs, nrefs, 1);
            t->mmlen[n - 1] += (size_t)len;
            t->mmcount[n - 1]++;
            continue;
        }
        memset(&t->mm[n].msg_hdr, 0, sizeof t->mm[n].msg_hdr);
        t->mm[n].msg_hdr.msg_iov = &t->txiov[t->ntxiov];
        t->mm[n].msg_hdr.msg_iovlen = (size_t)put_iovs(t, buf, (size_t)len, refs, nrefs, 0);
        t->mmlen[n] = (size_t)len;
        t->mmcount[n] = 1;
        t->mmseg[n] = (uint16_t)len;
        t->mmaddr[n].sin_family = AF_INET;
        t->mmaddr[n].sin_addr.s_addr = to.ipv4;
        t->mmaddr[n].sin_port = htons(to.udp_port);
        t->mm[n].msg_hdr.msg_name = &t->mmaddr[n];
        t->mm[n].msg_hdr.msg_namelen = sizeof t->mmaddr[n];
        n++;
    }
    if (n)
        send_batch(t, cur, n);
    t->ntxiov = 0;
    return sent;
}

static const char *offload_state(enum sm_offload_mode mode, int unsupported, int on, int n)
{
    if (mode == SM_OFFLOAD_OFF)
        return "off";
    if (unsupported)
        return "unsupported";
    return on == n ? "on" : on ? "partly refused" : "refused";
}

void nt_io_stats(struct nt_transport *t, FILE *f)
{
    int gso = 0, gro = 0;
    for (int s = 0; s < t->nudp; s++) {
        gso += t->udp[s].gso;
        gro += t->udp[s].gro;
    }
    fprintf(f,
            "[rank %d] sctpn: gso %s, super-datagrams out %llu (packets %llu, refused %llu); "
            "gro %s, batches in %llu (packets %llu); truncated in %llu\n",
            t->rank, offload_state(t->tu.gso, t->gso_unsupported, gso, t->nudp),
            (unsigned long long)t->gso_sent, (unsigned long long)t->gso_packets,
            (unsigned long long)t->gso_refused,
            offload_state(t->tu.gro, t->gro_unsupported, gro, t->nudp),
            (unsigned long long)t->gro_batches, (unsigned long long)t->gro_packets,
            (unsigned long long)t->rx_truncated);
}

static void run_timers(struct nt_transport *t)
{
    uint64_t now = nt_now_us();
    if (sctpn_next_deadline(t->ep) <= now)
        sctpn_handle_timeout(t->ep, now);
}

static int drive(struct nt_transport *t, long timeout_us);

int nt_drive(struct nt_transport *t, long timeout_us)
{
    t->in_drive++;
    int n = drive(t, timeout_us);
    t->in_drive--;
    return n;
}

static int drive(struct nt_transport *t, long timeout_us)
{
    int n = input(t);
    run_timers(t);
    nt_retry_queued(t);
    nt_flush_output(t);
    if (n || timeout_us == 0)
        return n;
    /* nothing arrived: wait for a datagram, the next timer or the caller's timeout */
    uint64_t now = nt_now_us(), dl = sctpn_next_deadline(t->ep);
    long wait_us = timeout_us;
    if (dl != UINT64_MAX) {
        long until = dl > now ? (long)(dl - now) : 0;
        if (wait_us < 0 || until < wait_us)
            wait_us = until;
    }
    struct pollfd pfd[NT_MAX_ADDRS];
    for (int s = 0; s < t->nudp; s++) {
        pfd[s].fd = t->udp[s].fd;
        pfd[s].events = POLLIN;
        pfd[s].revents = 0;
    }
    /* microsecond resolution: the deadline may be a paced path's next send time (cc.c) */
    struct timespec ts = { (time_t)(wait_us / 1000000), (long)(wait_us % 1000000) * 1000 };
    if (ppoll(pfd, (nfds_t)t->nudp, wait_us < 0 ? NULL : &ts, NULL) > 0)
        n = input(t);
    run_timers(t);
    nt_retry_queued(t);
    nt_flush_output(t);
    return n;
}
