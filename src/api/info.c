/* info.c — MPI_Info objects: ordered (key, value) string pairs; create, set, get,
 * get_valuelen, get_nkeys, get_nthkey, delete, dup, free; and the predefined MPI_INFO_ENV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "api/api.h"

struct sctpmpi_info {
    int valid;
    int n, cap;
    char **key, **val;
};

/* MPI_INFO_ENV: filled at its first use after MPI_Init (env_fill, below) */
struct sctpmpi_info sctpmpi_info_env = { .valid = 1 };
static int env_filled;
static void env_fill(void);

static int check_info(MPI_Info info, const char *fn)
{
    /* MPI-4: the info functions may be called before MPI is initialised */
    if (info == MPI_INFO_ENV)
        env_fill();
    if (!info || !info->valid)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_INFO, fn, "null or freed info");
    return MPI_SUCCESS;
}

static int find(MPI_Info info, const char *key)
{
    for (int i = 0; i < info->n; i++)
        if (strcmp(info->key[i], key) == 0)
            return i;
    return -1;
}

const char *sm_info_lookup(MPI_Info info, const char *key)
{
    if (!info)
        return NULL;
    if (info == MPI_INFO_ENV)
        env_fill();
    int i = find(info, key);
    return i < 0 ? NULL : info->val[i];
}

static char *dupstr(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = sm_xmalloc(n);
    memcpy(d, s, n);
    return d;
}

static void put(MPI_Info info, const char *key, const char *value)
{
    int i = find(info, key);
    if (i >= 0) {
        free(info->val[i]);
        info->val[i] = dupstr(value);
        return;
    }
    if (info->n == info->cap) {
        info->cap = info->cap ? 2 * info->cap : 8;
        info->key = realloc(info->key, sizeof(char *) * (size_t)info->cap);
        info->val = realloc(info->val, sizeof(char *) * (size_t)info->cap);
        if (!info->key || !info->val)
            sm_die("out of memory in MPI_Info");
    }
    info->key[info->n] = dupstr(key);
    info->val[info->n] = dupstr(value);
    info->n++;
}

int PMPI_Info_create(MPI_Info *info)
{
    if (!info)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Info_create", "NULL pointer");
    *info = sm_xcalloc(1, sizeof **info);
    (*info)->valid = 1;
    return MPI_SUCCESS;
}

static int check_key(const char *key, const char *fn)
{
    if (!key || !*key || strlen(key) > MPI_MAX_INFO_KEY)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_INFO_KEY, fn, "empty, NULL or too long key");
    return MPI_SUCCESS;
}

int PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
    const char *fn = "MPI_Info_set";
    SM_TRY(check_info(info, fn));
    SM_TRY(check_key(key, fn));
    if (!value || !*value || strlen(value) > MPI_MAX_INFO_VAL)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_INFO_VALUE, fn, "empty, NULL or too long value");
    put(info, key, value);
    return MPI_SUCCESS;
}

int PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get";
    SM_TRY(check_info(info, fn));
    SM_TRY(check_key(key, fn));
    if (!flag || valuelen < 0 || (!value && valuelen > 0))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad value buffer or flag");
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0 && valuelen >= 0) {
        size_t n = strlen(info->val[i]);
        if (n > (size_t)valuelen)
            n = (size_t)valuelen;
        memcpy(value, info->val[i], n);
        value[n] = 0;
    }
    return MPI_SUCCESS;
}

int PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen, int *flag)
{
    const char *fn = "MPI_Info_get_valuelen";
    SM_TRY(check_info(info, fn));
    SM_TRY(check_key(key, fn));
    int i = find(info, key);
    *flag = i >= 0;
    if (i >= 0)
        *valuelen = (int)strlen(info->val[i]);
    return MPI_SUCCESS;
}

int PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
    SM_TRY(check_info(info, "MPI_Info_get_nkeys"));
    *nkeys = info->n;
    return MPI_SUCCESS;
}

int PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
    const char *fn = "MPI_Info_get_nthkey";
    SM_TRY(check_info(info, fn));
    if (n < 0 || n >= info->n || !key)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "no key number %d", n);
    strcpy(key, info->key[n]);
    return MPI_SUCCESS;
}

int PMPI_Info_delete(MPI_Info info, const char *key)
{
    const char *fn = "MPI_Info_delete";
    SM_TRY(check_info(info, fn));
    SM_TRY(check_key(key, fn));
    int i = find(info, key);
    if (i < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_INFO_NOKEY, fn, "key \"%s\" is not set", key);
    free(info->key[i]);
    free(info->val[i]);
    memmove(&info->key[i], &info->key[i + 1], sizeof(char *) * (size_t)(info->n - i - 1));
    memmove(&info->val[i], &info->val[i + 1], sizeof(char *) * (size_t)(info->n - i - 1));
    info->n--;
    return MPI_SUCCESS;
}

/* The standard's keys, from what this process knows: command and argv (the process's
 * command line, /proc/self/cmdline), maxprocs (the size of MPI_COMM_WORLD), host, arch, wdir
 * and thread_level (the level MPI_Init_thread provided).  soft and file have no meaning here:
 * mpiexec takes no soft or file argument, so they are absent. */
