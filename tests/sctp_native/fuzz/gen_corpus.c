/* gen_corpus.c — writes the seed corpus of the packet fuzz target
 * (tests/sctp_native/fuzz/corpus/): packets captured from the in-memory scenarios of
 * fuzz_harness.h (handshake, DATA and I-DATA with fragmentation and loss, SACKs with gap blocks,
 * heartbeats, shutdown, abort), each with the mode byte under which it is valid, plus
 * hand-built packets for the chunk types and parameters the engine never sends (ERROR, causes,
 * FORWARD-TSN, unknown chunk and parameter types with each action bit pair, bad lengths,
 * bundles).  Not run by the tests: run it by hand
 * (`gen_corpus DIR`) when the engine's wire behaviour changes, then commit the files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_harness.h"

static const char *outdir;
static int nfiles;

static void write_entry(const char *name, uint8_t mode, const uint8_t *pkt, size_t len)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", outdir, name);
    FILE *f = fopen(path, "wb");
    if (!f) {
        perror(path);
        exit(1);
    }
    fputc(mode, f);
    fwrite(pkt, 1, len, f);
    fclose(f);
    nfiles++;
}

static const char *chunk_name(uint8_t t)
{
    switch (t) {
    case 0: return "DATA";
    case 1: return "INIT";
    case 2: return "INITACK";
    case 3: return "SACK";
    case 4: return "HB";
    case 5: return "HBACK";
    case 6: return "ABORT";
    case 7: return "SHUTDOWN";
    case 8: return "SHUTDOWNACK";
    case 9: return "ERROR";
    case 10: return "COOKIEECHO";
    case 11: return "COOKIEACK";
    case 14: return "SHUTDOWNCOMPLETE";
    case 64: return "IDATA";
    case 192: return "FWDTSN";
    case 194: return "IFWDTSN";
    default: return "X";
    }
}

/* the chunk types of a packet, joined with '+' (at most 4 named) */
static void signature(const uint8_t *pkt, size_t len, char *out, size_t cap)
{
    size_t off = 12;
    out[0] = 0;
    int n = 0;
    while (off + 4 <= len && n < 4) {
        size_t cl = (size_t)pkt[off + 2] << 8 | pkt[off + 3];
        if (cl < 4)
            break;
        if (n)
            strncat(out, "+", cap - strlen(out) - 1);
        strncat(out, chunk_name(pkt[off]), cap - strlen(out) - 1);
        n++;
        off += (cl + 3) & ~(size_t)3;
    }
}

/* ---- captured packets: at most two of each (scenario, direction, signature) ---- */

struct seen {
    char key[128];
    int count;
};
static struct seen seen[512];
static int nseen;
static unsigned cur_state;
static const char *cur_phase = "";

static void capture(void *user, const struct fz_world *w, int from_server, const uint8_t *pkt,
                    size_t len)
{
    (void)user;
    char sig[96];
    signature(pkt, len, sig, sizeof sig);
    if (!sig[0])
        return;
    /* the receiver is the target; the state under which the packet makes sense */
    unsigned state = cur_state;
    int to_client = from_server; /* a packet sent by the server goes to the client */
    uint8_t mode = (uint8_t)(state | (to_client ? FZ_TARGET_CLIENT : 0) | FZ_FIX_CRC |
                             (w->idata ? FZ_IDATA : 0));
    /* handshake packets keep their own tags (the cookie carries them); later ones get the
     * association's tag fixed up so they reach the chunk handlers whatever the scenario */
    if (strncmp(sig, "INIT", 4) != 0 && strncmp(sig, "COOKIE", 6) != 0)
        mode |= FZ_FIX_HEADER;
    char key[128];
    snprintf(key, sizeof key, "s%u-%s-%s-%s%s", state, to_client ? "toclient" : "toserver", sig,
             cur_phase, w->idata ? "-idata" : "");
    int i;
    for (i = 0; i < nseen && strcmp(seen[i].key, key); i++)
        ;
    if (i == nseen) {
        if (nseen == (int)(sizeof seen / sizeof seen[0]))
            return;
        snprintf(seen[nseen].key, sizeof seen[nseen].key, "%s", key);
        seen[nseen++].count = 0;
    }
    if (seen[i].count >= 2)
        return;
    char name[160];
    snprintf(name, sizeof name, "%s-%d", key, seen[i].count++);
    write_entry(name, mode, pkt, len);
}

