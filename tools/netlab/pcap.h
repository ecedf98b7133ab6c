/* netlab: per-link packet capture files (pcap, nanosecond timestamps, raw IP link type). */
#ifndef NETLAB_PCAP_H
#define NETLAB_PCAP_H
#include <stdint.h>
#include <stdio.h>

FILE *nl_pcap_open(const char *path, uint32_t snaplen);
void nl_pcap_write(FILE *f, uint64_t realtime_ns, const void *pkt, uint32_t len,
                   uint32_t snaplen);
#endif
