/* flowctl.c — eager flow control.  Each sender may have at most SCTPMPI_EAGER_CREDIT bytes
 * (payload + 64 per message) of eager data outstanding at each receiver; beyond that it sends
 * rendezvous requests, which carry no data.  The receiver returns credit in CREDIT frames once
 * a quarter of the window has been consumed by matching.  So a flood of unexpected messages
 * costs the receiver at most the window in data per sender, plus a small header per message. */
#include "engine/engine_internal.h"

int sm_credit_take(int peer, uint32_t bytes)
{
    struct sm_peer *p = &sm_eng.peers[peer];
    if (p->credit < (int64_t)bytes)
        return 0;
    p->credit -= bytes;
    return 1;
}

void sm_credit_consumed(int peer, uint32_t bytes)
{
    struct sm_peer *p = &sm_eng.peers[peer];
    p->credit_owed += bytes;
    if (p->credit_owed >= sm_eng.credit_window / 4 && !p->failed) {
        struct sm_frame_hdr h;
        sm_frame_init(&h, SM_F_CREDIT);
        h.size = (uint64_t)p->credit_owed;
        p->credit_owed = 0;
        sm_frame_send(peer, 0, &h, NULL, 0, NULL);
    }
}

void sm_credit_returned(int peer, uint64_t bytes)
{
    struct sm_peer *p = &sm_eng.peers[peer];
    p->credit += (int64_t)bytes;
    if (p->credit > sm_eng.credit_window) {
        SM_WARN("rank %d returned more eager credit than it was given; ignoring the excess",
                peer);
        p->credit = sm_eng.credit_window;
    }
}
