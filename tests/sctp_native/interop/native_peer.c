/* native_peer.c — our side of the interop tests: an SCTP client or server built on the sans-IO
 * engine (src/sctp_native/sctpn.h) driven by a plain poll() loop over real UDP sockets (one per
 * local address, all on one port; RFC 6951 encapsulation).  It sends the deterministic message
 * plan of interop_common.c, checks every message the peer sends, and closes with a graceful
 * SHUTDOWN started by the side named by --shutdown.  --drop-addr/--drop-after kill one local
 * address (every datagram sent from or received on it is dropped) once N messages have been
 * received, to force a path failover; --loss drops a random share of all datagrams both ways
 * (retransmissions, SACK gap blocks and duplicate TSNs then cross the wire in both directions).
 * --trace prints every datagram.  Prints "native_peer: OK ..." and exits 0 on success. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "interop_common.h"
#include "sctp_native/sctpn.h"

static const char *WHO = "native_peer";
static struct iop_options opt;

static void die(const char *what)
{
    fprintf(stderr, "%s: FAILED: %s: %s\n", WHO, what, strerror(errno));
    exit(1);
}

static void die_sctpn(const char *what, int rc)
{
    fprintf(stderr, "%s: FAILED: %s: %s (%d)\n", WHO, what, sctpn_strerror(rc), rc);
    exit(1);
}

/* ---- UDP sockets, one per local address ---- */

struct udp {
    int fd;
    struct sctpn_addr addr; /* ipv4 network order, port host order */
};
static struct udp udp[IOP_MAX_ADDRS];
static int nudp;
static uint32_t drop_ipv4;   /* the local address to kill (network order), 0: none */
static int dropping;         /* 1 once drop_after messages have gone by */
static long dropped_packets; /* datagrams dropped since */
static long lost_packets;    /* datagrams dropped by --loss */

/* --loss: a fixed-seed xorshift, so a failing run can be repeated */
static int lose_one(void)
{
    static uint64_t x = 0x2545f4914f6cdd1dull;
    if (opt.loss <= 0)
        return 0;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    if ((double)(x >> 11) / 9007199254740992.0 >= opt.loss)
        return 0;
    lost_packets++;
    return 1;
}

static uint32_t parse_ipv4(const char *ip)
{
    struct in_addr a;
    if (inet_pton(AF_INET, ip, &a) != 1) {
        fprintf(stderr, "%s: bad IPv4 address '%s'\n", WHO, ip);
        exit(2);
    }
    return a.s_addr;
}

static void open_sockets(void)
{
    int port = opt.port;
    for (int i = 0; i < opt.nlocal; i++) {
        struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
        a.sin_addr.s_addr = parse_ipv4(opt.local[i]);
        int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            die("socket");
        int buf = 4 << 20;
        setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof buf);
        setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof buf);
        if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0)
            die(opt.local[i]);
        socklen_t l = sizeof a;
        getsockname(fd, (struct sockaddr *)&a, &l);
        port = ntohs(a.sin_port); /* every further address on the same port */
        udp[nudp].fd = fd;
        udp[nudp].addr.ipv4 = a.sin_addr.s_addr;
        udp[nudp].addr.udp_port = (uint16_t)port;
        nudp++;
    }
}

static char *addr_str(const struct sctpn_addr *a, char *buf, size_t cap)
{
    char ip[32];
    inet_ntop(AF_INET, &a->ipv4, ip, sizeof ip);
    snprintf(buf, cap, "%s:%u", ip, a->udp_port);
    return buf;
}

/* ---- the engine's callbacks ---- */

/* a message being delivered piece by piece; pieces of different unordered messages of one stream
 * may interleave, so open messages are told apart by (stream, unordered, msg_key) */
#define MAX_OPEN 256
struct partial {
    int used;
    uint16_t stream, unordered;
    uint32_t key, ppid;
    uint8_t *buf;
    size_t len;
};

static struct {
    sctpn_assoc_id assoc;
    int up, closed, failed, restarted;
    long path_events;
    struct iop_checker chk;
    struct partial open[MAX_OPEN];
    size_t cap;
} st;

