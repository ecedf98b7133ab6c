/* usct_tunables.c — the SCTPMPI_* environment variables of the SCTP transport and their
 * defaults (docs/transport-sctp.md lists them). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "transport/usrsctp/usct_internal.h"
#include "util/util.h"

#define T usct_tunables
/* the variables that are a plain number or switch; the rest (presets, keywords) below */
static const struct sm_tunable table[] = {
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_STREAMS", struct T, streams, 10, 1, USCT_MAX_STREAMS - 1),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SOCKBUF", struct T, sockbuf, 1 << 20, 16 << 10, 256 << 20),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SCTP_UDPBUF", struct T, udpbuf, 4 << 20, 64 << 10, 256 << 20),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SCTP_MAX_PAYLOAD", struct T, max_payload, 0, 0, 16 << 20),
    SM_TUNABLE(SM_TU_BOOL, "SCTPMPI_SCTP_NODELAY", struct T, nodelay, 1, 0, 1),
    SM_TUNABLE(SM_TU_BOOL, "SCTPMPI_SCTP_SACK_IMMEDIATELY", struct T, sack_immediately, 1, 0, 1),
    SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_SCTP_SACK_IMMEDIATELY_MAX", struct T, sack_immediately_max,
               16 << 10, 0, 1 << 30),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_SACK_DELAY", struct T, sack_delay_ms, -1, 0, 500),
    SM_TUNABLE(SM_TU_BOOL, "SCTPMPI_SCTP_CRC32C_HW", struct T, crc32c_hw, 1, 0, 1),
    /* usrsctp clamps cwnd to 4 packets over the flight size by default (cwnd-based max burst):
     * a 16 KiB message then needs 3 round trips on a 1500-byte path; 0 = no limit, like TCP */
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_MAX_BURST", struct T, max_burst, 0, 0, 1 << 20),
    /* 0: the bound interface's MTU - 28 (IPv4 + UDP), at most USCT_AUTO_MTU_MAX.
     * MTU >= 60000 stalls usrsctp (packets over 32 mbufs are dropped): cap below */
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_MTU", struct T, mtu, 0, 0, 59000),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_FRAGMENT", struct T, fragment, 0, 0, 65535),
    /* I-DATA (RFC 8260) is off by default: with it on, usrsctp 0.9.5 stalls for good when
     * packets are lost during a burst of small messages (tests/mpi/overtake.c, 2% drop, 1,000
     * messages: stuck streams, no retransmission; with it off the same run finishes in 0.6 s) */
    SM_TUNABLE(SM_TU_BOOL, "SCTPMPI_SCTP_INTERLEAVE", struct T, interleave, 0, 0, 1),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_PORT", struct T, port, 0, 0, 65535),
    /* on: never move the primary path ourselves (usct_paths.c says why we do by default) */
    SM_TUNABLE(SM_TU_BOOL, "SCTPMPI_SCTP_KEEP_PRIMARY", struct T, keep_primary, 0, 0, 1),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_ASSOC_MAX_RETRANS", struct T, assoc_max_retrans, -1, 1,
               1000),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_WATCHDOG_US", struct T, watchdog_us, 2000, 0, 1000000),
    /* the engine spins in progress(0) itself (SCTPMPI_SPIN_US); ours is for other callers */
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_SPIN_US", struct T, spin_us, 0, 0, 1000000),
    SM_TUNABLE(SM_TU_INT, "SCTPMPI_SCTP_LINGER_MS", struct T, linger_ms, 2000, 0, 600000),
};
#undef T

