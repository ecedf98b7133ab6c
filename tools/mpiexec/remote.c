/* remote.c — mpiexec's side of a multi-host job (remote.h).  One proxy per host that has
 * ranks: through `RSH... HOST /path/sctpmpi_proxy` (RSH = --launcher-rsh, SCTPMPI_LAUNCHER_RSH
 * or ssh; a `%h` in it is replaced by the host instead of appending it), or forked directly
 * for this machine.  Its stdin/stdout carry the framed messages of wire.h; its stderr is ours.
 * A PMI barrier is one W_FENCE from each proxy and one W_KVS back to each, carrying every pair
 * put since the previous barrier, so each proxy answers its ranks' gets itself.  A proxy whose
 * connection ends before it reported all its ranks fails the job; a proxy that does not go
 * away after the kill sequence has its launcher killed. */
#include "remote.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include "wire.h"

#define TIMEOUT_EXIT_CODE 124
#define LOST_PROXY_EXIT_CODE 255
#define LAUNCHER_KILL_SECONDS 3.0  /* after the ranks' SIGKILL, kill the launchers too */
#define STDIN_QUEUE_MAX (1u << 20) /* stop reading our stdin while this much waits */

extern char **environ;

struct proxy_conn {
    const char *host;
    pid_t pid;          /* the launcher (ssh) or the proxy itself */
    int to_fd, from_fd; /* -1 once closed */
    struct wire_in in;
    struct wire_out out;
    int nranks, nexited;
    int fenced, done, reaped, ready;
};

struct remote {
    struct proxy_conn *px;
    int npx;
    int *host_of_rank;
    struct strlist epoch; /* pairs put since the last completed fence, from every host */
    int nfenced;
    int nready;     /* proxies that applied their set-up; at all, W_START goes out */
    int nwant;      /* proxies started: hosts with at least one rank */
    int stdin_open; /* our stdin still goes to rank 0 (through its proxy) */
};

/* Our stdin goes to rank 0 unless it is a terminal we do not own (mpiexec in the background:
 * reading would stop us with SIGTTIN). */
static int forward_stdin(void)
{
    if (!isatty(STDIN_FILENO))
        return fcntl(STDIN_FILENO, F_GETFD) >= 0;
    return tcgetpgrp(STDIN_FILENO) == getpgrp();
}

static void pump_stdin(struct job *job, struct remote *rm)
{
    struct proxy_conn *pc = &rm->px[rm->host_of_rank[0]];
    char buf[65536];
    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0)
        rm->stdin_open = 0; /* EOF (or an error): rank 0 gets EOF */
    if (pc->to_fd >= 0 && wire_queue(&pc->out, W_STDIN, 0, buf, n > 0 ? (size_t)n : 0) < 0)
        job_fail(job, 1, "out of memory forwarding stdin");
}

int *remote_place(const struct mpiexec_options *opt, int nranks)
{
    int *h = malloc((size_t)nranks * sizeof *h);
    if (!h || opt->nhosts < 1) {
        free(h);
        return NULL;
    }
    if (opt->ppn > 0) {
        for (int r = 0; r < nranks; r++)
            h[r] = (r / opt->ppn) % opt->nhosts;
    } else if (opt->map_by_node) {
        for (int r = 0; r < nranks; r++)
            h[r] = r % opt->nhosts;
    } else { /* by slot: fill each host's slots in order, then around again */
        int host = 0, used = 0;
        for (int r = 0; r < nranks; r++) {
            while (used >= opt->hosts[host].slots) {
                host = (host + 1) % opt->nhosts;
                used = 0;
            }
            h[r] = host;
            used++;
        }
    }
    return h;
}

static char *proxy_path(void)
{
    const char *e = getenv("SCTPMPI_LAUNCHER_PROXY");
    if (e && *e)
        return strdup(e);
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/sctpmpi_proxy", dirname(buf));
    return strdup(path);
}

