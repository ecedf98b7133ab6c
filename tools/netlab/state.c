/* netlab: the per-run state directory (info, hosts, control socket), teardown of a run and
 * garbage collection of dead runs' leftovers. Names: netns PREFIX-HOST, bridge PREFIXbr,
 * root-side veths PREFIXmN, state dir $NETLAB_STATE_DIR/PREFIX (default /run/netlab). */
#include "state.h"

#include "netns.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Every run, whatever its state root, is registered in NL_REGISTRY/<prefix> (content: its run
 * directory), so gc never mistakes another state root's live run for leftovers. */
#define NL_REGISTRY "/run/netlab/registry"

const char *nl_state_root(void)
{
    const char *s = getenv("NETLAB_STATE_DIR");
    return s && *s ? s : "/run/netlab";
}

int nl_info_get(const char *dir, const char *key, char *out, size_t len)
{
    char p[4096], line[1024];
    snprintf(p, sizeof p, "%s/info", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return -1;
    size_t kl = strlen(key);
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, key, kl) && line[kl] == '=') {
            line[strcspn(line, "\n")] = '\0';
            snprintf(out, len, "%s", line + kl + 1);
            rc = 0; /* last one wins */
        }
    }
    fclose(f);
    return rc;
}

int nl_info_put(const char *dir, const char *key, const char *val)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/info", dir);
    FILE *f = fopen(p, "a");
    if (!f)
        return -1;
    fprintf(f, "%s=%s\n", key, val);
    return fclose(f);
}

int nl_hosts_lookup(const char *dir, const char *host, char *ns, size_t nslen, char *addrs,
                    size_t alen, char *mgmt, size_t mlen)
{
    char p[4096], line[2048];
    snprintf(p, sizeof p, "%s/hosts", dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return -1;
    int rc = -1;
    while (fgets(line, sizeof line, f)) {
        char name[64], n[256], a[1024], m[64];
        if (sscanf(line, "%63s %255s %1023s %63s", name, n, a, m) == 4 && !strcmp(name, host)) {
            snprintf(ns, nslen, "%s", n);
            snprintf(addrs, alen, "%s", a);
            snprintf(mgmt, mlen, "%s", m);
            rc = 0;
            break;
        }
    }
    fclose(f);
    return rc;
}

int nl_hosts_print(const char *dir)
{
    char p[4096], line[2048];
    snprintf(p, sizeof p, "%s/hosts", dir);
    FILE *f = fopen(p, "r");
    if (!f) {
        fprintf(stderr, "netlab: no run at %s (%s)\n", dir, strerror(errno));
        return 1;
    }
    while (fgets(line, sizeof line, f)) {
        char name[64];
        if (sscanf(line, "%63s", name) == 1)
            printf("%s\n", name);
    }
    fclose(f);
    return 0;
}

const char *nl_run_dir(const char *given)
{
    const char *d = given ? given : getenv("NETLAB_RUN");
    if (!d || !*d) {
        fprintf(stderr, "netlab: no run given: pass --run DIR or set NETLAB_RUN\n");
        return NULL;
    }
    return d;
}

static void rm_rf(const char *dir)
{
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[4096];
            snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
            struct stat st;
            if (!lstat(p, &st) && S_ISDIR(st.st_mode))
                rm_rf(p);
            else
                unlink(p);
        }
        closedir(d);
    }
    rmdir(dir);
}

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

/* Kill pid (if it is still the recorded process) with TERM, then KILL after grace_ms. */
static void stop_proc(pid_t pid, unsigned long long start, int grace_ms)
{
    if (pid <= 0 || pid == getpid() || !nl_proc_alive(pid, start))
        return;
    kill(pid, SIGTERM);
    for (int i = 0; i < grace_ms / 10 && nl_proc_alive(pid, start); i++) {
        waitpid(pid, NULL, WNOHANG);
        sleep_ms(10);
    }
    if (nl_proc_alive(pid, start))
        kill(pid, SIGKILL);
    waitpid(pid, NULL, WNOHANG);
}

static void kill_pgroup(pid_t pg, int grace_ms)
{
    if (pg <= 1 || pg == getpgrp())
        return;
    if (kill(-pg, SIGTERM) != 0)
        return;
    for (int i = 0; i < grace_ms / 10 && kill(-pg, 0) == 0; i++) {
        while (waitpid(-pg, NULL, WNOHANG) > 0) {
        }
        sleep_ms(10);
    }
    kill(-pg, SIGKILL);
    while (waitpid(-pg, NULL, WNOHANG) > 0) {
    }
}

