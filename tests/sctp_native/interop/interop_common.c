/* interop_common.c — the interop peers' shared parts: command line, message plan and payload
 * pattern, the exactly-once / in-order / intact checker, the watchdog. See interop_common.h. */
#include "interop_common.h"

#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define IOP_MAGIC 0x494f504du /* "IOPM" */

static void usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s --server|--client [options]\n"
            "  --local ADDR        local IPv4 address (repeat for multihoming; default 127.0.0.1)\n"
            "  --port N            local UDP port (default 0: any; a server prints PORT n)\n"
            "  --port-file FILE    server: also write the UDP port into FILE when ready\n"
            "  --remote ADDR       client: the server's address\n"
            "  --remote-port N     client: the server's UDP port\n"
            "  --streams N         outbound streams (1..%d, default 10)\n"
            "  --count N           messages to send (default 1000)\n"
            "  --expect N          messages to receive (default: --count)\n"
            "  --max-size N        largest message in bytes (>= %d, default 9000)\n"
            "  --unordered none|all|mixed   (default none)\n"
            "  --idata             negotiate I-DATA (RFC 8260)\n"
            "  --cmt-dac           concurrent multipath transfer with delayed ack for CMT\n"
            "  --shutdown self|peer  which side starts the graceful shutdown (default: client)\n"
            "  --timeout S         give up (exit 3) after S seconds (default 30)\n"
            "  --linger MS         keep the stack running MS ms after the close, to answer a\n"
            "                      retransmitted SHUTDOWN-ACK when our SHUTDOWN-COMPLETE was lost\n"
            "  --drop-addr ADDR --drop-after N  drop all traffic on local ADDR once N\n"
            "                      messages have been received\n"
            "  --loss PERCENT      drop this share of all datagrams, both ways (native_peer)\n"
            "  --dump-dir DIR      save a few received packets of each chunk type (fuzz corpus)\n"
            "  --trace             print a line per packet sent and received (native_peer)\n"
            "  --trace-file FILE   the same into FILE\n"
            "  -v                  verbose\n",
            prog, IOP_MAX_STREAMS, IOP_HEADER_BYTES);
    exit(2);
}

static long number(const char *s, long lo, long hi, const char *what, const char *prog)
{
    char *end;
    long v = strtol(s ? s : "", &end, 10);
    if (!s || !*s || *end || v < lo || v > hi) {
        fprintf(stderr, "%s: bad %s '%s' (want %ld..%ld)\n", prog, what, s ? s : "", lo, hi);
        usage(prog);
    }
    return v;
}

