/* usrsctp_peer.c — the reference side of the interop tests: an SCTP client or server built on
 * usrsctp (its own threads and its own UDP encapsulation socket, RFC 6951, AF_INET so that the
 * INIT lists every bound address and multihoming is real).  It sends the deterministic message
 * plan of interop_common.c and checks every message the peer sends (exactly once, in order per
 * stream unless unordered, intact, right PPID), then closes with a graceful SHUTDOWN started by
 * the side named by --shutdown.  Prints "usrsctp_peer: OK ..." and exits 0 on success. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <usrsctp.h>

#include "interop_common.h"

#ifndef SCTP_INTERLEAVING_SUPPORTED
#define SCTP_INTERLEAVING_SUPPORTED 0x00001206
#endif

static const char *WHO = "usrsctp_peer";
static struct iop_options opt;

static void die(const char *what)
{
    fprintf(stderr, "%s: FAILED: %s: %s\n", WHO, what, strerror(errno));
    exit(1);
}

static void setopt(struct socket *s, int level, int name, const void *v, socklen_t len,
                   const char *what)
{
    if (usrsctp_setsockopt(s, level, name, v, len) < 0)
        die(what);
}

/* a UDP port nobody uses right now (usrsctp binds it itself; the race is harmless in tests) */
static int free_udp_port(void)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET};
    socklen_t l = sizeof a;
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &l) < 0)
        die("probing a free UDP port");
    close(fd);
    return ntohs(a.sin_port);
}

static struct sockaddr_in inet(const char *ip, int port)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
        fprintf(stderr, "%s: bad IPv4 address '%s'\n", WHO, ip);
        exit(2);
    }
    return a;
}

#ifndef SCTP_CMT_ON_OFF /* usrsctp implements the option but its header does not name it */
#define SCTP_CMT_ON_OFF 0x00001200
#endif

static void configure(struct socket *s)
{
    struct sctp_initmsg im = {.sinit_num_ostreams = (uint16_t)opt.streams,
                              .sinit_max_instreams = IOP_MAX_STREAMS};
    setopt(s, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof im, "SCTP_INITMSG");
    int on = 1;
    setopt(s, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof on, "SCTP_NODELAY");
    setopt(s, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on, "SCTP_RECVRCVINFO");
    int level = 2;
    setopt(s, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, &level, sizeof level,
           "SCTP_FRAGMENT_INTERLEAVE");
    struct sctp_assoc_value av = {.assoc_id = SCTP_FUTURE_ASSOC,
                                  .assoc_value = (uint32_t)opt.idata};
    setopt(s, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, &av, sizeof av,
           "SCTP_INTERLEAVING_SUPPORTED");
    if (opt.cmt_dac) { /* SCTP_CMT_BASE; DAC comes from the sctp_cmt_use_dac sysctl */
        struct sctp_assoc_value cmt = {.assoc_id = SCTP_FUTURE_ASSOC, .assoc_value = 1};
        setopt(s, IPPROTO_SCTP, SCTP_CMT_ON_OFF, &cmt, sizeof cmt, "SCTP_CMT_ON_OFF");
    }
    int buf = 4 << 20;
    setopt(s, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf, "SO_SNDBUF");
    setopt(s, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf, "SO_RCVBUF");
    uint32_t pd = 1u << 20; /* whole messages (max 1 MiB) in one piece when possible */
    setopt(s, IPPROTO_SCTP, SCTP_PARTIAL_DELIVERY_POINT, &pd, sizeof pd,
           "SCTP_PARTIAL_DELIVERY_POINT");
    struct sctp_rtoinfo rto = {.srto_assoc_id = SCTP_FUTURE_ASSOC,
                               .srto_initial = 300, .srto_max = 1000, .srto_min = 100};
    setopt(s, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof rto, "SCTP_RTOINFO");
    /* a real MTU (loopback's 64 KiB would hide fragmentation) and fast path failure detection */
    struct sctp_paddrparams pp;
    memset(&pp, 0, sizeof pp);
    pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
    pp.spp_flags = SPP_PMTUD_DISABLE | SPP_HB_ENABLE;
    pp.spp_pathmtu = 1280;
    pp.spp_hbinterval = 200;
    pp.spp_pathmaxrxt = 2;
    setopt(s, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof pp, "SCTP_PEER_ADDR_PARAMS");
    static const uint16_t events[] = {SCTP_ASSOC_CHANGE, SCTP_PEER_ADDR_CHANGE,
                                      SCTP_SHUTDOWN_EVENT, SCTP_REMOTE_ERROR,
                                      SCTP_SEND_FAILED_EVENT};
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        struct sctp_event ev = {.se_assoc_id = SCTP_FUTURE_ASSOC, .se_type = events[i],
                                .se_on = 1};
        setopt(s, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev, "SCTP_EVENT");
    }
}

