/* sim_proto.h — the messages between a rank's "sim" transport (src/transport/sim/) and the
 * network simulator (tools/simnet/) over one Unix stream socket per rank.  Every message is a
 * struct sim_msg followed by len bytes.  Times are virtual nanoseconds since the job started.
 *
 * rank -> simulator:
 *   HELLO     peer = rank, arg = size                      (first message; answered by CONFIG)
 *   SEND      vt, peer, lane, bytes = one engine frame, arg = token (0: none) (no answer);
 *             with a token the simulator answers SENT once the peer acknowledged every byte
 *   PROGRESS  vt, arg = timeout ns (0: poll, < 0: forever) (answered by DELIVERs + one WAKE)
 *   BYE       vt                                           (last message)
 * simulator -> rank:
 *   CONFIG    peer = point-to-point lanes, lane = RMA lanes, arg = largest frame payload
 *   DELIVER   peer, lane, bytes = one engine frame from peer
 *   FAILED    peer: the association to peer is gone for good
 *   WAKE      vt = the rank's virtual time on return from progress, arg = frames delivered
 *   SENT      arg = the token of a SEND whose bytes the peer has all acknowledged */
#ifndef SCTPMPI_SIM_PROTO_H
#define SCTPMPI_SIM_PROTO_H

#include <stdint.h>

enum sim_msg_type {
    SIM_HELLO = 1,
    SIM_SEND,
    SIM_PROGRESS,
    SIM_BYE,
    SIM_CONFIG,
    SIM_DELIVER,
    SIM_FAILED,
    SIM_WAKE,
    SIM_SENT,
};

struct sim_msg {
    uint32_t type;
    uint32_t len; /* bytes following this header */
    int32_t peer;
    uint32_t lane;
    uint64_t vt_ns;
    int64_t arg;
};

#define SIM_MSG_MAX_LEN (64u << 20) /* larger messages are a protocol error */

#endif
