/* pmi2_client.c — the PMI-2 wire protocol client (sm_pmi2_ops, pmi_backend.h), as served by
 * Slurm's `srun --mpi=pmi2` and MPICH hydra on an inherited socket (PMI_FD).
 *
 * The exchange opens with one PMI-1 line, `cmd=init pmi_version=2 pmi_subversion=0\n`,
 * answered by `cmd=response_to_init ... rc=0\n`.  Every later message either way is a 6-byte
 * ASCII length (decimal, space-padded) followed by that many bytes of `cmd=NAME;key=value;...;`
 * where a ';' inside a value is doubled.  Used here: fullinit, job-getid, kvs-put, kvs-fence,
 * kvs-get, info-getjobattr (PMI_process_mapping, for the ranks on this host), abort (no
 * reply), finalize.  Replies are read field by field in any order; `found` and `flag` both
 * mean "the key exists".  A launcher that closes the socket is an error, never a hang. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "boot/pmi_backend.h"

#define PMI2_MSG_MAX (64 * 1024) /* a longer reply is a protocol error */
#define PMI2_MAX_FIELDS 64
#define PMI2_KEYLEN_MAX 64
#define PMI2_VALLEN_MAX 1024

struct pmi2_msg {
    char buf[PMI2_MSG_MAX + 1];
    char *key[PMI2_MAX_FIELDS], *val[PMI2_MAX_FIELDS];
    int n;
};

static struct {
    int up;
    int fd;
    int rank, size;
    char jobid[256];
    int local_size, local_rank; /* -1 until asked */
    struct pmi2_msg msg;        /* the last reply (large: kept out of the stack) */
} p2 = { .fd = -1, .local_size = -2 };

