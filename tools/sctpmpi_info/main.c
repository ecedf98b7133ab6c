/* main.c — sctpmpi_info: what this sctpmpi build is (version, MPI level, transports, SCTP
 * backends) and every SCTPMPI_* tunable with its default, current value and meaning.  The
 * tunables come from docs/tunables.md, turned into tunables_gen.h at build time. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

struct sm_tunable {
    const char *name;
    const char *section;
    const char *dflt;
    const char *short_meaning;
    const char *meaning;
};

#include "tunables_gen.h"

static void print_usage(FILE *f)
{
    fprintf(f,
            "usage: sctpmpi_info [--all] [--param NAME] [--parsable] [--help] [--version]\n"
            "  (no option)    version, MPI level, transports, and the SCTPMPI_* tunables set in\n"
            "                 the environment\n"
            "  -a, --all      the same, with every tunable (default, current value, meaning)\n"
            "  --param NAME   one tunable with its full meaning (exit 1 if NAME is unknown)\n"
            "  --parsable     colon-separated key:value lines, for scripts\n"
            "  -h, --help     this help\n"
            "  --version      print the version\n"
            "Tunables are documented in docs/tunables.md.  Exit status: 0 on success, 1 for an\n"
            "unknown --param, 2 for a usage error.\n");
}

static void print_build(int parsable)
{
    char lib[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    /* allowed before MPI_Init */
    if (MPI_Get_library_version(lib, &len) != MPI_SUCCESS)
        snprintf(lib, sizeof lib, "unknown");
    if (parsable) {
        printf("version:%s\n", SCTPMPI_VERSION_STRING);
        printf("mpi:%d.%d\n", MPI_VERSION, MPI_SUBVERSION);
        printf("library:%s\n", lib);
        printf("transport:tcp\ntransport:sctp\n");
        printf("thread_support:MPI_THREAD_MULTIPLE\n");
        printf("backend:native\n");
#ifdef SCTPMPI_HAVE_SCTP
        printf("backend:usrsctp\n");
#endif
        return;
    }
    printf("sctpmpi version:  %s\n", SCTPMPI_VERSION_STRING);
    printf("MPI standard:     %d.%d\n", MPI_VERSION, MPI_SUBVERSION);
    printf("library:          %s\n", lib);
    printf("transports:       tcp, sctp (SCTPMPI_TRANSPORT)\n");
    printf("thread support:   MPI_THREAD_MULTIPLE (one global lock, docs/threads.md)\n");
#ifdef SCTPMPI_HAVE_SCTP
    printf("SCTP backends:    native, usrsctp (SCTPMPI_SCTP_BACKEND)\n");
#else
    printf("SCTP backends:    native (SCTPMPI_SCTP_BACKEND; built without usrsctp)\n");
#endif
}

static void print_tunable(const struct sm_tunable *t, int parsable, int full)
{
    const char *v = getenv(t->name);
    if (parsable) {
        printf("param:%s:default:%s:value:%s\n", t->name, t->dflt, v ? v : "(default)");
        if (full)
            printf("param:%s:meaning:%s\n", t->name, t->meaning);
        return;
    }
    printf("  %s\n", t->name);
    printf("      default: %s\n", *t->dflt ? t->dflt : "(none)");
    printf("      value:   %s\n", v ? v : "(default)");
    printf("      %s%s\n", full ? "section: " : "", full ? t->section : t->short_meaning);
    if (full)
        printf("      meaning: %s\n", t->meaning);
}

int main(int argc, char **argv)
{
    int all = 0, parsable = 0;
    const char *param = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            print_usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("sctpmpi_info (sctpmpi) %s\n", SCTPMPI_VERSION_STRING);
            return 0;
        } else if (strcmp(a, "-a") == 0 || strcmp(a, "--all") == 0) {
            all = 1;
        } else if (strcmp(a, "--parsable") == 0 || strcmp(a, "--parseable") == 0) {
            parsable = 1;
        } else if (strncmp(a, "--param=", 8) == 0) {
            param = a + 8;
        } else if (strcmp(a, "--param") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "sctpmpi_info: option --param needs a tunable name\n");
                return 2;
            }
            param = argv[++i];
        } else {
            fprintf(stderr, "sctpmpi_info: unknown option %s (see sctpmpi_info --help)\n", a);
            return 2;
        }
    }

    if (param) {
        int found = 0;
        for (int i = 0; i < SM_NTUNABLES; i++) {
            if (strcmp(sm_tunables[i].name, param) == 0) {
                print_tunable(&sm_tunables[i], parsable, 1);
                found = 1;
            }
        }
        if (!found) {
            fprintf(stderr,
                    "sctpmpi_info: unknown tunable '%s' (sctpmpi_info --all lists them; "
                    "see docs/tunables.md)\n",
                    param);
            return 1;
        }
        return 0;
    }

    print_build(parsable);
    const char *section = NULL;
    int shown = 0;
    for (int i = 0; i < SM_NTUNABLES; i++) {
        const struct sm_tunable *t = &sm_tunables[i];
        if (!all && !getenv(t->name))
            continue;
        if (!parsable && (!section || strcmp(section, t->section) != 0)) {
            section = t->section;
            printf("\n%s tunables:\n", section);
        }
        print_tunable(t, parsable, 0);
        shown++;
    }
    if (!all && !parsable && !shown)
        printf("\nNo SCTPMPI_* tunable is set in the environment (--all lists every one).\n");
    return 0;
}
