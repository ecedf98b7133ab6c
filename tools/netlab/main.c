/* netlab: the command-line front end (run, start, stop, exec, hosts, stats, show, set, down,
 * up, gc, check). See docs/netlab.md. */
#include "fwd.h"
#include "netns.h"
#include "run.h"
#include "state.h"
#include "topo.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: netlab run [--pcap] [--pcap-dir DIR] [--snaplen N] TOPO -- CMD [ARGS...]\n"
            "       netlab start [--pcap] [--pcap-dir DIR] TOPO    (prints the run directory)\n"
            "       netlab stop [--run DIR]\n"
            "       netlab exec [--run DIR] HOST -- CMD [ARGS...]\n"
            "       netlab hosts [--run DIR]\n"
            "       netlab info [--run DIR]\n"
            "       netlab stats [--run DIR] [--json] [SELECTOR]\n"
            "       netlab show [--run DIR] [SELECTOR]\n"
            "       netlab set [--run DIR] SELECTOR key=value...\n"
            "       netlab down|up [--run DIR] SELECTOR\n"
            "       netlab gc [-v]\n"
            "       netlab check TOPO\n"
            "SELECTOR: *  A  A-B  A>B  each with an optional @RAIL (A, B host names or *).\n"
            "DIR defaults to $NETLAB_RUN (set by netlab run for its command).\n");
}

/* Parse "--run DIR" at argv[*i]; returns 1 if consumed. */
static int opt_run(int argc, char **argv, int *i, const char **run)
{
    if (!strcmp(argv[*i], "--run") && *i + 1 < argc) {
        *run = argv[++*i];
        return 1;
    }
    if (!strncmp(argv[*i], "--run=", 6)) {
        *run = argv[*i] + 6;
        return 1;
    }
    return 0;
}

static int cmd_run(int argc, char **argv, int start)
{
    nl_run_opts o = { 0 };
    o.ready_fd = -1;
    int i = 2;
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "--pcap"))
            o.pcap_all = 1;
        else if (!strcmp(argv[i], "--pcap-dir") && i + 1 < argc) {
            o.pcap_dir = argv[++i];
            o.pcap_all = 1;
        } else if (!strcmp(argv[i], "--snaplen") && i + 1 < argc)
            o.pcap_snaplen = (unsigned)atoi(argv[++i]);
        else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "netlab: unknown option %s\n", argv[i]);
            return 2;
        } else if (!o.topo_path)
            o.topo_path = argv[i];
        else if (start) {
            fprintf(stderr, "netlab start: unexpected argument %s\n", argv[i]);
            return 2;
        } else {
            break;
        }
    }
    if (!o.topo_path) {
        usage(stderr);
        return 2;
    }
    if (!start) {
        if (i >= argc) {
            fprintf(stderr, "netlab run: no command given (netlab run TOPO -- CMD...)\n");
            return 2;
        }
        o.cmd = argv + i;
        return nl_run(&o);
    }
    int rc = nl_env_check();
    if (rc)
        return rc;
    int p[2];
    if (pipe(p)) {
        perror("netlab: pipe");
        return 125;
    }
    pid_t pid = fork();
    if (pid < 0) {
        perror("netlab: fork");
        return 125;
    }
    if (pid == 0) {
        close(p[0]);
        setsid();
        pid_t again =
            fork(); /* the supervisor must not be the session leader's parent-waiting child */
        if (again != 0)
            _exit(again < 0 ? 125 : 0);
        o.ready_fd = p[1];
        FILE *dn = fopen("/dev/null", "r");
        if (dn)
            dup2(fileno(dn), 0);
        _exit(nl_run(&o));
    }
    close(p[1]);
    waitpid(pid, NULL, 0);
    char buf[4200];
    ssize_t n = read(p[0], buf, sizeof buf - 1);
    if (n <= 0) {
        fprintf(stderr, "netlab start: the network did not come up\n");
        return 125;
    }
    buf[n] = '\0';
    fputs(buf, stdout);
    return 0;
}

