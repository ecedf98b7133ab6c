/* sctpn_transport.c — the native SCTP transport's function table (transport.h): tunables,
 * endpoint creation and business card, peers, lanes -> streams, payload limit, progress, busy,
 * statistics, finalize (graceful shutdown of every association) and add_peer (processes of other
 * jobs, sctpn_peers.c).  Selected with
 * SCTPMPI_SCTP_BACKEND=native (registry.c). */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "transport/local_addrs.h"
#include "transport/sctpn/sctpn_tp.h"

#define T nt_tunables
/* the variables that are a plain number or switch; the rest (presets, keywords) below */
static const struct sm_tunable table[] = {
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_STREAMS", struct T, streams, 10, 1, NT_MAX_STREAMS - 1),
    /* streams of their own for one-sided traffic, so that RMA segments and point-to-point
     * frames never wait behind each other on one stream */
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_RMA_STREAMS", struct T, rma_streams, 2, 1,
               NT_MAX_STREAMS - 2),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SOCKBUF", struct T, sndbuf, 4 << 20, 64 << 10, 256 << 20),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SCTP_RWND", struct T, rwnd, 4 << 20, 16 << 10, 1 << 30),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SCTP_UDPBUF", struct T, udpbuf, 4 << 20, 64 << 10, 256 << 20),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SCTP_MAX_PAYLOAD", struct T, max_payload, 0, 0, 16 << 20),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SCTP_ZCOPY_MIN", struct T, zcopy_min, 32 << 10, 0, 1 << 30),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_MTU", struct T, mtu, 0, 0, 65507),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_PORT", struct T, port, 0, 0, 65535),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_ASSOC_MAX_RETRANS", struct T, assoc_max_retrans, 10, 1,
               1000),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_SACK_DELAY", struct T, sack_delay_ms, 10, 0, 500),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_MAX_BURST", struct T, max_burst, 0, 0, 1 << 20),
    SM_TUNABLE(SM_TU_BOOL, "SCTPMPI_SCTP_INTERLEAVE", struct T, idata, 0, 0, 1),
    SM_TUNABLE(SM_TU_BOOL, "SCTPMPI_SCTP_STRIPE", struct T, stripe, 0, 0, 1),
    /* small frames are copied: nothing waits for their SACK, and the reply carries it (an I-bit
     * per frame doubled the packets of a ping-pong: 12.4 vs 5.5 us).  Zero-copy frames always
     * ask for an immediate SACK, since their send completes only then */
    SM_TUNABLE(SM_TU_BOOL, "SCTPMPI_SCTP_SACK_IMMEDIATELY", struct T, sack_immediately, 0, 0, 1),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SCTP_SACK_IMMEDIATELY_MAX", struct T, sack_imm_max, 16 << 10,
               0, 1 << 30),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_LINGER_MS", struct T, linger_ms, 2000, 0, 600000),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_WATCHDOG_US", struct T, watchdog_us, 2000, 0, 1000000),
};
#undef T

