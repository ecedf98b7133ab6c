/* rma_channel.c — the RMA channel (engine/rma_channel.h): SM_F_RMA frames on the lanes a
 * transport reserves for one-sided traffic, the one registered receiver, the channel lock, and
 * the self path for segments a rank sends to itself.
 *
 * Threads: the receiver runs on the application thread (inside progress) or on the transport's
 * own progress thread (strong progress, transport.h "One-sided traffic"), always with the
 * channel lock held.  The channel lock is the transport's lock when it has one (so its thread and
 * the application exclude each other), else a recursive mutex of ours.  Everything here that
 * both threads touch (the receiver, the self queue) is guarded by that lock; sends read only
 * engine state that is fixed after start-up (rank, transport, lane counts) and a peer's failed
 * flag. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "engine/rma_channel.h"
#include "engine/rma_frames.h"

static struct sm_rma_receiver rx_cur;
static int rx_on;

/* the fallback lock (no transport lock: singleton, or a transport without the entries) */
static pthread_mutex_t own_lock;
static pthread_once_t own_once = PTHREAD_ONCE_INIT;

static void own_lock_init(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&own_lock, &a);
    pthread_mutexattr_destroy(&a);
}

static int tp_locks(void)
{
    return sm_eng.tp && sm_eng.tp_ops->lock && sm_eng.tp_ops->unlock;
}

void sm_rma_chan_lock(void)
{
    if (tp_locks()) {
        sm_eng.tp_ops->lock(sm_eng.tp);
        return;
    }
    pthread_once(&own_once, own_lock_init);
    pthread_mutex_lock(&own_lock);
}

void sm_rma_chan_unlock(void)
{
    if (tp_locks()) {
        sm_eng.tp_ops->unlock(sm_eng.tp);
        return;
    }
    pthread_mutex_unlock(&own_lock);
}

/* ---- the self path: segments to this rank wait here (under the lock) for progress ---- */
struct self_seg {
    struct self_seg *next;
    size_t len;
    unsigned char data[];
};
static struct self_seg *self_head, *self_tail;

static int self_progress(void)
{
    int n = 0;
    sm_rma_chan_lock();
    while (self_head) {
        struct self_seg *s = self_head;
        self_head = s->next;
        if (!self_head)
            self_tail = NULL;
        struct sm_frame_hdr h;
        sm_frame_init(&h, SM_F_RMA);
        h.payload_len = (uint32_t)s->len;
        sm_rma_frame_in(sm_eng.rank, &h, s->data);
        free(s);
        n++;
    }
    sm_rma_chan_unlock();
    return n;
}

static int send_self(const struct iovec *iov, int iovcnt, size_t len)
{
    struct self_seg *s = malloc(sizeof *s + len);
    if (!s)
        return MPI_ERR_NO_MEM;
    s->next = NULL;
    s->len = len;
    size_t at = 0;
    for (int i = 0; i < iovcnt; i++) {
        if (iov[i].iov_len)
            memcpy(s->data + at, iov[i].iov_base, iov[i].iov_len);
        at += iov[i].iov_len;
    }
    sm_rma_chan_lock();
    if (self_tail)
        self_tail->next = s;
    else
        self_head = s;
    self_tail = s;
    sm_rma_chan_unlock();
    return MPI_SUCCESS;
}

int sm_rma_chan_open(const struct sm_rma_receiver *rx)
{
    sm_rma_chan_lock();
    if (rx && rx->segment) {
        rx_cur = *rx;
        rx_on = 1;
        sm_progress_hook_add(self_progress); /* once; segments a rank sends to itself */
        if (sm_eng.tp && sm_eng.tp_ops->rma_open)
            sm_eng.tp_ops->rma_open(sm_eng.tp);
    } else {
        memset(&rx_cur, 0, sizeof rx_cur);
        rx_on = 0;
    }
    sm_rma_chan_unlock();
    return MPI_SUCCESS;
}

void sm_rma_chan_close(void)
{
    sm_rma_chan_open(NULL);
}

unsigned sm_rma_chan_lanes(void)
{
    if (!sm_eng.tp || !sm_eng.tp_ops->rma_lanes)
        return 1;
    int n = sm_eng.tp_ops->rma_lanes(sm_eng.tp);
    return n < 1 ? 1u : (unsigned)n;
}

/* a singleton has no transport: its segments only go to itself */
#define SELF_MAX_SEGMENT (256u << 10)

