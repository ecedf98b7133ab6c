/* progress.c — engine start-up (its tunables; the job itself is booted by src/boot/), the
 * progress loop, and shutdown.
 *
 * Waiting policy: a rank waiting for a request polls the transport for a spin time since the
 * last arrival, then blocks in the transport's progress() for up to SCTPMPI_BLOCK_US at a time;
 * an arrival (also one that wakes the block) starts the spin again, so a rank serving a stream
 * of requests (a one-sided target, a rendezvous receiver) does not pay a wake-up per request.
 * Spinning keeps small-message latency low on a dedicated core (a wake-up from poll costs
 * ~30 µs on these VMs); blocking lets 8 ranks share 2 cores.
 *
 * The spin time is SCTPMPI_SPIN_US (default 50 µs, or 0 when the host runs more ranks than it
 * has cores).  With SCTPMPI_SPIN_MAX_US above it (default: equal, no adaptation) it adapts: a
 * block that an arrival ended within the ceiling means a longer spin would have caught it, so
 * the spin grows to twice that wait; a block that timed out, or ended later than the ceiling,
 * halves it.  On a core shared with a busy process, the peer is descheduled for a scheduler
 * slice (~1.5 ms here) at a time; a 50 µs spin then ends in a block and every reply costs a
 * wake-up and a migration, where a peer that spins for ever (Open MPI) just waits out the
 * slice.  On a quiet machine replies come within the floor and nothing changes. */
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/boot.h"
#include "engine/engine_internal.h"
#include "engine/rma_frames.h"
#include "engine/thread_lock.h"

struct sm_engine sm_eng;

int sm_engine_start(void)
{
    memset(&sm_eng, 0, sizeof sm_eng);
    sm_timing_init();
    sm_boot_start(&sm_eng.rank, &sm_eng.size);
    sm_list_init(&sm_eng.posted);
    sm_list_init(&sm_eng.unexpected);
    sm_list_init(&sm_eng.self_q);
    sm_list_init(&sm_eng.waiting_sends);
    sm_eng.eager_limit = (size_t)sm_env_size("SCTPMPI_EAGER_LIMIT", 64 * 1024);
    sm_eng.segment = (size_t)sm_env_size("SCTPMPI_RNDV_SEGMENT", 512 * 1024);
    sm_eng.credit_window = sm_env_size("SCTPMPI_EAGER_CREDIT", 8 * 1024 * 1024);
    sm_eng.unexpected_max = (size_t)sm_env_size("SCTPMPI_UNEXPECTED_MAX", 1ll << 30);
    long local = sm_boot_local_ranks();
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    long spin_dflt = (ncpu > 0 && local > ncpu) ? 0 : 50;
    sm_eng.spin_ns = (long)sm_env_int("SCTPMPI_SPIN_US", spin_dflt) * 1000;
    if (sm_eng.spin_ns < 0)
        sm_eng.spin_ns = 0;
    /* the spin adapts only when SCTPMPI_SPIN_MAX_US asks for it: beside one busy process on a
     * quiet host the adaptive spin measured 4-11x slower than the fixed one (docs/benchmarks.md
     * "Latency beside a busy process") */
    long max_dflt = sm_eng.spin_ns / 1000;
    sm_eng.spin_base_ns = sm_eng.spin_ns;
    sm_eng.spin_cpu_limit = (ncpu > 0 ? ncpu : 1) + (local > 0 ? local : 1);
    sm_eng.spin_max_ns = (long)sm_env_int("SCTPMPI_SPIN_MAX_US", max_dflt) * 1000;
    if (sm_eng.spin_max_ns < sm_eng.spin_base_ns)
        sm_eng.spin_max_ns = sm_eng.spin_base_ns;
    sm_eng.block_us = (long)sm_env_int("SCTPMPI_BLOCK_US", 100000);
    if (sm_eng.segment < 4096)
        sm_eng.segment = 4096;
    if (sm_eng.credit_window < 4 * (int64_t)sm_credit_cost(0))
        sm_eng.credit_window = 4 * (int64_t)sm_credit_cost(0);

    sm_eng.peers = sm_xcalloc((size_t)sm_eng.size, sizeof *sm_eng.peers);
    sm_eng.npeers = sm_eng.size;
    for (int i = 0; i < sm_eng.size; i++)
        sm_eng.peers[i].credit = sm_eng.credit_window;
    sm_eng.lanes = 1;
    if (sm_eng.size == 1)
        return 0; /* a singleton talks only to itself (until it meets another job) */
    return sm_engine_transport_start();
}

/* the transport and the exchange of business cards; a singleton's only once it meets
 * another job (peers_dyn.c) */