void nt_tunables_load(struct nt_tunables *tu, int local_ranks)
{
    (void)local_ranks;
    memset(tu, 0, sizeof *tu);
    sm_tunables_load(tu, table, sizeof table / sizeof table[0]);
    if (tu->streams + tu->rma_streams > NT_MAX_STREAMS - 1)
        tu->rma_streams = NT_MAX_STREAMS - 1 - tu->streams;
    /* failover presets: wan = RFC 9260's values, lan = the thesis's Table 6.1; each value can
     * be overridden on its own (docs/transport-sctp.md, "Failover") */
    /* without a preset: RTO.min 30 ms, not usrsctp's 200: a lost tail of a message has no
     * later packets to trigger fast retransmit, so it waits for the T3 timer; srtt + 4 rttvar
     * still sets the RTO on long paths (docs/sctp-native.md, "The MPI transport") */
    /* RTO.initial 300 ms, not RFC 9260's 1 s: until a path has an RTT sample (the handshake
     * gives the first), a lost INIT, INIT-ACK or first DATA waits RTO.initial, and connections
     * are set up lazily, inside the program's run.  On netlab at 1-2 % loss one such event in
     * the setup of 8 ranks turned a 0.15 s farm run into 1.0 s.  300 ms still covers round trips
     * up to about 250 ms without a spurious INIT, and a spurious INIT costs two packets (the
     * cookie makes the handshake idempotent); the timer doubles per retransmission as before. */
    /* Without a preset (SCTPMPI_SCTP_FAILOVER unset or "auto"): quick failover (RFC 7829 with
     * PF threshold 0), i.e. new data leaves a path at its first T3 or unanswered heartbeat,
     * while the path is declared failed, and the association aborted, only after the usual
     * Path.Max.Retrans / Association.Max.Retrans consecutive timeouts with RTO.max 5 s.  A
     * path whose smallest RTT sample is below 1 ms (a LAN) is also probed every second when
     * idle (not every 30 s) and while it is potentially failed or failed (not every backed-off
     * RTO).  A process descheduled for a while on a loaded node costs at most a
     * potentially-failed path (its heartbeat answer or a SACK restores it), never an abort
     * (docs/transport-sctp.md, "Failover defaults"). */
    int rto_i = 300, rto_lo = 30, rto_hi = 5000, hb = 30000, pmr = 5, pf = 0;
    int lan_hb = 1000;
    const char *fo = sm_env_str("SCTPMPI_SCTP_FAILOVER", NULL);
    if (fo && !strcasecmp(fo, "wan"))
        rto_i = 3000, rto_lo = 1000, rto_hi = 60000, hb = 30000, pmr = 5, pf = -1, lan_hb = 0;
    else if (fo && !strcasecmp(fo, "lan"))
        rto_i = 100, rto_lo = 20, rto_hi = 100, hb = 50, pmr = 2, pf = -1, lan_hb = 0;
    else if (fo && *fo && strcasecmp(fo, "auto"))
        SM_WARN("ignoring SCTPMPI_SCTP_FAILOVER=%s (expected auto, wan or lan)", fo);
    tu->rto_initial = (int)sm_env_int("SCTPMPI_SCTP_RTO_INITIAL", rto_i);
    tu->rto_min = (int)sm_env_int("SCTPMPI_SCTP_RTO_MIN", rto_lo);
    tu->rto_max = (int)sm_env_int("SCTPMPI_SCTP_RTO_MAX", rto_hi);
    if (tu->rto_min < 1)
        tu->rto_min = 1;
    if (tu->rto_max < tu->rto_min)
        tu->rto_max = tu->rto_min;
    tu->hb_interval = (int)sm_env_int("SCTPMPI_SCTP_HB_INTERVAL", hb);
    tu->path_max_retrans = (int)sm_env_int("SCTPMPI_SCTP_PATH_MAX_RETRANS", pmr);
    tu->pf_threshold = (int)sm_env_int("SCTPMPI_SCTP_PF_THRESHOLD", pf);
    tu->lan_hb_interval = (int)sm_env_int("SCTPMPI_SCTP_LAN_HB_INTERVAL", lan_hb);
    /* CMT: off, on (split fast retransmit + cwnd update), dac (on + delayed ack for CMT);
     * usrsctp's rpv1 / rpv2 / mptcp variants are not in the engine: nt_init refuses them */
    const char *cmt = sm_env_str("SCTPMPI_SCTP_CMT", "off");
    if (!cmt || !*cmt || !strcasecmp(cmt, "off") || !strcmp(cmt, "0"))
        tu->cmt = 0;
    else if (!strcasecmp(cmt, "on") || !strcmp(cmt, "1"))
        tu->cmt = 1;
    else if (!strcasecmp(cmt, "dac"))
        tu->cmt = tu->cmt_dac = 1;
    else
        snprintf(tu->cmt_unsupported, sizeof tu->cmt_unsupported, "%s", cmt);
    /* CRC32c: on, off (zero checksum, RFC 9653, where both ends agree) or auto = off exactly
     * when every local address is a loopback one (decided in nt_init once they are known:
     * such packets never leave the host's memory) */
    const char *crc = getenv("SCTPMPI_SCTP_CRC32C");
    tu->zero_checksum =
        !crc || !*crc || !strcmp(crc, "auto") ? -1 : !sm_env_bool("SCTPMPI_SCTP_CRC32C", 1);
    tu->gso = sm_offload_mode_env("SCTPMPI_SCTP_GSO");
    tu->gro = sm_offload_mode_env("SCTPMPI_SCTP_GRO");
    /* DATA payloads go to sendmmsg as iovecs into the queued messages instead of being copied
     * into each packet (the copy was three quarters of a bulk sender's instructions) */
    tu->tx_refs = sm_env_bool("SCTPMPI_SCTP_TX_GATHER", 1) ? NT_TX_REFS : 0;
    tu->debug = sm_env_bool("SCTPMPI_SCTP_DEBUG", sm_env_int("SCTPMPI_VERBOSE", 0) >= 2);
    /* congestion control (docs/sctp-native.md, "Congestion control") */
    const char *cc = sm_env_str("SCTPMPI_SCTP_CC", "auto");
    if (!cc || !*cc || !strcasecmp(cc, "auto"))
        tu->cc = SCTPN_CC_AUTO; /* bbr, but reno on loopback paths */
    else if (!strcasecmp(cc, "reno"))
        tu->cc = SCTPN_CC_RENO;
    else if (!strcasecmp(cc, "cubic"))
        tu->cc = SCTPN_CC_CUBIC;
    else if (!strcasecmp(cc, "bbr"))
        tu->cc = SCTPN_CC_BBR;
    else
        snprintf(tu->cc_bad, sizeof tu->cc_bad, "%s", cc);
}

static struct nt_transport *the_transport;

