/* dynamic_port.c — joining two groups of processes at run time: MPI_Open_port/Close_port,
 * MPI_Comm_accept/connect and MPI_Comm_join (docs/launcher.md "Dynamic processes").
 *
 * A port is a listening TCP socket of the accepting root; its name
 * "sctpmpi-port:IP:PORT:TOKEN" carries a random 128-bit token that a connecting root must
 * present (compared in constant time) before anything else is said.  Over that connection
 * (or the user's socket for MPI_Comm_join) the two roots swap descriptions of their groups:
 * the transport, then per process its universe identity (job id, rank), its job's secret and
 * its business card.  Each root broadcasts the other group's description within its group,
 * every process adds those processes to its peer table (engine/peers_dyn.c) and the transport
 * reaches them lazily, presenting their job's secret in its hello.  A fresh context id is
 * agreed over the roots' connection, and the result is an intercommunicator. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "api/comm_inter.h"
#include "api/ctx_agree.h"
#include "api/dynamic.h"
#include "util/util.h"

#define PORT_PREFIX "sctpmpi-port:"
#define TOKEN_HEX 32
#define HELLO_MAGIC "SMPIPORT"
#define ANSWER_OK "SMPIPOK1"
#define ANSWER_BAD "SMPIPBAD"
#define FAIL_MAGIC "SMPIFAIL" /* from mpiexec: a spawned job ended before connecting */
#define MAX_BLOB (64u << 20)

struct port {
    struct port *next;
    char name[MPI_MAX_PORT_NAME];
    char token[TOKEN_HEX + 1];
    int fd;
};
static struct port *ports;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

double sm_dyn_deadline(void)
{
    long s = sm_env_int("SCTPMPI_DYN_TIMEOUT", 60);
    return s > 0 ? now_s() + (double)s : 0;
}

static int random_token(char *out)
{
    unsigned char b[TOKEN_HEX / 2];
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f)
        return -1;
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    if (n != sizeof b)
        return -1;
    for (size_t i = 0; i < sizeof b; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
    return 0;
}

/* the address a port names: SCTPMPI_PORT_ADDR, else the TCP transport's, else the first of
 * SCTPMPI_ADDRS, else loopback */
static const char *port_addr(char *buf, size_t len)
{
    const char *e = sm_env_str("SCTPMPI_PORT_ADDR", "");
    if (!*e)
        e = sm_env_str("SCTPMPI_TCP_ADDR", "");
    if (!*e) {
        const char *l = sm_env_str("SCTPMPI_ADDRS", "");
        size_t n = strcspn(l, ", ");
        snprintf(buf, len, "%.*s", (int)n, l);
        e = buf;
    }
    return *e ? e : "127.0.0.1";
}

/* Waits until fd is ready for ev (progressing the engine meanwhile): 1 ready, 0 deadline
 * passed (deadline 0: none), -1 error. */
int sm_dyn_wait_fd(int fd, short ev, double deadline)
{
    for (;;) {
        struct pollfd p = { .fd = fd, .events = ev };
        int n = poll(&p, 1, 2);
        if (n > 0)
            return (p.revents & (POLLERR | POLLNVAL)) && !(p.revents & ev) ? -1 : 1;
        if (n < 0 && errno != EINTR)
            return -1;
        sm_progress_poll();
        if (deadline > 0 && now_s() > deadline)
            return 0;
    }
}

/* sends out and receives in at the same time (either may be empty): 0, or -1 */
static int swap_bytes(int fd, const void *out, size_t olen, void *in, size_t ilen,
                      double deadline)
{
    size_t sent = 0, got = 0;
    while (sent < olen || got < ilen) {
        short ev = (short)((sent < olen ? POLLOUT : 0) | (got < ilen ? POLLIN : 0));
        int r = sm_dyn_wait_fd(fd, ev, deadline);
        if (r <= 0)
            return -1;
        if (sent < olen) {
            ssize_t w =
                send(fd, (const char *)out + sent, olen - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w > 0)
                sent += (size_t)w;
            else if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                return -1;
        }
        if (got < ilen) {
            ssize_t n = recv(fd, (char *)in + got, ilen - got, MSG_DONTWAIT);
            if (n > 0)
                got += (size_t)n;
            else if (n == 0)
                return -1;
            else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                return -1;
        }
    }
    return 0;
}

