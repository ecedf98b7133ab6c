/* dynamic_spawn.c — starting processes at run time: MPI_Comm_spawn, MPI_Comm_spawn_multiple,
 * MPI_Comm_get_parent, and the MPI_UNIVERSE_SIZE / MPI_APPNUM values.
 *
 * The spawning root opens a port and asks the launcher through the PMI-1 spawn command
 * (mcmd=spawn blocks, one per command, the port as the preput PARENT_ROOT_PORT_NAME); our
 * mpiexec starts the children as a job of their own (their own MPI_COMM_WORLD and secret)
 * with SCTPMPI_PARENT_PORT set, and each child's MPI_Init connects to that port over its
 * MPI_COMM_WORLD while the parents accept: the intercommunicator is then made exactly as by
 * MPI_Comm_connect/accept (dynamic_port.c).  A launcher that cannot spawn (Hydra, Slurm,
 * PMIx) makes MPI_Comm_spawn fail with MPI_ERR_SPAWN and a message saying so. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/dynamic.h"
#include "boot/boot.h"
#include "util/util.h"

static MPI_Comm parent = MPI_COMM_NULL;

int sm_dyn_universe_size(void)
{
    long u = sm_env_int("SCTPMPI_UNIVERSE_SIZE", 0);
    return u > 0 ? (int)u : -1; /* mpiexec spawns on this host without a slot limit */
}

int sm_dyn_appnum(void)
{
    return (int)sm_env_int("SCTPMPI_APPNUM", 0);
}

void sm_dyn_forget(MPI_Comm c)
{
    if (c && c == parent)
        parent = MPI_COMM_NULL;
}

void sm_dyn_parent_init(void)
{
    const char *port = getenv("SCTPMPI_PARENT_PORT");
    if (!port || !*port)
        return;
    char why[300] = "";
    int fd = -1, err = 0;
    if (sm_world_rank() == 0 &&
        (fd = sm_dyn_connect_fd(port, sm_dyn_deadline(), why, sizeof why)) < 0)
        err = MPI_ERR_SPAWN;
    MPI_Comm c = MPI_COMM_NULL;
    int rc = sm_dyn_join_groups(fd, 0, MPI_COMM_WORLD, err, why, &c,
                                "MPI_Init (connecting to the parents)");
    if (fd >= 0)
        close(fd);
    if (rc == MPI_SUCCESS) {
        parent = c;
        PMPI_Comm_set_name(c, "MPI_COMM_PARENT");
    }
}

