/* sim_transport.c — the "sim" transport (SCTPMPI_TRANSPORT=sim, set by mpiexec --sim): frames
 * go to the network simulator (tools/simnet) over one Unix socket instead of the network, and
 * come back from it when the simulated SCTP association has delivered them.  The rank's clock
 * becomes virtual (util/clock.c): between two calls into this transport the rank is charged its
 * measured CPU time (scaled by SCTPMPI_SIM_CPU_SCALE) plus the time it asked to sleep (the
 * sleep interposer of mpiexec --sim); inside progress() the simulator decides when the call
 * returns in virtual time.  Protocol: sim_proto.h; design: docs/simulation.md. */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "engine/wire.h"
#include "transport/sim/sim_proto.h"
#include "transport/transport.h"
#include "util/util.h"

struct sim_in { /* a message of a progress reply, held until the whole reply is read */
    struct sim_msg m;
    uint8_t *data;
};

struct sim_tp {
    int rank, size, fd;
    const struct sm_upcalls *up;
    int p2p_lanes, rma_lanes;
    size_t max_payload;
    uint64_t vt;       /* virtual ns at the last synchronisation point */
    uint64_t cpu_mark; /* process CPU ns at that point */
    uint64_t slept_mark;
    double cpu_scale;
    uint64_t poll_ns;
    size_t zcopy_min;   /* frames at least this long complete when acknowledged (as sctpn's) */
    size_t outstanding; /* such frames not acknowledged yet */
    const volatile uint64_t *slept; /* the sleep interposer's counter (NULL: none) */
    struct sim_in *in;
    size_t nin, capin;
    uint64_t frames_out, bytes_out, frames_in, bytes_in, progress_calls, blocked_calls;
    int dead;
    int left;             /* said BYE: no longer in the simulation */
    pthread_mutex_t lock; /* recursive: one caller at a time; upcalls may send */
};

static struct sim_tp *the_sim;

static uint64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the rank's virtual time now: the last sync point plus what it computed and slept since */
static uint64_t sim_clock(void)
{
    struct sim_tp *t = the_sim;
    uint64_t c = cpu_ns(), v = t->vt;
    if (c > t->cpu_mark)
        v += (uint64_t)((double)(c - t->cpu_mark) * t->cpu_scale);
    if (t->slept)
        v += *t->slept - t->slept_mark;
    return v;
}

/* entering the transport: the computation since the last call becomes virtual time */
static void enter(struct sim_tp *t)
{
    pthread_mutex_lock(&t->lock);
    t->vt = sim_clock();
    t->cpu_mark = cpu_ns();
    if (t->slept)
        t->slept_mark = *t->slept;
}

/* leaving it: our own CPU time (talking to the simulator) is not the rank's computation */
static void leave(struct sim_tp *t)
{
    t->cpu_mark = cpu_ns();
    pthread_mutex_unlock(&t->lock);
}

static int write_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w =
            sendmsg(fd, &mh, MSG_NOSIGNAL); /* a gone simulator is an error, not SIGPIPE */
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

static int read_all(int fd, void *buf, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t r = read(fd, (char *)buf + off, len - off);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        off += (size_t)r;
    }
    return 0;
}

static int lost(struct sim_tp *t)
{
    if (!t->dead)
        SM_ERR("sim: rank %d lost the network simulator (it stopped: deadlock or error, see its "
               "message)",
               t->rank);
    t->dead = 1;
    return -1;
}

