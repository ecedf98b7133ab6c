/* tcp.c — the TCP transport: one connection per peer pair and rail, opened lazily on first send,
 * with a hello carrying the sender's rank and the job secret; non-blocking sockets with epoll;
 * per-(peer, rail) send queues that reference user memory until written; frames parsed from a
 * staging buffer, large payloads received straight into the engine's destination buffer.
 *
 * Rails (SCTPMPI_TCP_STRIPE=1, docs/design.md "Striping over rails"): one listening socket per
 * local address of SCTPMPI_ADDRS; rail r of this rank connects from its address r to the
 * peer's address r, and the acceptor learns the rail from the listener that accepted.  Each
 * rail is an independent connection with its own hello and queue; the engine picks the rail of
 * every frame (transport.h, SM_LANE).  Without striping there is one rail: the first address.
 *
 * Handshake (docs/design.md "TCP hello"): the connector sends a 64-byte HELLO
 * {magic "SMPITCP1", rank, size, secret}; the acceptor answers 8 bytes "SMPIACK1" (use it) or
 * "SMPIREJ1" (both sides connected at once and the lower rank's connection wins).  No frame
 * travels on a connection before its ACK.  A HELLO with a bad magic, rank or secret, or a
 * malformed frame, closes that connection with a log line; the job goes on.
 *
 * Strong progress (docs/design.md "RMA channel"): once the process opens its first window (entry
 * rma_open), a watchdog thread reads the sockets when the application has not entered
 * progress() for SCTPMPI_TCP_WATCHDOG_US (0 = no thread).  It
 * hands whole SM_F_RMA frames to the engine's rma_frame upcall at once and queues every other
 * upcall (frames copied, send completions, lost peers) for the next progress(), which replays
 * the queue in arrival order before it reads anything new; once the queue holds more than
 * SCTPMPI_TCP_WATCHDOG_MAX payload bytes it stops reading.  One recursive lock (also the RMA
 * channel's lock: entries lock/unlock) is held around every use of the transport's state. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/sockios.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "engine/wire.h"
#include "mpi.h"
#include "transport/hello.h"
#include "transport/transport.h"
#include "util/util.h"

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

#define HELLO_LEN 64
#define SECRET_LEN 48
#define STAGE_LEN (256 * 1024)
#define COPY_SMALL 4096 /* frames up to this size are copied when they must wait */
#define MAX_RAILS 8

enum conn_state { C_CONNECTING, C_HELLO_SENT, C_WAIT_HELLO, C_ESTABLISHED, C_DEAD, C_LISTEN };

struct txe { /* one queued frame */
    struct txe *next;
    struct iovec iov[3];
    int iovcnt;
    void *cookie;
    unsigned char hdr[sizeof(struct sm_frame_hdr)];
    unsigned char small[]; /* copied payload for small frames */
};

struct conn {
    struct conn *next_dead; /* closed connections are freed at the end of progress() */
    int fd;
    int peer; /* -1 until the hello says */
    int rail;
    int state;
    int outgoing;
    unsigned char hello[HELLO_LEN];
    size_t hello_have;
    /* receive side */
    unsigned char *stage;
    size_t have, off; /* bytes in stage, parse offset */
    int in_payload;   /* reading the payload of hdr */
    struct sm_frame_hdr hdr;
    unsigned char *dst; /* where the payload goes */
    unsigned char *own; /* our allocation when the engine gave no destination */
    size_t got;
    int late_begin; /* frame_begin not called yet: the payload goes to own first */
};

struct rail { /* one connection to a peer over one rail */
    struct sockaddr_in addr;
    struct conn *data; /* the established connection, or NULL */
    struct conn *out;  /* our connection attempt in progress */
    struct txe *q_head, *q_tail;
    size_t q_bytes; /* bytes in the queue not yet written */
    unsigned long long tx_frames, tx_bytes, rx_frames, rx_bytes;
};

struct tpeer {
    int nrails; /* rails usable to this peer: min(ours, theirs) */
    struct rail rail[MAX_RAILS];
    /* a process of another job (index >= size; add_peer): its identity and the secret its
     * job admits, presented in the hello "SMPITCPX" */
    int dynamic;
    uint32_t job;
    int drank;
    char dsecret[SECRET_LEN];
};

struct sm_tcp {
    int rank, size;
    int npeers, peers_cap; /* size + other jobs' processes (add_peer) */
    uint32_t job_id;
    char secret[SECRET_LEN];
    const struct sm_upcalls *up;
    int epfd;
    int nrails; /* local rails (1 without striping) */
    struct conn *listener[MAX_RAILS];
    struct sockaddr_in self[MAX_RAILS];
    struct tpeer *peers;
    int sockbuf, mptcp, notsent_lowat;
    int finalizing;
    int queued;        /* frames in all queues */
    struct conn *dead; /* closed, to be freed when no upcall can still refer to them */
    /* strong progress (see the top of the file) */
    pthread_mutex_t lock; /* recursive; held around every use of the state above */
    pthread_t watchdog;
    int watchdog_on, in_watchdog;
    atomic_int stop_watchdog;
    long watchdog_us;      /* SCTPMPI_TCP_WATCHDOG_US */
    size_t deferred_max;   /* SCTPMPI_TCP_WATCHDOG_MAX: the watchdog stops reading beyond it */
    size_t deferred_bytes; /* payload bytes in the queue below */
    _Atomic uint64_t last_call_us;  /* the application's last progress() */
    struct tdef *dq_head, *dq_tail; /* upcalls waiting for progress() (watchdog) */
    unsigned long long watchdog_runs, deferred_total, rma_direct;
};

/* ---- helpers ------------------------------------------------------------------------------ */
static void set_nonblock(int fd)
{
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/* writev that never raises SIGPIPE when the peer is gone (EPIPE is handled as a lost peer) */
static ssize_t send_iov(int fd, const struct iovec *iov, int n)
{
    struct msghdr m = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n };
    return sendmsg(fd, &m, MSG_NOSIGNAL);
}

