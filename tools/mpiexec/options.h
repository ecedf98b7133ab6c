/* options.h — mpiexec's command line: what the user asked for, parsed and validated. */
#ifndef MPIEXEC_OPTIONS_H
#define MPIEXEC_OPTIONS_H

/* default command that starts a proxy on another host (SCTPMPI_LAUNCHER_RSH, --launcher-rsh) */
#define MPIEXEC_DEFAULT_RSH                                                                      \
    "ssh -x -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=3 "                     \
    "-o ServerAliveCountMax=2"

struct mpiexec_host {
    char *name;
    int slots; /* 1 unless host:N or slots=N */
    int local; /* names this machine */
};

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
    /* multi-host */
    struct mpiexec_host *hosts; /* -H / --hostfile, in order, duplicates merged */
    int nhosts;
    int any_remote;           /* some host is not this machine: proxies are started */
    int map_by_node;          /* --map-by node: round-robin; else blocks of slots */
    int oversubscribe;        /* --oversubscribe */
    const char *launcher_rsh; /* --launcher-rsh / SCTPMPI_LAUNCHER_RSH / ssh */
    const char *wdir;         /* -wdir DIR: where the ranks start, NULL = our cwd */
};

/* Parses argv.  Returns 0 to run, 1 if it already printed help/version (exit 0),
 * -1 on a usage error (message printed; exit 2), -2 when the options ask for more than this
 * one host (message printed; exit 1). */
int mpiexec_parse_options(int argc, char **argv, struct mpiexec_options *opt);

/* Frees what parsing allocated (safe after any return of mpiexec_parse_options). */
void mpiexec_free_options(struct mpiexec_options *opt);

#endif