static int swap_blob(int fd, const char *mine, char **theirs, double deadline)
{
    uint32_t ml = (uint32_t)strlen(mine), tl = 0;
    if (swap_bytes(fd, &ml, 4, &tl, 4, deadline) || tl > MAX_BLOB)
        return -1;
    char *t = sm_xmalloc((size_t)tl + 1);
    if (swap_bytes(fd, mine, ml, t, tl, deadline)) {
        free(t);
        return -1;
    }
    t[tl] = '\0';
    *theirs = t;
    return 0;
}

/* "transport=NAME\n" then one line per process: job rank secret card ("-" when empty) */
char *sm_dyn_group_blob(MPI_Comm comm)
{
    size_t cap = 256, len = 0;
    char *b = sm_xmalloc(cap);
    len = (size_t)snprintf(b, cap, "transport=%s\n", sm_dyn_transport_name());
    for (int i = 0; i < comm->size; i++) {
        uint32_t job = 0;
        int rank = 0;
        const char *secret = "", *card = "";
        sm_peer_describe(sm_comm_world_rank(comm, i), &job, &rank, &secret, &card);
        size_t need = strlen(secret) + strlen(card) + 64;
        if (len + need >= cap) {
            cap = 2 * (len + need);
            char *nb = realloc(b, cap);
            if (!nb)
                sm_die("out of memory describing a group");
            b = nb;
        }
        len += (size_t)snprintf(b + len, cap - len, "%u %d %s %s\n", job, rank,
                                *secret ? secret : "-", *card ? card : "-");
    }
    return b;
}

/* the other group's processes as peer indices of this process: 0, or an MPI error class */
int sm_dyn_adopt_blob(char *blob, int **rw, int *rsize, char *why, size_t whylen)
{
    char *save = NULL;
    char *line = strtok_r(blob, "\n", &save);
    if (!line || strncmp(line, "transport=", 10)) {
        snprintf(why, whylen, "malformed group description");
        return MPI_ERR_INTERN;
    }
    if (strcmp(line + 10, sm_dyn_transport_name())) {
        snprintf(why, whylen, "the other group uses the %s transport, this one %s", line + 10,
                 sm_dyn_transport_name());
        return MPI_ERR_PORT;
    }
    int n = 0, cap = 16;
    int *w = sm_xmalloc(sizeof(int) * (size_t)cap);
    while ((line = strtok_r(NULL, "\n", &save))) {
        unsigned job;
        int rank;
        char secret[256], card[1024];
        if (sscanf(line, "%u %d %255s %1023s", &job, &rank, secret, card) != 4) {
            free(w);
            snprintf(why, whylen, "malformed group description");
            return MPI_ERR_INTERN;
        }
        int idx = sm_peer_add(job, rank, strcmp(card, "-") ? card : NULL,
                              strcmp(secret, "-") ? secret : NULL);
        if (idx < 0) {
            free(w);
            snprintf(why, whylen,
                     idx == -MPI_ERR_UNSUPPORTED_OPERATION
                         ? "the %s transport's backend cannot reach processes of another "
                           "job (use SCTPMPI_SCTP_BACKEND=native, the default, or "
                           "SCTPMPI_TRANSPORT=tcp)"
                         : "cannot add the processes of the other group (%s transport)",
                     sm_dyn_transport_name());
            return -idx;
        }
        if (n == cap) {
            cap *= 2;
            int *nw = realloc(w, sizeof(int) * (size_t)cap);
            if (!nw)
                sm_die("out of memory");
            w = nw;
        }
        w[n++] = idx;
    }
    *rw = w;
    *rsize = n;
    return MPI_SUCCESS;
}

int sm_dyn_all_mine(MPI_Comm comm)
{
    for (int i = 0; i < comm->size; i++)
        if (sm_comm_world_rank(comm, i) >= sm_world_size())
            return 0;
    return 1;
}

struct sockmax {
    MPI_Comm comm;
    int root, fd;
};