static void tune(struct sm_tcp *t, int fd)
{
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (t->sockbuf > 0) {
        setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &t->sockbuf, sizeof t->sockbuf);
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &t->sockbuf, sizeof t->sockbuf);
    }
    /* striping: keep unsent bytes in our queue, not the kernel's, so that the queue of a slow
     * rail grows and the engine sends it fewer segments */
    if (t->nrails > 1 && t->notsent_lowat > 0)
        setsockopt(fd, IPPROTO_TCP, TCP_NOTSENT_LOWAT, &t->notsent_lowat,
                   sizeof t->notsent_lowat);
}

static int new_socket(struct sm_tcp *t)
{
    int fd = -1;
    if (t->mptcp) {
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_MPTCP);
        if (fd < 0) {
            SM_WARN("SCTPMPI_TCP_MPTCP=1 but MPTCP sockets fail (%s); using TCP",
                    strerror(errno));
            t->mptcp = 0;
        }
    }
    if (fd < 0)
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    return fd;
}

static void ep_set(struct sm_tcp *t, struct conn *c, int op, uint32_t ev)
{
    struct epoll_event e = { .events = ev, .data.ptr = c };
    epoll_ctl(t->epfd, op, c->fd, &e);
}

static struct conn *conn_new(struct sm_tcp *t, int fd, int state, int peer, int rail,
                             int outgoing)
{
    struct conn *c = sm_xcalloc(1, sizeof *c);
    c->fd = fd;
    c->state = state;
    c->peer = peer;
    c->rail = rail;
    c->outgoing = outgoing;
    set_nonblock(fd);
    tune(t, fd);
    ep_set(t, c, EPOLL_CTL_ADD, state == C_CONNECTING ? EPOLLOUT : EPOLLIN);
    return c;
}

static void conn_close(struct sm_tcp *t, struct conn *c)
{
    if (c->state == C_DEAD)
        return;
    epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->state = C_DEAD;
    if (c->peer >= 0) {
        struct rail *p = &t->peers[c->peer].rail[c->rail];
        if (p->data == c)
            p->data = NULL;
        if (p->out == c)
            p->out = NULL;
    }
    c->next_dead = t->dead;
    t->dead = c;
}

static void free_dead(struct sm_tcp *t)
{
    while (t->dead) {
        struct conn *c = t->dead;
        t->dead = c->next_dead;
        free(c->stage);
        free(c->own);
        free(c);
    }
}

/* ---- upcalls: direct on the application's thread; from the watchdog thread only rma_frame,
 * the rest waits in arrival order for the next progress() ---------------------------------- */
enum { D_WHOLE, D_END, D_DONE, D_FAILED };
struct tdef {
    struct tdef *next;
    int kind, peer;
    struct sm_frame_hdr hdr;
    void *payload; /* D_WHOLE, D_END: where the payload is */
    void *own;     /* freed after the upcall (our copy) */
    void *cookie;  /* D_DONE */
    char why[96];  /* D_FAILED */
};

static uint64_t now_us(void)
{
    return sm_now_ns() / 1000;
}

static void defer(struct sm_tcp *t, struct tdef *d)
{
    d->next = NULL;
    if (d->kind == D_WHOLE || d->kind == D_END)
        t->deferred_bytes += d->hdr.payload_len;
    if (t->dq_tail)
        t->dq_tail->next = d;
    else
        t->dq_head = d;
    t->dq_tail = d;
    t->deferred_total++;
}

static void up_done(struct sm_tcp *t, void *cookie)
{
    if (!t->in_watchdog) {
        t->up->send_done(t->up->ctx, cookie);
        return;
    }
    struct tdef *d = sm_xcalloc(1, sizeof *d);
    d->kind = D_DONE;
    d->cookie = cookie;
    defer(t, d);
}

static void up_failed(struct sm_tcp *t, int peer, const char *why)
{
    if (!t->in_watchdog) {
        t->up->peer_failed(t->up->ctx, peer, why);
        return;
    }
    struct tdef *d = sm_xcalloc(1, sizeof *d);
    d->kind = D_FAILED;
    d->peer = peer;
    snprintf(d->why, sizeof d->why, "%s", why);
    defer(t, d);
}

static int is_rma(struct sm_tcp *t, const struct sm_frame_hdr *h)
{
    return h->type == SM_F_RMA && t->up->rma_frame;
}

static void count_rx(struct sm_tcp *t, struct conn *c)
{
    struct rail *p = &t->peers[c->peer].rail[c->rail];
    p->rx_frames++;
    p->rx_bytes += sizeof c->hdr + c->hdr.payload_len;
}

/* a whole frame (header c->hdr, payload at src) that no frame_begin has seen yet; own (may be
 * NULL or src) is ours and is freed, or kept by the queue */
static void up_whole(struct sm_tcp *t, struct conn *c, void *src, void *own)
{
    count_rx(t, c);
    size_t len = c->hdr.payload_len;
    if (is_rma(t, &c->hdr)) { /* any thread: the engine's channel takes it at once */
        if (t->in_watchdog)
            t->rma_direct++;
        t->up->rma_frame(t->up->ctx, c->peer, &c->hdr, src);
        free(own);
        return;
    }
    if (t->in_watchdog) {
        struct tdef *d = sm_xcalloc(1, sizeof *d);
        d->kind = D_WHOLE;
        d->peer = c->peer;
        d->hdr = c->hdr;
        if (own) {
            d->own = own;
        } else if (len) {
            d->own = sm_xmalloc(len);
            memcpy(d->own, src, len);
        }
        d->payload = d->own;
        defer(t, d);
        return;
    }
    void *dst = t->up->frame_begin(t->up->ctx, c->peer, &c->hdr);
    if (dst && len)
        memcpy(dst, src, len);
    t->up->frame_end(t->up->ctx, c->peer, &c->hdr, dst ? dst : src);
    free(own);
}

/* the payload of a frame whose frame_begin was called is at payload: frame_end */
static void up_end(struct sm_tcp *t, struct conn *c, void *payload, void *own)
{
    count_rx(t, c);
    if (t->in_watchdog) {
        struct tdef *d = sm_xcalloc(1, sizeof *d);
        d->kind = D_END;
        d->peer = c->peer;
        d->hdr = c->hdr;
        d->payload = payload;
        d->own = own;
        defer(t, d);
        return;
    }
    t->up->frame_end(t->up->ctx, c->peer, &c->hdr, payload);
    free(own);
}