int sm_engine_transport_start(void)
{
    static struct sm_upcalls up = { .frame_begin = sm_up_frame_begin,
                                    .frame_end = sm_up_frame_end,
                                    .send_done = sm_up_send_done,
                                    .peer_failed = sm_up_peer_failed,
                                    .rma_frame = sm_up_rma_frame,
                                    .peer_lookup = sm_up_peer_lookup };
    sm_boot_transport(sm_eng.rank, sm_eng.size, &up, &sm_eng.tp_ops, &sm_eng.tp);
    sm_eng.lanes = sm_eng.tp_ops->lanes(sm_eng.tp);
    size_t maxp = sm_eng.tp_ops->max_payload(sm_eng.tp);
    if (sm_eng.eager_limit > maxp)
        sm_eng.eager_limit = maxp;
    if (sm_eng.segment > maxp)
        sm_eng.segment = maxp;
    return 0;
}

static int (*progress_hooks[8])(void);
static int nhooks;

void sm_progress_hook_add(int (*fn)(void))
{
    for (int i = 0; i < nhooks; i++)
        if (progress_hooks[i] == fn)
            return;
    if (nhooks == 8)
        sm_die("too many progress hooks");
    progress_hooks[nhooks++] = fn;
}

static int run_hooks(void)
{
    int n = 0;
    for (int i = 0; i < nhooks; i++)
        n += progress_hooks[i]();
    return n;
}

int sm_progress_poll(void)
{
    int n = run_hooks() + sm_self_progress();
    if (sm_eng.tp) {
        int k = sm_eng.tp_ops->progress(sm_eng.tp, 0);
        if (k < 0)
            sm_die("transport progress failed");
        n += k;
    }
    return n + sm_self_progress() + run_hooks();
}

/* 1 when more tasks are runnable on the host than it has cores plus our local ranks (the
 * running count of /proc/loadavg, read at most every 20 ms): then a long spin takes CPU time
 * from a task that waits for it, possibly our peer, and blocking is cheaper (measured at load
 * 20-50 on 2 cores: a 0-byte ping-pong took 124-285 µs with the 50 µs spin, 1.5-2.5 ms with a
 * 4 ms one).  1 busy process beside 2 ranks on 2 cores is not crowded. */
