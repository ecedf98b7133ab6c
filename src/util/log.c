/* log.c — diagnostics on stderr, prefixed with the rank, and the fatal-error exit. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/util.h"

int sm_verbose = 0;
int sm_log_rank = -1;

static void vlog(const char *kind, const char *fmt, va_list ap)
{
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "sctpmpi[%d]: %s", sm_log_rank, kind);
    if (n < 0 || (size_t)n >= sizeof buf)
        n = 0;
    vsnprintf(buf + n, sizeof buf - (size_t)n, fmt, ap);
    fprintf(stderr, "%s\n", buf);
}

void sm_log(int level, const char *fmt, ...)
{
    static const char *kinds[] = { "error: ", "warning: ", "", "debug: " };
    if (level > sm_verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    vlog(kinds[level < 0 ? 0 : level > 3 ? 3 : level], fmt, ap);
    va_end(ap);
}

void sm_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vlog("fatal: ", fmt, ap);
    va_end(ap);
    fflush(stderr);
    exit(1);
}