/* argv of the launcher: the RSH words with %h replaced (or the host appended), then the
 * proxy; just the proxy for this machine.  Called in the forked child only (exec frees it). */
static char **launcher_argv(const char *rsh, const char *host, int local, const char *proxy)
{
    size_t words = 4;
    for (const char *c = rsh; *c; c++)
        words += *c == ' ' || *c == '\t';
    char **argv = calloc(words, sizeof *argv);
    char *copy = strdup(rsh);
    if (!argv || !copy)
        return NULL;
    int n = 0, had_host = 0;
    if (!local) {
        char *save = NULL;
        for (char *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
            char *at = strstr(w, "%h");
            if (at) {
                char *s = malloc(strlen(w) + strlen(host) + 1);
                if (!s)
                    return NULL;
                sprintf(s, "%.*s%s%s", (int)(at - w), w, host, at + 2);
                argv[n++] = s;
                had_host = 1;
            } else {
                argv[n++] = w;
            }
        }
        if (!had_host)
            argv[n++] = (char *)host;
    }
    argv[n++] = (char *)proxy;
    return argv;
}

/* Names never sent to other hosts: they describe mpiexec's own host or session. */
static int env_stays_here(const char *assign)
{
    static const char *const here[] = { "PMI_", "PWD=",      "OLDPWD=",        "SHLVL=",
                                        "_=",   "HOSTNAME=", "SCTPMPI_ADDRS=", "NETLAB_",
                                        "SSH_", "DISPLAY=",  "XAUTHORITY=",    NULL };
    for (int i = 0; here[i]; i++)
        if (strncmp(assign, here[i], strlen(here[i])) == 0)
            return 1;
    return 0;
}

static int build_setup(const struct job *job, const struct remote *rm, int host,
                       struct strlist *l)
{
    const struct mpiexec_options *opt = job->opt;
    char cwd[PATH_MAX];
    int rc = strlist_add(l, WIRE_MAGIC);
    rc |= strlist_addf(l, "host=%s", opt->hosts[host].name);
    rc |= strlist_addf(l, "size=%d", job->nranks);
    rc |= strlist_addf(l, "kvsname=%s", job->kvsname);
    rc |= strlist_addf(l, "secret=%s", job->secret);
    if (opt->wdir)
        rc |= strlist_addf(l, "wdir=%s", opt->wdir);
    else if (getcwd(cwd, sizeof cwd))
        rc |= strlist_addf(l, "cwd=%s", cwd);
    for (int r = 0; r < job->nranks; r++)
        if (rm->host_of_rank[r] == host)
            rc |= strlist_addf(l, "local=%d", r);
    for (char **e = environ; *e; e++)
        if (!env_stays_here(*e))
            rc |= strlist_addf(l, "env=%s", *e);
    for (int i = 0; i < opt->nenv; i++) {
        const char *a = opt->env_assign[i];
        if (strchr(a, '=')) {
            rc |= strlist_addf(l, "xenv=%s", a);
        } else if (getenv(a)) {
            rc |= strlist_addf(l, "xenv=%s=%s", a, getenv(a));
        } else if (host == 0) {
            fprintf(stderr, "mpiexec: warning: -x %s: not set in mpiexec's environment\n", a);
        }
    }
    if (opt->transport)
        rc |= strlist_addf(l, "xenv=SCTPMPI_TRANSPORT=%s", opt->transport);
    for (char **a = opt->prog_argv; *a; a++)
        rc |= strlist_addf(l, "arg=%s", *a);
    return rc ? -1 : 0;
}

