/* netlab: the per-run state directory (info, hosts, control socket), teardown of a run and
 * garbage collection of dead runs' leftovers. */
#ifndef NETLAB_STATE_H
#define NETLAB_STATE_H
#include <stddef.h>
#include <sys/types.h>

#define NL_PREFIX "nlab" /* every name we create starts with nlab + 6 hex digits */

const char *nl_state_root(void);
/* Read key from DIR/info into out; 0 if found. */
int nl_info_get(const char *dir, const char *key, char *out, size_t len);
int nl_info_put(const char *dir, const char *key, const char *val);
/* Host lookup in DIR/hosts: fills netns name, address list, management address. */
int nl_hosts_lookup(const char *dir, const char *host, char *ns, size_t nslen, char *addrs,
                    size_t alen, char *mgmt, size_t mlen);
int nl_hosts_print(const char *dir);
/* Remove everything of the run in dir: processes in its namespaces, the forwarder (unless it is
 * the caller), the command's process group, namespaces, bridge, the directory. */
void nl_teardown(const char *dir);
/* Register a run (prefix -> run directory) for gc across state roots. */
int nl_registry_add(const char *prefix, const char *dir);
/* Remove leftovers of dead runs; returns number of runs/objects removed. */
int nl_gc(int verbose);
/* Resolve the run dir from an explicit value or $NETLAB_RUN; prints an error and returns NULL. */
const char *nl_run_dir(const char *given);
#endif
