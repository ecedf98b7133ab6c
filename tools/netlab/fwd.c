/* netlab: the forwarder — one event-driven process that moves packets between the hosts' TUN
 * devices on each rail, applying each directed link's loss, rate, queue and delay rules.
 * Order of rules per packet (as Dummynet/netem): link state, MTU, loss (Bernoulli and
 * Gilbert-Elliott), drop-tail queue + serialisation at the link rate, then propagation delay
 * and jitter; packets wait in a timer heap until their release time (timerfd, no busy loop). */
#include "fwd.h"

#include "pcap.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define SLOT_HDR 16 /* per-slot header: link index, length */
#define BATCH 128   /* packets read from one TUN before looking at the others */

static uint64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rng_next(uint64_t *s)
{ /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static double rng_unit(uint64_t *s)
{
    return (double)(rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static unsigned char *slot_ptr(nl_fwd *f, uint32_t s)
{
    return f->pool + (size_t)s * f->slot_size;
}

static int slot_alloc(nl_fwd *f, uint32_t *s)
{
    if (f->nfree) {
        *s = f->freelist[--f->nfree];
        return 0;
    }
    if (f->next_unused < f->nslots) {
        *s = f->next_unused++;
        return 0;
    }
    return -1;
}
static void slot_free(nl_fwd *f, uint32_t s)
{
    f->freelist[f->nfree++] = s;
}

static int stage_resize(nl_stage *q, uint32_t want)
{
    if (want == q->qcap)
        return 0;
    free(q->qring);
    q->qring = NULL;
    q->qcap = q->qhead = q->qcount = 0;
    if (want) {
        q->qring = calloc(want, sizeof *q->qring);
        if (!q->qring)
            return -1;
        q->qcap = want;
    }
    return 0;
}

/* Serialise a packet of len bytes arriving at time at; returns its end of serialisation, or 0
 * if the drop-tail queue is full. */
static uint64_t stage_pass(nl_stage *q, double rate_mbit, uint64_t queue_bytes, uint64_t at,
                           uint32_t len)
{
    while (q->qcount && q->qring[q->qhead] <= at) {
        q->qhead = q->qhead + 1 == q->qcap ? 0 : q->qhead + 1;
        q->qcount--;
    }
    uint64_t backlog =
        q->busy_until > at ? (uint64_t)((double)(q->busy_until - at) * rate_mbit / 8000.0) : 0;
    if ((q->qcap && q->qcount >= q->qcap) || (queue_bytes && backlog + len > queue_bytes)) {
        q->drops++;
        return 0;
    }
    uint64_t start = q->busy_until > at ? q->busy_until : at;
    uint64_t done = start + (uint64_t)((double)len * 8000.0 / rate_mbit);
    q->busy_until = done;
    if (q->qcap) {
        uint32_t tail = q->qhead + q->qcount;
        if (tail >= q->qcap)
            tail -= q->qcap;
        q->qring[tail] = done;
        q->qcount++;
    }
    return done;
}

int nl_link_reconfigure(nl_fwd *f, size_t idx)
{
    nl_link *l = &f->links[idx];
    if (stage_resize(&l->st, l->p.rate_mbit > 0 ? l->p.queue_pkts : 0))
        return -1;
    if (!l->p.ge_on)
        l->ge_bad = 0;
    const nl_topo *t = f->t;
    size_t hh = (size_t)t->nhosts * (size_t)t->nhosts;
    int rail = (int)(idx / hh), src = (int)(idx % hh / (size_t)t->nhosts),
        dst = (int)(idx % (size_t)t->nhosts);
    if (l->p.pcap && !l->pcap && f->cfg.pcap_dir && src != dst) {
        char path[4096];
        snprintf(path, sizeof path, "%s/rail%d-%s-%s.pcap", f->cfg.pcap_dir, rail, t->hosts[src],
                 t->hosts[dst]);
        l->pcap = nl_pcap_open(path, f->cfg.pcap_snaplen);
        if (!l->pcap)
            fprintf(stderr, "netlab-fwd: cannot write %s: %s\n", path, strerror(errno));
    }
    return 0;
}

static void deliver(nl_fwd *f, size_t li, const unsigned char *pkt, uint32_t len)
{
    nl_link *l = &f->links[li];
    if (!l->p.up) {
        l->c.drop_down++;
        return;
    }
    const nl_topo *t = f->t;
    size_t hh = (size_t)t->nhosts * (size_t)t->nhosts;
    size_t rail = li / hh, dst = li % (size_t)t->nhosts;
    ssize_t w = write(f->cfg.tunfd[rail * (size_t)t->nhosts + dst], pkt, len);
    if (w != (ssize_t)len) {
        l->c.drop_other++;
        return;
    }
    l->c.fwd_pkts++;
    l->c.fwd_bytes += len;
    if (l->pcap)
        nl_pcap_write(l->pcap, now_ns(CLOCK_MONOTONIC) + f->rt_offset, pkt, len,
                      f->cfg.pcap_snaplen);
}

/* A packet read from the TUN of host src on rail rail sits in slot s. */
static void on_packet(nl_fwd *f, int rail, int src, uint32_t s, uint32_t len, uint64_t now)
{
    const nl_topo *t = f->t;
    unsigned char *hdr = slot_ptr(f, s), *pkt = hdr + SLOT_HDR;
    size_t ti = (size_t)rail * (size_t)t->nhosts + (size_t)src;
    f->tun_rx_pkts[ti]++;
    f->tun_rx_bytes[ti] += len;
    /* IPv4 only: destination 198.18.RAIL.(host+1) */
    if (len < 20 || (pkt[0] >> 4) != 4 || pkt[16] != 198 || pkt[17] != 18 || pkt[18] != rail ||
        pkt[19] < 1 || pkt[19] > t->nhosts || pkt[19] - 1 == src) {
        f->tun_unroutable[ti]++;
        slot_free(f, s);
        return;
    }
    int dst = pkt[19] - 1;
    size_t li = nl_link_index(t, rail, src, dst);
    nl_link *l = &f->links[li];
    const nl_params *p = &l->p;
    if (!p->up) {
        l->c.drop_down++;
        slot_free(f, s);
        return;
    }
    uint32_t mtu = p->mtu ? p->mtu : t->rail_mtu[rail];
    if (len > mtu) {
        l->c.drop_mtu++;
        slot_free(f, s);
        return;
    }
    int lost = p->loss > 0 && rng_unit(&f->rng) < p->loss;
    if (p->ge_on) {
        double lp = l->ge_bad ? p->ge_loss_bad : p->ge_loss_good;
        if (lp > 0 && rng_unit(&f->rng) < lp)
            lost = 1;
        double u = rng_unit(&f->rng);
        if (l->ge_bad) {
            if (u < p->ge_r)
                l->ge_bad = 0;
        } else if (u < p->ge_p)
            l->ge_bad = 1;
    }
    if (lost) {
        l->c.drop_loss++;
        slot_free(f, s);
        return;
    }
    /* the sender's NIC, the link, the receiver's NIC (switch port): each a serialisation stage */
    uint64_t tx_done = now;
    size_t si = (size_t)rail * (size_t)t->nhosts, di = si + (size_t)dst;
    si += (size_t)src;
    const nl_nic *ne = &t->nics[si], *ni = &t->nics[di];
    if (ne->rate_mbit > 0 &&
        !(tx_done = stage_pass(&f->egress[si], ne->rate_mbit, ne->queue_bytes, tx_done, len))) {
        l->c.drop_queue++;
        slot_free(f, s);
        return;
    }
    if (p->rate_mbit > 0 &&
        !(tx_done = stage_pass(&l->st, p->rate_mbit, p->queue_bytes, tx_done, len))) {
        l->c.drop_queue++;
        slot_free(f, s);
        return;
    }
    if (ni->rate_mbit > 0 &&
        !(tx_done = stage_pass(&f->ingress[di], ni->rate_mbit, ni->queue_bytes, tx_done, len))) {
        l->c.drop_queue++;
        slot_free(f, s);
        return;
    }
    double d = p->delay_ms;
    if (p->jitter_ms > 0)
        d += (2.0 * rng_unit(&f->rng) - 1.0) * p->jitter_ms;
    uint64_t rel = tx_done + (d > 0 ? (uint64_t)(d * 1e6) : 0);
    if (!p->reorder) {
        if (rel < l->last_release)
            rel = l->last_release;
        l->last_release = rel;
    }
    if (rel <= now && l->inflight == 0) { /* fast path: nothing to wait for */
        deliver(f, li, pkt, len);
        slot_free(f, s);
        return;
    }
    uint32_t hdrv[2] = { (uint32_t)li, len };
    memcpy(hdr, hdrv, sizeof hdrv);
    if (nl_heap_push(&f->heap, (nl_hent){ rel, f->seq++, s })) {
        f->pool_drops++;
        slot_free(f, s);
        return;
    }
    l->inflight++;
    if (f->heap.n > f->heap_max)
        f->heap_max = f->heap.n;
}

static void release_due(nl_fwd *f, uint64_t now)
{
    while (f->heap.n && f->heap.a[0].t <= now) {
        nl_hent e = nl_heap_pop(&f->heap);
        uint64_t late = now - e.t;
        f->late_n++;
        f->late_sum_ns += late;
        if (late > f->late_max_ns)
            f->late_max_ns = late;
        unsigned char *hdr = slot_ptr(f, e.slot);
        uint32_t hdrv[2];
        memcpy(hdrv, hdr, sizeof hdrv);
        f->links[hdrv[0]].inflight--;
        deliver(f, hdrv[0], hdr + SLOT_HDR, hdrv[1]);
        slot_free(f, e.slot);
    }
}

static void run_events(nl_fwd *f, uint64_t now)
{
    while (f->next_event < f->t->nevents &&
           f->t0 + (uint64_t)f->t->events[f->next_event].at_ms * 1000000u <= now) {
        char out[256];
        const char *cmd = f->t->events[f->next_event++].cmd;
        nl_ctl_exec(f, cmd, out, sizeof out);
        if (!strncmp(out, "error", 5))
            fprintf(stderr, "netlab-fwd: event '%s': %s", cmd, out);
    }
}

static void rearm(nl_fwd *f)
{
    uint64_t next = UINT64_MAX;
    if (f->heap.n)
        next = f->heap.a[0].t;
    if (f->next_event < f->t->nevents) {
        uint64_t e = f->t0 + (uint64_t)f->t->events[f->next_event].at_ms * 1000000u;
        if (e < next)
            next = e;
    }
    if (next == f->armed)
        return;
    struct itimerspec its = { { 0, 0 }, { 0, 0 } };
    if (next != UINT64_MAX) {
        if (next == 0)
            next = 1;
        its.it_value.tv_sec = (time_t)(next / 1000000000u);
        its.it_value.tv_nsec = (long)(next % 1000000000u);
    }
    timerfd_settime(f->tfd, TFD_TIMER_ABSTIME, &its, NULL);
    f->armed = next;
}

static void handle_ctl(nl_fwd *f)
{
    int c = accept4(f->cfg.ctl_fd, NULL, NULL, SOCK_CLOEXEC);
    if (c < 0)
        return;
    struct timeval tv = { 0,
                          200000 }; /* a client that does not send its line in time is dropped */
    setsockopt(c, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char line[1024];
    size_t n = 0;
    while (n < sizeof line - 1) {
        ssize_t r = read(c, line + n, sizeof line - 1 - n);
        if (r <= 0)
            break;
        n += (size_t)r;
        if (memchr(line, '\n', n))
            break;
    }
    line[n] = '\0';
    char *nl = strchr(line, '\n');
    if (nl)
        *nl = '\0';
    size_t cap = 4096 + (size_t)f->t->nrails * (size_t)f->t->nhosts * (size_t)f->t->nhosts * 400;
    char *out = malloc(cap);
    if (out) {
        nl_ctl_exec(f, line, out, cap);
        size_t len = strlen(out), off = 0;
        while (off < len) {
            ssize_t w = write(c, out + off, len - off);
            if (w <= 0)
                break;
            off += (size_t)w;
        }
        free(out);
    }
    close(c);
}

static void flush_pcaps(nl_fwd *f, int close_them)
{
    size_t nl = (size_t)f->t->nrails * (size_t)f->t->nhosts * (size_t)f->t->nhosts;
    for (size_t i = 0; i < nl; i++)
        if (f->links[i].pcap) {
            fflush(f->links[i].pcap);
            if (close_them) {
                fclose(f->links[i].pcap);
                f->links[i].pcap = NULL;
            }
        }
}

int nl_fwd_run(const nl_fwd_cfg *cfg)
{
    nl_fwd F, *f = &F;
    memset(f, 0, sizeof F);
    f->cfg = *cfg;
    f->t = cfg->topo;
    const nl_topo *t = f->t;
    size_t ntun = (size_t)t->nrails * (size_t)t->nhosts;
    size_t nl = ntun * (size_t)t->nhosts;
    prctl(PR_SET_NAME, "netlab-fwd");
    prctl(PR_SET_TIMERSLACK, 1UL); /* release times to the microsecond, not 50 us */
    f->links = calloc(nl, sizeof *f->links);
    f->tun_rx_pkts = calloc(ntun, sizeof(uint64_t));
    f->tun_rx_bytes = calloc(ntun, sizeof(uint64_t));
    f->tun_unroutable = calloc(ntun, sizeof(uint64_t));
    if (!f->links || !f->tun_rx_pkts || !f->tun_rx_bytes || !f->tun_unroutable) {
        fprintf(stderr, "netlab-fwd: out of memory\n");
        return 1;
    }
    uint32_t maxmtu = 0;
    for (int r = 0; r < t->nrails; r++)
        if (t->rail_mtu[r] > maxmtu)
            maxmtu = t->rail_mtu[r];
    f->slot_size = (SLOT_HDR + maxmtu + 64 + 63) & ~(size_t)63;
    size_t pool_bytes = (cfg->pool_mb ? cfg->pool_mb : 256) << 20;
    f->nslots = (uint32_t)(pool_bytes / f->slot_size);
    if (f->nslots < BATCH * 2)
        f->nslots = BATCH * 2;
    f->pool = mmap(NULL, (size_t)f->nslots * f->slot_size, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    f->freelist = malloc((size_t)f->nslots * sizeof(uint32_t));
    if (f->pool == MAP_FAILED || !f->freelist) {
        fprintf(stderr, "netlab-fwd: cannot map the packet pool\n");
        return 1;
    }
    f->rng = t->seed * 0x2545F4914F6CDD1Dull + 1;
    for (size_t i = 0; i < nl; i++) {
        f->links[i].p = t->links[i];
        if (nl_link_reconfigure(f, i)) {
            fprintf(stderr, "netlab-fwd: out of memory\n");
            return 1;
        }
    }
    f->egress = calloc(ntun, sizeof *f->egress);
    f->ingress = calloc(ntun, sizeof *f->ingress);
    if (!f->egress || !f->ingress) {
        fprintf(stderr, "netlab-fwd: out of memory\n");
        return 1;
    }
    for (size_t i = 0; i < ntun; i++)
        if (t->nics[i].rate_mbit > 0 && (stage_resize(&f->egress[i], t->nics[i].queue_pkts) ||
                                         stage_resize(&f->ingress[i], t->nics[i].queue_pkts))) {
            fprintf(stderr, "netlab-fwd: out of memory\n");
            return 1;
        }
    sigset_t ss;
    sigemptyset(&ss);
    sigaddset(&ss, SIGTERM);
    sigaddset(&ss, SIGHUP);
    sigaddset(&ss, SIGUSR1);
    sigprocmask(SIG_BLOCK, &ss, NULL);
    signal(SIGINT, SIG_IGN); /* the supervisor decides when we stop */
    signal(SIGPIPE, SIG_IGN);
    f->sfd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK);
    f->epfd = epoll_create1(EPOLL_CLOEXEC);
    f->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
    if (f->sfd < 0 || f->epfd < 0 || f->tfd < 0) {
        perror("netlab-fwd: setup");
        return 1;
    }
    struct epoll_event ev = { .events = EPOLLIN };
    for (size_t i = 0; i < ntun; i++) {
        ev.data.u64 = i;
        if (epoll_ctl(f->epfd, EPOLL_CTL_ADD, cfg->tunfd[i], &ev)) {
            perror("netlab-fwd: epoll");
            return 1;
        }
    }
    ev.data.u64 = ntun;
    epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->tfd, &ev);
    ev.data.u64 = ntun + 1;
    epoll_ctl(f->epfd, EPOLL_CTL_ADD, f->sfd, &ev);
    if (cfg->ctl_fd >= 0) {
        ev.data.u64 = ntun + 2;
        epoll_ctl(f->epfd, EPOLL_CTL_ADD, cfg->ctl_fd, &ev);
    }
    f->t0 = now_ns(CLOCK_MONOTONIC);
    f->rt_offset = now_ns(CLOCK_REALTIME) - f->t0;
    f->armed = UINT64_MAX;
    if (cfg->parent > 0 && getppid() != cfg->parent)
        f->quit = 2;
    struct epoll_event evs[64];
    while (!f->quit) {
        rearm(f);
        int n = epoll_wait(f->epfd, evs, 64, -1);
        if (n < 0 && errno != EINTR) {
            perror("netlab-fwd: epoll_wait");
            break;
        }
        for (int i = 0; i < n; i++) {
            uint64_t id = evs[i].data.u64;
            if (id < ntun) {
                int rail = (int)(id / (size_t)t->nhosts), host = (int)(id % (size_t)t->nhosts);
                for (int k = 0; k < BATCH; k++) {
                    uint32_t s;
                    if (slot_alloc(f, &s)) {
                        /* pool exhausted: read and drop, so the TUN queue does not stall */
                        unsigned char scratch[65536];
                        if (read(cfg->tunfd[id], scratch, sizeof scratch) <= 0)
                            break;
                        f->pool_drops++;
                        continue;
                    }
                    ssize_t r =
                        read(cfg->tunfd[id], slot_ptr(f, s) + SLOT_HDR, f->slot_size - SLOT_HDR);
                    if (r <= 0) {
                        slot_free(f, s);
                        break;
                    }
                    on_packet(f, rail, host, s, (uint32_t)r, now_ns(CLOCK_MONOTONIC));
                }
            } else if (id == ntun) {
                uint64_t x;
                if (read(f->tfd, &x, sizeof x) < 0) { /* spurious */
                }
                f->armed = UINT64_MAX; /* a fired timer must be re-armed */
            } else if (id == ntun + 1) {
                struct signalfd_siginfo si;
                while (read(f->sfd, &si, sizeof si) == sizeof si) {
                    if (si.ssi_signo == SIGUSR1)
                        flush_pcaps(f, 0);
                    else
                        f->quit = (cfg->parent > 0 && getppid() != cfg->parent) ? 2 : 1;
                }
            } else {
                handle_ctl(f);
            }
        }
        uint64_t now = now_ns(CLOCK_MONOTONIC);
        release_due(f, now);
        run_events(f, now);
    }
    flush_pcaps(f, 1);
    if (f->quit == 2 && cfg->on_orphan)
        cfg->on_orphan(cfg->arg);
    for (size_t i = 0; i < nl; i++)
        free(f->links[i].st.qring);
    for (size_t i = 0; i < ntun; i++) {
        free(f->egress[i].qring);
        free(f->ingress[i].qring);
    }
    free(f->egress);
    free(f->ingress);
    free(f->links);
    free(f->tun_rx_pkts);
    free(f->tun_rx_bytes);
    free(f->tun_unroutable);
    free(f->freelist);
    free(f->heap.a);
    munmap(f->pool, (size_t)f->nslots * f->slot_size);
    close(f->epfd);
    close(f->tfd);
    close(f->sfd);
    return 0;
}