static struct partial *find_open(const struct sctpn_data *d)
{
    for (int i = 0; i < MAX_OPEN; i++) {
        struct partial *p = &st.open[i];
        if (p->used && p->stream == d->stream && p->unordered == d->unordered &&
            p->key == d->msg_key)
            return p;
    }
    return NULL;
}

static void on_data(void *user, const struct sctpn_data *d)
{
    (void)user;
    if (d->first && d->last) {
        if (d->msg_offset != 0) {
            fprintf(stderr, "%s: FAILED: whole message with offset %llu\n", WHO,
                    (unsigned long long)d->msg_offset);
            st.failed = 1;
            return;
        }
        iop_check(&st.chk, d->stream, d->ppid, d->unordered, d->data, d->len);
        return;
    }
    struct partial *p = find_open(d);
    if (d->first) {
        if (p || d->msg_offset != 0) {
            fprintf(stderr,
                    "%s: FAILED: stream %u (unordered %u) key %u: a first piece at offset %llu "
                    "while the message is %s\n",
                    WHO, d->stream, d->unordered, d->msg_key,
                    (unsigned long long)d->msg_offset, p ? "already open" : "new");
            st.failed = 1;
            return;
        }
        for (int i = 0; i < MAX_OPEN && !p; i++)
            if (!st.open[i].used)
                p = &st.open[i];
        if (!p) {
            fprintf(stderr, "%s: FAILED: more than %d messages open at once\n", WHO, MAX_OPEN);
            st.failed = 1;
            return;
        }
        p->used = 1;
        p->stream = d->stream;
        p->unordered = d->unordered;
        p->key = d->msg_key;
        p->ppid = d->ppid;
        p->len = 0;
    } else if (!p) {
        fprintf(stderr, "%s: FAILED: stream %u key %u: a piece at offset %llu of no open message\n",
                WHO, d->stream, d->msg_key, (unsigned long long)d->msg_offset);
        st.failed = 1;
        return;
    }
    if (d->msg_offset != p->len || p->len + d->len > st.cap) {
        fprintf(stderr, "%s: FAILED: stream %u: piece at offset %llu len %zu after %zu bytes\n",
                WHO, d->stream, (unsigned long long)d->msg_offset, d->len, p->len);
        st.failed = 1;
        p->used = 0;
        return;
    }
    if (!p->buf && !(p->buf = malloc(st.cap)))
        die("out of memory");
    memcpy(p->buf + p->len, d->data, d->len);
    p->len += d->len;
    if (d->last) {
        iop_check(&st.chk, d->stream, p->ppid, d->unordered, p->buf, p->len);
        p->used = 0;
    }
}

static void on_event(void *user, const struct sctpn_event *ev)
{
    (void)user;
    char a[48];
    switch (ev->type) {
    case SCTPN_EV_ASSOC_UP:
        st.up = 1;
        if (!st.assoc)
            st.assoc = ev->assoc;
        if (opt.verbose)
            iop_log(WHO, "association %u up, peer %s", ev->assoc, addr_str(&ev->addr, a, sizeof a));
        break;
    case SCTPN_EV_ASSOC_DOWN:
        if (ev->reason == SCTPN_DOWN_SHUTDOWN)
            st.closed = 1;
        else {
            iop_log(WHO, "FAILED: association down, reason %d (%s)", ev->reason,
                    ev->reason == SCTPN_DOWN_ABORT_RECEIVED ? "ABORT received"
                    : ev->reason == SCTPN_DOWN_ABORT_SENT   ? "ABORT sent"
                    : ev->reason == SCTPN_DOWN_TIMEOUT      ? "timeout"
                                                            : "?");
            st.failed = 1;
        }
        break;
    case SCTPN_EV_PATH_CHANGE:
        st.path_events++;
        iop_log(WHO, "path %d (%s) state %d%s", ev->path, addr_str(&ev->addr, a, sizeof a),
                ev->path_state, ev->primary ? " primary" : "");
        break;
    case SCTPN_EV_SEND_DONE:
        break;
    case SCTPN_EV_SEND_FAILED:
        iop_log(WHO, "FAILED: a message will never be acknowledged");
        st.failed = 1;
        break;
    case SCTPN_EV_ASSOC_RESTART:
        iop_log(WHO, "FAILED: the peer restarted the association");
        st.restarted = 1;
        st.failed = 1;
        break;
    }
}

