/* ksctp_socket.c — the kernel SCTP socket of a rank: tunables, creating and binding the
 * one-to-many socket (every local address), the socket options (streams, events, NODELAY,
 * buffers, the failover presets as endpoint defaults for every association), association
 * set-up (connectx to every address of the peer) and abort. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "transport/ksctp/ksctp_internal.h"
#include "util/util.h"

void ks_logf(int debug, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (debug) /* SCTPMPI_SCTP_DEBUG, whatever the log level */
        fprintf(stderr, "sctpmpi: ksctp: %s\n", buf);
    else
        SM_ERR("ksctp: %s", buf);
}

void ks_tunables_load(struct ks_tunables *tu)
{
    memset(tu, 0, sizeof *tu);
    tu->streams = (int)sm_env_range("SCTPMPI_SCTP_STREAMS", 10, 1, KS_MAX_STREAMS - 4);
    tu->rma_streams = (int)sm_env_range("SCTPMPI_SCTP_RMA_STREAMS", 2, 1, 16);
    tu->sockbuf = (size_t)sm_env_range("SCTPMPI_SOCKBUF", 2 << 20, 64 << 10, 256 << 20);
    tu->max_payload = (size_t)sm_env_range("SCTPMPI_SCTP_MAX_PAYLOAD", 0, 0, 16 << 20);
    tu->nodelay = sm_env_bool("SCTPMPI_SCTP_NODELAY", 1);
    tu->port = (int)sm_env_range("SCTPMPI_SCTP_PORT", 0, 0, 65535);
    tu->linger_ms = (int)sm_env_range("SCTPMPI_SCTP_LINGER_MS", 2000, 0, 600000);
    tu->udp_port = (int)sm_env_range("SCTPMPI_KSCTP_UDP_PORT", 0, 0, 65535);
    tu->debug = sm_env_bool("SCTPMPI_SCTP_DEBUG", 0);
    /* the same presets as the other SCTP backends (docs/transport-sctp.md, "Failover"):
     * wan = RFC 4960's values, lan = fast failure detection on a LAN; none = the kernel's
     * defaults (net.sctp.* sysctls) */
    static const char *const presets[] = { "none", "wan", "lan" };
    tu->failover = sm_env_choice("SCTPMPI_SCTP_FAILOVER", presets, 3, 0);
    int rto_i = -1, rto_lo = -1, rto_hi = -1, hb = -1, pmr = -1, amr = -1;
    if (tu->failover == 1)
        rto_i = 3000, rto_lo = 1000, rto_hi = 60000, hb = 30000, pmr = 5, amr = 10;
    else if (tu->failover == 2)
        rto_i = 100, rto_lo = 20, rto_hi = 100, hb = 50, pmr = 2, amr = 8;
    tu->rto_initial = (int)sm_env_range("SCTPMPI_SCTP_RTO_INITIAL", rto_i, 1, 600000);
    tu->rto_min = (int)sm_env_range("SCTPMPI_SCTP_RTO_MIN", rto_lo, 1, 600000);
    tu->rto_max = (int)sm_env_range("SCTPMPI_SCTP_RTO_MAX", rto_hi, 1, 600000);
    tu->hb_interval_ms = (int)sm_env_range("SCTPMPI_SCTP_HB_INTERVAL", hb, 0, 3600000);
    tu->path_max_retrans = (int)sm_env_range("SCTPMPI_SCTP_PATH_MAX_RETRANS", pmr, 1, 1000);
    tu->assoc_max_retrans = (int)sm_env_range("SCTPMPI_SCTP_ASSOC_MAX_RETRANS", amr, 1, 1000);
    tu->sack_delay_ms = (int)sm_env_range("SCTPMPI_SCTP_SACK_DELAY", -1, 1, 500);
    const char *cmt = sm_env_str("SCTPMPI_SCTP_CMT", NULL);
    if (cmt && strcmp(cmt, "off") && strcmp(cmt, "0"))
        ks_log("SCTPMPI_SCTP_CMT=%s ignored: Linux SCTP has no concurrent multipath transfer "
               "(a second address is a standby path); SCTPMPI_SCTP_BACKEND=native with "
               "SCTPMPI_SCTP_STRIPE=1 stripes over several paths",
               cmt);
}