/* the application's thread: hand over what the watchdog queued, in order */
static int replay_deferred(struct sm_tcp *t)
{
    int n = 0;
    while (t->dq_head) {
        struct tdef *d = t->dq_head;
        t->dq_head = d->next;
        if (!t->dq_head)
            t->dq_tail = NULL;
        switch (d->kind) {
        case D_WHOLE: {
            void *dst = t->up->frame_begin(t->up->ctx, d->peer, &d->hdr);
            if (dst && d->hdr.payload_len)
                memcpy(dst, d->payload, d->hdr.payload_len);
            t->up->frame_end(t->up->ctx, d->peer, &d->hdr, dst ? dst : d->payload);
            break;
        }
        case D_END: t->up->frame_end(t->up->ctx, d->peer, &d->hdr, d->payload); break;
        case D_DONE: t->up->send_done(t->up->ctx, d->cookie); break;
        case D_FAILED: t->up->peer_failed(t->up->ctx, d->peer, d->why); break;
        }
        free(d->own);
        free(d);
        n++;
    }
    t->deferred_bytes = 0;
    return n;
}

static void peer_lost(struct sm_tcp *t, struct conn *c, const char *why)
{
    int peer = c->peer;
    struct rail *rl = peer >= 0 ? &t->peers[peer].rail[c->rail] : NULL;
    if (rl && peer >= t->size && rl->data == c && !rl->q_head && !c->in_payload) {
        /* a process of another job closed an idle connection: that is how it disconnects
         * (MPI_Comm_disconnect, its exit); a later send connects again */
        conn_close(t, c);
        return;
    }
    int was_data = rl && (rl->data == c || rl->out == c);
    conn_close(t, c);
    if (was_data && !t->finalizing) {
        /* drop what was queued for the peer on every rail: nobody will take it */
        struct tpeer *tp = &t->peers[peer];
        for (int r = 0; r < tp->nrails; r++) {
            struct rail *p = &tp->rail[r];
            while (p->q_head) {
                struct txe *e = p->q_head;
                p->q_head = e->next;
                t->queued--;
                free(e);
            }
            p->q_tail = NULL;
            p->q_bytes = 0;
        }
        up_failed(t, peer, why);
    }
}

/* ---- sending ------------------------------------------------------------------------------ */
static size_t iov_total(const struct iovec *iov, int n)
{
    size_t s = 0;
    for (int i = 0; i < n; i++)
        s += iov[i].iov_len;
    return s;
}

/* write queued frames of one rail to a peer; returns -1 if the connection broke */
static int flush(struct sm_tcp *t, struct rail *p)
{
    struct conn *c = p->data;
    while (p->q_head) {
        struct txe *e = p->q_head;
        ssize_t n = send_iov(c->fd, e->iov, e->iovcnt);
        if (n < 0) {
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                break;
            if (errno == EINTR)
                continue;
            return -1;
        }
        p->tx_bytes += (size_t)n;
        p->q_bytes -= (size_t)n;
        size_t left = (size_t)n;
        int i = 0;
        while (i < e->iovcnt && left >= e->iov[i].iov_len)
            left -= e->iov[i++].iov_len;
        if (i < e->iovcnt) { /* partial: keep the rest */
            memmove(e->iov, e->iov + i, (size_t)(e->iovcnt - i) * sizeof *e->iov);
            e->iovcnt -= i;
            e->iov[0].iov_base = (char *)e->iov[0].iov_base + left;
            e->iov[0].iov_len -= left;
            break;
        }
        p->q_head = e->next;
        if (!p->q_head)
            p->q_tail = NULL;
        t->queued--;
        p->tx_frames++;
        void *cookie = e->cookie;
        free(e);
        if (cookie)
            up_done(t, cookie);
    }
    ep_set(t, c, EPOLL_CTL_MOD, p->q_head ? EPOLLIN | EPOLLOUT : EPOLLIN);
    return 0;
}

static void enqueue(struct sm_tcp *t, struct rail *p, const struct iovec *iov, int iovcnt,
                    size_t skip, void *cookie, int copy_all)
{
    size_t total = iov_total(iov, iovcnt);
    size_t extra = copy_all ? total : 0;
    size_t left = total - skip; /* skip is consumed below */
    struct txe *e = sm_xmalloc(sizeof *e + extra);
    e->next = NULL;
    e->cookie = copy_all ? NULL : cookie;
    e->iovcnt = 0;
    if (copy_all) {
        size_t o = 0;
        for (int i = 0; i < iovcnt; i++) {
            memcpy(e->small + o, iov[i].iov_base, iov[i].iov_len);
            o += iov[i].iov_len;
        }
        e->iov[0].iov_base = e->small + skip;
        e->iov[0].iov_len = total - skip;
        e->iovcnt = 1;
    } else {
        /* copy the header (the engine builds it on its stack); reference the rest */
        memcpy(e->hdr, iov[0].iov_base, iov[0].iov_len);
        for (int i = 0; i < iovcnt && e->iovcnt < 3; i++) {
            const char *base = i == 0 ? (const char *)e->hdr : iov[i].iov_base;
            size_t len = iov[i].iov_len;
            if (skip >= len) {
                skip -= len;
                continue;
            }
            e->iov[e->iovcnt].iov_base = (void *)(base + skip);
            e->iov[e->iovcnt].iov_len = len - skip;
            skip = 0;
            e->iovcnt++;
        }
    }
    if (p->q_tail)
        p->q_tail->next = e;
    else
        p->q_head = e;
    p->q_tail = e;
    p->q_bytes += left;
    t->queued++;
}

static int start_connect(struct sm_tcp *t, int peer, int rail)
{
    struct rail *p = &t->peers[peer].rail[rail];
    int fd = new_socket(t);
    if (fd < 0)
        return -1;
    if (t->nrails > 1) { /* leave from our address on this rail */
        struct sockaddr_in src = t->self[rail];
        src.sin_port = 0;
        if (bind(fd, (struct sockaddr *)&src, sizeof src))
            SM_WARN("cannot bind rail %d's source address: %s", rail, strerror(errno));
    }
    struct conn *c = conn_new(t, fd, C_CONNECTING, peer, rail, 1);
    p->out = c;
    if (connect(fd, (struct sockaddr *)&p->addr, sizeof p->addr) < 0 && errno != EINPROGRESS) {
        SM_ERR("connect to rank %d failed: %s", peer, strerror(errno));
        peer_lost(t, c, "connect failed");
        return -1;
    }
    return 0;
}

