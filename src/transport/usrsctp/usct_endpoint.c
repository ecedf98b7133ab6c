/* usct_endpoint.c — the usrsctp stack and this rank's one SCTP endpoint: usrsctp_init_nothreads
 * over AF_CONN, sysctls (after init: init resets them), the one-to-many socket with its options
 * (streams, buffers, Nagle, RTO, I-DATA, MTU, SACK), usrsctp's timers, and the teardown
 * (graceful SHUTDOWN, then abort whatever lingers, then usrsctp_finish). */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport/usrsctp/usct_internal.h"

void usct_log(const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "sctpmpi sctp: %s\n", line);
}

uint64_t usct_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static int setopt(struct usct_transport *t, int level, int name, const void *v, socklen_t len,
                  const char *what)
{
    if (usrsctp_setsockopt(t->sock, level, name, v, len) == 0)
        return 0;
    usct_log("setsockopt %s failed: %s", what, strerror(errno));
    return -1;
}

static void apply_sysctls(const struct usct_tunables *tu)
{
    usrsctp_sysctl_set_sctp_sendspace((uint32_t)tu->sockbuf);
    usrsctp_sysctl_set_sctp_recvspace((uint32_t)tu->sockbuf);
    usrsctp_sysctl_set_sctp_rto_initial_default((uint32_t)tu->rto_initial);
    usrsctp_sysctl_set_sctp_rto_min_default((uint32_t)tu->rto_min);
    usrsctp_sysctl_set_sctp_rto_max_default((uint32_t)tu->rto_max);
    usrsctp_sysctl_set_sctp_init_rto_max_default((uint32_t)tu->rto_max);
    usrsctp_sysctl_set_sctp_enable_sack_immediately(1);
    usrsctp_sysctl_set_sctp_default_frag_interleave(2);
    usrsctp_sysctl_set_sctp_auto_asconf(0);
    usrsctp_sysctl_set_sctp_nr_outgoing_streams_default(USCT_MAX_STREAMS);
    if (tu->max_burst >= 0)
        usrsctp_sysctl_set_sctp_max_burst_default((uint32_t)tu->max_burst);
    if (tu->sack_delay_ms >= 0)
        usrsctp_sysctl_set_sctp_delayed_sack_time_default((uint32_t)tu->sack_delay_ms);
    if (tu->hb_interval_ms >= 0)
        usrsctp_sysctl_set_sctp_heartbeat_interval_default((uint32_t)tu->hb_interval_ms);
    if (tu->path_max_retrans >= 0)
        usrsctp_sysctl_set_sctp_path_rtx_max_default((uint32_t)tu->path_max_retrans);
    if (tu->assoc_max_retrans > 0)
        usrsctp_sysctl_set_sctp_assoc_rtx_max_default((uint32_t)tu->assoc_max_retrans);
    usrsctp_sysctl_set_sctp_cmt_on_off((uint32_t)tu->cmt);
    usrsctp_sysctl_set_sctp_cmt_use_dac((uint32_t)tu->cmt_dac);
    if (tu->pf_threshold >= 0)
        usrsctp_sysctl_set_sctp_path_pf_threshold((uint32_t)tu->pf_threshold);
}

