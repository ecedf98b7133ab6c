/* pmi_server.c — the PMI-1 "simple" wire protocol as mpiexec serves it: init, get_maxes,
 * get_my_kvsname, get_universe_size, get_appnum, put, get, barrier_in/out over all ranks,
 * finalize, abort.  Unknown commands get an error reply (rc=-1), never silence. */
#include "pmi_server.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define KVSNAME_MAX 256
#define KEYLEN_MAX 64
#define VALLEN_MAX 1024
#define MAX_FIELDS 16

struct request {
    char *keys[MAX_FIELDS];
    char *values[MAX_FIELDS];
    int n;
};

static const char *field(const struct request *rq, const char *key)
{
    for (int i = 0; i < rq->n; i++)
        if (strcmp(rq->keys[i], key) == 0)
            return rq->values[i];
    return NULL;
}

static void parse_request(char *line, struct request *rq)
{
    rq->n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || rq->n == MAX_FIELDS)
            continue;
        *eq = '\0';
        rq->keys[rq->n] = tok;
        rq->values[rq->n] = eq + 1;
        rq->n++;
    }
}

static void reply(struct rank_proc *rp, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Replies made while one rank's requests are being served are collected and sent in one
 * write at the end (a rank may pipeline many gets). */
static struct {
    char *buf;
    size_t len, cap;
    const struct rank_proc *who;
} batch;

static void send_bytes(struct rank_proc *rp, const char *p, size_t left)
{
    while (left > 0) {
        ssize_t w = send(rp->pmi_fd, p, left, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) {
                /* send timeout (see rank_spawn.c): the rank stopped reading its replies */
                fprintf(stderr,
                        "mpiexec: rank %d is not reading its PMI replies; closing its "
                        "PMI connection\n",
                        rp->rank);
                close(rp->pmi_fd);
                rp->pmi_fd = -1;
            }
            return; /* otherwise the rank is gone; its exit is noticed through SIGCHLD */
        }
        p += w;
        left -= (size_t)w;
    }
}