static int cmd_stop(int argc, char **argv)
{
    const char *run = NULL;
    for (int i = 2; i < argc; i++)
        if (!opt_run(argc, argv, &i, &run)) {
            usage(stderr);
            return 2;
        }
    const char *dir = nl_run_dir(run);
    if (!dir)
        return 2;
    char v[64], st[64] = "0";
    if (nl_info_get(dir, "owner_pid", v, sizeof v)) {
        fprintf(stderr, "netlab stop: no run at %s\n", dir);
        return 1;
    }
    nl_info_get(dir, "owner_start", st, sizeof st);
    pid_t pid = (pid_t)atoi(v);
    unsigned long long start = strtoull(st, NULL, 10);
    if (nl_proc_alive(pid, start))
        kill(pid, SIGTERM);
    for (int i = 0; i < 1000 && access(dir, F_OK) == 0; i++) {
        struct timespec ts = { 0, 10000000 };
        nanosleep(&ts, NULL);
        if (i == 500 && !nl_proc_alive(pid, start))
            nl_teardown(dir);
    }
    if (access(dir, F_OK) == 0) {
        nl_teardown(dir);
    }
    return 0;
}

static int cmd_exec(int argc, char **argv)
{
    const char *run = NULL, *host = NULL;
    int i = 2;
    for (; i < argc; i++) {
        if (opt_run(argc, argv, &i, &run))
            continue;
        if (!strcmp(argv[i], "--")) {
            i++;
            break;
        }
        if (!host)
            host = argv[i];
        else
            break;
    }
    if (!host || i >= argc) {
        fprintf(stderr, "usage: netlab exec [--run DIR] HOST -- CMD [ARGS...]\n");
        return 2;
    }
    const char *dir = nl_run_dir(run);
    if (!dir)
        return 2;
    char ns[256], addrs[1024], mgmt[64], err[512];
    if (nl_hosts_lookup(dir, host, ns, sizeof ns, addrs, sizeof addrs, mgmt, sizeof mgmt)) {
        fprintf(stderr, "netlab exec: no host '%s' in the run at %s\n", host, dir);
        return 2;
    }
    if (geteuid() != 0) {
        fprintf(stderr, "netlab: must run as root (it enters network namespaces)\n");
        return 77;
    }
    if (nl_ns_enter(ns, err, sizeof err)) {
        fprintf(stderr, "netlab exec: %s\n", err);
        return 125;
    }
    char gw[64];
    setenv("NETLAB_RUN", dir, 1);
    setenv("NETLAB_HOST", host, 1);
    setenv("NETLAB_ADDRS", addrs, 1);
    setenv("SCTPMPI_ADDRS", addrs, 1);
    setenv("NETLAB_MGMT_ADDR", mgmt, 1);
    if (!nl_info_get(dir, "mgmt_gw", gw, sizeof gw))
        setenv("NETLAB_MGMT_GW", gw, 1);
    execvp(argv[i], argv + i);
    fprintf(stderr, "netlab exec: cannot run %s: %s\n", argv[i], strerror(errno));
    return 127;
}

static int cmd_ctl(int argc, char **argv)
{
    const char *run = NULL;
    char line[1024];
    size_t n = (size_t)snprintf(line, sizeof line, "%s", argv[1]);
    for (int i = 2; i < argc; i++) {
        if (opt_run(argc, argv, &i, &run))
            continue;
        const char *a = argv[i];
        if (!strcmp(a, "--json"))
            a = "json";
        if (n + strlen(a) + 2 >= sizeof line) {
            fprintf(stderr, "netlab: command too long\n");
            return 2;
        }
        n += (size_t)snprintf(line + n, sizeof line - n, " %s", a);
    }
    const char *dir = nl_run_dir(run);
    if (!dir)
        return 2;
    char sock[4200];
    snprintf(sock, sizeof sock, "%s/ctl.sock", dir);
    return nl_ctl_client(sock, line);
}

