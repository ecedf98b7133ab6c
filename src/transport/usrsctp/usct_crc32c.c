/* usct_crc32c.c — CRC32c of SCTP packets for the usrsctp backend, computed by our own engine's
 * CRC32c (src/sctp_native/crc32c.c: the SSE4.2 crc32 instruction when the CPU has it, ~10 GB/s,
 * else slicing-by-8; usrsctp's own table code does ~1 GB/s).  usrsctp is told the checksum is
 * "offloaded"; we fill it in our output callback and check it before usrsctp_conninput.  The
 * wire format is unchanged (a real CRC32c), so a peer computing it in software interoperates.
 * A self-test against usrsctp_crc32c() at start-up decides; on a mismatch usrsctp keeps doing it. */
#include <stdint.h>
#include <string.h>

#include "sctpn.h"
#include "transport/usrsctp/usct_internal.h"

int usct_crc32c_hw_init(void)
{
    unsigned char buf[1500];
    for (size_t i = 0; i < sizeof buf; i++)
        buf[i] = (unsigned char)(i * 37 + (i >> 3));
    size_t lens[] = { 12, 13, 28, 100, 1499 };
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        memset(buf + 8, 0, 4);
        uint32_t ref = usrsctp_crc32c(buf, lens[k]);
        if (sctpn_packet_crc(buf, lens[k]) != ref)
            return 0;
    }
    return 1;
}

void usct_crc32c_fill(unsigned char *pkt, size_t len)
{
    if (len >= 12)
        sctpn_packet_set_crc(pkt, len);
}

int usct_crc32c_check(const unsigned char *pkt, size_t len)
{
    if (len < 12)
        return 0;
    uint32_t c = sctpn_packet_crc(pkt, len);
    return pkt[8] == (uint8_t)c && pkt[9] == (uint8_t)(c >> 8) && pkt[10] == (uint8_t)(c >> 16) &&
           pkt[11] == (uint8_t)(c >> 24);
}