size_t sm_rma_chan_max_segment(void)
{
    size_t m = sm_eng.tp ? sm_eng.tp_ops->max_payload(sm_eng.tp) : SELF_MAX_SEGMENT;
    return m > SM_WIRE_MAX_PAYLOAD ? SM_WIRE_MAX_PAYLOAD : m;
}

int sm_rma_chan_sendv(int peer, unsigned lane, const struct iovec *iov, int iovcnt, size_t len)
{
    enum { MAXV = 2 }; /* with the frame header, the transports take three pieces */
    size_t sum = 0;
    for (int i = 0; i < iovcnt && i < MAXV; i++) {
        if (iov[i].iov_len && !iov[i].iov_base)
            return MPI_ERR_ARG;
        sum += iov[i].iov_len;
    }
    if (peer < 0 || peer >= sm_eng.npeers)
        return MPI_ERR_RANK;
    if (lane >= sm_rma_chan_lanes() || len > sm_rma_chan_max_segment() || iovcnt < 0 ||
        iovcnt > MAXV || sum != len)
        return MPI_ERR_ARG;
    if (peer == sm_eng.rank)
        return send_self(iov, iovcnt, len);
    if (sm_eng.peers[peer].failed)
        return MPI_ERR_PROC_FAILED;
    struct sm_frame_hdr h;
    sm_frame_init(&h, SM_F_RMA);
    h.payload_len = (uint32_t)len;
    struct iovec v[1 + MAXV];
    int n = 1;
    v[0].iov_base = &h;
    v[0].iov_len = sizeof h;
    for (int i = 0; i < iovcnt; i++)
        if (iov[i].iov_len)
            v[n++] = iov[i];
    int tlane = sm_eng.lanes + (int)lane;
    /* NULL cookie: the transport copies what it cannot write now (transport.h), so the caller's
     * memory is free on return and no send_done ever names this frame */
    sm_rma_chan_lock();
    int rc = sm_eng.tp_ops->send(sm_eng.tp, peer, tlane, v, n, NULL);
    sm_rma_chan_unlock();
    if (rc < 0)
        return -rc;
    if (rc > 0)
        sm_die("transport %s kept a reference to an uncookied RMA frame", sm_eng.tp_ops->name);
    return MPI_SUCCESS;
}

int sm_rma_chan_send(int peer, unsigned lane, const void *seg, size_t len)
{
    if (len && !seg)
        return MPI_ERR_ARG;
    struct iovec v = { (void *)seg, len };
    return sm_rma_chan_sendv(peer, lane, &v, len ? 1 : 0, len);
}

int sm_rma_chan_wait_step(uint64_t *since_ns)
{
    /* the engine's waiting policy, blocking at most 200 µs at a time */
    return sm_wait_step(since_ns, 200) < 0 ? MPI_ERR_OTHER : MPI_SUCCESS;
}

int sm_rma_chan_progress(long timeout_us)
{
    int n = sm_progress_poll();
    if (n == 0 && timeout_us != 0 && sm_eng.tp) {
        if (sm_eng.tp_ops->progress(sm_eng.tp, timeout_us) < 0)
            return MPI_ERR_OTHER;
        sm_progress_poll();
    }
    return MPI_SUCCESS;
}

/* ---- arrivals ---- */
void sm_rma_frame_in(int peer, const struct sm_frame_hdr *h, const void *payload)
{
    if (peer < 0 || peer >= sm_eng.npeers || h->type != SM_F_RMA) {
        SM_WARN("dropping a malformed RMA frame from rank %d", peer);
        return;
    }
    if (h->payload_len > sm_rma_chan_max_segment() || (h->payload_len && !payload)) {
        SM_WARN("dropping an RMA frame of %u bytes from rank %d (largest segment %zu)",
                h->payload_len, peer, sm_rma_chan_max_segment());
        return;
    }
    sm_rma_chan_lock();
    if (rx_on)
        rx_cur.segment(rx_cur.ctx, peer, payload, h->payload_len);
    else
        SM_ERR("dropping an RMA segment of %u bytes from rank %d: no one-sided receiver is "
               "registered",
               h->payload_len, peer);
    sm_rma_chan_unlock();
}

void sm_up_rma_frame(void *ctx, int peer, const struct sm_frame_hdr *h, const void *payload)
{
    (void)ctx;
    sm_rma_frame_in(peer, h, payload);
}

void sm_rma_peer_failed(int peer, const char *why)
{
    sm_rma_chan_lock();
    if (rx_on && rx_cur.peer_failed)
        rx_cur.peer_failed(rx_cur.ctx, peer, why);
    sm_rma_chan_unlock();
}
