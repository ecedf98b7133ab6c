/* osc_peer.c — the one-sided layer's connections: one sm_rdma queue pair per peer (created
 * lazily, shared by all windows) whose output callback is sm_rma_chan_send, a pool of posted
 * receives per peer with credits, the per-peer send queue, the channel receiver (runs with the
 * channel lock held, on the application thread or the transport's progress thread), and the
 * waiting step of the application thread.
 *
 * Credits: each peer posts OSC_POOL receives for us.  We may have sent at most OSC_POOL plus
 * the number of receives the peer has reposted since; the peer reports its reposts by an RDMA
 * Fetch-and-Add on its slot of our credit array (atomics use no receive buffer and are applied
 * in message order, so the count never goes backwards).  Work that cannot go yet waits in the
 * peer's queue in issue order (Writes and Reads too, so nothing overtakes a queued Send). */
#include <stdlib.h>
#include <string.h>

#include "osc/osc.h"

struct osc_stage {
    uint8_t *buf;
    size_t len;
    uint32_t stag;
    int refs;
    int borrowed; /* buf is the application's origin buffer: not ours to free */
};

struct osc_item {
    struct osc_item *next;
    int kind;     /* 1 send, 2 write, 3 read */
    uint8_t *msg; /* send: owned message */
    size_t len;
    struct osc_stage *stage; /* write */
    size_t off;
    struct osc_op *op; /* read */
    uint32_t rstag;
    uint64_t rto;
};

struct osc_peer {
    sm_rdma_qp *qp;
    int failed;
    uint8_t *pool;
    uint32_t pool_stag;
    uint64_t sent;         /* Sends posted to the peer */
    uint32_t owed;         /* receives reposted, not yet reported */
    uint32_t rcredit_stag; /* the peer's credit array */
    int have_rcredit;
    unsigned nonsend; /* Writes and Reads queued since the last Send */
    struct osc_item *head, *tail;
};

sm_rdma_pd *sm_osc_pd;
static sm_rdma_cq *cq;
static struct osc_peer *peers;
static int npeers;
static uint64_t *credits; /* credits[p]: receives peer p reposted for us */
static uint32_t credits_stag;
static uint64_t fa_sink;
static uint32_t fa_stag;
static int opened;
static struct sctpmpi_win *wins[OSC_MAX_WINDOWS];

uint32_t sm_osc_credit_stag(void)
{
    return credits_stag;
}

struct sctpmpi_win *sm_osc_win_by_id(uint32_t id)
{
    return id < OSC_MAX_WINDOWS ? wins[id] : NULL;
}

uint32_t sm_osc_win_register(struct sctpmpi_win *w)
{
    for (uint32_t i = 1; i < OSC_MAX_WINDOWS; i++)
        if (!wins[i]) {
            wins[i] = w;
            return i;
        }
    return 0;
}

void sm_osc_win_unregister(struct sctpmpi_win *w)
{
    if (w->id && w->id < OSC_MAX_WINDOWS && wins[w->id] == w)
        wins[w->id] = NULL;
}

/* the peer's queue pair is unusable from now on: say why once */
static void fail_peer(int p, const char *why, int code)
{
    if (!peers[p].failed) {
        sm_rdma_term t = { 0 };
        if (peers[p].qp && sm_rdma_qp_error(peers[p].qp, &t) == 0)
            SM_ERR("one-sided communication with rank %d failed: %s (%d); RDMA error layer %d "
                   "type %d code %d%s",
                   p, why, code, t.layer, t.etype, t.ecode,
                   t.remote ? " reported by the peer" : "");
        else
            SM_ERR("one-sided communication with rank %d failed: %s (%d)", p, why, code);
    }
    peers[p].failed = 1;
}

static void output(void *ctx, const uint8_t *seg, size_t len, unsigned lane)
{
    int p = (int)(intptr_t)ctx;
    if (peers[p].failed)
        return;
    int rc = sm_rma_chan_send(p, lane % sm_rma_chan_lanes(), seg, len);
    if (rc != MPI_SUCCESS)
        fail_peer(p, "channel send", rc);
}

