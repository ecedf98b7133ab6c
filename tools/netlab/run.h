/* netlab: `netlab run` — bring a topology up, run a command, tear everything down. */
#ifndef NETLAB_RUN_H
#define NETLAB_RUN_H
#include "topo.h"

typedef struct {
    const char *topo_path;
    char **cmd;           /* NULL: wait for a signal (netlab start) */
    const char *pcap_dir; /* capture directory, or NULL */
    int pcap_all;         /* --pcap: capture every link */
    unsigned pcap_snaplen;
    int ready_fd; /* netlab start: write the run dir here once up, or -1 */
} nl_run_opts;

/* Returns the command's exit status (or 128+signal), 125 on a netlab error, 77 when the
 * environment cannot run netlab (not root, no /dev/net/tun, no ip netns). */
int nl_run(const nl_run_opts *o);
/* Environment check shared by the subcommands that need root; prints one line on failure. */
int nl_env_check(void);
#endif
