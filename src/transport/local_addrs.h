/* local_addrs.h — the local IPv4 addresses an SCTP transport binds (local_addrs.c):
 * SCTPMPI_SCTP_ADDRS (list or multihome file), SCTPMPI_SCTP_BINDALL, the job's list
 * (SCTPMPI_ADDRS), loopback — the first that gives any. */
#ifndef SCTPMPI_LOCAL_ADDRS_H
#define SCTPMPI_LOCAL_ADDRS_H

#include <netinet/in.h>

/* writes up to max addresses (dotted quads) into out; returns how many, or -1 on a bad list */
int sm_local_addrs(const char *const *job, int njob, char out[][INET_ADDRSTRLEN], int max);

#endif