static void scenarios(void)
{
    fz_capture = capture;
    for (int idata = 0; idata <= 1; idata++) {
        struct fz_world w;
        /* the handshake: INIT to a fresh server, INIT-ACK to a client in COOKIE-WAIT, ... */
        cur_state = 0;
        cur_phase = "hs";
        if (fz_world_open(&w, 1, idata) < 0) {
            fprintf(stderr, "gen_corpus: the handshake scenario failed\n");
            exit(1);
        }
        /* data both ways with loss, heartbeats on idle paths, then a graceful shutdown */
        cur_state = 1;
        cur_phase = "data";
        fz_pump(&w, 1, 1000, 0);
        for (int round = 0; round < 3; round++) {
            uint8_t payload[5000];
            memset(payload, 0xa5, sizeof payload);
            for (int i = 0; i < 20; i++) {
                struct iovec iov = {.iov_base = payload, .iov_len = (size_t)(1 + i * 250)};
                sctpn_send(w.client.ep, w.client.assoc, (uint16_t)(i % 8), 7,
                           SCTPN_SEND_COPY | (i % 4 == 3 ? SCTPN_SEND_UNORDERED : 0) |
                               (i == 19 ? SCTPN_SEND_SACK_IMMEDIATELY : 0),
                           &iov, 1, NULL);
                sctpn_send(w.server.ep, w.server.assoc, (uint16_t)(i % 5), 9,
                           SCTPN_SEND_COPY, &iov, 1, NULL);
            }
            fz_pump(&w, 3, 1000, 4);
            fz_pump(&w, 10, 100000, 0);
        }
        cur_phase = "idle";
        fz_pump(&w, 6, 300000, 0); /* heartbeats */
        cur_state = 1;
        cur_phase = "close";
        sctpn_shutdown(w.client.ep, w.client.assoc, w.now);
        fz_pump(&w, 6, 1000, 0);
        fz_world_close(&w);

        /* an abort in the middle of a transfer */
        cur_state = 2;
        cur_phase = "abort";
        fz_capture = NULL;
        if (fz_world_open(&w, 2, idata) < 0)
            exit(1);
        fz_capture = capture;
        sctpn_abort(w.server.ep, w.server.assoc, w.now);
        fz_pump(&w, 2, 1000, 0);
        fz_world_close(&w);
    }
    fz_capture = NULL;
}

/* ---- hand-built packets ---- */

static uint8_t pkt[4096];
static size_t plen;

static void begin(void)
{
    memset(pkt, 0, 12);
    plen = 12;
}

static void chunk(uint8_t type, uint8_t flags, const uint8_t *val, size_t vlen)
{
    pkt[plen] = type;
    pkt[plen + 1] = flags;
    pkt[plen + 2] = (uint8_t)((vlen + 4) >> 8);
    pkt[plen + 3] = (uint8_t)(vlen + 4);
    memcpy(pkt + plen + 4, val, vlen);
    plen += 4 + vlen;
    while (plen % 4)
        pkt[plen++] = 0;
}

static void hand(const char *name, uint8_t mode)
{
    write_entry(name, (uint8_t)(mode | FZ_FIX_HEADER | FZ_FIX_CRC), pkt, plen);
}