void nl_teardown(const char *dir)
{
    char v[256], prefix[64] = "";
    nl_info_get(dir, "prefix", prefix, sizeof prefix);
    /* the command's process group (root namespace) */
    if (!nl_info_get(dir, "cmd_pgid", v, sizeof v))
        kill_pgroup((pid_t)atoi(v), 500);
    /* the forwarder */
    if (!nl_info_get(dir, "fwd_pid", v, sizeof v)) {
        char st[64] = "0";
        nl_info_get(dir, "fwd_start", st, sizeof st);
        stop_proc((pid_t)atoi(v), strtoull(st, NULL, 10), 1000);
    }
    /* namespaces: kill their processes, then delete them */
    char p[4096], line[2048];
    snprintf(p, sizeof p, "%s/hosts", dir);
    char batch[16384] = "";
    size_t bl = 0;
    FILE *f = fopen(p, "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            char name[64], ns[256];
            if (sscanf(line, "%63s %255s", name, ns) != 2)
                continue;
            for (int round = 0; round < 20 && nl_ns_kill_procs(ns) > 0; round++)
                sleep_ms(5);
            if (nl_ns_exists(ns) && bl + 300 < sizeof batch)
                bl += (size_t)snprintf(batch + bl, sizeof batch - bl, "netns del %s\n", ns);
        }
        fclose(f);
    }
    if (prefix[0]) {
        /* namespaces created before the hosts file was written */
        DIR *d = opendir("/run/netns");
        struct dirent *e;
        size_t pl = strlen(prefix);
        while (d && (e = readdir(d))) {
            if (strncmp(e->d_name, prefix, pl) || e->d_name[pl] != '-')
                continue;
            if (strstr(batch, e->d_name))
                continue;
            for (int round = 0; round < 20 && nl_ns_kill_procs(e->d_name) > 0; round++)
                sleep_ms(5);
            if (bl + 300 < sizeof batch)
                bl +=
                    (size_t)snprintf(batch + bl, sizeof batch - bl, "netns del %s\n", e->d_name);
        }
        if (d)
            closedir(d);
        /* root-side veths first (this removes their peers at once; namespace cleanup is lazy), then the bridge */
        char links[8192] = "";
        size_t ll = 0;
        d = opendir("/sys/class/net");
        while (d && (e = readdir(d))) {
            if (strncmp(e->d_name, prefix, pl) || e->d_name[pl] != 'm' || ll + 64 >= sizeof links)
                continue;
            ll += (size_t)snprintf(links + ll, sizeof links - ll, "link del %s\n", e->d_name);
        }
        if (d)
            closedir(d);
        snprintf(p, sizeof p, "/sys/class/net/%sbr", prefix);
        if (access(p, F_OK) == 0 && ll + 64 < sizeof links)
            ll += (size_t)snprintf(links + ll, sizeof links - ll, "link del %sbr\n", prefix);
        if (ll)
            nl_ip_batch(NULL, links, 1, 1);
    }
    if (bl)
        nl_ip_batch(NULL, batch, 1, 1);
    rm_rf(dir);
    if (prefix[0]) {
        snprintf(p, sizeof p, NL_REGISTRY "/%s", prefix);
        unlink(p);
    }
}

int nl_registry_add(const char *prefix, const char *dir)
{
    mkdir("/run/netlab", 0755);
    mkdir(NL_REGISTRY, 0755);
    char p[512];
    snprintf(p, sizeof p, NL_REGISTRY "/%s", prefix);
    FILE *f = fopen(p, "w");
    if (!f)
        return -1;
    fprintf(f, "%s\n", dir);
    return fclose(f);
}

