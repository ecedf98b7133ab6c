/* usct_progress.c — who drives usrsctp (input, timers, output) and how progress() waits.
 *
 * caller mode (default): progress() itself reads the UDP socket(s) (recvmmsg), feeds usrsctp,
 *   runs its timers and flushes output (sendmmsg); usrsctp's receive callback then runs on the
 *   caller's thread.  Idle, it blocks in poll() on the UDP socket(s) (timer tick 10 ms).  A
 *   watchdog thread does the same every SCTPMPI_SCTP_WATCHDOG_US while the caller is outside
 *   progress() (computing) or inside it but busy in the engine's upcalls: SACKs go out,
 *   windows reopen, timers fire (strong progress).
 * thread mode (SCTPMPI_SCTP_PROGRESS=thread, for comparison): a dedicated thread blocks on the
 *   UDP socket(s) and drives usrsctp, like usrsctp's own threads would; the caller only takes
 *   queued arrivals and waits on an eventfd the thread signals.
 * Either way the engine's upcalls happen here, on the caller's thread, without the lock, with
 * one exception: whole SM_F_RMA frames (their own queue, usct_recv.c) also go to the engine's
 * rma_frame from the watchdog or receive thread, under the RMA lock, as soon as that thread has
 * read them: a passive-target epoch completes while the target computes outside MPI.  No other
 * upcall ever happens on those threads. */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "transport/usrsctp/usct_internal.h"

#define USCT_TIMER_TICK_US 10000 /* usrsctp's timers are polled at least this often */
#define USCT_INPUT_BUDGET 256    /* datagrams per step before handing arrivals over */
#define USCT_DONE_MAX 256

static uint64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int usct_progress_step_locked(struct usct_transport *t)
{
    if (t->inet) /* usrsctp's threads did the input: take what they queued */
        usct_inet_drain(t);
    int n = usct_udp_pump_input(t, USCT_INPUT_BUDGET);
    usct_endpoint_timers(t);
    usct_assoc_run_aborts(t);
    usct_udp_flush(t);
    return n;
}

static void drain_wake(struct usct_transport *t)
{
    uint64_t v;
    while (read(t->wake_fd, &v, sizeof v) == (ssize_t)sizeof v)
        ;
}

static void wait_for_input(struct usct_transport *t, long wait_us)
{
    struct pollfd pfd[USCT_MAX_ADDRS + 1];
    int n = 0;
    if (t->tu.progress == SCTP_PROGRESS_CALLER)
        for (int i = 0; i < t->nudp; i++)
            pfd[n++] = (struct pollfd){ .fd = t->udp[i].fd, .events = POLLIN };
    pfd[n++] = (struct pollfd){ .fd = t->wake_fd, .events = POLLIN };
    struct timespec ts = { .tv_sec = wait_us / 1000000, .tv_nsec = (wait_us % 1000000) * 1000 };
    if (ppoll(pfd, (nfds_t)n, &ts, NULL) > 0 && (pfd[n - 1].revents & POLLIN))
        drain_wake(t);
}

/* one round: drive usrsctp (caller mode), take arrivals, push queued sends; then upcalls */
static int round_once(struct usct_transport *t)
{
    void *done[USCT_DONE_MAX];
    pthread_mutex_lock(&t->stack_lock);
    if (t->tu.progress == SCTP_PROGRESS_CALLER && t->sock)
        usct_progress_step_locked(t);
    struct usct_arrival *list = t->arr_head;
    t->arr_head = t->arr_tail = NULL;
    t->arr_bytes = 0;
    int ndone = t->sock ? usct_send_retry_queued(t, done, USCT_DONE_MAX) : 0;
    usct_udp_flush(t);
    int rma = t->rma_head != NULL;
    pthread_mutex_unlock(&t->stack_lock);
    /* upcalls may take long (the engine matching thousands of early arrivals): the watchdog
     * keeps SACKs and timers going meanwhile, or the peer would give the association up */
    int was = atomic_exchange(&t->in_progress, 0);
    int n = usct_recv_deliver(t, list);
    if (rma)
        n += usct_recv_deliver_rma(t, 0);
    for (int i = 0; i < ndone; i++)
        t->up->send_done(t->up->ctx, done[i]);
    atomic_store(&t->in_progress, was);
    return n + ndone;
}

