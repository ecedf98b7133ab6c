/* frames.c — building frames and handing them to the transport, the lane and rail choice for
 * (context, tag), the rail choice for striped rendezvous segments, and the self path (a rank
 * sending to itself never touches the transport). */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

struct self_frame {
    struct sm_list link;
    struct sm_frame_hdr h;
    unsigned char payload[];
};

void sm_frame_init(struct sm_frame_hdr *h, int type)
{
    memset(h, 0, sizeof *h);
    h->version = SM_WIRE_VERSION;
    h->type = (uint8_t)type;
    h->src = sm_eng.rank;
}

/* rails to peer (transport.h): 1 unless the transport has several; load may be NULL */
int sm_rails(int peer, struct sm_rail_load *load, int max)
{
    if (peer == sm_eng.rank || !sm_eng.tp || !sm_eng.tp_ops->rails)
        return 1;
    int n = sm_eng.tp_ops->rails(sm_eng.tp, peer, load, max);
    return n < 1 ? 1 : n;
}

/* Same (context, tag) -> same lane and same rail, always: same-tag messages then stay in order
 * even on a transport with independent streams or rails.  Lane 0 carries control frames only
 * (on rail 0). */
int sm_lane_for(int peer, uint32_t ctx, int tag)
{
    uint32_t x = (uint32_t)tag * 2654435761u ^ ctx * 40503u;
    int lane = sm_eng.lanes <= 1 ? 0 : 1 + (int)(x % (uint32_t)(sm_eng.lanes - 1));
    int rails = sm_rails(peer, NULL, 0);
    if (rails <= 1)
        return lane;
    return SM_LANE((int)((x >> 7) % (uint32_t)rails), lane);
}

/* Striping: the lane (with rail) for the next DATA segment of a message on lane `lane`: the
 * rail with the fewest bytes not yet acknowledged (queued in the transport + unacknowledged in
 * the kernel), if the transport holds less than `window` bytes for it; else -1 (wait: that
 * rail has queued frames, so it calls send_done when it drains).  A slow rail drains slowly,
 * keeps more bytes unacknowledged, and so gets fewer segments. */
int sm_stripe_lane(int peer, int lane, size_t window)
{
    struct sm_rail_load load[SM_MAX_RAILS];
    int rails = sm_rails(peer, load, SM_MAX_RAILS);
    if (rails > SM_MAX_RAILS)
        rails = SM_MAX_RAILS;
    if (rails <= 1)
        return lane;
    int best = 0;
    for (int r = 1; r < rails; r++)
        if (load[r].queued + load[r].unacked < load[best].queued + load[best].unacked)
            best = r;
    if (load[best].queued >= window)
        return -1;
    return SM_LANE(best, SM_LANE_INDEX(lane));
}

int sm_frame_send(int peer, int lane, struct sm_frame_hdr *h, const void *payload, size_t len,
                  void *cookie)
{
    h->payload_len = (uint32_t)len;
    if (peer == sm_eng.rank) {
        struct self_frame *f = sm_xmalloc(sizeof *f + len);
        f->h = *h;
        if (len)
            memcpy(f->payload, payload, len);
        sm_list_push_back(&sm_eng.self_q, &f->link);
        return 0;
    }
    if (sm_eng.peers[peer].failed)
        return -MPI_ERR_PROC_FAILED;
    struct iovec iov[2] = { { h, sizeof *h }, { (void *)payload, len } };
    return sm_eng.tp_ops->send(sm_eng.tp, peer, lane, iov, len ? 2 : 1, cookie);
}

int sm_self_progress(void)
{
    int n = 0;
    while (!sm_list_empty(&sm_eng.self_q)) {
        struct self_frame *f = sm_container_of(sm_eng.self_q.next, struct self_frame, link);
        sm_list_remove(&f->link);
        void *dst = sm_up_frame_begin(NULL, sm_eng.rank, &f->h);
        if (dst && f->h.payload_len)
            memcpy(dst, f->payload, f->h.payload_len);
        sm_up_frame_end(NULL, sm_eng.rank, &f->h, dst ? dst : f->payload);
        free(f);
        n++;
    }
    return n;
}
