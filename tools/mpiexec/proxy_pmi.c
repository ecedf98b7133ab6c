/* proxy_pmi.c — the PMI-1 server a proxy runs for the ranks of its host: init, get_maxes,
 * get_my_kvsname, get_universe_size, get_appnum, put, get, barrier_in, finalize, abort.
 * Gets are answered from the proxy's copy of the key-value space; a barrier costs one
 * round trip to mpiexec per proxy (W_FENCE carrying this host's puts, W_KVS carrying every
 * host's), however many ranks the host has. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "proxy.h"

#define KVSNAME_MAX 256
#define KEYLEN_MAX 64
#define VALLEN_MAX 1024
#define MAX_FIELDS 16

struct request {
    char *keys[MAX_FIELDS], *values[MAX_FIELDS];
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
        rq->values[rq->n++] = eq + 1;
    }
}

static void reply(struct prank *pr, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Replies made while one rank's requests are being served are collected and sent in one
 * write at the end (a rank may pipeline many gets). */
static struct {
    char *buf;
    size_t len, cap;
    const struct prank *who;
} batch;

static void send_bytes(struct prank *pr, const char *p, size_t left)
{
    while (left > 0) {
        ssize_t w = send(pr->pmi_fd, p, left, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(pr->pmi_fd); /* gone, or not reading its replies (send timeout) */
            pr->pmi_fd = -1;
            return;
        }
        p += w;
        left -= (size_t)w;
    }
}