/* ---- I/O ---- */

static uint8_t pkt[65536];

static FILE *trace_out; /* stderr, or --trace-file (line buffered: kept up to a watchdog exit) */

/* --trace: one line per packet: time, direction, addresses, tag, then each chunk */
static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint16_t be16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }

static void trace_packet(const char *dir, const struct sctpn_addr *from,
                         const struct sctpn_addr *to, const uint8_t *p, size_t len,
                         const char *note)
{
    static uint64_t t0;
    uint64_t now = iop_now_us();
    if (!t0)
        t0 = now;
    char line[2048], a[48], b[48];
    size_t o = 0;
#define OUT(...)                                                                                   \
    do {                                                                                           \
        if (o < sizeof line)                                                                       \
            o += (size_t)snprintf(line + o, sizeof line - o, __VA_ARGS__);                         \
    } while (0)
    OUT("%9.3f %s %s>%s len %zu", (double)(now - t0) / 1000.0, dir, addr_str(from, a, sizeof a),
        addr_str(to, b, sizeof b), len);
    if (len >= 12)
        OUT(" vtag %08x", be32(p + 4));
    size_t off = 12;
    int n = 0;
    while (off + 4 <= len && n++ < 12) {
        uint8_t type = p[off], fl = p[off + 1];
        size_t cl = be16(p + off + 2);
        const uint8_t *v = p + off + 4;
        size_t vl = cl >= 4 && off + cl <= len ? cl - 4 : 0;
        switch (type) {
        case 0:
            if (vl >= 12)
                OUT(" | DATA%s%s%s tsn %u sid %u ssn %u len %zu", fl & 4 ? " U" : "",
                    fl & 2 ? " B" : "", fl & 1 ? " E" : "", be32(v), be16(v + 4), be16(v + 6),
                    vl - 12);
            break;
        case 64:
            if (vl >= 16)
                OUT(" | IDATA%s%s%s tsn %u sid %u mid %u %s %u len %zu", fl & 4 ? " U" : "",
                    fl & 2 ? " B" : "", fl & 1 ? " E" : "", be32(v), be16(v + 4), be32(v + 8),
                    fl & 2 ? "ppid" : "fsn", be32(v + 12), vl - 16);
            break;
        case 3:
            if (vl >= 12) {
                uint16_t ng = be16(v + 8), nd = be16(v + 10);
                OUT(" | SACK cum %u rwnd %u gaps %u dups %u", be32(v), be32(v + 4), ng, nd);
                for (unsigned g = 0; g < ng && 12 + 4 * g + 4 <= vl && g < 4; g++)
                    OUT(" [%u-%u]", be16(v + 12 + 4 * g), be16(v + 14 + 4 * g));
            }
            break;
        case 6:
        case 9:
            OUT(" | %s%s", type == 6 ? "ABORT" : "ERROR", fl & 1 ? " T" : "");
            for (size_t c = 0; c + 4 <= vl;) {
                size_t clen = be16(v + c + 2);
                OUT(" cause %u len %zu", be16(v + c), clen);
                if (clen < 4)
                    break;
                c += (clen + 3) & ~(size_t)3;
            }
            break;
        case 1:
        case 2:
            if (vl >= 16)
                OUT(" | %s itag %08x rwnd %u os %u is %u itsn %u", type == 1 ? "INIT" : "INIT-ACK",
                    be32(v), be32(v + 4), be16(v + 8), be16(v + 10), be32(v + 12));
            break;
        case 7:
            OUT(" | SHUTDOWN cum %u", vl >= 4 ? be32(v) : 0);
            break;
        default: {
            static const char *names[] = {"DATA", "INIT", "INIT-ACK", "SACK", "HB", "HB-ACK",
                                          "ABORT", "SHUTDOWN", "SHUTDOWN-ACK", "ERROR",
                                          "COOKIE-ECHO", "COOKIE-ACK", "ECNE", "CWR",
                                          "SHUTDOWN-COMPLETE"};
            if (type < sizeof names / sizeof names[0])
                OUT(" | %s", names[type]);
            else
                OUT(" | chunk %u flags %02x len %zu", type, fl, cl);
        }
        }
        if (cl < 4)
            break;
        off += (cl + 3) & ~(size_t)3;
    }
    OUT("%s", note);
#undef OUT
    fprintf(trace_out, "%s\n", line);
}

