/* transport.h — the one small function table every transport implements (tcp, sctp, ...).
 *
 * A transport moves opaque frames between ranks.  It knows peers by rank and a "lane" number
 * the engine picks for each frame (SCTP maps lanes to streams; TCP ignores them).  It knows
 * nothing of MPI tags, matching or protocols: those live in the engine (src/engine/).
 *
 * Frames are the engine's wire frames (src/engine/wire.h): a fixed header followed by
 * hdr.payload_len bytes.  A transport reads the header only to learn the frame length (and may
 * refuse a length above SM_WIRE_MAX_PAYLOAD or its own max_payload: it cannot delimit or hold
 * such a frame) and, for the one exception below, whether the frame is DATA.  Every other check
 * of a frame (version, type, fields) is the engine's: a transport hands every frame up.
 *
 * Receive path: for every complete frame header the transport calls up->frame_begin(); the
 * engine returns where the payload should be placed (e.g. straight into the user's receive
 * buffer) or NULL, in which case the transport keeps the payload in its own memory.  When the
 * whole payload is in place it calls up->frame_end() with a pointer to it.  Between the two
 * calls for one peer the transport makes no other upcall for that peer (any lane), with one
 * exception: a transport with several rails may deliver frames of other rails while a DATA
 * frame is between its two calls (the engine finds a DATA frame's receive again from the
 * header in frame_end); every other frame type is still begun and ended with no upcall between.
 *
 * Send path: send() takes an iovec whose first element is the frame header (copied by the
 * transport if it has to keep it: the engine builds headers on its stack) and whose other
 * elements may point into user memory.  It returns 0 when every
 * byte has been handed to the kernel/stack (the iovec memory is free again), 1 when some bytes
 * are still referenced (then up->send_done(cookie) is called once they are not), or a negative
 * MPI error class on failure. Frames to one peer on one lane are delivered in send order.
 *
 * Rails (optional entry rails()): a transport may reach a peer over several independent paths
 * ("rails", e.g. one TCP connection per network interface).  rails(t, peer, load, max)
 * returns how many (>= 1) and fills load[r] for the first max of them (struct sm_rail_load).
 * While a rail's `queued` is not 0 the transport keeps writing it out and calls send_done as
 * frames leave, so an engine waiting for a rail to drain is woken.  When rails() returns
 * R > 1, the engine names the rail in the lane argument of send():
 * lane = SM_LANE(rail, lane_within_rail), rail < R.  Frames to one peer with the same lane
 * value (rail and lane) are delivered in send order; frames on different rails in any order.
 * A transport without the entry (NULL) or returning 1 never sees rail bits.
 *
 * Threads: every upcall happens on the caller's thread inside progress(), never inside send()
 * and never from a thread of the transport's own (queue and hand over in progress()), with one
 * exception: rma_frame (below).
 *
 * One-sided traffic (src/engine/rma_channel.h, docs/design.md "RMA channel"): SM_F_RMA frames
 * travel on lanes of their own, numbered after the point-to-point ones: lane lanes(t) + i for
 * RMA lane i < rma_lanes(t) (no entry: one RMA lane; a transport that ignores lanes needs no
 * entry).  A transport with rma_frame set hands a whole SM_F_RMA frame to rma_frame instead of
 * frame_begin/frame_end, from progress() or from a thread of its own (strong progress: while the
 * application computes), always holding its lock (entries lock/unlock, recursive; the engine's
 * RMA channel takes the same lock).  rma_frame may call send() on the same thread.  A NULL
 * cookie asks send() to copy what it cannot write at once: it then returns 0 or an error. */
#ifndef SCTPMPI_TRANSPORT_H
#define SCTPMPI_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct sm_frame_hdr;

#define SM_RAIL_SHIFT 16
#define SM_LANE(rail, lane) (((rail) << SM_RAIL_SHIFT) | (lane))
#define SM_LANE_RAIL(v) ((v) >> SM_RAIL_SHIFT)
#define SM_LANE_INDEX(v) ((v) & ((1 << SM_RAIL_SHIFT) - 1))

struct sm_rail_load {
    size_t queued;  /* bytes given to send() for this rail that the transport still holds */
    size_t unacked; /* bytes the kernel/stack holds for it, not yet acknowledged (0: unknown) */
};

