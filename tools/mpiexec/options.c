/* options.c — parses mpiexec's flags (see docs/launcher.md), including the spellings users
 * bring from Open MPI and MPICH, the host list (-H, --hostfile) with placement flags and the
 * rsh-style launcher for other hosts; stops at the program name. */
#include "options.h"
#include "sim_launch.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SCTPMPI_VERSION_STRING
#define SCTPMPI_VERSION_STRING "unknown"
#endif

static void print_usage(FILE *f)
{
    fprintf(
        f,
        "NAME\n"
        "    mpiexec, mpirun - run an MPI program on N ranks (sctpmpi's launcher)\n"
        "\n"
        "SYNOPSIS\n"
        "    mpiexec [options] [--] program [args...]\n"
        "    mpiexec -H host1:4,host2:4 [options] program [args...]\n"
        "\n"
        "DESCRIPTION\n"
        "    Starts N copies of program, serves them PMI-1, forwards their output, and stops\n"
        "    the whole job at the first failure.  Without a host list, or when every host it\n"
        "    names is this machine, all ranks run here.  When a host list names other\n"
        "    machines, mpiexec starts one sctpmpi_proxy per host through an rsh-style\n"
        "    launcher (ssh by default); each proxy forks that host's ranks, serves them PMI\n"
        "    and relays their output, exit status and signals.  Options that take a value\n"
        "    accept both '--opt VALUE' and '--opt=VALUE'.\n"
        "\n"
        "OPTIONS\n"
        "    -n N, -np N, --n N, --np N\n"
        "        Number of ranks, 1..65536 (default: the slots of -H/--hostfile, else 1).\n"
        "    --transport T\n"
        "        tcp or sctp: sets SCTPMPI_TRANSPORT for the ranks.\n"
        "    --timeout S\n"
        "        Kill the job after S seconds (also SCTPMPI_TIMEOUT); exit status 124.\n"
        "    -x VAR, -x VAR=VAL\n"
        "        Pass VAR from our environment, or set VAR=VAL, for the ranks (Open MPI).\n"
        "    -genv VAR VAL, -env VAR VAL (also -genv VAR=VAL)\n"
        "        Set VAR=VAL for the ranks (MPICH); same as -x VAR=VAL.\n"
        "    -genvlist A,B,..., -envlist A,B,...\n"
        "        Pass these variables from our environment (MPICH); same as -x A -x B.\n"
        "    -genvall, -envall\n"
        "        Accepted: the ranks always get mpiexec's whole environment.\n"
        "    -l, --prefix-output, -prepend-rank, --tag-output\n"
        "        Prefix each output line with [rank].\n"
        "    -wdir DIR, --wdir DIR, -wd DIR\n"
        "        The ranks start in DIR (default: mpiexec's working directory, on every host).\n"
        "\n"
        "HOSTS AND PLACEMENT\n"
        "    -H LIST, -host LIST, --host LIST, -hosts LIST, --hosts LIST\n"
        "        Comma-separated host[:slots] list (1 slot per host without ':slots'); a host\n"
        "        named twice gets the slots of both.  localhost, 127.x.x.x, ::1, this\n"
        "        machine's hostname and its addresses are this machine.\n"
        "    -f FILE, -hostfile FILE, --hostfile FILE, -machinefile FILE, --machinefile FILE\n"
        "        Hostfile: one 'host', 'host:slots' or 'host slots=N' per line, '#' comments.\n"
        "    --map-by slot (default)\n"
        "        Blocks: the first host's slots get ranks 0, 1, ..., then the next host's;\n"
        "        with more ranks than slots the list is walked again.\n"
        "    --map-by node\n"
        "        Round-robin: rank i runs on host i mod H.\n"
        "    -ppn N, --ppn N, -npernode N, --npernode N, --map-by ppr:N:node\n"
        "        N ranks per host, in blocks, whatever the slots; more ranks than N x hosts is\n"
        "        an error unless --oversubscribe (then the hosts are used again).\n"
        "        --map-by core|socket|numa|hwthread|package|l3cache is accepted as 'slot'.\n"
        "    --oversubscribe, -oversubscribe\n"
        "        Allow more ranks than -ppn x hosts; more ranks than cores is always allowed\n"
        "        (the ranks then stop spinning while they wait).\n"
        "    --launcher-rsh CMD, -launcher-exec CMD\n"
        "        Command that starts the proxy on another host (also SCTPMPI_LAUNCHER_RSH),\n"
        "        by default\n"
        "            " MPIEXEC_DEFAULT_RSH "\n"
        "        (a host that does not answer fails the job within about 10 s).  Split at\n"
        "        spaces; a '%%h' in it is replaced by the host name, else the host is\n"
        "        appended; then comes the proxy's absolute path (SCTPMPI_LAUNCHER_PROXY,\n"
        "        default: sctpmpi_proxy beside this mpiexec, so every host needs the same\n"
        "        install prefix).  Example for netlab: --launcher-rsh 'netlab exec %%h --'.\n"
        "    --netlab TOPO\n"
        "        Run the ranks on the emulated hosts of a netlab topology (no proxies).\n"
        "    --sim TOPO [--sim-cpu-scale X] [--sim-seed N] [--sim-pcap DIR]\n"
        "        Run the ranks on a simulated network with virtual time (docs/simulation.md).\n"
        "\n"
        "    -h, --help\n"
        "        This help.\n"
        "    --version\n"
        "        Print the version.\n"
        "    --  End of options: the next argument is the program.\n"
        "\n"
        "MULTI-HOST JOBS\n"
        "    Each proxy gets mpiexec's environment (minus PWD, SHLVL, HOSTNAME, PMI_*, SSH_*,\n"
        "    NETLAB_*, DISPLAY and SCTPMPI_ADDRS; HOME, USER and LOGNAME stay the host's) and\n"
        "    its working directory, then applies -x/-genv.  SCTPMPI_ADDRS, the address the\n"
        "    ranks publish, is the host's own value if it has one, else the address the ssh\n"
        "    connection reached (SSH_CONNECTION), else the host's first non-loopback IPv4\n"
        "    address.  No rank starts anywhere until every proxy is up.  mpiexec's stdin goes\n"
        "    to rank 0 (through its proxy), /dev/null to the others.  A PMI barrier costs one\n"
        "    message each way per host.  If a proxy or its connection dies, the job ends with\n"
        "    status 255; a proxy that loses its connection to mpiexec kills its ranks'\n"
        "    process groups.\n"
        "\n"
        "ENVIRONMENT\n"
        "    SCTPMPI_TIMEOUT        seconds before the job is killed (as --timeout).\n"
        "    SCTPMPI_TRANSPORT      tcp or sctp, passed to the ranks (as --transport).\n"
        "    SCTPMPI_LAUNCHER_RSH   the rsh-style command for other hosts (as --launcher-rsh).\n"
        "    SCTPMPI_LAUNCHER_PROXY the proxy's path on the other hosts.\n"
        "    The ranks get mpiexec's whole environment plus PMI_FD, PMI_RANK, PMI_SIZE,\n"
        "    SCTPMPI_LOCAL_RANKS and SCTPMPI_JOB_SECRET.  Every SCTPMPI_* tunable is listed by\n"
        "    sctpmpi_info --all and documented in docs/tunables.md.\n"
        "\n"
        "EXIT STATUS\n"
        "    0 if every rank finalized and exited 0; else the first failing rank's exit code\n"
        "    (128+signal if it was killed by a signal); 124 on --timeout; 127 if the program\n"
        "    cannot be started; 255 if a host's proxy or its connection died; 1 for a\n"
        "    placement that does not fit or a launcher error; 2 for a usage error.\n"
        "\n"
        "EXAMPLES\n"
        "    mpiexec -n 4 ./prog\n"
        "    mpiexec -H node1:8,node2:8 --transport sctp ./prog\n"
        "    mpiexec --hostfile hosts -ppn 4 -n 16 -x OMP_NUM_THREADS=1 ./prog\n"
        "    SCTPMPI_LAUNCHER_RSH='ssh -F my_ssh_config' mpiexec -H a,b --map-by node ./prog\n"
        "\n"
        "    mpirun is the same program.\n");
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 65536)
        return -1;
    *out = (int)v;
    return 0;
}