static int send_locked(struct sm_tcp *t, int peer, int lane, const struct iovec *iov, int iovcnt,
                       void *cookie)
{
    if (peer < 0 || peer >= t->npeers || peer == t->rank)
        return -MPI_ERR_RANK;
    int rail = SM_LANE_RAIL(lane);
    if (rail >= t->peers[peer].nrails)
        return -MPI_ERR_OTHER;
    struct rail *p = &t->peers[peer].rail[rail];
    size_t total = iov_total(iov, iovcnt);
    size_t done = 0;
    if (p->data && !p->q_head) {
        for (;;) {
            ssize_t n = send_iov(p->data->fd, iov, iovcnt);
            if (n >= 0) {
                done = (size_t)n;
                break;
            }
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                peer_lost(t, p->data, strerror(errno));
                return -MPI_ERR_OTHER;
            }
            break;
        }
        p->tx_bytes += done;
        if (done == total) {
            p->tx_frames++;
            return 0;
        }
    }
    if (!p->data && !p->out && start_connect(t, peer, rail))
        return -MPI_ERR_OTHER;
    int copy_all = total <= COPY_SMALL || !cookie;
    enqueue(t, p, iov, iovcnt, done, cookie, copy_all);
    if (p->data)
        ep_set(t, p->data, EPOLL_CTL_MOD, EPOLLIN | EPOLLOUT);
    return copy_all ? 0 : 1;
}

static int tcp_send(struct sm_transport *handle, int peer, int lane, const struct iovec *iov,
                    int iovcnt, void *cookie)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    pthread_mutex_lock(&t->lock);
    int rc = send_locked(t, peer, lane, iov, iovcnt, cookie);
    pthread_mutex_unlock(&t->lock);
    return rc;
}

/* ---- handshake ---------------------------------------------------------------------------- */
/* to a rank of this job: "SMPITCP1" rank size secret; to a process of another job:
 * "SMPITCPX" rank job-id secret-of-its-job */
static void make_hello(struct sm_tcp *t, unsigned char *h, int peer)
{
    memset(h, 0, HELLO_LEN);
    const struct tpeer *tp = &t->peers[peer];
    memcpy(h, tp->dynamic ? "SMPITCPX" : "SMPITCP1", 8);
    int32_t r = t->rank, s = tp->dynamic ? (int32_t)t->job_id : t->size;
    memcpy(h + 8, &r, 4);
    memcpy(h + 12, &s, 4);
    memcpy(h + 16, tp->dynamic ? tp->dsecret : t->secret, SECRET_LEN);
}

static void establish(struct sm_tcp *t, struct conn *c)
{
    struct rail *p = &t->peers[c->peer].rail[c->rail];
    c->state = C_ESTABLISHED;
    p->data = c;
    if (p->out == c)
        p->out = NULL;
    c->stage = sm_xmalloc(STAGE_LEN);
    if (p->q_head && flush(t, p))
        peer_lost(t, c, "write failed");
    else
        ep_set(t, c, EPOLL_CTL_MOD, p->q_head ? EPOLLIN | EPOLLOUT : EPOLLIN);
}

static void on_connected(struct sm_tcp *t, struct conn *c)
{
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err) {
        SM_ERR("connect to rank %d failed: %s", c->peer, strerror(err));
        peer_lost(t, c, "connect failed");
        return;
    }
    unsigned char h[HELLO_LEN];
    make_hello(t, h, c->peer);
    if (send(c->fd, h, HELLO_LEN, MSG_NOSIGNAL) !=
        HELLO_LEN) { /* a fresh socket always takes 64 bytes */
        peer_lost(t, c, "hello failed");
        return;
    }
    c->state = C_HELLO_SENT;
    c->hello_have = 0;
    ep_set(t, c, EPOLL_CTL_MOD, EPOLLIN);
}

/* connector: read the 8-byte answer */
static void on_answer(struct sm_tcp *t, struct conn *c)
{
    ssize_t n = read(c->fd, c->hello + c->hello_have, 8 - c->hello_have);
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        peer_lost(t, c, "connection closed during hello");
        return;
    }
    c->hello_have += (size_t)n;
    if (c->hello_have < 8)
        return;
    if (!memcmp(c->hello, "SMPIACK1", 8)) {
        establish(t, c);
    } else if (!memcmp(c->hello, "SMPIREJ1", 8)) {
        /* the peer's own connection wins; our queue waits for it */
        struct rail *p = &t->peers[c->peer].rail[c->rail];
        p->out = NULL;
        c->peer = -1;
        conn_close(t, c);
    } else {
        peer_lost(t, c, "bad hello answer");
    }
}

static void reject_at(struct sm_tcp *t, struct conn *c, int level, const char *why)
{
    struct sockaddr_in a;
    socklen_t al = sizeof a;
    char ip[INET_ADDRSTRLEN] = "?";
    if (!getpeername(c->fd, (struct sockaddr *)&a, &al))
        inet_ntop(AF_INET, &a.sin_addr, ip, sizeof ip);
    sm_log(level, "rejected a TCP connection from %s:%u: %s", ip, ntohs(a.sin_port), why);
    c->peer = -1;
    conn_close(t, c);
}

static void reject(struct sm_tcp *t, struct conn *c, const char *why)
{
    reject_at(t, c, 0, why);
}

