/* siphash.c — SipHash-2-4 (Aumasson & Bernstein) and the 128-bit MAC of the state cookie built
 * from it (two SipHash-2-4 runs under the two halves of the endpoint's 32-byte secret). */
#include "sctpn_internal.h"

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))
#define SIPROUND                                                                                 \
    do {                                                                                         \
        v0 += v1;                                                                                \
        v1 = ROTL(v1, 13);                                                                       \
        v1 ^= v0;                                                                                \
        v0 = ROTL(v0, 32);                                                                       \
        v2 += v3;                                                                                \
        v3 = ROTL(v3, 16);                                                                       \
        v3 ^= v2;                                                                                \
        v0 += v3;                                                                                \
        v3 = ROTL(v3, 21);                                                                       \
        v3 ^= v0;                                                                                \
        v2 += v1;                                                                                \
        v1 = ROTL(v1, 17);                                                                       \
        v1 ^= v2;                                                                                \
        v2 = ROTL(v2, 32);                                                                       \
    } while (0)

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

uint64_t siphash24(const uint8_t key[16], const void *data, size_t len)
{
    const uint8_t *in = data;
    uint64_t k0 = le64(key), k1 = le64(key + 8);
    uint64_t v0 = 0x736f6d6570736575ull ^ k0, v1 = 0x646f72616e646f6dull ^ k1;
    uint64_t v2 = 0x6c7967656e657261ull ^ k0, v3 = 0x7465646279746573ull ^ k1;
    uint64_t b = (uint64_t)len << 56;
    size_t n = len & ~(size_t)7;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t m = le64(in + i);
        v3 ^= m;
        SIPROUND;
        SIPROUND;
        v0 ^= m;
    }
    for (size_t i = 0; i < (len & 7); i++)
        b |= (uint64_t)in[n + i] << (8 * i);
    v3 ^= b;
    SIPROUND;
    SIPROUND;
    v0 ^= b;
    v2 ^= 0xff;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    SIPROUND;
    return v0 ^ v1 ^ v2 ^ v3;
}

void cookie_mac(const uint8_t key[32], const void *data, size_t len, uint8_t out[16])
{
    st64(out, siphash24(key, data, len));
    st64(out + 8, siphash24(key + 16, data, len));
}