void iop_parse(struct iop_options *o, int argc, char **argv, const char *prog)
{
    memset(o, 0, sizeof *o);
    o->server = -1;
    o->streams = 10;
    o->count = 1000;
    o->expect = -1;
    o->max_size = 9000;
    o->timeout_s = 30;
    o->drop_after = -1;
    int shutdown_set = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define NEEDS_VALUE                                                                                \
    do {                                                                                           \
        if (!v) {                                                                                  \
            fprintf(stderr, "%s: %s needs a value\n", prog, a);                                    \
            usage(prog);                                                                           \
        }                                                                                          \
        i++;                                                                                       \
    } while (0)
        if (!strcmp(a, "--server"))
            o->server = 1;
        else if (!strcmp(a, "--client"))
            o->server = 0;
        else if (!strcmp(a, "--local")) {
            NEEDS_VALUE;
            if (o->nlocal == IOP_MAX_ADDRS) {
                fprintf(stderr, "%s: at most %d local addresses\n", prog, IOP_MAX_ADDRS);
                usage(prog);
            }
            o->local[o->nlocal++] = v;
        } else if (!strcmp(a, "--port")) {
            NEEDS_VALUE;
            o->port = (int)number(v, 0, 65535, "port", prog);
        } else if (!strcmp(a, "--port-file")) {
            NEEDS_VALUE;
            o->port_file = v;
        } else if (!strcmp(a, "--remote")) {
            NEEDS_VALUE;
            o->remote = v;
        } else if (!strcmp(a, "--remote-port")) {
            NEEDS_VALUE;
            o->remote_port = (int)number(v, 1, 65535, "remote port", prog);
        } else if (!strcmp(a, "--streams")) {
            NEEDS_VALUE;
            o->streams = (int)number(v, 1, IOP_MAX_STREAMS, "stream count", prog);
        } else if (!strcmp(a, "--count")) {
            NEEDS_VALUE;
            o->count = number(v, 0, 100000000, "count", prog);
        } else if (!strcmp(a, "--expect")) {
            NEEDS_VALUE;
            o->expect = number(v, 0, 100000000, "expect", prog);
        } else if (!strcmp(a, "--max-size")) {
            NEEDS_VALUE;
            o->max_size = (size_t)number(v, IOP_HEADER_BYTES, 1 << 20, "max size", prog);
        } else if (!strcmp(a, "--unordered")) {
            NEEDS_VALUE;
            if (!strcmp(v, "none"))
                o->unordered = IOP_UNORDERED_NONE;
            else if (!strcmp(v, "all"))
                o->unordered = IOP_UNORDERED_ALL;
            else if (!strcmp(v, "mixed"))
                o->unordered = IOP_UNORDERED_MIXED;
            else {
                fprintf(stderr, "%s: --unordered wants none, all or mixed, not '%s'\n", prog, v);
                usage(prog);
            }
        } else if (!strcmp(a, "--idata"))
            o->idata = 1;
        else if (!strcmp(a, "--cmt-dac"))
            o->cmt_dac = 1;
        else if (!strcmp(a, "--shutdown")) {
            NEEDS_VALUE;
            if (!strcmp(v, "self"))
                shutdown_set = 1;
            else if (!strcmp(v, "peer"))
                shutdown_set = 0;
            else {
                fprintf(stderr, "%s: --shutdown wants self or peer, not '%s'\n", prog, v);
                usage(prog);
            }
        } else if (!strcmp(a, "--timeout")) {
            NEEDS_VALUE;
            o->timeout_s = (int)number(v, 1, 3600, "timeout", prog);
        } else if (!strcmp(a, "--linger")) {
            NEEDS_VALUE;
            o->linger_ms = (int)number(v, 0, 60000, "linger", prog);
        } else if (!strcmp(a, "--drop-after")) {
            NEEDS_VALUE;
            o->drop_after = number(v, 0, 100000000, "drop-after", prog);
        } else if (!strcmp(a, "--drop-addr")) {
            NEEDS_VALUE;
            o->drop_addr = v;
        } else if (!strcmp(a, "--loss")) {
            NEEDS_VALUE;
            o->loss = (double)number(v, 0, 50, "loss percentage", prog) / 100.0;
        } else if (!strcmp(a, "--dump-dir")) {
            NEEDS_VALUE;
            o->dump_dir = v;
        } else if (!strcmp(a, "--trace"))
            o->trace = 1;
        else if (!strcmp(a, "--trace-file")) {
            NEEDS_VALUE;
            o->trace = 1;
            o->trace_file = v;
        }
        else if (!strcmp(a, "-v"))
            o->verbose = 1;
        else {
            fprintf(stderr, "%s: unknown argument '%s'\n", prog, a);
            usage(prog);
        }
#undef NEEDS_VALUE
    }
    if (o->server < 0) {
        fprintf(stderr, "%s: say --server or --client\n", prog);
        usage(prog);
    }
    if (!o->server && (!o->remote || !o->remote_port)) {
        fprintf(stderr, "%s: a client needs --remote and --remote-port\n", prog);
        usage(prog);
    }
    if ((o->drop_after >= 0) != (o->drop_addr != NULL)) {
        fprintf(stderr, "%s: --drop-addr and --drop-after go together\n", prog);
        usage(prog);
    }
    if (o->nlocal == 0)
        o->local[o->nlocal++] = "127.0.0.1";
    if (o->expect < 0)
        o->expect = o->count;
    o->shutdown_self = shutdown_set >= 0 ? shutdown_set : !o->server;
}

/* ---- the plan ---- */

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    x ^= x >> 33;
    return x;
}

int iop_plan_init(struct iop_plan *p, int origin, const struct iop_options *o)
{
    p->origin = origin;
    p->streams = o->streams;
    p->max_size = o->max_size;
    p->unordered = o->unordered;
    p->next_seq = calloc((size_t)o->streams, sizeof *p->next_seq);
    return p->next_seq ? 0 : -1;
}

void iop_plan_free(struct iop_plan *p)
{
    free(p->next_seq);
    p->next_seq = NULL;
}

/* mixed sizes: half tiny, a quarter up to one packet, some a few packets (fragmentation), some
 * up to max_size */
static size_t plan_size(uint64_t h, size_t max)
{
    size_t n;
    unsigned pick = (unsigned)(h % 20);
    uint64_t r = h >> 8;
    if (pick < 10)
        n = IOP_HEADER_BYTES + (size_t)(r % 100);
    else if (pick < 15)
        n = 100 + (size_t)(r % 1300);
    else if (pick < 18)
        n = 1400 + (size_t)(r % 3600);
    else
        n = IOP_HEADER_BYTES + (size_t)(r % max);
    return n > max ? max : n;
}

