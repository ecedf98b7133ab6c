/* env.c — reading SCTPMPI_* tunables from the environment (docs/tunables.md lists them all). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/util.h"

const char *sm_env_str(const char *name, const char *dflt)
{
    const char *v = getenv(name);
    return (v && *v) ? v : dflt;
}

static long long parse_num(const char *name, const char *v, long long dflt, int allow_suffix)
{
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 0);
    if (errno || end == v)
        goto bad;
    if (allow_suffix && *end) {
        switch (tolower((unsigned char)*end)) {
        case 'k': x *= 1024; break;
        case 'm': x *= 1024 * 1024; break;
        case 'g': x *= 1024ll * 1024 * 1024; break;
        default: goto bad;
        }
        end++;
        if (*end == 'b' || *end == 'B' || *end == 'i')
            end++;
        if (*end == 'B')
            end++;
    }
    if (*end)
        goto bad;
    return x;
bad:
    SM_WARN("ignoring %s=%s: not a number; using %lld", name, v, dflt);
    return dflt;
}

long long sm_env_size(const char *name, long long dflt)
{
    const char *v = getenv(name);
    return (v && *v) ? parse_num(name, v, dflt, 1) : dflt;
}

long long sm_env_int(const char *name, long long dflt)
{
    const char *v = getenv(name);
    return (v && *v) ? parse_num(name, v, dflt, 0) : dflt;
}

int sm_env_bool(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    if (!strcmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "yes") ||
        !strcasecmp(v, "true"))
        return 1;
    if (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
        !strcasecmp(v, "false"))
        return 0;
    SM_WARN("ignoring %s=%s: expected on/off; using %s", name, v, dflt ? "on" : "off");
    return dflt;
}

long long sm_env_range(const char *name, long long dflt, long long lo, long long hi)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    long long x = parse_num(name, v, dflt, 1);
    if (x < lo || x > hi) {
        SM_WARN("ignoring %s=%s (expected %lld..%lld); using %lld", name, v, lo, hi, dflt);
        return dflt;
    }
    return x;
}

int sm_env_choice(const char *name, const char *const *names, int n, int dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    for (int i = 0; i < n; i++)
        if (!strcasecmp(v, names[i]))
            return i;
    SM_WARN("ignoring %s=%s: not one of the accepted values", name, v);
    return dflt;
}

void sm_tunables_load(void *obj, const struct sm_tunable *tab, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const struct sm_tunable *t = &tab[i];
        char *field = (char *)obj + t->offset;
        switch (t->kind) {
        case SM_TU_INT: *(int *)field = (int)sm_env_range(t->name, t->dflt, t->lo, t->hi); break;
        case SM_TU_SIZE:
            *(size_t *)field = (size_t)sm_env_range(t->name, t->dflt, t->lo, t->hi);
            break;
        case SM_TU_BOOL: *(int *)field = sm_env_bool(t->name, (int)t->dflt); break;
        }
    }
}
