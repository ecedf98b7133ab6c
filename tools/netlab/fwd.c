/* netlab: the forwarder — one event-driven process that moves packets between the hosts' TUN
 * devices on each rail, applying each directed link's rules (the link model, linkmodel.c:
 * state, MTU, loss, queues and rates, delay and jitter); packets wait in a timer heap until
 * their release time (timerfd, no busy loop). */
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

static void deliver(nl_fwd *f, size_t li, const unsigned char *pkt, uint32_t len)
{
    nl_link *l = &f->m.links[li];
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
    nl_link *l = &f->m.links[li];
    uint64_t rel;
    if (nl_model_admit(&f->m, rail, src, dst, len, now, &rel) != NL_PASS) {
        slot_free(f, s);
        return;
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
        f->m.links[hdrv[0]].inflight--;
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
        if (f->m.links[i].pcap) {
            fflush(f->m.links[i].pcap);
            if (close_them) {
                fclose(f->m.links[i].pcap);
                f->m.links[i].pcap = NULL;
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
    prctl(PR_SET_NAME, "netlab-fwd");
    prctl(PR_SET_TIMERSLACK, 1UL); /* release times to the microsecond, not 50 us */
    f->tun_rx_pkts = calloc(ntun, sizeof(uint64_t));
    f->tun_rx_bytes = calloc(ntun, sizeof(uint64_t));
    f->tun_unroutable = calloc(ntun, sizeof(uint64_t));
    if (!f->tun_rx_pkts || !f->tun_rx_bytes || !f->tun_unroutable) {
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
    if (nl_model_init(&f->m, t, cfg->pcap_dir, cfg->pcap_snaplen)) {
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
    nl_model_free(&f->m);
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