int PMPI_Comm_get_parent(MPI_Comm *p)
{
    SM_TRY(sm_check_init("MPI_Comm_get_parent"));
    if (!p)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Comm_get_parent", "NULL argument");
    *p = parent && parent->valid ? parent : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

/* ---- the PMI-1 spawn request ---------------------------------------------------------- */
struct buf {
    char *p;
    size_t len, cap;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n >= 0 && (size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = 2 * b->cap + (n > 0 ? (size_t)n : 0) + 256;
        char *np = realloc(b->p, cap);
        if (!np)
            sm_die("out of memory building a spawn request");
        b->p = np;
        b->cap = cap;
    }
}

/* a value on a PMI-1 line may not hold a newline */
static int bad_value(const char *s)
{
    return !s || strchr(s, '\n') || strchr(s, '\r');
}

static const char *const info_keys[] = { "host", "wdir", "path", "file", "arch", NULL };

/* the request for count commands: NULL with the reason in why on bad input */
static char *spawn_request(int count, char *cmds[], char **argvs[], const int maxprocs[],
                           const MPI_Info infos[], const char *port, char *why, size_t whylen)
{
    struct buf b = { 0 };
    for (int i = 0; i < count; i++) {
        if (bad_value(cmds[i]) || !*cmds[i]) {
            snprintf(why, whylen, "command %d is empty or holds a newline", i);
            free(b.p);
            return NULL;
        }
        if (maxprocs[i] <= 0) {
            snprintf(why, whylen, "maxprocs %d of command %d is not positive", maxprocs[i], i);
            free(b.p);
            return NULL;
        }
        int argc = 0;
        char **av = argvs ? argvs[i] : NULL;
        while (av && av[argc]) {
            if (bad_value(av[argc])) {
                snprintf(why, whylen, "argument %d of command %d holds a newline", argc, i);
                free(b.p);
                return NULL;
            }
            argc++;
        }
        put(&b, "mcmd=spawn\nnprocs=%d\nexecname=%s\ntotspawns=%d\nspawnssofar=%d\nargcnt=%d\n",
            maxprocs[i], cmds[i], count, i + 1, argc);
        for (int a = 0; a < argc; a++)
            put(&b, "arg%d=%s\n", a + 1, av[a]);
        put(&b, "preput_num=1\npreput_key_0=PARENT_ROOT_PORT_NAME\npreput_val_0=%s\n", port);
        int ni = 0;
        MPI_Info info = infos ? infos[i] : MPI_INFO_NULL;
        const char *vals[8];
        const char *keys[8];
        for (int k = 0; info != MPI_INFO_NULL && info_keys[k]; k++) {
            const char *v = sm_info_lookup(info, info_keys[k]);
            if (v && !bad_value(v)) {
                keys[ni] = info_keys[k];
                vals[ni++] = v;
            }
        }
        put(&b, "info_num=%d\n", ni);
        for (int k = 0; k < ni; k++)
            put(&b, "info_key_%d=%s\ninfo_val_%d=%s\n", k, keys[k], k, vals[k]);
        put(&b, "endcmd\n");
    }
    return b.p;
}

/* the value of key in a reply line "cmd=x k=v ..." (the last field may hold spaces) */
void sm_dyn_reply_field(const char *line, const char *key, char *out, size_t len)
{
    out[0] = '\0';
    size_t kl = strlen(key);
    for (const char *p = line; (p = strstr(p, key));) {
        if ((p == line || p[-1] == ' ') && p[kl] == '=') {
            const char *v = p + kl + 1;
            size_t n = !strcmp(key, "msg") ? strlen(v) : strcspn(v, " ");
            snprintf(out, len, "%.*s", (int)n, v);
            return;
        }
        p += kl;
    }
}

static int do_spawn(int count, char *cmds[], char **argvs[], const int maxprocs[],
                    const MPI_Info infos[], int root, MPI_Comm comm, MPI_Comm *intercomm,
                    int errcodes[], const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (sm_comm_is_inter(comm))
        return sm_error(comm, MPI_ERR_COMM, fn, "needs an intracommunicator");
    if (!intercomm)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL output pointer");
    if (root < 0 || root >= comm->size)
        return sm_error(comm, MPI_ERR_ROOT, fn, "bad root %d", root);
    int err = 0, fd = -1, total = 0;
    char why[300] = "", port[MPI_MAX_PORT_NAME] = "";
    if (comm->rank == root) {
        if (count <= 0 || !cmds || !maxprocs) {
            err = MPI_ERR_ARG;
            snprintf(why, sizeof why, "no command to spawn");
        }
        for (int i = 0; !err && i < count; i++) {
            if (!cmds[i]) {
                err = MPI_ERR_ARG;
                snprintf(why, sizeof why, "command %d is NULL", i);
            } else {
                total += maxprocs[i] > 0 ? maxprocs[i] : 0;
            }
        }
        if (!err)
            err = sm_dyn_open_port(port, why, sizeof why);
        char *req =
            err ? NULL
                : spawn_request(count, cmds, argvs, maxprocs, infos, port, why, sizeof why);
        if (!err && !req)
            err = MPI_ERR_ARG;
        if (req) {
            char reply[1024], rc[16];
            if (sm_boot_pmi_command(req, reply, sizeof reply)) {
                err = MPI_ERR_SPAWN;
                snprintf(why, sizeof why, "%.250s", reply);
            } else {
                sm_dyn_reply_field(reply, "rc", rc, sizeof rc);
                if (strcmp(rc, "0")) {
                    char msg[256];
                    sm_dyn_reply_field(reply, "msg", msg, sizeof msg);
                    err = MPI_ERR_SPAWN;
                    snprintf(why, sizeof why, "the launcher could not spawn: %.250s",
                             *msg ? msg : reply);
                }
            }
            free(req);
        }
        if (!err && (fd = sm_dyn_accept_fd(port, sm_dyn_deadline(), why, sizeof why)) < 0) {
            err = MPI_ERR_SPAWN;
            snprintf(why + strlen(why), sizeof why - strlen(why),
                     " (the spawned processes did not connect within SCTPMPI_DYN_TIMEOUT)");
        }
        if (*port)
            sm_dyn_close_port(port);
    }
    int rc = sm_dyn_join_groups(fd, root, comm, err, why, intercomm, fn);
    if (fd >= 0)
        close(fd);
    if (errcodes != MPI_ERRCODES_IGNORE) {
        int n = rc == MPI_SUCCESS ? (*intercomm)->size : 0;
        if (comm->rank == root && rc != MPI_SUCCESS)
            n = total;
        for (int i = 0; i < n; i++)
            errcodes[i] = rc == MPI_SUCCESS ? MPI_SUCCESS : MPI_ERR_SPAWN;
    }
    if (rc != MPI_SUCCESS)
        *intercomm = MPI_COMM_NULL;
    return rc;
}

int PMPI_Comm_spawn(const char *command, char *argv[], int maxprocs, MPI_Info info, int root,
                    MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[])
{
    char *cmds[1] = { (char *)command };
    char **argvs[1] = { argv == MPI_ARGV_NULL ? NULL : argv };
    return do_spawn(1, cmds, argvs, &maxprocs, &info, root, comm, intercomm, array_of_errcodes,
                    "MPI_Comm_spawn");
}

int PMPI_Comm_spawn_multiple(int count, char *array_of_commands[], char **array_of_argv[],
                             const int array_of_maxprocs[], const MPI_Info array_of_info[],
                             int root, MPI_Comm comm, MPI_Comm *intercomm,
                             int array_of_errcodes[])
{
    return do_spawn(count, array_of_commands,
                    array_of_argv == MPI_ARGVS_NULL ? NULL : array_of_argv, array_of_maxprocs,
                    array_of_info, root, comm, intercomm, array_of_errcodes,
                    "MPI_Comm_spawn_multiple");
}
