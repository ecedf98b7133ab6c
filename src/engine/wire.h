/* wire.h — the engine's frame format (version 1), shared by every transport.
 *
 * Every frame is a 48-byte header in host byte order (all ranks of a job run the same build on
 * the same architecture; docs/design.md says so) followed by payload_len bytes.  Transports read
 * only `payload_len` (to delimit frames on a byte stream); everything else is the engine's.
 * docs/design.md describes every type and field. */
#ifndef SCTPMPI_WIRE_H
#define SCTPMPI_WIRE_H

#include <stdint.h>

#define SM_WIRE_VERSION 1
#define SM_WIRE_MAX_PAYLOAD (64u << 20) /* larger frames are malformed */

enum sm_frame_type {
    SM_F_EAGER = 1,      /* message data in one frame: tag, context, seq, size = payload_len */
    SM_F_RTS = 2,        /* rendezvous request: tag, context, seq, size, sreq */
    SM_F_CTS = 3,        /* clear to send: sreq, rreq (0 = receiver truncates to nothing) */
    SM_F_DATA = 4,       /* rendezvous data segment: rreq, offset, payload */
    SM_F_SYNC_ACK = 5,   /* a synchronous eager send was matched: sreq */
    SM_F_CANCEL_REQ = 6, /* sender asks to cancel message (context, seq): sreq */
    SM_F_CANCEL_ACK = 7, /* answer: sreq, flags SM_FL_CANCELLED if removed */
    SM_F_CREDIT = 8,     /* eager flow-control credit returned: size = bytes */
    SM_F_RMA = 9,        /* one-sided traffic: payload = one segment of the RDMA protocol
                           * (engine/rma_channel.h), on the RMA lanes */
    SM_F_TYPE_MAX = 9
};

enum sm_frame_flags {
    SM_FL_SYNC = 1,      /* EAGER: sender wants SYNC_ACK when matched */
    SM_FL_CANCELLED = 2, /* CANCEL_ACK: message removed */
    SM_FL_CREDITED = 4,  /* EAGER: counted against the receiver's eager credit */
    SM_FL_RELAXED = 8,   /* EAGER, RTS: match without the ordering rule (the sender's
                           * communicator asserted allow_overtaking or no_any_tag) */
};

struct sm_frame_hdr {
    uint8_t version;      /* SM_WIRE_VERSION */
    uint8_t type;         /* enum sm_frame_type */
    uint16_t flags;       /* enum sm_frame_flags */
    uint32_t payload_len; /* bytes following the header */
    int32_t src;          /* sender's rank in MPI_COMM_WORLD */
    int32_t tag;          /* MPI tag (EAGER, RTS) */
    uint32_t context;     /* communicator context id (EAGER, RTS, CANCEL_REQ) */
    uint32_t seq;         /* per (sender, receiver, context) sequence number */
    uint64_t size;        /* EAGER/RTS: message bytes; DATA: offset; CREDIT: bytes */
    uint64_t sreq;        /* sender's request id */
    uint64_t rreq;        /* receiver's request id (CTS, DATA) */
};

_Static_assert(sizeof(struct sm_frame_hdr) == 48, "wire header must be 48 bytes");

#endif