/* acceptor: read the 64-byte hello and decide */
static void on_hello(struct sm_tcp *t, struct conn *c)
{
    ssize_t n = read(c->fd, c->hello + c->hello_have, HELLO_LEN - c->hello_have);
    if (n <= 0) {
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            return;
        reject_at(t, c, 1, "closed before its hello");
        return;
    }
    c->hello_have += (size_t)n;
    size_t cmp = c->hello_have < 7 ? c->hello_have : 7; /* "SMPITCP1" or "SMPITCPX" */
    if (memcmp(c->hello, "SMPITCP1", cmp)) {
        reject(t, c, "not an sctpmpi hello");
        return;
    }
    if (c->hello_have < HELLO_LEN)
        return;
    int32_t r, s;
    memcpy(&r, c->hello + 8, 4);
    memcpy(&s, c->hello + 12, 4);
    int other_job = !memcmp(c->hello, "SMPITCPX", 8);
    if (!other_job && memcmp(c->hello, "SMPITCP1", 8)) {
        reject(t, c, "not an sctpmpi hello");
        return;
    }
    char secret[SECRET_LEN + 1];
    memcpy(secret, c->hello + 16, SECRET_LEN);
    secret[SECRET_LEN] = '\0';
    uint32_t rjob = (uint32_t)s;
    if (other_job) { /* a process of another job: it presents this job's secret */
        if (!sm_secret_equal(secret, t->secret, sizeof secret)) {
            reject(t, c, "wrong job secret");
            return;
        }
        int idx = -1; /* known already (add_peer), else the engine adds it */
        for (int i = t->size; i < t->npeers && idx < 0; i++)
            if (t->peers[i].job == rjob && t->peers[i].drank == r)
                idx = i;
        if (idx < 0 && rjob != t->job_id && r >= 0 && t->up->peer_lookup)
            idx = t->up->peer_lookup(t->up->ctx, rjob, r);
        if (idx < t->size || idx >= t->npeers) {
            reject(t, c, "hello names an unknown process of another job");
            return;
        }
        r = idx;
    } else {
        const char *bad =
            sm_hello_admit(r, s, secret, sizeof secret, t->rank, t->size, -1, t->secret);
        if (bad) {
            reject(t, c, bad);
            return;
        }
    }
    if (c->rail >= t->peers[r].nrails) {
        reject(t, c, "connection on a rail this peer does not have");
        return;
    }
    struct rail *p = &t->peers[r].rail[c->rail];
    /* the lower (job id, rank) wins */
    int we_win = other_job
                     ? (t->job_id < rjob || (t->job_id == rjob && t->rank < t->peers[r].drank))
                     : t->rank < r;
    if (p->data || (p->out && we_win)) {
        /* both sides connected at once (the secret is right): the lower rank's wins */
        (void)!send(c->fd, "SMPIREJ1", 8, MSG_NOSIGNAL);
        c->peer = -1;
        conn_close(t, c);
        return;
    }
    if (send(c->fd, "SMPIACK1", 8, MSG_NOSIGNAL) != 8) {
        reject(t, c, "cannot answer its hello");
        return;
    }
    if (p->out) { /* theirs wins: drop our attempt quietly, the queue moves to theirs */
        struct conn *o = p->out;
        p->out = NULL;
        o->peer = -1;
        conn_close(t, o);
    }
    c->peer = r;
    establish(t, c);
}

static void on_accept(struct sm_tcp *t, struct conn *l)
{
    for (;;) {
        int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return;
        conn_new(t, fd, C_WAIT_HELLO, -1, l->rail, 0);
    }
}

/* ---- receiving ---------------------------------------------------------------------------- */
/* a length no frame may have: the stream cannot be delimited any more (the engine checks the
 * rest of the header) */
static int bad_frame(const struct sm_frame_hdr *h)
{
    return h->payload_len > SM_WIRE_MAX_PAYLOAD;
}

/* returns -1 when the connection is gone */
static int on_readable(struct sm_tcp *t, struct conn *c)
{
    for (int rounds = 0; rounds < 64; rounds++) {
        if (c->in_payload) {
            /* large payload: straight into its destination */
            size_t want = c->hdr.payload_len - c->got;
            ssize_t n = recv(c->fd, c->dst + c->got, want, 0);
            if (n <= 0)
                goto rd_err;
            c->got += (size_t)n;
            if (c->got < c->hdr.payload_len) {
                if ((size_t)n < want)
                    return 0; /* drained: wait for the next readiness event */
                continue;
            }
            c->in_payload = 0;
            unsigned char *own = c->own;
            c->own = NULL;
            if (c->late_begin) { /* whole now: hand it over in one begin/end pair */
                c->late_begin = 0;
                up_whole(t, c, own, own);
            } else {
                up_end(t, c, c->dst, own);
            }
            if (c->state != C_ESTABLISHED)
                return -1;
            continue;
        }
        if (c->off == c->have)
            c->off = c->have = 0;
        else if (c->off > STAGE_LEN / 2) {
            memmove(c->stage, c->stage + c->off, c->have - c->off);
            c->have -= c->off;
            c->off = 0;
        }
        size_t space = STAGE_LEN - c->have;
        ssize_t n = recv(c->fd, c->stage + c->have, space, 0);
        if (n <= 0)
            goto rd_err;
        c->have += (size_t)n;
        int drained = (size_t)n < space;
        while (c->have - c->off >= sizeof(struct sm_frame_hdr)) {
            memcpy(&c->hdr, c->stage + c->off, sizeof c->hdr);
            if (bad_frame(&c->hdr)) {
                SM_ERR("malformed frame from rank %d (version %u, type %u, length %u): closing",
                       c->peer, c->hdr.version, c->hdr.type, c->hdr.payload_len);
                peer_lost(t, c, "malformed frame");
                return -1;
            }
            size_t avail = c->have - c->off - sizeof c->hdr;
            size_t len = c->hdr.payload_len;
            if (avail >= len) {
                unsigned char *src = c->stage + c->off + sizeof c->hdr;
                c->off += sizeof c->hdr + len;
                up_whole(t, c, src, NULL);
                if (c->state != C_ESTABLISHED)
                    return -1;
                continue;
            }
            if (len <= STAGE_LEN - sizeof c->hdr && c->off + sizeof c->hdr + len <= STAGE_LEN)
                break; /* will fit in the stage: read more */
            /* With several rails only DATA frames may be open (between frame_begin and
             * frame_end) while another rail delivers frames of the same peer (transport.h):
             * any other frame is made whole before its upcalls. */
            /* The watchdog thread never calls frame_begin, and RMA frames go whole to
             * rma_frame: both gather the payload in our memory first, too. */
            int whole_first = (t->nrails > 1 && c->hdr.type != SM_F_DATA) || t->in_watchdog ||
                              is_rma(t, &c->hdr);
            if (whole_first && len <= STAGE_LEN - sizeof c->hdr) {
                memmove(c->stage, c->stage + c->off, c->have - c->off);
                c->have -= c->off;
                c->off = 0;
                break; /* fits at the start of the stage: read more */
            }
            /* the payload goes to its destination directly */
            void *dst = whole_first ? NULL : t->up->frame_begin(t->up->ctx, c->peer, &c->hdr);
            c->late_begin = whole_first;
            c->dst = dst ? dst : (c->own = sm_xmalloc(len));
            memcpy(c->dst, c->stage + c->off + sizeof c->hdr, avail);
            c->got = avail;
            c->in_payload = 1;
            c->off = c->have = 0;
            break;
        }
        if (!c->in_payload && c->off < c->have && c->off > 0 &&
            c->have - c->off < sizeof(struct sm_frame_hdr)) {
            memmove(c->stage, c->stage + c->off, c->have - c->off);
            c->have -= c->off;
            c->off = 0;
        }
        if (drained && !c->in_payload)
            return 0; /* a short read: nothing more is waiting */
    }
    return 0;
rd_err:
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
        return 0;
    peer_lost(t, c, "connection closed by the peer");
    return -1;
}