static void outputv(void *ctx, const struct iovec *iov, int iovcnt, size_t len, unsigned lane)
{
    int p = (int)(intptr_t)ctx;
    if (peers[p].failed)
        return;
    int rc = sm_rma_chan_sendv(p, lane % sm_rma_chan_lanes(), iov, iovcnt, len);
    if (rc != MPI_SUCCESS)
        fail_peer(p, "channel send", rc);
}

static void post_pool_buf(struct osc_peer *pp, int i)
{
    sm_rdma_sge sge = { pp->pool_stag, (uint64_t)i * OSC_BUFSZ, OSC_BUFSZ };
    int rc = sm_rdma_post_recv(pp->qp, (uint64_t)i, &sge, 1);
    if (rc != 0)
        fail_peer((int)(pp - peers), "posting a receive", rc);
}

static struct osc_peer *peer_get(int p)
{
    struct osc_peer *pp = &peers[p];
    if (pp->qp || pp->failed)
        return pp;
    size_t maxseg = sm_rma_chan_max_segment();
    if (maxseg > 65536)
        maxseg = 65536;
    sm_rdma_qp_attr a = { 0 };
    a.pd = sm_osc_pd;
    a.send_cq = cq;
    a.recv_cq = cq;
    a.qp_num = (uint32_t)p;
    a.max_segment = (uint32_t)maxseg;
    a.lanes = sm_rma_chan_lanes();
    a.max_send_wr = 1u << 16;
    a.max_recv_wr = OSC_POOL * 2;
    a.output = output;
    a.outputv = outputv;
    a.output_ctx = (void *)(intptr_t)p;
    pp->qp = sm_rdma_qp_new(&a);
    pp->pool = sm_xcalloc(OSC_POOL, OSC_BUFSZ);
    if (!pp->qp || sm_rdma_reg(sm_osc_pd, pp->pool, (size_t)OSC_POOL * OSC_BUFSZ,
                               SM_RDMA_LOCAL_WRITE | SM_RDMA_LOCAL_READ, &pp->pool_stag) != 0) {
        fail_peer(p, "queue pair setup", 0);
        return pp;
    }
    for (int i = 0; i < OSC_POOL; i++)
        post_pool_buf(pp, i);
    return pp;
}

void sm_osc_learn_peer(int world, uint32_t credit_stag)
{
    if (world < 0 || world >= npeers)
        return;
    peers[world].rcredit_stag = credit_stag;
    peers[world].have_rcredit = 1;
}

int sm_osc_peer_failed(int p)
{
    if (p < 0 || p >= npeers)
        return 1;
    struct osc_peer *pp = &peers[p];
    if (!pp->failed && pp->qp && sm_rdma_qp_state(pp->qp) == SM_RDMA_QPS_ERROR) {
        sm_rdma_term t = { 0 };
        sm_rdma_qp_error(pp->qp, &t);
        SM_ERR("one-sided communication with rank %d failed: RDMA error layer %d type %d "
               "code %d%s",
               p, t.layer, t.etype, t.ecode, t.remote ? " (reported by the peer)" : "");
        pp->failed = 1;
    }
    return pp->failed;
}

/* ---- staging buffers of RDMA Writes ------------------------------------------------------ */
/* The bytes of RDMA Writes: either a buffer of ours (packed origin data, adopted: freed with the
 * stage) or, for a contiguous origin buffer, the application's own memory, which MPI forbids it
 * to touch until the operation completes; segments copy from it as they are emitted. */
struct osc_stage *sm_osc_stage_new(void *data, size_t len, int borrowed)
{
    struct osc_stage *s = sm_xcalloc(1, sizeof *s);
    s->buf = data;
    s->len = len;
    s->refs = 1;
    s->borrowed = borrowed;
    if (!data || sm_rdma_reg(sm_osc_pd, s->buf, len ? len : 1, SM_RDMA_LOCAL_READ, &s->stag) != 0)
        s->stag = 0;
    return s;
}