/* --dump-dir: keep the first three received packets of each (chunk type, flags) of the first
 * chunk, raw, as seeds for the fuzz corpus */
/* SACKs of the peer whose flags carry usrsctp's DAC packet count (0x40: one, 0x80: two) */
static long dac_sacks;
static void count_dac_sacks(const uint8_t *p, size_t len)
{
    for (size_t off = 12; off + 4 <= len;) {
        size_t cl = (size_t)(p[off + 2] << 8 | p[off + 3]);
        if (p[off] == 3 && (p[off + 1] & 0xc0))
            dac_sacks++;
        if (cl < 4)
            break;
        off += (cl + 3) & ~(size_t)3;
    }
}

static void dump_packet(const uint8_t *p, size_t len)
{
    static uint8_t kept[256][256];
    if (len < 16)
        return;
    uint8_t type = p[12], flags = p[13];
    if (kept[type][flags] >= 3)
        return;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s-type%u-flags%u-%u.raw", opt.dump_dir,
             opt.server ? "toserver" : "toclient", type, flags, kept[type][flags]++);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, len, f) != len)
        die(path);
    fclose(f);
}

static int receive_all(sctpn_endpoint *ep)
{
    int n = 0;
    for (int i = 0; i < nudp; i++) {
        for (;;) {
            struct sockaddr_in src;
            socklen_t sl = sizeof src;
            ssize_t len = recvfrom(udp[i].fd, pkt, sizeof pkt, 0, (struct sockaddr *)&src, &sl);
            if (len < 0) {
                if (errno == EAGAIN || errno == EWOULDBLOCK)
                    break;
                if (errno == ECONNREFUSED || errno == EINTR)
                    continue; /* ICMP from an earlier send: the peer not up yet */
                die("recvfrom");
            }
            n++;
            struct sctpn_addr src_addr = {.ipv4 = src.sin_addr.s_addr,
                                          .udp_port = ntohs(src.sin_port)};
            if (dropping && udp[i].addr.ipv4 == drop_ipv4) {
                dropped_packets++;
                if (opt.trace)
                    trace_packet("in ", &src_addr, &udp[i].addr, pkt, (size_t)len, " DROPPED");
                continue;
            }
            if (lose_one()) {
                if (opt.trace)
                    trace_packet("in ", &src_addr, &udp[i].addr, pkt, (size_t)len, " LOST");
                continue;
            }
            if (opt.trace)
                trace_packet("in ", &src_addr, &udp[i].addr, pkt, (size_t)len, "");
            if (opt.dump_dir)
                dump_packet(pkt, (size_t)len);
            if (opt.cmt_dac)
                count_dac_sacks(pkt, (size_t)len);
            struct sctpn_addr from = {.ipv4 = src.sin_addr.s_addr,
                                      .udp_port = ntohs(src.sin_port)};
            int rc = sctpn_input(ep, pkt, (size_t)len, &from, &udp[i].addr, iop_now_us());
            if (rc < 0 && opt.verbose)
                iop_log(WHO, "sctpn_input dropped a %zd-byte packet: %s", len, sctpn_strerror(rc));
        }
    }
    return n;
}