/* strong progress: drive the endpoint when the caller's thread has not for a tick (it is
 * computing); deliveries wait in the deferred queue for the caller's next progress() */
static void *watchdog_main(void *arg)
{
    struct nt_transport *t = arg;
    const uint64_t tick = (uint64_t)t->tu.watchdog_us;
    while (!atomic_load(&t->stop_watchdog)) {
        struct timespec ts = { (time_t)(tick / 1000000), (long)(tick % 1000000) * 1000 };
        nanosleep(&ts, NULL);
        if (nt_now_us() - atomic_load(&t->last_call_us) < tick)
            continue;
        if (pthread_mutex_trylock(&t->lock) != 0)
            continue;
        if (!atomic_load(&t->stop_watchdog)) {
            nt_drive(t, 0);
            t->watchdog_runs++;
        }
        pthread_mutex_unlock(&t->lock);
    }
    return NULL;
}

static void stop_watchdog(struct nt_transport *t)
{
    if (!t->watchdog_on)
        return;
    atomic_store(&t->stop_watchdog, 1);
    pthread_join(t->watchdog, NULL);
    t->watchdog_on = 0;
}

static void enter(struct nt_transport *t)
{
    pthread_mutex_lock(&t->lock);
    if (!t->in_drive) /* a send from an upcall inside the watchdog's drive is not the caller's */
        atomic_store(&t->last_call_us, nt_now_us());
}

static void leave(struct nt_transport *t)
{
    pthread_mutex_unlock(&t->lock);
}

static void destroy(struct nt_transport *t)
{
    if (!t)
        return;
    stop_watchdog(t);
    if (t->ep)
        sctpn_endpoint_free(t->ep);
    nt_peers_free(t);
    nt_udp_close(t);
    free(t->done_cookies);
    free(t->failed_ranks);
    pthread_mutex_destroy(&t->lock);
    free(t);
    the_transport = NULL;
}

