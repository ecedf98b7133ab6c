/* hello.c — building and checking the hello every transport sends first (hello.h). */
#include <stdio.h>
#include <string.h>

#include "transport/hello.h"
#include "util/util.h"

void sm_hello_make(struct sm_hello *h, uint32_t magic, int rank, int size, uint32_t streams,
                   const char *secret)
{
    memset(h, 0, sizeof *h);
    h->magic = magic;
    h->rank = rank;
    h->size = size;
    h->streams = streams;
    snprintf(h->secret, sizeof h->secret, "%s", secret ? secret : "");
}

const char *sm_hello_admit(int rank, int size, const char *secret, size_t secret_max, int my_rank,
                           int job_size, int expect, const char *job_secret)
{
    if (!sm_secret_equal(secret, job_secret, secret_max))
        return "wrong job secret";
    if (size != job_size || rank < 0 || rank >= job_size || rank == my_rank)
        return "hello names a rank outside this job";
    if (expect >= 0 && rank != expect)
        return "hello names another rank than the connection's";
    return NULL;
}

const char *sm_hello_check(const void *buf, size_t len, uint32_t magic, int my_rank, int job_size,
                           int expect, const char *job_secret, struct sm_hello *out)
{
    if (len != sizeof *out)
        return "malformed hello";
    memcpy(out, buf, sizeof *out);
    out->secret[SM_HELLO_SECRET_MAX - 1] = '\0';
    if (out->magic != magic)
        return "malformed hello";
    return sm_hello_admit(out->rank, out->size, out->secret, SM_HELLO_SECRET_MAX, my_rank,
                          job_size, expect, job_secret);
}
