/* proxy.c — sctpmpi_proxy: started by mpiexec on each host of a multi-host job (over ssh or
 * another rsh-style launcher, or directly for this machine), it reads the job's set-up
 * record from stdin, forks this host's ranks (each in its own process group, dying with us),
 * serves them PMI-1 (proxy_pmi.c), and sends their output, PMI events and exit statuses to
 * mpiexec on stdout.  When the connection to mpiexec drops, or on SIGTERM/SIGINT/SIGHUP, it
 * kills every rank's process group and leaves: nothing of the job outlives it. */
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "proxy.h"

#define KILL_GRACE_SECONDS 2.0
#define DRAIN_SECONDS 1.0
#define PMI_SEND_TIMEOUT_SECONDS 10

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void proxy_send(struct proxy *px, uint32_t type, uint32_t rank, const void *p, size_t len)
{
    if (px->lost)
        return;
    if (wire_send(px->up_fd, type, rank, p, len) < 0)
        px->lost = 1;
}

static void signal_ranks(struct proxy *px, int sig)
{
    for (int i = 0; i < px->nlocal; i++) {
        pid_t pg = px->ranks[i].pid;
        if (pg > 0 && kill(-pg, sig) < 0 && errno == ESRCH && px->ranks[i].running)
            (void)kill(pg, sig);
    }
}

static void start_killing(struct proxy *px)
{
    if (px->killing)
        return;
    px->killing = 1;
    px->kill_deadline = now() + KILL_GRACE_SECONDS;
    signal_ranks(px, SIGTERM);
}

/* Reads one whole message of type TYPE from stdin, blocking (the set-up record and the start
 * signal are read this way, before any rank exists). */
static int read_msg(struct wire_in *in, struct wire_msg *msg, uint32_t type)
{
    int r;
    while ((r = wire_next(in, msg)) == 0) {
        long n = wire_read(in, STDIN_FILENO);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
    }
    return r == 1 && msg->type == type ? 0 : -1;
}

/* The address of this host that mpiexec's ssh connection reached, from SSH_CONNECTION
 * ("client_ip client_port server_ip server_port"), or the first non-loopback IPv4 address. */