static void handmade(void)
{
    static const uint8_t causes[] = {
        0, 1, 0, 8, 0, 3, 0, 0,                     /* invalid stream identifier */
        0, 3, 0, 8, 0, 0, 0x27, 0x10,               /* stale cookie */
        0, 6, 0, 8, 0xee, 0, 0, 4,                  /* unrecognized chunk type */
        0, 12, 0, 9, 'b', 'y', 'e', '!', '!', 0, 0, 0, /* user initiated abort */
        0, 13, 0, 4,                                /* protocol violation, empty */
        0x7f, 0xff, 0, 5, 1, 0, 0, 0,               /* unknown cause */
    };
    for (unsigned st = 1; st <= 2; st++) {
        char name[64];
        begin();
        chunk(9, 0, causes, sizeof causes);
        snprintf(name, sizeof name, "hand-s%u-ERROR-causes", st);
        hand(name, (uint8_t)st);
        begin();
        chunk(6, 0, causes, sizeof causes);
        snprintf(name, sizeof name, "hand-s%u-ABORT-causes", st);
        hand(name, (uint8_t)st);
    }
    /* FORWARD-TSN and I-FORWARD-TSN (PR-SCTP, not negotiated: must be handled safely) */
    static const uint8_t fwd[] = {0, 0, 0, 9, 0, 1, 0, 2, 0, 3, 0, 4};
    begin();
    chunk(192, 0, fwd, sizeof fwd);
    hand("hand-s2-FWDTSN", 2);
    static const uint8_t ifwd[] = {0, 0, 0, 9, 0, 1, 0, 1, 0, 0, 0, 2};
    begin();
    chunk(194, 0, ifwd, sizeof ifwd);
    hand("hand-s2-IFWDTSN-idata", 2 | FZ_IDATA);
    /* unknown chunk types with each pair of action bits, bundled behind a heartbeat */
    static const uint8_t hbinfo[] = {0, 1, 0, 12, 1, 2, 3, 4, 5, 6, 7, 8};
    static const uint8_t junk[] = {1, 2, 3, 4, 5, 6};
    static const uint8_t unknown[] = {0x3e, 0x7e, 0xbe, 0xfe};
    for (int i = 0; i < 4; i++) {
        char name[64];
        begin();
        chunk(unknown[i], 0xff, junk, sizeof junk);
        chunk(4, 0, hbinfo, sizeof hbinfo);
        snprintf(name, sizeof name, "hand-s1-UNKNOWN%02x+HB", unknown[i]);
        hand(name, 1);
    }
    /* extension chunks we do not speak: PAD, AUTH, ASCONF, ASCONF-ACK, RE-CONFIG, ECNE, CWR */
    static const uint8_t ext_types[] = {0x84, 0x0f, 0xc1, 0x80, 130, 12, 13};
    for (size_t i = 0; i < sizeof ext_types; i++) {
        char name[64];
        begin();
        chunk(ext_types[i], 0, fwd, sizeof fwd);
        snprintf(name, sizeof name, "hand-s2-EXT%02x", ext_types[i]);
        hand(name, 2);
    }
    /* a SACK with many gap blocks and duplicate TSNs, one with reversed and overlapping gaps */
    uint8_t sack[4 + 4 + 4 + 64 * 4 + 8 * 4];
    size_t o = 0;
    memset(sack, 0, sizeof sack);
    sack[o + 3] = 5; /* cum TSN (fixed up by nobody: the fuzzer mutates it) */
    o += 4;
    sack[o + 1] = 1; /* a_rwnd 64 KiB */
    o += 4;
    sack[o + 1] = 64; /* gap blocks */
    sack[o + 3] = 8;  /* dup TSNs */
    o += 4;
    for (int g = 0; g < 64; g++, o += 4) {
        sack[o + 1] = (uint8_t)(2 + 3 * g);
        sack[o + 3] = (uint8_t)(3 + 3 * g);
    }
    for (int d = 0; d < 8; d++, o += 4)
        sack[o + 3] = (uint8_t)d;
    begin();
    chunk(3, 0, sack, o);
    hand("hand-s2-SACK-64gaps-8dups", 2);
    static const uint8_t sack_bad[] = {0, 0, 0, 1, 0, 0, 0x10, 0, 0, 3, 0, 0,
                                       0, 9, 0, 4, 0, 2, 0, 7, 0, 5, 0, 5};
    begin();
    chunk(3, 0, sack_bad, sizeof sack_bad);
    hand("hand-s2-SACK-bad-gaps", 2);
    /* DATA with no user data (error cause 9), on a stream that does not exist, and a bundle */
    static const uint8_t data_empty[] = {0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    begin();
    chunk(0, 3, data_empty, sizeof data_empty);
    hand("hand-s1-DATA-empty", 1);
    static const uint8_t data_badstream[] = {0, 0, 0, 1, 0x7f, 0xff, 0, 0, 0, 0, 0, 0, 'x'};
    begin();
    chunk(0, 3, data_badstream, sizeof data_badstream);
    hand("hand-s1-DATA-badstream", 1);
    begin();
    chunk(0, 2, data_badstream, sizeof data_badstream);
    chunk(0, 0, data_badstream, sizeof data_badstream);
    chunk(0, 1, data_badstream, sizeof data_badstream);
    chunk(3, 0, sack_bad, sizeof sack_bad);
    hand("hand-s2-DATA-B+M+E+SACK", 2);
    /* an INIT with every parameter kind, including unknown ones with each action bit pair */
    uint8_t init[512];
    o = 0;
    static const uint8_t fixed[] = {0x11, 0x22, 0x33, 0x44, 0, 1, 0, 0, 0, 10, 0, 10,
                                    0xaa, 0xbb, 0xcc, 0xdd};
    memcpy(init, fixed, sizeof fixed);
    o = sizeof fixed;
    static const uint8_t params[] = {
        0, 5, 0, 8, 127, 0, 0, 2,                                   /* IPv4 */
        0, 6, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, /* IPv6 ::1 */
        0, 9, 0, 8, 0, 0, 0x13, 0x88,                               /* cookie preservative */
        0, 11, 0, 8, 'h', 'o', 's', 't',                            /* host name (deprecated) */
        0, 12, 0, 6, 0, 5, 0, 0,                                    /* supported address types */
        0x80, 0, 0, 4,                                              /* ECN capable */
        0x80, 0x08, 0, 7, 0x40, 0xc0, 0x82, 0,                      /* supported extensions */
        0xc0, 0, 0, 4,                                              /* forward TSN supported */
        0x80, 0x01, 0, 8, 0, 0, 0, 0,                               /* zero checksum */
        0x3f, 0xf0, 0, 5, 1, 0, 0, 0,                               /* unknown 00: stop */
        0x7f, 0xf0, 0, 5, 1, 0, 0, 0,                               /* unknown 01: stop+report */
        0xbf, 0xf0, 0, 5, 1, 0, 0, 0,                               /* unknown 10: skip */
        0xff, 0xf0, 0, 5, 1, 0, 0, 0,                               /* unknown 11: skip+report */
    };
    memcpy(init + o, params, sizeof params);
    o += sizeof params;
    begin();
    chunk(1, 0, init, o);
    hand("hand-s0-INIT-allparams", 0);
    /* the same parameters in an INIT-ACK without a cookie (missing mandatory parameter) */
    begin();
    chunk(2, 0, init, o);
    hand("hand-s0-INITACK-nocookie", FZ_TARGET_CLIENT);
    /* an INIT bundled with another chunk (forbidden), and a chunk whose length runs over */
    begin();
    chunk(1, 0, fixed, sizeof fixed);
    chunk(11, 0, NULL, 0);
    hand("hand-s0-INIT+COOKIEACK", 0);
    begin();
    chunk(4, 0, hbinfo, sizeof hbinfo);
    pkt[14] = 0x0f; /* length 0x0f.. beyond the packet */
    hand("hand-s1-HB-overlong", 1);
    /* SHUTDOWN with a cumulative TSN ahead of anything sent */
    static const uint8_t sd[] = {0x7f, 0xff, 0xff, 0xff};
    begin();
    chunk(7, 0, sd, sizeof sd);
    hand("hand-s2-SHUTDOWN-futuretsn", 2);
    /* several packets in one input: HEARTBEAT, DATA, SHUTDOWN-COMPLETE with the T bit */
    uint8_t multi[1024];
    size_t mo = 0;
    begin();
    chunk(4, 0, hbinfo, sizeof hbinfo);
    multi[mo++] = (uint8_t)(plen >> 8);
    multi[mo++] = (uint8_t)plen;
    memcpy(multi + mo, pkt, plen);
    mo += plen;
    begin();
    chunk(0, 3, data_badstream, sizeof data_badstream);
    multi[mo++] = (uint8_t)(plen >> 8);
    multi[mo++] = (uint8_t)plen;
    memcpy(multi + mo, pkt, plen);
    mo += plen;
    begin();
    chunk(14, 1, NULL, 0);
    multi[mo++] = (uint8_t)(plen >> 8);
    multi[mo++] = (uint8_t)plen;
    memcpy(multi + mo, pkt, plen);
    mo += plen;
    write_entry("hand-s1-multi-HB-DATA-SHUTDOWNCOMPLETE", 1 | FZ_MULTI | FZ_FIX_HEADER | FZ_FIX_CRC,
                multi, mo);
    /* a packet too short for the common header, and raw noise with a right CRC */
    write_entry("hand-s0-runt", FZ_FIX_CRC, (const uint8_t *)"\x13\x89\x13\x8a", 4);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s OUTDIR\n", argv[0]);
        return 2;
    }
    outdir = argv[1];
    scenarios();
    handmade();
    printf("gen_corpus: %d files in %s\n", nfiles, outdir);
    return 0;
}
