/* spawn.c — MPI_Comm_spawn as mpiexec serves it (the PMI-1 spawn command, mcmd=spawn blocks).
 *
 * Every request becomes a job of its own: mpiexec checks each command (found on the "path"
 * info value or PATH, or as a path relative to "wdir"), refuses hosts other than this one,
 * and starts a second mpiexec (this very program) for all the request's processes, with
 *   SCTPMPI_SPAWN_APPS   the commands (rank ranges, working directories, argv), so that rank r
 *                        runs its command with SCTPMPI_APPNUM set (rank_spawn.c);
 *   SCTPMPI_PARENT_PORT  the parents' port (the preput PARENT_ROOT_PORT_NAME): each child's
 *                        MPI_Init connects to it.
 * The children thus get their own MPI_COMM_WORLD, secret and key-value space.  This mpiexec
 * waits for the spawned mpiexecs before it exits, passes signals and failures on to them, and
 * when one ends while the parents may still wait in accept, it tells them through the port
 * ("SMPIFAIL" and the port's token), so a spawn whose children never start or never reach
 * MPI_Init fails at once instead of waiting for SCTPMPI_DYN_TIMEOUT. */
#include "spawn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_APPS 64
#define MAX_ARGS 256
#define APP_SEP '\x1e' /* between the commands in SCTPMPI_SPAWN_APPS */
#define ARG_SEP '\x1f' /* between the fields of one command */

struct spawned {
    pid_t pid;
    int running;
    char port[1100];
};

static struct {
    struct spawned *tab;
    int n, running;
    sigset_t child_mask;
    int failed; /* a spawned job ended badly */
} sp;

void spawn_init(const sigset_t *child_sigmask)
{
    sp.child_mask = *child_sigmask;
}

int spawn_running(void)
{
    return sp.running;
}

int spawn_failed(void)
{
    return sp.failed;
}

void spawn_signal_all(int sig)
{
    for (int i = 0; i < sp.n; i++)
        if (sp.tab[i].running)
            kill(sp.tab[i].pid, sig);
}

/* tells a parent root still waiting on the port that its children are gone */
static void notify_port(const char *port, const char *why)
{
    char ip[64], token[40];
    unsigned p = 0;
    if (sscanf(port, "sctpmpi-port:%63[^:]:%u:%39[0-9a-f]", ip, &p, token) != 3 || !p ||
        p > 65535)
        return;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p) };
    if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
        return;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0 || errno == EINPROGRESS) {
        struct pollfd pf = { .fd = fd, .events = POLLOUT };
        if (poll(&pf, 1, 1000) == 1 && (pf.revents & POLLOUT)) {
            char msg[256];
            int n = snprintf(msg, sizeof msg, "SMPIFAIL%.32s%s", token, why);
            (void)!send(fd, msg, (size_t)n, MSG_NOSIGNAL);
            /* the parent reads the message and closes; give it a moment, never block */
            pf.events = POLLIN;
            (void)poll(&pf, 1, 200);
        }
    }
    close(fd);
}

int spawn_reaped(pid_t pid, int status)
{
    for (int i = 0; i < sp.n; i++) {
        struct spawned *s = &sp.tab[i];
        if (s->pid != pid || !s->running)
            continue;
        s->running = 0;
        sp.running--;
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        char why[128];
        snprintf(why, sizeof why, "the spawned job ended (exit code %d) before connecting", code);
        notify_port(s->port, why);
        if (code) {
            fprintf(stderr, "mpiexec: a spawned job (mpiexec pid %d) exited with code %d\n",
                    (int)pid, code);
            sp.failed = 1;
        }
        return 1;
    }
    return 0;
}

/* one mcmd=spawn block, parsed */
struct app {
    int nprocs;
    char exec[4096];
    char wdir[4096];
    char *argv[MAX_ARGS + 2];
    int argc;
};

static void app_free(struct app *a)
{
    for (int i = 0; i < a->argc; i++)
        free(a->argv[i]);
}

