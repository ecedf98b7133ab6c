/* txq.h — a frame a transport holds because its kernel or SCTP stack has no room for it yet,
 * and the FIFO such frames wait in (one per peer and lane, so a lane keeps its order).
 *
 * An item either references the caller's memory and keeps its cookie (send() then returns 1
 * and send_done(cookie) follows once the frame has left) or owns a copy of the whole frame
 * (send() returns 0: the caller's memory is free at once).  It copies when there is no cookie,
 * when the frame is at most copy_max bytes, or when it has more pieces than an item holds; the
 * header (iov[0], built on the engine's stack) is always copied. */
#ifndef SCTPMPI_TXQ_H
#define SCTPMPI_TXQ_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "engine/wire.h"

#define SM_TXQ_IOV 8 /* pieces an item references */

struct sm_txq_item {
    struct sm_txq_item *next;
    struct iovec iov[SM_TXQ_IOV]; /* the frame: iov[0] points at hdr or into owned */
    int iovcnt;
    size_t len;           /* bytes of the frame */
    void *cookie;         /* the engine's cookie; NULL when owned holds a copy */
    unsigned char *owned; /* our copy of the frame, or NULL */
    unsigned char hdr[sizeof(struct sm_frame_hdr)];
    uint32_t stream, ppid; /* the transport's own use (where the frame goes) */
};

struct sm_txq {
    struct sm_txq_item *head, *tail;
};

/* the frame iov[0..iovcnt) as a queued item (see above); NULL when out of memory */
struct sm_txq_item *sm_txq_item_new(const struct iovec *iov, int iovcnt, void *cookie,
                                    size_t copy_max);
void sm_txq_item_free(struct sm_txq_item *it);

static inline void sm_txq_push(struct sm_txq *q, struct sm_txq_item *it)
{
    it->next = NULL;
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
}

/* bytes of the frame iov[0..n) */
static inline size_t sm_iov_len(const struct iovec *iov, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        s += iov[i].iov_len;
    return s;
}

/* takes the first item off (NULL when empty) */
static inline struct sm_txq_item *sm_txq_pop(struct sm_txq *q)
{
    struct sm_txq_item *it = q->head;
    if (it) {
        q->head = it->next;
        if (!q->head)
            q->tail = NULL;
        it->next = NULL;
    }
    return it;
}

#endif