static int sim_init(const struct sm_transport_args *a, struct sm_transport **out, char *card,
                    size_t cardlen)
{
    const char *path = getenv("SCTPMPI_SIM_SOCKET");
    if (!path || !*path) {
        SM_ERR("SCTPMPI_TRANSPORT=sim: no simulator (SCTPMPI_SIM_SOCKET is unset); run the job "
               "with mpiexec --sim TOPO");
        return -1;
    }
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    if (strlen(path) >= sizeof sa.sun_path) {
        SM_ERR("sim: socket path too long: %s", path);
        return -1;
    }
    strcpy(sa.sun_path, path);
    struct sim_tp *t = calloc(1, sizeof *t);
    if (!t)
        return -1;
    t->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (t->fd < 0 || connect(t->fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        SM_ERR("sim: cannot reach the simulator at %s: %s", path, strerror(errno));
        if (t->fd >= 0)
            close(t->fd);
        free(t);
        return -1;
    }
    t->rank = a->rank;
    t->size = a->size;
    t->up = a->up;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&t->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    const char *sc = getenv("SCTPMPI_SIM_CPU_SCALE");
    t->cpu_scale = sc && *sc ? atof(sc) : 1.0;
    if (t->cpu_scale < 0)
        t->cpu_scale = 0;
    t->poll_ns = (uint64_t)sm_env_int("SCTPMPI_SIM_POLL_NS", 1000);
    t->zcopy_min = (size_t)sm_env_size("SCTPMPI_SCTP_ZCOPY_MIN", 32 << 10);
    t->slept = dlsym(RTLD_DEFAULT, "simnet_slept_ns");
    struct sim_msg m = { SIM_HELLO, 0, a->rank, 0, 0, a->size };
    struct iovec iov = { &m, sizeof m };
    struct sim_msg cfg;
    if (write_all(t->fd, &iov, 1) < 0 || read_all(t->fd, &cfg, sizeof cfg) < 0 ||
        cfg.type != SIM_CONFIG) {
        SM_ERR("sim: the simulator closed rank %d's connection (see its message)", a->rank);
        close(t->fd);
        free(t);
        return -1;
    }
    t->p2p_lanes = cfg.peer;
    t->rma_lanes = (int)cfg.lane;
    t->max_payload = (size_t)cfg.arg;
    the_sim = t;
    t->vt = 0;
    t->cpu_mark = cpu_ns();
    if (t->slept)
        t->slept_mark = *t->slept;
    sm_clock_hook = sim_clock;
    snprintf(card, cardlen, "sim:%d", a->rank);
    *out = (struct sm_transport *)t;
    return 0;
}

static int sim_set_peers(struct sm_transport *h, const char *const *cards)
{
    struct sim_tp *t = (struct sim_tp *)h;
    for (int r = 0; r < t->size; r++)
        if (strncmp(cards[r], "sim:", 4)) {
            SM_ERR("sim: rank %d's business card '%s' is not the simulator's (every rank must "
                   "use SCTPMPI_TRANSPORT=sim)",
                   r, cards[r]);
            return -1;
        }
    return 0;
}

static int sim_lanes(struct sm_transport *h)
{
    return ((struct sim_tp *)h)->p2p_lanes;
}

static int sim_rma_lanes(struct sm_transport *h)
{
    return ((struct sim_tp *)h)->rma_lanes;
}

static size_t sim_max_payload(struct sm_transport *h)
{
    return ((struct sim_tp *)h)->max_payload;
}

static int sim_send(struct sm_transport *h, int peer, int lane, const struct iovec *iov,
                    int iovcnt, void *cookie)
{
    struct sim_tp *t = (struct sim_tp *)h;
    (void)cookie;
    if (t->dead || t->left)
        return -1;
    if (iovcnt > 62 || SM_LANE_RAIL(lane) != 0)
        return -1;
    enter(t);
    struct iovec v[64];
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++) {
        v[i + 1] = iov[i];
        len += iov[i].iov_len;
    }
    /* large frames complete when the peer acknowledged them, as the native transport's
     * zero-copy frames do (the simulator holds a copy: the memory is free at once anyway) */
    int zc = cookie && len >= t->zcopy_min;
    struct sim_msg m = { SIM_SEND,       (uint32_t)len, peer,
                         (uint32_t)lane, t->vt,         zc ? (int64_t)(uintptr_t)cookie : 0 };
    v[0] = (struct iovec){ &m, sizeof m };
    int rc = write_all(t->fd, v, iovcnt + 1) < 0 ? lost(t) : zc;
    if (rc == 1)
        t->outstanding++;
    t->frames_out++;
    t->bytes_out += len;
    leave(t);
    return rc;
}

static void deliver(struct sim_tp *t, struct sim_in *x)
{
    const struct sm_upcalls *up = t->up;
    int peer = x->m.peer;
    if (x->m.type == SIM_SENT) {
        t->outstanding--;
        up->send_done(up->ctx, (void *)(uintptr_t)x->m.arg);
        return;
    }
    if (x->m.type == SIM_FAILED) {
        up->peer_failed(up->ctx, peer, "the simulated association failed");
        return;
    }
    struct sm_frame_hdr hdr;
    if (x->m.len < sizeof hdr)
        return;
    memcpy(&hdr, x->data, sizeof hdr);
    const uint8_t *payload = x->data + sizeof hdr;
    t->frames_in++;
    t->bytes_in += x->m.len;
    if (hdr.type == SM_F_RMA && up->rma_frame) {
        up->rma_frame(up->ctx, peer, &hdr, payload);
        return;
    }
    void *dst = up->frame_begin(up->ctx, peer, &hdr);
    size_t plen = x->m.len - sizeof hdr;
    if (dst) {
        memcpy(dst, payload, plen);
        up->frame_end(up->ctx, peer, &hdr, dst);
    } else {
        up->frame_end(up->ctx, peer, &hdr, (void *)payload);
    }
}