static int nt_init(const struct sm_transport_args *a, struct sm_transport **out, char *card,
                   size_t cardlen)
{
    if (the_transport) {
        SM_ERR("sctpn: only one SCTP endpoint per process");
        return -1;
    }
    struct nt_transport *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    the_transport = t;
    pthread_mutexattr_t ma; /* recursive: upcalls inside progress() may call send() */
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&t->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    for (int i = 0; i < NT_MAX_ADDRS; i++)
        t->udp[i].fd = -1;
    nt_tunables_load(&t->tu, a->local_ranks);
    if (t->tu.cmt_unsupported[0]) {
        SM_ERR("SCTPMPI_SCTP_CMT=%s: the native SCTP engine does off, on and dac; usrsctp's "
               "rpv1, rpv2 and mptcp variants need SCTPMPI_SCTP_BACKEND=usrsctp",
               t->tu.cmt_unsupported);
        destroy(t);
        return -1;
    }
    if (t->tu.cc_bad[0]) {
        SM_ERR("SCTPMPI_SCTP_CC=%s: expected auto, reno, cubic or bbr", t->tu.cc_bad);
        destroy(t);
        return -1;
    }
    if (t->tu.stripe && t->tu.cmt) {
        SM_ERR("SCTPMPI_SCTP_STRIPE=1 and SCTPMPI_SCTP_CMT=on exclude each other: striping makes "
               "one single-homed association per rail (the engine spreads the data), CMT spreads "
               "one multihomed association's data over its paths; set one of them");
        destroy(t);
        return -1;
    }
    t->rank = a->rank;
    t->size = a->size;
    t->up = a->up;
    t->job_id = a->job_id;
    snprintf(t->secret, sizeof t->secret, "%s", a->secret ? a->secret : "");
    t->nstreams = t->tu.streams <= 1 ? 1 : t->tu.streams + 1 + t->tu.rma_streams;
    t->nlanes = t->nstreams;
    t->p2p_lanes = t->tu.streams <= 1 ? 1 : t->tu.streams + 1;
    size_t mp =
        t->tu.max_payload ? t->tu.max_payload : (256u << 10) + sizeof(struct sm_frame_hdr);
    if (mp > t->tu.sndbuf / 4)
        mp = t->tu.sndbuf / 4;
    if (mp < 4096 + sizeof(struct sm_frame_hdr))
        mp = 4096 + sizeof(struct sm_frame_hdr);
    t->max_payload = mp - sizeof(struct sm_frame_hdr);
    const char *drop = getenv("SCTPMPI_SCTP_TEST_DROP");
    t->tu_test_drop = drop ? atof(drop) : 0;
    t->tu_test_upcall_us = sm_env_int("SCTPMPI_SCTP_TEST_UPCALL_US", 0);
    t->drop_state =
        ((uint64_t)sm_env_int("SCTPMPI_SCTP_TEST_SEED", 1) ^ (uint64_t)a->rank) * 2654435761u + 1;
    char local[NT_MAX_ADDRS][INET_ADDRSTRLEN];
    const char *lp[NT_MAX_ADDRS];
    int nlocal = sm_local_addrs(a->addrs, a->naddrs, local, NT_MAX_ADDRS);
    for (int i = 0; i < nlocal; i++)
        lp[i] = local[i];
    if (nlocal < 1 || nt_udp_open(t, lp, nlocal)) {
        destroy(t);
        return -1;
    }
    if (t->tu.zero_checksum < 0) {
        t->tu.zero_checksum = 1;
        for (int i = 0; i < t->nudp; i++)
            if ((ntohl(t->udp[i].addr.sin_addr.s_addr) >> 24) != 127)
                t->tu.zero_checksum = 0;
    }
    t->nrails = 1;
    if (t->tu.stripe) {
        t->nrails = t->nudp < NT_MAX_RAILS ? t->nudp : NT_MAX_RAILS;
        if (t->nrails == 1)
            SM_WARN("SCTPMPI_SCTP_STRIPE=1 but one local address (SCTPMPI_SCTP_ADDRS / "
                    "SCTPMPI_ADDRS): one rail");
    }
    struct sctpn_config cfg;
    sctpn_config_defaults(&cfg);
    cfg.sctp_port = NT_SCTP_PORT;
    cfg.num_ostreams = (uint16_t)t->nstreams;
    cfg.max_instreams = NT_MAX_STREAMS;
    cfg.rwnd = (uint32_t)t->tu.rwnd;
    cfg.sndbuf = (uint32_t)t->tu.sndbuf;
    cfg.max_msg_size = (uint32_t)(t->max_payload + sizeof(struct sm_frame_hdr) + 4096);
    cfg.mtu = (uint16_t)(t->mtu > 65000 ? 65000 : t->mtu);
    cfg.rto_initial_us = (uint64_t)t->tu.rto_initial * 1000;
    cfg.rto_min_us = (uint64_t)t->tu.rto_min * 1000;
    cfg.rto_max_us = (uint64_t)t->tu.rto_max * 1000;
    cfg.hb_interval_us = (uint64_t)(t->tu.hb_interval > 0 ? t->tu.hb_interval : 0) * 1000;
    cfg.lan_rtt_us = 1000; /* a LAN: smallest RTT sample below 1 ms */
    cfg.lan_hb_interval_us =
        (uint64_t)(t->tu.lan_hb_interval > 0 ? t->tu.lan_hb_interval : 0) * 1000;
    cfg.sack_delay_us = (uint64_t)t->tu.sack_delay_ms * 1000;
    /* 0 = no burst limit (as with usrsctp): after an idle period, e.g. between ping-pong
     * messages, a limit of 4 packets per SACK makes every large message crawl out of slow start
     * again (netlab, 1% loss, 300 KB ping-pong: 11.6 vs 5.3 MB/s with the limit of 4) */
    cfg.max_burst = t->tu.max_burst > 0 ? (uint16_t)t->tu.max_burst : UINT16_MAX;
    cfg.path_max_retrans = (uint16_t)t->tu.path_max_retrans;
    cfg.assoc_max_retrans = (uint16_t)t->tu.assoc_max_retrans;
    cfg.pf_threshold =
        t->tu.pf_threshold >= 0 ? (uint16_t)t->tu.pf_threshold : (uint16_t)t->tu.path_max_retrans;
    cfg.idata = (uint8_t)t->tu.idata;
    cfg.cmt = (uint8_t)t->tu.cmt;
    cfg.cmt_dac = (uint8_t)t->tu.cmt_dac;
    cfg.zero_checksum = (uint8_t)t->tu.zero_checksum;
    cfg.tlp = (uint8_t)sm_env_bool("SCTPMPI_SCTP_TLP", 1); /* tail-loss probe (sctp-native.md) */
    cfg.rack = (uint8_t)sm_env_bool("SCTPMPI_SCTP_RACK", 1); /* time-based loss marking */
    /* first RTT sample from the handshake: a loss in the first flight of a lazily set up
     * association is repaired after ~3 RTT, not RTO.initial (1 s) */
    cfg.handshake_rtt = (uint8_t)sm_env_bool("SCTPMPI_SCTP_HANDSHAKE_RTT", 1);
    /* initial window in packets (0: RFC 9260's 3-4); 10 as Linux TCP's (RFC 6928) */
    long long iw = sm_env_int("SCTPMPI_SCTP_INIT_CWND", 10);
    cfg.init_cwnd_packets = (uint16_t)(iw < 0 ? 0 : iw > 1000 ? 1000 : iw);
    /* slow start: up to 2 MTU of growth per SACK, as Linux TCP's byte counting (RFC 3465
     * L = 2): with a SACK every other packet the window doubles per round trip instead of
     * growing 1.5x (a 128 KB message after an idle period: 5 round trips, TCP's 4) */
    long long abc = sm_env_int("SCTPMPI_SCTP_ABC_L", 2);
    cfg.abc_l = (uint16_t)(abc < 1 ? 1 : abc > 16 ? 16 : abc);
    /* slow start also grows a window that a message did not fill, up to twice the largest
     * flight (Linux): request/response traffic of 128 KB messages otherwise settled at a window
     * of about 70 packets and two round trips per message */
    cfg.ss_peak = (uint8_t)sm_env_bool("SCTPMPI_SCTP_SS_PEAK", 1);
    /* cwnd decay when idle: at most a halving per second of silence (RFC 9260 7.2.1 says per
     * RTO; with 200 ms, 128 KB ping-pongs at 40 ms RTT decayed their window between messages
     * and took 12 round trips each, TCP 3) */
    long long idle_ms = sm_env_int("SCTPMPI_SCTP_IDLE_CWND_MS", 1000);
    cfg.idle_decay_min_us = idle_ms > 0 ? (uint64_t)idle_ms * 1000 : 0;
    cfg.cc = (uint8_t)t->tu.cc;
    /* pacing bursts of up to 2 ms: nt_drive sleeps in poll() with millisecond resolution and
     * wakes late on a busy machine; with the engine's 1 ms a paced 1 MiB ping-pong at 2 ms RTT
     * (netlab, 1 Gbit/s, loaded 2-core machine) lost a third of its rate to late wakeups */
    cfg.pace_quantum_us = 2000;
    cfg.accept_incoming = 1;
    /* striped: no local address list, so INIT and INIT-ACK name none and every association
     * keeps the one address pair its handshake used (single-homed, one per rail) */
    for (int i = 0; !t->tu.stripe && i < t->nudp && i < SCTPN_MAX_PATHS; i++) {
        cfg.local_addrs[i].ipv4 = t->udp[i].addr.sin_addr.s_addr;
        cfg.local_addrs[i].udp_port = ntohs(t->udp[i].addr.sin_port);
        cfg.n_local_addrs = i + 1;
    }
    /* time accounting (SCTPMPI_TIMING=off|sum|sample:N; the engine checks the value) */
    const char *tm = sm_env_str("SCTPMPI_TIMING", "sum");
    cfg.timing = strcmp(tm, "off") && strcmp(tm, "0");
    cfg.timing_sample = !strncmp(tm, "sample:", 7) ? (uint32_t)atoi(tm + 7) : 0;
    cfg.on_data = nt_on_data;
    cfg.on_event = nt_on_event;
    cfg.user = t;
    t->ep = sctpn_endpoint_new(&cfg);
    if (!t->ep) {
        SM_ERR("sctpn: cannot create the SCTP endpoint");
        destroy(t);
        return -1;
    }
    /* card: sctpn:ADDR[,ADDR...]:PORT[:FLAGS], flags zc (zero checksum), rails (striped) */
    size_t off = (size_t)snprintf(card, cardlen, "sctpn:");
    for (int i = 0; i < t->nudp && off < cardlen; i++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &t->udp[i].addr.sin_addr, ip, sizeof ip);
        off += (size_t)snprintf(card + off, cardlen - off, "%s%s", i ? "," : "", ip);
    }
    if (off < cardlen)
        off += (size_t)snprintf(
            card + off, cardlen - off, ":%u%s%s%s", ntohs(t->udp[0].addr.sin_port),
            t->tu.zero_checksum || t->tu.stripe ? ":" : "", t->tu.zero_checksum ? "zc" : "",
            t->tu.stripe ? (t->tu.zero_checksum ? ",rails" : "rails") : "");
    if (off >= cardlen) {
        destroy(t);
        return -1;
    }
    *out = (struct sm_transport *)t;
    return 0;
}

