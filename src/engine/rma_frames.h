/* rma_frames.h — the engine's side of the RMA channel (rma_channel.c) that the rest of the
 * engine calls: SM_F_RMA frames in (from frame_end, the self path, or the transport's rma_frame
 * upcall on any thread) and lost peers. */
#ifndef SCTPMPI_RMA_FRAMES_H
#define SCTPMPI_RMA_FRAMES_H

#include "engine/wire.h"

/* an SM_F_RMA frame from world rank peer: validated, then handed to the receiver with the
 * channel lock held (callable from the transport's own thread: touches no other engine state) */
void sm_rma_frame_in(int peer, const struct sm_frame_hdr *h, const void *payload);
/* the transport's rma_frame upcall (transport.h) */
void sm_up_rma_frame(void *ctx, int peer, const struct sm_frame_hdr *h, const void *payload);
/* the connection to peer is lost for good: tell the receiver */
void sm_rma_peer_failed(int peer, const char *why);

#endif