int ks_kernel_has_sctp(void)
{
    int fd = socket(AF_INET, SOCK_SEQPACKET | SOCK_CLOEXEC, IPPROTO_SCTP);
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}

static int setopt(struct ks_transport *t, int level, int name, const void *v, socklen_t len,
                  const char *what)
{
    if (setsockopt(t->fd, level, name, v, len) == 0)
        return 0;
    ks_log("rank %d: setsockopt %s: %s", t->rank, what, strerror(errno));
    return -1;
}

/* endpoint defaults every association inherits: RTO, retransmission limits, heartbeats */
static int apply_presets(struct ks_transport *t)
{
    struct ks_tunables *tu = &t->tu;
    if (tu->rto_initial > 0 || tu->rto_min > 0 || tu->rto_max > 0) {
        struct sctp_rtoinfo ri;
        socklen_t len = sizeof ri;
        memset(&ri, 0, sizeof ri);
        if (getsockopt(t->fd, IPPROTO_SCTP, SCTP_RTOINFO, &ri, &len) < 0)
            return -1;
        if (tu->rto_initial > 0)
            ri.srto_initial = (uint32_t)tu->rto_initial;
        if (tu->rto_min > 0)
            ri.srto_min = (uint32_t)tu->rto_min;
        if (tu->rto_max > 0)
            ri.srto_max = (uint32_t)tu->rto_max;
        if (ri.srto_min > ri.srto_max)
            ri.srto_min = ri.srto_max;
        if (ri.srto_initial < ri.srto_min)
            ri.srto_initial = ri.srto_min;
        if (ri.srto_initial > ri.srto_max)
            ri.srto_initial = ri.srto_max;
        ri.srto_assoc_id = SCTP_FUTURE_ASSOC;
        if (setopt(t, IPPROTO_SCTP, SCTP_RTOINFO, &ri, sizeof ri, "SCTP_RTOINFO") < 0)
            return -1;
    }
    if (tu->assoc_max_retrans > 0) {
        struct sctp_assocparams ap;
        memset(&ap, 0, sizeof ap);
        ap.sasoc_assoc_id = SCTP_FUTURE_ASSOC;
        ap.sasoc_asocmaxrxt = (uint16_t)tu->assoc_max_retrans;
        if (setopt(t, IPPROTO_SCTP, SCTP_ASSOCINFO, &ap, sizeof ap, "SCTP_ASSOCINFO") < 0)
            return -1;
    }
    if (tu->hb_interval_ms >= 0 || tu->path_max_retrans > 0 || tu->sack_delay_ms > 0) {
        struct sctp_paddrparams pp;
        memset(&pp, 0, sizeof pp);
        pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
        if (tu->hb_interval_ms == 0)
            pp.spp_flags |= SPP_HB_DISABLE;
        else if (tu->hb_interval_ms > 0) {
            pp.spp_flags |= SPP_HB_ENABLE;
            pp.spp_hbinterval = (uint32_t)tu->hb_interval_ms;
        }
        if (tu->path_max_retrans > 0)
            pp.spp_pathmaxrxt = (uint16_t)tu->path_max_retrans;
        if (tu->sack_delay_ms > 0) {
            pp.spp_flags |= SPP_SACKDELAY_ENABLE;
            pp.spp_sackdelay = (uint32_t)tu->sack_delay_ms;
        }
        if (setopt(t, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof pp,
                   "SCTP_PEER_ADDR_PARAMS") < 0)
            return -1;
    }
    return 0;
}