static int nt_set_peers(struct sm_transport *handle, const char *const *cards)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    t->peers = calloc((size_t)t->size, sizeof *t->peers);
    if (!t->peers)
        return -1;
    t->npeers = t->cap_peers = t->size;
    for (int r = 0; r < t->size; r++) {
        if (nt_peer_init(t, r))
            return -1;
        if (r == t->rank)
            continue;
        int rc = nt_parse_card(t, r, cards[r]);
        if (rc == -2) {
            SM_ERR("sctpn: rank %d has SCTPMPI_SCTP_STRIPE=%d, rank %d has %d: every rank must "
                   "use the same setting",
                   r, !t->tu.stripe, t->rank, t->tu.stripe);
            return -1;
        }
        if (rc) {
            SM_ERR("sctpn: rank %d's business card '%s' is not a native SCTP card (every rank "
                   "must use the same SCTPMPI_SCTP_BACKEND)",
                   r, cards[r]);
            return -1;
        }
    }
    atomic_store(&t->last_call_us, nt_now_us());
    if (t->tu.watchdog_us > 0 && t->size > 1) {
        if (pthread_create(&t->watchdog, NULL, watchdog_main, t) == 0)
            t->watchdog_on = 1;
        else
            SM_WARN("sctpn: no watchdog thread: progress only inside MPI calls");
    }
    return 0;
}

static int nt_lanes(struct sm_transport *handle)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    return t->p2p_lanes;
}