static void default_addrs(void)
{
    if (getenv("SCTPMPI_ADDRS"))
        return;
    const char *sc = getenv("SSH_CONNECTION");
    char ip[64];
    if (sc && sscanf(sc, "%*s %*s %63s", ip) == 1 && strchr(ip, '.')) {
        setenv("SCTPMPI_ADDRS", ip, 1);
        return;
    }
    struct ifaddrs *ifs, *it;
    if (getifaddrs(&ifs) < 0)
        return;
    for (it = ifs; it; it = it->ifa_next) {
        if (!it->ifa_addr || it->ifa_addr->sa_family != AF_INET)
            continue;
        const struct sockaddr_in *sin = (const void *)it->ifa_addr;
        if ((ntohl(sin->sin_addr.s_addr) >> 24) == 127)
            continue;
        const unsigned char *b = (const unsigned char *)&sin->sin_addr.s_addr;
        snprintf(ip, sizeof ip, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
        setenv("SCTPMPI_ADDRS", ip, 1);
        break;
    }
    freeifaddrs(ifs);
}

/* Variables this host keeps when it has its own value (mpiexec's would be wrong here). */
static int host_keeps(const char *assign)
{
    static const char *const keep[] = { "SCTPMPI_ADDRS=", "NETLAB_", "SSH_",
                                        "HOSTNAME=",      "HOME=",   "USER=",
                                        "LOGNAME=",       "MAIL=",   NULL };
    for (int i = 0; keep[i]; i++) {
        size_t kl = strlen(keep[i]);
        if (strncmp(assign, keep[i], kl) == 0) {
            size_t nl = strcspn(assign, "=");
            char name[256];
            if (nl >= sizeof name)
                return 0;
            memcpy(name, assign, nl);
            name[nl] = '\0';
            return getenv(name) != NULL;
        }
    }
    return 0;
}

static void put_env(const char *assign, int force)
{
    const char *eq = strchr(assign, '=');
    if (!eq || eq == assign || (!force && host_keeps(assign)))
        return;
    char *name = strndup(assign, (size_t)(eq - assign));
    if (name)
        setenv(name, eq + 1, 1);
    free(name);
}

struct setup {
    char **argv;
    int argc;
    const char *cwd;
    int cwd_given; /* -wdir: a directory that cannot be entered fails the job */
};

/* Setup strings: the magic, then host=, size=, kvsname=, secret=, cwd= (mpiexec's: a host
 * without it starts the ranks in $HOME) or wdir= (-wdir: must exist), local=R (one per
 * local rank), env=VAR=VAL (mpiexec's environment), xenv=VAR=VAL (-x: always applied),
 * arg=A (the program and its arguments). */
static int apply_setup(struct proxy *px, struct setup *su, const char *p, size_t len)
{
    size_t pos = 0;
    const char *s = strlist_next(p, len, &pos);
    if (!s || strcmp(s, WIRE_MAGIC) != 0) {
        fprintf(stderr, "sctpmpi_proxy: mpiexec speaks another protocol version (%s)\n",
                s ? s : "none");
        return -1;
    }
    int nl = 0, na = 0;
    size_t p2 = pos;
    while ((s = strlist_next(p, len, &p2))) {
        nl += strncmp(s, "local=", 6) == 0;
        na += strncmp(s, "arg=", 4) == 0;
    }
    px->ranks = calloc((size_t)nl + 1, sizeof *px->ranks);
    su->argv = calloc((size_t)na + 1, sizeof *su->argv);
    if (!px->ranks || !su->argv)
        return -1;
    while ((s = strlist_next(p, len, &pos))) {
        if (strncmp(s, "host=", 5) == 0)
            px->host = s + 5;
        else if (strncmp(s, "size=", 5) == 0)
            px->size = atoi(s + 5);
        else if (strncmp(s, "kvsname=", 8) == 0)
            snprintf(px->kvsname, sizeof px->kvsname, "%s", s + 8);
        else if (strncmp(s, "secret=", 7) == 0) {
            setenv("SCTPMPI_JOB_SECRET", s + 7, 1);
            if (kvs_put(px->cache, "sctpmpi-secret", s + 7) < 0)
                return -1;
        } else if (strncmp(s, "cwd=", 4) == 0)
            su->cwd = s + 4;
        else if (strncmp(s, "wdir=", 5) == 0) {
            su->cwd = s + 5;
            su->cwd_given = 1;
        } else if (strncmp(s, "local=", 6) == 0) {
            struct prank *pr = &px->ranks[px->nlocal++];
            pr->rank = atoi(s + 6);
            pr->pmi.fd = pr->out_fd = pr->err_fd = -1;
            pr->pmi.rank = pr->rank;
            pr->pmi.owner = pr;
        } else if (strncmp(s, "env=", 4) == 0)
            put_env(s + 4, 0);
        else if (strncmp(s, "xenv=", 5) == 0)
            put_env(s + 5, 1);
        else if (strncmp(s, "arg=", 4) == 0)
            su->argv[su->argc++] = (char *)(s + 4);
    }
    if (!px->nlocal || !su->argc || px->size < 1) {
        fprintf(stderr, "sctpmpi_proxy: incomplete set-up record from mpiexec\n");
        return -1;
    }
    return 0;
}

static void exec_rank(struct proxy *px, struct setup *su, struct prank *pr, pid_t parent,
                      const sigset_t *mask, int pmi_fd, int out_fd, int err_fd, int in_fd)
{
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL); /* the proxy dies: so do we */
    if (getppid() != parent)
        _exit(127);
    sigprocmask(SIG_SETMASK, mask, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0)
        _exit(127);
    int devnull = in_fd >= 0 ? in_fd : open("/dev/null", O_RDONLY); /* stdin: rank 0 only */
    if (devnull >= 0) {
        dup2(devnull, STDIN_FILENO);
        close(devnull);
    }
    int flags = fcntl(pmi_fd, F_GETFD);
    if (flags >= 0)
        fcntl(pmi_fd, F_SETFD, flags & ~FD_CLOEXEC);
    char buf[32];
    snprintf(buf, sizeof buf, "%d", pmi_fd);
    setenv("PMI_FD", buf, 1);
    snprintf(buf, sizeof buf, "%d", pr->rank);
    setenv("PMI_RANK", buf, 1);
    (void)px;
    execvp(su->argv[0], su->argv);
    fprintf(stderr, "mpiexec: cannot run %s on %s: %s\n", su->argv[0], px->host, strerror(errno));
    _exit(127);
}