static int start_proxy(struct job *job, struct remote *rm, int host, const char *proxy,
                       const sigset_t *child_sigmask)
{
    const struct mpiexec_options *opt = job->opt;
    struct proxy_conn *pc = &rm->px[host];
    int down[2], up[2];
    if (pipe2(down, O_CLOEXEC) < 0)
        return -1;
    if (pipe2(up, O_CLOEXEC) < 0) {
        close(down[0]);
        close(down[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        char **argv = launcher_argv(opt->launcher_rsh, opt->hosts[host].name,
                                    opt->hosts[host].local, proxy);
        if (!argv)
            _exit(127);
        setpgid(0, 0); /* the terminal's ^C reaches mpiexec only; we decide what the job gets */
        prctl(PR_SET_PDEATHSIG, SIGKILL); /* mpiexec killed: the connection drops, proxies
                                             then kill their ranks */
        if (getppid() != job->launcher_pid)
            _exit(127);
        sigprocmask(SIG_SETMASK, child_sigmask, NULL);
        signal(SIGPIPE, SIG_DFL);
        if (dup2(down[0], STDIN_FILENO) < 0 || dup2(up[1], STDOUT_FILENO) < 0)
            _exit(127);
        execvp(argv[0], argv);
        fprintf(stderr, "mpiexec: cannot run the launcher %s for host %s: %s\n", argv[0],
                opt->hosts[host].name, strerror(errno));
        _exit(127);
    }
    close(down[0]);
    close(up[1]);
    if (pid < 0) {
        close(down[1]);
        close(up[0]);
        return -1;
    }
    setpgid(pid, pid);
    fcntl(down[1], F_SETFL, O_NONBLOCK);
    fcntl(up[0], F_SETFL, O_NONBLOCK);
    pc->pid = pid;
    pc->to_fd = down[1];
    pc->from_fd = up[0];
    struct strlist setup = { 0 };
    int rc = build_setup(job, rm, host, &setup);
    if (rc == 0)
        rc = wire_queue(&pc->out, W_SETUP, 0, setup.buf, setup.len);
    free(setup.buf);
    return rc;
}

static void remote_signal(struct job *job, int sig)
{
    struct remote *rm = job->remote;
    for (int i = 0; i < rm->npx; i++)
        if (rm->px[i].to_fd >= 0 && rm->px[i].nranks > 0)
            (void)wire_queue(&rm->px[i].out, W_SIGNAL, (uint32_t)sig, NULL, 0);
}

static int live_proxies(const struct remote *rm)
{
    int n = 0;
    for (int i = 0; i < rm->npx; i++)
        n += rm->px[i].nranks > 0 && !(rm->px[i].from_fd < 0 && rm->px[i].reaped);
    return n;
}

static void close_conn(struct proxy_conn *pc)
{
    if (pc->to_fd >= 0)
        close(pc->to_fd);
    if (pc->from_fd >= 0)
        close(pc->from_fd);
    pc->to_fd = pc->from_fd = -1;
}

/* The connection to a proxy ended: every rank it had not reported is lost. */
static void conn_ended(struct job *job, struct remote *rm, int host)
{
    struct proxy_conn *pc = &rm->px[host];
    close_conn(pc);
    if (pc->done && pc->nexited == pc->nranks)
        return;
    int lost = 0;
    for (int r = 0; r < job->nranks; r++) {
        struct rank_proc *rp = &job->ranks[r];
        if (rm->host_of_rank[r] == host && rp->running) {
            rp->running = 0;
            job->nrunning--;
            lost++;
        }
    }
    if (lost && !pc->ready)
        job_fail(job, LOST_PROXY_EXIT_CODE,
                 "could not start the proxy on host %s (launcher: %s%s); %s", pc->host,
                 job->opt->hosts[host].local ? "" : job->opt->launcher_rsh,
                 job->opt->hosts[host].local ? "none, this machine" : "",
                 rm->nready < rm->nwant ? "no rank was started on any host"
                                        : "killing the rest of the job");
    else if (lost)
        job_fail(job, LOST_PROXY_EXIT_CODE,
                 "lost the connection to the proxy on host %s (the proxy, its launcher or the "
                 "host died); %d rank(s) there are gone; killing the rest of the job",
                 pc->host, lost);
}

static void fence_in(struct job *job, struct remote *rm, struct proxy_conn *pc,
                     const struct wire_msg *m)
{
    if (pc->fenced)
        return;
    if (m->len && (rm->epoch.len + m->len > rm->epoch.cap || !rm->epoch.buf)) {
        size_t need = rm->epoch.len + m->len, cap = rm->epoch.cap ? rm->epoch.cap : 4096;
        while (cap < need)
            cap *= 2;
        char *nb = realloc(rm->epoch.buf, cap);
        if (!nb) {
            job_fail(job, 1, "out of memory in the PMI fence");
            return;
        }
        rm->epoch.buf = nb;
        rm->epoch.cap = cap;
    }
    if (m->len) {
        memcpy(rm->epoch.buf + rm->epoch.len, m->payload, m->len);
        rm->epoch.len += m->len;
        size_t pos = 0;
        const char *k, *v;
        while ((k = strlist_next(m->payload, m->len, &pos)) &&
               (v = strlist_next(m->payload, m->len, &pos)))
            (void)kvs_put(job->kvs, k, v);
    }
    pc->fenced = 1;
    int want = 0;
    for (int i = 0; i < rm->npx; i++)
        want += rm->px[i].nranks > 0;
    if (++rm->nfenced < want)
        return;
    for (int i = 0; i < rm->npx; i++) {
        if (rm->px[i].nranks > 0 && rm->px[i].to_fd >= 0 &&
            wire_queue(&rm->px[i].out, W_KVS, 0, rm->epoch.buf, rm->epoch.len) < 0)
            job_fail(job, 1, "out of memory in the PMI fence");
        rm->px[i].fenced = 0;
    }
    rm->nfenced = 0;
    rm->epoch.len = 0;
}

static void handle_msg(struct job *job, struct remote *rm, int host, const struct wire_msg *m)
{
    struct proxy_conn *pc = &rm->px[host];
    if (m->type == W_DONE) {
        pc->done = 1;
        return;
    }
    if (m->type == W_READY) {
        if (pc->ready++)
            return;
        if (++rm->nready == rm->nwant && !job->killing)
            for (int i = 0; i < rm->npx; i++)
                if (rm->px[i].nranks > 0 && rm->px[i].to_fd >= 0)
                    (void)wire_queue(&rm->px[i].out, W_START, 0, NULL, 0);
        return;
    }
    if (m->type == W_FENCE) {
        if (!job->killing)
            fence_in(job, rm, pc, m);
        return;
    }
    if (m->rank >= (uint32_t)job->nranks || rm->host_of_rank[m->rank] != host) {
        job_fail(job, 1, "the proxy on host %s sent a message about rank %u, not one of its own",
                 pc->host, m->rank);
        return;
    }
    struct rank_proc *rp = &job->ranks[m->rank];
    char num[32];
    size_t nl = m->len < sizeof num ? m->len : sizeof num - 1;
    memcpy(num, m->payload, nl);
    num[nl] = '\0';
    switch (m->type) {
    case W_OUT: output_stream_feed(&rp->out, m->payload, m->len); break;
    case W_ERR: output_stream_feed(&rp->err, m->payload, m->len); break;
    case W_INIT:
        rp->pmi_inited = 1;
        job->any_inited = 1;
        for (int i = 0; i < job->nranks; i++) {
            struct rank_proc *o = &job->ranks[i];
            if (!o->running && !o->finalized && !job->killing)
                job_fail(job, 1, "rank %d exited without MPI_Finalize", o->rank);
        }
        break;
    case W_FINALIZE: rp->finalized = 1; break;
    case W_ABORT:
        job_fail(job, atoi(num), "rank %d called MPI_Abort with code %d", rp->rank, atoi(num));
        break;
    case W_EXIT:
        if (rp->running) {
            pc->nexited++;
            job_rank_exited(job, rp, atoi(num));
        }
        break;
    default:
        job_fail(job, 1, "the proxy on host %s sent an unknown message (type %u)", pc->host,
                 m->type);
    }
}

static void pump_from(struct job *job, struct remote *rm, int host)
{
    struct proxy_conn *pc = &rm->px[host];
    long n = wire_read(&pc->in, pc->from_fd);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    struct wire_msg m;
    int r;
    while ((r = wire_next(&pc->in, &m)) == 1)
        handle_msg(job, rm, host, &m);
    if (r < 0) {
        job_fail(job, 1, "garbled data from the proxy on host %s", pc->host);
        n = 0;
    }
    if (n <= 0)
        conn_ended(job, rm, host);
}

static void reap(struct job *job, struct remote *rm)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        for (int i = 0; i < rm->npx; i++) {
            if (rm->px[i].pid != pid)
                continue;
            rm->px[i].reaped = 1;
            if (WIFEXITED(status) && WEXITSTATUS(status) == 255 && !rm->px[i].done &&
                rm->px[i].from_fd >= 0 && !job->killing)
                fprintf(stderr,
                        "mpiexec: the launcher for host %s failed (exit 255: ssh could "
                        "not connect?)\n",
                        rm->px[i].host);
        }
    }
}

