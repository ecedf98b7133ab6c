/* netlab: `netlab run` — the supervisor. It creates the state directory, the namespaces (one
 * per host), the TUN devices (one per host and rail), the management bridge and veths, forks
 * the forwarder, runs the command in the root namespace and tears everything down when the
 * command exits, on SIGINT/SIGTERM/SIGHUP, or when the forwarder dies. */
#include "run.h"

#include "fwd.h"
#include "netns.h"
#include "state.h"

#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

int nl_env_check(void)
{
    if (geteuid() != 0) {
        fprintf(stderr,
                "netlab: must run as root (it creates network namespaces and TUN devices)\n");
        return 77;
    }
    struct stat st;
    errno = 0;
    if (stat("/dev/net/tun", &st) || !S_ISCHR(st.st_mode) || major(st.st_rdev) != 10 ||
        minor(st.st_rdev) != 200 || access("/dev/net/tun", R_OK | W_OK)) {
        fprintf(stderr,
                "netlab: /dev/net/tun is not available (%s): load the tun module or give the "
                "container the device\n",
                errno ? strerror(errno) : "not the TUN character device");
        return 77;
    }
    if (nl_ip_batch(NULL, "netns list\n", 0, 1)) {
        fprintf(stderr, "netlab: `ip netns` does not work here (is iproute2 installed?)\n");
        return 77;
    }
    return 0;
}

/* Teardown context for the forwarder when its supervisor dies. */
static char g_dir[4096];
static void orphan_teardown(void *arg)
{
    (void)arg;
    fprintf(stderr, "netlab-fwd: the supervisor died; tearing the network down\n");
    nl_teardown(g_dir);
}

static int mgmt_net_in_use(const char *root, int m)
{
    struct ifaddrs *ifa;
    int used = 0;
    if (getifaddrs(&ifa) == 0) {
        for (struct ifaddrs *i = ifa; i; i = i->ifa_next) {
            if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET)
                continue;
            unsigned char *b = (unsigned char *)&((struct sockaddr_in *)i->ifa_addr)->sin_addr;
            if (b[0] == 198 && b[1] == 19 && b[2] == m)
                used = 1;
        }
        freeifaddrs(ifa);
    }
    DIR *d = opendir(root);
    struct dirent *e;
    while (!used && d && (e = readdir(d))) {
        if (strncmp(e->d_name, NL_PREFIX, 4))
            continue;
        char dir[4096], v[32];
        snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
        if (!nl_info_get(dir, "mgmt", v, sizeof v) && atoi(v) == m)
            used = 1;
    }
    if (d)
        closedir(d);
    return used;
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

#define APPEND(buf, len, ...)                                                                    \
    do {                                                                                         \
        if ((len) < sizeof(buf))                                                                 \
            (len) += (size_t)snprintf((buf) + (len), sizeof(buf) - (len), __VA_ARGS__);          \
    } while (0)

