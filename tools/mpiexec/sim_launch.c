/* sim_launch.c — mpiexec's side of the network simulator (--sim TOPO, --sim-cpu-scale X,
 * --sim-seed N, --sim-pcap DIR): creates the Unix socket the ranks reach the simulator on,
 * starts tools/simnet with it, points the ranks at it (SCTPMPI_TRANSPORT=sim,
 * SCTPMPI_SIM_SOCKET; sleeps through the simnet_sleep interposer) and collects its verdict. */
#include "sim_launch.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *topo, *seed, *pcap;
static pid_t sim_pid = -1;
static int status_fd = -1;
static char dir[64], sock[96];

static int opt_value(int argc, char **argv, int *i, const char *name, const char **out)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n))
        return 0;
    if (a[n] == '=') {
        *out = a + n + 1;
        return 1;
    }
    if (a[n])
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "mpiexec: option %s needs a value\n", name);
        return -1;
    }
    *out = argv[++*i];
    return 1;
}

int sim_launch_option(int argc, char **argv, int *i)
{
    const char *v = NULL;
    int rc;
    if ((rc = opt_value(argc, argv, i, "--sim-cpu-scale", &v)) != 0) {
        char *end;
        double x = rc > 0 ? strtod(v, &end) : 0;
        if (rc < 0 || *end || x < 0) {
            if (rc > 0)
                fprintf(stderr, "mpiexec: --sim-cpu-scale wants a number >= 0, got '%s'\n", v);
            return -1;
        }
        setenv("SCTPMPI_SIM_CPU_SCALE", v, 1);
        return 1;
    }
    if ((rc = opt_value(argc, argv, i, "--sim-seed", &v)) != 0)
        return rc < 0 ? -1 : (seed = v, 1);
    if ((rc = opt_value(argc, argv, i, "--sim-pcap", &v)) != 0)
        return rc < 0 ? -1 : (pcap = v, 1);
    if ((rc = opt_value(argc, argv, i, "--sim", &v)) != 0)
        return rc < 0 ? -1 : (topo = v, 1);
    return 0;
}

int sim_launch_active(void)
{
    return topo != NULL;
}

static char *next_to_us(const char *rel)
{
    char buf[PATH_MAX], path[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    const char *d = dirname(buf);
    const char *cand[2] = { "../simnet/", "" };
    for (int k = 0; k < 2; k++) {
        snprintf(path, sizeof path, "%s/%s%s", d, cand[k], rel);
        if (access(path, R_OK) == 0)
            return realpath(path, NULL);
    }
    return NULL;
}

int sim_launch_start(int nranks, const char *transport)
{
    if (transport && strcmp(transport, "sim") && strcmp(transport, "sctp")) {
        fprintf(stderr,
                "mpiexec: --sim simulates the SCTP transport; --transport %s cannot run "
                "on it\n",
                transport);
        return -1;
    }
    if (nranks < 2) { /* a single rank has no transport, so nothing would make its time virtual */
        fprintf(stderr, "mpiexec: --sim needs at least 2 ranks\n");
        return -1;
    }
    char *simnet = next_to_us("simnet");
    if (!simnet) {
        fprintf(stderr, "mpiexec: --sim: cannot find the simulator (simnet) next to mpiexec\n");
        return -1;
    }
    snprintf(dir, sizeof dir, "/tmp/sctpmpi-sim-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mpiexec: --sim: mkdtemp");
        free(simnet);
        return -1;
    }
    snprintf(sock, sizeof sock, "%s/sock", dir);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", sock);
    int lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int pfd[2];
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&sa, sizeof sa) || listen(lfd, 4096) ||
        pipe2(pfd, O_CLOEXEC)) {
        perror("mpiexec: --sim: socket");
        free(simnet);
        return -1;
    }
    char nbuf[16], lbuf[16], sbuf[16];
    snprintf(nbuf, sizeof nbuf, "%d", nranks);
    snprintf(lbuf, sizeof lbuf, "%d", lfd);
    snprintf(sbuf, sizeof sbuf, "%d", pfd[1]);
    pid_t me = getpid();
    sim_pid = fork();
    if (sim_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != me)
            _exit(127);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        fcntl(lfd, F_SETFD, 0);
        fcntl(pfd[1], F_SETFD, 0);
        const char *av[16] = { simnet,        "--topo", topo,          "-n", nbuf,
                               "--listen-fd", lbuf,     "--status-fd", sbuf };
        int ac = 9;
        if (seed)
            av[ac++] = "--seed", av[ac++] = seed;
        if (pcap)
            av[ac++] = "--pcap", av[ac++] = pcap;
        av[ac] = NULL;
        execv(simnet, (char **)av);
        fprintf(stderr, "mpiexec: cannot run %s: %s\n", simnet, strerror(errno));
        _exit(127);
    }
    close(lfd); /* the simulator alone accepts: if it stops, the ranks see it */
    close(pfd[1]);
    free(simnet);
    if (sim_pid < 0) {
        perror("mpiexec: --sim: fork");
        return -1;
    }
    status_fd = pfd[0];
    setenv("SCTPMPI_TRANSPORT", "sim", 1);
    setenv("SCTPMPI_SIM_SOCKET", sock, 1);
    if (!getenv("SCTPMPI_SPIN_US")) /* spinning would only burn virtual time */
        setenv("SCTPMPI_SPIN_US", "0", 1);
    char *sl = next_to_us("libsimnet_sleep.so");
    if (sl) { /* sleeps in the program advance virtual time instead of waiting */
        const char *old = getenv("LD_PRELOAD");
        char *v = malloc(strlen(sl) + (old ? strlen(old) : 0) + 2);
        if (v) {
            sprintf(v, "%s%s%s", sl, old && *old ? ":" : "", old && *old ? old : "");
            setenv("LD_PRELOAD", v, 1);
            free(v);
        }
        free(sl);
    }
    return 0;
}

int sim_launch_finish(void)
{
    if (sim_pid <= 0)
        return 0;
    char line[64] = "";
    size_t n = 0;
    ssize_t r;
    /* every rank has exited: the simulator sees their sockets close and ends at once; one
     * still waiting for a rank that never connected (it died first) is stopped */
    struct pollfd pf = { status_fd, POLLIN, 0 };
    while (n < sizeof line - 1) {
        if (poll(&pf, 1, 3000) <= 0) {
            kill(sim_pid, SIGKILL);
            break;
        }
        r = read(status_fd, line + n, sizeof line - 1 - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        n += (size_t)r;
    }
    line[n] = '\0';
    close(status_fd);
    (void)waitpid(sim_pid, NULL, 0); /* ECHILD when the rank reaper took it: fine */
    unlink(sock);
    rmdir(dir);
    if (!n) {
        fprintf(stderr, "mpiexec: the network simulator died\n");
        return 1;
    }
    return atoi(line);
}
