/* pmi_client.c — the PMI-1 client and the singleton (sm_pmi1_ops, sm_pmi_singleton_ops in
 * pmi_backend.h; pmi_select.c chooses): how a rank learns its rank/size from the launcher and
 * exchanges business cards through the launcher's key-value space.
 *
 * Three ways in:
 *   PMI_FD (+ PMI_RANK, PMI_SIZE)  inherited socket: our mpiexec, MPICH hydra, Slurm --mpi=pmi2;
 *   PMI_PORT=host:port (+ PMI_ID)  hydra's -pmi-port mode: connect, then `cmd=initack`;
 *   nothing (the singleton)        rank 0 of 1, put/get served from a local table.
 * Replies are newline-terminated lines of key=value pairs, parsed in any order (Slurm puts rc
 * first and omits msg).  A launcher that closes the socket is an error, never a hang. */
#include "boot/pmi_backend.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define PMI_LINE_MAX 4096 /* one protocol line: cmd + kvsname + key + value fit easily */
#define PMI_MAX_PAIRS 32
#define PMI_KVSNAME_MAX 256

enum pmi_mode { PMI_MODE_NONE, PMI_MODE_SOCKET, PMI_MODE_SINGLETON };

struct pmi_pair {
    char *key;
    char *value;
};

/* One parsed reply: pairs point into line[]. */
struct pmi_reply {
    char line[PMI_LINE_MAX];
    struct pmi_pair pairs[PMI_MAX_PAIRS];
    int npairs;
};

struct singleton_entry {
    char *key;
    char *value;
    struct singleton_entry *next;
};

static struct {
    enum pmi_mode mode;
    int fd;
    int rank, size;
    int keylen_max, vallen_max;
    int pipeline; /* the server answers pipelined requests in order (sctpmpi_pipeline=1) */
    char kvsname[PMI_KVSNAME_MAX];
    char inbuf[PMI_LINE_MAX]; /* bytes read past the current line */
    size_t inlen;
    struct singleton_entry *table;
} pmi = { .mode = PMI_MODE_NONE, .fd = -1 };

/* ---------- wire I/O ---------- */

static int write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);
        if (n < 0 && errno == ENOTSOCK)
            n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            sm_pmi_error("write to launcher failed: %s", strerror(errno));
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int send_line(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int send_line(const char *fmt, ...)
{
    char line[PMI_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof line) {
        sm_pmi_error("request too long");
        return -1;
    }
    return write_all(pmi.fd, line, (size_t)n);
}

/* Reads one '\n'-terminated line into out (without the newline).  EOF is an error. */
static int read_line(char *out, size_t outsz)
{
    for (;;) {
        char *nl = memchr(pmi.inbuf, '\n', pmi.inlen);
        if (nl) {
            size_t linelen = (size_t)(nl - pmi.inbuf);
            if (linelen >= outsz) {
                sm_pmi_error("reply line too long (%zu bytes)", linelen);
                return -1;
            }
            memcpy(out, pmi.inbuf, linelen);
            out[linelen] = '\0';
            pmi.inlen -= linelen + 1;
            memmove(pmi.inbuf, nl + 1, pmi.inlen);
            return 0;
        }
        if (pmi.inlen == sizeof pmi.inbuf) {
            sm_pmi_error("reply line too long (no newline in %zu bytes)", pmi.inlen);
            return -1;
        }
        ssize_t n = read(pmi.fd, pmi.inbuf + pmi.inlen, sizeof pmi.inbuf - pmi.inlen);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            sm_pmi_error("read from launcher failed: %s", strerror(errno));
            return -1;
        }
        if (n == 0) {
            sm_pmi_error("launcher closed the PMI connection (did mpiexec die?)");
            return -1;
        }
        pmi.inlen += (size_t)n;
    }
}

/* Splits "cmd=x a=b c=d" into pairs.  A token without '=' continues the previous value
 * (so a last value containing spaces survives). */
static int parse_reply(struct pmi_reply *r)
{
    r->npairs = 0;
    char *save = NULL;
    for (char *tok = strtok_r(r->line, " \t\r", &save); tok;
         tok = strtok_r(NULL, " \t\r", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            if (r->npairs > 0) {
                /* undo strtok's NUL that ended the previous value: it now runs through tok */
                char *prev = r->pairs[r->npairs - 1].value;
                prev[strlen(prev)] = ' ';
            }
            continue;
        }
        if (r->npairs == PMI_MAX_PAIRS) {
            sm_pmi_error("reply has too many fields");
            return -1;
        }
        *eq = '\0';
        r->pairs[r->npairs].key = tok;
        r->pairs[r->npairs].value = eq + 1;
        r->npairs++;
    }
    return 0;
}