static int sim_progress(struct sm_transport *h, long timeout_us)
{
    struct sim_tp *t = (struct sim_tp *)h;
    if (t->dead)
        return -1;
    if (t->left)
        return 0;
    enter(t);
    t->progress_calls++;
    if (timeout_us != 0)
        t->blocked_calls++;
    struct sim_msg m = { SIM_PROGRESS, 0,
                         -1,           0,
                         t->vt,        timeout_us < 0 ? -1 : (int64_t)timeout_us * 1000 };
    struct iovec iov = { &m, sizeof m };
    if (write_all(t->fd, &iov, 1) < 0)
        goto fail;
    /* read the whole reply first: our upcalls may send, and the simulator writes the reply
     * without reading in between */
    t->nin = 0;
    struct sim_msg r;
    for (;;) {
        if (read_all(t->fd, &r, sizeof r) < 0)
            goto fail;
        if (r.type == SIM_WAKE)
            break;
        if (r.len > SIM_MSG_MAX_LEN ||
            (r.type != SIM_DELIVER && r.type != SIM_FAILED && r.type != SIM_SENT))
            goto fail;
        if (t->nin == t->capin) {
            size_t nc = t->capin ? 2 * t->capin : 16;
            struct sim_in *ni = realloc(t->in, nc * sizeof *ni);
            if (!ni)
                goto fail;
            t->in = ni;
            t->capin = nc;
        }
        struct sim_in *x = &t->in[t->nin++];
        x->m = r;
        x->data = malloc(r.len ? r.len : 1);
        if (!x->data || read_all(t->fd, x->data, r.len) < 0) {
            t->nin--;
            free(x->data);
            goto fail;
        }
    }
    t->vt = r.vt_ns;
    if (timeout_us == 0 && t->nin == 0)
        t->vt += t->poll_ns; /* a poll that found nothing still costs the rank some time */
    /* the upcalls get the list to themselves: one of them may come back into progress() */
    size_t n = t->nin;
    struct sim_in *list = t->in;
    t->in = NULL;
    t->nin = t->capin = 0;
    for (size_t i = 0; i < n; i++) {
        deliver(t, &list[i]);
        free(list[i].data);
    }
    free(list);
    leave(t);
    return (int)n;
fail:
    for (size_t i = 0; i < t->nin; i++)
        free(t->in[i].data);
    t->nin = 0;
    leave(t);
    return lost(t);
}

/* leave the simulation (BYE): from here on this rank sends nothing and waits for nothing in
 * virtual time, so the simulator must not wait for it (the rest of MPI_Finalize, e.g. the PMI
 * barrier, happens in real time only) */
static void leave_sim(struct sim_tp *t)
{
    if (t->left)
        return;
    enter(t);
    struct sim_msg m = { SIM_BYE, 0, -1, 0, t->vt, 0 };
    struct iovec iov = { &m, sizeof m };
    if (!t->dead)
        (void)write_all(t->fd, &iov, 1);
    t->left = 1;
    leave(t);
}

/* MPI_Finalize asks this once every request is complete and before its last barrier: once its
 * large frames are acknowledged the rank leaves the simulation */
static int sim_busy(struct sm_transport *h)
{
    struct sim_tp *t = (struct sim_tp *)h;
    if (t->outstanding && !t->dead && !t->left)
        return 1; /* large frames not acknowledged yet: MPI_Finalize keeps progressing */
    leave_sim(t);
    return 0;
}

static int sim_peer_info(struct sm_transport *h, int peer, char *buf, size_t len)
{
    struct sim_tp *t = (struct sim_tp *)h;
    if (peer < 0 || peer >= t->size)
        return -1;
    snprintf(buf, len, "simulated sctp (mpiexec --sim), rank %d", peer);
    return 0;
}

static void sim_stats(struct sm_transport *h, void *file)
{
    struct sim_tp *t = (struct sim_tp *)h;
    fprintf(file,
            "[rank %d] sim: frames out %llu (%llu bytes) in %llu (%llu bytes), progress calls "
            "%llu (%llu blocking), virtual time %.6f s\n",
            t->rank, (unsigned long long)t->frames_out, (unsigned long long)t->bytes_out,
            (unsigned long long)t->frames_in, (unsigned long long)t->bytes_in,
            (unsigned long long)t->progress_calls, (unsigned long long)t->blocked_calls,
            (double)sim_clock() * 1e-9);
}

static int sim_finalize(struct sm_transport *h)
{
    struct sim_tp *t = (struct sim_tp *)h;
    leave_sim(t);
    close(t->fd);
    t->fd = -1;
    /* the clock stays virtual (and frozen at the end) for what runs after MPI_Finalize */
    free(t->in);
    t->in = NULL;
    t->capin = 0;
    return 0;
}

const struct sm_transport_ops sm_transport_sim = {
    .name = "sim",
    .init = sim_init,
    .set_peers = sim_set_peers,
    .lanes = sim_lanes,
    .max_payload = sim_max_payload,
    .send = sim_send,
    .progress = sim_progress,
    .busy = sim_busy,
    .peer_info = sim_peer_info,
    .stats = sim_stats,
    .finalize = sim_finalize,
    .rma_lanes = sim_rma_lanes,
};