/* The creator's reference ends when the Put call returns, and with it the operation completes
 * locally: writes still queued (behind messages waiting for credits) must not read the
 * application's buffer after that, so a borrowed buffer they need is copied now. */
void sm_osc_stage_done(struct osc_stage *s)
{
    if (s->borrowed && s->refs > 1) {
        uint8_t *copy = sm_xmalloc(s->len ? s->len : 1);
        if (s->len)
            memcpy(copy, s->buf, s->len);
        if (s->stag)
            sm_rdma_dereg(sm_osc_pd, s->stag);
        s->buf = copy;
        s->borrowed = 0;
        if (sm_rdma_reg(sm_osc_pd, s->buf, s->len ? s->len : 1, SM_RDMA_LOCAL_READ, &s->stag) !=
            0)
            s->stag = 0;
    }
    sm_osc_stage_put(s);
}

void sm_osc_stage_put(struct osc_stage *s)
{
    if (--s->refs > 0)
        return;
    if (s->stag)
        sm_rdma_dereg(sm_osc_pd, s->stag);
    if (!s->borrowed)
        free(s->buf);
    free(s);
}

/* ---- the send queue ---------------------------------------------------------------------- */
static int can_post(struct osc_peer *pp, int p, struct osc_item *it)
{
    if (it->kind != 1)
        return 1;
    return pp->sent < (uint64_t)OSC_POOL + credits[p];
}

static void post_item(struct osc_peer *pp, struct osc_item *it)
{
    sm_rdma_send_wr wr = { 0 };
    sm_rdma_sge sge;
    uint32_t tmpstag = 0;
    int rc = 0;
    switch (it->kind) {
    case 1:
        if (sm_rdma_reg(sm_osc_pd, it->msg, it->len, SM_RDMA_LOCAL_READ, &tmpstag) != 0) {
            fail_peer((int)(pp - peers), "registering a message", 0);
            break;
        }
        sge = (sm_rdma_sge){ tmpstag, 0, (uint32_t)it->len };
        wr.opcode = SM_RDMA_WR_SEND;
        wr.sgl = &sge;
        wr.nsge = 1;
        rc = sm_rdma_post_send(pp->qp, &wr);
        sm_rdma_dereg(sm_osc_pd, tmpstag);
        pp->sent++;
        free(it->msg);
        break;
    case 2:
        sge = (sm_rdma_sge){ it->stage->stag, it->off, (uint32_t)it->len };
        wr.opcode = SM_RDMA_WR_WRITE;
        wr.sgl = &sge;
        wr.nsge = 1;
        wr.remote_stag = it->rstag;
        wr.remote_to = it->rto;
        rc = sm_rdma_post_send(pp->qp, &wr);
        sm_osc_stage_put(it->stage);
        break;
    case 3:
        sge = (sm_rdma_sge){ it->op->tmp_stag, it->off, (uint32_t)it->len };
        wr.wr_id = (uint64_t)(uintptr_t)it->op;
        wr.opcode = SM_RDMA_WR_READ;
        wr.sgl = &sge;
        wr.nsge = 1;
        wr.remote_stag = it->rstag;
        wr.remote_to = it->rto;
        rc = sm_rdma_post_send(pp->qp, &wr);
        if (rc != 0) {
            it->op->outstanding--;
            it->op->failed = 1;
        }
        break;
    }
    if (rc != 0)
        fail_peer((int)(pp - peers), "posting a work request", rc);
    free(it);
}

static void drop_item(struct osc_item *it)
{
    if (it->kind == 1)
        free(it->msg);
    else if (it->kind == 2)
        sm_osc_stage_put(it->stage);
    else if (it->kind == 3) {
        it->op->outstanding--;
        it->op->failed = 1;
    }
    free(it);
}

static void pump(int p)
{
    struct osc_peer *pp = &peers[p];
    while (pp->head) {
        struct osc_item *it = pp->head;
        if (pp->failed) {
            pp->head = it->next;
            drop_item(it);
            continue;
        }
        if (!can_post(pp, p, it))
            break;
        pp->head = it->next;
        post_item(pp, it);
    }
    if (!pp->head)
        pp->tail = NULL;
}

