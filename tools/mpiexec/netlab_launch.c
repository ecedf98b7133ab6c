/* netlab_launch.c — the contract with tools/netlab: `netlab run TOPO -- cmd` starts the
 * emulated network and runs cmd with NETLAB_RUN set; `netlab hosts` lists the hosts;
 * `netlab exec HOST -- prog` runs prog on HOST keeping inherited fds and setting SCTPMPI_ADDRS. */
#include "netlab_launch.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char *self_exe(void)
{
    char buf[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0)
        return NULL;
    buf[n] = '\0';
    return strdup(buf);
}

static char *executable_at(const char *dir, const char *rel)
{
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, rel) >= sizeof path)
        return NULL;
    return access(path, X_OK) == 0 ? strdup(path) : NULL;
}

char *netlab_find(void)
{
    char *self = self_exe();
    char *found = NULL;
    if (self) {
        char *dir = dirname(self);
        found = executable_at(dir, "../netlab/netlab");
        if (!found)
            found = executable_at(dir, "netlab");
        free(self);
    }
    const char *path = getenv("PATH");
    if (!found && path) {
        char *copy = strdup(path), *save = NULL;
        for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d && !found;
             d = strtok_r(NULL, ":", &save))
            found = executable_at(*d ? d : ".", "netlab");
        free(copy);
    }
    return found;
}

void netlab_reexec(const char *netlab, const char *topo, char **argv)
{
    char *self = self_exe();
    if (!self) {
        fprintf(stderr, "mpiexec: cannot find our own executable: %s\n", strerror(errno));
        return;
    }
    int n = 0;
    while (argv[n])
        n++;
    char **nargv = calloc((size_t)n + 6, sizeof *nargv);
    if (!nargv) {
        free(self);
        return;
    }
    nargv[0] = (char *)netlab;
    nargv[1] = "run";
    nargv[2] = (char *)topo;
    nargv[3] = "--";
    nargv[4] = self;
    for (int i = 1; i < n; i++)
        nargv[4 + i] = argv[i];
    execv(netlab, nargv);
    fprintf(stderr, "mpiexec: cannot run %s: %s\n", netlab, strerror(errno));
    free(nargv);
    free(self);
}

char **netlab_hosts(const char *netlab, int *nhosts)
{
    int p[2];
    if (pipe(p) < 0)
        return NULL;
    pid_t pid = fork();
    if (pid < 0) {
        close(p[0]);
        close(p[1]);
        return NULL;
    }
    if (pid == 0) {
        dup2(p[1], STDOUT_FILENO);
        close(p[0]);
        close(p[1]);
        execl(netlab, netlab, "hosts", (char *)NULL);
        _exit(127);
    }
    close(p[1]);
    FILE *f = fdopen(p[0], "r");
    char **hosts = NULL;
    int n = 0, cap = 0;
    char line[256];
    while (f && fgets(line, sizeof line, f)) {
        line[strcspn(line, " \t\r\n")] = '\0';
        if (!line[0])
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            char **nh = realloc(hosts, (size_t)cap * sizeof *nh);
            if (!nh)
                break;
            hosts = nh;
        }
        hosts[n++] = strdup(line);
    }
    if (f)
        fclose(f);
    else
        close(p[0]);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n == 0) {
        fprintf(stderr, "mpiexec: `%s hosts` failed or listed no hosts\n", netlab);
        for (int i = 0; i < n; i++)
            free(hosts[i]);
        free(hosts);
        return NULL;
    }
    *nhosts = n;
    return hosts;
}