/* Accepts "--flag VALUE" and "--flag=VALUE".  Returns the value or NULL (not this flag). */
static const char *flag_value(int argc, char **argv, int *i, const char *flag, int *missing)
{
    size_t fl = strlen(flag);
    const char *a = argv[*i];
    if (strncmp(a, flag, fl) != 0)
        return NULL;
    if (a[fl] == '=')
        return a + fl + 1;
    if (a[fl] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

/* Strings made here ("VAR=VAL" of -genv) live until exit. */
static char **owned;
static size_t nowned;

static void free_owned(void)
{
    for (size_t i = 0; i < nowned; i++)
        free(owned[i]);
    free(owned);
    owned = NULL;
    nowned = 0;
}

static char *own_string(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    char **grown = realloc(owned, (nowned + 1) * sizeof *owned);
    char *s = malloc(la + lb + 2);
    if (!grown || !s) {
        free(s);
        if (grown)
            owned = grown;
        return NULL;
    }
    if (!owned)
        atexit(free_owned);
    owned = grown;
    memcpy(s, a, la);
    s[la] = '=';
    memcpy(s + la + 1, b, lb + 1);
    owned[nowned++] = s;
    return s;
}

/* Is NAME this machine: localhost, a loopback address, our hostname, or one of our addresses? */
static int host_is_local(const char *name)
{
    char buf[256];
    size_t len = strlen(name);
    if (len >= sizeof buf || len == 0)
        return 0;
    memcpy(buf, name, len + 1);
    if (buf[0] == '[' && buf[len - 1] == ']') { /* [::1] */
        buf[len - 1] = '\0';
        memmove(buf, buf + 1, len - 1);
    }
    if (strcasecmp(buf, "localhost") == 0 || strcasecmp(buf, "localhost.localdomain") == 0 ||
        strcasecmp(buf, "ip6-localhost") == 0 || strcasecmp(buf, "ip6-loopback") == 0)
        return 1;
    struct in_addr a4;
    struct in6_addr a6;
    int is4 = inet_pton(AF_INET, buf, &a4) == 1;
    int is6 = !is4 && inet_pton(AF_INET6, buf, &a6) == 1;
    if (is4 && (ntohl(a4.s_addr) >> 24) == 127)
        return 1;
    if (is6 && IN6_IS_ADDR_LOOPBACK(&a6))
        return 1;
    if (is4 || is6) {
        struct ifaddrs *ifs, *it;
        int found = 0;
        if (getifaddrs(&ifs) < 0)
            return 0;
        for (it = ifs; it && !found; it = it->ifa_next) {
            if (!it->ifa_addr)
                continue;
            if (is4 && it->ifa_addr->sa_family == AF_INET)
                found =
                    ((struct sockaddr_in *)(void *)it->ifa_addr)->sin_addr.s_addr == a4.s_addr;
            else if (is6 && it->ifa_addr->sa_family == AF_INET6)
                found = memcmp(&((struct sockaddr_in6 *)(void *)it->ifa_addr)->sin6_addr, &a6,
                               sizeof a6) == 0;
        }
        freeifaddrs(ifs);
        return found;
    }
    char me[256];
    if (gethostname(me, sizeof me) < 0)
        return 0;
    me[sizeof me - 1] = '\0';
    if (strcasecmp(buf, me) == 0)
        return 1;
    /* short and fully qualified forms of our name */
    size_t sb = strcspn(buf, "."), sm = strcspn(me, ".");
    return (buf[sb] == '\0' || me[sm] == '\0') && sb == sm && strncasecmp(buf, me, sb) == 0;
}

/* ---- multi-host: the host list ---- */
/* Records HOST with SLOTS (a name given twice gets the slots of both). */
static int record_host(struct mpiexec_options *opt, const char *host, int slots)
{
    for (int i = 0; i < opt->nhosts; i++) {
        if (strcmp(opt->hosts[i].name, host) == 0) {
            opt->hosts[i].slots += slots;
            return 0;
        }
    }
    struct mpiexec_host *grown = realloc(opt->hosts, (size_t)(opt->nhosts + 1) * sizeof *grown);
    if (!grown)
        return -1;
    opt->hosts = grown;
    struct mpiexec_host *h = &opt->hosts[opt->nhosts];
    h->name = strdup(host);
    if (!h->name)
        return -1;
    h->slots = slots;
    h->local = host_is_local(host);
    opt->any_remote |= !h->local;
    opt->nhosts++;
    return 0;
}

void mpiexec_free_options(struct mpiexec_options *opt)
{
    for (int i = 0; i < opt->nhosts; i++)
        free(opt->hosts[i].name);
    free(opt->hosts);
    free(opt->env_assign);
    opt->hosts = NULL;
    opt->nhosts = 0;
    opt->env_assign = NULL;
}
/* ---- end multi-host ---- */

/* One "host" or "host:slots" ([v6]:slots, or a bare IPv6 address); adds its slots. */
static int add_host(const char *spec, int slots_default, struct mpiexec_options *opt,
                    const char *where)
{
    char host[256];
    int slots = slots_default;
    const char *colon = strrchr(spec, ':');
    int v6bare = spec[0] != '[' && colon && strchr(spec, ':') != colon; /* ::1 */
    size_t hl = (colon && !v6bare && !(spec[0] == '[' && colon < strchr(spec, ']')))
                    ? (size_t)(colon - spec)
                    : strlen(spec);
    if (hl == 0 || hl >= sizeof host) {
        fprintf(stderr, "mpiexec: %s: bad host '%s'\n", where, spec);
        return -1;
    }
    memcpy(host, spec, hl);
    host[hl] = '\0';
    if (spec[hl] == ':' && parse_count(spec + hl + 1, &slots) < 0) {
        fprintf(stderr, "mpiexec: %s: bad slot count in '%s'\n", where, spec);
        return -1;
    }
    if (record_host(opt, host, slots) < 0) {
        perror("mpiexec");
        return -1;
    }
    opt->host_slots += slots;
    return 0;
}

static int parse_host_list(const char *list, struct mpiexec_options *opt, const char *flag)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0, n = 0;
    if (!copy)
        return -1;
    for (char *h = strtok_r(copy, ",", &save); h && rc == 0; h = strtok_r(NULL, ",", &save), n++)
        rc = add_host(h, 1, opt, flag);
    free(copy);
    if (rc == 0 && n == 0) {
        fprintf(stderr, "mpiexec: %s wants a host list, got '%s'\n", flag, list);
        rc = -1;
    }
    return rc;
}

static int parse_hostfile(const char *path, struct mpiexec_options *opt)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "mpiexec: cannot open hostfile %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[1024], where[1100];
    int rc = 0, lineno = 0, hosts = 0;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        snprintf(where, sizeof where, "hostfile %s line %d", path, lineno);
        line[strcspn(line, "#\r\n")] = '\0';
        char *save = NULL, *host = strtok_r(line, " \t", &save);
        if (!host)
            continue;
        int slots = 1;
        for (char *t = strtok_r(NULL, " \t", &save); t && rc == 0;
             t = strtok_r(NULL, " \t", &save)) {
            if (strncmp(t, "slots=", 6) == 0) {
                if (parse_count(t + 6, &slots) < 0) {
                    fprintf(stderr, "mpiexec: %s: bad '%s'\n", where, t);
                    rc = -1;
                }
            } else if (strncmp(t, "max_slots=", 10) != 0 && strncmp(t, "max-slots=", 10) != 0) {
                fprintf(stderr,
                        "mpiexec: %s: cannot parse '%s' (want host, host:slots or "
                        "host slots=N)\n",
                        where, t);
                rc = -1;
            }
        }
        if (rc == 0)
            rc = add_host(host, slots, opt, where);
        hosts++;
    }
    fclose(f);
    if (rc == 0 && hosts == 0) {
        fprintf(stderr, "mpiexec: hostfile %s names no host\n", path);
        rc = -1;
    }
    return rc;
}