static int enqueue(int p, struct osc_item *it)
{
    struct osc_peer *pp = peer_get(p);
    if (pp->failed) {
        drop_item(it);
        return MPI_ERR_PROC_FAILED;
    }
    it->next = NULL;
    if (pp->tail)
        pp->tail->next = it;
    else
        pp->head = it;
    pp->tail = it;
    if (it->kind == 1) {
        pp->nonsend = 0;
    } else if (++pp->nonsend >= OSC_NONSEND_MAX) {
        /* the peer tracks at most 65536 undelivered messages: a Send every so many Writes /
         * Reads lets the credits (returned only once a Send is delivered, i.e. after every
         * earlier message) bound them */
        struct osc_msg h = { 0 };
        h.type = OSC_M_NOP;
        struct osc_item *nop = sm_xcalloc(1, sizeof *nop);
        nop->kind = 1;
        nop->len = sizeof h;
        nop->msg = sm_xmalloc(sizeof h);
        memcpy(nop->msg, &h, sizeof h);
        pp->tail->next = nop;
        pp->tail = nop;
        pp->nonsend = 0;
    }
    pump(p);
    return MPI_SUCCESS;
}

int sm_osc_send(int p, const struct osc_msg *h, const void *blocks, size_t blen, const void *data,
                size_t dlen)
{
    struct osc_item *it = sm_xcalloc(1, sizeof *it);
    it->kind = 1;
    it->len = sizeof *h + blen + dlen;
    it->msg = sm_xmalloc(it->len);
    memcpy(it->msg, h, sizeof *h);
    if (blen)
        memcpy(it->msg + sizeof *h, blocks, blen);
    if (dlen)
        memcpy(it->msg + sizeof *h + blen, data, dlen);
    return enqueue(p, it);
}

int sm_osc_write(int p, struct osc_stage *s, size_t off, size_t len, uint32_t rstag, uint64_t rto)
{
    struct osc_item *it = sm_xcalloc(1, sizeof *it);
    it->kind = 2;
    it->stage = s;
    s->refs++;
    it->off = off;
    it->len = len;
    it->rstag = rstag;
    it->rto = rto;
    return enqueue(p, it);
}

int sm_osc_read(int p, struct osc_op *op, size_t off, size_t len, uint32_t rstag, uint64_t rto)
{
    struct osc_item *it = sm_xcalloc(1, sizeof *it);
    it->kind = 3;
    it->op = op;
    op->outstanding++;
    it->off = off;
    it->len = len;
    it->rstag = rstag;
    it->rto = rto;
    return enqueue(p, it);
}

/* ---- completions ------------------------------------------------------------------------- */
/* Reposts are reported once OSC_POOL / 4 have accumulated, never sooner (a report per handled
 * message cost an extra Fetch-and-Add and its response per flush).  That never stalls the peer:
 * it runs out of credits only when OSC_POOL of its Sends are unreported, that is, with at most
 * OSC_POOL / 4 - 1 of them handled here, more than OSC_POOL * 3 / 4 still to be handled, and
 * handling them reaches the threshold. */
static void return_credits(int p)
{
    struct osc_peer *pp = &peers[p];
    if (!pp->owed || pp->failed || !pp->have_rcredit || !pp->qp)
        return;
    if (pp->owed < OSC_POOL / 4)
        return;
    sm_rdma_sge sge = { fa_stag, 0, 8 };
    sm_rdma_send_wr wr = { 0 };
    wr.opcode = SM_RDMA_WR_FETCH_ADD;
    wr.sgl = &sge;
    wr.nsge = 1;
    wr.remote_stag = pp->rcredit_stag;
    wr.remote_to = (uint64_t)sm_world_rank() * 8;
    wr.add_or_swap = pp->owed;
    int rc = sm_rdma_post_send(pp->qp, &wr);
    if (rc != 0)
        fail_peer(p, "returning credits", rc);
    pp->owed = 0;
}

