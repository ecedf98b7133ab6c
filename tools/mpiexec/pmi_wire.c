/* pmi_wire.c — the PMI-1 wire protocol of mpiexec and sctpmpi_proxy (pmi_wire.h): request
 * lines, fields, the common commands and batched replies. */
#include "pmi_wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

void pmi_wire_parse(char *line, struct pmi_wire_request *rq)
{
    rq->n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(line, " \t\r", &save); tok; tok = strtok_r(NULL, " \t\r", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq || rq->n == PMI_WIRE_MAX_FIELDS)
            continue;
        *eq = '\0';
        rq->keys[rq->n] = tok;
        rq->values[rq->n++] = eq + 1;
    }
}

const char *pmi_wire_field(const struct pmi_wire_request *rq, const char *key)
{
    for (int i = 0; i < rq->n; i++)
        if (strcmp(rq->keys[i], key) == 0)
            return rq->values[i];
    return NULL;
}

/* Replies made while one rank's requests are being served are collected and sent in one
 * write at the end (a rank may pipeline many gets). */
static struct {
    char *buf;
    size_t len, cap;
    const struct pmi_wire_conn *who;
} batch;

static void send_bytes(const struct pmi_wire_server *s, struct pmi_wire_conn *c, const char *p,
                       size_t left)
{
    while (left > 0) {
        ssize_t w = send(c->fd, p, left, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK || !s->stalled) {
                /* send timeout: the rank stopped reading its replies */
                if (s->stalled)
                    s->stalled(s->ctx, c);
                close(c->fd);
                c->fd = -1;
            }
            return; /* otherwise the rank is gone; its exit is noticed through SIGCHLD */
        }
        p += w;
        left -= (size_t)w;
    }
}

void pmi_wire_reply(const struct pmi_wire_server *s, struct pmi_wire_conn *c, const char *fmt,
                    ...)
{
    if (c->fd < 0)
        return;
    char buf[PMI_WIRE_LINE_MAX + 128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof buf)
        n = (int)sizeof buf - 1;
    if (batch.who == c) {
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
        send_bytes(s, c, batch.buf, batch.len); /* out of memory: send what we have, then this */
        batch.len = 0;
    }
    send_bytes(s, c, buf, (size_t)n);
}

static int kvsname_ok(const struct pmi_wire_server *s, struct pmi_wire_conn *c,
                      const struct pmi_wire_request *rq, const char *result_cmd)
{
    const char *k = pmi_wire_field(rq, "kvsname");
    if (k && strcmp(k, s->kvsname) != 0) {
        pmi_wire_reply(s, c, "cmd=%s rc=-1 msg=unknown_kvsname_%.64s\n", result_cmd, k);
        return 0;
    }
    return 1;
}

static void handle_put(const struct pmi_wire_server *s, struct pmi_wire_conn *c,
                       const struct pmi_wire_request *rq)
{
    if (!kvsname_ok(s, c, rq, "put_result"))
        return;
    const char *key = pmi_wire_field(rq, "key"), *value = pmi_wire_field(rq, "value");
    if (!key || !value || !*key)
        pmi_wire_reply(s, c, "cmd=put_result rc=-1 msg=put_needs_key_and_value\n");
    else if (strlen(key) >= PMI_WIRE_KEYLEN_MAX || strlen(value) >= PMI_WIRE_VALLEN_MAX)
        pmi_wire_reply(s, c, "cmd=put_result rc=-1 msg=key_or_value_too_long\n");
    else if (s->put(s->ctx, c, key, value) < 0)
        pmi_wire_reply(s, c, "cmd=put_result rc=-1 msg=out_of_memory\n");
    else
        pmi_wire_reply(s, c, "cmd=put_result rc=0 msg=success\n");
}

static void handle_get(const struct pmi_wire_server *s, struct pmi_wire_conn *c,
                       const struct pmi_wire_request *rq)
{
    if (!kvsname_ok(s, c, rq, "get_result"))
        return;
    const char *key = pmi_wire_field(rq, "key");
    const char *value = key ? s->get(s->ctx, c, key) : NULL;
    if (!value)
        pmi_wire_reply(s, c, "cmd=get_result rc=-1 msg=key_%.64s_not_found\n",
                       key ? key : "(none)");
    else
        pmi_wire_reply(s, c, "cmd=get_result rc=0 msg=success value=%s\n", value);
}

void pmi_wire_conn_free(struct pmi_wire_conn *c)
{
    free(c->mcmd);
    c->mcmd = NULL;
    c->mcmd_len = 0;
}

const char *pmi_wire_mfield(const char *lines, const char *key, char *out, size_t len)
{
    size_t kl = strlen(key);
    for (const char *p = lines; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (!strncmp(p, key, kl) && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = strcspn(v, "\n");
            if (n >= len)
                n = len - 1;
            memcpy(out, v, n);
            out[n] = '\0';
            return out;
        }
    }
    return NULL;
}