void iop_plan_next(struct iop_plan *p, long i, struct iop_msg *m)
{
    uint64_t h = mix64(((uint64_t)p->origin << 40) ^ (uint64_t)i ^ 0x5bd1e995ull);
    m->stream = (uint16_t)(h % (uint64_t)p->streams);
    m->seq = p->next_seq[m->stream]++;
    uint64_t h2 = mix64(h ^ 0x9e3779b97f4a7c15ull);
    m->len = plan_size(h2, p->max_size);
    m->unordered = p->unordered == IOP_UNORDERED_ALL ||
                   (p->unordered == IOP_UNORDERED_MIXED && (h2 >> 50) % 4 == 0);
    m->ppid = (uint32_t)mix64(h2 + 1);
}

static void put32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)v;
    b[1] = (uint8_t)(v >> 8);
    b[2] = (uint8_t)(v >> 16);
    b[3] = (uint8_t)(v >> 24);
}

static uint32_t get32(const uint8_t *b)
{
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

void iop_fill(const struct iop_plan *p, const struct iop_msg *m, uint8_t *buf)
{
    put32(buf, IOP_MAGIC);
    buf[4] = (uint8_t)p->origin;
    buf[5] = (uint8_t)m->unordered;
    buf[6] = (uint8_t)m->stream;
    buf[7] = (uint8_t)(m->stream >> 8);
    put32(buf + 8, m->seq);
    put32(buf + 12, (uint32_t)m->len);
    put32(buf + 16, m->ppid);
    uint64_t s = mix64(((uint64_t)p->origin << 56) ^ ((uint64_t)m->stream << 32) ^ m->seq) | 1;
    for (size_t k = IOP_HEADER_BYTES; k < m->len; k++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        buf[k] = (uint8_t)(s >> 24);
    }
}

/* ---- the checker ---- */

int iop_checker_init(struct iop_checker *c, int origin, const struct iop_options *o, long expect)
{
    memset(c, 0, sizeof *c);
    c->origin = origin;
    c->streams = o->streams;
    c->expect = expect;
    if (iop_plan_init(&c->plan, origin, o) < 0)
        return -1;
    size_t ns = (size_t)o->streams;
    c->nmsgs = calloc(ns, sizeof *c->nmsgs);
    c->nordered = calloc(ns, sizeof *c->nordered);
    c->next_ordered = calloc(ns, sizeof *c->next_ordered);
    c->seen = calloc(ns, sizeof *c->seen);
    c->ordered_seqs = calloc(ns, sizeof *c->ordered_seqs);
    c->msgs = calloc(ns, sizeof *c->msgs);
    c->scratch = malloc(o->max_size);
    if (!c->nmsgs || !c->nordered || !c->next_ordered || !c->seen || !c->ordered_seqs ||
        !c->msgs || !c->scratch)
        return -1;
    /* replay the peer's plan twice: count per stream, then record each message */
    struct iop_msg m;
    for (long i = 0; i < expect; i++) {
        iop_plan_next(&c->plan, i, &m);
        c->nmsgs[m.stream]++;
        if (!m.unordered)
            c->nordered[m.stream]++;
    }
    for (size_t s = 0; s < ns; s++) {
        c->seen[s] = calloc(c->nmsgs[s] / 8 + 1, 1);
        c->ordered_seqs[s] = calloc(c->nordered[s] + 1, sizeof(uint32_t));
        c->msgs[s] = calloc(c->nmsgs[s] + 1, sizeof(struct iop_msg));
        if (!c->seen[s] || !c->ordered_seqs[s] || !c->msgs[s])
            return -1;
        c->nordered[s] = 0;
        c->plan.next_seq[s] = 0;
    }
    for (long i = 0; i < expect; i++) {
        iop_plan_next(&c->plan, i, &m);
        c->msgs[m.stream][m.seq] = m;
        if (!m.unordered)
            c->ordered_seqs[m.stream][c->nordered[m.stream]++] = m.seq;
    }
    return 0;
}

void iop_checker_free(struct iop_checker *c)
{
    for (int s = 0; s < c->streams; s++) {
        if (c->seen)
            free(c->seen[s]);
        if (c->ordered_seqs)
            free(c->ordered_seqs[s]);
        if (c->msgs)
            free(c->msgs[s]);
    }
    free(c->seen);
    free(c->ordered_seqs);
    free(c->msgs);
    free(c->nmsgs);
    free(c->nordered);
    free(c->next_ordered);
    free(c->scratch);
    iop_plan_free(&c->plan);
}

static int bad(struct iop_checker *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int bad(struct iop_checker *c, const char *fmt, ...)
{
    if (c->errors++ >= 20) { /* the first twenty say enough; iop_checker_done counts them all */
        if (c->errors == 21)
            fprintf(stderr, "CHECK FAILED: more errors, not shown\n");
        return -1;
    }
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "CHECK FAILED (message #%ld delivered): ", c->received);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return -1;
}

int iop_check(struct iop_checker *c, uint16_t stream, uint32_t ppid, int unordered,
              const uint8_t *data, size_t len)
{
    c->received++;
    if (len < IOP_HEADER_BYTES)
        return bad(c, "runt message of %zu bytes on stream %u", len, stream);
    if (get32(data) != IOP_MAGIC || data[4] != c->origin)
        return bad(c, "corrupt header on stream %u (magic %08x origin %u)", stream, get32(data),
                   data[4]);
    uint16_t hs = (uint16_t)(data[6] | data[7] << 8);
    uint32_t seq = get32(data + 8);
    if (hs != stream)
        return bad(c, "message of stream %u seq %u delivered on stream %u", hs, seq, stream);
    if (stream >= c->streams || seq >= c->nmsgs[stream])
        return bad(c, "unexpected message stream %u seq %u (the plan has %u there)", stream, seq,
                   stream < c->streams ? c->nmsgs[stream] : 0);
    const struct iop_msg *m = &c->msgs[stream][seq];
    if (c->seen[stream][seq / 8] & (1u << (seq % 8)))
        return bad(c, "DUPLICATE stream %u seq %u", stream, seq);
    c->seen[stream][seq / 8] |= (uint8_t)(1u << (seq % 8));
    /* the order first: a message delivered in its place counts there even if it is damaged */
    if (!m->unordered) {
        uint32_t *os = c->ordered_seqs[stream];
        uint32_t k = c->next_ordered[stream];
        if (seq != os[k]) {
            /* resynchronise past it, so one reordering is one complaint, not one per message */
            uint32_t j = k;
            while (j < c->nordered[stream] && os[j] != seq)
                j++;
            if (j < c->nordered[stream]) {
                c->next_ordered[stream] = j + 1;
                return bad(c, "REORDERED on stream %u: ordered seq %u delivered before seq %u "
                              "(%u ordered messages skipped)",
                           stream, seq, os[k], j - k);
            }
            return bad(c, "REORDERED on stream %u: ordered seq %u delivered after later ones",
                       stream, seq);
        }
        c->next_ordered[stream]++;
    }
    if (len != m->len)
        return bad(c, "stream %u seq %u: %zu bytes delivered, %zu sent", stream, seq, len,
                   m->len);
    if (ppid != m->ppid)
        return bad(c, "stream %u seq %u: PPID %08x, sent %08x", stream, seq, ppid, m->ppid);
    if (data[5] != m->unordered || (unordered >= 0 && !!unordered != m->unordered))
        return bad(c, "stream %u seq %u: unordered flag %d (transport %d), sent %d", stream, seq,
                   data[5], unordered, m->unordered);
    iop_fill(&c->plan, m, c->scratch);
    if (memcmp(c->scratch, data, len) != 0) {
        size_t k = 0;
        while (k < len && c->scratch[k] == data[k])
            k++;
        return bad(c, "CORRUPT payload stream %u seq %u len %zu: first difference at byte %zu",
                   stream, seq, len, k);
    }
    return 0;
}

int iop_checker_done(struct iop_checker *c, const char *who)
{
    long missing = 0;
    for (int s = 0; s < c->streams; s++)
        for (uint32_t q = 0; q < c->nmsgs[s]; q++)
            if (!(c->seen[s][q / 8] & (1u << (q % 8)))) {
                if (missing < 10)
                    fprintf(stderr, "%s: LOST stream %d seq %u\n", who, s, q);
                missing++;
            }
    if (missing || c->errors) {
        fprintf(stderr, "%s: %ld of %ld messages missing, %ld check errors\n", who, missing,
                c->expect, c->errors);
        return -1;
    }
    return 0;
}

/* ---- process helpers ---- */

static const char *watchdog_who = "peer";
static int watchdog_seconds;

static void on_alarm(int sig)
{
    (void)sig;
    char line[160];
    int n = snprintf(line, sizeof line, "%s: TIMEOUT after %d s\n", watchdog_who, watchdog_seconds);
    if (n > 0)
        (void)!write(2, line, (size_t)n);
    _exit(3);
}

void iop_watchdog(int seconds, const char *who)
{
    watchdog_who = who;
    watchdog_seconds = seconds;
    signal(SIGALRM, on_alarm);
    alarm((unsigned)seconds);
}

uint64_t iop_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void iop_log(const char *who, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", who);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void iop_report_port(const struct iop_options *o, int port)
{
    printf("PORT %d\n", port);
    fflush(stdout);
    if (o->port_file) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp", o->port_file);
        FILE *f = fopen(tmp, "w");
        if (!f || fprintf(f, "%d\n", port) < 0 || fclose(f) != 0 || rename(tmp, o->port_file)) {
            perror(o->port_file);
            exit(2);
        }
    }
}
