/* options.h — mpiexec's command line: what the user asked for, parsed and validated. */
#ifndef MPIEXEC_OPTIONS_H
#define MPIEXEC_OPTIONS_H

struct mpiexec_options {
    int nranks;              /* -n / -np */
    const char *transport;   /* --transport tcp|sctp, NULL = leave SCTPMPI_TRANSPORT alone */
    double timeout_s;        /* --timeout / SCTPMPI_TIMEOUT, 0 = none */
    int prefix_output;       /* --prefix-output / -l */
    const char *netlab_topo; /* --netlab TOPO, NULL = run locally */
    char **env_assign;       /* -x VAR=VAL or -x VAR (value taken from our environment) */
    int nenv;
    int nranks_given; /* -n/-np appeared (else the host list's slots may set nranks) */
    int ppn;          /* -ppn N / --map-by ppr:N:node, 0 = not given */
    int host_slots;   /* slots named by -H/--hostfile (all on this host), 0 = none */
    char **prog_argv; /* program and its arguments (NULL-terminated) */
};

/* Parses argv.  Returns 0 to run, 1 if it already printed help/version (exit 0),
 * -1 on a usage error (message printed; exit 2), -2 when the options ask for more than this
 * one host (message printed; exit 1). */
int mpiexec_parse_options(int argc, char **argv, struct mpiexec_options *opt);

#endif