static int is_local_host(const char *h)
{
    char me[256] = "";
    gethostname(me, sizeof me);
    size_t ml = strcspn(me, ".");
    return !strcmp(h, "localhost") || !strcmp(h, "127.0.0.1") || !strcmp(h, me) ||
           (strlen(h) == ml && !strncmp(h, me, ml));
}

/* dir/name is an executable file */
static int executable(const char *dir, const char *name, char *out, size_t len)
{
    if (dir && *dir)
        snprintf(out, len, "%s/%s", dir, name);
    else
        snprintf(out, len, "%s", name);
    struct stat st;
    return stat(out, &st) == 0 && S_ISREG(st.st_mode) && access(out, X_OK) == 0;
}

/* where name runs from: a path (relative to wdir), else on the path list, else PATH */
static int resolve(const char *name, const char *wdir, const char *pathlist, char *out,
                   size_t len)
{
    if (strchr(name, '/')) { /* relative: to wdir, else to our directory (made absolute:
                              * the rank starts in wdir) */
        if (name[0] != '/' && *wdir && executable(wdir, name, out, len))
            return 1;
        char abs[4096];
        if (!executable(NULL, name, out, len) || !realpath(out, abs))
            return 0;
        snprintf(out, len, "%s", abs);
        return 1;
    }
    const char *lists[2] = { pathlist, getenv("PATH") };
    for (int l = 0; l < 2; l++) {
        const char *p = lists[l];
        while (p && *p) {
            size_t n = strcspn(p, ":");
            char dir[4096];
            snprintf(dir, sizeof dir, "%.*s", (int)n, p);
            if (n && executable(dir, name, out, len))
                return 1;
            p += n;
            if (*p == ':')
                p++;
        }
    }
    return 0;
}

/* replaces characters a PMI-1 reply cannot carry */
static void token_safe(char *s)
{
    for (; *s; s++)
        if (*s == ' ' || *s == '\n' || *s == '=' || *s == '\t')
            *s = '_';
}

/* parses the block starting at b (up to its endcmd): 0, or -1 with the reason in why */
static int parse_app(const char *b, struct app *a, char *port, size_t portlen, char *why,
                     size_t whylen)
{
    char v[4096], key[64], host[256] = "", path[4096] = "";
    memset(a, 0, sizeof *a);
    a->nprocs = pmi_wire_mfield(b, "nprocs", v, sizeof v) ? atoi(v) : 0;
    if (a->nprocs <= 0 || a->nprocs > 4096) {
        snprintf(why, whylen, "bad_nprocs");
        return -1;
    }
    if (!pmi_wire_mfield(b, "execname", a->exec, sizeof a->exec) || !*a->exec) {
        snprintf(why, whylen, "no_execname");
        return -1;
    }
    int argc = pmi_wire_mfield(b, "argcnt", v, sizeof v) ? atoi(v) : 0;
    if (argc < 0 || argc > MAX_ARGS) {
        snprintf(why, whylen, "too_many_arguments");
        return -1;
    }
    int ninfo = pmi_wire_mfield(b, "info_num", v, sizeof v) ? atoi(v) : 0;
    for (int i = 0; i < ninfo && i < 64; i++) {
        char k[64], val[4096];
        snprintf(key, sizeof key, "info_key_%d", i);
        if (!pmi_wire_mfield(b, key, k, sizeof k))
            continue;
        snprintf(key, sizeof key, "info_val_%d", i);
        if (!pmi_wire_mfield(b, key, val, sizeof val))
            continue;
        if (!strcmp(k, "host"))
            snprintf(host, sizeof host, "%.255s", val);
        else if (!strcmp(k, "wdir"))
            snprintf(a->wdir, sizeof a->wdir, "%.4000s", val);
        else if (!strcmp(k, "path"))
            snprintf(path, sizeof path, "%.4000s", val);
    }
    int npre = pmi_wire_mfield(b, "preput_num", v, sizeof v) ? atoi(v) : 0;
    for (int i = 0; i < npre && i < 64; i++) {
        char k[128];
        snprintf(key, sizeof key, "preput_key_%d", i);
        if (pmi_wire_mfield(b, key, k, sizeof k) && !strcmp(k, "PARENT_ROOT_PORT_NAME")) {
            snprintf(key, sizeof key, "preput_val_%d", i);
            pmi_wire_mfield(b, key, port, portlen);
        }
    }
    if (*host && !is_local_host(host)) {
        snprintf(why, whylen, "host_%.64s:_spawning_on_other_hosts_is_not_supported", host);
        token_safe(why);
        return -1;
    }
    struct stat st;
    if (*a->wdir && (stat(a->wdir, &st) || !S_ISDIR(st.st_mode))) {
        snprintf(why, whylen, "wdir_%.200s_is_not_a_directory", a->wdir);
        token_safe(why);
        return -1;
    }
    char full[4096];
    if (!resolve(a->exec, a->wdir, path, full, sizeof full)) {
        snprintf(why, whylen, "command_%.200s_not_found_or_not_executable", a->exec);
        token_safe(why);
        return -1;
    }
    a->argv[a->argc++] = strdup(full);
    for (int i = 1; i <= argc; i++) {
        snprintf(key, sizeof key, "arg%d", i);
        a->argv[a->argc++] = strdup(pmi_wire_mfield(b, key, v, sizeof v) ? v : "");
    }
    return 0;
}

