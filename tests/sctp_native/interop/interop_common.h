/* interop_common.h — what the two interop peers (usrsctp_peer.c, native_peer.c) share: the
 * command line, the deterministic message plan (which stream, size, order flag and payload every
 * message has, derived from (origin, index)), the receiver's checker (every message exactly once,
 * per-stream order for ordered messages, intact payload, right PPID) and the watchdog. */
#ifndef INTEROP_COMMON_H
#define INTEROP_COMMON_H

#include <stddef.h>
#include <stdint.h>

#define IOP_MAX_ADDRS 4
#define IOP_MAX_STREAMS 1024
#define IOP_HEADER_BYTES 20
#define IOP_SERVER_SCTP_PORT 5001
#define IOP_CLIENT_SCTP_PORT 5002

enum iop_unordered { IOP_UNORDERED_NONE, IOP_UNORDERED_ALL, IOP_UNORDERED_MIXED };

struct iop_options {
    int server;                            /* 1: listen; 0: connect */
    const char *local[IOP_MAX_ADDRS];      /* local IPv4 addresses (default 127.0.0.1) */
    int nlocal;
    int port;                              /* local UDP port (0: any; a server prints it) */
    const char *remote;                    /* client: the server's first address */
    int remote_port;                       /* client: the server's UDP port */
    int streams;                           /* outbound streams asked for and used */
    long count;                            /* messages this side sends */
    long expect;                           /* messages this side must receive */
    size_t max_size;                       /* largest message (>= IOP_HEADER_BYTES) */
    enum iop_unordered unordered;
    int idata;                             /* ask for I-DATA (RFC 8260) */
    int cmt_dac;                           /* CMT with delayed ack for CMT (multihomed) */
    int shutdown_self;                     /* 1: this side starts the graceful shutdown */
    int timeout_s;                         /* watchdog */
    int linger_ms;                         /* keep the stack up this long after the close */
    long drop_after;                       /* native only: kill one path after N messages */
    double loss;                           /* native only: drop this fraction of datagrams */
    const char *drop_addr;                 /* ... the local address whose traffic is dropped */
    const char *port_file;                 /* server: write the UDP port here when ready */
    const char *dump_dir;                  /* native only: save received packets (corpus) */
    int trace;                             /* native only: print every packet's chunks */
    const char *trace_file;                /* ... to this file instead of stderr */
    int verbose;
};

/* parse argv into o (defaults filled in); prints usage and exits 2 on bad input */
void iop_parse(struct iop_options *o, int argc, char **argv, const char *prog);

/* the origin tag of the messages a side sends: clients 1, servers 2 */
static inline int iop_origin(int server) { return server ? 2 : 1; }

/* the plan of one message */
struct iop_msg {
    uint16_t stream;
    uint32_t seq;       /* per-stream index over all of the stream's messages */
    uint32_t ppid;
    size_t len;
    int unordered;
};

/* the sender side: message i of count; fills m and (if buf) writes m->len payload bytes */
struct iop_plan {
    int origin, streams;
    size_t max_size;
    enum iop_unordered unordered;
    uint32_t *next_seq; /* per stream */
};
int iop_plan_init(struct iop_plan *p, int origin, const struct iop_options *o);
void iop_plan_next(struct iop_plan *p, long i, struct iop_msg *m);
void iop_fill(const struct iop_plan *p, const struct iop_msg *m, uint8_t *buf);
void iop_plan_free(struct iop_plan *p);

/* the receiver side: replays the peer's plan and checks each delivered message against it */
struct iop_checker {
    int origin, streams;
    long expect, received;
    long errors;
    uint32_t *nmsgs;        /* per stream: how many messages the plan puts there */
    uint8_t **seen;         /* per stream: bitmap over seq */
    uint32_t **ordered_seqs; /* per stream: the seqs of its ordered messages, in plan order */
    uint32_t *nordered, *next_ordered;
    struct iop_msg **msgs;  /* per stream: the plan of each seq */
    struct iop_plan plan;
    uint8_t *scratch;
};
int iop_checker_init(struct iop_checker *c, int origin, const struct iop_options *o, long expect);
/* one delivered message: its stream, PPID, the transport's unordered flag (-1: unknown), bytes;
 * returns 0 if it is right, -1 (after printing why) if not */
int iop_check(struct iop_checker *c, uint16_t stream, uint32_t ppid, int unordered,
              const uint8_t *data, size_t len);
/* 0 when every expected message arrived and no error was seen; prints what is missing */
int iop_checker_done(struct iop_checker *c, const char *who);
void iop_checker_free(struct iop_checker *c);

/* the watchdog: after seconds, print "who: TIMEOUT" and exit 3 (never a hang) */
void iop_watchdog(int seconds, const char *who);
uint64_t iop_now_us(void);
void iop_log(const char *who, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* server: report the port on stdout ("PORT n") and, if asked, into the port file */
void iop_report_port(const struct iop_options *o, int port);

#endif
