/* test_crc32c — the engine's CRC32c (crc32c.c) against a bit-at-a-time reference: the RFC check
 * value, every length up to 1600 bytes and longer ones through each interleaved round size
 * (3 x 4096, 3 x 512, 3 x 128) plus tails, at odd and even start addresses, chained updates
 * (crc of A then B = crc of A B), and the packet CRC with its checksum field taken as zero.
 * On a CPU with SSE4.2 the hardware path must be the one in use (its self-test passed). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sctpn_internal.h"

static int failures;

static uint32_t ref_update(uint32_t c, const uint8_t *p, size_t n)
{
    while (n--) {
        c ^= *p++;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
    }
    return c;
}

static void check(const char *what, size_t n, uint32_t got, uint32_t want)
{
    if (got != want && failures++ < 20)
        printf("FAIL %s, %zu bytes: 0x%08x, want 0x%08x\n", what, n, got, want);
}

int main(void)
{
    const char *nine = "123456789";
    check("check value", 9, ~crc32c_update(~0u, (const uint8_t *)nine, 9), 0xe3069283u);

    enum { MAX = 2 * (3 * 4096 + 3 * 512 + 3 * 128) + 301 };
    uint8_t *buf = malloc(MAX + 1);
    uint32_t seed = 12345;
    for (size_t i = 0; i <= MAX; i++) {
        seed = seed * 1103515245u + 12345u;
        buf[i] = (uint8_t)(seed >> 16);
    }
    for (size_t n = 0; n <= MAX; n += n < 1600 ? 1 : 61)
        for (int off = 0; off < 2; off++) {
            const size_t len = n - (off && n ? 1 : 0);
            check("one call", len, crc32c_update(~0u, buf + off, len),
                  ref_update(~0u, buf + off, len));
        }
    for (size_t cut = 0; cut <= 20000; cut += 997) { /* chained: A then B */
        uint32_t c = crc32c_update(0x5a5a5a5au, buf, cut);
        c = crc32c_update(c, buf + cut, MAX - cut);
        check("chained", cut, c, ref_update(0x5a5a5a5au, buf, MAX));
    }
    /* a packet: bytes 8-11 (the checksum) count as zero */
    uint8_t pkt[20012];
    memcpy(pkt, buf, sizeof pkt);
    uint8_t z[sizeof pkt];
    memcpy(z, pkt, sizeof pkt);
    memset(z + 8, 0, 4);
    check("packet", sizeof pkt, sctpn_packet_crc(pkt, sizeof pkt), ~ref_update(~0u, z, sizeof z));
    free(buf);
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("sse4.2") && !crc32c_hw_active()) {
        printf("FAIL the CPU has SSE4.2 but the hardware CRC32c failed its self-test\n");
        failures++;
    }
#endif
    printf("crc32c: %s\n", crc32c_hw_active() ? "SSE4.2, three interleaved chains" : "tables");
    if (failures)
        printf("%d failures\n", failures);
    else
        printf(" No Errors\n");
    return failures != 0;
}
