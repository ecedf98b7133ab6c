/* pmi_select.c — picks the PMI client a rank uses (pmi.h) from its environment and forwards
 * every call to it; also the helpers the clients share (pmi_backend.h).
 *
 * Order under SCTPMPI_PMI=auto (the default): a PMI_FD or PMI_PORT comes from the launcher
 * that started this very process (our mpiexec or hydra may run inside a PMIx job and inherit
 * its PMIX_* variables), so it wins; PMI_FD under Slurm's pmi2 plugin speaks PMI-2; then
 * PMIx; then the singleton. */
#include "boot/pmi.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/pmi_backend.h"

static const struct sm_pmi_ops *cur;

void sm_pmi_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "sctpmpi: PMI: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
}

int sm_pmi_env_int(const char *name, int *out)
{
    const char *s = getenv(name);
    if (!s || !*s)
        return -1;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || *end || v < 0 || v > 1 << 30)
        return -1;
    *out = (int)v;
    return 0;
}

/* one "(start,count,ppn)" triple; returns the position after it or NULL */
static const char *parse_triple(const char *p, long t[3])
{
    while (*p == ' ' || *p == ',')
        p++;
    if (*p++ != '(')
        return NULL;
    for (int i = 0; i < 3; i++) {
        char *end;
        errno = 0;
        t[i] = strtol(p, &end, 10);
        if (errno || end == p || t[i] < 0 || t[i] > 1 << 24)
            return NULL;
        p = end;
        while (*p == ' ')
            p++;
        if (*p != (i < 2 ? ',' : ')'))
            return NULL;
        p++;
    }
    return p;
}

int sm_pmi_parse_mapping(const char *map, int rank, int size, int *local_size, int *local_rank)
{
    enum { MAXB = 256 };
    long b[MAXB][3];
    int nb = 0;
    const char *p = map;
    while (*p == ' ')
        p++;
    if (strncmp(p, "(vector", 7) != 0)
        return -1;
    p += 7;
    for (;;) {
        while (*p == ' ' || *p == ',')
            p++;
        if (*p == ')')
            break;
        if (nb == MAXB || !(p = parse_triple(p, b[nb])))
            return -1;
        if (b[nb][1] > 0 && b[nb][2] > 0)
            nb++;
    }
    if (nb == 0 || rank < 0 || rank >= size)
        return -1;
    /* ranks fill the blocks in order, node by node; the pattern repeats until all are placed */
    long mynode = -1, r = 0;
    int count = 0, before = 0;
    long *node_of = malloc((size_t)size * sizeof *node_of);
    if (!node_of)
        return -1;
    while (r < size) {
        for (int i = 0; i < nb && r < size; i++)
            for (long n = 0; n < b[i][1] && r < size; n++)
                for (long k = 0; k < b[i][2] && r < size; k++)
                    node_of[r++] = b[i][0] + n;
    }
    mynode = node_of[rank];
    for (int i = 0; i < size; i++)
        if (node_of[i] == mynode) {
            count++;
            if (i < rank)
                before++;
        }
    free(node_of);
    *local_size = count;
    *local_rank = before;
    return 0;
}

static int fd_open(const char *var)
{
    int fd;
    return sm_pmi_env_int(var, &fd) == 0 && fcntl(fd, F_GETFD) >= 0;
}

static int have_pmix_env(void)
{
    return getenv("PMIX_NAMESPACE") && getenv("PMIX_RANK");
}

static const struct sm_pmi_ops *pmix_or_null(void)
{
#ifdef SCTPMPI_HAVE_PMIX
    return &sm_pmix_ops;
#else
    return NULL;
#endif
}