static int transmit_all(sctpn_endpoint *ep)
{
    int n = 0;
    struct sctpn_addr from, to;
    int len;
    while ((len = sctpn_poll_transmit(ep, iop_now_us(), pkt, sizeof pkt, &from, &to)) > 0) {
        n++;
        struct udp *u = &udp[0];
        for (int i = 0; i < nudp; i++)
            if (udp[i].addr.ipv4 == from.ipv4)
                u = &udp[i];
        if (dropping && u->addr.ipv4 == drop_ipv4) {
            dropped_packets++;
            if (opt.trace)
                trace_packet("out", &from, &to, pkt, (size_t)len, " DROPPED");
            continue;
        }
        if (lose_one()) {
            if (opt.trace)
                trace_packet("out", &from, &to, pkt, (size_t)len, " LOST");
            continue;
        }
        if (opt.trace)
            trace_packet("out", &from, &to, pkt, (size_t)len,
                         u->addr.ipv4 == from.ipv4 ? "" : " (sent from the first socket)");
        struct sockaddr_in dst = {.sin_family = AF_INET, .sin_port = htons(to.udp_port)};
        dst.sin_addr.s_addr = to.ipv4;
        if (sendto(u->fd, pkt, (size_t)len, 0, (struct sockaddr *)&dst, sizeof dst) < 0 &&
            errno != EAGAIN && errno != ECONNREFUSED && errno != ENOBUFS) {
            die("sendto");
        }
    }
    if (len < 0)
        die_sctpn("sctpn_poll_transmit", len);
    return n;
}