int ks_socket_open(struct ks_transport *t, const char (*addrs)[INET_ADDRSTRLEN], int naddrs)
{
    t->fd = socket(AF_INET, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_SCTP);
    if (t->fd < 0) {
        ks_log("rank %d: no kernel SCTP here (socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP): "
               "%s); load the sctp module (modprobe sctp) or use SCTPMPI_SCTP_BACKEND=native",
               t->rank, strerror(errno));
        return -1;
    }
    if (t->tu.udp_port) { /* SCTP in UDP as the native engine speaks it (RFC 6951) */
        int sys = -1;
        FILE *f = fopen("/proc/sys/net/sctp/udp_port", "r");
        if (f) {
            if (fscanf(f, "%d", &sys) != 1)
                sys = -1;
            fclose(f);
        }
        if (sys != t->tu.udp_port) {
            ks_log("rank %d: SCTPMPI_KSCTP_UDP_PORT=%d but the kernel's SCTP-in-UDP port "
                   "(net.sctp.udp_port of this network namespace) is %d: set it with sysctl -w "
                   "net.sctp.udp_port=%d (Linux 5.11 or later)",
                   t->rank, t->tu.udp_port, sys, t->tu.udp_port);
            return -1;
        }
        if (!t->tu.port)
            t->tu.port = KS_ENGINE_SCTP_PORT;
    }
    /* a fixed port (SCTP in UDP: the engine's port) may still be held by the associations of
     * a previous rank's socket that are shutting down */
    int reuse = 1;
    setsockopt(t->fd, SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof reuse);
    t->nlocal = 0;
    for (int i = 0; i < naddrs && t->nlocal < KS_MAX_ADDRS; i++) {
        struct sockaddr_in *sa = &t->local[t->nlocal];
        memset(sa, 0, sizeof *sa);
        sa->sin_family = AF_INET;
        if (inet_pton(AF_INET, addrs[i], &sa->sin_addr) != 1) {
            ks_log("rank %d: bad local address %s", t->rank, addrs[i]);
            return -1;
        }
        sa->sin_port = htons(t->nlocal ? t->port : (uint16_t)t->tu.port);
        int rc = t->nlocal
                     ? setsockopt(t->fd, IPPROTO_SCTP, SCTP_SOCKOPT_BINDX_ADD, sa, sizeof *sa)
                     : bind(t->fd, (struct sockaddr *)sa, sizeof *sa);
        if (rc < 0) {
            ks_log("rank %d: cannot bind %s: %s", t->rank, addrs[i], strerror(errno));
            return -1;
        }
        if (!t->nlocal) {
            struct sockaddr_in got;
            socklen_t gl = sizeof got;
            if (getsockname(t->fd, (struct sockaddr *)&got, &gl) < 0)
                return -1;
            t->port = ntohs(got.sin_port);
            sa->sin_port = got.sin_port;
        }
        t->nlocal++;
    }
    struct sctp_initmsg im;
    memset(&im, 0, sizeof im);
    im.sinit_num_ostreams = (uint16_t)t->nstreams;
    im.sinit_max_instreams = KS_MAX_STREAMS;
    if (setopt(t, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof im, "SCTP_INITMSG") < 0)
        return -1;
    int on = 1;
    if (setopt(t, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on, "SCTP_RECVRCVINFO") < 0)
        return -1;
    int nd = t->tu.nodelay;
    if (setopt(t, IPPROTO_SCTP, SCTP_NODELAY, &nd, sizeof nd, "SCTP_NODELAY") < 0)
        return -1;
    static const uint16_t events[] = { SCTP_ASSOC_CHANGE, SCTP_PEER_ADDR_CHANGE,
                                       SCTP_SHUTDOWN_EVENT, SCTP_SEND_FAILED_EVENT };
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        struct sctp_event ev = { .se_assoc_id = SCTP_FUTURE_ASSOC,
                                 .se_type = events[i],
                                 .se_on = 1 };
        if (setopt(t, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev, "SCTP_EVENT") < 0)
            return -1;
    }
    int buf = (int)t->tu.sockbuf;
    setsockopt(t->fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf); /* capped by wmem_max: fine */
    setsockopt(t->fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf);
    if (apply_presets(t) < 0)
        return -1;
    if (listen(t->fd, 128) < 0) {
        ks_log("rank %d: listen: %s", t->rank, strerror(errno));
        return -1;
    }
    return 0;
}