/* SCTPMPI_SPAWN_APPS: per command "nprocs<US>wdir<US>arg0<US>arg1...<RS>" */
static char *apps_env(struct app *apps, int n)
{
    size_t len = 1;
    for (int i = 0; i < n; i++) {
        len += 16 + strlen(apps[i].wdir) + 2;
        for (int a = 0; a < apps[i].argc; a++)
            len += strlen(apps[i].argv[a]) + 1;
    }
    char *s = malloc(len), *p = s;
    if (!s)
        return NULL;
    for (int i = 0; i < n; i++) {
        p += sprintf(p, "%d%c%s", apps[i].nprocs, ARG_SEP, apps[i].wdir);
        for (int a = 0; a < apps[i].argc; a++)
            p += sprintf(p, "%c%s", ARG_SEP, apps[i].argv[a]);
        *p++ = APP_SEP;
    }
    *p = '\0';
    return s;
}

static int bad_separators(const struct app *a)
{
    for (int i = 0; i < a->argc; i++)
        if (strchr(a->argv[i], APP_SEP) || strchr(a->argv[i], ARG_SEP))
            return 1;
    return strchr(a->wdir, APP_SEP) || strchr(a->wdir, ARG_SEP);
}

void spawn_serve(struct job *job, struct pmi_wire_conn *c, const char *blocks)
{
    const struct pmi_wire_server *s = job->pmi_server;
    struct app *apps = calloc(MAX_APPS, sizeof *apps);
    char port[1100] = "", why[300] = "";
    int n = 0, total = 0, err = 0;
    if (!apps) {
        pmi_wire_reply(s, c, "cmd=spawn_result rc=-1 msg=out_of_memory\n");
        return;
    }
    for (const char *b = blocks; b && *b && !err;) {
        if (n == MAX_APPS) {
            snprintf(why, sizeof why, "more_than_%d_commands", MAX_APPS);
            err = 1;
            break;
        }
        if (parse_app(b, &apps[n], port, sizeof port, why, sizeof why) < 0 ||
            bad_separators(&apps[n])) {
            if (!*why)
                snprintf(why, sizeof why, "argument_holds_a_control_character");
            err = 1;
            app_free(&apps[n]);
            break;
        }
        total += apps[n++].nprocs;
        b = strstr(b, "\nendcmd\n");
        b = b ? b + 8 : NULL;
    }
    if (!err && !*port) {
        snprintf(why, sizeof why, "no_PARENT_ROOT_PORT_NAME_preput");
        err = 1;
    }
    char *env = err ? NULL : apps_env(apps, n);
    if (!err && !env) {
        snprintf(why, sizeof why, "out_of_memory");
        err = 1;
    }
    struct spawned *tab = err ? NULL : realloc(sp.tab, sizeof *tab * (size_t)(sp.n + 1));
    if (!err && !tab) {
        snprintf(why, sizeof why, "out_of_memory");
        err = 1;
    }
    if (tab)
        sp.tab = tab;
    pid_t pid = -1;
    if (!err) {
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid == 0) {
            prctl(PR_SET_PDEATHSIG, SIGTERM);
            sigprocmask(SIG_SETMASK, &sp.child_mask, NULL);
            int devnull = open("/dev/null", O_RDONLY);
            if (devnull >= 0) {
                dup2(devnull, STDIN_FILENO);
                close(devnull);
            }
            const struct mpiexec_options *opt = job->opt;
            for (int i = 0; i < opt->nenv; i++) {
                char *eq = strchr(opt->env_assign[i], '=');
                if (eq) {
                    *eq = '\0'; /* a forked copy */
                    setenv(opt->env_assign[i], eq + 1, 1);
                }
            }
            if (opt->transport)
                setenv("SCTPMPI_TRANSPORT", opt->transport, 1);
            setenv("SCTPMPI_SPAWN_APPS", env, 1);
            setenv("SCTPMPI_PARENT_PORT", port, 1);
            char np[16];
            snprintf(np, sizeof np, "%d", total);
            char *argv[] = { "mpiexec", "-n", np, apps[0].argv[0], NULL };
            execv("/proc/self/exe", argv);
            fprintf(stderr, "mpiexec: cannot start the spawned job: %s\n", strerror(errno));
            _exit(127);
        }
        if (pid < 0) {
            snprintf(why, sizeof why, "fork_failed");
            err = 1;
        }
    }
    if (!err) {
        struct spawned *e = &sp.tab[sp.n++];
        e->pid = pid;
        e->running = 1;
        snprintf(e->port, sizeof e->port, "%s", port);
        sp.running++;
        pmi_wire_reply(s, c, "cmd=spawn_result rc=0\n");
    } else {
        pmi_wire_reply(s, c, "cmd=spawn_result rc=-1 msg=%s\n", why);
    }
    free(env);
    for (int i = 0; i < n; i++)
        app_free(&apps[i]);
    free(apps);
}

