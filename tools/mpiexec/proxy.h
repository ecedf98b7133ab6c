/* proxy.h — the state of sctpmpi_proxy, the small per-host program that mpiexec starts (over
 * ssh or another rsh-style launcher) to fork that host's ranks, serve them PMI-1 locally and
 * relay PMI fences, output, signals and exit statuses over its stdin/stdout. */
#ifndef MPIEXEC_PROXY_H
#define MPIEXEC_PROXY_H

#include <sys/types.h>

#include "kvs.h"
#include "pmi_wire.h"
#include "wire.h"

struct prank {
    int rank;
    pid_t pid; /* also its process group */
    int running;
    struct pmi_wire_conn pmi; /* PMI socket (fd -1 once closed) */
    int out_fd, err_fd;       /* -1 once closed */
    int inited, in_barrier;
};

struct proxy {
    const char *host; /* as mpiexec named us, for messages */
    int size;         /* ranks in the whole job */
    char kvsname[64];
    int nlocal;
    struct prank *ranks;
    struct kvs *cache;      /* every pair known here: fenced ones and local puts */
    struct strlist pending; /* pairs put by local ranks since the last fence */
    int barrier_count;
    int fence_sent;
    int up_fd;   /* to mpiexec (our stdout) */
    int lost;    /* connection to mpiexec gone: kill everything and leave */
    int killing; /* SIGTERM sent, SIGKILL at kill_deadline */
    double kill_deadline;
    /* rank 0's stdin, when rank 0 is here: mpiexec's stdin arrives as W_STDIN */
    int stdin_fd;            /* write end of rank 0's stdin pipe (non-blocking), -1 if none */
    struct wire_out stdin_q; /* bytes the pipe has not taken yet (raw, no headers) */
    int stdin_eof;           /* close stdin_fd once stdin_q is drained */
};

/* Serves what local rank pr sent on its PMI socket. */
void proxy_pmi_pump(struct proxy *px, struct prank *pr);
/* mpiexec ended a fence: merges the pairs and lets every local rank out of the barrier. */
void proxy_pmi_fence_done(struct proxy *px, const char *pairs, size_t len);
/* Sends a message to mpiexec; a failure marks the connection lost. */
void proxy_send(struct proxy *px, uint32_t type, uint32_t rank, const void *p, size_t len);

#endif