/* ---- one-sided traffic (transport.h "One-sided traffic") ---- */
static int nt_rma_lanes(struct sm_transport *handle)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    return t->nstreams == 1 ? 1 : t->tu.rma_streams; /* single stream: all on stream 0 */
}

static void nt_lock(struct sm_transport *handle)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    pthread_mutex_lock(&t->lock);
}

static void nt_unlock(struct sm_transport *handle)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    pthread_mutex_unlock(&t->lock);
}

static size_t nt_max_payload(struct sm_transport *handle)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    return t->max_payload;
}

static int nt_send(struct sm_transport *handle, int peer, int lane, const struct iovec *iov,
                   int iovcnt, void *cookie)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    enter(t);
    int rc = nt_send_frame(t, peer, lane, iov, iovcnt, cookie);
    /* get the packets on the wire now (latency); inside a drive (a reply from the watchdog's
     * rma_frame upcall) the drive flushes when its input is handled */
    if (!t->in_progress && !t->in_drive)
        nt_flush_output(t);
    leave(t);
    return rc;
}

/* Replaying deliveries the watchdog queued holds the lock, and so keeps the watchdog away
 * from the sockets: the MPI engine's upcalls run, nothing is read, no SACK is sent.  A queue of
 * 100,000 small messages (a receiver that starts late) took 2-2.5 s of CPU to replay in one
 * call, 20-50 s of wall time on a loaded machine, and the sender's association died of
 * retransmissions exhausted (10 T3s from RTO.min 30 ms run out in about 18 s) while both
 * processes were alive.  So one progress() call replays for at most this long before it serves
 * the network (reads, runs the timers, sends the SACKs), and leaves the rest for the next
 * call (it returns at once while deliveries wait). */
#define NT_REPLAY_BUDGET_US 1000

static int nt_progress(struct sm_transport *handle, long timeout_us)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    enter(t);
    t->in_progress = 1;
    int n = t->dq_head != NULL;
    nt_replay_deferred(t, nt_now_us() + NT_REPLAY_BUDGET_US);
    nt_hand_over_deferred(t);
    if (n)
        timeout_us = 0; /* deliveries were waiting: do not block */
    /* nt_drive may block in poll() with the lock held: the watchdog then finds the lock
     * taken and leaves (the caller's thread handles what arrives itself) */
    n += nt_drive(t, timeout_us);
    n += nt_replay_deferred(t, nt_now_us() + NT_REPLAY_BUDGET_US);
    nt_hand_over_deferred(t);
    t->in_progress = 0;
    atomic_store(&t->last_call_us, nt_now_us());
    leave(t);
    return n;
}

static int nt_busy(struct sm_transport *handle)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    int busy = 0;
    enter(t);
    for (int r = 0; r < t->npeers && !busy; r++) {
        struct nt_peer *p = &t->peers[r];
        if (p->state == NT_FAILED)
            continue;
        if (p->q_frames)
            busy = 1;
        for (int k = 0; k < p->nrails && !busy; k++) {
            struct sctpn_assoc_stats st;
            if (p->tx[k] && sctpn_get_stats(t->ep, p->tx[k], &st) == 0 && st.bytes_queued)
                busy = 1;
        }
    }
    leave(t);
    return busy;
}

static int nt_peer_info(struct sm_transport *handle, int peer, char *buf, size_t len)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    if (peer < 0 || peer >= t->npeers || !t->peers)
        return -1;
    struct nt_peer *p = &t->peers[peer];
    static const char *const names[] = { "idle", "connecting", "up", "closed", "failed" };
    size_t off = (size_t)snprintf(buf, len, "native sctp, %s,", names[p->state]);
    if (t->nrails > 1 && off < len)
        off += (size_t)snprintf(buf + off, len - off, " %d rail(s),", p->nrails);
    for (int i = 0; i < p->naddrs && off < len; i++) {
        char ip[INET_ADDRSTRLEN];
        struct in_addr ia = { p->addrs[i].ipv4 };
        inet_ntop(AF_INET, &ia, ip, sizeof ip);
        off += (size_t)snprintf(buf + off, len - off, " %s:%u", ip, p->addrs[i].udp_port);
    }
    return 0;
}

static double ms(uint64_t us)
{
    return (double)us / 1000.0;
}

/* where the time went in the SCTP engine (sctpn.h struct sctpn_timing), one line per
 * association; bench/run-experiment parses it */