static void env_fill(void)
{
    if (env_filled || !sm_initialized)
        return;
    env_filled = 1;
    MPI_Info e = MPI_INFO_ENV;
    char buf[MPI_MAX_INFO_VAL + 1];
    FILE *f = fopen("/proc/self/cmdline", "r");
    if (f) {
        char cmd[4096];
        size_t n = fread(cmd, 1, sizeof cmd - 1, f);
        fclose(f);
        cmd[n] = 0;
        if (n > 0 && cmd[0])
            put(e, "command", cmd);
        /* the arguments after the command, separated by spaces */
        size_t at = strlen(cmd) + 1, len = 0;
        buf[0] = 0;
        while (at < n) {
            size_t a = strlen(cmd + at);
            if (len + a + 2 > sizeof buf)
                break;
            if (len)
                buf[len++] = ' ';
            memcpy(buf + len, cmd + at, a + 1);
            len += a;
            at += a + 1;
        }
        if (len)
            put(e, "argv", buf);
    }
    int size = 0;
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    snprintf(buf, sizeof buf, "%d", size);
    put(e, "maxprocs", buf);
    if (gethostname(buf, sizeof buf - 1) == 0) {
        buf[sizeof buf - 1] = 0;
        put(e, "host", buf);
    }
    struct utsname u;
    if (uname(&u) == 0)
        put(e, "arch", u.machine);
    if (getcwd(buf, sizeof buf))
        put(e, "wdir", buf);
    static const char *const levels[] = { "MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED",
                                          "MPI_THREAD_SERIALIZED", "MPI_THREAD_MULTIPLE" };
    if (sm_thread_level >= 0 && sm_thread_level <= 3)
        put(e, "thread_level", levels[sm_thread_level]);
}

MPI_Info sm_info_dup(MPI_Info in)
{
    if (!in)
        return MPI_INFO_NULL;
    if (in == MPI_INFO_ENV)
        env_fill();
    struct sctpmpi_info *d = sm_xcalloc(1, sizeof *d);
    d->valid = 1;
    for (int i = 0; i < in->n; i++)
        put(d, in->key[i], in->val[i]);
    return d;
}

void sm_info_free(MPI_Info info)
{
    if (!info)
        return;
    for (int i = 0; i < info->n; i++) {
        free(info->key[i]);
        free(info->val[i]);
    }
    free(info->key);
    free(info->val);
    info->valid = 0;
    free(info);
}

int PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
    SM_TRY(check_info(info, "MPI_Info_dup"));
    *newinfo = sm_info_dup(info);
    return MPI_SUCCESS;
}

int PMPI_Info_free(MPI_Info *info)
{
    if (!info)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_INFO, "MPI_Info_free", "NULL pointer");
    SM_TRY(check_info(*info, "MPI_Info_free"));
    if (*info == MPI_INFO_ENV)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_INFO, "MPI_Info_free",
                        "MPI_INFO_ENV is predefined and cannot be freed");
    sm_info_free(*info);
    *info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

/* ---- MPI-4: Info_get_string, Info_create_env --------------------------------------------- */
int sm_info_valid(MPI_Info info)
{
    return info && info->valid;
}

int PMPI_Info_get_string(MPI_Info info, const char *key, int *buflen, char *value, int *flag)
{
    const char *fn = "MPI_Info_get_string";
    SM_TRY(check_info(info, fn));
    if (!key || !buflen || !flag || (*buflen > 0 && !value))
        return sm_error(MPI_COMM_SELF, MPI_ERR_ARG, fn, "NULL argument");
    if (!*key || strlen(key) > MPI_MAX_INFO_KEY)
        return sm_error(MPI_COMM_SELF, MPI_ERR_INFO_KEY, fn, "invalid key");
    const char *v = sm_info_lookup(info, key);
    *flag = v != NULL;
    if (!v)
        return MPI_SUCCESS;
    int need = (int)strlen(v) + 1;
    if (*buflen > 0) {
        int n = need <= *buflen ? need - 1 : *buflen - 1;
        memcpy(value, v, (size_t)n);
        value[n] = 0;
    }
    *buflen = need;
    return MPI_SUCCESS;
}

/* the job's size as the launcher announced it, for MPI_Info_create_env before MPI_Init (the
 * same answer as after it): PMI-1/PMI-2 launchers, Slurm, Open MPI's mpirun; else a singleton */
static int launched_size(void)
{
    static const char *const vars[] = { "PMI_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE" };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v && atoi(v) > 0)
            return atoi(v);
    }
    return 1;
}

int PMPI_Info_create_env(int argc, char *argv[], MPI_Info *info)
{
    const char *fn = "MPI_Info_create_env";
    if (!info)
        return sm_error(MPI_COMM_SELF, MPI_ERR_ARG, fn, "NULL info pointer");
    SM_TRY(PMPI_Info_create(info));
    char buf[64];
    if (argc > 0 && argv && argv[0])
        PMPI_Info_set(*info, "command", argv[0]);
    if (argc > 1 && argv) {
        size_t len = 0;
        for (int i = 1; i < argc; i++)
            len += strlen(argv[i] ? argv[i] : "") + 1;
        char *a = sm_xmalloc(len + 1);
        a[0] = 0;
        for (int i = 1; i < argc; i++) {
            if (i > 1)
                strcat(a, " ");
            strcat(a, argv[i] ? argv[i] : "");
        }
        PMPI_Info_set(*info, "argv", a);
        free(a);
    }
    snprintf(buf, sizeof buf, "%d", sm_world_size() > 0 ? sm_world_size() : launched_size());
    PMPI_Info_set(*info, "maxprocs", buf);
    PMPI_Info_set(*info, "soft", buf);
    /* the highest level the library provides: the same before MPI_Init, during the run and
     * after MPI_Finalize, as the environment it describes does not change */
    PMPI_Info_set(*info, "thread_level", "MPI_THREAD_MULTIPLE");
    char host[256];
    if (gethostname(host, sizeof host) == 0) {
        host[sizeof host - 1] = 0;
        PMPI_Info_set(*info, "host", host);
    }
    return MPI_SUCCESS;
}