static int spawn_rank(struct proxy *px, struct setup *su, struct prank *pr, const sigset_t *mask)
{
    int sv[2], outp[2], errp[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
        return -1;
    if (pipe2(outp, O_CLOEXEC) < 0) {
        close(sv[0]);
        close(sv[1]);
        return -1;
    }
    if (pipe2(errp, O_CLOEXEC) < 0) {
        close(sv[0]);
        close(sv[1]);
        close(outp[0]);
        close(outp[1]);
        return -1;
    }
    int inp[2] = { -1, -1 };
    if (pr->rank == 0 && pipe2(inp, O_CLOEXEC) == 0) {
        fcntl(inp[1], F_SETFL, O_NONBLOCK);
        px->stdin_fd = inp[1];
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        exec_rank(px, su, pr, parent, mask, sv[1], outp[1], errp[1], inp[0]);
    close(sv[1]);
    close(outp[1]);
    close(errp[1]);
    if (inp[0] >= 0)
        close(inp[0]);
    if (pid < 0) {
        close(sv[0]);
        close(outp[0]);
        close(errp[0]);
        return -1;
    }
    setpgid(pid, pid);
    struct timeval tmo = { .tv_sec = PMI_SEND_TIMEOUT_SECONDS };
    (void)setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &tmo, sizeof tmo);
    fcntl(outp[0], F_SETFL, O_NONBLOCK);
    fcntl(errp[0], F_SETFL, O_NONBLOCK);
    pr->pid = pid;
    pr->running = 1;
    pr->pmi.fd = sv[0];
    pr->out_fd = outp[0];
    pr->err_fd = errp[0];
    return 0;
}

/* Forwards what the pipe holds now; closes it at EOF. */
static void pump_output(struct proxy *px, struct prank *pr, int *fd, uint32_t type)
{
    char buf[65536];
    for (;;) {
        ssize_t n = read(*fd, buf, sizeof buf);
        if (n > 0) {
            proxy_send(px, type, (uint32_t)pr->rank, buf, (size_t)n);
            if ((size_t)n < sizeof buf)
                return;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return;
        close(*fd);
        *fd = -1;
        return;
    }
}

static struct prank *rank_by_pid(struct proxy *px, pid_t pid)
{
    for (int i = 0; i < px->nlocal; i++)
        if (px->ranks[i].pid == pid && px->ranks[i].running)
            return &px->ranks[i];
    return NULL;
}

static int reap(struct proxy *px)
{
    int status, reaped = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        struct prank *pr = rank_by_pid(px, pid);
        if (!pr)
            continue;
        pr->running = 0;
        reaped++;
        /* its last words go before its exit status */
        if (pr->out_fd >= 0)
            pump_output(px, pr, &pr->out_fd, W_OUT);
        if (pr->err_fd >= 0)
            pump_output(px, pr, &pr->err_fd, W_ERR);
        char s[16];
        snprintf(s, sizeof s, "%d", status);
        proxy_send(px, W_EXIT, (uint32_t)pr->rank, s, strlen(s));
    }
    return reaped;
}

/* Moves queued stdin bytes into rank 0's pipe as far as it takes them. */
static void pump_stdin(struct proxy *px)
{
    if (px->stdin_fd < 0)
        return;
    while (px->stdin_q.sent < px->stdin_q.len) {
        ssize_t n = write(px->stdin_fd, px->stdin_q.buf + px->stdin_q.sent,
                          px->stdin_q.len - px->stdin_q.sent);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (n < 0) { /* rank 0 closed its stdin or is gone: drop the rest */
            px->stdin_q.sent = px->stdin_q.len;
            px->stdin_eof = 1;
            break;
        }
        px->stdin_q.sent += (size_t)n;
    }
    px->stdin_q.sent = px->stdin_q.len = 0;
    if (px->stdin_eof) {
        close(px->stdin_fd);
        px->stdin_fd = -1;
    }
}

static void stdin_bytes(struct proxy *px, const char *p, size_t len)
{
    if (px->stdin_fd < 0)
        return;
    if (len == 0) {
        px->stdin_eof = 1;
    } else {
        if (px->stdin_q.sent == px->stdin_q.len)
            px->stdin_q.sent = px->stdin_q.len = 0;
        size_t need = px->stdin_q.len + len;
        if (need > px->stdin_q.cap) {
            size_t cap = px->stdin_q.cap ? px->stdin_q.cap : 65536;
            while (cap < need)
                cap *= 2;
            char *nb = realloc(px->stdin_q.buf, cap);
            if (!nb)
                return; /* out of memory: this chunk is lost */
            px->stdin_q.buf = nb;
            px->stdin_q.cap = cap;
        }
        memcpy(px->stdin_q.buf + px->stdin_q.len, p, len);
        px->stdin_q.len += len;
    }
    pump_stdin(px);
}

/* Handles the complete messages already read from mpiexec; -1 if the stream is corrupt. */
static int dispatch_down(struct proxy *px, struct wire_in *in)
{
    struct wire_msg m;
    int r;
    while ((r = wire_next(in, &m)) == 1) {
        if (m.type == W_KVS)
            proxy_pmi_fence_done(px, m.payload, m.len);
        else if (m.type == W_SIGNAL && m.rank > 0 && m.rank < 65)
            signal_ranks(px, (int)m.rank);
        else if (m.type == W_STDIN)
            stdin_bytes(px, m.payload, m.len);
    }
    return r < 0 ? -1 : 0;
}

static void connection_lost(struct proxy *px)
{
    px->lost = 1;
    int running = 0;
    for (int i = 0; i < px->nlocal; i++)
        running += px->ranks[i].running;
    if (running)
        fprintf(stderr,
                "sctpmpi_proxy on %s: lost the connection to mpiexec; killing %d rank(s)\n",
                px->host, running);
    signal_ranks(px, SIGKILL);
    px->killing = 1;
}

static void handle_down(struct proxy *px, struct wire_in *in)
{
    long n = wire_read(in, STDIN_FILENO);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0 || dispatch_down(px, in) < 0)
        connection_lost(px);
}

