/* secret.c — comparisons of the job secret that take the same time whichever byte differs, so
 * a process probing a job's ports learns nothing from how fast a wrong hello is refused. */
#include <string.h>

#include "util/util.h"

int sm_bytes_equal(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    unsigned diff = 0;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned)(x[i] ^ y[i]);
    return diff == 0;
}

int sm_secret_equal(const char *a, const char *b, size_t max)
{
    size_t la = strnlen(a, max), lb = strnlen(b, max);
    unsigned diff = (unsigned)(la ^ lb);
    size_t n = la < lb ? la : lb;
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned)(a[i] ^ b[i]);
    return diff == 0;
}