int main(int argc, char **argv)
{
    iop_parse(&opt, argc, argv, WHO);
    WHO = opt.server ? "native_peer(server)" : "native_peer(client)";
    iop_watchdog(opt.timeout_s, WHO);
    trace_out = stderr;
    if (opt.trace_file) {
        trace_out = fopen(opt.trace_file, "w");
        if (!trace_out)
            die(opt.trace_file);
        setvbuf(trace_out, NULL, _IOLBF, 1 << 16);
    }
    open_sockets();
    if (opt.drop_addr) {
        drop_ipv4 = parse_ipv4(opt.drop_addr);
        int ours = 0;
        for (int i = 0; i < nudp; i++)
            ours |= udp[i].addr.ipv4 == drop_ipv4;
        if (!ours) {
            fprintf(stderr, "%s: --drop-addr %s is not one of the --local addresses\n", WHO,
                    opt.drop_addr);
            return 2;
        }
    }

    struct sctpn_config cfg;
    sctpn_config_defaults(&cfg);
    cfg.sctp_port = opt.server ? IOP_SERVER_SCTP_PORT : IOP_CLIENT_SCTP_PORT;
    cfg.num_ostreams = (uint16_t)opt.streams;
    cfg.max_instreams = IOP_MAX_STREAMS;
    cfg.max_msg_size = (uint32_t)opt.max_size;
    cfg.mtu = 1252; /* the usrsctp peer's 1280-byte path MTU less the UDP and IPv4 headers */
    cfg.rto_initial_us = 300000;
    cfg.rto_min_us = 100000;
    cfg.rto_max_us = 1000000;
    cfg.hb_interval_us = 200000;
    cfg.path_max_retrans = 2;
    cfg.assoc_max_retrans = 30;
    cfg.idata = (uint8_t)opt.idata;
    cfg.cmt = cfg.cmt_dac = (uint8_t)opt.cmt_dac;
    cfg.accept_incoming = (uint8_t)opt.server;
    for (int i = 0; i < nudp; i++)
        cfg.local_addrs[i] = udp[i].addr;
    cfg.n_local_addrs = nudp;
    cfg.on_data = on_data;
    cfg.on_event = on_event;
    sctpn_endpoint *ep = sctpn_endpoint_new(&cfg);
    if (!ep) {
        fprintf(stderr, "%s: FAILED: sctpn_endpoint_new\n", WHO);
        return 1;
    }

    struct iop_plan plan;
    st.cap = opt.max_size + 64;
    uint8_t *out = malloc(st.cap);
    if (!out || iop_plan_init(&plan, iop_origin(opt.server), &opt) < 0 ||
        iop_checker_init(&st.chk, iop_origin(!opt.server), &opt, opt.expect) < 0)
        die("out of memory");

    if (opt.server) {
        iop_report_port(&opt, udp[0].addr.udp_port);
    } else {
        struct sctpn_addr remote = {.ipv4 = parse_ipv4(opt.remote),
                                    .udp_port = (uint16_t)opt.remote_port};
        int rc = sctpn_connect(ep, IOP_SERVER_SCTP_PORT, &remote, 1, cfg.local_addrs, nudp,
                               iop_now_us(), &st.assoc);
        if (rc < 0)
            die_sctpn("sctpn_connect", rc);
    }

    struct pollfd pfd[IOP_MAX_ADDRS];
    for (int i = 0; i < nudp; i++)
        pfd[i] = (struct pollfd){.fd = udp[i].fd, .events = POLLIN};
    long sent = 0;
    int have_msg = 0, shutdown_called = 0;
    struct iop_msg m;
    struct sctpn_assoc_stats stats;
    int have_stats = 0;
    uint64_t t0 = iop_now_us();
    while (!st.failed && !st.closed && !st.chk.errors) {
        int progress = receive_all(ep);
        uint64_t now = iop_now_us();
        if (sctpn_next_deadline(ep) <= now)
            sctpn_handle_timeout(ep, now);
        if (opt.drop_addr && !dropping && st.chk.received >= opt.drop_after) {
            dropping = 1;
            iop_log(WHO, "dropping all traffic on %s from now on (%ld messages received)",
                    opt.drop_addr, st.chk.received);
        }
        /* the server sends once the association is up; the client may queue at once; a bounded
         * batch per turn so that packets keep flowing while the send buffer fills */
        for (int batch = 0; batch < 64 && st.assoc && sent < opt.count && !shutdown_called &&
                            !st.closed && !st.failed;
             batch++) {
            if (!have_msg) {
                iop_plan_next(&plan, sent, &m);
                iop_fill(&plan, &m, out);
                have_msg = 1;
            }
            struct iovec iov = {.iov_base = out, .iov_len = m.len};
            int rc = sctpn_send(ep, st.assoc, m.stream, m.ppid,
                                SCTPN_SEND_COPY | (m.unordered ? SCTPN_SEND_UNORDERED : 0), &iov,
                                1, NULL);
            if (rc == SCTPN_EAGAIN)
                break;
            if (rc < 0)
                die_sctpn("sctpn_send", rc);
            sent++;
            have_msg = 0;
            progress = 1;
        }
        if (opt.shutdown_self && !shutdown_called && st.up && sent == opt.count &&
            st.chk.received >= opt.expect) {
            if (sctpn_get_stats(ep, st.assoc, &stats) == 0)
                have_stats = 1;
            if (opt.verbose)
                iop_log(WHO, "all sent and received: starting the graceful shutdown");
            int rc = sctpn_shutdown(ep, st.assoc, iop_now_us());
            if (rc < 0)
                die_sctpn("sctpn_shutdown", rc);
            shutdown_called = 1;
        }
        if (!opt.shutdown_self && !have_stats && sent == opt.count &&
            st.chk.received >= opt.expect && sctpn_get_stats(ep, st.assoc, &stats) == 0)
            have_stats = 1;
        progress += transmit_all(ep);
        if (progress)
            continue;
        uint64_t dl = sctpn_next_deadline(ep);
        now = iop_now_us();
        int wait_ms = 20; /* at most: the watchdog and the drop trigger are checked each turn */
        if (dl <= now)
            wait_ms = 0;
        else if (dl - now < 20000)
            wait_ms = (int)((dl - now + 999) / 1000);
        if (poll(pfd, (nfds_t)nudp, wait_ms) < 0 && errno != EINTR)
            die("poll");
    }
    transmit_all(ep); /* the last SHUTDOWN-COMPLETE */
    double secs = (double)(iop_now_us() - t0) / 1e6;
    /* --linger: if that SHUTDOWN-COMPLETE was lost the peer resends its SHUTDOWN-ACK, which the
     * endpoint answers as out of the blue (RFC 9260 8.4) while it runs */
    uint64_t linger_end = iop_now_us() + (uint64_t)opt.linger_ms * 1000;
    while (opt.linger_ms && iop_now_us() < linger_end) {
        receive_all(ep);
        uint64_t now = iop_now_us();
        if (sctpn_next_deadline(ep) <= now)
            sctpn_handle_timeout(ep, now);
        transmit_all(ep);
        if (poll(pfd, (nfds_t)nudp, 10) < 0 && errno != EINTR)
            die("poll");
    }

    int rc = 0;
    if (st.failed || st.chk.errors)
        rc = 1;
    if (sent != opt.count) {
        fprintf(stderr, "%s: FAILED: only %ld of %ld messages sent before the end\n", WHO, sent,
                opt.count);
        rc = 1;
    }
    if (iop_checker_done(&st.chk, WHO) < 0)
        rc = 1;
    if (!st.closed) {
        fprintf(stderr, "%s: FAILED: the association did not close gracefully\n", WHO);
        rc = 1;
    }
    if (!opt.shutdown_self && !shutdown_called && !st.closed) {
        fprintf(stderr, "%s: FAILED: no SHUTDOWN from the peer\n", WHO);
        rc = 1;
    }
    if (opt.drop_addr && !dropping) {
        fprintf(stderr, "%s: FAILED: --drop-after %ld never reached: no path was killed\n", WHO,
                opt.drop_after);
        rc = 1;
    } else if (opt.drop_addr && dropped_packets == 0) {
        fprintf(stderr, "%s: FAILED: no datagram was dropped on %s: no path was killed\n", WHO,
                opt.drop_addr);
        rc = 1;
    }
    if (opt.cmt_dac && (dac_sacks == 0 || (have_stats && !stats.cmt_dac))) {
        fprintf(stderr, "%s: FAILED: CMT with DAC: %ld SACKs from the peer carried the DAC "
                "packet count, our engine's DAC %s\n", WHO, dac_sacks,
                have_stats && stats.cmt_dac ? "on" : "off");
        rc = 1;
    }
    if (opt.cmt_dac && have_stats && stats.npaths >= 2)
        printf("%s: CMT+DAC: %ld DAC-flagged SACKs from the peer; fast rtx %llu (spurious %llu); "
               "packets out path 0 %llu, path 1 %llu\n", WHO, dac_sacks,
               (unsigned long long)stats.fast_retransmits,
               (unsigned long long)stats.spurious_fast_retransmits,
               (unsigned long long)stats.paths[0].packets_out,
               (unsigned long long)stats.paths[1].packets_out);
    if (opt.loss > 0 && lost_packets == 0) {
        fprintf(stderr, "%s: FAILED: --loss given but no datagram was lost\n", WHO);
        rc = 1;
    }
    if (have_stats && opt.verbose) {
        iop_log(WHO, "stats: %d paths, idata %u, retransmitted %llu, fast rtx %llu, T3 %llu, "
                     "dup TSNs in %llu",
                stats.npaths, stats.idata, (unsigned long long)stats.retransmitted_chunks,
                (unsigned long long)stats.fast_retransmits, (unsigned long long)stats.t3_timeouts,
                (unsigned long long)stats.dup_tsns_received);
        for (int i = 0; i < stats.npaths && i < SCTPN_MAX_PATHS; i++) {
            char r[48], l[48];
            iop_log(WHO, "  path %d %s from %s state %d%s packets out %llu in %llu", i,
                    addr_str(&stats.paths[i].remote, r, sizeof r),
                    addr_str(&stats.paths[i].local, l, sizeof l), stats.paths[i].state,
                    stats.paths[i].primary ? " primary" : "",
                    (unsigned long long)stats.paths[i].packets_out,
                    (unsigned long long)stats.paths[i].packets_in);
        }
    }
    if (opt.idata && have_stats && !stats.idata) {
        fprintf(stderr, "%s: FAILED: I-DATA asked for on both sides but not negotiated\n", WHO);
        rc = 1;
    }
    if (rc == 0)
        printf("%s: OK sent %ld received %ld in %.2f s (%ld path events, %ld datagrams dropped, "
               "%ld lost; shutdown by %s)\n",
               WHO, sent, st.chk.received, secs, st.path_events, dropped_packets, lost_packets,
               opt.shutdown_self ? "us" : "peer");
    fflush(stdout);
    sctpn_endpoint_free(ep);
    for (int i = 0; i < MAX_OPEN; i++)
        free(st.open[i].buf);
    free(out);
    iop_plan_free(&plan);
    iop_checker_free(&st.chk);
    for (int i = 0; i < nudp; i++)
        close(udp[i].fd);
    if (trace_out != stderr)
        fclose(trace_out);
    return rc;
}