static int cmd_check(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: netlab check TOPO\n");
        return 2;
    }
    nl_topo t;
    char err[512];
    if (nl_topo_load(&t, argv[2], err, sizeof err)) {
        fprintf(stderr, "netlab: %s\n", err);
        return 1;
    }
    printf("hosts=%d rails=%d events=%d\n", t.nhosts, t.nrails, t.nevents);
    for (int h = 0; h < t.nhosts; h++) {
        printf("host %s addrs=", t.hosts[h]);
        for (int r = 0; r < t.nrails; r++)
            printf("%s198.18.%d.%d", r ? "," : "", r, h + 1);
        printf("\n");
    }
    for (int r = 0; r < t.nrails; r++)
        for (int a = 0; a < t.nhosts; a++)
            for (int b = 0; b < t.nhosts; b++) {
                if (a == b)
                    continue;
                char pb[512];
                nl_params_format(&t.links[nl_link_index(&t, r, a, b)], pb, sizeof pb);
                printf("link rail=%d src=%s dst=%s %s\n", r, t.hosts[a], t.hosts[b], pb);
            }
    for (int r = 0; r < t.nrails; r++)
        for (int h = 0; h < t.nhosts; h++) {
            const nl_nic *n = &t.nics[r * t.nhosts + h];
            if (n->rate_mbit > 0)
                printf("nic rail=%d host=%s rate_mbit=%g queue_pkts=%u queue_bytes=%llu\n", r,
                       t.hosts[h], n->rate_mbit, n->queue_pkts,
                       (unsigned long long)n->queue_bytes);
        }
    for (int e = 0; e < t.nevents; e++)
        printf("event at=%.3f do=%s\n", t.events[e].at_ms / 1000.0, t.events[e].cmd);
    nl_topo_free(&t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
        !strcmp(argv[1], "help")) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const char *c = argv[1];
    if (!strcmp(c, "run"))
        return cmd_run(argc, argv, 0);
    if (!strcmp(c, "start"))
        return cmd_run(argc, argv, 1);
    if (!strcmp(c, "stop"))
        return cmd_stop(argc, argv);
    if (!strcmp(c, "exec"))
        return cmd_exec(argc, argv);
    if (!strcmp(c, "check"))
        return cmd_check(argc, argv);
    if (!strcmp(c, "hosts")) {
        const char *run = NULL;
        for (int i = 2; i < argc; i++)
            if (!opt_run(argc, argv, &i, &run)) {
                usage(stderr);
                return 2;
            }
        const char *dir = nl_run_dir(run);
        return dir ? nl_hosts_print(dir) : 2;
    }
    if (!strcmp(c, "info")) {
        const char *run = NULL;
        for (int i = 2; i < argc; i++)
            if (!opt_run(argc, argv, &i, &run)) {
                usage(stderr);
                return 2;
            }
        const char *dir = nl_run_dir(run);
        if (!dir)
            return 2;
        char prefix[64], gw[64], m[16], topo[4096];
        if (nl_info_get(dir, "prefix", prefix, sizeof prefix) ||
            nl_info_get(dir, "mgmt_gw", gw, sizeof gw) || nl_info_get(dir, "mgmt", m, sizeof m)) {
            fprintf(stderr, "netlab: no run at %s\n", dir);
            return 1;
        }
        if (nl_info_get(dir, "topo", topo, sizeof topo))
            topo[0] = '\0';
        printf(
            "run=%s\nprefix=%s\ntopo=%s\nmgmt_bridge=%sbr\nmgmt_gw=%s\nmgmt_net=198.19.%s.0/24\n",
            dir, prefix, topo, prefix, gw, m);
        return 0;
    }
    if (!strcmp(c, "stats") || !strcmp(c, "show") || !strcmp(c, "set") || !strcmp(c, "down") ||
        !strcmp(c, "up") || !strcmp(c, "ping"))
        return cmd_ctl(argc, argv);
    if (!strcmp(c, "gc")) {
        if (geteuid() != 0) {
            fprintf(stderr, "netlab: must run as root (it removes network namespaces)\n");
            return 77;
        }
        int n = nl_gc(argc > 2 && !strcmp(argv[2], "-v"));
        if (argc > 2 && !strcmp(argv[2], "-v"))
            fprintf(stderr, "netlab gc: %d removed\n", n);
        return 0;
    }
    fprintf(stderr, "netlab: unknown command '%s'\n", c);
    usage(stderr);
    return 2;
}