/* ---- in a spawned mpiexec: rank r's command (rank_spawn.c) ---- */
int spawn_app_of(int rank, char ***argv_out, char *wdir, size_t wdirlen, int *appnum)
{
    const char *e = getenv("SCTPMPI_SPAWN_APPS");
    if (!e || !*e)
        return 0;
    char *s = strdup(e);
    if (!s)
        return -1;
    int first = 0, app = 0;
    for (char *p = s; *p; app++) {
        char *end = strchr(p, APP_SEP);
        if (!end)
            break;
        *end = '\0';
        int n = atoi(p);
        if (rank < first + n) {
            char *f = strchr(p, ARG_SEP);
            if (!f)
                break;
            char *w = f + 1;
            char *a = strchr(w, ARG_SEP);
            if (!a)
                break;
            *a++ = '\0';
            snprintf(wdir, wdirlen, "%s", w);
            char **argv = calloc(MAX_ARGS + 2, sizeof *argv);
            if (!argv)
                break;
            int argc = 0;
            for (char *t = a; t && argc < MAX_ARGS + 1;) {
                char *nx = strchr(t, ARG_SEP);
                if (nx)
                    *nx++ = '\0';
                argv[argc++] = t;
                t = nx;
            }
            *argv_out = argv; /* s stays allocated: argv points into it (we exec next) */
            *appnum = app;
            return 1;
        }
        first += n;
        p = end + 1;
    }
    free(s);
    return -1;
}
