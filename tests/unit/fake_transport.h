/* fake_transport.h — a transport that records the frames the engine sends, for unit tests. */
#ifndef FAKE_TRANSPORT_H
#define FAKE_TRANSPORT_H
#include "engine/engine_internal.h"

struct sent_frame { int peer, lane; struct sm_frame_hdr h; size_t len; };
extern struct sent_frame fake_sent[4096];
extern int fake_nsent;
extern const struct sm_transport_ops fake_ops;
/* set the engine up as rank 0 of size ranks, with the fake transport */
void fake_engine(int size, size_t eager_limit, int64_t credit_window);
void fake_engine_stop(void);
/* count recorded frames of a type sent to peer (-1: any) */
int fake_count(int type, int peer);
/* deliver one frame from src as a transport would: frame_begin, copy the payload to where the
 * engine asked (or keep it staged), frame_end */
void fake_feed(int src, int type, int tag, uint32_t seq, const void *payload, uint32_t len,
               uint16_t flags, uint64_t size_field, uint64_t sreq, uint64_t rreq);
/* an eager message from src whose payload is one int: the sequence number, so receives can
 * tell which message they got */
void fake_eager(int src, int tag, uint32_t seq);
#endif
