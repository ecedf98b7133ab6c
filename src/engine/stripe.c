/* stripe.c — sending the DATA segments of a rendezvous once the receiver's CTS came: at once on
 * the message's lane, or paced over several rails and, for a non-contiguous buffer, packed
 * segment by segment into a small ring (the stripe job below).  protocol.c calls
 * sm_rndv_send_data for a CTS and sm_rndv_ring_send_done for every send_done. */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"

/* ---- rendezvous DATA segments ------------------------------------------------------------
 * One rail: every segment is handed to the transport at once, on the message's lane.
 * Several rails (transport.h) and a message of at least SCTPMPI_STRIPE_MIN bytes: segments
 * are paced; each goes to the rail with the fewest unsent bytes, and only while that rail
 * holds less than one segment, so a slower rail drains slower and receives fewer segments.
 * The rest waits in a stripe job, resumed by a progress hook as rails drain.
 * A streamed send (r->pack_seg: a non-contiguous buffer, no packed copy) always goes through a
 * job: each segment is packed into one of SM_PACK_RING segment buffers just before it is sent,
 * and a buffer is packed again only after the transport's send_done for the frame that used
 * it (the frame's cookie is the buffer's slot), so at most SM_PACK_RING x segment bytes of
 * packed data exist per send. */
#define SM_PACK_RING 4
struct pack_slot {
    char *mem;
    int busy; /* handed to the transport, send_done not yet seen */
};
struct stripe_job {
    struct sm_list link;
    uint64_t sreq, rreq;
    int peer, lane;
    int striped; /* pick a rail per segment (else every segment on lane) */
    int over;    /* every segment handed over (or the send ended) */
    size_t off, seg;
    char *ring; /* streamed send: SM_PACK_RING x seg bytes, else NULL */
    struct pack_slot slots[SM_PACK_RING];
};

static struct sm_list stripe_jobs = { &stripe_jobs, &stripe_jobs };
static size_t stripe_min = (size_t)-1; /* SCTPMPI_STRIPE_MIN, read on first use */

static void send_segment(struct sm_req *r, int peer, int lane, uint64_t rreq, size_t off,
                         size_t n)
{
    struct sm_frame_hdr d;
    sm_frame_init(&d, SM_F_DATA);
    d.rreq = rreq;
    d.size = off;
    sm_send_track(sm_frame_send(peer, lane, &d, (char *)r->buf + off, n, r), r);
}

static struct pack_slot *free_slot(struct stripe_job *j)
{
    for (int i = 0; i < SM_PACK_RING; i++)
        if (!j->slots[i].busy)
            return &j->slots[i];
    return NULL;
}

static int slots_busy(const struct stripe_job *j)
{
    int n = 0;
    for (int i = 0; i < SM_PACK_RING; i++)
        n += j->slots[i].busy;
    return n;
}

/* pack the segment [off, off + n) into a free ring buffer and send it with the slot as cookie */
static void send_packed_segment(struct sm_req *r, struct pack_slot *s, int peer, int lane,
                                uint64_t rreq, size_t off, size_t n)
{
    struct sm_frame_hdr d;
    sm_frame_init(&d, SM_F_DATA);
    d.rreq = rreq;
    d.size = off;
    r->pack_seg(r, off, n, s->mem);
    int rc = sm_frame_send(peer, lane, &d, s->mem, n, s);
    if (rc == 1) {
        s->busy = 1;
        r->io_pending++;
    } else if (rc < 0) {
        sm_send_fail(r, -rc);
    }
}

/* push what the rails (and, streamed, the ring) take now; returns 1 when the job is over
 * (all sent, or the send ended) */
static int stripe_pump(struct stripe_job *j)
{
    struct sm_req *r = sm_req_by_id(j->sreq);
    if (!r || r->kind != SM_REQ_SEND || r->complete)
        return 1; /* failed (peer lost) and completed meanwhile */
    while (j->off < r->bytes) {
        int lane = j->striped ? sm_stripe_lane(j->peer, j->lane, j->seg) : j->lane;
        if (lane < 0)
            return 0;
        size_t n = r->bytes - j->off < j->seg ? r->bytes - j->off : j->seg;
        if (j->ring) {
            struct pack_slot *s = free_slot(j);
            if (!s)
                return 0; /* every buffer is still with the transport */
            send_packed_segment(r, s, j->peer, lane, j->rreq, j->off, n);
        } else {
            send_segment(r, j->peer, lane, j->rreq, j->off, n);
        }
        j->off += n;
        if (r->complete)
            return 1; /* the transport failed the send */
    }
    r->io_pending--; /* the job's own hold */
    sm_send_maybe_complete(r);
    return 1;
}

