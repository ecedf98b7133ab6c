/* rma_channel.h — the path one-sided communication takes between ranks.
 *
 * The one-sided layer (src/osc/) speaks the RDMA protocol of src/rdma/ to each peer.  Its
 * segments travel as their own engine frame type (SM_F_RMA) on lanes reserved for them, so
 * point-to-point frames never wait behind RMA frames on one SCTP stream and the other way round.
 * The channel knows nothing of windows or MPI: it moves opaque segments of at most
 * sm_rma_chan_max_segment() bytes, reliably, and in order per (peer, lane).
 *
 * Receive side: every arriving segment is handed to the one registered receiver.  That happens
 * inside the engine's progress on the application thread, or, while the application is busy
 * outside MPI, on the transport's progress thread (strong progress: a passive-target epoch
 * completes while the target computes).  Either way the receiver runs with the channel lock
 * held, and it must not call engine or API functions other than the ones in this header.
 *
 * The channel lock is recursive.  Every piece of one-sided state that the receiver touches is
 * guarded by it: the one-sided layer takes it around its own work on the application thread.
 * sm_rma_chan_send() may be called with or without it held.
 *
 * Sending copies the segment (or hands it to the transport, which copies or sends it before
 * returning): the caller's buffer is free again when the call returns.  Sends never block; the
 * transport queues what it cannot write yet. */
#ifndef SCTPMPI_RMA_CHANNEL_H
#define SCTPMPI_RMA_CHANNEL_H

#include <stddef.h>
#include <sys/uio.h>
#include <stdint.h>

struct sm_rma_receiver {
    void *ctx;
    /* one segment from world rank peer; seg is valid only during the call */
    void (*segment)(void *ctx, int peer, const void *seg, size_t len);
    /* the connection to peer is gone for good: fail everything that waits on it */
    void (*peer_failed)(void *ctx, int peer, const char *why);
};

/* Register the receiver (one per process; NULL unregisters).  Segments that arrive while no
 * receiver is registered are dropped with a logged error. */
int sm_rma_chan_open(const struct sm_rma_receiver *rx);
void sm_rma_chan_close(void);

/* lanes reserved for one-sided traffic (>= 1); sends name a lane in [0, lanes) */
unsigned sm_rma_chan_lanes(void);
/* largest segment the channel carries in one frame */
size_t sm_rma_chan_max_segment(void);

/* Send one segment to world rank peer on RMA lane `lane`.  Returns MPI_SUCCESS or an MPI error
 * class (the peer is unreachable, out of memory). */
int sm_rma_chan_send(int peer, unsigned lane, const void *seg, size_t len);
/* The same for a segment in iovcnt pieces (len bytes in all; at most 2 pieces, e.g. a header
 * and its payload), so bulk data goes from where it lies to the transport without a copy into
 * one buffer first. */
int sm_rma_chan_sendv(int peer, unsigned lane, const struct iovec *iov, int iovcnt, size_t len);

/* The channel lock (recursive).  Held during every receiver call. */
void sm_rma_chan_lock(void);
void sm_rma_chan_unlock(void);

/* One pass of the engine's progress on the application thread (waiting at most timeout_us;
 * 0 polls).  The one-sided layer calls it while it waits for remote completions; it must be
 * called without the channel lock held. */
int sm_rma_chan_progress(long timeout_us);

/* One step of a wait for a remote completion, with the engine's waiting policy: it polls while
 * within SCTPMPI_SPIN_US of *since_ns (0 on the first step: set to now) or of the last arrival,
 * then blocks briefly in the transport.  Called without the channel lock held. */
int sm_rma_chan_wait_step(uint64_t *since_ns);

#endif