static void reply(struct rank_proc *rp, const char *fmt, ...)
{
    if (rp->pmi_fd < 0)
        return;
    char buf[PMI_LINE_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = (int)sizeof buf - 1;
    if (batch.who == rp) {
        if (batch.len + (size_t)n > batch.cap) {
            size_t cap = batch.cap ? batch.cap : 16384;
            while (cap < batch.len + (size_t)n)
                cap *= 2;
            char *nb = realloc(batch.buf, cap);
            if (nb) {
                batch.buf = nb;
                batch.cap = cap;
            }
        }
        if (batch.len + (size_t)n <= batch.cap) {
            memcpy(batch.buf + batch.len, buf, (size_t)n);
            batch.len += (size_t)n;
            return;
        }
        send_bytes(rp, batch.buf, batch.len); /* out of memory: send what we have, then this */
        batch.len = 0;
    }
    send_bytes(rp, buf, (size_t)n);
}

static int kvsname_ok(struct job *job, struct rank_proc *rp, const struct request *rq,
                      const char *result_cmd)
{
    const char *k = field(rq, "kvsname");
    if (k && strcmp(k, job->kvsname) != 0) {
        reply(rp, "cmd=%s rc=-1 msg=unknown_kvsname_%.64s\n", result_cmd, k);
        return 0;
    }
    return 1;
}

static void handle_init(struct job *job, struct rank_proc *rp, const struct request *rq)
{
    const char *ver = field(rq, "pmi_version");
    if (!ver || atoi(ver) != 1) {
        reply(rp, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 "
                  "msg=only_PMI_version_1_is_served\n");
        return;
    }
    rp->pmi_inited = 1;
    job->any_inited = 1;
    reply(rp, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0 sctpmpi_pipeline=1\n");
    /* a rank that already left without finalizing can never reach a barrier: fail now */
    for (int i = 0; i < job->nranks; i++) {
        struct rank_proc *o = &job->ranks[i];
        if (!o->running && !o->finalized && !job->killing)
            job_fail(job, 1, "rank %d exited without MPI_Finalize", o->rank);
    }
}

static void handle_put(struct job *job, struct rank_proc *rp, const struct request *rq)
{
    if (!kvsname_ok(job, rp, rq, "put_result"))
        return;
    const char *key = field(rq, "key"), *value = field(rq, "value");
    if (!key || !value || !*key) {
        reply(rp, "cmd=put_result rc=-1 msg=put_needs_key_and_value\n");
    } else if (strlen(key) >= KEYLEN_MAX || strlen(value) >= VALLEN_MAX) {
        reply(rp, "cmd=put_result rc=-1 msg=key_or_value_too_long\n");
    } else if (kvs_put(job->kvs, key, value) < 0) {
        reply(rp, "cmd=put_result rc=-1 msg=out_of_memory\n");
    } else {
        reply(rp, "cmd=put_result rc=0 msg=success\n");
    }
}

static void handle_get(struct job *job, struct rank_proc *rp, const struct request *rq)
{
    if (!kvsname_ok(job, rp, rq, "get_result"))
        return;
    const char *key = field(rq, "key");
    const char *value = key ? kvs_get(job->kvs, key) : NULL;
    if (!value)
        reply(rp, "cmd=get_result rc=-1 msg=key_%.64s_not_found\n", key ? key : "(none)");
    else
        reply(rp, "cmd=get_result rc=0 msg=success value=%s\n", value);
}

static void handle_barrier_in(struct job *job, struct rank_proc *rp)
{
    if (rp->in_barrier) {
        reply(rp, "cmd=barrier_out rc=-1 msg=already_in_barrier\n");
        return;
    }
    rp->in_barrier = 1;
    if (++job->barrier_count < job->nranks)
        return;
    job->barrier_count = 0;
    for (int i = 0; i < job->nranks; i++) {
        job->ranks[i].in_barrier = 0;
        reply(&job->ranks[i], "cmd=barrier_out rc=0\n");
    }
}

static void handle_line(struct job *job, struct rank_proc *rp, char *line)
{
    struct request rq;
    parse_request(line, &rq);
    const char *cmd = field(&rq, "cmd");
    if (!cmd) {
        if (rq.n == 0)
            return; /* blank line */
        reply(rp, "cmd=error rc=-1 msg=request_without_cmd\n");
        return;
    }
    if (strcmp(cmd, "init") == 0) {
        handle_init(job, rp, &rq);
    } else if (strcmp(cmd, "get_maxes") == 0) {
        reply(rp, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d rc=0\n", KVSNAME_MAX,
              KEYLEN_MAX, VALLEN_MAX);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        reply(rp, "cmd=my_kvsname kvsname=%s rc=0\n", job->kvsname);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        reply(rp, "cmd=universe_size size=%d rc=0\n", job->nranks);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        reply(rp, "cmd=appnum appnum=0 rc=0\n");
    } else if (strcmp(cmd, "put") == 0) {
        handle_put(job, rp, &rq);
    } else if (strcmp(cmd, "get") == 0) {
        handle_get(job, rp, &rq);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        handle_barrier_in(job, rp);
    } else if (strcmp(cmd, "finalize") == 0) {
        rp->finalized = 1;
        reply(rp, "cmd=finalize_ack rc=0\n");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *code = field(&rq, "exitcode");
        int c = code ? atoi(code) : 1;
        job_fail(job, c, "rank %d called MPI_Abort with code %d", rp->rank, c);
    } else {
        reply(rp, "cmd=%.64s_result rc=-1 msg=unknown_command_%.64s\n", cmd, cmd);
        fprintf(stderr, "mpiexec: rank %d sent unsupported PMI command '%s'\n", rp->rank, cmd);
    }
}

void pmi_server_pump(struct job *job, struct rank_proc *rp)
{
    ssize_t n = read(rp->pmi_fd, rp->pmi_buf + rp->pmi_len, sizeof rp->pmi_buf - rp->pmi_len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(rp->pmi_fd);
        rp->pmi_fd = -1;
        return;
    }
    rp->pmi_len += (size_t)n;
    batch.who = rp;
    char *start = rp->pmi_buf;
    char *nl;
    while (rp->pmi_fd >= 0 &&
           (nl = memchr(start, '\n', rp->pmi_len - (size_t)(start - rp->pmi_buf)))) {
        *nl = '\0';
        handle_line(job, rp, start);
        start = nl + 1;
    }
    batch.who = NULL;
    if (batch.len && rp->pmi_fd >= 0)
        send_bytes(rp, batch.buf, batch.len);
    batch.len = 0;
    size_t rest = rp->pmi_len - (size_t)(start - rp->pmi_buf);
    memmove(rp->pmi_buf, start, rest);
    rp->pmi_len = rest;
    if (rp->pmi_len == sizeof rp->pmi_buf) {
        job_fail(job, 1, "rank %d sent a PMI request longer than %d bytes", rp->rank,
                 PMI_LINE_MAX);
        close(rp->pmi_fd);
        rp->pmi_fd = -1;
    }
}
