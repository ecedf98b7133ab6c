/* netlab: per-link packet capture files (pcap, nanosecond timestamps, raw IP link type). */
#include "pcap.h"

#include <string.h>

FILE *nl_pcap_open(const char *path, uint32_t snaplen)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return NULL;
    setvbuf(f, NULL, _IOFBF, 1 << 16);
    struct {
        uint32_t magic;
        uint16_t vmaj, vmin;
        int32_t zone;
        uint32_t sigfigs, snaplen, linktype;
    } h = { 0xa1b23c4d, 2, 4, 0, 0, snaplen, 101 /* LINKTYPE_RAW */ };
    fwrite(&h, sizeof h, 1, f);
    return f;
}

void nl_pcap_write(FILE *f, uint64_t realtime_ns, const void *pkt, uint32_t len, uint32_t snaplen)
{
    uint32_t cap = len < snaplen ? len : snaplen;
    uint32_t r[4] = { (uint32_t)(realtime_ns / 1000000000u),
                      (uint32_t)(realtime_ns % 1000000000u), cap, len };
    fwrite(r, sizeof r, 1, f);
    fwrite(pkt, 1, cap, f);
}