static int write_all(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(p2.fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(p2.fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            sm_pmi_error("PMI-2: write to launcher failed: %s", strerror(errno));
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int read_exact(char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = read(p2.fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            sm_pmi_error("PMI-2: read from launcher failed: %s", strerror(errno));
            return -1;
        }
        if (n == 0) {
            sm_pmi_error("PMI-2: launcher closed the PMI connection (did srun die?)");
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

/* ---------- building a command ---------- */

struct cmdbuf {
    char b[8 + PMI2_MSG_MAX];
    size_t len; /* bytes after the 6-byte header */
    int overflow;
};

static void cmd_raw(struct cmdbuf *c, const char *s)
{
    for (; *s; s++) {
        if (c->len >= PMI2_MSG_MAX) {
            c->overflow = 1;
            return;
        }
        c->b[6 + c->len++] = *s;
    }
}

static void cmd_start(struct cmdbuf *c, const char *name)
{
    c->len = 0;
    c->overflow = 0;
    cmd_raw(c, "cmd=");
    cmd_raw(c, name);
    cmd_raw(c, ";");
}

/* key=value; with ';' in the value doubled */
static void cmd_add(struct cmdbuf *c, const char *key, const char *value)
{
    cmd_raw(c, key);
    cmd_raw(c, "=");
    for (const char *s = value; *s; s++) {
        char one[3] = { *s, 0, 0 };
        if (*s == ';')
            one[1] = ';';
        cmd_raw(c, one);
    }
    cmd_raw(c, ";");
}

static int cmd_send(struct cmdbuf *c)
{
    if (c->overflow) {
        sm_pmi_error("PMI-2: request longer than %d bytes", PMI2_MSG_MAX);
        return -1;
    }
    char hdr[8];
    snprintf(hdr, sizeof hdr, "%-6zu", c->len);
    memcpy(c->b, hdr, 6);
    return write_all(c->b, 6 + c->len);
}

/* ---------- reading a reply ---------- */

static const char *msg_get(const char *key)
{
    for (int i = 0; i < p2.msg.n; i++)
        if (!strcmp(p2.msg.key[i], key))
            return p2.msg.val[i];
    return NULL;
}

/* Splits buf (len bytes) in place into key/value fields: ';' ends a field, ";;" is a ';'. */
static int msg_parse(size_t len)
{
    struct pmi2_msg *m = &p2.msg;
    m->n = 0;
    char *in = m->buf, *end = m->buf + len, *out = m->buf;
    while (in < end) {
        if (m->n == PMI2_MAX_FIELDS) {
            sm_pmi_error("PMI-2: reply has more than %d fields", PMI2_MAX_FIELDS);
            return -1;
        }
        char *key = out;
        while (in < end && *in != '=' && *in != ';')
            *out++ = *in++;
        if (in == end || *in != '=') {
            sm_pmi_error("PMI-2: malformed reply field (no '=')");
            return -1;
        }
        *out++ = '\0';
        in++;
        char *val = out;
        for (;;) {
            if (in == end) {
                sm_pmi_error("PMI-2: reply field not terminated by ';'");
                return -1;
            }
            if (*in == ';') {
                if (in + 1 < end && in[1] == ';') {
                    *out++ = ';';
                    in += 2;
                    continue;
                }
                in++;
                break;
            }
            *out++ = *in++;
        }
        *out++ = '\0';
        m->key[m->n] = key;
        m->val[m->n] = val;
        m->n++;
    }
    return 0;
}

/* Reads one reply and checks that it is cmd=`expect` with rc=0 (rc absent counts as 0). */
static int recv_reply(const char *expect)
{
    char hdr[7];
    if (read_exact(hdr, 6) < 0)
        return -1;
    hdr[6] = '\0';
    char *endp;
    long len = strtol(hdr, &endp, 10);
    while (*endp == ' ')
        endp++;
    if (*endp || len <= 0 || len > PMI2_MSG_MAX) {
        sm_pmi_error("PMI-2: bad length header \"%.6s\" from launcher", hdr);
        return -1;
    }
    if (read_exact(p2.msg.buf, (size_t)len) < 0)
        return -1;
    p2.msg.buf[len] = '\0';
    if (msg_parse((size_t)len) < 0)
        return -1;
    const char *cmd = msg_get("cmd");
    if (!cmd || strcmp(cmd, expect) != 0) {
        sm_pmi_error("PMI-2: expected cmd=%s from launcher, got cmd=%s", expect,
                     cmd ? cmd : "(none)");
        return -1;
    }
    const char *rc = msg_get("rc");
    if (rc && atoi(rc) != 0) {
        const char *em = msg_get("errmsg");
        sm_pmi_error("PMI-2: cmd=%s failed: rc=%s%s%s", expect, rc, em ? " errmsg=" : "",
                     em ? em : "");
        return -1;
    }
    return 0;
}

static int truthy(const char *v)
{
    return v && (!strcasecmp(v, "TRUE") || !strcasecmp(v, "yes") || !strcmp(v, "1"));
}

/* ---------- the operations ---------- */

/* the opening PMI-1 line and its reply, read a byte at a time so nothing after it is eaten */
static int version_handshake(void)
{
    static const char init[] = "cmd=init pmi_version=2 pmi_subversion=0\n";
    if (write_all(init, sizeof init - 1) < 0)
        return -1;
    char line[256];
    size_t n = 0;
    for (;;) {
        if (n + 1 >= sizeof line) {
            sm_pmi_error("PMI-2: reply to cmd=init too long");
            return -1;
        }
        if (read_exact(line + n, 1) < 0)
            return -1;
        if (line[n] == '\n')
            break;
        n++;
    }
    line[n] = '\0';
    if (strncmp(line, "cmd=response_to_init", 20) != 0) {
        sm_pmi_error("PMI-2: unexpected reply to cmd=init: %s", line);
        return -1;
    }
    const char *rc = strstr(line, " rc=");
    const char *ver = strstr(line, "pmi_version=");
    if ((rc && atoi(rc + 4) != 0) || (ver && atoi(ver + 12) != 2)) {
        sm_pmi_error("PMI-2: the launcher refused PMI version 2 (%s); try SCTPMPI_PMI=pmi1",
                     line);
        return -1;
    }
    return 0;
}

static int pmi2_init(int *rank, int *size)
{
    if (p2.up) {
        *rank = p2.rank;
        *size = p2.size;
        return 0;
    }
    if (sm_pmi_env_int("PMI_FD", &p2.fd) < 0 || fcntl(p2.fd, F_GETFD) < 0) {
        sm_pmi_error("PMI-2 needs PMI_FD, an open socket to the launcher; PMI_FD=%s",
                     getenv("PMI_FD") ? getenv("PMI_FD") : "(unset)");
        p2.fd = -1;
        return -1;
    }
    (void)fcntl(p2.fd, F_SETFD, FD_CLOEXEC);
    struct cmdbuf *c = malloc(sizeof *c);
    if (!c) {
        sm_pmi_error("out of memory");
        return -1;
    }
    int envrank = -1;
    const char *jobenv = getenv("PMI_JOBID");
    char rankstr[16];
    if (sm_pmi_env_int("PMI_RANK", &envrank) < 0)
        envrank = -1;
    snprintf(rankstr, sizeof rankstr, "%d", envrank);
    int ret = -1;
    if (version_handshake() < 0)
        goto out;
    cmd_start(c, "fullinit");
    cmd_add(c, "pmijobid", jobenv && *jobenv ? jobenv : "-1");
    cmd_add(c, "pmirank", rankstr);
    cmd_add(c, "threaded", "FALSE");
    if (cmd_send(c) < 0 || recv_reply("fullinit-response") < 0)
        goto out;
    const char *r = msg_get("rank"), *s = msg_get("size");
    if (!r || !s) {
        sm_pmi_error("PMI-2: fullinit-response without rank or size");
        goto out;
    }
    p2.rank = atoi(r);
    p2.size = atoi(s);
    if (p2.size <= 0 || p2.rank < 0 || p2.rank >= p2.size) {
        sm_pmi_error("PMI-2: launcher gave rank %d of size %d", p2.rank, p2.size);
        goto out;
    }
    cmd_start(c, "job-getid");
    if (cmd_send(c) < 0 || recv_reply("job-getid-response") < 0)
        goto out;
    const char *j = msg_get("jobid");
    snprintf(p2.jobid, sizeof p2.jobid, "%s", j ? j : "");
    p2.up = 1;
    p2.local_size = -2;
    *rank = p2.rank;
    *size = p2.size;
    ret = 0;
out:
    free(c);
    if (ret < 0) {
        close(p2.fd);
        p2.fd = -1;
    }
    return ret;
}

static int check_up(const char *what)
{
    if (!p2.up) {
        sm_pmi_error("PMI-2: %s before init", what);
        return -1;
    }
    return 0;
}

static int check_key(const char *key)
{
    size_t len = strlen(key);
    if (len == 0 || len >= PMI2_KEYLEN_MAX || strpbrk(key, "=;")) {
        sm_pmi_error("PMI-2: key \"%.40s\" is empty, longer than %d bytes or holds '=' or ';'",
                     key, PMI2_KEYLEN_MAX - 1);
        return -1;
    }
    return 0;
}

/* a simple request with one reply; the caller reads the reply's fields with msg_get */
static int request(const char *name, const char *k1, const char *v1, const char *k2,
                   const char *v2, const char *k3, const char *v3)
{
    struct cmdbuf *c = malloc(sizeof *c);
    if (!c) {
        sm_pmi_error("out of memory");
        return -1;
    }
    char resp[64];
    snprintf(resp, sizeof resp, "%s-response", name);
    cmd_start(c, name);
    if (k1)
        cmd_add(c, k1, v1);
    if (k2)
        cmd_add(c, k2, v2);
    if (k3)
        cmd_add(c, k3, v3);
    int rc = cmd_send(c) < 0 || recv_reply(resp) < 0 ? -1 : 0;
    free(c);
    return rc;
}

static int pmi2_put(const char *key, const char *value)
{
    if (check_up("put") < 0 || check_key(key) < 0)
        return -1;
    if (strlen(value) >= PMI2_VALLEN_MAX) {
        sm_pmi_error("PMI-2: value of key %s is longer than %d bytes", key, PMI2_VALLEN_MAX - 1);
        return -1;
    }
    return request("kvs-put", "key", key, "value", value, NULL, NULL);
}

static int pmi2_get(int src, const char *key, char *value, size_t len)
{
    if (check_up("get") < 0 || check_key(key) < 0)
        return -1;
    char srcid[16];
    snprintf(srcid, sizeof srcid, "%d", src);
    if (request("kvs-get", "jobid", p2.jobid, "srcid", srcid, "key", key) < 0)
        return -1;
    const char *found = msg_get("found");
    if (!found)
        found = msg_get("flag");
    const char *v = msg_get("value");
    if (!truthy(found) || !v)
        return -1; /* absent: quietly -1 */
    if (strlen(v) >= len) {
        sm_pmi_error("PMI-2: value of key %s does not fit the caller's %zu-byte buffer", key,
                     len);
        return -1;
    }
    strcpy(value, v);
    return 0;
}

static int pmi2_barrier(void)
{
    if (check_up("fence") < 0)
        return -1;
    return request("kvs-fence", NULL, NULL, NULL, NULL, NULL, NULL);
}

static int pmi2_local(int *local_size, int *local_rank)
{
    *local_size = *local_rank = -1;
    if (check_up("info-getjobattr") < 0)
        return -1;
    if (p2.local_size == -2) { /* ask once */
        p2.local_size = p2.local_rank = -1;
        if (request("info-getjobattr", "key", "PMI_process_mapping", NULL, NULL, NULL, NULL) < 0)
            return -1;
        const char *found = msg_get("found");
        if (!found)
            found = msg_get("flag");
        const char *v = msg_get("value");
        if (truthy(found) && v &&
            sm_pmi_parse_mapping(v, p2.rank, p2.size, &p2.local_size, &p2.local_rank) < 0) {
            sm_pmi_error("PMI-2: cannot parse PMI_process_mapping=%s", v);
            p2.local_size = p2.local_rank = -1;
        }
    }
    *local_size = p2.local_size;
    *local_rank = p2.local_rank;
    return 0;
}

static int pmi2_abort(int code, const char *msg)
{
    if (msg && *msg)
        fprintf(stderr, "sctpmpi: rank %d aborting (code %d): %s\n", p2.rank, code, msg);
    if (!p2.up)
        return 0;
    struct cmdbuf *c = malloc(sizeof *c);
    if (!c)
        return -1;
    cmd_start(c, "abort");
    cmd_add(c, "isworld", "TRUE");
    cmd_add(c, "msg", msg && *msg ? msg : "aborted");
    int rc = cmd_send(c); /* no reply: the launcher ends the job */
    free(c);
    return rc;
}

static int pmi2_finalize(void)
{
    if (!p2.up)
        return 0;
    int rc = request("finalize", NULL, NULL, NULL, NULL, NULL, NULL);
    close(p2.fd);
    p2.fd = -1;
    p2.up = 0;
    return rc;
}

const struct sm_pmi_ops sm_pmi2_ops = {
    .name = "pmi2",
    .init = pmi2_init,
    .local = pmi2_local,
    .put = pmi2_put,
    .get = pmi2_get,
    .barrier = pmi2_barrier,
    .abort = pmi2_abort,
    .finalize = pmi2_finalize,
};