int main(int argc, char **argv)
{
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        printf("sctpmpi_proxy: started by mpiexec on each host of a multi-host job; it reads\n"
               "its job from stdin and is not meant to be run by hand (see mpiexec --help).\n");
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    struct proxy px = { .host = "?", .up_fd = STDOUT_FILENO, .stdin_fd = -1 };
    struct setup su = { 0 };
    struct wire_in in = { 0 };
    struct wire_msg msg;
    char *setup_copy = NULL;
    int rc = 1, sfd = -1;
    struct pollfd *pfd = NULL;
    px.cache = kvs_create();
    if (!px.cache)
        goto out;
    /* the set-up record first: nothing else happens before it */
    if (read_msg(&in, &msg, W_SETUP) < 0) {
        fprintf(stderr, "sctpmpi_proxy: no job set-up record from mpiexec on stdin\n");
        goto out;
    }
    setup_copy = malloc(msg.len + 1);
    if (!setup_copy)
        goto out;
    memcpy(setup_copy, msg.payload, msg.len);
    if (apply_setup(&px, &su, setup_copy, msg.len) < 0)
        goto out;
    unsetenv("PMI_PORT");
    unsetenv("PMI_ID");
    char buf[32];
    snprintf(buf, sizeof buf, "%d", px.size);
    setenv("PMI_SIZE", buf, 1);
    snprintf(buf, sizeof buf, "%d", px.nlocal);
    setenv("SCTPMPI_LOCAL_RANKS", buf, 1);
    default_addrs();
    if (su.cwd && chdir(su.cwd) < 0 && su.cwd_given) {
        fprintf(stderr, "sctpmpi_proxy on %s: -wdir %s: %s\n", px.host, su.cwd, strerror(errno));
        goto out;
    } else if (su.cwd && !su.cwd_given && chdir(su.cwd) < 0)
        fprintf(stderr, "sctpmpi_proxy on %s: cannot enter %s (%s); ranks start in %s\n", px.host,
                su.cwd, strerror(errno), getenv("HOME") ? getenv("HOME") : "/");

    /* no rank starts anywhere until every host's proxy is up */
    proxy_send(&px, W_READY, 0, NULL, 0);
    if (px.lost || read_msg(&in, &msg, W_START) < 0)
        goto out; /* mpiexec gave up on the job (another host failed): nothing to clean */

    sigset_t mask, oldmask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigprocmask(SIG_BLOCK, &mask, &oldmask);
    sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0)
        goto out;
    int nrunning = 0;
    for (int i = 0; i < px.nlocal; i++) {
        if (spawn_rank(&px, &su, &px.ranks[i], &oldmask) < 0) {
            fprintf(stderr, "sctpmpi_proxy on %s: cannot start rank %d: %s\n", px.host,
                    px.ranks[i].rank, strerror(errno));
            char s[16];
            snprintf(s, sizeof s, "%d", 127 << 8);
            proxy_send(&px, W_EXIT, (uint32_t)px.ranks[i].rank, s, strlen(s));
            continue;
        }
        nrunning++;
    }

    /* what mpiexec sent right behind the start signal (stdin, a signal) is already read */
    if (dispatch_down(&px, &in) < 0)
        connection_lost(&px);
    size_t nfds = 3 + 3 * (size_t)px.nlocal; /* signalfd, mpiexec, rank 0's stdin, ranks */
    pfd = calloc(nfds, sizeof *pfd);
    double drain_end = 0;
    while (pfd) {
        if (nrunning == 0) {
            int open_fds = 0;
            for (int i = 0; i < px.nlocal; i++)
                open_fds += (px.ranks[i].out_fd >= 0) + (px.ranks[i].err_fd >= 0);
            if (!drain_end)
                drain_end = now() + DRAIN_SECONDS;
            if (!open_fds || now() >= drain_end || px.lost)
                break;
        }
        pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
        pfd[1] = (struct pollfd){ .fd = px.lost ? -1 : STDIN_FILENO, .events = POLLIN };
        pfd[2] = (struct pollfd){ .fd = px.stdin_q.len > px.stdin_q.sent ? px.stdin_fd : -1,
                                  .events = POLLOUT };
        for (int i = 0; i < px.nlocal; i++) {
            struct prank *pr = &px.ranks[i];
            pfd[3 + 3 * i] = (struct pollfd){ .fd = pr->pmi.fd, .events = POLLIN };
            pfd[4 + 3 * i] = (struct pollfd){ .fd = pr->out_fd, .events = POLLIN };
            pfd[5 + 3 * i] = (struct pollfd){ .fd = pr->err_fd, .events = POLLIN };
        }
        int tmo = nrunning == 0 ? 100 : px.killing ? 200 : -1;
        int n = poll(pfd, nfds, tmo);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; n > 0 && i < px.nlocal; i++) {
            struct prank *pr = &px.ranks[i];
            if (pfd[4 + 3 * i].revents && pr->out_fd >= 0)
                pump_output(&px, pr, &pr->out_fd, W_OUT);
            if (pfd[5 + 3 * i].revents && pr->err_fd >= 0)
                pump_output(&px, pr, &pr->err_fd, W_ERR);
            if (pfd[3 + 3 * i].revents && pr->pmi.fd >= 0)
                proxy_pmi_pump(&px, pr);
        }
        if (n > 0 && pfd[2].revents)
            pump_stdin(&px);
        if (n > 0 && pfd[1].revents)
            handle_down(&px, &in);
        if (n > 0 && pfd[0].revents) {
            struct signalfd_siginfo si;
            while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
                if (si.ssi_signo == SIGCHLD)
                    nrunning -= reap(&px);
                else
                    start_killing(&px);
            }
        }
        if (px.lost && !px.killing) {
            signal_ranks(&px, SIGKILL);
            px.killing = 1;
        }
        if (px.killing && px.kill_deadline > 0 && now() >= px.kill_deadline) {
            signal_ranks(&px, SIGKILL);
            px.kill_deadline = 0;
        }
    }
    /* nothing outlives the job: whatever is left in the ranks' process groups goes */
    signal_ranks(&px, px.lost ? SIGKILL : SIGTERM);
    proxy_send(&px, W_DONE, 0, NULL, 0);
    rc = px.lost ? 1 : 0;
out:
    if (sfd >= 0)
        close(sfd);
    free(pfd);
    free(px.ranks);
    free(su.argv);
    free(setup_copy);
    free(px.pending.buf);
    free(px.stdin_q.buf);
    if (px.stdin_fd >= 0)
        close(px.stdin_fd);
    kvs_destroy(px.cache);
    wire_in_free(&in);
    return rc;
}