static const struct sm_pmi_ops *choose(void)
{
    const char *want = getenv("SCTPMPI_PMI");
    if (!want || !*want)
        want = "auto";
    if (!strcmp(want, "pmi1"))
        return &sm_pmi1_ops;
    if (!strcmp(want, "pmi2"))
        return &sm_pmi2_ops;
    if (!strcmp(want, "pmix")) {
        if (!pmix_or_null())
            sm_pmi_error("SCTPMPI_PMI=pmix, but this library was built without PMIx "
                         "(libpmix-dev missing or -DSCTPMPI_WITH_PMIX=OFF)");
        return pmix_or_null();
    }
    if (strcmp(want, "auto") != 0) {
        sm_pmi_error("SCTPMPI_PMI=%s is not one of auto, pmi1, pmi2, pmix", want);
        return NULL;
    }
    const char *port = getenv("PMI_PORT");
    if (getenv("PMI_FD") && (fd_open("PMI_FD") || !have_pmix_env())) {
        const char *mt = getenv("SLURM_MPI_TYPE");
        if (mt && !strncmp(mt, "pmi2", 4))
            return &sm_pmi2_ops;
        return &sm_pmi1_ops;
    }
    if (port && *port)
        return &sm_pmi1_ops;
    if (have_pmix_env()) {
        if (!pmix_or_null())
            sm_pmi_error("the launcher speaks PMIx (PMIX_NAMESPACE is set), but this library "
                         "was built without PMIx (libpmix-dev missing at build time)");
        return pmix_or_null();
    }
    return &sm_pmi_singleton_ops;
}

int sm_pmi_init(int *rank, int *size)
{
    if (cur)
        return cur->init(rank, size); /* already up: the client repeats rank and size */
    const struct sm_pmi_ops *ops = choose();
    if (!ops || ops->init(rank, size) < 0)
        return -1;
    cur = ops;
    return 0;
}

static int ready(const char *what)
{
    if (!cur) {
        sm_pmi_error("%s called before sm_pmi_init", what);
        return -1;
    }
    return 0;
}

int sm_pmi_is_singleton(void)
{
    return cur == &sm_pmi_singleton_ops;
}

const char *sm_pmi_name(void)
{
    return cur ? cur->name : NULL;
}

int sm_pmi_local(int *local_size, int *local_rank)
{
    *local_size = *local_rank = -1;
    if (ready("sm_pmi_local") < 0)
        return -1;
    return cur->local(local_size, local_rank);
}

int sm_pmi_put(const char *key, const char *value)
{
    return ready("sm_pmi_put") < 0 ? -1 : cur->put(key, value);
}

int sm_pmi_get(const char *key, char *value, size_t len)
{
    return ready("sm_pmi_get") < 0 ? -1 : cur->get(-1, key, value, len);
}

int sm_pmi_get_from(int src, const char *key, char *value, size_t len)
{
    return ready("sm_pmi_get") < 0 ? -1 : cur->get(src, key, value, len);
}

int sm_pmi_get_many(int n, const int *srcs, const char *const *keys, char *const *values,
                    size_t len)
{
    if (ready("sm_pmi_get_many") < 0)
        return -1;
    if (cur->get_many)
        return cur->get_many(n, srcs, keys, values, len);
    for (int i = 0; i < n; i++)
        if (cur->get(srcs ? srcs[i] : -1, keys[i], values[i], len))
            return -1;
    return 0;
}

int sm_pmi_barrier(void)
{
    return ready("sm_pmi_barrier") < 0 ? -1 : cur->barrier();
}

int sm_pmi_abort(int code, const char *msg)
{
    if (!cur) {
        if (msg && *msg)
            fprintf(stderr, "sctpmpi: aborting (code %d): %s\n", code, msg);
        return 0;
    }
    return cur->abort(code, msg);
}

int sm_pmi_finalize(void)
{
    if (!cur)
        return 0;
    int rc = cur->finalize();
    cur = NULL;
    return rc;
}

/* ---- dynamic processes: spawn and the name service (PMI-1 only) ---- */
int sm_pmi_command(const char *request, char *reply, size_t len)
{
    if (!cur) {
        snprintf(reply, len, "PMI is not up");
        return -1;
    }
    if (!cur->command) {
        snprintf(reply, len,
                 "not supported under this launcher (its PMI is %s; spawn and the "
                 "name service need sctpmpi's mpiexec)",
                 cur->name);
        return -1;
    }
    return cur->command(request, reply, len);
}
