/* main.c — simnet, the network simulator behind `mpiexec --sim TOPO`: accepts one connection
 * per rank, then runs the event loop of the virtual clock.  An event at key k is processed
 * only when every rank still running has reported a virtual time past k (its next message
 * cannot come before it); ranks blocked in MPI do not hold the clock back, so when every rank
 * waits the clock jumps to the next event.  Prints the virtual run time at exit.
 *
 * usage: simnet --topo FILE -n N --listen-fd FD [--seed S] [--pcap DIR] [--status-fd FD]
 * (mpiexec creates the listening Unix socket and passes it; docs/simulation.md) */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "simnet.h"

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void usage(void)
{
    fprintf(stderr, "usage: simnet --topo FILE -n N --listen-fd FD [--seed S] [--pcap DIR] "
                    "[--status-fd FD]\n");
}

static void handle_msg(struct sn_sim *s, struct sn_rank *k, const struct sim_msg *m,
                       const uint8_t *data)
{
    if (k->state == SN_DONE)
        return;
    if (m->vt_ns > k->vt)
        k->vt = m->vt_ns;
    switch (m->type) {
    case SIM_SEND: {
        struct sn_frame *f = malloc(sizeof *f + m->len);
        if (!f)
            exit(1);
        memset(f, 0, sizeof *f);
        f->peer = m->peer;
        f->lane = m->lane;
        f->token = m->arg;
        f->len = m->len;
        memcpy(f->data, data, m->len);
        struct sn_ev e = {
            { k->vt, 1, (uint32_t)k->rank, k->next_seq++ }, EV_SEND, k->rank, 0, 0, f
        };
        sn_push(s, &e);
        k->frames_in++;
        break;
    }
    case SIM_PROGRESS: {
        struct sn_ev e = {
            { k->vt, 2, (uint32_t)k->rank, k->next_seq++ }, EV_CHECK, k->rank, 0, m->arg, NULL
        };
        sn_push(s, &e);
        k->state = SN_WAITING;
        break;
    }
    case SIM_BYE:
        k->state = SN_DONE;
        s->ndone++;
        k->end_vt = k->vt;
        k->bye = 1;
        break;
    default:
        fprintf(stderr, "simnet: rank %d: unexpected message type %u\n", k->rank, m->type);
        s->failed = 1;
    }
}