void usct_tunables_load(struct usct_tunables *tu, int local_ranks)
{
    memset(tu, 0, sizeof *tu);
    sm_tunables_load(tu, table, sizeof table / sizeof table[0]);
    const char *crc = getenv("SCTPMPI_SCTP_CRC32C"); /* "auto" (native's default): on here */
    tu->crc32c = crc && !strcmp(crc, "auto") ? 1 : sm_env_bool("SCTPMPI_SCTP_CRC32C", 1);
    /* failover presets (docs/transport-sctp.md, "Failover"): defaults the variables below
     * override one by one.  wan = RFC 4960's values; lan = Penoff's thesis, Table 6.1 */
    int rto_i = 1000, rto_lo = 200, rto_hi = 5000, hb = -1, pmr = -1;
    static const char *const presets[] = { "none", "wan", "lan", "auto" };
    tu->failover = sm_env_choice("SCTPMPI_SCTP_FAILOVER", presets, 4, 0);
    if (tu->failover == 3) /* auto: the defaults, as with the native engine */
        tu->failover = 0;
    if (tu->failover == 1)
        rto_i = 3000, rto_lo = 1000, rto_hi = 60000, hb = 30000, pmr = 5;
    else if (tu->failover == 2)
        rto_i = 100, rto_lo = 20, rto_hi = 100, hb = 50, pmr = 2;
    tu->rto_initial = (int)sm_env_range("SCTPMPI_SCTP_RTO_INITIAL", rto_i, 1, 600000);
    tu->rto_min = (int)sm_env_range("SCTPMPI_SCTP_RTO_MIN", rto_lo, 1, 600000);
    tu->rto_max = (int)sm_env_range("SCTPMPI_SCTP_RTO_MAX", rto_hi, 1, 600000);
    if (tu->rto_min > tu->rto_max)
        tu->rto_min = tu->rto_max;
    if (tu->rto_initial < tu->rto_min)
        tu->rto_initial = tu->rto_min;
    if (tu->rto_initial > tu->rto_max)
        tu->rto_initial = tu->rto_max;
    if (tu->mtu && tu->mtu < 576) /* 0: from the interface (table above) */
        tu->mtu = 576;
    tu->hb_interval_ms = (int)sm_env_range("SCTPMPI_SCTP_HB_INTERVAL", hb, 0, 3600000);
    tu->path_max_retrans = (int)sm_env_range("SCTPMPI_SCTP_PATH_MAX_RETRANS", pmr, 0, 1000);
    /* potentially-failed state (RFC 7829): a path with more than this many consecutive timeouts
     * takes no new data while it is probed; -1 = off (usrsctp's default, kept by the presets).
     * Without a preset 0, quick failover: data leaves a path at its first timeout, while the
     * path is declared failed and the association aborted no sooner than before */
    tu->pf_threshold =
        (int)sm_env_range("SCTPMPI_SCTP_PF_THRESHOLD", tu->failover ? -1 : 0, -1, 1000);
    if (tu->pf_threshold >= 0 && tu->path_max_retrans >= 0 &&
        tu->pf_threshold > tu->path_max_retrans) {
        usct_log("SCTPMPI_SCTP_PF_THRESHOLD=%d above the path's max retransmissions %d: off",
                 tu->pf_threshold, tu->path_max_retrans);
        tu->pf_threshold = -1;
    }
    const char *mh = sm_env_str("SCTPMPI_SCTP_MULTIHOME", NULL);
    tu->multihome = -1;
    if (mh && strcasecmp(mh, "auto"))
        tu->multihome = sm_env_bool("SCTPMPI_SCTP_MULTIHOME", -1);
    /* concurrent multipath transfer: usrsctp's SCTP_CMT_ON_OFF values; dac = base + DAC */
    const char *cmt = sm_env_str("SCTPMPI_SCTP_CMT", NULL);
    static const char *const cmt_names[] = { "off", "on", "rpv1", "rpv2", "mptcp" };
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
    static const char *const modes[] = { "caller", "thread" };
    tu->progress = sm_env_choice("SCTPMPI_SCTP_PROGRESS", modes, 2, 0) ? SCTP_PROGRESS_THREAD
                                                                       : SCTP_PROGRESS_CALLER;
    (void)local_ranks;
    const char *d = sm_env_str("SCTPMPI_SCTP_TEST_DROP", NULL);
    if (d) {
        char *end;
        double x = strtod(d, &end);
        if (*end || x < 0 || x > 100)
            usct_log("ignoring SCTPMPI_SCTP_TEST_DROP=%s (expected 0..100)", d);
        else
            tu->test_drop = x;
    }
    tu->test_seed = (unsigned)sm_env_range("SCTPMPI_SCTP_TEST_SEED", 1, 0, 0x7fffffff);
    /* on/1: association events; 2: also one line per frame sent and delivered */
    const char *dbg = sm_env_str("SCTPMPI_SCTP_DEBUG", NULL);
    tu->debug = dbg && !strcmp(dbg, "2") ? 2 : sm_env_bool("SCTPMPI_SCTP_DEBUG", 0);
    if (!tu->debug && sm_env_int("SCTPMPI_VERBOSE", 0) >= 2)
        tu->debug = 1;
}