static const char *reply_get(const struct pmi_reply *r, const char *key)
{
    for (int i = 0; i < r->npairs; i++)
        if (strcmp(r->pairs[i].key, key) == 0)
            return r->pairs[i].value;
    return NULL;
}

/* Reads one reply and checks that its cmd is `expect` and (if present) rc is 0.
 * Returns 0, or -1 with a message; *rc_out gets the rc (0 if absent). */
static int read_reply(struct pmi_reply *r, const char *expect, int *rc_out, int quiet_rc)
{
    if (read_line(r->line, sizeof r->line) < 0 || parse_reply(r) < 0)
        return -1;
    const char *cmd = reply_get(r, "cmd");
    if (!cmd || strcmp(cmd, expect) != 0) {
        const char *msg = reply_get(r, "msg");
        sm_pmi_error("expected cmd=%s from launcher, got cmd=%s%s%s", expect,
                     cmd ? cmd : "(none)", msg ? " msg=" : "", msg ? msg : "");
        return -1;
    }
    const char *rc = reply_get(r, "rc");
    int rcv = rc ? atoi(rc) : 0;
    if (rc_out)
        *rc_out = rcv;
    if (rcv != 0) {
        if (!quiet_rc) {
            const char *msg = reply_get(r, "msg");
            sm_pmi_error("cmd=%s failed: rc=%d%s%s", expect, rcv, msg ? " msg=" : "",
                         msg ? msg : "");
        }
        return -1;
    }
    return 0;
}

/* ---------- connecting ---------- */

static int connect_pmi_port(const char *hostport)
{
    char host[256];
    const char *colon = strrchr(hostport, ':');
    if (!colon || (size_t)(colon - hostport) >= sizeof host || colon == hostport) {
        sm_pmi_error("PMI_PORT=%s is not host:port", hostport);
        return -1;
    }
    memcpy(host, hostport, (size_t)(colon - hostport));
    host[colon - hostport] = '\0';
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
    int gai = getaddrinfo(host, colon + 1, &hints, &res);
    if (gai != 0) {
        sm_pmi_error("cannot resolve PMI_PORT=%s: %s", hostport, gai_strerror(gai));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            continue;
        }
        if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
            break;
        err = errno;
        close(fd);
        fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0)
        sm_pmi_error("cannot connect to PMI_PORT=%s: %s", hostport, strerror(err));
    return fd;
}

/* hydra -pmi-port handshake: we send initack with our id, it answers initack then set size,
 * set rank, set debug (any order tolerated). */
static int port_handshake(void)
{
    int id = 0;
    if (sm_pmi_env_int("PMI_ID", &id) < 0) {
        sm_pmi_error("PMI_PORT is set but PMI_ID is missing or invalid");
        return -1;
    }
    if (send_line("cmd=initack pmiid=%d\n", id) < 0)
        return -1;
    struct pmi_reply r;
    if (read_reply(&r, "initack", NULL, 0) < 0)
        return -1;
    int have_rank = 0, have_size = 0;
    for (int i = 0; i < 3; i++) {
        if (read_reply(&r, "set", NULL, 0) < 0)
            return -1;
        const char *v;
        if ((v = reply_get(&r, "size")) != NULL) {
            pmi.size = atoi(v);
            have_size = 1;
        } else if ((v = reply_get(&r, "rank")) != NULL) {
            pmi.rank = atoi(v);
            have_rank = 1;
        }
    }
    if (!have_rank || !have_size) {
        sm_pmi_error("launcher did not send rank and size after initack");
        return -1;
    }
    return 0;
}