static int registry_dir(const char *prefix, char *dir, size_t len)
{
    char p[512];
    snprintf(p, sizeof p, NL_REGISTRY "/%.10s", prefix);
    FILE *f = fopen(p, "r");
    if (!f)
        return -1;
    int ok = fgets(dir, (int)len, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    dir[strcspn(dir, "\n")] = '\0';
    return 0;
}

static int run_alive(const char *dir);

/* Is the run with this prefix alive somewhere (any state root)? Tears down dead registered runs. */
static int prefix_alive(const char *prefix, int verbose)
{
    char dir[4096], p[512];
    if (registry_dir(prefix, dir, sizeof dir))
        return 0;
    if (access(dir, F_OK) == 0 && run_alive(dir))
        return 1;
    if (access(dir, F_OK) == 0) {
        if (verbose)
            fprintf(stderr, "netlab gc: removing dead run %s\n", dir);
        nl_teardown(dir);
    }
    snprintf(p, sizeof p, NL_REGISTRY "/%.10s", prefix);
    unlink(p);
    return 0;
}

static int is_prefix_name(const char *s, size_t *plen)
{
    if (strncmp(s, NL_PREFIX, 4))
        return 0;
    for (int i = 4; i < 10; i++)
        if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
            return 0;
    *plen = 10;
    return 1;
}

static int run_alive(const char *dir)
{
    if (access(dir, F_OK))
        return 0;
    char v[64], st[64] = "0";
    if (nl_info_get(dir, "owner_pid", v, sizeof v)) {
        /* being set up right now? a fresh directory without owner yet counts as alive for 60 s */
        struct stat s;
        return !stat(dir, &s) && time(NULL) - s.st_mtime < 60;
    }
    nl_info_get(dir, "owner_start", st, sizeof st);
    if (nl_proc_alive((pid_t)atoi(v), strtoull(st, NULL, 10)))
        return 1;
    /* a `netlab run` whose supervisor died but whose forwarder is cleaning up */
    return 0;
}

int nl_gc(int verbose)
{
    const char *root = nl_state_root();
    int removed = 0;
    char live[256][16];
    int nlive = 0;
    DIR *d = opendir(root);
    struct dirent *e;
    while (d && (e = readdir(d))) {
        size_t pl;
        if (!is_prefix_name(e->d_name, &pl) || e->d_name[pl])
            continue;
        char dir[4096];
        snprintf(dir, sizeof dir, "%s/%s", root, e->d_name);
        if (run_alive(dir)) {
            if (nlive < 256)
                snprintf(live[nlive++], 16, "%.10s", e->d_name);
            continue;
        }
        if (verbose)
            fprintf(stderr, "netlab gc: removing dead run %s\n", dir);
        nl_teardown(dir);
        removed++;
    }
    if (d)
        closedir(d);
    /* orphans without a state directory: namespaces, bridges, veths */
    char batch[65536] = "";
    size_t bl = 0;
    d = opendir("/run/netns");
    while (d && (e = readdir(d))) {
        size_t pl;
        if (!is_prefix_name(e->d_name, &pl) || e->d_name[pl] != '-')
            continue;
        int alive = 0;
        for (int i = 0; i < nlive; i++)
            alive |= !strncmp(live[i], e->d_name, pl);
        if (alive || prefix_alive(e->d_name, verbose) || !nl_ns_exists(e->d_name))
            continue;
        if (verbose)
            fprintf(stderr, "netlab gc: removing namespace %s\n", e->d_name);
        for (int round = 0; round < 20 && nl_ns_kill_procs(e->d_name) > 0; round++)
            sleep_ms(5);
        if (bl + 300 < sizeof batch)
            bl += (size_t)snprintf(batch + bl, sizeof batch - bl, "netns del %s\n", e->d_name);
        removed++;
    }
    if (d)
        closedir(d);
    d = opendir("/sys/class/net");
    while (d && (e = readdir(d))) {
        size_t pl;
        if (!is_prefix_name(e->d_name, &pl))
            continue;
        const char *rest = e->d_name + pl;
        if (strcmp(rest, "br") && !(rest[0] == 'm' && isdigit((unsigned char)rest[1])))
            continue;
        int alive = 0;
        for (int i = 0; i < nlive; i++)
            alive |= !strncmp(live[i], e->d_name, pl);
        if (alive || prefix_alive(e->d_name, verbose))
            continue;
        if (verbose)
            fprintf(stderr, "netlab gc: removing interface %s\n", e->d_name);
        if (bl + 300 < sizeof batch)
            bl += (size_t)snprintf(batch + bl, sizeof batch - bl, "link del %s\n", e->d_name);
        removed++;
    }
    if (d)
        closedir(d);
    if (bl)
        nl_ip_batch(NULL, batch, 1, 1);
    return removed;
}