static void on_event(struct sm_tcp *t, struct conn *c, uint32_t ev)
{
    switch (c->state) {
    case C_CONNECTING:
        if (ev & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            on_connected(t, c);
        return;
    case C_HELLO_SENT: on_answer(t, c); return;
    case C_WAIT_HELLO: on_hello(t, c); return;
    case C_ESTABLISHED: break;
    default: return;
    }
    if ((ev & (EPOLLIN | EPOLLERR | EPOLLHUP)) && on_readable(t, c))
        return;
    if (ev & EPOLLOUT) {
        struct rail *p = &t->peers[c->peer].rail[c->rail];
        if (flush(t, p))
            peer_lost(t, c, "write failed");
    }
}

static void handle_events(struct sm_tcp *t, const struct epoll_event *ev, int n)
{
    for (int i = 0; i < n; i++) {
        struct conn *c = ev[i].data.ptr;
        if (c->state == C_LISTEN)
            on_accept(t, c);
        else if (c->state != C_DEAD)
            on_event(t, c, ev[i].events);
    }
}

static int tcp_progress(struct sm_transport *handle, long timeout_us)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    pthread_mutex_lock(&t->lock);
    atomic_store(&t->last_call_us, now_us());
    int k = replay_deferred(t);
    if (k)
        timeout_us = 0; /* deliveries were waiting: do not block */
    struct epoll_event ev[32];
    int ms = timeout_us < 0 ? -1 : timeout_us == 0 ? 0 : (int)((timeout_us + 999) / 1000);
    /* may block with the lock held: the watchdog then leaves the sockets to this thread */
    int n = epoll_wait(t->epfd, ev, 32, ms);
    if (n < 0) {
        n = errno == EINTR ? 0 : -1;
    } else {
        handle_events(t, ev, n);
        n += k;
    }
    free_dead(t);
    atomic_store(&t->last_call_us, now_us());
    pthread_mutex_unlock(&t->lock);
    return n;
}

/* ---- strong progress: the watchdog thread ------------------------------------------------ */
static void *watchdog_main(void *arg)
{
    struct sm_tcp *t = arg;
    const uint64_t tick = (uint64_t)t->watchdog_us;
    while (!atomic_load(&t->stop_watchdog)) {
        struct timespec ts = { (time_t)(tick / 1000000), (long)(tick % 1000000) * 1000 };
        nanosleep(&ts, NULL);
        if (now_us() - atomic_load(&t->last_call_us) < tick)
            continue; /* the application is driving progress itself */
        if (pthread_mutex_trylock(&t->lock) != 0)
            continue;
        /* past the cap the kernel's flow control holds the senders back until progress() */
        if (!atomic_load(&t->stop_watchdog) && t->deferred_bytes <= t->deferred_max) {
            t->in_watchdog = 1;
            struct epoll_event ev[32];
            for (int round = 0; round < 16; round++) {
                int n = epoll_wait(t->epfd, ev, 32, 0);
                if (n <= 0)
                    break;
                handle_events(t, ev, n);
                if (n < 32)
                    break;
            }
            t->in_watchdog = 0;
            free_dead(t);
            t->watchdog_runs++;
        }
        pthread_mutex_unlock(&t->lock);
    }
    return NULL;
}

/* the first window opened: start the watchdog (point-to-point alone never needs it: the
 * kernel's TCP keeps moving bytes while the application computes) */
static void tcp_rma_open(struct sm_transport *handle)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    pthread_mutex_lock(&t->lock);
    if (!t->watchdog_on && t->watchdog_us > 0 && t->size > 1) {
        atomic_store(&t->stop_watchdog, 0);
        if (pthread_create(&t->watchdog, NULL, watchdog_main, t) == 0)
            t->watchdog_on = 1;
        else
            SM_WARN("tcp: no watchdog thread: one-sided progress only inside MPI calls");
    }
    pthread_mutex_unlock(&t->lock);
}

static void stop_watchdog(struct sm_tcp *t)
{
    if (!t->watchdog_on)
        return;
    atomic_store(&t->stop_watchdog, 1);
    pthread_join(t->watchdog, NULL);
    t->watchdog_on = 0;
}

static void tcp_lock(struct sm_transport *handle)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    pthread_mutex_lock(&t->lock);
}

static void tcp_unlock(struct sm_transport *handle)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    pthread_mutex_unlock(&t->lock);
}