static void reply(struct prank *pr, const char *fmt, ...)
{
    if (pr->pmi_fd < 0)
        return;
    char buf[PROXY_PMI_LINE_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = (int)sizeof buf - 1;
    if (batch.who == pr) {
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
        send_bytes(pr, batch.buf, batch.len); /* out of memory: send what we have, then this */
        batch.len = 0;
    }
    send_bytes(pr, buf, (size_t)n);
}

static int kvsname_ok(struct proxy *px, struct prank *pr, const struct request *rq,
                      const char *result_cmd)
{
    const char *k = field(rq, "kvsname");
    if (k && strcmp(k, px->kvsname) != 0) {
        reply(pr, "cmd=%s rc=-1 msg=unknown_kvsname_%.64s\n", result_cmd, k);
        return 0;
    }
    return 1;
}

static void handle_put(struct proxy *px, struct prank *pr, const struct request *rq)
{
    if (!kvsname_ok(px, pr, rq, "put_result"))
        return;
    const char *key = field(rq, "key"), *value = field(rq, "value");
    if (!key || !value || !*key)
        reply(pr, "cmd=put_result rc=-1 msg=put_needs_key_and_value\n");
    else if (strlen(key) >= KEYLEN_MAX || strlen(value) >= VALLEN_MAX)
        reply(pr, "cmd=put_result rc=-1 msg=key_or_value_too_long\n");
    else if (kvs_put(px->cache, key, value) < 0 || strlist_add(&px->pending, key) < 0 ||
             strlist_add(&px->pending, value) < 0)
        reply(pr, "cmd=put_result rc=-1 msg=out_of_memory\n");
    else
        reply(pr, "cmd=put_result rc=0 msg=success\n");
}

static void handle_get(struct proxy *px, struct prank *pr, const struct request *rq)
{
    if (!kvsname_ok(px, pr, rq, "get_result"))
        return;
    const char *key = field(rq, "key");
    const char *value = key ? kvs_get(px->cache, key) : NULL;
    if (!value)
        reply(pr, "cmd=get_result rc=-1 msg=key_%.64s_not_found\n", key ? key : "(none)");
    else
        reply(pr, "cmd=get_result rc=0 msg=success value=%s\n", value);
}

static void handle_barrier_in(struct proxy *px, struct prank *pr)
{
    if (pr->in_barrier || px->fence_sent) {
        reply(pr, "cmd=barrier_out rc=-1 msg=already_in_barrier\n");
        return;
    }
    pr->in_barrier = 1;
    if (++px->barrier_count < px->nlocal)
        return;
    px->fence_sent = 1;
    proxy_send(px, W_FENCE, 0, px->pending.buf, px->pending.len);
    px->pending.len = 0;
}

void proxy_pmi_fence_done(struct proxy *px, const char *pairs, size_t len)
{
    size_t pos = 0;
    const char *k, *v;
    while ((k = strlist_next(pairs, len, &pos)) && (v = strlist_next(pairs, len, &pos)))
        if (kvs_put(px->cache, k, v) < 0)
            fprintf(stderr, "sctpmpi_proxy on %s: out of memory in the KVS\n", px->host);
    px->fence_sent = 0;
    px->barrier_count = 0;
    for (int i = 0; i < px->nlocal; i++) {
        if (px->ranks[i].in_barrier) {
            px->ranks[i].in_barrier = 0;
            reply(&px->ranks[i], "cmd=barrier_out rc=0\n");
        }
    }
}

static void handle_line(struct proxy *px, struct prank *pr, char *line)
{
    struct request rq;
    parse_request(line, &rq);
    const char *cmd = field(&rq, "cmd");
    if (!cmd) {
        if (rq.n)
            reply(pr, "cmd=error rc=-1 msg=request_without_cmd\n");
        return;
    }
    if (strcmp(cmd, "init") == 0) {
        const char *ver = field(&rq, "pmi_version");
        if (!ver || atoi(ver) != 1) {
            reply(pr, "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 "
                      "msg=only_PMI_version_1_is_served\n");
            return;
        }
        if (!pr->inited)
            proxy_send(px, W_INIT, (uint32_t)pr->rank, NULL, 0);
        pr->inited = 1;
        reply(pr,
              "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0 sctpmpi_pipeline=1\n");
    } else if (strcmp(cmd, "get_maxes") == 0) {
        reply(pr, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d rc=0\n", KVSNAME_MAX,
              KEYLEN_MAX, VALLEN_MAX);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        reply(pr, "cmd=my_kvsname kvsname=%s rc=0\n", px->kvsname);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        reply(pr, "cmd=universe_size size=%d rc=0\n", px->size);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        reply(pr, "cmd=appnum appnum=0 rc=0\n");
    } else if (strcmp(cmd, "put") == 0) {
        handle_put(px, pr, &rq);
    } else if (strcmp(cmd, "get") == 0) {
        handle_get(px, pr, &rq);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        handle_barrier_in(px, pr);
    } else if (strcmp(cmd, "finalize") == 0) {
        proxy_send(px, W_FINALIZE, (uint32_t)pr->rank, NULL, 0);
        reply(pr, "cmd=finalize_ack rc=0\n");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *code = field(&rq, "exitcode");
        char c[16];
        snprintf(c, sizeof c, "%d", code ? atoi(code) : 1);
        proxy_send(px, W_ABORT, (uint32_t)pr->rank, c, strlen(c));
    } else {
        reply(pr, "cmd=%.64s_result rc=-1 msg=unknown_command_%.64s\n", cmd, cmd);
        fprintf(stderr, "sctpmpi_proxy on %s: rank %d sent unsupported PMI command '%s'\n",
                px->host, pr->rank, cmd);
    }
}

void proxy_pmi_pump(struct proxy *px, struct prank *pr)
{
    ssize_t n = read(pr->pmi_fd, pr->pmi_buf + pr->pmi_len, sizeof pr->pmi_buf - pr->pmi_len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(pr->pmi_fd);
        pr->pmi_fd = -1;
        return;
    }
    pr->pmi_len += (size_t)n;
    batch.who = pr;
    char *start = pr->pmi_buf, *nl;
    while (pr->pmi_fd >= 0 &&
           (nl = memchr(start, '\n', pr->pmi_len - (size_t)(start - pr->pmi_buf)))) {
        *nl = '\0';
        handle_line(px, pr, start);
        start = nl + 1;
    }
    batch.who = NULL;
    if (batch.len && pr->pmi_fd >= 0)
        send_bytes(pr, batch.buf, batch.len);
    batch.len = 0;
    size_t rest = pr->pmi_len - (size_t)(start - pr->pmi_buf);
    memmove(pr->pmi_buf, start, rest);
    pr->pmi_len = rest;
    if (pr->pmi_len == sizeof pr->pmi_buf) {
        fprintf(stderr, "sctpmpi_proxy on %s: rank %d sent a PMI request longer than %d bytes\n",
                px->host, pr->rank, PROXY_PMI_LINE_MAX);
        char c[] = "1";
        proxy_send(px, W_ABORT, (uint32_t)pr->rank, c, 1);
        close(pr->pmi_fd);
        pr->pmi_fd = -1;
    }
}