static void bind_locals(struct socket *s, int sctp_port)
{
    struct sockaddr_in a[IOP_MAX_ADDRS];
    for (int i = 0; i < opt.nlocal; i++)
        a[i] = inet(opt.local[i], sctp_port);
    if (usrsctp_bind(s, (struct sockaddr *)&a[0], sizeof a[0]) < 0)
        die("usrsctp_bind");
    if (opt.nlocal > 1 &&
        usrsctp_bindx(s, (struct sockaddr *)&a[1], opt.nlocal - 1, SCTP_BINDX_ADD_ADDR) < 0)
        die("usrsctp_bindx (is every --local address on an interface?)");
}

/* ---- the association's life ---- */

struct state {
    int up, shutdown_seen, closed, failed;
    long send_failed;
    long path_events;
};
static struct state st;

static void notification(const union sctp_notification *n, size_t len)
{
    if (len < sizeof n->sn_header)
        return;
    switch (n->sn_header.sn_type) {
    case SCTP_ASSOC_CHANGE:
        switch (n->sn_assoc_change.sac_state) {
        case SCTP_COMM_UP:
            st.up = 1;
            if (opt.verbose)
                iop_log(WHO, "association up: %u out / %u in streams",
                        n->sn_assoc_change.sac_outbound_streams,
                        n->sn_assoc_change.sac_inbound_streams);
            break;
        case SCTP_SHUTDOWN_COMP:
            st.closed = 1;
            break;
        case SCTP_COMM_LOST: {
            /* sac_info holds the ABORT chunk when one was received */
            size_t info = n->sn_assoc_change.sac_length > sizeof n->sn_assoc_change
                              ? n->sn_assoc_change.sac_length - sizeof n->sn_assoc_change
                              : 0;
            iop_log(WHO, "FAILED: association lost (error %u; %s)",
                    n->sn_assoc_change.sac_error,
                    info ? "an ABORT was received"
                         : "no ABORT: retransmissions exhausted or local");
            for (size_t k = 0; k < info && k < 32; k++)
                fprintf(stderr, "%02x", n->sn_assoc_change.sac_info[k]);
            if (info)
                fputc('\n', stderr);
            st.failed = 1;
            break;
        }
        case SCTP_CANT_STR_ASSOC:
            iop_log(WHO, "FAILED: cannot start the association");
            st.failed = 1;
            break;
        case SCTP_RESTART:
            iop_log(WHO, "FAILED: the peer restarted the association");
            st.failed = 1;
            break;
        }
        break;
    case SCTP_SHUTDOWN_EVENT:
        st.shutdown_seen = 1;
        if (opt.verbose)
            iop_log(WHO, "SHUTDOWN received");
        break;
    case SCTP_PEER_ADDR_CHANGE: {
        char ip[64] = "?";
        const struct sockaddr_in *a = (const struct sockaddr_in *)&n->sn_paddr_change.spc_aaddr;
        if (a->sin_family == AF_INET)
            inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        st.path_events++;
        iop_log(WHO, "peer address %s: state %u", ip, n->sn_paddr_change.spc_state);
        break;
    }
    case SCTP_REMOTE_ERROR:
        iop_log(WHO, "peer reported error cause %u", ntohs(n->sn_remote_error.sre_error));
        break;
    case SCTP_SEND_FAILED_EVENT:
        /* not the end yet: the association change that says why comes after these */
        if (!st.send_failed++)
            iop_log(WHO, "FAILED: message (stream %u) not delivered: error %u, flags %#x",
                    n->sn_send_failed_event.ssfe_info.snd_sid,
                    n->sn_send_failed_event.ssfe_error, n->sn_send_failed_event.ssfe_flags);
        break;
    }
}

/* per stream: the bytes of a message delivered in pieces (no MSG_EOR yet) */
struct partial {
    uint8_t *buf;
    size_t len;
};

/* with --idata both sides offered I-DATA: the association must have negotiated it */
static void check_idata(struct socket *s)
{
    struct sctp_assoc_value av = {.assoc_id = 0};
    socklen_t len = sizeof av;
    if (usrsctp_getsockopt(s, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, &av, &len) < 0)
        die("getsockopt SCTP_INTERLEAVING_SUPPORTED");
    if (!av.assoc_value) {
        fprintf(stderr, "%s: FAILED: I-DATA offered by both sides but not negotiated\n", WHO);
        exit(1);
    }
}