static int setup(const nl_topo *t, const char *prefix, int m, int *tunfd, const char *dir)
{
    char err[256];
    static char batch[1 << 16];
    size_t bl = 0;
    int nh = t->nhosts;
    for (int h = 0; h < nh; h++)
        APPEND(batch, bl, "netns add %s-%s\n", prefix, t->hosts[h]);
    APPEND(batch, bl,
           "link add %sbr type bridge\nlink set %sbr up\naddr add 198.19.%d.254/24 dev %sbr\n",
           prefix, prefix, m, prefix);
    for (int h = 0; h < nh; h++)
        APPEND(batch, bl,
               "link add %sm%d type veth peer name mgmt netns %s-%s\nlink set %sm%d master "
               "%sbr\nlink set %sm%d up\n",
               prefix, h, prefix, t->hosts[h], prefix, h, prefix, prefix, h);
    if (bl >= sizeof batch || nl_ip_batch(NULL, batch, 0, 0)) {
        fprintf(stderr, "netlab: creating namespaces and the management bridge failed\n");
        return -1;
    }
    char ns[256], path[4096];
    snprintf(path, sizeof path, "%s/hosts", dir);
    FILE *hf = fopen(path, "w");
    if (!hf) {
        fprintf(stderr, "netlab: %s: %s\n", path, strerror(errno));
        return -1;
    }
    for (int h = 0; h < nh; h++) {
        snprintf(ns, sizeof ns, "%s-%s", prefix, t->hosts[h]);
        nl_ns_sysctl(ns, "net/ipv6/conf/all/disable_ipv6", "1");
        nl_ns_sysctl(ns, "net/ipv6/conf/default/disable_ipv6", "1");
        bl = 0;
        APPEND(batch, bl, "link set lo up\nlink set mgmt up\naddr add 198.19.%d.%d/24 dev mgmt\n",
               m, h + 1);
        fprintf(hf, "%s %s ", t->hosts[h], ns);
        for (int r = 0; r < t->nrails; r++) {
            char ifn[16];
            snprintf(ifn, sizeof ifn, "rail%d", r);
            int fd = nl_tun_open(ns, ifn, err, sizeof err);
            if (fd < 0) {
                fprintf(stderr, "netlab: %s\n", err);
                fclose(hf);
                return -1;
            }
            tunfd[r * nh + h] = fd;
            APPEND(batch, bl,
                   "link set %s mtu %u txqueuelen %s\naddr add 198.18.%d.%d/24 dev %s\nlink set "
                   "%s up\n",
                   ifn, t->rail_mtu[r],
                   getenv("NETLAB_TXQUEUELEN") ? getenv("NETLAB_TXQUEUELEN") : "5000", r, h + 1,
                   ifn, ifn);
            fprintf(hf, "%s198.18.%d.%d", r ? "," : "", r, h + 1);
        }
        fprintf(hf, " 198.19.%d.%d\n", m, h + 1);
        if (bl >= sizeof batch || nl_ip_batch(ns, batch, 0, 0)) {
            fprintf(stderr, "netlab: configuring %s failed\n", ns);
            fclose(hf);
            return -1;
        }
    }
    return fclose(hf);
}