static int apply_socket_options(struct usct_transport *t)
{
    const struct usct_tunables *tu = &t->tu;
    int rc = 0;
    int buf = (int)tu->sockbuf;
    rc |= setopt(t, SOL_SOCKET, SO_SNDBUF, &buf, sizeof buf, "SO_SNDBUF");
    rc |= setopt(t, SOL_SOCKET, SO_RCVBUF, &buf, sizeof buf, "SO_RCVBUF");
    int on = 1, nodelay = tu->nodelay;
    rc |= setopt(t, IPPROTO_SCTP, SCTP_NODELAY, &nodelay, sizeof nodelay, "SCTP_NODELAY");
    rc |= setopt(t, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof on, "SCTP_RECVRCVINFO");

    struct sctp_initmsg im = {
        .sinit_num_ostreams = (uint16_t)t->nstreams,
        .sinit_max_instreams = USCT_MAX_STREAMS,
        .sinit_max_attempts = 0,
        .sinit_max_init_timeo = (uint16_t)(tu->rto_max > 65535 ? 65535 : tu->rto_max),
    };
    rc |= setopt(t, IPPROTO_SCTP, SCTP_INITMSG, &im, sizeof im, "SCTP_INITMSG");

    struct sctp_rtoinfo rto = { .srto_assoc_id = SCTP_FUTURE_ASSOC,
                                .srto_initial = (uint32_t)tu->rto_initial,
                                .srto_max = (uint32_t)tu->rto_max,
                                .srto_min = (uint32_t)tu->rto_min };
    rc |= setopt(t, IPPROTO_SCTP, SCTP_RTOINFO, &rto, sizeof rto, "SCTP_RTOINFO");

    /* I-DATA (RFC 8260): without it a large message blocks small ones on other streams at the
     * receiver; it needs fragment interleave level 2, on both ends */
    int level = 2;
    rc |= setopt(t, IPPROTO_SCTP, SCTP_FRAGMENT_INTERLEAVE, &level, sizeof level,
                 "SCTP_FRAGMENT_INTERLEAVE");
    if (tu->interleave) {
        struct sctp_assoc_value av = { .assoc_id = SCTP_FUTURE_ASSOC, .assoc_value = 1 };
        rc |= setopt(t, IPPROTO_SCTP, SCTP_INTERLEAVING_SUPPORTED, &av, sizeof av,
                     "SCTP_INTERLEAVING_SUPPORTED");
    }
    if (tu->fragment > 0) {
        struct sctp_assoc_value av = { .assoc_id = SCTP_FUTURE_ASSOC,
                                       .assoc_value = (uint32_t)tu->fragment };
        rc |= setopt(t, IPPROTO_SCTP, SCTP_MAXSEG, &av, sizeof av, "SCTP_MAXSEG");
    }
    if (tu->max_burst >= 0) {
        struct sctp_assoc_value av = { .assoc_id = SCTP_FUTURE_ASSOC,
                                       .assoc_value = (uint32_t)tu->max_burst };
        rc |= setopt(t, IPPROTO_SCTP, SCTP_MAX_BURST, &av, sizeof av, "SCTP_MAX_BURST");
    }
    if (tu->sack_delay_ms >= 0) {
        struct sctp_sack_info si = { .sack_assoc_id = SCTP_FUTURE_ASSOC,
                                     .sack_delay = (uint32_t)tu->sack_delay_ms,
                                     .sack_freq = tu->sack_delay_ms ? 2 : 1 };
        rc |= setopt(t, IPPROTO_SCTP, SCTP_DELAYED_SACK, &si, sizeof si, "SCTP_DELAYED_SACK");
    }
    if (tu->assoc_max_retrans > 0) {
        struct sctp_assocparams ap;
        memset(&ap, 0, sizeof ap);
        ap.sasoc_assoc_id = SCTP_FUTURE_ASSOC;
        ap.sasoc_asocmaxrxt = (uint16_t)tu->assoc_max_retrans;
        rc |= setopt(t, IPPROTO_SCTP, SCTP_ASSOCINFO, &ap, sizeof ap, "SCTP_ASSOCINFO");
    }
    /* the AF_CONN "path" has no PMTU discovery: the MTU is ours to set.  In the multihomed mode
     * usrsctp's path MTU counts the IP header: tu->mtu + 20 = interface MTU - 8 leaves room for
     * the UDP header whether usrsctp subtracts it or not (netlab, 1500-byte rails: no drop_mtu) */
    struct sctp_paddrparams pp;
    memset(&pp, 0, sizeof pp);
    pp.spp_assoc_id = SCTP_FUTURE_ASSOC;
    pp.spp_pathmtu = (uint32_t)tu->mtu + (t->inet ? 20u : 0u);
    pp.spp_flags = SPP_PMTUD_DISABLE;
    if (tu->hb_interval_ms == 0)
        pp.spp_flags |= SPP_HB_DISABLE;
    else if (tu->hb_interval_ms > 0) {
        pp.spp_flags |= SPP_HB_ENABLE;
        pp.spp_hbinterval = (uint32_t)tu->hb_interval_ms;
    }
    if (tu->path_max_retrans >= 0)
        pp.spp_pathmaxrxt = (uint16_t)tu->path_max_retrans;
    rc |= setopt(t, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp, sizeof pp, "SCTP_PEER_ADDR_PARAMS");

    if (tu->cmt) { /* usrsctp refuses the option (ENOPROTOOPT) while the sysctl is 0 */
        struct sctp_assoc_value av = { .assoc_id = SCTP_FUTURE_ASSOC,
                                       .assoc_value = (uint32_t)tu->cmt };
        rc |= setopt(t, IPPROTO_SCTP, SCTP_CMT_ON_OFF, &av, sizeof av, "SCTP_CMT_ON_OFF");
    }
    if (tu->pf_threshold >= 0) {
        struct sm_paddrthlds th;
        memset(&th, 0, sizeof th);
        th.spt_assoc_id = SCTP_FUTURE_ASSOC;
        th.spt_pathmaxrxt = (uint16_t)(tu->path_max_retrans >= 0 ? tu->path_max_retrans : 5);
        th.spt_pathpfthld = (uint16_t)tu->pf_threshold;
        th.spt_pathcpthld = 0xffff;
        rc |=
            setopt(t, IPPROTO_SCTP, SCTP_PEER_ADDR_THLDS, &th, sizeof th, "SCTP_PEER_ADDR_THLDS");
    }
    static const uint16_t events[] = { SCTP_ASSOC_CHANGE, SCTP_PEER_ADDR_CHANGE,
                                       SCTP_SEND_FAILED_EVENT, SCTP_SHUTDOWN_EVENT,
                                       SCTP_REMOTE_ERROR };
    for (size_t i = 0; i < sizeof events / sizeof events[0]; i++) {
        struct sctp_event ev = { .se_assoc_id = SCTP_FUTURE_ASSOC,
                                 .se_type = events[i],
                                 .se_on = 1 };
        rc |= setopt(t, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof ev, "SCTP_EVENT");
    }
    return rc ? -1 : 0;
}