/* init, get_maxes, get_my_kvsname: common to PMI_FD and PMI_PORT modes. */
static int socket_handshake(void)
{
    struct pmi_reply r;
    if (send_line("cmd=init pmi_version=1 pmi_subversion=1\n") < 0 ||
        read_reply(&r, "response_to_init", NULL, 0) < 0)
        return -1;
    const char *pl = reply_get(&r, "sctpmpi_pipeline");
    pmi.pipeline = pl && strcmp(pl, "1") == 0;
    if (send_line("cmd=get_maxes\n") < 0 || read_reply(&r, "maxes", NULL, 0) < 0)
        return -1;
    const char *v;
    pmi.keylen_max = (v = reply_get(&r, "keylen_max")) ? atoi(v) : 64;
    pmi.vallen_max = (v = reply_get(&r, "vallen_max")) ? atoi(v) : 1024;
    if (send_line("cmd=get_my_kvsname\n") < 0 || read_reply(&r, "my_kvsname", NULL, 0) < 0)
        return -1;
    v = reply_get(&r, "kvsname");
    if (!v || !*v || strlen(v) >= sizeof pmi.kvsname) {
        sm_pmi_error("launcher sent no usable kvsname");
        return -1;
    }
    strcpy(pmi.kvsname, v);
    return 0;
}

static void close_socket(void)
{
    if (pmi.fd >= 0)
        close(pmi.fd);
    pmi.fd = -1;
    pmi.inlen = 0;
}

static int singleton_init(int *rank, int *size)
{
    if (pmi.mode == PMI_MODE_NONE) {
        pmi.mode = PMI_MODE_SINGLETON;
        pmi.rank = 0;
        pmi.size = 1;
        pmi.keylen_max = 64;
        pmi.vallen_max = 1024;
        snprintf(pmi.kvsname, sizeof pmi.kvsname, "singleton_kvs_%d", (int)getpid());
    }
    *rank = pmi.rank;
    *size = pmi.size;
    return 0;
}

static int pmi1_init(int *rank, int *size)
{
    if (pmi.mode != PMI_MODE_NONE) {
        *rank = pmi.rank;
        *size = pmi.size;
        return 0;
    }
    const char *port = getenv("PMI_PORT");
    if (getenv("PMI_FD")) {
        if (sm_pmi_env_int("PMI_FD", &pmi.fd) < 0 || sm_pmi_env_int("PMI_RANK", &pmi.rank) < 0 ||
            sm_pmi_env_int("PMI_SIZE", &pmi.size) < 0) {
            sm_pmi_error("PMI_FD is set but PMI_FD/PMI_RANK/PMI_SIZE are not all valid integers");
            pmi.fd = -1;
            return -1;
        }
        if (fcntl(pmi.fd, F_GETFD) < 0) {
            sm_pmi_error("PMI_FD=%d is not an open descriptor", pmi.fd);
            pmi.fd = -1;
            return -1;
        }
        /* our own children (e.g. system()) must not keep the launcher's socket open */
        (void)fcntl(pmi.fd, F_SETFD, FD_CLOEXEC);
    } else if (port && *port) {
        pmi.fd = connect_pmi_port(port);
        if (pmi.fd < 0)
            return -1;
        if (port_handshake() < 0) {
            close_socket();
            return -1;
        }
    } else {
        sm_pmi_error(
            "PMI-1 was asked for (SCTPMPI_PMI=pmi1), but neither PMI_FD nor PMI_PORT is set");
        return -1;
    }
    if (socket_handshake() < 0) {
        close_socket();
        return -1;
    }
    if (pmi.size <= 0 || pmi.rank >= pmi.size) {
        sm_pmi_error("launcher gave rank %d of size %d", pmi.rank, pmi.size);
        close_socket();
        return -1;
    }
    pmi.mode = PMI_MODE_SOCKET;
    *rank = pmi.rank;
    *size = pmi.size;
    return 0;
}

static int pmi1_get(int src, const char *key, char *value, size_t len);

/* Hydra and Slurm put PMI_process_mapping into the job's KVS; our mpiexec does not (it sets
 * SCTPMPI_LOCAL_RANKS instead), so the answer there is -1. */
static int pmi1_local(int *local_size, int *local_rank)
{
    static int asked, lsize = -1, lrank = -1;
    if (pmi.mode == PMI_MODE_SINGLETON) {
        *local_size = 1, *local_rank = 0;
        return 0;
    }
    if (!asked && pmi.mode == PMI_MODE_SOCKET) {
        char map[1024];
        asked = 1;
        if (pmi1_get(-1, "PMI_process_mapping", map, sizeof map) == 0 &&
            sm_pmi_parse_mapping(map, pmi.rank, pmi.size, &lsize, &lrank) < 0)
            lsize = lrank = -1;
    }
    *local_size = lsize;
    *local_rank = lrank;
    return 0;
}

