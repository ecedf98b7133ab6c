/* fake_slurm_pmi.c — a minimal PMI-1 server that answers the way Slurm's srun --mpi=pmi2 does
 * (rc=0 first, no msg=) and, on alternate replies, with its fields in another order, so the
 * client's any-order parsing is tested without Slurm.  Usage: fake_slurm_pmi N prog [args]
 * Runs N copies of prog with PMI_FD/PMI_RANK/PMI_SIZE, exits 0 iff all exit 0. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAXR 16
#define MAXKV 256

static char *keys[MAXKV], *vals[MAXKV];
static int nkv, flip;

static const char *field(char *line, const char *key, char *out, size_t outsz)
{
    size_t kl = strlen(key);
    for (char *p = line; p && *p; p = strchr(p, ' ')) {
        while (*p == ' ')
            p++;
        if (strncmp(p, key, kl) == 0 && p[kl] == '=') {
            size_t n = strcspn(p + kl + 1, " \n");
            if (n >= outsz)
                n = outsz - 1;
            memcpy(out, p + kl + 1, n);
            out[n] = '\0';
            return out;
        }
    }
    return NULL;
}

static void say(int fd, const char *s)
{
    if (write(fd, s, strlen(s)) < 0)
        perror("fake_slurm_pmi: write");
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int n = atoi(argv[1]), fds[MAXR], inbar = 0;
    pid_t pids[MAXR];
    if (n < 1 || n > MAXR)
        return 2;
    for (int r = 0; r < n; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
            return 2;
        pids[r] = fork();
        if (pids[r] == 0) {
            char b[16];
            close(sv[0]);
            snprintf(b, sizeof b, "%d", sv[1]);
            setenv("PMI_FD", b, 1);
            snprintf(b, sizeof b, "%d", r);
            setenv("PMI_RANK", b, 1);
            snprintf(b, sizeof b, "%d", n);
            setenv("PMI_SIZE", b, 1);
            unsetenv("PMI_PORT");
            unsetenv("SCTPMPI_JOB_SECRET");
            execv(argv[2], argv + 2);
            _exit(127);
        }
        close(sv[1]);
        fds[r] = sv[0];
    }
    int open_fds = n;
    char buf[MAXR][8192];
    size_t len[MAXR] = {0};
    while (open_fds > 0) {
        struct pollfd p[MAXR];
        for (int r = 0; r < n; r++)
            p[r] = (struct pollfd){.fd = fds[r], .events = POLLIN};
        if (poll(p, (nfds_t)n, 30000) <= 0)
            break;
        for (int r = 0; r < n; r++) {
            if (!p[r].revents)
                continue;
            ssize_t got = read(fds[r], buf[r] + len[r], sizeof buf[r] - len[r] - 1);
            if (got <= 0) {
                close(fds[r]);
                fds[r] = -1;
                open_fds--;
                continue;
            }
            len[r] += (size_t)got;
            char *nl;
            while ((nl = memchr(buf[r], '\n', len[r]))) {
                *nl = '\0';
                char *line = buf[r], cmd[64], key[128], val[2048], out[4096];
                flip ^= 1;
                if (!field(line, "cmd", cmd, sizeof cmd))
                    cmd[0] = '\0';
                if (!strcmp(cmd, "init"))
                    say(fds[r], flip ? "cmd=response_to_init rc=0 pmi_version=1 pmi_subversion=1\n"
                                     : "pmi_subversion=1 rc=0 cmd=response_to_init pmi_version=1\n");
                else if (!strcmp(cmd, "get_maxes"))
                    say(fds[r], "rc=0 cmd=maxes vallen_max=1024 kvsname_max=256 keylen_max=64\n");
                else if (!strcmp(cmd, "get_my_kvsname"))
                    say(fds[r], "cmd=my_kvsname rc=0 kvsname=slurm_kvs_42\n");
                else if (!strcmp(cmd, "put") && field(line, "key", key, sizeof key) &&
                         field(line, "value", val, sizeof val) && nkv < MAXKV) {
                    keys[nkv] = strdup(key);
                    vals[nkv++] = strdup(val);
                    say(fds[r], flip ? "cmd=put_result rc=0\n" : "rc=0 cmd=put_result\n");
                } else if (!strcmp(cmd, "get") && field(line, "key", key, sizeof key)) {
                    int i = 0;
                    while (i < nkv && strcmp(keys[i], key) != 0)
                        i++;
                    if (i == nkv)
                        snprintf(out, sizeof out, "cmd=get_result rc=-1\n");
                    else if (flip)
                        snprintf(out, sizeof out, "cmd=get_result rc=0 value=%s\n", vals[i]);
                    else
                        snprintf(out, sizeof out, "value=%s rc=0 cmd=get_result\n", vals[i]);
                    say(fds[r], out);
                } else if (!strcmp(cmd, "barrier_in")) {
                    if (++inbar == n) {
                        inbar = 0;
                        for (int k = 0; k < n; k++)
                            if (fds[k] >= 0)
                                say(fds[k], "cmd=barrier_out rc=0\n");
                    }
                } else if (!strcmp(cmd, "finalize")) {
                    say(fds[r], "rc=0 cmd=finalize_ack\n");
                } else {
                    say(fds[r], "cmd=error rc=-1\n");
                }
                size_t used = (size_t)(nl - buf[r]) + 1;
                memmove(buf[r], nl + 1, len[r] - used);
                len[r] -= used;
            }
        }
    }
    int bad = 0;
    for (int r = 0; r < n; r++) {
        int st;
        waitpid(pids[r], &st, 0);
        bad |= !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    }
    for (int i = 0; i < nkv; i++) {
        free(keys[i]);
        free(vals[i]);
    }
    return bad;
}