int usct_endpoint_open(struct usct_transport *t)
{
    if (t->inet) /* multihomed: usrsctp's UDP socket and threads (usct_inet.c has the why) */
        usrsctp_init(t->udp_port, NULL, NULL);
    else /* no usrsctp threads nor UDP socket: we own I/O (usct_udp.c) and drive timers */
        usrsctp_init_nothreads(0, usct_udp_conn_output, NULL);
    apply_sysctls(&t->tu);
    t->last_timer_ms = usct_now_ms();
    if (t->inet)
        t->sock =
            usrsctp_socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP, usct_inet_callback, NULL, 0, t);
    else
        t->sock =
            usrsctp_socket(AF_CONN, SOCK_SEQPACKET, IPPROTO_SCTP, usct_recv_callback, NULL, 0, t);
    if (!t->sock) {
        usct_log("usrsctp_socket failed: %s", strerror(errno));
        return -1;
    }
    usrsctp_set_non_blocking(t->sock, 1);
    if (apply_socket_options(t) < 0)
        return -1;
    if (t->inet) {
        if (usct_inet_bind(t) < 0)
            return -1;
    } else {
        struct sockaddr_conn sc;
        memset(&sc, 0, sizeof sc);
        sc.sconn_family = AF_CONN;
        sc.sconn_port = htons(USCT_SCTP_PORT);
        sc.sconn_addr = NULL; /* every registered AF_CONN address (one per peer) */
        if (usrsctp_bind(t->sock, (struct sockaddr *)&sc, sizeof sc) < 0) {
            usct_log("usrsctp_bind failed: %s", strerror(errno));
            return -1;
        }
    }
    /* without listen() incoming INITs are dropped */
    if (usrsctp_listen(t->sock, 1) < 0) {
        usct_log("usrsctp_listen failed: %s", strerror(errno));
        return -1;
    }
    return 0;
}