int ks_connect(struct ks_transport *t, struct ks_peer *p)
{
    struct sctp_getaddrs_old ga;
    socklen_t len = sizeof ga;
    memset(&ga, 0, sizeof ga);
    ga.addr_num = p->naddrs * (int)sizeof p->addrs[0]; /* bytes, as the kernel reads it */
    ga.addrs = (struct sockaddr *)p->addrs;
    if (p->encap_port) { /* the new association takes the socket's encapsulation port */
        struct sctp_udpencaps ue;
        memset(&ue, 0, sizeof ue);
        ue.sue_assoc_id = SCTP_FUTURE_ASSOC;
        ue.sue_port = htons(p->encap_port);
        if (setopt(t, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &ue, sizeof ue,
                   "SCTP_REMOTE_UDP_ENCAPS_PORT (needs Linux 5.11)") < 0)
            return -1;
    }
    int rc = getsockopt(t->fd, IPPROTO_SCTP, SCTP_SOCKOPT_CONNECTX3, &ga, &len);
    if (rc == 0 || errno == EINPROGRESS) {
        p->assoc = ga.assoc_id;
        p->state = KS_CONNECTING;
        if (t->tu.debug)
            ks_debug("rank %d: association %d to rank %d started (%d address(es))", t->rank,
                     (int)ga.assoc_id, p->rank, p->naddrs);
        return 0;
    }
    if (errno == EALREADY || errno == EISCONN) { /* the peer set it up first */
        p->state = errno == EISCONN ? KS_UP : KS_CONNECTING;
        p->assoc = 0;
        p->assoc = ks_assoc_of(t, p);
        return 0;
    }
    ks_log("rank %d: cannot set up an association to rank %d: %s", t->rank, p->rank,
           strerror(errno));
    return -1;
}

sctp_assoc_t ks_assoc_of(struct ks_transport *t, struct ks_peer *p)
{
    if (p->assoc || p->state == KS_IDLE)
        return p->assoc;
    /* look the association up by one of the peer's addresses */
    for (int i = 0; i < p->naddrs && !p->assoc; i++) {
        struct sctp_paddrinfo pi;
        socklen_t len = sizeof pi;
        memset(&pi, 0, sizeof pi);
        memcpy(&pi.spinfo_address, &p->addrs[i], sizeof p->addrs[i]);
        if (getsockopt(t->fd, IPPROTO_SCTP, SCTP_GET_PEER_ADDR_INFO, &pi, &len) == 0)
            p->assoc = pi.spinfo_assoc_id;
    }
    return p->assoc;
}

void ks_abort(struct ks_transport *t, sctp_assoc_t id, const char *why)
{
    char cbuf[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
    memset(cbuf, 0, sizeof cbuf);
    struct msghdr mh = { .msg_control = cbuf, .msg_controllen = sizeof cbuf };
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = IPPROTO_SCTP;
    c->cmsg_type = SCTP_SNDINFO;
    c->cmsg_len = CMSG_LEN(sizeof(struct sctp_sndinfo));
    struct sctp_sndinfo si = { .snd_flags = SCTP_ABORT, .snd_assoc_id = id };
    memcpy(CMSG_DATA(c), &si, sizeof si);
    t->aborts_sent++;
    ks_log("rank %d: aborting association %d: %s", t->rank, (int)id, why);
    if (sendmsg(t->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 && t->tu.debug)
        ks_debug("rank %d: abort of association %d: %s", t->rank, (int)id, strerror(errno));
}

void ks_fail_peer(struct ks_transport *t, struct ks_peer *p, const char *why)
{
    if (p->state == KS_FAILED || p->state == KS_CLOSED)
        return;
    p->state = KS_FAILED;
    snprintf(p->why, sizeof p->why, "%s", why);
    p->fail_pending = 1;
    t->fails_pending = 1;
}