static void run(struct socket *s)
{
    if (opt.idata)
        check_idata(s);
    usrsctp_set_non_blocking(s, 1);
    struct iop_plan plan;
    struct iop_checker chk;
    if (iop_plan_init(&plan, iop_origin(opt.server), &opt) < 0 ||
        iop_checker_init(&chk, iop_origin(!opt.server), &opt, opt.expect) < 0)
        die("out of memory");
    size_t cap = opt.max_size + 64;
    uint8_t *out = malloc(cap), *in = malloc(cap);
    struct partial *part = calloc(IOP_MAX_STREAMS, sizeof *part);
    if (!out || !in || !part)
        die("out of memory");
    long sent = 0;
    int have_msg = 0, shutdown_called = 0, eof = 0;
    struct iop_msg m;
    uint64_t t0 = iop_now_us();
    while (!st.failed) {
        int progress = 0;
        /* send as much of the plan as the socket takes */
        while (sent < opt.count && !st.shutdown_seen) {
            if (!have_msg) {
                iop_plan_next(&plan, sent, &m);
                iop_fill(&plan, &m, out);
                have_msg = 1;
            }
            struct sctp_sndinfo si = {.snd_sid = m.stream,
                                      .snd_flags = m.unordered ? SCTP_UNORDERED : 0,
                                      .snd_ppid = htonl(m.ppid)};
            ssize_t n = usrsctp_sendv(s, out, m.len, NULL, 0, &si, sizeof si, SCTP_SENDV_SNDINFO,
                                      0);
            if (n < 0) {
                if (errno == EWOULDBLOCK || errno == EAGAIN || errno == ENOBUFS)
                    break;
                die("usrsctp_sendv");
            }
            if ((size_t)n != m.len) {
                fprintf(stderr, "%s: FAILED: short send %zd of %zu\n", WHO, n, m.len);
                exit(1);
            }
            sent++;
            have_msg = 0;
            progress = 1;
        }
        /* receive everything that is there */
        for (;;) {
            struct sockaddr_storage from;
            socklen_t fromlen = sizeof from;
            struct sctp_rcvinfo ri;
            socklen_t rilen = sizeof ri;
            unsigned int infotype = 0;
            int flags = 0;
            memset(&ri, 0, sizeof ri);
            ssize_t n = usrsctp_recvv(s, in, cap, (struct sockaddr *)&from, &fromlen, &ri, &rilen,
                                      &infotype, &flags);
            if (n < 0) {
                if (errno == EWOULDBLOCK || errno == EAGAIN)
                    break;
                if (errno == ECONNRESET || errno == ENOTCONN) {
                    eof = 1;
                    break;
                }
                die("usrsctp_recvv");
            }
            if (n == 0) {
                eof = 1;
                break;
            }
            progress = 1;
            if (flags & MSG_NOTIFICATION) {
                notification((const union sctp_notification *)in, (size_t)n);
                continue;
            }
            if (infotype != SCTP_RECVV_RCVINFO) {
                fprintf(stderr, "%s: FAILED: data without SCTP_RCVINFO\n", WHO);
                exit(1);
            }
            uint16_t sid = ri.rcv_sid;
            if (sid >= IOP_MAX_STREAMS) {
                fprintf(stderr, "%s: FAILED: data on stream %u\n", WHO, sid);
                exit(1);
            }
            struct partial *p = &part[sid];
            if (!(flags & MSG_EOR) || p->len) {
                if (p->len + (size_t)n > cap) {
                    fprintf(stderr, "%s: FAILED: message on stream %u larger than %zu\n", WHO,
                            sid, cap);
                    exit(1);
                }
                if (!p->buf && !(p->buf = malloc(cap)))
                    die("out of memory");
                memcpy(p->buf + p->len, in, (size_t)n);
                p->len += (size_t)n;
                if (!(flags & MSG_EOR))
                    continue;
                iop_check(&chk, sid, ntohl(ri.rcv_ppid), !!(ri.rcv_flags & SCTP_UNORDERED),
                          p->buf, p->len);
                p->len = 0;
            } else {
                iop_check(&chk, sid, ntohl(ri.rcv_ppid), !!(ri.rcv_flags & SCTP_UNORDERED), in,
                          (size_t)n);
            }
            if (chk.errors)
                break;
        }
        if (chk.errors)
            break;
        if (eof || st.closed)
            break;
        if (opt.shutdown_self && !shutdown_called && sent == opt.count &&
            chk.received >= opt.expect) {
            if (opt.verbose)
                iop_log(WHO, "all sent and received: starting the graceful shutdown");
            if (usrsctp_shutdown(s, SHUT_WR) < 0)
                die("usrsctp_shutdown");
            shutdown_called = 1;
        }
        if (!progress)
            usleep(200);
    }
    double secs = (double)(iop_now_us() - t0) / 1e6;
    int rc = 0;
    if (st.failed || chk.errors || st.send_failed)
        rc = 1;
    if (st.send_failed > 1)
        fprintf(stderr, "%s: %ld messages not delivered in all\n", WHO, st.send_failed);
    if (sent != opt.count) {
        fprintf(stderr, "%s: FAILED: only %ld of %ld messages sent before the end\n", WHO, sent,
                opt.count);
        rc = 1;
    }
    if (iop_checker_done(&chk, WHO) < 0)
        rc = 1;
    if (!st.closed && !eof) {
        fprintf(stderr, "%s: FAILED: the association did not close gracefully\n", WHO);
        rc = 1;
    }
    if (!opt.shutdown_self && !st.shutdown_seen) {
        fprintf(stderr, "%s: FAILED: closed without receiving the peer's SHUTDOWN\n", WHO);
        rc = 1;
    }
    if (rc == 0)
        printf("%s: OK sent %ld received %ld in %.2f s (%ld path events; shutdown by %s)\n", WHO,
               sent, chk.received, secs, st.path_events, opt.shutdown_self ? "us" : "peer");
    fflush(stdout);
    for (int i = 0; i < IOP_MAX_STREAMS; i++)
        free(part[i].buf);
    free(part);
    free(out);
    free(in);
    iop_plan_free(&plan);
    iop_checker_free(&chk);
    usrsctp_close(s);
    /* the stack (its threads) still answers an out-of-the-blue SHUTDOWN-ACK meanwhile */
    if (opt.linger_ms)
        usleep((useconds_t)opt.linger_ms * 1000);
    for (int tries = 0; usrsctp_finish() != 0 && tries < 50; tries++)
        usleep(20000);
    exit(rc);
}

