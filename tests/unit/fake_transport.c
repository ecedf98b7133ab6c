/* fake_transport.c — records frames instead of sending them; see fake_transport.h. */
#include "fake_transport.h"

#include <stdlib.h>
#include <string.h>

#include "api/api.h"

struct sent_frame fake_sent[4096];
int fake_nsent;

static int f_send(struct sm_transport *t, int peer, int lane, const struct iovec *iov, int n,
                  void *cookie)
{
    (void)t;
    (void)cookie;
    if (fake_nsent < 4096) {
        struct sent_frame *f = &fake_sent[fake_nsent++];
        f->peer = peer;
        f->lane = lane;
        memcpy(&f->h, iov[0].iov_base, sizeof f->h);
        f->len = n > 1 ? iov[1].iov_len : 0;
    }
    return 0;
}
static int f_progress(struct sm_transport *t, long us) { (void)t; (void)us; return 0; }
static int f_busy(struct sm_transport *t) { (void)t; return 0; }
static int f_lanes(struct sm_transport *t) { (void)t; return 11; }
static size_t f_maxp(struct sm_transport *t) { (void)t; return 1 << 20; }

const struct sm_transport_ops fake_ops = {
    .name = "fake", .send = f_send, .progress = f_progress, .busy = f_busy,
    .lanes = f_lanes, .max_payload = f_maxp};

void fake_engine(int size, size_t eager_limit, int64_t credit_window)
{
    memset(&sm_eng, 0, sizeof sm_eng);
    sm_eng.rank = 0;
    sm_eng.size = size;
    sm_list_init(&sm_eng.posted);
    sm_list_init(&sm_eng.unexpected);
    sm_list_init(&sm_eng.self_q);
    sm_list_init(&sm_eng.waiting_sends);
    sm_eng.eager_limit = eager_limit;
    sm_eng.segment = 4096;
    sm_eng.credit_window = credit_window;
    sm_eng.unexpected_max = 1u << 30;
    sm_eng.peers = sm_xcalloc((size_t)size, sizeof *sm_eng.peers);
    sm_eng.npeers = size; /* this job's ranks; no process of another job */
    for (int i = 0; i < size; i++)
        sm_eng.peers[i].credit = credit_window;
    sm_eng.tp_ops = &fake_ops;
    sm_eng.tp = (struct sm_transport *)&fake_ops; /* never dereferenced by the fake */
    sm_eng.lanes = 11;
    sctpmpi_comm_world.rank = 0;
    sctpmpi_comm_world.size = size;
    sctpmpi_comm_world.ctx = 0;
    sctpmpi_comm_world.errh = MPI_ERRORS_RETURN;
    sm_initialized = 1;
    sm_finalized = 0;
    fake_nsent = 0;
}

void fake_engine_stop(void)
{
    sm_engine_free_state();
    sm_initialized = 0;
}

int fake_count(int type, int peer)
{
    int n = 0;
    for (int i = 0; i < fake_nsent; i++)
        if (fake_sent[i].h.type == type && (peer < 0 || fake_sent[i].peer == peer))
            n++;
    return n;
}

void fake_feed(int src, int type, int tag, uint32_t seq, const void *payload, uint32_t len,
               uint16_t flags, uint64_t size_field, uint64_t sreq, uint64_t rreq)
{
    struct sm_frame_hdr h;
    memset(&h, 0, sizeof h);
    h.version = SM_WIRE_VERSION;
    h.type = (uint8_t)type;
    h.flags = flags;
    h.payload_len = len;
    h.src = src;
    h.tag = tag;
    h.context = 0;
    h.seq = seq;
    h.size = size_field;
    h.sreq = sreq;
    h.rreq = rreq;
    void *stage = malloc(len ? len : 1);
    if (len)
        memcpy(stage, payload, len);
    void *dst = sm_up_frame_begin(NULL, src, &h);
    if (dst && len)
        memcpy(dst, stage, len);
    sm_up_frame_end(NULL, src, &h, dst ? dst : stage);
    free(stage);
}

void fake_eager(int src, int tag, uint32_t seq)
{
    int v = (int)seq;
    fake_feed(src, SM_F_EAGER, tag, seq, &v, sizeof v, SM_FL_CREDITED, sizeof v, 1000 + seq, 0);
}