static int parse_map_by(const char *v, struct mpiexec_options *opt)
{
    static const char *const noop[] = { "slot", "core",    "socket",  "numa", "hwthread",
                                        "node", "package", "l3cache", NULL };
    int n, used = 0;
    char policy[32];
    size_t pl = strcspn(v, ":");
    if (sscanf(v, "ppr:%d:node%n", &n, &used) == 1 && v[used] == '\0' && n >= 1) {
        opt->ppn = n;
        return 0;
    }
    snprintf(policy, sizeof policy, "%.*s", (int)(pl < sizeof policy ? pl : sizeof policy - 1),
             v);
    opt->map_by_node = strcasecmp(policy, "node") == 0; /* round-robin over hosts */
    for (int i = 0; noop[i]; i++)
        if (strcasecmp(policy, noop[i]) == 0)
            return 0;
    fprintf(stderr,
            "mpiexec: --map-by wants ppr:N:node or slot/core/socket/numa/hwthread/node, "
            "got '%s'\n",
            v);
    return -1;
}

/* Matches A against several spellings of one flag; returns the value or NULL. */
static const char *flag_any(int argc, char **argv, int *i, const char *const *names, int *missing)
{
    const char *v = NULL;
    for (int k = 0; names[k] && !v && !*missing; k++)
        v = flag_value(argc, argv, i, names[k], missing);
    return v;
}