static void handle_signals(struct job *job, struct remote *rm, int sfd)
{
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap(job, rm);
        } else if (job->killing) {
            job->killed_hard = 1;
            job_signal_all(job, SIGKILL);
        } else {
            job_fail(job, 128 + sig, "received signal %d (%s); killing %d rank(s)", sig,
                     strsignal(sig), job->nrunning);
        }
    }
}

void remote_run(struct job *job, int sfd, double deadline, const sigset_t *child_sigmask)
{
    const struct mpiexec_options *opt = job->opt;
    struct remote rm = { 0 };
    rm.npx = opt->nhosts;
    rm.px = calloc((size_t)rm.npx, sizeof *rm.px);
    rm.host_of_rank = remote_place(opt, job->nranks);
    char *proxy = proxy_path();
    size_t nfds = 2 + 2 * (size_t)rm.npx; /* signalfd, proxies, our stdin */
    struct pollfd *pfd = calloc(nfds, sizeof *pfd);
    if (!rm.px || !rm.host_of_rank || !proxy || !pfd) {
        job_fail(job, 1, "cannot set up the multi-host job (out of memory?)");
        goto out;
    }
    job->remote = &rm;
    job->signal_hook = remote_signal;
    for (int i = 0; i < rm.npx; i++) {
        rm.px[i].host = opt->hosts[i].name;
        rm.px[i].to_fd = rm.px[i].from_fd = -1;
    }
    for (int r = 0; r < job->nranks; r++) {
        rm.px[rm.host_of_rank[r]].nranks++;
        job->ranks[r].running = 1;
        output_stream_init(&job->ranks[r].out, -1, STDOUT_FILENO, r, opt->prefix_output);
        output_stream_init(&job->ranks[r].err, -1, STDERR_FILENO, r, opt->prefix_output);
    }
    job->nrunning = job->nranks;
    for (int i = 0; i < rm.npx; i++) {
        if (rm.px[i].nranks == 0) {
            rm.px[i].reaped = 1;
            continue;
        }
        rm.nwant++;
        if (start_proxy(job, &rm, i, proxy, child_sigmask) < 0) {
            rm.px[i].reaped = rm.px[i].pid <= 0;
            conn_ended(job, &rm, i);
            job_fail(job, 1, "cannot start the proxy for host %s: %s", rm.px[i].host,
                     strerror(errno));
            break;
        }
    }
    double launchers_kill_at = 0;
    rm.stdin_open = forward_stdin();
    while (live_proxies(&rm) > 0) {
        pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
        struct proxy_conn *p0 = &rm.px[rm.host_of_rank[0]];
        int want_stdin = rm.stdin_open && rm.nready == rm.nwant && !job->killing &&
                         p0->to_fd >= 0 && p0->out.len - p0->out.sent < STDIN_QUEUE_MAX;
        pfd[nfds - 1] = (struct pollfd){ .fd = want_stdin ? STDIN_FILENO : -1, .events = POLLIN };
        for (int i = 0; i < rm.npx; i++) {
            struct proxy_conn *pc = &rm.px[i];
            pfd[1 + 2 * i] = (struct pollfd){ .fd = pc->from_fd, .events = POLLIN };
            pfd[2 + 2 * i] = (struct pollfd){ .fd = wire_pending(&pc->out) ? pc->to_fd : -1,
                                              .events = POLLOUT };
        }
        double now = job_now(), wait = -1;
        if (deadline > 0 && !job->killing)
            wait = deadline > now ? deadline - now : 0;
        if (job->killing)
            wait = 0.2;
        int n = poll(pfd, nfds, wait < 0 ? -1 : (int)(wait * 1000) + 1);
        if (n < 0 && errno != EINTR) {
            job_fail(job, 1, "poll failed: %s", strerror(errno));
            break;
        }
        for (int i = 0; n > 0 && i < rm.npx; i++) {
            struct proxy_conn *pc = &rm.px[i];
            if (pfd[1 + 2 * i].revents && pc->from_fd >= 0)
                pump_from(job, &rm, i);
            if (pfd[2 + 2 * i].revents && pc->to_fd >= 0 && wire_flush(&pc->out, pc->to_fd) < 0) {
                close(pc->to_fd); /* its reading end is gone; its EOF on from_fd follows */
                pc->to_fd = -1;
            }
        }
        if (n > 0 && pfd[nfds - 1].revents)
            pump_stdin(job, &rm);
        if (n > 0 && pfd[0].revents)
            handle_signals(job, &rm, sfd);
        /* a proxy that has reported every rank gets EOF on its stdin: it may leave */
        for (int i = 0; i < rm.npx; i++) {
            struct proxy_conn *pc = &rm.px[i];
            int unstarted = job->killing && rm.nready < rm.nwant; /* W_START never went out */
            if (pc->to_fd >= 0 && !wire_pending(&pc->out) && pc->nranks &&
                ((pc->nexited == pc->nranks && (pc->done || job->killing)) || unstarted)) {
                close(pc->to_fd);
                pc->to_fd = -1;
            }
        }
        if (deadline > 0 && !job->killing && job_now() >= deadline)
            job_fail(job, TIMEOUT_EXIT_CODE, "job timed out after %g s; killing %d rank(s)",
                     opt->timeout_s, job->nrunning);
        job_kill_tick(job);
        if (job->killed_hard && !launchers_kill_at)
            launchers_kill_at = job_now() + LAUNCHER_KILL_SECONDS;
        if (launchers_kill_at && job_now() >= launchers_kill_at) {
            launchers_kill_at = job_now() + 3600;
            for (int i = 0; i < rm.npx; i++) {
                if (rm.px[i].pid > 0 && !rm.px[i].reaped) {
                    fprintf(stderr,
                            "mpiexec: the proxy on host %s did not finish; killing its "
                            "launcher\n",
                            rm.px[i].host);
                    kill(-rm.px[i].pid, SIGKILL);
                }
            }
        }
        /* a launcher gone and its pipe at EOF ends that proxy (handled above); a launcher
         * that exited while its pipe stays open (a stray holder) is not waited for */
        for (int i = 0; i < rm.npx; i++)
            if (rm.px[i].reaped && rm.px[i].from_fd >= 0 && rm.px[i].done &&
                rm.px[i].nexited == rm.px[i].nranks)
                close_conn(&rm.px[i]);
    }
out:
    for (int r = 0; r < job->nranks; r++) {
        output_stream_close(&job->ranks[r].out);
        output_stream_close(&job->ranks[r].err);
    }
    for (int i = 0; rm.px && i < rm.npx; i++) {
        close_conn(&rm.px[i]);
        wire_in_free(&rm.px[i].in);
        wire_out_free(&rm.px[i].out);
    }
    job->signal_hook = NULL;
    job->remote = NULL;
    free(rm.epoch.buf);
    free(rm.px);
    free(rm.host_of_rank);
    free(proxy);
    free(pfd);
}
