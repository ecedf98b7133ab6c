/* rank_spawn.c — forks a rank with its stdout/stderr on pipes to us, one end of a PMI
 * socketpair as PMI_FD, and PMI_RANK, PMI_SIZE, SCTPMPI_* in its environment.  Each rank leads
 * its own process group so that killing the group also reaches the rank's children. */
#include "rank_spawn.h"
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#define PMI_SEND_TIMEOUT_SECONDS 10

static void setenv_int(const char *name, int value)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d", value);
    setenv(name, buf, 1);
}

static int ranks_on_host(const struct job *job, const struct spawn_plan *plan, int rank)
{
    if (!plan->netlab)
        return job->nranks;
    int host = rank % plan->nhosts, count = 0;
    for (int i = 0; i < job->nranks; i++)
        count += (i % plan->nhosts) == host;
    return count;
}

/* Runs in the child after fork: never returns. */
static void exec_rank(struct job *job, const struct spawn_plan *plan, int rank, int pmi_fd,
                      int out_fd, int err_fd)
{
    setpgid(0, 0);
    /* if mpiexec itself is SIGKILLed, take the rank down too (its children follow via EOF) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != job->launcher_pid)
        _exit(127);
    sigprocmask(SIG_SETMASK, &plan->child_sigmask, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (dup2(out_fd, STDOUT_FILENO) < 0 || dup2(err_fd, STDERR_FILENO) < 0)
        _exit(127);
    if (rank != 0) { /* stdin goes to rank 0 only */
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull >= 0) {
            dup2(devnull, STDIN_FILENO);
            close(devnull);
        }
    }
    int flags = fcntl(pmi_fd, F_GETFD);
    if (flags >= 0)
        fcntl(pmi_fd, F_SETFD, flags & ~FD_CLOEXEC);

    const struct mpiexec_options *opt = job->opt;
    if (opt->wdir && chdir(opt->wdir) < 0) {
        fprintf(stderr, "mpiexec: -wdir %s: %s\n", opt->wdir, strerror(errno));
        _exit(127);
    }
    for (int i = 0; i < opt->nenv; i++) {
        char *eq = strchr(opt->env_assign[i], '=');
        if (eq) {
            *eq = '\0'; /* we are a forked copy: editing our argv is harmless */
            setenv(opt->env_assign[i], eq + 1, 1);
        } else if (!getenv(opt->env_assign[i])) {
            fprintf(stderr, "mpiexec: warning: -x %s: not set in mpiexec's environment\n",
                    opt->env_assign[i]);
        }
    }
    unsetenv("PMI_PORT"); /* we may run under another launcher: our PMI_FD wins */
    unsetenv("PMI_ID");
    setenv_int("PMI_FD", pmi_fd);
    setenv_int("PMI_RANK", rank);
    setenv_int("PMI_SIZE", job->nranks);
    setenv_int("SCTPMPI_LOCAL_RANKS", ranks_on_host(job, plan, rank));
    setenv("SCTPMPI_JOB_SECRET", job->secret, 1);
    if (opt->transport)
        setenv("SCTPMPI_TRANSPORT", opt->transport, 1);

    char **app_argv = NULL, app_wdir[4096] = "";
    int appnum = 0, app = spawn_app_of(rank, &app_argv, app_wdir, sizeof app_wdir, &appnum);
    unsetenv("SCTPMPI_SPAWN_APPS");
    if (app < 0) {
        fprintf(stderr, "mpiexec: malformed SCTPMPI_SPAWN_APPS\n");
        _exit(127);
    }
    if (app > 0) { /* a job MPI_Comm_spawn started: this rank's command (spawn.c) */
        setenv_int("SCTPMPI_APPNUM", appnum);
        if (*app_wdir && chdir(app_wdir) < 0) {
            fprintf(stderr, "mpiexec: wdir %s: %s\n", app_wdir, strerror(errno));
            _exit(127);
        }
        execv(app_argv[0], app_argv);
        fprintf(stderr, "mpiexec: cannot run %s: %s\n", app_argv[0], strerror(errno));
        _exit(127);
    }
    if (plan->netlab) {
        int n = 0;
        while (opt->prog_argv[n])
            n++;
        char **argv = calloc((size_t)n + 5, sizeof *argv);
        if (!argv)
            _exit(127);
        argv[0] = (char *)plan->netlab;
        argv[1] = "exec";
        argv[2] = plan->hosts[rank % plan->nhosts];
        argv[3] = "--";
        memcpy(argv + 4, opt->prog_argv, (size_t)n * sizeof *argv);
        execv(plan->netlab, argv);
        fprintf(stderr, "mpiexec: cannot run %s: %s\n", plan->netlab, strerror(errno));
    } else {
        execvp(opt->prog_argv[0], opt->prog_argv);
        fprintf(stderr, "mpiexec: cannot run %s: %s\n", opt->prog_argv[0], strerror(errno));
    }
    _exit(127);
}

int spawn_rank(struct job *job, const struct spawn_plan *plan, int rank)
{
    struct rank_proc *rp = &job->ranks[rank];
    int sv[2] = { -1, -1 }, outp[2] = { -1, -1 }, errp[2] = { -1, -1 };
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
        pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
        fprintf(stderr, "mpiexec: cannot create pipes for rank %d: %s\n", rank, strerror(errno));
        goto fail;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "mpiexec: cannot fork rank %d: %s\n", rank, strerror(errno));
        goto fail;
    }
    if (pid == 0)
        exec_rank(job, plan, rank, sv[1], outp[1], errp[1]);
    setpgid(pid, pid); /* also done by the child; whichever runs first wins the race */
    /* a rank that stops reading replies must not block the launcher (and its timeouts) */
    struct timeval sndtimeo = { .tv_sec = PMI_SEND_TIMEOUT_SECONDS };
    (void)setsockopt(sv[0], SOL_SOCKET, SO_SNDTIMEO, &sndtimeo, sizeof sndtimeo);
    close(sv[1]);
    close(outp[1]);
    close(errp[1]);
    rp->rank = rank;
    rp->pid = pid;
    rp->running = 1;
    rp->pmi.fd = sv[0];
    output_stream_init(&rp->out, outp[0], STDOUT_FILENO, rank, job->opt->prefix_output);
    output_stream_init(&rp->err, errp[0], STDERR_FILENO, rank, job->opt->prefix_output);
    job->nrunning++;
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (outp[i] >= 0)
            close(outp[i]);
        if (errp[i] >= 0)
            close(errp[i]);
    }
    return -1;
}