static void print_timing(struct nt_transport *t, FILE *f, int peer, sctpn_assoc_id id,
                         const struct sctpn_timing *x)
{
    if (!x->msgs_sent && !x->msgs_delivered)
        return;
    fprintf(f,
            "[rank %d] sctpn: rank %d assoc %u where the time went: sent %llu msgs, queued "
            "%.3f ms (cwnd %.3f, rwnd %.3f, span %.3f, burst %.3f, handshake %.3f, other %.3f); "
            "held with data queued: cwnd %.3f rwnd %.3f span %.3f burst %.3f handshake %.3f "
            "other %.3f ms; on the wire %llu "
            "chunks %.3f ms; repaired fast %llu %.3f ms, rack %llu %.3f ms, t3 %llu %.3f ms, "
            "tlp %llu %.3f ms, other %llu %.3f ms; received %llu msgs, held by stream order "
            "%llu msgs %.3f ms (max %.3f), held by another stream %llu, cross-stream drops "
            "%llu; send buffer full %llu times %.3f ms\n",
            t->rank, peer, id, (unsigned long long)x->msgs_sent, ms(x->queue_us),
            ms(x->queue_cwnd_us), ms(x->queue_rwnd_us), ms(x->queue_span_us),
            ms(x->queue_burst_us), ms(x->queue_handshake_us), ms(x->queue_other_us),
            ms(x->blocked_cwnd_us), ms(x->blocked_rwnd_us), ms(x->blocked_span_us),
            ms(x->blocked_burst_us), ms(x->blocked_handshake_us), ms(x->blocked_other_us),
            (unsigned long long)x->clean_chunks, ms(x->clean_us),
            (unsigned long long)x->rtx_chunks[SCTPN_RTX_FAST], ms(x->rtx_us[SCTPN_RTX_FAST]),
            (unsigned long long)x->rtx_chunks[SCTPN_RTX_RACK], ms(x->rtx_us[SCTPN_RTX_RACK]),
            (unsigned long long)x->rtx_chunks[SCTPN_RTX_T3], ms(x->rtx_us[SCTPN_RTX_T3]),
            (unsigned long long)x->rtx_chunks[SCTPN_RTX_TLP], ms(x->rtx_us[SCTPN_RTX_TLP]),
            (unsigned long long)x->rtx_chunks[SCTPN_RTX_OTHER], ms(x->rtx_us[SCTPN_RTX_OTHER]),
            (unsigned long long)x->msgs_delivered, (unsigned long long)x->held_msgs,
            ms(x->held_us), ms(x->held_max_us), (unsigned long long)x->held_foreign,
            (unsigned long long)x->xstream_drops, (unsigned long long)x->sndbuf_refusals,
            ms(x->sndbuf_full_us));
}

static void print_timing_samples(struct nt_transport *t, FILE *f)
{
    struct sctpn_timing_sample s[64];
    int n = sctpn_timing_samples(t->ep, s, 64);
    for (int i = 0; i < n; i++) {
        if (s[i].dir == 0)
            fprintf(f,
                    "[rank %d] sctpn: timing sample: assoc %u stream %u sent %u bytes: queued "
                    "%.3f ms (cwnd %.3f rwnd %.3f span %.3f), first send to acked %.3f ms, "
                    "%u retransmissions\n",
                    t->rank, s[i].assoc, s[i].stream, s[i].len, ms(s[i].queue_us),
                    ms(s[i].queue_cwnd_us), ms(s[i].queue_rwnd_us), ms(s[i].queue_span_us),
                    ms(s[i].acked_us), s[i].rtx);
        else
            fprintf(f,
                    "[rank %d] sctpn: timing sample: assoc %u stream %u received %u bytes: "
                    "held by stream order %.3f ms\n",
                    t->rank, s[i].assoc, s[i].stream, s[i].len, ms(s[i].held_us));
    }
}