/* the context id maximum over both groups: within each group, then between the roots */
static int sock_allmax(uint32_t v[2], void *arg)
{
    struct sockmax *a = arg;
    uint32_t mine[2] = { 0, 0 }, theirs[2] = { 0, 0 };
    int e = sm_coll_allreduce(v, mine, 2, MPI_UNSIGNED, MPI_MAX, a->comm);
    if (a->comm->rank == a->root) {
        if (swap_bytes(a->fd, mine, sizeof mine, theirs, sizeof theirs, sm_dyn_deadline()))
            e = MPI_ERR_OTHER;
        for (int i = 0; i < 2; i++)
            if (theirs[i] > mine[i])
                mine[i] = theirs[i];
    }
    int e2 = sm_coll_bcast(mine, 2, MPI_UNSIGNED, a->root, a->comm);
    v[0] = mine[0];
    v[1] = mine[1];
    return e ? e : e2;
}

/* one verdict for both groups: each group's worst, swapped by the roots, broadcast */
static int agree_err(int err, int root, int fd, MPI_Comm comm)
{
    int worst = 0, theirs = 0;
    sm_coll_allreduce(&err, &worst, 1, MPI_INT, MPI_MAX, comm);
    if (comm->rank == root) {
        if (swap_bytes(fd, &worst, sizeof worst, &theirs, sizeof theirs, sm_dyn_deadline()))
            theirs = MPI_ERR_OTHER;
        if (theirs > worst)
            worst = theirs;
    }
    sm_coll_bcast(&worst, 1, MPI_INT, root, comm);
    return worst;
}

int sm_dyn_join_groups(int fd, int root, MPI_Comm comm, int root_err, const char *root_why,
                       MPI_Comm *newcomm, const char *fn)
{
    struct {
        int err;
        uint32_t len;
        char why[200];
    } st = { 0 };
    char *theirs = NULL;
    int terr = sm_dyn_transport_ready(); /* a singleton starts its transport now */
    if (terr && terr != -MPI_ERR_UNSUPPORTED_OPERATION)
        root_err = root_err ? root_err : -terr;
    if (comm->rank == root) {
        st.err = root_err;
        if (root_err) {
            snprintf(st.why, sizeof st.why, "%s", root_why ? root_why : "");
        } else {
            char *mine = sm_dyn_group_blob(comm);
            if (swap_blob(fd, mine, &theirs, sm_dyn_deadline())) {
                st.err = MPI_ERR_PORT;
                snprintf(st.why, sizeof st.why,
                         "the other group's root went away during the exchange");
            } else {
                st.len = (uint32_t)strlen(theirs);
            }
            free(mine);
        }
    }
    sm_coll_bcast(&st, (int)sizeof st, MPI_BYTE, root, comm);
    if (st.err) {
        free(theirs);
        return sm_error(comm, st.err, fn, "%s", st.why);
    }
    if (comm->rank != root)
        theirs = sm_xmalloc((size_t)st.len + 1);
    sm_coll_bcast(theirs, (int)st.len, MPI_BYTE, root, comm);
    theirs[st.len] = '\0';
    int *rw = NULL, rsize = 0;
    char why[200] = "";
    int err = sm_dyn_adopt_blob(theirs, &rw, &rsize, why, sizeof why);
    free(theirs);
    int all = agree_err(err, root, fd, comm);
    if (all) {
        free(rw);
        return sm_error(comm, all, fn, "%s",
                        *why ? why : "the other group could not add this group's processes");
    }
    struct sockmax a = { comm, root, fd };
    uint32_t ctx = sm_ctx_agree_with(sock_allmax, &a, 2);
    int lsize = comm->size;
    int *lw = sm_xmalloc(sizeof(int) * (size_t)lsize);
    for (int i = 0; i < lsize; i++)
        lw[i] = sm_comm_world_rank(comm, i);
    MPI_Comm c = sm_inter_new(comm->rank, lsize, lw, rsize, rw, ctx);
    sm_comm_inherit(comm, c);
    free(lw);
    free(rw);
    *newcomm = c;
    return MPI_SUCCESS;
}

