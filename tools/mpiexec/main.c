/* main.c — mpiexec: parses the command line, starts the ranks, and runs the event loop that
 * serves PMI, forwards output, reaps ranks, enforces --timeout and turns the first failure
 * into a message naming the rank, the killing of every other rank, and our exit code. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job.h"
#include "netlab_launch.h"
#include "options.h"
#include "pmi_server.h"
#include "rank_spawn.h"
#include "remote.h"
#include "sim_launch.h"
#include "names.h"
#include "spawn.h"

#define TIMEOUT_EXIT_CODE 124
#define DRAIN_SECONDS 1.0 /* after the last rank exits, wait this long at most for pipe EOF */

static int make_secret(char out[33])
{
    unsigned char raw[16];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, raw, sizeof raw) != (ssize_t)sizeof raw) {
        fprintf(stderr, "mpiexec: cannot read /dev/urandom: %s\n", strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    for (int i = 0; i < 16; i++)
        snprintf(out + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

/* Each rank costs us 3 descriptors: take the hard limit so large -n works. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static struct rank_proc *rank_by_pid(struct job *job, pid_t pid)
{
    for (int i = 0; i < job->nranks; i++)
        if (job->ranks[i].pid == pid && job->ranks[i].running)
            return &job->ranks[i];
    return NULL;
}

static void reap_children(struct job *job)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        struct rank_proc *rp = rank_by_pid(job, pid);
        if (rp)
            job_rank_exited(job, rp, status);
        else
            spawn_reaped(pid, status); /* a job MPI_Comm_spawn started */
    }
}

static void handle_signals(struct job *job, int sfd)
{
    struct signalfd_siginfo si;
    while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) {
            reap_children(job);
        } else if (job->killing) {
            job->killed_hard = 1; /* impatient user: no more grace */
            job_signal_all(job, SIGKILL);
        } else {
            job_fail(job, 128 + sig, "received signal %d (%s); killing %d rank(s)", sig,
                     strsignal(sig), job->nrunning);
        }
    }
}

static int poll_timeout_ms(const struct job *job, double deadline)
{
    double now = job_now(), wait = -1;
    if (deadline > 0 && !job->killing)
        wait = deadline > now ? deadline - now : 0;
    if (job->killing && !job->killed_hard) {
        double k = job->kill_deadline > now ? job->kill_deadline - now : 0;
        wait = (wait < 0 || k < wait) ? k : wait;
    }
    return wait < 0 ? -1 : (int)(wait * 1000) + 1;
}