static void print_stats(struct nt_transport *t, FILE *f)
{
    fprintf(f,
            "[rank %d] sctpn: datagrams in %llu out %llu, bad in %llu, lost out %llu, "
            "test-dropped %llu, rejected associations %llu, mtu %d, watchdog runs %llu, deferred "
            "deliveries %llu\n",
            t->rank, (unsigned long long)t->rx_datagrams, (unsigned long long)t->tx_datagrams,
            (unsigned long long)t->rx_bad, (unsigned long long)t->tx_lost,
            (unsigned long long)t->tx_dropped_test, (unsigned long long)t->rejected, t->mtu,
            (unsigned long long)t->watchdog_runs, (unsigned long long)t->deferred_total);
    for (int r = 0; t->nrails > 1 && r < t->npeers; r++) {
        struct nt_peer *p = &t->peers[r];
        for (int k = 0; k < p->nrails; k++)
            if (p->rail_tx_frames[k] || p->rail_rx_frames[k])
                fprintf(f,
                        "[rank %d] sctpn: rank %d rail %d: sent %llu frames %llu bytes, "
                        "received %llu frames %llu bytes\n",
                        t->rank, r, k, (unsigned long long)p->rail_tx_frames[k],
                        (unsigned long long)p->rail_tx_bytes[k],
                        (unsigned long long)p->rail_rx_frames[k],
                        (unsigned long long)p->rail_rx_bytes[k]);
    }
    nt_io_stats(t, f);
    for (int i = 0; i < t->nassocs; i++) {
        struct nt_assoc *a = &t->assocs[i];
        struct sctpn_assoc_stats st;
        if (a->rank < 0 || sctpn_get_stats(t->ep, a->id, &st) != 0)
            continue;
        struct nt_peer *p = &t->peers[a->rank];
        fprintf(
            f,
            "[rank %d] sctpn: rank %d assoc %u%s: frames out %llu (%llu zero-copy, %llu waited) "
            "in %llu, "
            "chunks out %llu in %llu, retransmitted %llu, fast retransmits %llu (spurious %llu), "
            "T3 timeouts %llu, dup TSNs %llu, idata %u cmt %u dac %u, tail-loss probes %llu "
            "(repaired %llu), RACK losses %llu, zero checksum %u, handshake retransmits %llu\n",
            t->rank, a->rank, a->id, nt_is_tx(p, a->id) ? " (ours)" : "",
            (unsigned long long)p->tx_frames, (unsigned long long)p->zcopy_frames,
            (unsigned long long)p->eagain, (unsigned long long)p->rx_frames,
            (unsigned long long)st.data_chunks_out, (unsigned long long)st.data_chunks_in,
            (unsigned long long)st.retransmitted_chunks, (unsigned long long)st.fast_retransmits,
            (unsigned long long)st.spurious_fast_retransmits, (unsigned long long)st.t3_timeouts,
            (unsigned long long)st.dup_tsns_received, st.idata, st.cmt, st.cmt_dac,
            (unsigned long long)st.tlp_probes, (unsigned long long)st.tlp_repairs,
            (unsigned long long)st.rack_losses, st.zero_checksum,
            (unsigned long long)st.handshake_retransmits);
        for (int k = 0; k < st.npaths; k++) {
            const struct sctpn_path_stats *ps = &st.paths[k];
            char ip[INET_ADDRSTRLEN];
            struct in_addr ia = { ps->remote.ipv4 };
            inet_ntop(AF_INET, &ia, ip, sizeof ip);
            fprintf(f,
                    "[rank %d] sctpn:   path %d to %s%s state %d cwnd %u srtt %lluus rto %lluus "
                    "packets out %llu in %llu retrans %llu\n",
                    t->rank, k, ip, ps->primary ? " primary" : "", ps->state, ps->cwnd,
                    (unsigned long long)ps->srtt_us, (unsigned long long)ps->rto_us,
                    (unsigned long long)ps->packets_out, (unsigned long long)ps->packets_in,
                    (unsigned long long)ps->retransmitted_chunks);
        }
        print_timing(t, f, a->rank, a->id, &st.timing);
    }
    print_timing_samples(t, f);
}

static void nt_stats(struct sm_transport *handle, void *file)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    enter(t);
    print_stats(t, file);
    leave(t);
}

static int all_down(struct nt_transport *t)
{
    for (int i = 0; i < t->nassocs; i++) {
        int s = sctpn_assoc_state(t->ep, t->assocs[i].id);
        if (s > SCTPN_CLOSED && !t->assocs[i].down)
            return 0;
    }
    return 1;
}

static int nt_finalize(struct sm_transport *handle)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    stop_watchdog(t);
    t->finalizing = 1;
    uint64_t now = nt_now_us();
    for (int r = 0; r < t->npeers; r++) {
        struct nt_peer *p = &t->peers[r];
        for (int k = 0; k < p->nrails; k++)
            if (p->tx[k] && p->state != NT_FAILED)
                sctpn_shutdown(t->ep, p->tx[k], now);
    }
    uint64_t end = now + (uint64_t)t->tu.linger_ms * 1000;
    while (!all_down(t) && nt_now_us() < end)
        nt_progress((struct sm_transport *)t, 10000);
    destroy(t);
    return 0;
}

static int nt_rails_op(struct sm_transport *handle, int peer, struct sm_rail_load *load, int max)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    if (t->nrails <= 1)
        return 1;
    enter(t);
    int n = nt_rails(t, peer, load, max);
    leave(t);
    return n;
}

/* ---- processes of other jobs (transport.h; sctpn_peers.c) ---- */
static int nt_add_peer_op(struct sm_transport *handle, int peer, uint32_t job, int rank,
                          const char *card, const char *secret)
{
    struct nt_transport *t = (struct nt_transport *)handle;
    enter(t);
    int rc = nt_add_peer(t, peer, job, rank, card, secret);
    leave(t);
    return rc;
}

const struct sm_transport_ops sm_transport_sctpn = {
    .name = "sctp",
    .init = nt_init,
    .set_peers = nt_set_peers,
    .lanes = nt_lanes,
    .max_payload = nt_max_payload,
    .send = nt_send,
    .progress = nt_progress,
    .busy = nt_busy,
    .peer_info = nt_peer_info,
    .stats = nt_stats,
    .finalize = nt_finalize,
    .rails = nt_rails_op,
    .rma_lanes = nt_rma_lanes,
    .lock = nt_lock,
    .unlock = nt_unlock,
    .add_peer = nt_add_peer_op,
};