/* read what rank k sent; returns -1 when its connection ended */
static int pump_rank(struct sn_sim *s, struct sn_rank *k)
{
    for (;;) {
        if (k->incap - k->inlen < 65536) {
            k->incap = k->incap ? 2 * k->incap : 128 << 10;
            k->in = realloc(k->in, k->incap);
            if (!k->in)
                exit(1);
        }
        ssize_t r = recv(k->fd, k->in + k->inlen, k->incap - k->inlen, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (r <= 0)
            return -1;
        k->inlen += (size_t)r;
        size_t off = 0;
        while (k->inlen - off >= sizeof(struct sim_msg)) {
            struct sim_msg m;
            memcpy(&m, k->in + off, sizeof m);
            if (m.len > SIM_MSG_MAX_LEN) {
                fprintf(stderr, "simnet: rank %d: bad message\n", k->rank);
                return -1;
            }
            if (k->inlen - off < sizeof m + m.len)
                break;
            handle_msg(s, k, &m, k->in + off + sizeof m);
            off += sizeof m + m.len;
        }
        memmove(k->in, k->in + off, k->inlen - off);
        k->inlen -= off;
    }
    return 0;
}

/* smallest key a running rank's next message can have */
static int bound(const struct sn_sim *s, struct sn_key *b)
{
    int any = 0;
    for (int r = 0; r < s->n; r++) {
        const struct sn_rank *k = &s->ranks[r];
        if (k->state != SN_RUN && k->state != SN_CONNECTING)
            continue;
        struct sn_key x = { k->vt, 1, (uint32_t)r, k->next_seq };
        if (!any || sn_key_less(&x, b))
            *b = x;
        any = 1;
    }
    return any;
}

static int all_done(const struct sn_sim *s)
{
    return s->ndone == s->n;
}

static void process(struct sn_sim *s, struct sn_ev *e)
{
    s->now = e->k.t;
    s->events++;
    switch (e->kind) {
    case EV_PKT: sn_net_packet(s, e->data); break;
    case EV_TIMER:
        if (e->gen == s->ranks[e->rank].timer_gen)
            sn_net_timer(s, e->rank);
        break;
    case EV_TOPO: sn_net_topo_event(s, (int)e->arg); break;
    case EV_SEND: sn_net_send(s, e->rank, e->data); break;
    case EV_CHECK: sn_rank_check(s, e->rank, e->arg); break;
    case EV_BATCH: sn_net_batch_end(s, e->rank); break;
    case EV_WAKE:
        if (e->gen == s->ranks[e->rank].wake_gen)
            sn_rank_wake(s, e->rank);
        break;
    }
    for (int i = 0; i < s->nwake; i++)
        sn_rank_wake(s, s->wake[i]);
    s->nwake = 0;
}

int main(int argc, char **argv)
{
    const char *topo_path = NULL, *pcap_dir = NULL;
    int n = 0, lfd = -1, status_fd = -1;
    long long seed = -1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            usage();
            return 2;
        }
        if (!strcmp(a, "--topo"))
            topo_path = v;
        else if (!strcmp(a, "-n"))
            n = atoi(v);
        else if (!strcmp(a, "--listen-fd"))
            lfd = atoi(v);
        else if (!strcmp(a, "--seed"))
            seed = strtoll(v, NULL, 0);
        else if (!strcmp(a, "--pcap"))
            pcap_dir = v;
        else if (!strcmp(a, "--status-fd"))
            status_fd = atoi(v);
        else {
            usage();
            return 2;
        }
        i++;
    }
    if (!topo_path || n < 1 || lfd < 0) {
        usage();
        return 2;
    }
    signal(SIGPIPE, SIG_IGN); /* a rank that died is seen as a failed write */
    struct sn_sim S, *s = &S;
    memset(s, 0, sizeof S);
    s->n = n;
    char err[512];
    if (nl_topo_load(&s->topo, topo_path, err, sizeof err)) {
        fprintf(stderr, "simnet: %s: %s\n", topo_path, err);
        return 1;
    }
    if (seed >= 0)
        s->topo.seed = (uint64_t)seed;
    if (pcap_dir) {
        mkdir(pcap_dir, 0755);
        size_t nl = (size_t)s->topo.nrails * (size_t)s->topo.nhosts * (size_t)s->topo.nhosts;
        for (size_t i = 0; i < nl; i++)
            s->topo.links[i].pcap = 1;
    }
    const char *dls = getenv("SCTPMPI_SIM_DEADLOCK_S");
    s->idle_limit = (uint64_t)((dls && *dls ? atof(dls) : 600.0) * 1e9);
    const char *lns = getenv("SCTPMPI_SIM_LOCAL_NS");
    s->local_ns = lns && *lns ? strtoull(lns, NULL, 0) : 5000;
    const char *bns = getenv("SCTPMPI_SIM_BATCH_NS");
    s->batch_ns = bns && *bns ? strtoull(bns, NULL, 0) : 0;
    const char *hns = getenv("SCTPMPI_SIM_HOP_NS");
    s->hop_ns = hns && *hns ? strtoull(hns, NULL, 0) : 0;
    s->ranks = calloc((size_t)n, sizeof *s->ranks);
    s->wake = calloc((size_t)n + 1, sizeof *s->wake);
    if (!s->ranks || !s->wake || nl_model_init(&s->model, &s->topo, pcap_dir, 65535)) {
        fprintf(stderr, "simnet: out of memory\n");
        return 1;
    }
    for (int r = 0; r < n; r++) {
        s->ranks[r] = (struct sn_rank){ .rank = r, .fd = -1, .host = r % s->topo.nhosts };
    }
    if (sn_net_init(s))
        return 1;
    for (int i = 0; i < s->topo.nevents; i++) {
        struct sn_ev e = { { (uint64_t)s->topo.events[i].at_ms * 1000000u, 0, 0, s->netseq++ },
                           EV_TOPO,
                           -1,
                           0,
                           i,
                           NULL };
        sn_push(s, &e);
    }
    s->epfd = epoll_create1(EPOLL_CLOEXEC);
    /* every rank connects and says who it is */
    for (int c = 0; c < n; c++) {
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR) {
                c--;
                continue;
            }
            fprintf(stderr, "simnet: accept: %s\n", strerror(errno));
            return 1;
        }
        struct sim_msg m;
        ssize_t got = recv(fd, &m, sizeof m, MSG_WAITALL);
        if (got != (ssize_t)sizeof m || m.type != SIM_HELLO || m.peer < 0 || m.peer >= n ||
            m.arg != n || s->ranks[m.peer].fd >= 0) {
            fprintf(stderr,
                    "simnet: a rank's hello is wrong (rank %d of %lld; expected %d "
                    "ranks, as mpiexec -n)\n",
                    got == (ssize_t)sizeof m ? m.peer : -1,
                    got == (ssize_t)sizeof m ? (long long)m.arg : -1LL, n);
            return 1;
        }
        struct sn_rank *k = &s->ranks[m.peer];
        k->fd = fd;
        k->state = SN_RUN;
        struct sim_msg cfg = {
            SIM_CONFIG, 0, s->p2p_lanes, (uint32_t)s->rma_lanes, 0, (int64_t)s->max_payload
        };
        if (send(fd, &cfg, sizeof cfg, MSG_NOSIGNAL) != (ssize_t)sizeof cfg)
            return 1;
        struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)m.peer };
        epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
    }
    close(lfd);
    double wall0 = wall_now();
    int lost = 0;
    struct epoll_event evs[256];
    for (;;) {
        struct sn_key b;
        int running = bound(s, &b);
        while (s->heap.n && (!running || sn_key_less(&s->heap.a[0].k, &b)) && !all_done(s)) {
            struct sn_ev e = sn_heap_pop(&s->heap);
            s->woken = 0;
            process(s, &e);
            if (!running && s->now - s->last_activity > s->idle_limit) {
                fprintf(stderr,
                        "simnet: deadlock at virtual time %.6f s: every rank has waited in MPI "
                        "for %.0f s of virtual time with no frame sent or delivered "
                        "(SCTPMPI_SIM_DEADLOCK_S)\n",
                        (double)s->now * 1e-9, (double)s->idle_limit * 1e-9);
                s->failed = 1;
                break;
            }
            /* no rank message is read in this loop: the bound only moves by wake-ups, which
             * make a rank run again from now */
            if (s->woken && (!running || sn_key_less(&s->woken_key, &b))) {
                b = s->woken_key;
                running = 1;
            }
        }
        if (all_done(s) || s->failed)
            break;
        if (!running && !s->heap.n) {
            fprintf(stderr,
                    "simnet: deadlock at virtual time %.6f s: every rank waits in MPI "
                    "and nothing is on its way\n",
                    (double)s->now * 1e-9);
            s->failed = 1;
            break;
        }
        int ne = epoll_wait(s->epfd, evs, 256, running ? -1 : 0);
        for (int i = 0; i < ne; i++) {
            struct sn_rank *k = &s->ranks[evs[i].data.u32];
            if (pump_rank(s, k) < 0) {
                epoll_ctl(s->epfd, EPOLL_CTL_DEL, k->fd, NULL);
                close(k->fd);
                k->fd = -1;
                if (!k->bye) {
                    fprintf(stderr, "simnet: rank %d left without finalizing\n", k->rank);
                    lost = 1;
                    k->end_vt = k->vt;
                }
                if (k->state != SN_DONE)
                    s->ndone++;
                k->state = SN_DONE;
            }
        }
    }
    double wall = wall_now() - wall0;
    uint64_t vt = 0;
    for (int r = 0; r < n; r++)
        if (s->ranks[r].end_vt > vt)
            vt = s->ranks[r].end_vt;
    uint64_t lossdrops = 0;
    size_t nl = (size_t)s->topo.nrails * (size_t)s->topo.nhosts * (size_t)s->topo.nhosts;
    for (size_t i = 0; i < nl; i++)
        lossdrops += s->model.links[i].c.drop_loss;
    fprintf(stderr,
            "sim: virtual time %.6f s, events %llu, packets %llu (dropped %llu, lost on links "
            "%llu), wall %.3f s, %.0f events/s, virtual/wall %.2f\n",
            (double)vt * 1e-9, (unsigned long long)s->events, (unsigned long long)s->packets,
            (unsigned long long)s->drops, (unsigned long long)lossdrops, wall,
            wall > 0 ? (double)s->events / wall : 0.0, wall > 0 ? (double)vt * 1e-9 / wall : 0.0);
    /* the SCTP side of the run, summed over every rank's associations (our own, tx) */
    unsigned long long t3 = 0, fr = 0, rtx = 0, hs = 0, tlp = 0, assocs = 0;
    for (int r = 0; r < n; r++)
        for (int p = 0; p < n; p++) {
            struct sctpn_assoc_stats st;
            if (!s->ranks[r].tx || !s->ranks[r].tx[p] ||
                sctpn_get_stats(s->ranks[r].ep, s->ranks[r].tx[p], &st))
                continue;
            assocs++;
            t3 += st.t3_timeouts;
            fr += st.fast_retransmits;
            rtx += st.retransmitted_chunks;
            hs += st.handshake_retransmits;
            tlp += st.tlp_probes;
        }
    fprintf(stderr,
            "sim: sctp: %llu associations opened, retransmitted chunks %llu, fast retransmits "
            "%llu, T3 timeouts %llu, tail-loss probes %llu, handshake retransmits %llu\n",
            assocs, rtx, fr, t3, tlp, hs);
    for (int r = 0; r < n; r++)
        if (s->ranks[r].fd >= 0)
            close(s->ranks[r].fd);
    int rc = s->failed || lost;
    if (status_fd >= 0) {
        char line[64];
        int len = snprintf(line, sizeof line, "%d %llu\n", rc, (unsigned long long)vt);
        if (write(status_fd, line, (size_t)len) < 0) { /* mpiexec gone: nothing to tell */
        }
    }
    while (s->heap.n) {
        struct sn_ev e = sn_heap_pop(&s->heap);
        free(e.data);
    }
    free(s->heap.a);
    sn_net_free(s);
    nl_model_free(&s->model);
    nl_topo_free(&s->topo);
    for (int r = 0; r < n; r++)
        free(s->ranks[r].in);
    free(s->ranks);
    free(s->wake);
    return rc;
}
