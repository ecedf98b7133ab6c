/* netlab: namespace and device primitives — running `ip` batches, opening a TUN inside a
 * namespace, entering a namespace like `ip netns exec`, finding and killing its processes. */
#ifndef NETLAB_NETNS_H
#define NETLAB_NETNS_H
#include <stddef.h>
#include <sys/types.h>

/* Run `ip [-n ns] [-force] -batch -` with cmds on stdin; 0 on success. quiet: no stderr. */
int nl_ip_batch(const char *ns, const char *cmds, int force, int quiet);
/* Create a TUN (IFF_TUN|IFF_NO_PI) named ifname inside netns nsname; returns a non-blocking fd. */
int nl_tun_open(const char *nsname, const char *ifname, char *err, size_t errlen);
/* Write a sysctl inside netns nsname (path below /proc/sys). */
int nl_ns_sysctl(const char *nsname, const char *path, const char *val);
/* Enter netns nsname with `ip netns exec` semantics (private mount ns, /sys remounted). */
int nl_ns_enter(const char *nsname, char *err, size_t errlen);
/* SIGKILL every process whose network namespace is nsname; returns how many were signalled. */
int nl_ns_kill_procs(const char *nsname);
int nl_ns_exists(const char *nsname);
/* Process start time (clock ticks since boot) or 0 if the process does not exist. */
unsigned long long nl_proc_start(pid_t pid);
/* Does pid still run with the recorded start time? */
int nl_proc_alive(pid_t pid, unsigned long long start);
#endif