int usct_progress(struct sm_transport *handle, long timeout_us)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    atomic_store(&t->in_progress, 1);
    uint64_t start = now_us();
    int events = 0;
    for (;;) {
        events += round_once(t);
        if (events > 0 || timeout_us == 0)
            break;
        uint64_t el = now_us() - start;
        if (timeout_us > 0 && el >= (uint64_t)timeout_us)
            break;
        if (el < (uint64_t)t->tu.spin_us)
            continue;
        /* the watchdog may have drained the socket while we were in upcalls */
        pthread_mutex_lock(&t->stack_lock);
        int pending = t->arr_head != NULL || t->rma_head != NULL;
        pthread_mutex_unlock(&t->stack_lock);
        if (pending)
            continue;
        long wait = USCT_TIMER_TICK_US;
        if (timeout_us > 0 && (uint64_t)timeout_us - el < (uint64_t)wait)
            wait = (long)((uint64_t)timeout_us - el);
        wait_for_input(t, wait);
    }
    atomic_store(&t->in_progress, 0);
    return events;
}

static void sleep_us(long us)
{
    struct timespec ts = { .tv_sec = us / 1000000, .tv_nsec = (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
        ;
}

/* on the watchdog/receive thread: queued RMA frames to rma_frame (the only upcall here) */
static int deliver_rma_here(struct usct_transport *t)
{
    int n = usct_recv_deliver_rma(t, 1);
    if (n > 0) {
        pthread_mutex_lock(&t->stack_lock);
        t->rma_thread_frames += (uint64_t)n;
        usct_udp_flush(t); /* what rma_frame sent (answers) */
        pthread_mutex_unlock(&t->stack_lock);
    }
    return n;
}

/* caller mode: drain the socket while the application computes */
static void *watchdog_main(void *arg)
{
    struct usct_transport *t = arg;
    size_t limit = 4 * t->tu.sockbuf + (16u << 20); /* undelivered arrivals we accept */
    while (!atomic_load(&t->stop_thread)) {
        sleep_us(t->tu.watchdog_us);
        if (atomic_load(&t->in_progress))
            continue;
        if (pthread_mutex_trylock(&t->stack_lock) != 0)
            continue;
        if (!atomic_load(&t->in_progress) && t->sock && t->arr_bytes < limit) {
            usct_progress_step_locked(t);
            t->watchdog_steps++;
        }
        /* one-sided answers that found the send buffer full leave as acks make room */
        if (!atomic_load(&t->in_progress) && t->sock && usct_send_retry_rma(t) > 0)
            usct_udp_flush(t);
        int rma = t->rma_head != NULL;
        pthread_mutex_unlock(&t->stack_lock);
        /* strong progress for one-sided traffic: RMA frames go to the engine from here (the
         * RMA lock busy: the application is at it, or the next tick does it) */
        if (rma)
            deliver_rma_here(t);
    }
    return NULL;
}

/* thread mode: a receive thread drives usrsctp and signals the caller */
static void *receiver_main(void *arg)
{
    struct usct_transport *t = arg;
    struct pollfd pfd[USCT_MAX_ADDRS];
    for (int i = 0; i < t->nudp; i++)
        pfd[i] = (struct pollfd){ .fd = t->udp[i].fd, .events = POLLIN };
    while (!atomic_load(&t->stop_thread)) {
        poll(pfd, (nfds_t)t->nudp, USCT_TIMER_TICK_US / 1000);
        pthread_mutex_lock(&t->stack_lock);
        int had = t->arr_head != NULL, n = 0;
        if (t->sock) {
            n = usct_progress_step_locked(t);
            t->thread_steps++;
            if (usct_send_retry_rma(t) > 0)
                usct_udp_flush(t);
        }
        /* new arrivals, or acks that may have made room for queued sends */
        int signal = (!had && t->arr_head != NULL) || (n > 0 && t->txq_total > 0);
        int rma = t->rma_head != NULL;
        pthread_mutex_unlock(&t->stack_lock);
        /* RMA frames go to the engine from here; the RMA lock busy: the caller does it */
        if (rma && deliver_rma_here(t) < 0)
            signal = 1;
        if (signal) {
            uint64_t one = 1;
            if (write(t->wake_fd, &one, sizeof one) < 0) {
                /* the counter is saturated: the caller wakes anyway */
            }
        }
    }
    return NULL;
}

int usct_progress_start_thread(struct usct_transport *t)
{
    void *(*fn)(void *) = NULL;
    if (t->tu.progress == SCTP_PROGRESS_THREAD)
        fn = receiver_main;
    else if (t->tu.watchdog_us > 0)
        fn = watchdog_main;
    if (!fn)
        return 0;
    atomic_store(&t->stop_thread, 0);
    if (pthread_create(&t->thread, NULL, fn, t) != 0)
        return -1;
    t->thread_running = 1;
    return 0;
}

void usct_progress_stop_thread(struct usct_transport *t)
{
    if (!t->thread_running)
        return;
    atomic_store(&t->stop_thread, 1);
    pthread_join(t->thread, NULL);
    t->thread_running = 0;
}