static void poll_cq(void)
{
    sm_rdma_wc wc[32];
    int n;
    while ((n = sm_rdma_cq_poll(cq, wc, 32)) > 0) {
        for (int i = 0; i < n; i++) {
            int p = (int)wc[i].qp_num;
            if (p < 0 || p >= npeers)
                continue;
            struct osc_peer *pp = &peers[p];
            if (wc[i].status != SM_RDMA_WC_SUCCESS) {
                fail_peer(p, "work completion status", wc[i].status);
                if (wc[i].opcode == SM_RDMA_WC_READ && wc[i].wr_id) {
                    struct osc_op *op = (struct osc_op *)(uintptr_t)wc[i].wr_id;
                    op->outstanding--;
                    op->failed = 1;
                }
                continue;
            }
            if (wc[i].opcode == SM_RDMA_WC_RECV) {
                int idx = (int)wc[i].wr_id;
                sm_osc_handle(p, pp->pool + (size_t)idx * OSC_BUFSZ, wc[i].byte_len);
                post_pool_buf(pp, idx);
                pp->owed++;
                return_credits(p);
            } else if (wc[i].opcode == SM_RDMA_WC_READ && wc[i].wr_id) {
                struct osc_op *op = (struct osc_op *)(uintptr_t)wc[i].wr_id;
                op->outstanding--;
            }
        }
    }
}

static void rx_segment(void *ctx, int peer, const void *seg, size_t len)
{
    (void)ctx;
    if (peer < 0 || peer >= npeers)
        return;
    struct osc_peer *pp = peer_get(peer);
    if (pp->failed)
        return;
    int rc = sm_rdma_qp_input(pp->qp, seg, len);
    if (rc != 0)
        fail_peer(peer, "segment refused", rc);
    poll_cq();
    pump(peer);
}

static void rx_failed(void *ctx, int peer, const char *why)
{
    (void)ctx;
    (void)why;
    if (peer >= 0 && peer < npeers)
        peers[peer].failed = 1;
}

static const struct sm_rma_receiver receiver = { NULL, rx_segment, rx_failed };

int sm_osc_init(void)
{
    if (opened)
        return MPI_SUCCESS;
    npeers = sm_world_size();
    sm_osc_pd = sm_rdma_pd_new(1u << 16);
    cq = sm_rdma_cq_new(1u << 16);
    peers = sm_xcalloc((size_t)npeers, sizeof *peers);
    credits = sm_xcalloc((size_t)npeers, sizeof *credits);
    if (!sm_osc_pd || !cq)
        return MPI_ERR_NO_MEM;
    if (sm_rdma_reg(sm_osc_pd, credits, (size_t)npeers * 8,
                    SM_RDMA_LOCAL_READ | SM_RDMA_LOCAL_WRITE | SM_RDMA_REMOTE_ATOMIC,
                    &credits_stag) != 0 ||
        sm_rdma_reg(sm_osc_pd, &fa_sink, 8, SM_RDMA_LOCAL_WRITE, &fa_stag) != 0)
        return MPI_ERR_NO_MEM;
    int rc = sm_rma_chan_open(&receiver);
    if (rc != MPI_SUCCESS)
        return rc;
    opened = 1;
    return MPI_SUCCESS;
}

/* the spin clock of the wait in progress (waits run on the application thread, one at a time) */
static uint64_t wait_since;

/* Called with the channel lock held (once); returns with it held.  *spins is 0 at the start of
 * a wait; the engine's waiting policy decides between polling and a short block. */
void sm_osc_step(int *spins)
{
    poll_cq();
    for (int p = 0; p < npeers; p++)
        if (peers[p].head)
            pump(p);
    sm_rma_chan_unlock();
    if ((*spins)++ == 0)
        wait_since = 0; /* a new wait: its spin clock starts now */
    sm_rma_chan_wait_step(&wait_since);
    sm_rma_chan_lock();
    poll_cq();
    for (int p = 0; p < npeers; p++)
        if (peers[p].head)
            pump(p);
}
