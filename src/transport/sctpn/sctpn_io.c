/* sctpn_io.c — the I/O side of the native SCTP transport: our UDP socket(s) (one per local
 * address, one port), and the drive loop that feeds received datagrams to the sans-IO engine
 * (recvmmsg), runs its timers and sends its packets (sendmmsg), blocking in poll() only when
 * asked to and nothing is ready.  Also the SCTPMPI_SCTP_TEST_DROP loss exercise. */
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
#include <unistd.h>

#include "transport/sctpn/sctpn_tp.h"
#include "transport/udp_socket.h"

#define NT_DGRAM_MAX 65536

uint64_t nt_now_us(void)
{
    return sm_now_ns() / 1000;
}

int nt_udp_open(struct sm_transport *t, const char *const *addrs, int naddrs)
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
    t->mmbuf = malloc((size_t)NT_BATCH * NT_DGRAM_MAX);
    if (!t->mm || !t->mmiov || !t->mmaddr || !t->mmbuf)
        return -1;
    return 0;
}

void nt_udp_close(struct sm_transport *t)
{
    for (int i = 0; i < t->nudp; i++)
        if (t->udp[i].fd >= 0)
            close(t->udp[i].fd);
    t->nudp = 0;
    free(t->mm);
    free(t->mmiov);
    free(t->mmaddr);
    free(t->mmbuf);
    t->mm = NULL;
    t->mmiov = NULL;
    t->mmaddr = NULL;
    t->mmbuf = NULL;
}

/* ---- loss exercise: drop a share of outgoing packets (tests only) ---- */
static int test_drop(struct sm_transport *t)
{
    if (t->tu_test_drop <= 0)
        return 0;
    t->drop_state = t->drop_state * 6364136223846793005ull + 1442695040888963407ull;
    return (double)(t->drop_state >> 11) / 9007199254740992.0 * 100.0 < t->tu_test_drop;
}

/* ICMP port/host unreachable for a datagram we sent: that peer's process (or host) is gone */
static void on_unreachable(void *arg, const struct sockaddr_in *dst, const char *why)
{
    struct sctpn_addr a = {dst->sin_addr.s_addr, ntohs(dst->sin_port)};
    nt_peer_unreachable(arg, &a, why);
}

/* read every datagram waiting on every socket; returns how many */
static int input(struct sm_transport *t)
{
    int total = 0;
    for (int s = 0; s < t->nudp; s++) {
        struct sctpn_addr to = {t->udp[s].addr.sin_addr.s_addr, ntohs(t->udp[s].addr.sin_port)};
        for (;;) {
            for (int i = 0; i < NT_BATCH; i++) {
                t->mmiov[i].iov_base = t->mmbuf + (size_t)i * NT_DGRAM_MAX;
                t->mmiov[i].iov_len = NT_DGRAM_MAX;
                memset(&t->mm[i].msg_hdr, 0, sizeof t->mm[i].msg_hdr);
                t->mm[i].msg_hdr.msg_iov = &t->mmiov[i];
                t->mm[i].msg_hdr.msg_iovlen = 1;
                t->mm[i].msg_hdr.msg_name = &t->mmaddr[i];
                t->mm[i].msg_hdr.msg_namelen = sizeof t->mmaddr[i];
            }
            int n = recvmmsg(t->udp[s].fd, t->mm, NT_BATCH, MSG_DONTWAIT, NULL);
            if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                sm_udp_read_unreachable(t->udp[s].fd, on_unreachable, t); /* ECONNREFUSED & co */
            if (n <= 0)
                break;
            uint64_t now = nt_now_us();
            for (int i = 0; i < n; i++) {
                struct sctpn_addr from = {t->mmaddr[i].sin_addr.s_addr,
                                          ntohs(t->mmaddr[i].sin_port)};
                t->rx_datagrams++;
                if (sctpn_input(t->ep, t->mmiov[i].iov_base, t->mm[i].msg_len, &from, &to, now) < 0)
                    t->rx_bad++;
            }
            total += n;
            if (n < NT_BATCH)
                break;
        }
    }
    return total;
}

static int socket_of(struct sm_transport *t, const struct sctpn_addr *from)
{
    for (int s = 0; s < t->nudp; s++)
        if (t->udp[s].addr.sin_addr.s_addr == from->ipv4)
            return s;
    return 0;
}

static void send_batch(struct sm_transport *t, int s, int n)
{
    int off = 0;
    while (off < n) {
        int k = sendmmsg(t->udp[s].fd, t->mm + off, (unsigned)(n - off), MSG_DONTWAIT);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            /* full socket buffer or unreachable: the packets are lost, SCTP retransmits */
            t->tx_lost += (uint64_t)(n - off);
            off++;
            continue;
        }
        t->tx_datagrams += (uint64_t)k;
        off += k;
    }
}

/* send everything the engine has to send now */
int nt_flush_output(struct sm_transport *t)
{
    int sent = 0, n = 0, cur = -1;
    uint64_t now = nt_now_us();
    for (;;) {
        struct sctpn_addr from, to;
        uint8_t *buf = t->mmbuf + (size_t)n * NT_DGRAM_MAX;
        int len = sctpn_poll_transmit(t->ep, now, buf, NT_DGRAM_MAX, &from, &to);
        if (len <= 0)
            break;
        if (test_drop(t)) {
            t->tx_dropped_test++;
            continue;
        }
        int s = socket_of(t, &from);
        if (cur >= 0 && s != cur) {
            send_batch(t, cur, n);
            n = 0;
            /* re-place this packet in slot 0 */
            memmove(t->mmbuf, buf, (size_t)len);
            buf = t->mmbuf;
        }
        cur = s;
        t->mmiov[n].iov_base = buf;
        t->mmiov[n].iov_len = (size_t)len;
        memset(&t->mm[n].msg_hdr, 0, sizeof t->mm[n].msg_hdr);
        t->mmaddr[n].sin_family = AF_INET;
        t->mmaddr[n].sin_addr.s_addr = to.ipv4;
        t->mmaddr[n].sin_port = htons(to.udp_port);
        t->mm[n].msg_hdr.msg_name = &t->mmaddr[n];
        t->mm[n].msg_hdr.msg_namelen = sizeof t->mmaddr[n];
        t->mm[n].msg_hdr.msg_iov = &t->mmiov[n];
        t->mm[n].msg_hdr.msg_iovlen = 1;
        n++;
        sent++;
        if (n == NT_BATCH) {
            send_batch(t, cur, n);
            n = 0;
        }
    }
    if (n)
        send_batch(t, cur, n);
    return sent;
}

static void run_timers(struct sm_transport *t)
{
    uint64_t now = nt_now_us();
    if (sctpn_next_deadline(t->ep) <= now)
        sctpn_handle_timeout(t->ep, now);
}

int nt_drive(struct sm_transport *t, long timeout_us)
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
    int ms = wait_us < 0 ? -1 : (int)((wait_us + 999) / 1000);
    if (poll(pfd, (nfds_t)t->nudp, ms) > 0)
        n = input(t);
    run_timers(t);
    nt_retry_queued(t);
    nt_flush_output(t);
    return n;
}