/* ---- ports ---------------------------------------------------------------------------- */
int sm_dyn_open_port(char *port_name, char *why, size_t whylen)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_ANY) };
    socklen_t sl = sizeof sa;
    struct port *p = sm_xcalloc(1, sizeof *p);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) || listen(fd, 64) ||
        getsockname(fd, (struct sockaddr *)&sa, &sl) || random_token(p->token)) {
        snprintf(why, whylen, "cannot open a listening socket: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        free(p);
        return MPI_ERR_OTHER;
    }
    char abuf[64];
    p->fd = fd;
    snprintf(p->name, sizeof p->name, PORT_PREFIX "%s:%u:%s", port_addr(abuf, sizeof abuf),
             ntohs(sa.sin_port), p->token);
    p->next = ports;
    ports = p;
    snprintf(port_name, MPI_MAX_PORT_NAME, "%s", p->name);
    return MPI_SUCCESS;
}

int sm_dyn_close_port(const char *port_name)
{
    for (struct port **pp = &ports; *pp; pp = &(*pp)->next) {
        if (!strcmp((*pp)->name, port_name)) {
            struct port *p = *pp;
            *pp = p->next;
            close(p->fd);
            free(p);
            return MPI_SUCCESS;
        }
    }
    return MPI_ERR_PORT;
}

int PMPI_Open_port(MPI_Info info, char *port_name)
{
    const char *fn = "MPI_Open_port";
    SM_TRY(sm_check_init(fn));
    (void)info;
    if (!port_name)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL port name buffer");
    char why[200];
    int err = sm_dyn_open_port(port_name, why, sizeof why);
    return err ? sm_error(MPI_COMM_WORLD, err, fn, "%s", why) : MPI_SUCCESS;
}

int PMPI_Close_port(const char *port_name)
{
    const char *fn = "MPI_Close_port";
    SM_TRY(sm_check_init(fn));
    if (!port_name)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL port name");
    if (sm_dyn_close_port(port_name))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_PORT, fn,
                        "'%.200s' is not a port this process opened", port_name);
    return MPI_SUCCESS;
}

/* the accepting root: a connection that presents the port's token (others are turned away
 * and the wait goes on); -1 when deadline (0: none) passed or the port is unusable */