static void job_free(struct stripe_job *j)
{
    free(j->ring);
    free(j);
}

/* a job is freed once it is over and the transport holds none of its ring buffers (a ring
 * whose peer was lost keeps its busy buffers: the transport may still reference them) */
static int stripe_progress(void)
{
    int n = 0;
    struct sm_list *l, *tmp;
    sm_list_for_each_safe(l, tmp, &stripe_jobs)
    {
        struct stripe_job *j = sm_container_of(l, struct stripe_job, link);
        size_t before = j->off;
        if (!j->over && stripe_pump(j)) {
            j->over = 1;
            n++;
        } else if (j->off != before)
            n++;
        if (j->over && !slots_busy(j)) {
            sm_list_remove(&j->link);
            job_free(j);
        }
    }
    return n;
}

/* start a job for send r (its own io_pending hold is released when the last segment is
 * handed over); kept for the progress hook unless it finished at once */
static void job_start(struct sm_req *r, uint64_t rreq, int peer, int lane, size_t seg,
                      int striped)
{
    struct stripe_job *j = sm_xcalloc(1, sizeof *j);
    j->sreq = r->id;
    j->rreq = rreq;
    j->peer = peer;
    j->lane = lane;
    j->seg = seg;
    j->striped = striped;
    if (r->pack_seg) {
        j->ring = sm_xmalloc(SM_PACK_RING * seg);
        for (int i = 0; i < SM_PACK_RING; i++)
            j->slots[i].mem = j->ring + (size_t)i * seg;
    }
    r->io_pending++; /* held by the job until its last segment is handed over */
    j->over = stripe_pump(j);
    if (j->over && !slots_busy(j)) {
        job_free(j);
    } else {
        sm_list_push_back(&stripe_jobs, &j->link);
        sm_progress_hook_add(stripe_progress);
    }
}

/* send_done for a ring buffer of a streamed send: the buffer may be packed again; returns 0 if
 * cookie is not a ring buffer */
int sm_rndv_ring_send_done(void *cookie)
{
    struct sm_list *l;
    for (l = stripe_jobs.next; l != &stripe_jobs; l = l->next) {
        struct stripe_job *j = sm_container_of(l, struct stripe_job, link);
        if (!j->ring || (char *)cookie < (char *)j->slots ||
            (char *)cookie >= (char *)(j->slots + SM_PACK_RING))
            continue;
        struct pack_slot *s = cookie;
        if (!s->busy)
            return 1;
        s->busy = 0;
        struct sm_req *r = sm_req_by_id(j->sreq);
        if (r && r->kind == SM_REQ_SEND && r->io_pending > 0) {
            r->io_pending--;
            sm_send_maybe_complete(r);
        }
        return 1;
    }
    return 0;
}

/* send r's DATA segments to peer for its receive rreq (after the CTS) */
void sm_rndv_send_data(struct sm_req *r, int peer, uint64_t rreq)
{
    int lane = sm_lane_for(peer, r->ctx, r->tag);
    size_t seg = sm_eng.segment;
    if (stripe_min == (size_t)-1)
        stripe_min = (size_t)sm_env_size("SCTPMPI_STRIPE_MIN", 256 * 1024);
    int rails = sm_rails(peer, NULL, 0);
    if (rails > 1 && r->bytes >= stripe_min) {
        /* segments of at most a quarter of the message per rail (so every rail gets some and
         * a slow one can get fewer), at least 64k, at most SCTPMPI_RNDV_SEGMENT */
        size_t s = (r->bytes / (4 * (size_t)rails) + 4095) & ~(size_t)4095;
        if (s < 64 * 1024)
            s = 64 * 1024;
        job_start(r, rreq, peer, lane, s < seg ? s : seg, 1);
        return;
    }
    if (r->pack_seg) { /* streamed: paced by the ring, one lane */
        job_start(r, rreq, peer, lane, seg, 0);
        return;
    }
    for (size_t off = 0; off < r->bytes; off += seg) {
        size_t n = r->bytes - off < seg ? r->bytes - off : seg;
        send_segment(r, peer, lane, rreq, off, n);
    }
    sm_send_maybe_complete(r);
}