/* one line of a multi-line request: collected until the last block's endcmd */
static void handle_mcmd_line(const struct pmi_wire_server *s, struct pmi_wire_conn *c,
                             const char *line)
{
    size_t n = strlen(line);
    if (c->mcmd_len + n + 2 > (size_t)1 << 24) { /* 16 MiB: nobody spawns that much */
        pmi_wire_conn_free(c);
        pmi_wire_reply(s, c, "cmd=spawn_result rc=-1 msg=spawn_request_too_long\n");
        return;
    }
    char *m = realloc(c->mcmd, c->mcmd_len + n + 2);
    if (!m) {
        pmi_wire_conn_free(c);
        pmi_wire_reply(s, c, "cmd=spawn_result rc=-1 msg=out_of_memory\n");
        return;
    }
    c->mcmd = m;
    memcpy(m + c->mcmd_len, line, n);
    c->mcmd_len += n;
    m[c->mcmd_len++] = '\n';
    m[c->mcmd_len] = '\0';
    if (strcmp(line, "endcmd") != 0)
        return;
    /* the block ends: the request ends with the block whose spawnssofar is totspawns */
    const char *last = m;
    for (const char *p = m; (p = strstr(p, "mcmd=")); p += 5)
        if (p == m || p[-1] == '\n')
            last = p;
    char tot[16], sofar[16];
    if (pmi_wire_mfield(last, "totspawns", tot, sizeof tot) &&
        pmi_wire_mfield(last, "spawnssofar", sofar, sizeof sofar) && atoi(sofar) < atoi(tot))
        return;
    char *blocks = c->mcmd;
    c->mcmd = NULL;
    c->mcmd_len = 0;
    if (strncmp(blocks, "mcmd=spawn\n", 11) != 0)
        pmi_wire_reply(s, c, "cmd=spawn_result rc=-1 msg=unknown_multi_line_command\n");
    else if (!s->spawn)
        pmi_wire_reply(s, c, "cmd=spawn_result rc=-1 msg=spawn_not_supported_by_this_server\n");
    else
        s->spawn(s->ctx, c, blocks);
    free(blocks);
}

static void handle_line(const struct pmi_wire_server *s, struct pmi_wire_conn *c, char *line)
{
    if (c->mcmd || !strncmp(line, "mcmd=", 5)) {
        handle_mcmd_line(s, c, line);
        return;
    }
    struct pmi_wire_request rq;
    pmi_wire_parse(line, &rq);
    const char *cmd = pmi_wire_field(&rq, "cmd");
    if (!cmd) {
        if (rq.n) /* otherwise a blank line */
            pmi_wire_reply(s, c, "cmd=error rc=-1 msg=request_without_cmd\n");
        return;
    }
    if (strcmp(cmd, "init") == 0) {
        const char *ver = pmi_wire_field(&rq, "pmi_version");
        if (!ver || atoi(ver) != 1) {
            pmi_wire_reply(s, c,
                           "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=-1 "
                           "msg=only_PMI_version_1_is_served\n");
            return;
        }
        pmi_wire_reply(s, c,
                       "cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0 "
                       "sctpmpi_pipeline=1\n");
        s->init(s->ctx, c);
    } else if (strcmp(cmd, "get_maxes") == 0) {
        pmi_wire_reply(s, c, "cmd=maxes kvsname_max=%d keylen_max=%d vallen_max=%d rc=0\n",
                       PMI_WIRE_KVSNAME_MAX, PMI_WIRE_KEYLEN_MAX, PMI_WIRE_VALLEN_MAX);
    } else if (strcmp(cmd, "get_my_kvsname") == 0) {
        pmi_wire_reply(s, c, "cmd=my_kvsname kvsname=%s rc=0\n", s->kvsname);
    } else if (strcmp(cmd, "get_universe_size") == 0) {
        pmi_wire_reply(s, c, "cmd=universe_size size=%d rc=0\n", s->universe_size);
    } else if (strcmp(cmd, "get_appnum") == 0) {
        pmi_wire_reply(s, c, "cmd=appnum appnum=0 rc=0\n");
    } else if (strcmp(cmd, "put") == 0) {
        handle_put(s, c, &rq);
    } else if (strcmp(cmd, "get") == 0) {
        handle_get(s, c, &rq);
    } else if (strcmp(cmd, "barrier_in") == 0) {
        if (s->barrier_in(s->ctx, c) < 0)
            pmi_wire_reply(s, c, "cmd=barrier_out rc=-1 msg=already_in_barrier\n");
    } else if (strcmp(cmd, "finalize") == 0) {
        s->finalize(s->ctx, c);
        pmi_wire_reply(s, c, "cmd=finalize_ack rc=0\n");
    } else if (strcmp(cmd, "abort") == 0) {
        const char *code = pmi_wire_field(&rq, "exitcode");
        s->abort(s->ctx, c, code ? atoi(code) : 1);
    } else if (!s->extra || !s->extra(s->ctx, c, cmd, &rq)) {
        pmi_wire_reply(s, c, "cmd=%.64s_result rc=-1 msg=unknown_command_%.64s\n", cmd, cmd);
        s->unknown(s->ctx, c, cmd);
    }
}

void pmi_wire_pump(const struct pmi_wire_server *s, struct pmi_wire_conn *c)
{
    ssize_t n = read(c->fd, c->buf + c->len, sizeof c->buf - c->len);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        close(c->fd);
        c->fd = -1;
        pmi_wire_conn_free(c);
        return;
    }
    c->len += (size_t)n;
    batch.who = c;
    char *start = c->buf, *nl;
    while (c->fd >= 0 && (nl = memchr(start, '\n', c->len - (size_t)(start - c->buf)))) {
        *nl = '\0';
        handle_line(s, c, start);
        start = nl + 1;
    }
    batch.who = NULL;
    if (batch.len && c->fd >= 0)
        send_bytes(s, c, batch.buf, batch.len);
    batch.len = 0;
    size_t rest = c->len - (size_t)(start - c->buf);
    memmove(c->buf, start, rest);
    c->len = rest;
    if (c->len == sizeof c->buf) {
        s->overlong(s->ctx, c);
        if (c->fd >= 0)
            close(c->fd);
        c->fd = -1;
    }
}