static int cpu_crowded(void)
{
    static uint64_t checked_ns;
    static int crowded, fd = -2;
    uint64_t now = sm_now_ns();
    if (checked_ns && now - checked_ns < 20000000ull)
        return crowded;
    checked_ns = now;
    if (fd == -2)
        fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    char buf[128];
    ssize_t n = fd >= 0 ? pread(fd, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return crowded = 0; /* no /proc: assume a quiet host */
    buf[n] = 0;
    const char *slash = strchr(buf, '/'), *p = slash;
    while (p && p > buf && p[-1] != ' ')
        p--;
    long running = p ? strtol(p, NULL, 10) : 0;
    crowded = running > sm_eng.spin_cpu_limit;
    return crowded;
}

/* after a block: arrived = an arrival ended it, waited = ns since the spin began */
static void spin_adapt(int arrived, uint64_t waited)
{
    if (sm_eng.spin_max_ns <= sm_eng.spin_base_ns)
        return;
    if (cpu_crowded()) { /* spinning would take the CPU from tasks waiting for one */
        if (sm_eng.spin_ns > sm_eng.spin_base_ns)
            sm_eng.spin_shrinks++;
        sm_eng.spin_ns = sm_eng.spin_base_ns;
        return;
    }
    if (arrived && waited <= (uint64_t)sm_eng.spin_max_ns) {
        long want = 2 * (long)waited > 2 * sm_eng.spin_ns ? 2 * (long)waited : 2 * sm_eng.spin_ns;
        if (want > sm_eng.spin_max_ns)
            want = sm_eng.spin_max_ns;
        if (want != sm_eng.spin_ns)
            sm_eng.spin_grows++;
        sm_eng.spin_ns = want;
    } else if (sm_eng.spin_ns > sm_eng.spin_base_ns) {
        sm_eng.spin_ns /= 2;
        if (sm_eng.spin_ns < sm_eng.spin_base_ns)
            sm_eng.spin_ns = sm_eng.spin_base_ns;
        sm_eng.spin_shrinks++;
    }
}

/* MPI_THREAD_MULTIPLE: a waiting thread holds the global lock while it blocks in the
 * transport, so it blocks at most this long at a time (a thread entering MPI meanwhile waits
 * that long at most), and not at all while another thread waits for the lock */
static long thread_block_us = -1;

static long threaded_block(long block_us)
{
    sm_big_lock_yield();
    if (thread_block_us < 0) {
        thread_block_us = (long)sm_env_int("SCTPMPI_THREAD_BLOCK_US", 200);
        if (thread_block_us < 0)
            thread_block_us = 0;
    }
    if (sm_big_lock_waiters() > 0)
        return 0;
    return block_us < 0 || block_us > thread_block_us ? thread_block_us : block_us;
}

int sm_wait_step(uint64_t *since_ns, long block_us)
{
    int threaded = atomic_load_explicit(&sm_threads_on, memory_order_relaxed);
    if (threaded)
        block_us = threaded_block(block_us);
    if (*since_ns == 0)
        *since_ns = sm_now_ns();
    if (sm_progress_poll() > 0) {
        *since_ns =
            sm_now_ns(); /* traffic keeps coming: spin on (the next piece is likely near) */
        return 0;
    }
    if (!sm_eng.tp)
        return 0;
    if (sm_eng.spin_ns && sm_now_ns() - *since_ns < (uint64_t)sm_eng.spin_ns)
        return 0;
    if (!sm_list_empty(&sm_eng.self_q))
        return 0;
    if (threaded && block_us == 0)
        return 0; /* another thread waits for the lock: the next step hands it over */
    if (sm_eng.spin_ns == 0)
        sched_yield();
    int woke = sm_eng.tp_ops->progress(sm_eng.tp, block_us);
    if (woke < 0)
        return -1;
    uint64_t after = sm_now_ns();
    spin_adapt(woke > 0, after - *since_ns);
    if (woke > 0)
        *since_ns = after; /* woken by an arrival: spin again before the next block */
    sm_self_progress();
    run_hooks();
    return 0;
}

int sm_progress_until(int (*done)(void *), void *arg)
{
    /* done() may act when it succeeds (a matched probe takes its message): it is called once
     * per step and never again after it returned true */
    if (done(arg))
        return 0;
    uint64_t since = 0;
    for (;;) {
        if (sm_wait_step(&since, sm_eng.block_us) < 0)
            sm_die("transport progress failed");
        if (done(arg))
            return 0;
        if (!sm_eng.tp) {
            /* a singleton: only another thread of this process can complete the request */
            if (!atomic_load_explicit(&sm_threads_on, memory_order_relaxed))
                sm_die("a singleton would wait forever: nothing can complete this request");
            if (sm_big_lock_waiters() == 0)
                sched_yield();
        }
    }
}

static int transport_idle(void *arg)
{
    (void)arg;
    return !sm_eng.tp_ops->busy(sm_eng.tp);
}

void sm_engine_stats(FILE *f)
{
    fprintf(f,
            "sctpmpi[%d] stats: eager %llu, rendezvous %llu, early-matched %llu, "
            "unexpected peak %zu msgs / %zu bytes, early-arrival peak %zu, spin %ld us "
            "(%ld-%ld, grew %llu, shrank %llu)\n",
            sm_eng.rank, (unsigned long long)sm_eng.stats_eager,
            (unsigned long long)sm_eng.stats_rndv, (unsigned long long)sm_eng.stats_early_matched,
            sm_eng.unexpected_peak, sm_eng.unexpected_peak_bytes, sm_eng.early_peak,
            sm_eng.spin_ns / 1000, sm_eng.spin_base_ns / 1000, sm_eng.spin_max_ns / 1000,
            (unsigned long long)sm_eng.spin_grows, (unsigned long long)sm_eng.spin_shrinks);
    sm_timing_print(f, sm_eng.rank);
    if (sm_eng.tp && sm_eng.tp_ops->stats)
        sm_eng.tp_ops->stats(sm_eng.tp, f);
}

void sm_engine_free_state(void)
{
    while (!sm_list_empty(&sm_eng.unexpected)) {
        struct sm_msg *m = sm_container_of(sm_eng.unexpected.next, struct sm_msg, link);
        sm_unexpected_remove(m);
        sm_msg_free(m);
    }
    sm_order_fini();
    sm_map_free(&sm_eng.send_seq);
    sm_map_free(&sm_eng.relaxed);
    free(sm_eng.peers);
    sm_eng.peers = NULL;
    sm_dyn_fini();
    sm_req_pool_fini();
}

/* The report goes out one write() per line: stderr is unbuffered, so a line printed with
 * several fprintf calls could otherwise be cut by another rank's line in mpiexec's output. */
static void print_stats_lines(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem) {
        sm_engine_stats(stderr);
        return;
    }
    sm_engine_stats(mem);
    fclose(mem);
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(buf + at, '\n', len - at);
        size_t n = nl ? (size_t)(nl - (buf + at)) + 1 : len - at;
        for (size_t done = 0; done < n;) {
            ssize_t w = write(STDERR_FILENO, buf + at + done, n - done);
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        at += n;
    }
    free(buf);
}

/* called after the job-wide barrier of MPI_Finalize */
int sm_engine_stop(void)
{
    if (sm_eng.tp)
        sm_progress_until(transport_idle, NULL);
    if (sm_env_bool("SCTPMPI_STATS", 0))
        print_stats_lines();
    int rc = 0;
    if ((sm_eng.size > 1 || sm_eng.tp) && sm_boot_barrier())
        rc = -1;
    if (sm_eng.tp)
        sm_eng.tp_ops->finalize(sm_eng.tp);
    sm_eng.tp = NULL;
    sm_boot_finish();
    sm_engine_free_state();
    return rc;
}
