/* udp_offload.h — UDP segmentation offload on send (GSO, UDP_SEGMENT) and receive coalescing
 * (GRO, UDP_GRO) for our UDP sockets (udp_offload.c): the auto|on|off tunables, probing and
 * enabling the socket options, writing the per-message UDP_SEGMENT cmsg and reading the
 * gso_size cmsg of a coalesced receive. */
#ifndef SCTPMPI_UDP_OFFLOAD_H
#define SCTPMPI_UDP_OFFLOAD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* largest UDP payload of one (super-)datagram over IPv4: 65535 - 20 (IP) - 8 (UDP) */
#define SM_UDP_MAX_PAYLOAD 65507
/* segments per GSO super-datagram (the kernel's UDP_MAX_SEGMENTS is 64 before Linux 6.9) */
#define SM_GSO_MAX_SEGMENTS 64
/* control-buffer room for one UDP_SEGMENT or UDP_GRO cmsg */
#define SM_UDP_OFFLOAD_CMSG_SPACE 32

enum sm_offload_mode { SM_OFFLOAD_OFF = 0, SM_OFFLOAD_AUTO, SM_OFFLOAD_ON };

/* the variable's value (auto, on/1/yes/true, off/0/no/false; unset: auto); anything else is
 * reported with a warning and taken as auto */
enum sm_offload_mode sm_offload_mode_env(const char *var);

/* 1 when the kernel knows UDP_SEGMENT (Linux 4.18+) on this socket */
int sm_udp_gso_supported(int fd);

/* turn UDP_GRO on (Linux 5.0+): the kernel may then hand over several datagrams of one flow
 * as one buffer, with their size in a UDP_GRO cmsg.  0, or -1 with errno */
int sm_udp_gro_enable(int fd);

/* make mh carry a UDP_SEGMENT cmsg of segment size seg in ctl (SM_UDP_OFFLOAD_CMSG_SPACE
 * bytes, aligned for struct cmsghdr) */
void sm_udp_set_segment(struct msghdr *mh, void *ctl, uint16_t seg);

/* the segment size of a coalesced (GRO) datagram received with mh, 0 when it is a plain one */
int sm_udp_gro_size(struct msghdr *mh);

/* errno values with which the kernel refuses a GSO send on this route or device (EIO: no
 * checksum offload or xfrm; EINVAL: segment too big for the route or no UDP checksum;
 * EMSGSIZE: newer kernels' segment-too-big): fall back to one datagram per packet */
int sm_udp_gso_refused(int err);

#endif