static int check_ready(const char *what)
{
    if (pmi.mode == PMI_MODE_NONE) {
        sm_pmi_error("%s called before sm_pmi_init", what);
        return -1;
    }
    return 0;
}

/* Keys and values travel unescaped: no spaces, '=' in keys or newlines allowed. */
static int check_token(const char *what, const char *s, int maxlen, int allow_eq)
{
    size_t len = strlen(s);
    if (len == 0 || (maxlen > 0 && len >= (size_t)maxlen)) {
        sm_pmi_error("%s of length %zu is empty or exceeds the launcher's limit %d", what, len,
                     maxlen);
        return -1;
    }
    for (const char *p = s; *p; p++) {
        if (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t' || (!allow_eq && *p == '=')) {
            sm_pmi_error("%s \"%.40s\" contains a character PMI-1 cannot carry", what, s);
            return -1;
        }
    }
    return 0;
}

static struct singleton_entry *singleton_find(const char *key)
{
    for (struct singleton_entry *e = pmi.table; e; e = e->next)
        if (strcmp(e->key, key) == 0)
            return e;
    return NULL;
}

static int pmi1_put(const char *key, const char *value)
{
    if (check_ready("PMI put") < 0 || check_token("key", key, pmi.keylen_max, 0) < 0 ||
        check_token("value", value, pmi.vallen_max, 1) < 0)
        return -1;
    if (pmi.mode == PMI_MODE_SINGLETON) {
        struct singleton_entry *e = singleton_find(key);
        char *copy = strdup(value);
        if (!copy) {
            sm_pmi_error("out of memory");
            return -1;
        }
        if (e) {
            free(e->value);
            e->value = copy;
            return 0;
        }
        e = calloc(1, sizeof *e);
        if (!e || !(e->key = strdup(key))) {
            free(e);
            free(copy);
            sm_pmi_error("out of memory");
            return -1;
        }
        e->value = copy;
        e->next = pmi.table;
        pmi.table = e;
        return 0;
    }
    struct pmi_reply r;
    if (send_line("cmd=put kvsname=%s key=%s value=%s\n", pmi.kvsname, key, value) < 0 ||
        read_reply(&r, "put_result", NULL, 0) < 0)
        return -1;
    return 0;
}

static int pmi1_get(int src, const char *key, char *value, size_t len)
{
    (void)src;
    if (check_ready("PMI get") < 0 || check_token("key", key, pmi.keylen_max, 0) < 0)
        return -1;
    const char *v;
    if (pmi.mode == PMI_MODE_SINGLETON) {
        struct singleton_entry *e = singleton_find(key);
        if (!e)
            return -1;
        v = e->value;
        if (strlen(v) >= len) {
            sm_pmi_error("value of key %s does not fit the caller's %zu-byte buffer", key, len);
            return -1;
        }
        strcpy(value, v);
        return 0;
    }
    struct pmi_reply r;
    int rc = 0;
    if (send_line("cmd=get kvsname=%s key=%s\n", pmi.kvsname, key) < 0)
        return -1;
    if (read_reply(&r, "get_result", &rc, 1) < 0)
        return -1; /* absent key: rc != 0, quietly -1 as pmi.h says */
    v = reply_get(&r, "value");
    if (!v) {
        sm_pmi_error("get_result for key %s carries no value", key);
        return -1;
    }
    if (strlen(v) >= len) {
        sm_pmi_error("value of key %s does not fit the caller's %zu-byte buffer", key, len);
        return -1;
    }
    strcpy(value, v);
    return 0;
}

/* Against our mpiexec or proxy (sctpmpi_pipeline=1 at init) the gets go out in batches and
 * their replies are read afterwards: one wait per batch instead of one per key. */