static int add_env(struct mpiexec_options *opt, char *assign)
{
    if (!assign) {
        perror("mpiexec");
        return -1;
    }
    opt->env_assign[opt->nenv++] = assign;
    return 0;
}

int mpiexec_parse_options(int argc, char **argv, struct mpiexec_options *opt)
{
    static const char *const n_flags[] = { "-n", "-np", "--n", "--np", NULL };
    static const char *const host_flags[] = {
        "-H", "-host", "--host", "-hosts", "--hosts", NULL
    };
    static const char *const file_flags[] = { "-f",           "-hostfile",     "--hostfile",
                                              "-machinefile", "--machinefile", NULL };
    static const char *const envlist_flags[] = { "-genvlist", "-envlist", NULL };
    static const char *const ppn_flags[] = { "-ppn", "--ppn", "-npernode", "--npernode", NULL };
    static const char *const wdir_flags[] = { "-wdir", "--wdir", "-wd", "--wd", NULL };
    static const char *const mapby_flags[] = { "--map-by", "-map-by", NULL };
    memset(opt, 0, sizeof *opt);
    opt->nranks = 1;
    const char *env_timeout = getenv("SCTPMPI_TIMEOUT");
    if (env_timeout && *env_timeout && parse_double(env_timeout, &opt->timeout_s) < 0) {
        fprintf(stderr, "mpiexec: SCTPMPI_TIMEOUT=%s is not a number of seconds\n", env_timeout);
        return -1;
    }
    size_t cap = (size_t)argc + 1; /* -genvlist A,B,C adds one per name */
    for (int k = 1; k < argc; k++)
        for (const char *c = argv[k]; *c; c++)
            cap += *c == ',';
    opt->env_assign = calloc(cap, sizeof *opt->env_assign);
    if (!opt->env_assign) {
        perror("mpiexec");
        return -1;
    }
    int i, rc;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        int missing = 0;
        if (a[0] != '-')
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_usage(stdout);
            return 1;
        }
        if (strcmp(a, "--version") == 0) {
            printf("mpiexec (sctpmpi) %s\n", SCTPMPI_VERSION_STRING);
            return 1;
        }
        if (strcmp(a, "-l") == 0 || strcmp(a, "--prefix-output") == 0 ||
            strcmp(a, "-prepend-rank") == 0 || strcmp(a, "--tag-output") == 0 ||
            strcmp(a, "-tag-output") == 0) {
            opt->prefix_output = 1;
            continue;
        }
        if (strcmp(a, "--oversubscribe") == 0 || strcmp(a, "-oversubscribe") == 0) {
            opt->oversubscribe = 1;
            continue;
        }
        if (strcmp(a, "-genvall") == 0 || strcmp(a, "-envall") == 0)
            continue; /* the ranks get our whole environment anyway */
        if ((v = flag_any(argc, argv, &i, n_flags, &missing))) {
            if (parse_count(v, &opt->nranks) < 0) {
                fprintf(stderr, "mpiexec: -n wants a rank count between 1 and 65536, got '%s'\n",
                        v);
                return -1;
            }
            opt->nranks_given = 1;
            continue;
        }
        if (!missing && (v = flag_value(argc, argv, &i, "--transport", &missing))) {
            if (strcmp(v, "tcp") != 0 && strcmp(v, "sctp") != 0) {
                fprintf(stderr, "mpiexec: --transport wants tcp or sctp, got '%s'\n", v);
                return -1;
            }
            opt->transport = v;
            continue;
        }
        if (!missing && (v = flag_value(argc, argv, &i, "--timeout", &missing))) {
            if (parse_double(v, &opt->timeout_s) < 0) {
                fprintf(stderr, "mpiexec: --timeout wants seconds (>= 0), got '%s'\n", v);
                return -1;
            }
            continue;
        }
        if (!missing && (v = flag_value(argc, argv, &i, "-x", &missing))) {
            if (!*v || *v == '=') {
                fprintf(stderr, "mpiexec: -x wants VAR or VAR=VALUE, got '%s'\n", v);
                return -1;
            }
            opt->env_assign[opt->nenv++] = (char *)v;
            continue;
        }
        if (!missing && (strcmp(a, "-genv") == 0 || strcmp(a, "-env") == 0)) {
            /* -genv VAR VAL, or -genv VAR=VAL (a name never holds '=') */
            if (i + 1 >= argc || !argv[i + 1][0] || argv[i + 1][0] == '=') {
                fprintf(stderr, "mpiexec: %s wants VAR VALUE\n", a);
                return -1;
            }
            if (strchr(argv[i + 1], '=')) {
                opt->env_assign[opt->nenv++] = argv[++i];
                continue;
            }
            if (i + 2 >= argc) {
                fprintf(stderr, "mpiexec: %s %s needs a value\n", a, argv[i + 1]);
                return -1;
            }
            if (add_env(opt, own_string(argv[i + 1], argv[i + 2])) < 0)
                return -1;
            i += 2;
            continue;
        }
        if (!missing && (v = flag_any(argc, argv, &i, envlist_flags, &missing))) {
            char *save = NULL, *list = (char *)v; /* split in place: argv is ours to edit */
            int names = 0;
            for (char *name = strtok_r(list, ",", &save); name;
                 name = strtok_r(NULL, ",", &save)) {
                if (strchr(name, '=')) {
                    fprintf(stderr, "mpiexec: %s wants variable names, got '%s'\n", a, name);
                    return -1;
                }
                opt->env_assign[opt->nenv++] = name;
                names++;
            }
            if (!names) {
                fprintf(stderr, "mpiexec: %s wants a comma-separated list of variables\n", a);
                return -1;
            }
            continue;
        }
        if (!missing && (v = flag_any(argc, argv, &i, host_flags, &missing))) {
            if ((rc = parse_host_list(v, opt, a)) < 0)
                return rc;
            continue;
        }
        if (!missing && (v = flag_any(argc, argv, &i, file_flags, &missing))) {
            if ((rc = parse_hostfile(v, opt)) < 0)
                return rc;
            continue;
        }
        if (!missing && (v = flag_any(argc, argv, &i, ppn_flags, &missing))) {
            if (parse_count(v, &opt->ppn) < 0) {
                fprintf(stderr, "mpiexec: -ppn wants a count between 1 and 65536, got '%s'\n", v);
                return -1;
            }
            continue;
        }
        if (!missing && (v = flag_any(argc, argv, &i, mapby_flags, &missing))) {
            if (parse_map_by(v, opt) < 0)
                return -1;
            continue;
        }
        if ((rc = sim_launch_option(argc, argv, &i)) != 0) { /* --sim* (sim_launch.c) */
            if (rc < 0)
                return -1;
            continue;
        }
        /* ---- working directory ---- */
        if (!missing && (v = flag_any(argc, argv, &i, wdir_flags, &missing))) {
            if (!*v) {
                fprintf(stderr, "mpiexec: %s wants a directory\n", a);
                return -1;
            }
            opt->wdir = v;
            continue;
        }
        /* ---- end working directory ---- */
        /* ---- multi-host: the launcher ---- */
        if (!missing &&
            ((v = flag_value(argc, argv, &i, "--launcher-rsh", &missing)) ||
             (!missing && (v = flag_value(argc, argv, &i, "-launcher-exec", &missing))))) {
            if (!*v) {
                fprintf(stderr, "mpiexec: --launcher-rsh wants a command (e.g. ssh)\n");
                return -1;
            }
            opt->launcher_rsh = v;
            continue;
        }
        /* ---- end multi-host ---- */
        if (!missing && (v = flag_value(argc, argv, &i, "--netlab", &missing))) {
            opt->netlab_topo = v;
            continue;
        }
        if (missing)
            fprintf(stderr, "mpiexec: option %s needs a value\n", a);
        else
            fprintf(stderr, "mpiexec: unknown option %s (see mpiexec --help)\n", a);
        return -1;
    }
    if (!opt->nranks_given && opt->host_slots > 0)
        opt->nranks = opt->host_slots > 65536 ? 65536 : opt->host_slots;
    else if (!opt->nranks_given && opt->ppn > 0)
        opt->nranks = opt->ppn;
    /* ---- multi-host: placement checks ---- */
    if (!opt->launcher_rsh) {
        const char *e = getenv("SCTPMPI_LAUNCHER_RSH");
        opt->launcher_rsh = e && *e ? e : MPIEXEC_DEFAULT_RSH;
    }
    if (!opt->any_remote && opt->ppn > 0 && opt->nranks > opt->ppn) {
        int need = (opt->nranks + opt->ppn - 1) / opt->ppn;
        fprintf(stderr,
                "mpiexec: %d ranks at %d per host need %d hosts, and %s: name them with "
                "-H host1,host2,... or --hostfile FILE\n",
                opt->nranks, opt->ppn, need,
                opt->nhosts ? "every host given is this machine" : "no host was given");
        return -2;
    }
    if (opt->any_remote && opt->netlab_topo) {
        fprintf(stderr, "mpiexec: --netlab places ranks on netlab's hosts itself: it cannot be "
                        "combined with a host list naming other machines\n");
        return -1;
    }
    if (opt->any_remote && opt->ppn > 0 && !opt->oversubscribe &&
        opt->nranks > opt->ppn * opt->nhosts) {
        fprintf(stderr,
                "mpiexec: %d ranks at %d per host need %d hosts, only %d given "
                "(--oversubscribe wraps around)\n",
                opt->nranks, opt->ppn, (opt->nranks + opt->ppn - 1) / opt->ppn, opt->nhosts);
        return -2;
    }
    /* ---- end multi-host ---- */
    if (i >= argc) {
        fprintf(stderr, "mpiexec: no program given (see mpiexec --help)\n");
        return -1;
    }
    opt->prog_argv = argv + i;
    return 0;
}
