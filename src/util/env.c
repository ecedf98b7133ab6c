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
    if (!strcmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcasecmp(v, "true"))
        return 1;
    if (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcasecmp(v, "false"))
        return 0;
    SM_WARN("ignoring %s=%s: expected on/off; using %s", name, v, dflt ? "on" : "off");
    return dflt;
}