/* calls from a transport into the engine */
struct sm_upcalls {
    void *ctx;
    void *(*frame_begin)(void *ctx, int peer, const struct sm_frame_hdr *h);
    void (*frame_end)(void *ctx, int peer, const struct sm_frame_hdr *h, void *payload);
    void (*send_done)(void *ctx, void *cookie);
    /* the connection/association to peer is gone for good (error, abort, rogue close) */
    void (*peer_failed)(void *ctx, int peer, const char *why);
    /* a whole SM_F_RMA frame (see "One-sided traffic" above); NULL: frame_begin/frame_end */
    void (*rma_frame)(void *ctx, int peer, const struct sm_frame_hdr *h, const void *payload);
    /* ---- processes of other jobs (see "Other jobs' processes" above) ---- */
    /* the peer index of process `rank` of job `job` (added when new); < 0 if refused */
    int (*peer_lookup)(void *ctx, uint32_t job, int rank);
};

struct sm_transport_args {
    int rank, size;
    const char *secret;       /* per-job secret (hex), checked on every new connection */
    const char *const *addrs; /* local addresses to bind (NULL: transport default) */
    int naddrs;
    int local_ranks; /* ranks on this host (for spin/oversubscription choices) */
    const struct sm_upcalls *up;
    uint32_t job_id; /* this job's universe identity (hellos to other jobs' processes) */
};

/* The engine's handle on a transport's endpoint: never defined; each transport converts it to
 * its own object (struct sm_tcp, struct nt_transport, struct usct_transport) on entry. */
struct sm_transport;

struct sm_transport_ops {
    const char *name;
    /* create the endpoint; write a NUL-terminated business card (addresses, ports) into card */
    int (*init)(const struct sm_transport_args *a, struct sm_transport **t, char *card,
                size_t cardlen);
    /* learn every rank's business card (after the PMI exchange); connections stay lazy */
    int (*set_peers)(struct sm_transport *t, const char *const *cards);
    /* number of lanes the engine may use (>= 1); lane 0 is the control lane */
    int (*lanes)(struct sm_transport *t);
    /* largest payload the engine may put in one frame (caps eager size and data segments) */
    size_t (*max_payload)(struct sm_transport *t);
    int (*send)(struct sm_transport *t, int peer, int lane, const struct iovec *iov, int iovcnt,
                void *cookie);
    /* drain arrivals and push queued sends; wait up to timeout_us (0: poll, <0: forever)
     * when nothing is ready.  Returns the number of events handled, or < 0 on fatal error. */
    int (*progress)(struct sm_transport *t, long timeout_us);
    /* true while sends are queued inside the transport (MPI_Finalize drains them) */
    int (*busy)(struct sm_transport *t);
    /* human-readable state of the path to peer (addresses, state), for errors and stats */
    int (*peer_info)(struct sm_transport *t, int peer, char *buf, size_t len);
    /* print statistics (SCTPMPI_STATS=1) to the given stream */
    void (*stats)(struct sm_transport *t, void *file);
    int (*finalize)(struct sm_transport *t);
    /* optional (NULL = one rail): rails to peer and the bytes still held per rail (see above) */
    int (*rails)(struct sm_transport *t, int peer, struct sm_rail_load *load, int max);
    /* ---- one-sided traffic (optional; see "One-sided traffic" above) ---- */
    /* lanes reserved for SM_F_RMA frames after the lanes() point-to-point ones (NULL: 1) */
    int (*rma_lanes)(struct sm_transport *t);
    /* the lock held around every rma_frame upcall (recursive; NULL: the engine's own) */
    void (*lock)(struct sm_transport *t);
    void (*unlock)(struct sm_transport *t);
    /* called once, when the process opens its first window: a transport whose strong progress
     * needs a thread only for one-sided traffic starts it here, so that programs without
     * windows never pay for its wake-ups (NULL: nothing to start) */
    void (*rma_open)(struct sm_transport *t);
    /* ---- processes of other jobs (optional; NULL: this transport reaches one job only) ---- */
    /* peer index `peer` (>= the job size, added in increasing order; again with the card
     * once it is known) is process `rank` of job `job`, whose processes admit a hello that
     * presents `secret`; card NULL: not known yet (the peer reached us first) */
    int (*add_peer)(struct sm_transport *t, int peer, uint32_t job, int rank, const char *card,
                    const char *secret);
};

extern const struct sm_transport_ops sm_transport_tcp;
extern const struct sm_transport_ops sm_transport_usrsctp;

/* look a transport up by name ("tcp", "sctp"); NULL when unknown or not built */
const struct sm_transport_ops *sm_transport_find(const char *name);

#endif