static int ctl_listen(const char *dir)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (snprintf(a.sun_path, sizeof a.sun_path, "%s/ctl.sock", dir) >= (int)sizeof a.sun_path) {
        fprintf(stderr, "netlab: state directory path too long for a socket: %s\n", dir);
        return -1;
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || listen(fd, 64)) {
        perror("netlab: control socket");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

static void put_pid(const char *dir, const char *what, pid_t pid)
{
    char k[64], v[64];
    snprintf(v, sizeof v, "%d", (int)pid);
    snprintf(k, sizeof k, "%s_pid", what);
    nl_info_put(dir, k, v);
    snprintf(v, sizeof v, "%llu", nl_proc_start(pid));
    snprintf(k, sizeof k, "%s_start", what);
    nl_info_put(dir, k, v);
}

static int run_topo(const nl_run_opts *o, nl_topo *tp, int **tunfd_out);

int nl_run(const nl_run_opts *o)
{
    int rc = nl_env_check();
    if (rc)
        return rc;
    nl_topo t;
    char err[512];
    if (nl_topo_load(&t, o->topo_path, err, sizeof err)) {
        fprintf(stderr, "netlab: %s\n", err);
        return 125;
    }
    int *tunfd = NULL;
    rc = run_topo(o, &t, &tunfd);
    free(tunfd);
    nl_topo_free(&t);
    return rc;
}

static int run_topo(const nl_run_opts *o, nl_topo *tp, int **tunfd_out)
{
    nl_topo t = *tp; /* shallow copy: arrays are freed by the caller */
    mkdir(nl_state_root(), 0755);
    char root[3000];
    if (!realpath(nl_state_root(), root) || strlen(root) > 2900) {
        fprintf(stderr, "netlab: state directory %s: %s\n", nl_state_root(), strerror(errno));
        return 125;
    }
    char lockp[4096];
    snprintf(lockp, sizeof lockp, "%s/.lock", root);
    int lk = open(lockp, O_CREAT | O_RDWR | O_CLOEXEC, 0644);
    if (lk < 0 || flock(lk, LOCK_EX)) {
        fprintf(stderr, "netlab: cannot lock %s: %s\n", lockp, strerror(errno));
        return 125;
    }
    nl_gc(0);
    char prefix[32], dir[3800];
    for (;;) {
        unsigned char rnd[3];
        if (getrandom(rnd, sizeof rnd, 0) != sizeof rnd) {
            unsigned x = (unsigned)getpid() ^ (unsigned)time(NULL);
            memcpy(rnd, &x, 3);
        }
        snprintf(prefix, sizeof prefix, NL_PREFIX "%02x%02x%02x", rnd[0], rnd[1], rnd[2]);
        snprintf(dir, sizeof dir, "%s/%s", root, prefix);
        if (mkdir(dir, 0755) == 0)
            break;
        if (errno != EEXIST) {
            fprintf(stderr, "netlab: cannot create %s: %s\n", dir, strerror(errno));
            return 125;
        }
    }
    int m = -1;
    for (int i = 1; i < 255 && m < 0; i++)
        if (!mgmt_net_in_use(root, i))
            m = i;
    char v[64];
    nl_info_put(dir, "prefix", prefix);
    put_pid(dir, "owner", getpid());
    char absdir[4096];
    nl_registry_add(prefix, realpath(dir, absdir) ? absdir : dir);
    snprintf(v, sizeof v, "%d", m);
    nl_info_put(dir, "mgmt", v);
    flock(lk, LOCK_UN);
    close(lk);
    if (m < 0) {
        fprintf(stderr, "netlab: no free management subnet in 198.19.1-254.0/24\n");
        nl_teardown(dir);
        return 125;
    }
    snprintf(v, sizeof v, "198.19.%d.254", m);
    nl_info_put(dir, "mgmt_gw", v);
    char topo_abs[4096];
    nl_info_put(dir, "topo", realpath(o->topo_path, topo_abs) ? topo_abs : o->topo_path);
    snprintf(g_dir, sizeof g_dir, "%s", dir);

    /* Hold termination signals during setup; they are looked at once everything is up. */
    sigset_t ss, old;
    sigemptyset(&ss);
    sigaddset(&ss, SIGCHLD);
    sigaddset(&ss, SIGINT);
    sigaddset(&ss, SIGTERM);
    sigaddset(&ss, SIGHUP);
    sigprocmask(SIG_BLOCK, &ss, &old);

    /* capture */
    const char *pcap_dir = o->pcap_dir;
    int any_pcap = 0;
    size_t nl = (size_t)t.nrails * (size_t)t.nhosts * (size_t)t.nhosts;
    for (size_t i = 0; i < nl; i++)
        any_pcap |= t.links[i].pcap;
    if (o->pcap_all && !any_pcap)
        for (size_t i = 0; i < nl; i++)
            t.links[i].pcap = 1;
    if ((o->pcap_all || any_pcap) && !pcap_dir)
        pcap_dir = getenv("NETLAB_PCAP_DIR") ? getenv("NETLAB_PCAP_DIR") : "netlab-pcap";
    char pcap_abs[4096] = "";
    if (o->pcap_all || any_pcap) {
        mkdir(pcap_dir, 0755);
        if (!realpath(pcap_dir, pcap_abs)) {
            fprintf(stderr, "netlab: capture directory %s: %s\n", pcap_dir, strerror(errno));
            nl_teardown(dir);
            return 125;
        }
    }

    int *tunfd = calloc((size_t)t.nrails * (size_t)t.nhosts, sizeof(int));
    *tunfd_out = tunfd;
    for (int i = 0; tunfd && i < t.nrails * t.nhosts; i++)
        tunfd[i] = -1;
    int ctl = -1;
    if (!tunfd || setup(&t, prefix, m, tunfd, dir) || (ctl = ctl_listen(dir)) < 0) {
        fprintf(stderr, "netlab: setup failed; removing what was created\n");
        nl_teardown(dir);
        return 125;
    }
    if (o->ready_fd >= 0) {
        /* netlab start: from here on the daemon's output goes to DIR/log, so the starter's
     * stdout/stderr (often a pipe someone waits on) are released */
        char logp[4200];
        snprintf(logp, sizeof logp, "%s/log", dir);
        int lfd = open(logp, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (lfd >= 0) {
            dup2(lfd, 1);
            dup2(lfd, 2);
            close(lfd);
        }
    }
    pid_t me = getpid();
    pid_t fwd = fork();
    if (fwd < 0) {
        perror("netlab: fork");
        nl_teardown(dir);
        return 125;
    }
    if (fwd == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        /* the forwarder is the network: let it win the CPU against the programs it carries */
        const char *nice_s = getenv("NETLAB_FWD_NICE");
        if (setpriority(PRIO_PROCESS, 0, nice_s ? atoi(nice_s) : -10) && getenv("NETLAB_DEBUG"))
            perror("netlab: setpriority");
        /* Release times are only as good as the forwarder's wake-ups: on a busy machine a normal
     * task wakes milliseconds late. Real-time priority 10 by default (NETLAB_FWD_RT=0: off,
     * N: priority N); the kernel's RT throttling still leaves time for everything else. */
        const char *rt_s = getenv("NETLAB_FWD_RT");
        int rtprio = rt_s ? atoi(rt_s) : 10;
        if (rtprio > 0) {
            struct sched_param sp = { .sched_priority = rtprio };
            if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &sp) &&
                getenv("NETLAB_DEBUG"))
                perror("netlab: SCHED_FIFO");
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        nl_fwd_cfg cfg = { 0 };
        cfg.topo = &t;
        cfg.tunfd = tunfd;
        cfg.ctl_fd = ctl;
        cfg.pcap_dir = pcap_abs[0] ? pcap_abs : NULL;
        cfg.pcap_snaplen = o->pcap_snaplen ? o->pcap_snaplen : 65535;
        cfg.pool_mb = getenv("NETLAB_POOL_MB") ? (size_t)atol(getenv("NETLAB_POOL_MB")) : 256;
        cfg.parent = me;
        cfg.on_orphan = orphan_teardown;
        _exit(nl_fwd_run(&cfg));
    }
    for (int i = 0; i < t.nrails * t.nhosts; i++)
        close(tunfd[i]);
    close(ctl);
    put_pid(dir, "fwd", fwd);

    /* the command */
    pid_t cmd = -1;
    int tty = isatty(0) && tcgetpgrp(0) == getpgrp();
    if (o->cmd) {
        cmd = fork();
        if (cmd < 0) {
            perror("netlab: fork");
            nl_teardown(dir);
            return 125;
        }
        if (cmd == 0) {
            setpgid(0, 0);
            sigprocmask(SIG_SETMASK, &old, NULL);
            setenv("NETLAB_RUN", dir, 1);
            execvp(o->cmd[0], o->cmd);
            fprintf(stderr, "netlab: cannot run %s: %s\n", o->cmd[0], strerror(errno));
            _exit(127);
        }
        setpgid(cmd, cmd);
        snprintf(v, sizeof v, "%d", (int)cmd);
        nl_info_put(dir, "cmd_pgid", v);
        if (tty) {
            signal(SIGTTOU, SIG_IGN);
            tcsetpgrp(0, cmd);
        }
    }
    if (o->ready_fd >= 0) {
        char line[4200];
        int n = snprintf(line, sizeof line, "%s\n", dir);
        if (write(o->ready_fd, line, (size_t)n) != n) { /* the starter went away */
        }
        close(o->ready_fd);
    }

    int status = -1, exit_code = 0, fwd_dead = 0, stopping = 0;
    struct timespec grace_end = { 0, 0 };
    for (;;) {
        if (o->cmd ? cmd <= 0 : stopping)
            break;
        siginfo_t si;
        struct timespec to = { 0, 200000000 };
        int sig = sigtimedwait(&ss, &si, &to);
        if (sig == SIGCHLD || sig < 0) {
            int st;
            pid_t p;
            while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
                if (p == cmd) {
                    status = st;
                    cmd = -1;
                } else if (p == fwd) {
                    fwd_dead = 1;
                    fwd = -1;
                }
            }
            if (fwd_dead == 1) {
                fwd_dead = 2;
                fprintf(stderr,
                        "netlab: the forwarder died; stopping the command and tearing down\n");
                if (cmd > 0)
                    kill(-cmd, SIGTERM);
                stopping = 1;
                clock_gettime(CLOCK_MONOTONIC, &grace_end);
                grace_end.tv_sec += 2;
            }
        } else if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP) {
            if (cmd > 0)
                kill(-cmd, sig);
            if (!stopping) {
                stopping = 1;
                exit_code = 128 + sig;
                clock_gettime(CLOCK_MONOTONIC, &grace_end);
                grace_end.tv_sec += 3;
            }
        }
        if (stopping && cmd > 0) {
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec > grace_end.tv_sec ||
                (now.tv_sec == grace_end.tv_sec && now.tv_nsec >= grace_end.tv_nsec)) {
                kill(-cmd, SIGKILL);
                grace_end.tv_sec += 3600;
            }
        }
    }
    if (tty)
        tcsetpgrp(0, getpgrp());
    nl_teardown(dir);
    if (fwd_dead)
        return 125;
    if (status == -1)
        return exit_code;
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    (void)sleep_ms;
    return 125;
}