int main(int argc, char **argv)
{
    iop_parse(&opt, argc, argv, WHO);
    WHO = opt.server ? "usrsctp_peer(server)" : "usrsctp_peer(client)";
    if (opt.drop_addr || opt.dump_dir || opt.loss > 0 || opt.trace) {
        fprintf(stderr, "%s: --drop-addr, --loss, --trace and --dump-dir are native_peer's\n",
                WHO);
        return 2;
    }
    iop_watchdog(opt.timeout_s, WHO);
    int udp_port = opt.port ? opt.port : free_udp_port();
    usrsctp_init((uint16_t)udp_port, NULL, NULL);
    usrsctp_sysctl_set_sctp_blackhole(0);
    usrsctp_sysctl_set_sctp_enable_sack_immediately(1);
    usrsctp_sysctl_set_sctp_assoc_rtx_max_default(30);
    usrsctp_sysctl_set_sctp_path_rtx_max_default(2);
    usrsctp_sysctl_set_sctp_heartbeat_interval_default(200);
    usrsctp_sysctl_set_sctp_rto_min_default(100);
    usrsctp_sysctl_set_sctp_rto_max_default(1000);
    usrsctp_sysctl_set_sctp_rto_initial_default(300);
    usrsctp_sysctl_set_sctp_init_rto_max_default(1000);
    usrsctp_sysctl_set_sctp_auto_asconf(0);
    if (opt.cmt_dac) { /* the socket option below is refused unless the sysctl is on */
        usrsctp_sysctl_set_sctp_cmt_on_off(1);
        usrsctp_sysctl_set_sctp_cmt_use_dac(1);
    }

    struct socket *s = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0, NULL);
    if (!s)
        die("usrsctp_socket");
    configure(s);
    if (opt.server) {
        bind_locals(s, IOP_SERVER_SCTP_PORT);
        if (usrsctp_listen(s, 1) < 0)
            die("usrsctp_listen");
        iop_report_port(&opt, udp_port);
        struct socket *c = usrsctp_accept(s, NULL, NULL); /* blocking; the watchdog bounds it */
        if (!c)
            die("usrsctp_accept");
        usrsctp_close(s);
        st.up = 1;
        run(c);
    }
    bind_locals(s, IOP_CLIENT_SCTP_PORT);
    struct sctp_udpencaps enc;
    memset(&enc, 0, sizeof enc);
    enc.sue_address.ss_family = AF_INET;
    enc.sue_assoc_id = SCTP_FUTURE_ASSOC;
    enc.sue_port = htons((uint16_t)opt.remote_port);
    setopt(s, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT, &enc, sizeof enc,
           "SCTP_REMOTE_UDP_ENCAPS_PORT");
    struct sockaddr_in srv = inet(opt.remote, IOP_SERVER_SCTP_PORT);
    if (usrsctp_connect(s, (struct sockaddr *)&srv, sizeof srv) < 0)
        die("usrsctp_connect");
    st.up = 1;
    run(s);
    return 0;
}
