/* options.c — parses mpiexec's flags (see docs/launcher.md); stops at the program name. */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef SCTPMPI_VERSION_STRING
#define SCTPMPI_VERSION_STRING "unknown"
#endif

static void print_usage(FILE *f)
{
    fprintf(f,
            "usage: mpiexec [options] program [args...]\n"
            "  -n, -np N            number of ranks (default 1)\n"
            "  --transport T        tcp or sctp (sets SCTPMPI_TRANSPORT for the ranks)\n"
            "  --timeout S          kill the job after S seconds (env SCTPMPI_TIMEOUT); exit 124\n"
            "  -x VAR | -x VAR=VAL  pass VAR (from our environment, or set to VAL) to the ranks\n"
            "  -l, --prefix-output  prefix each output line with [rank]\n"
            "  --netlab TOPO        run the ranks on the emulated hosts of a netlab topology\n"
            "  -h, --help           this help\n"
            "  --version            print the version\n"
            "mpirun is the same program.  Exit status: 0 if every rank finalized and exited 0,\n"
            "else the first failing rank's code (128+signal if killed by a signal).\n");
}

static int parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || v < 0)
        return -1;
    *out = v;
    return 0;
}

static int parse_count(const char *s, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > 65536)
        return -1;
    *out = (int)v;
    return 0;
}

/* Accepts "--flag VALUE" and "--flag=VALUE".  Returns the value or NULL (not this flag). */
static const char *flag_value(int argc, char **argv, int *i, const char *flag, int *missing)
{
    size_t fl = strlen(flag);
    const char *a = argv[*i];
    if (strncmp(a, flag, fl) != 0)
        return NULL;
    if (a[fl] == '=')
        return a + fl + 1;
    if (a[fl] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    return argv[++*i];
}

int mpiexec_parse_options(int argc, char **argv, struct mpiexec_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->nranks = 1;
    const char *env_timeout = getenv("SCTPMPI_TIMEOUT");
    if (env_timeout && *env_timeout && parse_double(env_timeout, &opt->timeout_s) < 0) {
        fprintf(stderr, "mpiexec: SCTPMPI_TIMEOUT=%s is not a number of seconds\n", env_timeout);
        return -1;
    }
    opt->env_assign = calloc((size_t)argc + 1, sizeof *opt->env_assign);
    if (!opt->env_assign) {
        perror("mpiexec");
        return -1;
    }
    int i;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v;
        int missing = 0;
        if (a[0] != '-')
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_usage(stdout);
            return 1;
        }
        if (strcmp(a, "--version") == 0) {
            printf("mpiexec (sctpmpi) %s\n", SCTPMPI_VERSION_STRING);
            return 1;
        }
        if (strcmp(a, "-l") == 0 || strcmp(a, "--prefix-output") == 0) {
            opt->prefix_output = 1;
            continue;
        }
        if ((v = flag_value(argc, argv, &i, "-n", &missing)) ||
            (!missing && (v = flag_value(argc, argv, &i, "-np", &missing)))) {
            if (parse_count(v, &opt->nranks) < 0) {
                fprintf(stderr, "mpiexec: -n wants a rank count between 1 and 65536, got '%s'\n", v);
                return -1;
            }
            continue;
        }
        if (!missing && (v = flag_value(argc, argv, &i, "--transport", &missing))) {
            if (strcmp(v, "tcp") != 0 && strcmp(v, "sctp") != 0) {
                fprintf(stderr, "mpiexec: --transport wants tcp or sctp, got '%s'\n", v);
                return -1;
            }
            opt->transport = v;
            continue;
        }
        if (!missing && (v = flag_value(argc, argv, &i, "--timeout", &missing))) {
            if (parse_double(v, &opt->timeout_s) < 0) {
                fprintf(stderr, "mpiexec: --timeout wants seconds (>= 0), got '%s'\n", v);
                return -1;
            }
            continue;
        }
        if (!missing && (v = flag_value(argc, argv, &i, "-x", &missing))) {
            if (!*v || *v == '=') {
                fprintf(stderr, "mpiexec: -x wants VAR or VAR=VALUE, got '%s'\n", v);
                return -1;
            }
            opt->env_assign[opt->nenv++] = (char *)v;
            continue;
        }
        if (!missing && (v = flag_value(argc, argv, &i, "--netlab", &missing))) {
            opt->netlab_topo = v;
            continue;
        }
        if (missing)
            fprintf(stderr, "mpiexec: option %s needs a value\n", a);
        else
            fprintf(stderr, "mpiexec: unknown option %s (see mpiexec --help)\n", a);
        return -1;
    }
    if (i >= argc) {
        fprintf(stderr, "mpiexec: no program given\n");
        print_usage(stderr);
        return -1;
    }
    opt->prog_argv = argv + i;
    return 0;
}
