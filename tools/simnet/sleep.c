/* sleep.c — libsimnet_sleep.so, the sleep interposer of mpiexec --sim (LD_PRELOAD): sleep(),
 * usleep(), nanosleep() and relative clock_nanosleep() return at once and add the time asked
 * for to simnet_slept_ns, which the sim transport adds to the rank's virtual clock
 * (src/transport/sim/).  Absolute clock_nanosleep() (TIMER_ABSTIME) is passed through. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

volatile uint64_t simnet_slept_ns;

static int add(const struct timespec *req)
{
    if (!req || req->tv_nsec < 0 || req->tv_nsec >= 1000000000L || req->tv_sec < 0) {
        errno = EINVAL;
        return -1;
    }
    simnet_slept_ns += (uint64_t)req->tv_sec * 1000000000ull + (uint64_t)req->tv_nsec;
    return 0;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
    int rc = add(req); /* before rem: the caller may pass the same struct for both */
    if (rem && !rc)
        rem->tv_sec = rem->tv_nsec = 0;
    return rc;
}

int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
    if (flags & TIMER_ABSTIME) {
        int (*real)(clockid_t, int, const struct timespec *, struct timespec *) =
            (int (*)(clockid_t, int, const struct timespec *, struct timespec *))dlsym(
                RTLD_NEXT, "clock_nanosleep");
        return real ? real(clk, flags, req, rem) : EINVAL;
    }
    int rc = add(req) ? EINVAL : 0;
    if (rem && !rc)
        rem->tv_sec = rem->tv_nsec = 0;
    return rc;
}

int usleep(useconds_t us)
{
    struct timespec ts = { (time_t)(us / 1000000), (long)(us % 1000000) * 1000 };
    return add(&ts);
}

unsigned int sleep(unsigned int s)
{
    struct timespec ts = { (time_t)s, 0 };
    add(&ts);
    return 0;
}