/* ---- set-up and the table ----------------------------------------------------------------- */
static int listen_on(struct sm_tcp *t, int rail, const char *ip)
{
    struct sockaddr_in *a = &t->self[rail];
    a->sin_family = AF_INET;
    if (inet_pton(AF_INET, ip, &a->sin_addr) != 1) {
        SM_ERR("bad local address '%s' (SCTPMPI_TCP_ADDR / SCTPMPI_ADDRS)", ip);
        return -1;
    }
    int fd = new_socket(t);
    int one = 1;
    if (fd >= 0)
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    /* MPTCP: listen on every address, so that subflows joining on the addresses the kernel
     * announces (ip mptcp endpoint ... signal) find the listener; the card names `ip` */
    struct sockaddr_in b = *a;
    if (t->mptcp)
        b.sin_addr.s_addr = htonl(INADDR_ANY);
    if (fd < 0 || bind(fd, (struct sockaddr *)&b, sizeof b) || listen(fd, 1024)) {
        SM_ERR("cannot listen on %s: %s", ip, strerror(errno));
        if (fd >= 0)
            close(fd);
        return -1;
    }
    socklen_t sl = sizeof b;
    getsockname(fd, (struct sockaddr *)&b, &sl);
    a->sin_port = b.sin_port;
    struct conn *l = sm_xcalloc(1, sizeof *l);
    l->fd = fd;
    l->peer = -1;
    l->rail = rail;
    l->state = C_LISTEN;
    set_nonblock(fd);
    ep_set(t, l, EPOLL_CTL_ADD, EPOLLIN);
    t->listener[rail] = l;
    return 0;
}

static int tcp_init(const struct sm_transport_args *a, struct sm_transport **out, char *card,
                    size_t cardlen)
{
    struct sm_tcp *t = sm_xcalloc(1, sizeof *t);
    t->rank = a->rank;
    t->size = a->size;
    t->up = a->up;
    snprintf(t->secret, sizeof t->secret, "%s", a->secret ? a->secret : "");
    t->sockbuf = (int)sm_env_size("SCTPMPI_SOCKBUF", 0);
    t->mptcp = sm_env_bool("SCTPMPI_TCP_MPTCP", 0);
    t->notsent_lowat = (int)sm_env_size("SCTPMPI_TCP_NOTSENT_LOWAT", 1024 * 1024);
    t->watchdog_us = (long)sm_env_int("SCTPMPI_TCP_WATCHDOG_US", 2000);
    t->deferred_max = (size_t)sm_env_size("SCTPMPI_TCP_WATCHDOG_MAX", 64 << 20);
    pthread_mutexattr_t ma; /* recursive: upcalls inside progress() and rma_frame send */
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&t->lock, &ma);
    pthread_mutexattr_destroy(&ma);
    int stripe = sm_env_bool("SCTPMPI_TCP_STRIPE", 0);
    t->peers = sm_xcalloc((size_t)a->size, sizeof *t->peers);
    t->npeers = t->peers_cap = a->size;
    t->job_id = a->job_id;
    t->epfd = epoll_create1(EPOLL_CLOEXEC);
    const char *ips[MAX_RAILS];
    ips[0] = sm_env_str("SCTPMPI_TCP_ADDR", a->naddrs > 0 ? a->addrs[0] : "127.0.0.1");
    t->nrails = 1;
    if (stripe) {
        if (t->mptcp) {
            SM_WARN("SCTPMPI_TCP_STRIPE=1 with SCTPMPI_TCP_MPTCP=1: striping over plain TCP, "
                    "MPTCP off");
            t->mptcp = 0;
        }
        if (a->naddrs > MAX_RAILS)
            SM_WARN("SCTPMPI_TCP_STRIPE: %d addresses, striping over the first %d", a->naddrs,
                    MAX_RAILS);
        for (int i = 1; i < a->naddrs && i < MAX_RAILS; i++)
            ips[t->nrails++] = a->addrs[i];
        if (t->nrails == 1)
            SM_WARN("SCTPMPI_TCP_STRIPE=1 but SCTPMPI_ADDRS names one address: one rail");
    }
    size_t o = (size_t)snprintf(card, cardlen, "tcp");
    for (int r = 0; r < t->nrails; r++) {
        if (listen_on(t, r, ips[r]))
            return -1;
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &t->self[r].sin_addr, ip, sizeof ip);
        if (o < cardlen)
            o += (size_t)snprintf(card + o, cardlen - o, "%s%s:%u", r ? ";" : ":", ip,
                                  ntohs(t->self[r].sin_port));
    }
    if (o >= cardlen) {
        SM_ERR("business card too long for %d rails", t->nrails);
        return -1;
    }
    *out = (struct sm_transport *)t;
    return 0;
}

/* card: "tcp:IP:PORT" or, with rails, "tcp:IP0:PORT0;IP1:PORT1;..." */
static int parse_card(struct sm_tcp *t, int i, const char *card);

static int tcp_set_peers(struct sm_transport *handle, const char *const *cards)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    for (int i = 0; i < t->size; i++)
        if (parse_card(t, i, cards[i]))
            return -1;
    atomic_store(&t->last_call_us, now_us());
    return 0;
}

/* peer i's addresses and rails from its card */
static int parse_card(struct sm_tcp *t, int i, const char *card)
{
    {
        if (strncmp(card, "tcp:", 4)) {
            SM_ERR("rank %d's business card '%s' is not a tcp card", i, card);
            return -1;
        }
        const char *c = card + 4;
        int n = 0;
        while (*c && n < MAX_RAILS) {
            char ip[64];
            unsigned port;
            int used = 0;
            if (sscanf(c, "%63[^:;]:%u%n", ip, &port, &used) != 2 || port > 65535) {
                SM_ERR("rank %d's business card '%s' is not a tcp card", i, card);
                return -1;
            }
            struct sockaddr_in *s = &t->peers[i].rail[n].addr;
            s->sin_family = AF_INET;
            s->sin_port = htons((uint16_t)port);
            if (inet_pton(AF_INET, ip, &s->sin_addr) != 1) {
                SM_ERR("rank %d's business card '%s' has a bad address", i, card);
                return -1;
            }
            n++;
            c += used;
            if (*c == ';')
                c++;
        }
        t->peers[i].nrails = n < t->nrails ? n : t->nrails;
        if (n == 0) {
            SM_ERR("rank %d's business card '%s' names no address", i, card);
            return -1;
        }
    }
    return 0;
}

