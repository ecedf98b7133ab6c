/* sctpn_wire.h — SCTP wire format (RFC 9260 section 3, RFC 8260, RFC 7053, RFC 9653):
 * chunk/parameter/cause numbers, big-endian load/store helpers, and the bounds-checked packet
 * view produced by the parser in codec.c. */
#ifndef SCTPN_WIRE_H
#define SCTPN_WIRE_H

#include <stddef.h>
#include <stdint.h>

enum {
    CT_DATA = 0,
    CT_INIT = 1,
    CT_INIT_ACK = 2,
    CT_SACK = 3,
    CT_HEARTBEAT = 4,
    CT_HEARTBEAT_ACK = 5,
    CT_ABORT = 6,
    CT_SHUTDOWN = 7,
    CT_SHUTDOWN_ACK = 8,
    CT_ERROR = 9,
    CT_COOKIE_ECHO = 10,
    CT_COOKIE_ACK = 11,
    CT_SHUTDOWN_COMPLETE = 14,
    CT_I_DATA = 64,
    CT_FORWARD_TSN = 192,
    CT_I_FORWARD_TSN = 194,
};
/* DATA / I-DATA chunk flags */
enum { DF_E = 1, DF_B = 2, DF_U = 4, DF_I = 8 };
/* ABORT / SHUTDOWN-COMPLETE flag: verification tag reflected */
enum { F_T = 1 };

enum {
    PT_HEARTBEAT_INFO = 1,
    PT_IPV4 = 5,
    PT_IPV6 = 6,
    PT_COOKIE = 7,
    PT_UNRECOGNIZED = 8,
    PT_COOKIE_PRESERVATIVE = 9,
    PT_HOSTNAME = 11,
    PT_ADDR_TYPES = 12,
    PT_ZERO_CHECKSUM = 0x8001,
    PT_SUPPORTED_EXT = 0x8008,
    PT_FORWARD_TSN_SUPPORTED = 0xc000,
};
enum {
    EC_INVALID_STREAM = 1,
    EC_MISSING_PARAM = 2,
    EC_STALE_COOKIE = 3,
    EC_NO_RESOURCES = 4,
    EC_UNRESOLVABLE_ADDR = 5,
    EC_UNRECOGNIZED_CHUNK = 6,
    EC_INVALID_PARAM = 7,
    EC_UNRECOGNIZED_PARAMS = 8,
    EC_NO_USER_DATA = 9,
    EC_COOKIE_IN_SHUTDOWN = 10,
    EC_RESTART_NEW_ADDRS = 11,
    EC_USER_ABORT = 12,
    EC_PROTOCOL_VIOLATION = 13,
};

#define SCTP_COMMON_HDR 12
#define CHUNK_HDR 4
#define DATA_HDR 16  /* chunk header + TSN + stream + SSN + PPID */
#define IDATA_HDR 20 /* chunk header + TSN + stream + reserved + MID + PPID/FSN */

static inline uint16_t ld16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}
static inline uint32_t ld32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static inline uint64_t ld64(const uint8_t *p)
{
    return (uint64_t)ld32(p) << 32 | ld32(p + 4);
}
static inline void st16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}
static inline void st32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}
static inline void st64(uint8_t *p, uint64_t v)
{
    st32(p, (uint32_t)(v >> 32));
    st32(p + 4, (uint32_t)v);
}
static inline size_t pad4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

/* a chunk inside a received packet: value = bytes after the 4-byte chunk header */
struct sctpn_chunk {
    uint8_t type, flags;
    uint16_t len; /* chunk length field (header included, padding excluded) */
    const uint8_t *val;
    size_t vlen; /* len - 4 */
};
/* a validated packet: the chunks are walked again with pkt_next (no limit on their number) */
struct sctpn_pkt {
    uint16_t src_port, dst_port;
    uint32_t vtag;
    int nchunks;
    struct sctpn_chunk first;
    const uint8_t *base;
    size_t len;
};
/* parse and bounds-check a whole packet (CRC checked separately); 0 or SCTPN_EMALFORMED */
int pkt_parse(const uint8_t *pkt, size_t len, struct sctpn_pkt *out);
/* the chunk at *off (start with PKT_FIRST_CHUNK) of a packet pkt_parse accepted: 1 and advance,
 * 0 at the end */
#define PKT_FIRST_CHUNK SCTP_COMMON_HDR
int pkt_next(const struct sctpn_pkt *pk, size_t *off, struct sctpn_chunk *c);
/* minimal value length each known chunk type must have (0 for unknown types) */
size_t chunk_min_len(uint8_t type);

/* TLV parameter walker (INIT/INIT-ACK parameters, error causes) */
struct tlv_iter {
    const uint8_t *p;
    size_t left;
};
/* next parameter: 1 with type/value/len, 0 at the end, -1 on a malformed list */
int tlv_next(struct tlv_iter *it, uint16_t *type, const uint8_t **val, size_t *vlen);

/* chunk/parameter builders: write at p (room bytes available), return bytes written incl.
 * padding, or 0 if it does not fit */
size_t put_chunk_hdr(uint8_t *p, size_t room, uint8_t type, uint8_t flags, size_t vlen);
size_t put_param(uint8_t *p, size_t room, uint16_t type, const void *val, size_t vlen);
size_t put_common_hdr(uint8_t *p, uint16_t src, uint16_t dst, uint32_t vtag);

uint32_t crc32c_update(uint32_t crc, const uint8_t *p, size_t n);
int crc32c_hw_active(void); /* 1: the SSE4.2 instruction (passed its self-test), 0: tables */

#endif