/* pollfd slots: 0 = signalfd, then per rank: pmi, out, err. */
static void run_event_loop(struct job *job, int sfd, double deadline)
{
    size_t nfds = 1 + 3 * (size_t)job->nranks;
    struct pollfd *pfd = calloc(nfds, sizeof *pfd);
    if (!pfd) {
        job_fail(job, 1, "out of memory");
        job_signal_all(job, SIGKILL);
        return;
    }
    while (job->nrunning > 0 || spawn_running()) {
        pfd[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
        for (int i = 0; i < job->nranks; i++) {
            struct rank_proc *rp = &job->ranks[i];
            pfd[1 + 3 * i] = (struct pollfd){ .fd = rp->pmi.fd, .events = POLLIN };
            pfd[2 + 3 * i] = (struct pollfd){ .fd = rp->out.fd, .events = POLLIN };
            pfd[3 + 3 * i] = (struct pollfd){ .fd = rp->err.fd, .events = POLLIN };
        }
        int n = poll(pfd, nfds, poll_timeout_ms(job, deadline));
        if (n < 0 && errno != EINTR) {
            job_fail(job, 1, "poll failed: %s", strerror(errno));
            break;
        }
        for (int i = 0; n > 0 && i < job->nranks; i++) {
            struct rank_proc *rp = &job->ranks[i];
            /* output first, so a rank's last words appear before our verdict on it */
            if (pfd[2 + 3 * i].revents && rp->out.fd >= 0)
                output_stream_pump(&rp->out);
            if (pfd[3 + 3 * i].revents && rp->err.fd >= 0)
                output_stream_pump(&rp->err);
            if (pfd[1 + 3 * i].revents && rp->pmi.fd >= 0)
                pmi_server_pump(job, rp);
        }
        if (n > 0 && pfd[0].revents)
            handle_signals(job, sfd);
        if (deadline > 0 && !job->killing && job_now() >= deadline)
            job_fail(job, TIMEOUT_EXIT_CODE, "job timed out after %g s; killing %d rank(s)",
                     job->opt->timeout_s, job->nrunning);
        job_kill_tick(job);
    }
    free(pfd);
}

/* Forwards what the ranks (and anything that inherited their pipes) still write, until EOF
 * or DRAIN_SECONDS. */
static void drain_output(struct job *job)
{
    size_t nfds = 2 * (size_t)job->nranks;
    struct pollfd *pfd = calloc(nfds, sizeof *pfd);
    if (!pfd)
        return;
    double end = job_now() + DRAIN_SECONDS;
    for (;;) {
        int open_fds = 0;
        for (int i = 0; i < job->nranks; i++) {
            pfd[2 * i] = (struct pollfd){ .fd = job->ranks[i].out.fd, .events = POLLIN };
            pfd[2 * i + 1] = (struct pollfd){ .fd = job->ranks[i].err.fd, .events = POLLIN };
            open_fds += (job->ranks[i].out.fd >= 0) + (job->ranks[i].err.fd >= 0);
        }
        double left = end - job_now();
        if (!open_fds || left <= 0)
            break;
        if (poll(pfd, nfds, (int)(left * 1000) + 1) <= 0)
            continue;
        for (int i = 0; i < job->nranks; i++) {
            if (pfd[2 * i].revents && job->ranks[i].out.fd >= 0)
                output_stream_pump(&job->ranks[i].out);
            if (pfd[2 * i + 1].revents && job->ranks[i].err.fd >= 0)
                output_stream_pump(&job->ranks[i].err);
        }
    }
    for (int i = 0; i < job->nranks; i++) {
        output_stream_close(&job->ranks[i].out);
        output_stream_close(&job->ranks[i].err);
        if (job->ranks[i].pmi.fd >= 0)
            close(job->ranks[i].pmi.fd);
        job->ranks[i].pmi.fd = -1;
    }
    free(pfd);
}

int main(int argc, char **argv)
{
    struct mpiexec_options opt;
    int rc = mpiexec_parse_options(argc, argv, &opt);
    if (rc != 0) {
        mpiexec_free_options(&opt);
        return rc > 0 ? 0 : rc == -2 ? 1 : 2;
    }
    signal(SIGPIPE, SIG_IGN);
    raise_fd_limit();

    struct spawn_plan plan = { 0 };
    char *netlab = NULL;
    if (opt.netlab_topo) {
        netlab = netlab_find();
        if (!netlab) {
            fprintf(stderr, "mpiexec: --netlab: cannot find the netlab tool next to mpiexec "
                            "(../netlab/netlab or ./netlab) or in PATH\n");
            mpiexec_free_options(&opt);
            return 127;
        }
        if (!getenv("NETLAB_RUN"))
            netlab_reexec(netlab, opt.netlab_topo, argv); /* returns only on failure */
        else
            plan.hosts = netlab_hosts(netlab, &plan.nhosts);
        if (!plan.hosts) {
            free(netlab);
            mpiexec_free_options(&opt);
            return 127;
        }
        plan.netlab = netlab;
    }

    struct job job = { .opt = &opt, .nranks = opt.nranks, .launcher_pid = getpid() };
    job.ranks = calloc((size_t)opt.nranks, sizeof *job.ranks);
    job.kvs = kvs_create();
    if (!job.ranks || !job.kvs || make_secret(job.secret) < 0 ||
        kvs_put(job.kvs, "sctpmpi-secret", job.secret) < 0) {
        fprintf(stderr, "mpiexec: cannot set up the job\n");
        return 1;
    }
    snprintf(job.kvsname, sizeof job.kvsname, "kvs_%d_0", (int)getpid());
    struct pmi_wire_server pmi_server;
    pmi_server_setup(&job, &pmi_server);
    for (int i = 0; i < job.nranks; i++) {
        job.ranks[i].rank = i;
        job.ranks[i].pmi.rank = i;
        job.ranks[i].pmi.owner = &job.ranks[i];
        job.ranks[i].pmi.fd = job.ranks[i].out.fd = job.ranks[i].err.fd = -1;
    }

    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGCHLD);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    sigaddset(&mask, SIGQUIT);
    if (sigprocmask(SIG_BLOCK, &mask, &plan.child_sigmask) < 0) {
        perror("mpiexec: sigprocmask");
        return 1;
    }
    spawn_init(&plan.child_sigmask);
    int sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
    if (sfd < 0) {
        perror("mpiexec: signalfd");
        return 1;
    }

    if (sim_launch_active() && opt.any_remote) {
        fprintf(stderr, "mpiexec: --sim runs every rank on this machine: it cannot be combined "
                        "with a host list naming other machines\n");
        mpiexec_free_options(&opt);
        return 2;
    }
    if (sim_launch_active()) { /* --sim: the ranks' transport is the simulator's */
        if (sim_launch_start(opt.nranks, opt.transport) < 0)
            return 1;
        opt.transport = NULL;
    }
    double deadline = opt.timeout_s > 0 ? job_now() + opt.timeout_s : 0;
    if (opt.any_remote) { /* multi-host: one proxy per host does the forking and PMI */
        remote_run(&job, sfd, deadline, &plan.child_sigmask);
        close(sfd);
        kvs_destroy(job.kvs);
        free(job.ranks);
        mpiexec_free_options(&opt);
        return job.failed ? job.exit_code : 0;
    }
    for (int i = 0; i < job.nranks; i++) {
        if (spawn_rank(&job, &plan, i) < 0) {
            job_fail(&job, 1, "could not start rank %d; killing the %d started", i, job.nrunning);
            break;
        }
    }
    run_event_loop(&job, sfd, deadline);
    /* no orphans: whatever is left in the ranks' process groups goes too */
    job_signal_all(&job, job.failed ? SIGKILL : SIGTERM);
    drain_output(&job);
    int sim_rc = sim_launch_finish(); /* --sim: the simulator's verdict */
    if (sim_rc && !job.failed)
        job.failed = 1, job.exit_code = sim_rc;
    if (spawn_failed() && !job.failed) /* a job MPI_Comm_spawn started failed */
        job.failed = 1, job.exit_code = 1;
    names_cleanup();

    close(sfd);
    kvs_destroy(job.kvs);
    free(job.ranks);
    if (plan.hosts) {
        for (int i = 0; i < plan.nhosts; i++)
            free(plan.hosts[i]);
        free(plan.hosts);
    }
    free(netlab);
    mpiexec_free_options(&opt);
    return job.failed ? job.exit_code : 0;
}