void usct_endpoint_timers(struct usct_transport *t)
{
    if (t->inet) /* usrsctp's timer thread */
        return;
    uint64_t now = usct_now_ms();
    if (now > t->last_timer_ms) {
        usrsctp_handle_timers((uint32_t)(now - t->last_timer_ms));
        t->last_timer_ms = now;
    }
}

static int associations_open(struct usct_transport *t)
{
    int n = 0;
    for (int r = 0; r < t->size; r++)
        if (r != t->rank &&
            (t->peers[r].state == SCTP_PEER_UP || t->peers[r].state == SCTP_PEER_CONNECTING))
            n++;
    return n;
}

void usct_endpoint_close(struct usct_transport *t)
{
    if (!t->sock)
        return;
    t->finalizing = 1;
    /* 1. graceful SHUTDOWN of every association (peers see SHUTDOWN_EVENT, not a failure) */
    pthread_mutex_lock(&t->stack_lock);
    for (int r = 0; t->peers && r < t->size; r++) {
        struct usct_peer *p = &t->peers[r];
        if (r == t->rank || (p->state != SCTP_PEER_UP && p->state != SCTP_PEER_CONNECTING))
            continue;
        struct sctp_sndinfo si;
        memset(&si, 0, sizeof si);
        si.snd_flags = SCTP_EOF;
        si.snd_assoc_id = p->assoc_id;
        union sctp_sockstore dest;
        usct_assoc_fill_dest(p, &dest);
        static const char none = 0; /* usrsctp rejects a NULL buffer even for 0 bytes */
        if (usrsctp_sendv(t->sock, &none, 0, &dest.sa, 1, &si, sizeof si, SCTP_SENDV_SNDINFO, 0) <
                0 &&
            t->tu.debug)
            usct_log("rank %d: SHUTDOWN to rank %d: %s", t->rank, r, strerror(errno));
    }
    usct_udp_flush(t);
    pthread_mutex_unlock(&t->stack_lock);
    /* drive the handshakes without upcalls: the engine is done (job-wide barrier passed) */
    uint64_t deadline = usct_now_ms() + (uint64_t)t->tu.linger_ms;
    while (t->peers && associations_open(t) > 0 && usct_now_ms() < deadline) {
        struct pollfd pfd[USCT_MAX_ADDRS];
        for (int i = 0; i < t->nudp; i++)
            pfd[i] = (struct pollfd){ .fd = t->udp[i].fd, .events = POLLIN };
        poll(pfd, (nfds_t)t->nudp, 5);
        pthread_mutex_lock(&t->stack_lock);
        usct_progress_step_locked(t);
        struct usct_arrival *late = t->arr_head;
        t->arr_head = t->arr_tail = NULL;
        t->arr_bytes = 0;
        pthread_mutex_unlock(&t->stack_lock);
        usct_recv_free_list(late);
    }

    /* 2. abort whatever lingers (usrsctp_finish fails while associations linger) */
    pthread_mutex_lock(&t->stack_lock);
    struct linger l = { .l_onoff = 1, .l_linger = 0 };
    usrsctp_setsockopt(t->sock, SOL_SOCKET, SO_LINGER, &l, sizeof l);
    usrsctp_close(t->sock);
    t->sock = NULL;
    usct_udp_flush(t);
    for (int r = 0; t->peers && !t->inet && r < t->size; r++)
        usrsctp_deregister_address(&t->peers[r]);
    int tries = 0;
    while (usrsctp_finish() != 0 && tries++ < 300) {
        pthread_mutex_unlock(&t->stack_lock);
        usleep(10000);
        pthread_mutex_lock(&t->stack_lock);
        usct_endpoint_timers(t);
        usct_udp_flush(t);
    }
    if (t->inet) /* what usrsctp's threads queued until they stopped */
        usct_inet_drain(t);
    if (tries > 300)
        usct_log("rank %d: usrsctp_finish still failing after 3 s", t->rank);
    pthread_mutex_unlock(&t->stack_lock);
}
