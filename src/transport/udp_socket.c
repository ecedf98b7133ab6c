/* udp_socket.c — the UDP side both SCTP backends share: a bound, non-blocking UDP socket for
 * the RFC 6951 encapsulation (our own buffers: usrsctp's internal socket is stuck at 128 KB and
 * overflows; ICMP errors queued so a vanished peer process is noticed) and interface MTUs. */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <linux/errqueue.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/udp_socket.h"
#include "util/util.h"

static void set_buffer(int fd, int opt, int force_opt, size_t bytes)
{
    int v = bytes > 0x7fffffff ? 0x7fffffff : (int)bytes;
    if (setsockopt(fd, SOL_SOCKET, force_opt, &v, sizeof v) != 0)
        setsockopt(fd, SOL_SOCKET, opt, &v, sizeof v);
}

int sm_udp_open(const char *ip, int port, size_t bufsize, struct sockaddr_in *bound)
{
    memset(bound, 0, sizeof *bound);
    bound->sin_family = AF_INET;
    if (inet_pton(AF_INET, ip, &bound->sin_addr) != 1) {
        errno = EINVAL;
        return -1;
    }
    bound->sin_port = htons((uint16_t)port);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    set_buffer(fd, SO_RCVBUF, SO_RCVBUFFORCE, bufsize);
    set_buffer(fd, SO_SNDBUF, SO_SNDBUFFORCE, bufsize);
    int on = 1;
    setsockopt(fd, IPPROTO_IP, IP_RECVERR, &on, sizeof on);
    if (bind(fd, (struct sockaddr *)bound, sizeof *bound) < 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    socklen_t sl = sizeof *bound;
    getsockname(fd, (struct sockaddr *)bound, &sl);
    return fd;
}

void sm_udp_read_unreachable(
    int fd, void (*cb)(void *arg, const struct sockaddr_in *dst, const char *why), void *arg)
{
    for (int k = 0; k < 64; k++) {
        struct sockaddr_in dst;
        char ctl[512];
        unsigned char b[64];
        struct iovec iov = { b, sizeof b };
        struct msghdr mh = { .msg_name = &dst,
                             .msg_namelen = sizeof dst,
                             .msg_iov = &iov,
                             .msg_iovlen = 1,
                             .msg_control = ctl,
                             .msg_controllen = sizeof ctl };
        if (recvmsg(fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
            return;
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level != IPPROTO_IP || c->cmsg_type != IP_RECVERR)
                continue;
            struct sock_extended_err ee;
            memcpy(&ee, CMSG_DATA(c), sizeof ee);
            if (ee.ee_origin != SO_EE_ORIGIN_ICMP || ee.ee_type != 3 /* unreachable */)
                continue;
            cb(arg, &dst,
               ee.ee_code == 3 ? "its UDP port is unreachable (process gone)"
                               : "its host is unreachable (ICMP)");
        }
    }
}

int sm_interface_mtu(const struct sockaddr_in *addr)
{
    struct ifaddrs *ifs;
    int mtu = 0;
    if (getifaddrs(&ifs) < 0)
        return 0;
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr != addr->sin_addr.s_addr)
            continue;
        int fd = socket(AF_INET, SOCK_DGRAM, 0);
        struct ifreq ifr;
        memset(&ifr, 0, sizeof ifr);
        snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", i->ifa_name);
        if (fd >= 0 && ioctl(fd, SIOCGIFMTU, &ifr) == 0)
            mtu = ifr.ifr_mtu - 28;
        if (fd >= 0)
            close(fd);
        break;
    }
    freeifaddrs(ifs);
    return mtu;
}

static int open_one(const char *ip, int port, size_t bufsize, struct sm_udp_sock *u,
                    const char *what)
{
    u->fd = sm_udp_open(ip, port, bufsize, &u->addr);
    u->gso = u->gro = 0;
    if (u->fd < 0 && errno == EINVAL)
        SM_ERR("%s: bad local address '%s' (IPv4 only)", what, ip);
    return u->fd < 0 ? -1 : 0;
}

int sm_udp_open_all(const char *const *addrs, int n, int max, int port, size_t bufsize,
                    struct sm_udp_sock *out, int *nopen, const char *what)
{
    *nopen = 0;
    if (n > max)
        n = max;
    int tries = port ? 256 : 1, bound = 0;
    for (int i = 0; i < tries && !bound; i++) {
        if (open_one(addrs[0], port ? port + i : 0, bufsize, &out[0], what) == 0)
            bound = 1;
        else if (errno != EADDRINUSE && errno != EACCES)
            break;
    }
    if (!bound) {
        SM_ERR("%s: cannot bind a UDP socket on %s (port %d): %s", what, addrs[0], port,
               strerror(errno));
        return -1;
    }
    *nopen = 1;
    int uport = ntohs(out[0].addr.sin_port);
    for (int i = 1; i < n; i++) {
        if (open_one(addrs[i], uport, bufsize, &out[i], what) < 0) {
            SM_ERR("%s: cannot bind UDP %s:%d: %s", what, addrs[i], uport, strerror(errno));
            return -1;
        }
        *nopen = i + 1;
    }
    return n;
}

int sm_udp_auto_mtu(const struct sm_udp_sock *s, int n, int cap)
{
    int mtu = cap;
    for (int i = 0; i < n; i++) {
        int m = sm_interface_mtu(&s[i].addr);
        if (m <= 0)
            m = 1472;
        if (m < mtu)
            mtu = m;
    }
    return mtu;
}
