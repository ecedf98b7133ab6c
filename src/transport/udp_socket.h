/* udp_socket.h — the UDP side both SCTP backends share (udp_socket.c): opening a bound,
 * non-blocking UDP socket for the RFC 6951 encapsulation, and the MTU of a local address. */
#ifndef SCTPMPI_UDP_SOCKET_H
#define SCTPMPI_UDP_SOCKET_H

#include <netinet/in.h>
#include <stddef.h>

/* one UDP socket of an SCTP endpoint (fd -1: not ours, e.g. usrsctp's own in its multihomed mode) */
struct sm_udp_sock {
    int fd;
    struct sockaddr_in addr;
    int gso; /* UDP_SEGMENT in use on this socket (cleared when a route refuses it) */
    int gro; /* UDP_GRO on: reads may return coalesced datagrams */
};

/* one socket per address, all on one port (the business card lists one): port 0 = any free
 * port, N = the first free of N, N+1, ... (256 tries) for the first address, then the same
 * port for the others.  what names the caller in error messages.  Returns how many sockets were
 * opened (n, at most max), or -1 after an error message (the sockets opened so far stay in out
 * for the caller to close). */
int sm_udp_open_all(const char *const *addrs, int n, int max, int port, size_t bufsize,
                    struct sm_udp_sock *out, int *nopen, const char *what);

/* the smallest MTU (minus IPv4 + UDP headers) of the sockets' interfaces, 1472 for an interface
 * whose MTU is unknown, at most cap */
int sm_udp_auto_mtu(const struct sm_udp_sock *s, int n, int cap);

/* a non-blocking UDP socket bound to ip:port (port 0: any), with send and receive buffers of
 * bufsize (SO_*BUFFORCE when allowed) and ICMP errors on its error queue (IP_RECVERR); *bound
 * gets the address actually bound.  Returns the descriptor, or -1 with errno set (EINVAL for an
 * address that is not IPv4 dotted-quad). */
int sm_udp_open(const char *ip, int port, size_t bufsize, struct sockaddr_in *bound);

/* drain the socket's error queue; for every ICMP destination-unreachable about a datagram we
 * sent, call cb(arg, destination, why) (why: "its UDP port is unreachable (process gone)" or
 * "its host is unreachable (ICMP)") */
void sm_udp_read_unreachable(
    int fd, void (*cb)(void *arg, const struct sockaddr_in *dst, const char *why), void *arg);

/* MTU of the interface holding addr minus the IPv4 and UDP headers (28); 0 when unknown */
int sm_interface_mtu(const struct sockaddr_in *addr);

#endif
