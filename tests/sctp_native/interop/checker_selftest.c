/* checker_selftest.c — proves that the interop checker (interop_common.c) catches what the
 * interop tests rely on it to catch: a lost, duplicated, reordered (ordered messages within a
 * stream), corrupted, truncated, misrouted (wrong stream) or mislabelled (PPID, unordered flag)
 * message, while accepting the plan delivered in any per-stream-legal order.  Prints
 * " No Errors". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interop_common.h"

static int failures;

#define EXPECT(cond, what)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "checker_selftest: FAILED: %s\n", what);                               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

struct delivery {
    struct iop_msg m;
    uint8_t *data;
};

static struct iop_options opt;
static struct delivery *plan_all(long n)
{
    struct iop_plan p;
    if (iop_plan_init(&p, 1, &opt) < 0)
        exit(1);
    struct delivery *d = calloc((size_t)n, sizeof *d);
    for (long i = 0; i < n; i++) {
        iop_plan_next(&p, i, &d[i].m);
        d[i].data = malloc(d[i].m.len);
        iop_fill(&p, &d[i].m, d[i].data);
    }
    iop_plan_free(&p);
    return d;
}

static long deliver(struct iop_checker *c, const struct delivery *d)
{
    long before = c->errors;
    iop_check(c, d->m.stream, d->m.ppid, d->m.unordered, d->data, d->m.len);
    return c->errors - before;
}

/* a fresh checker fed the whole plan in order, except that message 5 is handed to swap()
 * instead (NULL: delivered as is); then the checker's verdict and error count are checked */
static void run_case(const char *name, struct delivery *d, long n,
                     void (*swap)(struct iop_checker *, struct delivery *, long), int want_ok,
                     long want_errors)
{
    struct iop_checker c;
    if (iop_checker_init(&c, 1, &opt, n) < 0)
        exit(1);
    fprintf(stderr, "-- case %s%s\n", name, want_ok ? "" : " (complaints expected):");
    for (long i = 0; i < n; i++) {
        if (i == 5 && swap)
            swap(&c, d, i);
        else
            deliver(&c, &d[i]);
    }
    int ok = iop_checker_done(&c, "selftest") == 0;
    EXPECT(ok == want_ok, name);
    if (want_errors >= 0 && c.errors != want_errors) {
        fprintf(stderr, "checker_selftest: %s: %ld check errors, expected %ld\n", name, c.errors,
                want_errors);
        failures++;
    }
    iop_checker_free(&c);
}

static void lose(struct iop_checker *c, struct delivery *d, long i)
{
    (void)c, (void)d, (void)i;
}

static void duplicate(struct iop_checker *c, struct delivery *d, long i)
{
    deliver(c, &d[i]);
    deliver(c, &d[i]);
}

static void corrupt(struct iop_checker *c, struct delivery *d, long i)
{
    struct delivery x = d[i];
    x.data = malloc(x.m.len);
    memcpy(x.data, d[i].data, x.m.len);
    x.data[x.m.len - 1] ^= 1;
    deliver(c, &x);
    free(x.data);
}

static void truncate_it(struct iop_checker *c, struct delivery *d, long i)
{
    struct delivery x = d[i];
    x.m.len -= 1;
    deliver(c, &x);
}

static void wrong_stream(struct iop_checker *c, struct delivery *d, long i)
{
    struct delivery x = d[i];
    x.m.stream = (uint16_t)((x.m.stream + 1) % opt.streams);
    deliver(c, &x);
}

static void wrong_ppid(struct iop_checker *c, struct delivery *d, long i)
{
    struct delivery x = d[i];
    x.m.ppid ^= 0x100;
    deliver(c, &x);
}

/* swap message i with the next message of its stream (the plan has one) */
static void swap_next(struct delivery *d, long i)
{
    long j = i + 1;
    while (d[j].m.stream != d[i].m.stream)
        j++;
    struct delivery t = d[i];
    d[i] = d[j];
    d[j] = t;
}

static void reorder(struct iop_checker *c, struct delivery *d, long i)
{
    swap_next(d, i);
    deliver(c, &d[i]);
}

int main(void)
{
    memset(&opt, 0, sizeof opt);
    opt.streams = 3;
    opt.max_size = 3000;
    opt.unordered = IOP_UNORDERED_NONE;
    const long n = 200;
    struct delivery *d = plan_all(n);
    EXPECT(d[5].m.len >= IOP_HEADER_BYTES, "plan sizes");

    run_case("all in order", d, n, NULL, 1, 0);
    run_case("one lost", d, n, lose, 0, -1);
    run_case("one duplicated", d, n, duplicate, 0, 1);
    run_case("one corrupted", d, n, corrupt, 0, 1);
    run_case("one truncated", d, n, truncate_it, 0, 1);
    run_case("one on the wrong stream", d, n, wrong_stream, 0, -1);
    run_case("one with a wrong PPID", d, n, wrong_ppid, 0, 1);
    run_case("two swapped within a stream", d, n, reorder, 0, -1);
    swap_next(d, 5); /* back to the plan's order */

    /* streams are independent: delivering stream by stream (not in plan order) is fine */
    {
        struct iop_checker c;
        iop_checker_init(&c, 1, &opt, n);
        for (int s = opt.streams - 1; s >= 0; s--)
            for (long i = 0; i < n; i++)
                if (d[i].m.stream == s)
                    deliver(&c, &d[i]);
        EXPECT(iop_checker_done(&c, "selftest") == 0, "stream by stream");
        iop_checker_free(&c);
    }
    /* unordered messages may come in any order, and the flag must match */
    for (long i = 0; i < n; i++)
        free(d[i].data);
    free(d);
    opt.unordered = IOP_UNORDERED_ALL;
    d = plan_all(n);
    {
        struct iop_checker c;
        iop_checker_init(&c, 1, &opt, n);
        for (long i = n - 1; i >= 0; i--)
            deliver(&c, &d[i]);
        EXPECT(iop_checker_done(&c, "selftest") == 0, "unordered, reversed");
        iop_checker_free(&c);
        iop_checker_init(&c, 1, &opt, n);
        fprintf(stderr, "-- case unordered flag missing (a complaint below is expected):\n");
        iop_check(&c, d[0].m.stream, d[0].m.ppid, 0, d[0].data, d[0].m.len);
        EXPECT(c.errors == 1, "unordered flag checked");
        iop_checker_free(&c);
    }
    for (long i = 0; i < n; i++)
        free(d[i].data);
    free(d);
    if (failures) {
        fprintf(stderr, "checker_selftest: %d failures\n", failures);
        return 1;
    }
    printf(" No Errors\n");
    return 0;
}
