/* udp_offload.c — UDP GSO (UDP_SEGMENT) and GRO (UDP_GRO) helpers for our UDP sockets: the
 * auto|on|off tunables, probing/enabling the options and the cmsgs that carry segment sizes. */
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <string.h>
#include <strings.h>

#include "transport/udp_offload.h"
#include "util/util.h"

#ifndef SOL_UDP
#define SOL_UDP 17
#endif

_Static_assert(CMSG_SPACE(sizeof(uint16_t)) <= SM_UDP_OFFLOAD_CMSG_SPACE &&
                   CMSG_SPACE(sizeof(int)) <= SM_UDP_OFFLOAD_CMSG_SPACE,
               "SM_UDP_OFFLOAD_CMSG_SPACE too small");

enum sm_offload_mode sm_offload_mode_env(const char *var)
{
    const char *v = sm_env_str(var, NULL);
    if (!v || !*v || !strcasecmp(v, "auto"))
        return SM_OFFLOAD_AUTO;
    if (!strcasecmp(v, "on") || !strcmp(v, "1") || !strcasecmp(v, "yes") ||
        !strcasecmp(v, "true"))
        return SM_OFFLOAD_ON;
    if (!strcasecmp(v, "off") || !strcmp(v, "0") || !strcasecmp(v, "no") ||
        !strcasecmp(v, "false"))
        return SM_OFFLOAD_OFF;
    SM_WARN("ignoring %s=%s (expected auto, on or off): using auto", var, v);
    return SM_OFFLOAD_AUTO;
}

int sm_udp_gso_supported(int fd)
{
    int v = 0;
    socklen_t l = sizeof v;
    return getsockopt(fd, SOL_UDP, UDP_SEGMENT, &v, &l) == 0;
}

int sm_udp_gro_enable(int fd)
{
    int on = 1;
    return setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof on);
}

void sm_udp_set_segment(struct msghdr *mh, void *ctl, uint16_t seg)
{
    memset(ctl, 0, SM_UDP_OFFLOAD_CMSG_SPACE);
    mh->msg_control = ctl;
    mh->msg_controllen = CMSG_SPACE(sizeof seg);
    struct cmsghdr *c = CMSG_FIRSTHDR(mh);
    c->cmsg_level = SOL_UDP;
    c->cmsg_type = UDP_SEGMENT;
    c->cmsg_len = CMSG_LEN(sizeof seg);
    memcpy(CMSG_DATA(c), &seg, sizeof seg);
}

int sm_udp_gro_size(struct msghdr *mh)
{
    if (!mh->msg_control)
        return 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c))
        if (c->cmsg_level == SOL_UDP && c->cmsg_type == UDP_GRO) {
            int seg = 0;
            memcpy(&seg, CMSG_DATA(c),
                   sizeof seg < c->cmsg_len - CMSG_LEN(0) ? sizeof seg
                                                          : c->cmsg_len - CMSG_LEN(0));
            return seg > 0 ? seg : 0;
        }
    return 0;
}

int sm_udp_gso_refused(int err)
{
    return err == EIO || err == EINVAL || err == EMSGSIZE;
}
