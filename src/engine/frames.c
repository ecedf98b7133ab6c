/* frames.c — building frames and handing them to the transport, the lane choice for
 * (context, tag), and the self path (a rank sending to itself never touches the transport). */
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"

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

/* Same (context, tag) -> same lane, always: same-tag messages then stay in order even on a
 * transport with independent streams.  Lane 0 carries control frames only. */
int sm_lane_for(uint32_t ctx, int tag)
{
    if (sm_eng.lanes <= 1)
        return 0;
    uint32_t x = (uint32_t)tag * 2654435761u ^ ctx * 40503u;
    return 1 + (int)(x % (uint32_t)(sm_eng.lanes - 1));
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
    struct iovec iov[2] = {{h, sizeof *h}, {(void *)payload, len}};
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