/* ---- processes of other jobs (transport.h "Other jobs' processes") ------------------------ */
static int tcp_add_peer(struct sm_transport *handle, int peer, uint32_t job, int rank,
                        const char *card, const char *secret)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    pthread_mutex_lock(&t->lock);
    int rc = 0;
    if (peer < t->size || peer > t->npeers) {
        rc = -1;
        goto out;
    }
    if (peer == t->npeers) {
        if (t->npeers == t->peers_cap) {
            int cap = 2 * t->peers_cap + 16;
            struct tpeer *np = realloc(t->peers, sizeof *np * (size_t)cap);
            if (!np) {
                rc = -1;
                goto out;
            }
            t->peers = np;
            t->peers_cap = cap;
        }
        memset(&t->peers[peer], 0, sizeof t->peers[peer]);
        t->peers[peer].nrails = 1; /* until its card says: it may reach us first */
        t->npeers++;
    }
    struct tpeer *tp = &t->peers[peer];
    tp->dynamic = 1;
    tp->job = job;
    tp->drank = rank;
    if (secret)
        snprintf(tp->dsecret, sizeof tp->dsecret, "%s", secret);
    if (card && *card) {
        struct tpeer save = *tp;
        rc = parse_card(t, peer, card);
        if (rc)
            *tp = save;
    }
out:
    pthread_mutex_unlock(&t->lock);
    return rc;
}

static int tcp_lanes(struct sm_transport *handle)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    (void)t;
    return 1;
}

static int rails_locked(struct sm_tcp *t, int peer, struct sm_rail_load *load, int max)
{
    struct tpeer *p = &t->peers[peer];
    for (int r = 0; load && r < p->nrails && r < max; r++) {
        int outq = 0;
        load[r].queued = p->rail[r].q_bytes;
        if (p->rail[r].data && ioctl(p->rail[r].data->fd, SIOCOUTQ, &outq) == 0 && outq > 0)
            load[r].unacked = (size_t)outq;
        else
            load[r].unacked = 0;
    }
    return p->nrails;
}

static int tcp_rails(struct sm_transport *handle, int peer, struct sm_rail_load *load, int max)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    pthread_mutex_lock(&t->lock);
    int n = rails_locked(t, peer, load, max);
    pthread_mutex_unlock(&t->lock);
    return n;
}

static size_t tcp_max_payload(struct sm_transport *handle)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    (void)t;
    return SM_WIRE_MAX_PAYLOAD;
}

static int tcp_busy(struct sm_transport *handle)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    pthread_mutex_lock(&t->lock);
    t->finalizing = 1; /* only MPI_Finalize asks: EOFs from now on are expected */
    int busy = t->queued > 0 || t->dq_head;
    pthread_mutex_unlock(&t->lock);
    return busy;
}

static int peer_info_locked(struct sm_tcp *t, int peer, char *buf, size_t len)
{
    struct tpeer *tp = &t->peers[peer];
    size_t o = 0;
    for (int r = 0; r < tp->nrails && o < len; r++) {
        struct rail *p = &tp->rail[r];
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &p->addr.sin_addr, ip, sizeof ip);
        o += (size_t)snprintf(buf + o, len - o, "%stcp %s:%u %s", r ? ", " : "", ip,
                              ntohs(p->addr.sin_port),
                              p->data  ? "connected"
                              : p->out ? "connecting"
                                       : "not connected");
    }
    return (int)o;
}

static int tcp_peer_info(struct sm_transport *handle, int peer, char *buf, size_t len)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    pthread_mutex_lock(&t->lock);
    int n = peer_info_locked(t, peer, buf, len);
    pthread_mutex_unlock(&t->lock);
    return n;
}

static void tcp_stats(struct sm_transport *handle, void *file)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    FILE *f = file;
    pthread_mutex_lock(&t->lock);
    if (t->watchdog_on)
        fprintf(f,
                "sctpmpi[%d] tcp: watchdog runs %llu, RMA frames delivered by it %llu, "
                "deliveries it deferred %llu\n",
                t->rank, t->watchdog_runs, t->rma_direct, t->deferred_total);
    for (int i = 0; i < t->npeers; i++) {
        struct tpeer *tp = &t->peers[i];
        for (int r = 0; r < tp->nrails; r++) {
            struct rail *p = &tp->rail[r];
            if (!p->tx_frames && !p->rx_frames)
                continue;
            char railname[32] = "";
            if (t->nrails > 1)
                snprintf(railname, sizeof railname, " rail %d", r);
            fprintf(f,
                    "sctpmpi[%d] tcp peer %d%s: sent %llu frames %llu bytes, received %llu "
                    "frames %llu bytes%s\n",
                    t->rank, i, railname, p->tx_frames, p->tx_bytes, p->rx_frames, p->rx_bytes,
                    t->mptcp ? " (mptcp)" : "");
        }
    }
    pthread_mutex_unlock(&t->lock);
}

static int tcp_finalize(struct sm_transport *handle)
{
    struct sm_tcp *t = (struct sm_tcp *)handle;
    stop_watchdog(t);
    t->finalizing = 1;
    while (t->dq_head) { /* nothing more is handed over */
        struct tdef *d = t->dq_head;
        t->dq_head = d->next;
        free(d->own);
        free(d);
    }
    for (int i = 0; i < t->npeers; i++) {
        struct tpeer *tp = &t->peers[i];
        for (int r = 0; r < tp->nrails; r++) {
            struct rail *p = &tp->rail[r];
            if (p->data)
                conn_close(t, p->data);
            if (p->out)
                conn_close(t, p->out);
            while (p->q_head) {
                struct txe *e = p->q_head;
                p->q_head = e->next;
                free(e);
            }
        }
    }
    free_dead(t);
    for (int r = 0; r < t->nrails; r++)
        if (t->listener[r]) {
            close(t->listener[r]->fd);
            free(t->listener[r]);
        }
    close(t->epfd);
    free(t->peers);
    pthread_mutex_destroy(&t->lock);
    free(t);
    return 0;
}

const struct sm_transport_ops sm_transport_tcp = {
    .name = "tcp",
    .init = tcp_init,
    .set_peers = tcp_set_peers,
    .lanes = tcp_lanes,
    .max_payload = tcp_max_payload,
    .send = tcp_send,
    .progress = tcp_progress,
    .busy = tcp_busy,
    .peer_info = tcp_peer_info,
    .stats = tcp_stats,
    .finalize = tcp_finalize,
    .rails = tcp_rails,
    .lock = tcp_lock,
    .unlock = tcp_unlock,
    .rma_open = tcp_rma_open,
    .add_peer = tcp_add_peer,
};
