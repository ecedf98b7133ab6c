/* crc32c.c — CRC32c (Castagnoli) of SCTP packets (RFC 9260 appendix B): the SSE4.2 crc32
 * instruction where the CPU has it (chosen once at run time; three interleaved chains on long
 * inputs), a slicing-by-8 table otherwise.
 * The algorithm of the hardware path follows src/transport/usrsctp/sctp_crc32c.c. */
#include <stdint.h>
#include <string.h>

#include "sctpn_internal.h"

static uint32_t table[8][256];
static int table_ready;

static void make_table(void)
{
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++)
        for (int t = 1; t < 8; t++)
            table[t][i] = (table[t - 1][i] >> 8) ^ table[0][table[t - 1][i] & 0xff];
    table_ready = 1;
}

static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t n)
{
    if (!table_ready)
        make_table();
    while (n >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        lo = __builtin_bswap32(lo);
        hi = __builtin_bswap32(hi);
#endif
        lo ^= c;
        c = table[7][lo & 0xff] ^ table[6][(lo >> 8) & 0xff] ^ table[5][(lo >> 16) & 0xff] ^
            table[4][lo >> 24] ^ table[3][hi & 0xff] ^ table[2][(hi >> 8) & 0xff] ^
            table[1][(hi >> 16) & 0xff] ^ table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--)
        c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
    return c;
}

#if defined(__x86_64__)
#include <nmmintrin.h>
#include <pthread.h>

/* The crc32 instruction has a latency of 3 cycles but a throughput of 1 per cycle: one
 * dependent chain runs at a third of what the CPU can do (9.6 GB/s here).  Long inputs are
 * therefore cut into rounds of three blocks of len bytes, each block with its own chain, and the
 * three results joined: crc(c, A B C) = shift(shift(crc(c, A)) ^ crc(0, B)) ^ crc(0, C), where
 * shift(x) = crc(x, len zero bytes) is linear in x, so 4 table lookups (27 GB/s here). */
struct crc_shift {
    size_t len;         /* block length in bytes (multiple of 8) */
    uint32_t t[4][256]; /* t[k][b] = shift(b << 8k) */
};
static struct crc_shift shifts[] = { { 4096, { { 0 } } },
                                     { 512, { { 0 } } },
                                     { 128, { { 0 } } } };
#define NSHIFTS (sizeof shifts / sizeof shifts[0])
static pthread_once_t shifts_once = PTHREAD_ONCE_INIT;

__attribute__((target("sse4.2"))) static uint32_t crc_hw1(uint32_t crc, const uint8_t *p,
                                                          size_t n)
{
    uint64_t c = crc;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        n -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (n--)
        c32 = _mm_crc32_u8(c32, *p++);
    return c32;
}

__attribute__((target("sse4.2"))) static void make_shifts(void)
{
    static const uint8_t zeros[4096];
    for (size_t i = 0; i < NSHIFTS; i++) {
        struct crc_shift *s = &shifts[i];
        uint32_t basis[32]; /* shift(1 << bit) */
        for (int b = 0; b < 32; b++)
            basis[b] = crc_hw1(1u << b, zeros, s->len);
        for (int k = 0; k < 4; k++)
            for (int v = 0; v < 256; v++) {
                uint32_t x = 0;
                for (int b = 0; b < 8; b++)
                    if (v >> b & 1)
                        x ^= basis[8 * k + b];
                s->t[k][v] = x;
            }
    }
}

static inline uint32_t shift(const struct crc_shift *s, uint32_t c)
{
    return s->t[0][c & 0xff] ^ s->t[1][(c >> 8) & 0xff] ^ s->t[2][(c >> 16) & 0xff] ^
           s->t[3][c >> 24];
}

__attribute__((target("sse4.2"))) static uint32_t crc_hw(uint32_t crc, const uint8_t *p, size_t n)
{
    uint32_t c = crc;
    for (size_t i = 0; i < NSHIFTS; i++) {
        const struct crc_shift *s = &shifts[i];
        const size_t len = s->len;
        while (n >= 3 * len) {
            uint64_t x = c, y = 0, z = 0;
            for (size_t o = 0; o < len; o += 8) {
                uint64_t u, v, w;
                memcpy(&u, p + o, 8);
                memcpy(&v, p + len + o, 8);
                memcpy(&w, p + 2 * len + o, 8);
                x = _mm_crc32_u64(x, u);
                y = _mm_crc32_u64(y, v);
                z = _mm_crc32_u64(z, w);
            }
            c = shift(s, shift(s, (uint32_t)x) ^ (uint32_t)y) ^ (uint32_t)z;
            p += 3 * len;
            n -= 3 * len;
        }
    }
    return crc_hw1(c, p, n);
}

static int hw_state; /* 0 unknown, 1 yes, -1 no */
static int have_hw(void)
{
    if (!hw_state) {
        __builtin_cpu_init();
        int ok = __builtin_cpu_supports("sse4.2");
        if (ok) { /* self-test against the table code, through every round size and a tail */
            pthread_once(&shifts_once, make_shifts);
            static uint8_t buf[3 * 4096 + 3 * 512 + 3 * 128 + 301];
            for (size_t i = 0; i < sizeof buf; i++)
                buf[i] = (uint8_t)(i * 37 + (i >> 3));
            for (size_t n = 0; n <= sizeof buf && ok; n += n < 400 ? 1 : 97)
                ok = crc_hw(~0u, buf, n) == crc_sw(~0u, buf, n) &&
                     crc_hw(0x1234567u, buf + 1, n ? n - 1 : 0) ==
                         crc_sw(0x1234567u, buf + 1, n ? n - 1 : 0);
            ok = ok && crc_hw(~0u, buf, sizeof buf) == crc_sw(~0u, buf, sizeof buf);
        }
        hw_state = ok ? 1 : -1;
    }
    return hw_state > 0;
}
#endif

int crc32c_hw_active(void)
{
#if defined(__x86_64__)
    return have_hw();
#else
    return 0;
#endif
}

uint32_t crc32c_update(uint32_t crc, const uint8_t *p, size_t n)
{
#if defined(__x86_64__)
    if (have_hw())
        return crc_hw(crc, p, n);
#endif
    return crc_sw(crc, p, n);
}

uint32_t sctpn_packet_crc(const uint8_t *pkt, size_t len)
{
    static const uint8_t zero[4];
    if (len < SCTP_COMMON_HDR)
        return 0;
    uint32_t c = ~0u;
    c = crc32c_update(c, pkt, 8);
    c = crc32c_update(c, zero, 4);
    c = crc32c_update(c, pkt + 12, len - 12);
    return ~c; /* stored little-endian on the wire: see set_crc */
}

void sctpn_packet_set_crc(uint8_t *pkt, size_t len)
{
    if (len < SCTP_COMMON_HDR)
        return;
    uint32_t c = sctpn_packet_crc(pkt, len);
    pkt[8] = (uint8_t)c;
    pkt[9] = (uint8_t)(c >> 8);
    pkt[10] = (uint8_t)(c >> 16);
    pkt[11] = (uint8_t)(c >> 24);
}

int crc_ok(const uint8_t *pkt, size_t len);
int crc_ok(const uint8_t *pkt, size_t len)
{
    uint32_t c = sctpn_packet_crc(pkt, len);
    return pkt[8] == (uint8_t)c && pkt[9] == (uint8_t)(c >> 8) && pkt[10] == (uint8_t)(c >> 16) &&
           pkt[11] == (uint8_t)(c >> 24);
}
