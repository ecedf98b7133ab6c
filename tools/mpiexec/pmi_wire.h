/* pmi_wire.h — the PMI-1 "simple" wire protocol as a server speaks it, shared by mpiexec (its
 * local ranks) and sctpmpi_proxy (the ranks of its host): reading a connection's bytes into
 * request lines, parsing "key=value" fields, the commands every server answers the same way
 * (init, get_maxes, get_my_kvsname, get_universe_size, get_appnum, put, get, barrier_in,
 * finalize, abort, and an error reply for anything else) and replies, which are collected while
 * one connection's requests are served and written in one go.  What a command does to the
 * job (store a pair, enter a barrier, fail the job) is the server's, through struct
 * pmi_wire_server. */
#ifndef MPIEXEC_PMI_WIRE_H
#define MPIEXEC_PMI_WIRE_H

#include <stddef.h>

#define PMI_WIRE_LINE_MAX 4096
#define PMI_WIRE_KVSNAME_MAX 256
#define PMI_WIRE_KEYLEN_MAX 64
#define PMI_WIRE_VALLEN_MAX 1024
#define PMI_WIRE_MAX_FIELDS 16

/* one rank's PMI connection as its server sees it */
struct pmi_wire_conn {
    int fd; /* -1 once closed */
    int rank;
    void *owner; /* the server's record of the rank */
    size_t len;  /* bytes of an unfinished request in buf */
    char buf[PMI_WIRE_LINE_MAX];
    /* a multi-line request (mcmd=spawn ... endcmd, one block per command of a
     * spawn_multiple) being collected: its lines, each ending in '\n' */
    char *mcmd;
    size_t mcmd_len;
};

/* a request line split into fields (pointers into the line) */
struct pmi_wire_request {
    char *keys[PMI_WIRE_MAX_FIELDS], *values[PMI_WIRE_MAX_FIELDS];
    int n;
};

/* what a command does, per server; every hook gets the server's ctx */
struct pmi_wire_server {
    void *ctx;
    const char *kvsname;
    int universe_size;
    /* a rank's init was accepted (its reply follows) */
    void (*init)(void *ctx, struct pmi_wire_conn *c);
    /* store a pair: 0, or -1 out of memory */
    int (*put)(void *ctx, struct pmi_wire_conn *c, const char *key, const char *value);
    const char *(*get)(void *ctx, struct pmi_wire_conn *c, const char *key);
    /* the rank entered the barrier: 0, or -1 when it may not (already in one); the server
     * sends barrier_out itself once everyone is in */
    int (*barrier_in)(void *ctx, struct pmi_wire_conn *c);
    void (*finalize)(void *ctx, struct pmi_wire_conn *c);
    void (*abort)(void *ctx, struct pmi_wire_conn *c, int code);
    /* a whole spawn request (every mcmd=spawn block, lines ending in '\n'): the server
     * replies cmd=spawn_result (NULL: spawning is refused) */
    void (*spawn)(void *ctx, struct pmi_wire_conn *c, const char *blocks);
    /* commands beyond the common ones: 1 handled (replied), 0 unknown (NULL: none) */
    int (*extra)(void *ctx, struct pmi_wire_conn *c, const char *cmd,
                 const struct pmi_wire_request *rq);
    /* a command nobody serves was answered with an error: log it */
    void (*unknown)(void *ctx, struct pmi_wire_conn *c, const char *cmd);
    /* the rank sent a request longer than PMI_WIRE_LINE_MAX (the connection is then closed) */
    void (*overlong)(void *ctx, struct pmi_wire_conn *c);
    /* a reply could not be written (the rank stopped reading; NULL: close silently) */
    void (*stalled)(void *ctx, struct pmi_wire_conn *c);
};

void pmi_wire_parse(char *line, struct pmi_wire_request *rq);
const char *pmi_wire_field(const struct pmi_wire_request *rq, const char *key);

/* Reads what the rank sent and answers every complete request line.  Closes c->fd when the
 * rank closes its end. */
void pmi_wire_pump(const struct pmi_wire_server *s, struct pmi_wire_conn *c);

/* Sends a reply line (collected while c's requests are being served). */
void pmi_wire_reply(const struct pmi_wire_server *s, struct pmi_wire_conn *c, const char *fmt,
                    ...) __attribute__((format(printf, 3, 4)));

/* frees what a connection still holds (an unfinished multi-line request) */
void pmi_wire_conn_free(struct pmi_wire_conn *c);

/* the value of key=... among the lines of a multi-line request ("key=value\n"), or NULL;
 * written into out (len bytes) */
const char *pmi_wire_mfield(const char *lines, const char *key, char *out, size_t len);

#endif
