/* usct_tunables.c — the SCTPMPI_* environment variables of the SCTP transport and their
 * defaults (docs/transport-sctp.md lists them). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/usrsctp/usct_internal.h"

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return (v && *v) ? v : NULL;
}

static long env_long(const char *name, long dflt, long lo, long hi)
{
    const char *v = env(name);
    if (!v)
        return dflt;
    char *end;
    long x = strtol(v, &end, 0);
    if (*end == 'k' || *end == 'K')
        x <<= 10, end++;
    else if (*end == 'm' || *end == 'M')
        x <<= 20, end++;
    if (*end || x < lo || x > hi) {
        usct_log("ignoring %s=%s (expected %ld..%ld)", name, v, lo, hi);
        return dflt;
    }
    return x;
}

static int env_bool(const char *name, int dflt)
{
    const char *v = env(name);
    if (!v)
        return dflt;
    if (!strcasecmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "yes") ||
        !strcasecmp(v, "true"))
        return 1;
    if (!strcasecmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
        !strcasecmp(v, "false"))
        return 0;
    usct_log("ignoring %s=%s (expected on/off)", name, v);
    return dflt;
}

void usct_tunables_load(struct usct_tunables *tu, int local_ranks)
{
    memset(tu, 0, sizeof *tu);
    tu->streams = (int)env_long("SCTPMPI_SCTP_STREAMS", 10, 1, USCT_MAX_STREAMS - 1);
    tu->sockbuf = (size_t)env_long("SCTPMPI_SOCKBUF", 1 << 20, 16 << 10, 256 << 20);
    tu->udpbuf = (size_t)env_long("SCTPMPI_SCTP_UDPBUF", 4 << 20, 64 << 10, 256 << 20);
    tu->max_payload = (size_t)env_long("SCTPMPI_SCTP_MAX_PAYLOAD", 0, 0, 16 << 20);
    tu->nodelay = env_bool("SCTPMPI_SCTP_NODELAY", 1);
    tu->sack_immediately = env_bool("SCTPMPI_SCTP_SACK_IMMEDIATELY", 1);
    tu->sack_immediately_max =
        (size_t)env_long("SCTPMPI_SCTP_SACK_IMMEDIATELY_MAX", 16 << 10, 0, 1 << 30);
    tu->sack_delay_ms = (int)env_long("SCTPMPI_SCTP_SACK_DELAY", -1, 0, 500);
    const char *crc = getenv("SCTPMPI_SCTP_CRC32C"); /* "auto" (native's default): on here */
    tu->crc32c = crc && !strcmp(crc, "auto") ? 1 : env_bool("SCTPMPI_SCTP_CRC32C", 1);
    tu->crc32c_hw = env_bool("SCTPMPI_SCTP_CRC32C_HW", 1);
    /* failover presets (docs/transport-sctp.md, "Failover"): defaults the variables below
     * override one by one.  wan = RFC 4960's values; lan = Penoff's thesis, Table 6.1 */
    int rto_i = 1000, rto_lo = 200, rto_hi = 5000, hb = -1, pmr = -1;
    const char *fo = env("SCTPMPI_SCTP_FAILOVER");
    if (fo && !strcasecmp(fo, "wan")) {
        tu->failover = 1;
        rto_i = 3000, rto_lo = 1000, rto_hi = 60000, hb = 30000, pmr = 5;
    } else if (fo && !strcasecmp(fo, "lan")) {
        tu->failover = 2;
        rto_i = 100, rto_lo = 20, rto_hi = 100, hb = 50, pmr = 2;
    } else if (fo) {
        usct_log("ignoring SCTPMPI_SCTP_FAILOVER=%s (expected wan or lan)", fo);
    }
    tu->rto_initial = (int)env_long("SCTPMPI_SCTP_RTO_INITIAL", rto_i, 1, 600000);
    tu->rto_min = (int)env_long("SCTPMPI_SCTP_RTO_MIN", rto_lo, 1, 600000);
    tu->rto_max = (int)env_long("SCTPMPI_SCTP_RTO_MAX", rto_hi, 1, 600000);
    if (tu->rto_min > tu->rto_max)
        tu->rto_min = tu->rto_max;
    if (tu->rto_initial < tu->rto_min)
        tu->rto_initial = tu->rto_min;
    if (tu->rto_initial > tu->rto_max)
        tu->rto_initial = tu->rto_max;
    /* usrsctp clamps cwnd to 4 packets over the flight size by default (cwnd-based max burst):
     * a 16 KiB message then needs 3 round trips on a 1500-byte path; 0 = no limit, like TCP */
    tu->max_burst = (int)env_long("SCTPMPI_SCTP_MAX_BURST", 0, 0, 1 << 20);
    /* 0: the bound interface's MTU - 28 (IPv4 + UDP), at most USCT_AUTO_MTU_MAX.
     * MTU >= 60000 stalls usrsctp (packets over 32 mbufs are dropped): cap below */
    tu->mtu = (int)env_long("SCTPMPI_SCTP_MTU", 0, 0, 59000);
    if (tu->mtu && tu->mtu < 576)
        tu->mtu = 576;
    tu->fragment = (int)env_long("SCTPMPI_SCTP_FRAGMENT", 0, 0, 65535);
    /* I-DATA (RFC 8260) is off by default: with it on, usrsctp 0.9.5 stalls for good when packets
     * are lost during a burst of small messages (tests/mpi/overtake.c, 2% drop, 1,000 messages:
     * stuck streams, no retransmission; with it off the same run finishes in 0.6 s). */
    tu->interleave = env_bool("SCTPMPI_SCTP_INTERLEAVE", 0);
    tu->port = (int)env_long("SCTPMPI_SCTP_PORT", 0, 0, 65535);
    tu->hb_interval_ms = (int)env_long("SCTPMPI_SCTP_HB_INTERVAL", hb, 0, 3600000);
    tu->path_max_retrans = (int)env_long("SCTPMPI_SCTP_PATH_MAX_RETRANS", pmr, 0, 1000);
    /* potentially-failed state (RFC 7829): a path with more than this many consecutive timeouts
     * takes no new data while it is probed; -1 = off (usrsctp's default) */
    tu->pf_threshold = (int)env_long("SCTPMPI_SCTP_PF_THRESHOLD", -1, 0, 1000);
    if (tu->pf_threshold >= 0 && tu->path_max_retrans >= 0 &&
        tu->pf_threshold > tu->path_max_retrans) {
        usct_log("SCTPMPI_SCTP_PF_THRESHOLD=%d above the path's max retransmissions %d: off",
                 tu->pf_threshold, tu->path_max_retrans);
        tu->pf_threshold = -1;
    }
    /* on: never move the primary path ourselves (usct_paths.c says why we do by default) */
    tu->keep_primary = env_bool("SCTPMPI_SCTP_KEEP_PRIMARY", 0);
    const char *mh = env("SCTPMPI_SCTP_MULTIHOME");
    tu->multihome = -1;
    if (mh && strcasecmp(mh, "auto"))
        tu->multihome = env_bool("SCTPMPI_SCTP_MULTIHOME", -1);
    /* concurrent multipath transfer: usrsctp's SCTP_CMT_ON_OFF values; dac = base + DAC */
    const char *cmt = env("SCTPMPI_SCTP_CMT");
    static const char *const cmt_names[] = {"off", "on", "rpv1", "rpv2", "mptcp"};
    tu->cmt = 0;
    if (cmt) {
        int found = 0;
        for (int i = 0; i < 5; i++)
            if (!strcasecmp(cmt, cmt_names[i]))
                tu->cmt = i, found = 1;
        if (!strcasecmp(cmt, "dac"))
            tu->cmt = 1, tu->cmt_dac = 1, found = 1;
        else if (!strcasecmp(cmt, "0") || !strcasecmp(cmt, "1"))
            tu->cmt = cmt[0] - '0', found = 1;
        if (!found)
            usct_log("ignoring SCTPMPI_SCTP_CMT=%s (expected off, on, rpv1, rpv2, dac or mptcp)",
                     cmt);
    }
    tu->assoc_max_retrans = (int)env_long("SCTPMPI_SCTP_ASSOC_MAX_RETRANS", -1, 1, 1000);
    const char *pm = env("SCTPMPI_SCTP_PROGRESS");
    tu->progress = (pm && !strcasecmp(pm, "thread")) ? SCTP_PROGRESS_THREAD : SCTP_PROGRESS_CALLER;
    if (pm && strcasecmp(pm, "thread") && strcasecmp(pm, "caller"))
        usct_log("ignoring SCTPMPI_SCTP_PROGRESS=%s (expected caller or thread)", pm);
    tu->watchdog_us = (int)env_long("SCTPMPI_SCTP_WATCHDOG_US", 2000, 0, 1000000);
    /* the engine spins in progress(0) itself (SCTPMPI_SPIN_US); ours is for other callers */
    (void)local_ranks;
    tu->spin_us = (int)env_long("SCTPMPI_SCTP_SPIN_US", 0, 0, 1000000);
    tu->linger_ms = (int)env_long("SCTPMPI_SCTP_LINGER_MS", 2000, 0, 600000);
    const char *d = env("SCTPMPI_SCTP_TEST_DROP");
    if (d) {
        char *end;
        double x = strtod(d, &end);
        if (*end || x < 0 || x > 100)
            usct_log("ignoring SCTPMPI_SCTP_TEST_DROP=%s (expected 0..100)", d);
        else
            tu->test_drop = x;
    }
    tu->test_seed = (unsigned)env_long("SCTPMPI_SCTP_TEST_SEED", 1, 0, 0x7fffffff);
    /* on/1: association events; 2: also one line per frame sent and delivered */
    const char *dbg = env("SCTPMPI_SCTP_DEBUG");
    tu->debug = dbg && !strcmp(dbg, "2") ? 2 : env_bool("SCTPMPI_SCTP_DEBUG", 0);
    const char *verbose = env("SCTPMPI_VERBOSE");
    if (!tu->debug && verbose && atoi(verbose) >= 2)
        tu->debug = 1;
}