int sm_dyn_accept_fd(const char *port_name, double deadline, char *why, size_t whylen)
{
    struct port *p = ports;
    while (p && strcmp(p->name, port_name))
        p = p->next;
    if (!p) {
        snprintf(why, whylen, "'%.200s' is not a port this process opened", port_name);
        return -1;
    }
    for (;;) {
        int r = sm_dyn_wait_fd(p->fd, POLLIN, deadline);
        if (r <= 0) {
            snprintf(why, whylen, r == 0 ? "nobody connected in time" : "the port failed");
            return -1;
        }
        int fd = accept4(p->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            continue;
        char hello[8 + TOKEN_HEX + 1] = { 0 };
        double hd = now_s() + 10;
        int got = swap_bytes(fd, NULL, 0, hello, 8 + TOKEN_HEX, hd) == 0;
        int token_ok = got && sm_secret_equal(hello + 8, p->token, TOKEN_HEX + 1);
        if (token_ok && !memcmp(hello, HELLO_MAGIC, 8) &&
            swap_bytes(fd, ANSWER_OK, 8, NULL, 0, hd) == 0)
            return fd;
        if (token_ok && !memcmp(hello, FAIL_MAGIC, 8)) {
            /* the launcher: the processes that were to connect are gone */
            char msg[160] = "";
            ssize_t n = 0;
            if (sm_dyn_wait_fd(fd, POLLIN, now_s() + 1) > 0)
                n = recv(fd, msg, sizeof msg - 1, MSG_DONTWAIT);
            msg[n > 0 ? n : 0] = '\0';
            snprintf(why, whylen, "%s", *msg ? msg : "the launcher reports a failure");
            close(fd);
            return -1;
        }
        (void)!send(fd, ANSWER_BAD, 8, MSG_NOSIGNAL | MSG_DONTWAIT);
        SM_WARN("%s: turned away a connection that did not present the port's token", port_name);
        close(fd);
    }
}

/* the connecting root: the connection to the port's root once it accepted us, or -1 */
int sm_dyn_connect_fd(const char *port_name, double deadline, char *why, size_t whylen)
{
    char ip[64], token[TOKEN_HEX + 2];
    unsigned port = 0;
    int used = 0;
    size_t pl = strlen(PORT_PREFIX);
    struct sockaddr_in sa = { .sin_family = AF_INET };
    if (strncmp(port_name, PORT_PREFIX, pl) ||
        sscanf(port_name + pl, "%63[^:]:%u:%33[0-9a-f]%n", ip, &port, token, &used) != 3 ||
        port_name[pl + (size_t)used] != '\0' || strlen(token) != TOKEN_HEX || port == 0 ||
        port > 65535 || inet_pton(AF_INET, ip, &sa.sin_addr) != 1) {
        snprintf(why, whylen,
                 "'%.200s' is not a port name (expected " PORT_PREFIX "IP:PORT:TOKEN from "
                 "MPI_Open_port)",
                 port_name);
        return -1;
    }
    sa.sin_port = htons((uint16_t)port);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(why, whylen, "socket: %s", strerror(errno));
        return -1;
    }
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) && errno != EINPROGRESS) {
        snprintf(why, whylen, "cannot connect to port %.200s: %s", port_name, strerror(errno));
        close(fd);
        return -1;
    }
    int r = sm_dyn_wait_fd(fd, POLLOUT, deadline), err = 0;
    socklen_t el = sizeof err;
    if (r > 0)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el);
    if (r <= 0 || err) {
        snprintf(why, whylen, "cannot connect to port %.200s: %s", port_name,
                 r == 0 ? "timed out" : strerror(err ? err : errno));
        close(fd);
        return -1;
    }
    char hello[8 + TOKEN_HEX], answer[8];
    memcpy(hello, HELLO_MAGIC, 8);
    memcpy(hello + 8, token, TOKEN_HEX);
    if (swap_bytes(fd, hello, sizeof hello, answer, sizeof answer, deadline) ||
        memcmp(answer, ANSWER_OK, 8)) {
        snprintf(why, whylen,
                 "port %.200s did not accept (closed, wrong token, or no MPI_Comm_accept within "
                 "SCTPMPI_DYN_TIMEOUT)",
                 port_name);
        close(fd);
        return -1;
    }
    return fd;
}

static int check_args(const char *port_name, int root, MPI_Comm comm, MPI_Comm *newcomm,
                      const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_error(comm, MPI_ERR_COMM, fn, "needs an intracommunicator");
    if (!newcomm)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL output pointer");
    if (root < 0 || root >= comm->size)
        return sm_error(comm, MPI_ERR_ROOT, fn, "bad root %d", root);
    if (comm->rank == root && !port_name)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL port name");
    return MPI_SUCCESS;
}

int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_accept";
    (void)info;
    SM_TRY(check_args(port_name, root, comm, newcomm, fn));
    int fd = -1, err = 0;
    char why[300] = "";
    if (comm->rank == root && (fd = sm_dyn_accept_fd(port_name, 0, why, sizeof why)) < 0)
        err = MPI_ERR_PORT;
    int rc = sm_dyn_join_groups(fd, root, comm, err, why, newcomm, fn);
    if (fd >= 0)
        close(fd);
    return rc;
}

int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    const char *fn = "MPI_Comm_connect";
    (void)info;
    SM_TRY(check_args(port_name, root, comm, newcomm, fn));
    int fd = -1, err = 0;
    char why[300] = "";
    if (comm->rank == root &&
        (fd = sm_dyn_connect_fd(port_name, sm_dyn_deadline(), why, sizeof why)) < 0)
        err = MPI_ERR_PORT;
    int rc = sm_dyn_join_groups(fd, root, comm, err, why, newcomm, fn);
    if (fd >= 0)
        close(fd);
    return rc;
}

int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    const char *fn = "MPI_Comm_join";
    SM_TRY(sm_check_init(fn));
    if (!intercomm)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL output pointer");
    int type = 0;
    socklen_t tl = sizeof type;
    if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) || type != SOCK_STREAM)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "fd %d is not a connected stream socket",
                        fd);
    return sm_dyn_join_groups(fd, 0, MPI_COMM_SELF, 0, NULL, intercomm, fn);
}