#define PMI_PIPELINE_BATCH 64
static int pmi1_get_many(int n, const int *srcs, const char *const *keys, char *const *values,
                         size_t len)
{
    if (pmi.mode != PMI_MODE_SOCKET || !pmi.pipeline) {
        for (int i = 0; i < n; i++)
            if (pmi1_get(srcs ? srcs[i] : -1, keys[i], values[i], len))
                return -1;
        return 0;
    }
    for (int base = 0; base < n; base += PMI_PIPELINE_BATCH) {
        int m = n - base < PMI_PIPELINE_BATCH ? n - base : PMI_PIPELINE_BATCH;
        char batch[PMI_PIPELINE_BATCH * 128];
        size_t blen = 0;
        for (int i = base; i < base + m; i++) {
            if (check_token("key", keys[i], pmi.keylen_max, 0) < 0)
                return -1;
            int w = snprintf(batch + blen, sizeof batch - blen, "cmd=get kvsname=%s key=%s\n",
                             pmi.kvsname, keys[i]);
            if (w < 0 || (size_t)w >= sizeof batch - blen) { /* long names: one by one */
                for (int k = base; k < base + m; k++)
                    if (pmi1_get(-1, keys[k], values[k], len))
                        return -1;
                blen = 0;
                m = 0;
                break;
            }
            blen += (size_t)w;
        }
        if (blen && write_all(pmi.fd, batch, blen) < 0)
            return -1;
        for (int i = base; i < base + m; i++) {
            struct pmi_reply r;
            int rc = 0;
            if (read_reply(&r, "get_result", &rc, 1) < 0)
                return -1; /* the connection is now out of step: callers give up */
            const char *v = reply_get(&r, "value");
            if (!v || strlen(v) >= len) {
                sm_pmi_error("get_result for key %s: no value, or too long", keys[i]);
                return -1;
            }
            strcpy(values[i], v);
        }
    }
    return 0;
}

static int pmi1_barrier(void)
{
    if (check_ready("PMI barrier") < 0)
        return -1;
    if (pmi.mode == PMI_MODE_SINGLETON)
        return 0;
    struct pmi_reply r;
    if (send_line("cmd=barrier_in\n") < 0 || read_reply(&r, "barrier_out", NULL, 0) < 0)
        return -1;
    return 0;
}

static int pmi1_abort(int code, const char *msg)
{
    if (msg && *msg)
        fprintf(stderr, "sctpmpi: rank %d aborting (code %d): %s\n", pmi.rank, code, msg);
    if (pmi.mode != PMI_MODE_SOCKET)
        return 0; /* singleton or not initialised: nobody to tell; the caller exits */
    /* exitcode is the only field every PMI-1 server understands; the message went to stderr */
    return send_line("cmd=abort exitcode=%d\n", code);
}

static int pmi1_finalize(void)
{
    if (pmi.mode == PMI_MODE_NONE)
        return 0;
    int ret = 0;
    if (pmi.mode == PMI_MODE_SOCKET) {
        struct pmi_reply r;
        if (send_line("cmd=finalize\n") < 0 || read_reply(&r, "finalize_ack", NULL, 0) < 0)
            ret = -1;
        close_socket();
    } else {
        while (pmi.table) {
            struct singleton_entry *e = pmi.table;
            pmi.table = e->next;
            free(e->key);
            free(e->value);
            free(e);
        }
    }
    pmi.mode = PMI_MODE_NONE;
    return ret;
}

/* ---- commands beyond the key-value space (spawn, name service) ---- */
static int pmi1_command(const char *request, char *reply, size_t len)
{
    if (pmi.mode != PMI_MODE_SOCKET) {
        snprintf(reply, len, "no launcher serves this process (singleton)");
        return -1;
    }
    if (!pmi.pipeline) { /* not sctpmpi's mpiexec: its children would not find the parents */
        snprintf(reply, len,
                 "not supported under this launcher (a PMI-1 server other than sctpmpi's "
                 "mpiexec)");
        return -1;
    }
    if (write_all(pmi.fd, request, strlen(request)) < 0 || read_line(reply, len) < 0) {
        snprintf(reply, len, "the PMI connection to the launcher failed");
        return -1;
    }
    return 0;
}

const struct sm_pmi_ops sm_pmi1_ops = {
    .command = pmi1_command,
    .name = "pmi1",
    .init = pmi1_init,
    .local = pmi1_local,
    .put = pmi1_put,
    .get = pmi1_get,
    .get_many = pmi1_get_many,
    .barrier = pmi1_barrier,
    .abort = pmi1_abort,
    .finalize = pmi1_finalize,
};

const struct sm_pmi_ops sm_pmi_singleton_ops = {
    .name = "singleton",
    .init = singleton_init,
    .local = pmi1_local,
    .put = pmi1_put,
    .get = pmi1_get,
    .barrier = pmi1_barrier,
    .abort = pmi1_abort,
    .finalize = pmi1_finalize,
};
