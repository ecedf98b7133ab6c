/* farm_exact.c - the task farm (include/sctpmpi_farm.h) checked task by task.
 *
 * Every task's input is a pattern derived from its id (variable lengths, including 0 bytes) and
 * its result a fixed function of that input (hash + transformed bytes), so the manager checks
 * each result byte for byte and that each task comes back exactly once.  Configurations: k = 1,
 * 2, 7; zero tasks, fewer tasks than slots, many more tasks than slots; fixed and variable sizes;
 * the manager on the last rank; the overtaking assertion; more tasks than the tag space (tags
 * wrap); errors from the task callback and from a worker's callback (reported, and the farm is
 * usable afterwards); a bad configuration.  Argument "loss": a heavier run only, for the run
 * under packet loss.  Rank 0 prints " No Errors". */
#include <mpi.h>
#include <sctpmpi_farm.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;

#define CHECK(c, ...)                                                                              \
    do {                                                                                           \
        if (!(c)) {                                                                                \
            errs++;                                                                                \
            fprintf(stderr, "[rank %d] line %d: ", rank_, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
        }                                                                                          \
    } while (0)

static int rank_;

struct run {
    int max_task, max_result, fixed;
    long ntasks;
    long fail_task;  /* task callback fails at this task (-1: never) */
    long fail_work;  /* work callback fails on this tag (-1: never) */
    int check_tag;   /* tags equal task ids */
    unsigned char *seen;
    long got;
};

static int task_len(const struct run *r, long t)
{
    return r->fixed ? r->max_task : (int)((t * 37 + 11) % (r->max_task + 1));
}

static void task_data(long t, unsigned char *b, int len)
{
    uint32_t x = (uint32_t)t * 2654435761u + 12345u;
    for (int i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (unsigned char)(x >> 16);
    }
    if (len >= 4)
        memcpy(b, &(uint32_t){(uint32_t)t}, 4);
}

/* the result of an input: 8-byte FNV-1a hash, then a length and bytes that depend on the input */
static int result_of(const unsigned char *in, int n, unsigned char *out, int max)
{
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++)
        h = (h ^ in[i]) * 1099511628211ULL;
    int len = max < 8 ? max : 8 + (int)((uint64_t)(n * 7 + 3) % (uint64_t)(max - 7));
    if (len > max)
        len = max;
    unsigned char hb[8];
    memcpy(hb, &h, 8);
    for (int j = 0; j < len; j++)
        out[j] = j < 8 ? hb[j] : (unsigned char)((n ? in[j % n] : 0) ^ (j * 31));
    return len;
}

static int task_fn(long t, void *buf, int *len, void *ctx)
{
    struct run *r = ctx;
    if (t == r->fail_task)
        return MPI_ERR_OTHER;
    *len = task_len(r, t);
    task_data(t, buf, *len);
    return MPI_SUCCESS;
}

static int work_fn(int tag, const void *in, int n, void *out, int *out_len, void *ctx)
{
    struct run *r = ctx;
    if (tag == r->fail_work)
        return MPI_ERR_ARG;
    if (r->check_tag && n >= 4) {
        uint32_t id;
        memcpy(&id, in, 4);
        CHECK(id == (uint32_t)tag, "task %u arrived with tag %d", id, tag);
    }
    *out_len = result_of(in, n, out, r->max_result);
    return MPI_SUCCESS;
}

static int result_fn(long t, const void *res, int len, int worker, void *ctx)
{
    struct run *r = ctx;
    (void)worker;
    CHECK(t >= 0 && t < r->ntasks, "result for task %ld out of range", t);
    if (t < 0 || t >= r->ntasks)
        return MPI_SUCCESS;
    CHECK(!r->seen[t], "task %ld came back twice", t);
    r->seen[t] = 1;
    r->got++;
    unsigned char in[70000], want[70000];
    int n = task_len(r, t);
    task_data(t, in, n);
    int wl = result_of(in, n, want, r->max_result);
    CHECK(len == wl && memcmp(res, want, (size_t)wl) == 0, "task %ld: wrong result (%d bytes, want %d)",
          t, len, wl);
    return MPI_SUCCESS;
}

/* One farm run; returns the manager's / this worker's return code. */
static int tag_space_;

static int run_farm(int k, int mgr, int overtake, struct run *r, long *worker_tasks)
{
    sctpmpi_farm_config c;
    sctpmpi_farm_config_init(&c);
    c.k = k;
    c.max_task_bytes = r->max_task;
    c.max_result_bytes = r->max_result;
    c.manager = mgr;
    c.allow_overtaking = overtake;
    c.tag_space = tag_space_;
    r->seen = calloc((size_t)r->ntasks + 1, 1);
    r->got = 0;
    sctpmpi_farm_stats st;
    int rc = sctpmpi_farm_run(MPI_COMM_WORLD, &c, r->ntasks, task_fn, work_fn, result_fn, r, &st);
    int size;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    long mine = size == 1 || rank_ != mgr ? st.tasks : 0, sum = 0;
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    *worker_tasks = sum;
    if (rank_ == mgr && rc == MPI_SUCCESS) {
        CHECK(r->got == r->ntasks && st.tasks == r->ntasks, "k %d: %ld of %ld results", k, r->got, r->ntasks);
        for (long t = 0; t < r->ntasks; t++)
            CHECK(r->seen[t], "task %ld never came back", t);
        CHECK(size == 1 || st.max_inflight <= (long)k * (size - 1), "more than k tasks per worker in flight");
        /* all slots get filled (a small tag space may keep a slot waiting for an older task) */
        CHECK(r->ntasks == 0 || size == 1 || tag_space_ != 0 || st.max_inflight >= (r->ntasks < (long)k * (size - 1) ? r->ntasks : (long)k * (size - 1)),
              "only %ld tasks in flight at most (k %d)", st.max_inflight, k);
    }
    free(r->seen);
    return rc;
}

static void exact(int k, int mgr, int overtake, long ntasks, int max_task, int max_result, int fixed)
{
    struct run r = {max_task, max_result, fixed, ntasks, -1, -1, 1, NULL, 0};
    long wt = 0;
    int space;
    sctpmpi_farm_tag_space(MPI_COMM_WORLD, &space);
    r.check_tag = ntasks <= (tag_space_ ? tag_space_ : space);
    int rc = run_farm(k, mgr, overtake, &r, &wt);
    CHECK(rc == MPI_SUCCESS, "farm k %d tasks %ld returned %d", k, ntasks, rc);
    CHECK(wt == ntasks, "workers did %ld tasks, not %ld (k %d)", wt, ntasks, k);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int loss = argc > 1 && strcmp(argv[1], "loss") == 0;
    if (loss) {
        /* enough data that a 2% drop hits many packets: 600 tasks of up to 16 KB each way */
        exact(3, 0, 0, 600, 16384, 16384, 0);
        exact(4, 0, 1, 600, 16384, 16384, 1);
    } else {
        int last = size - 1;
        exact(1, 0, 0, 0, 100, 100, 0);       /* zero tasks */
        exact(2, 0, 1, 0, 100, 100, 0);
        exact(1, 0, 0, 1, 100, 100, 1);       /* one task, fixed size */
        exact(1, 0, 0, 57, 1000, 300, 0);     /* k = 1, more tasks than slots, variable sizes */
        exact(2, last, 0, 3, 1000, 300, 0);   /* fewer tasks than slots, manager on the last rank */
        exact(7, 0, 0, 500, 3000, 5000, 0);
        exact(7, last, 1, 500, 3000, 5000, 0); /* overtaking */
        exact(2, 0, 1, 200, 40000, 60000, 1); /* fixed, large (rendezvous-sized) buffers */
        exact(3, 0, 0, 100, 0, 16, 1);        /* empty task inputs */
        /* a small tag space: tags wrap around, and a worker often still holds an older task
           with the next task's tag (that one must be completed first) */
        tag_space_ = 9;
        exact(4, 0, 1, 1000, 8, 8, 1);
        exact(4, last, 0, 300, 100, 50, 0);
        tag_space_ = 4;
        exact(4, 0, 0, 300, 20, 20, 0);
        tag_space_ = 0;

        /* a task callback error: reported by the manager, workers finish cleanly */
        struct run r = {64, 64, 0, 50, 20, -1, 1, NULL, 0};
        long wt;
        int rc = run_farm(2, 0, 0, &r, &wt);
        if (rank_ == 0)
            CHECK(rc == MPI_ERR_OTHER, "task callback error: farm returned %d", rc);
        else
            CHECK(rc == MPI_SUCCESS, "task callback error: worker returned %d", rc);
        /* a work callback error on task 9 (only when there are workers) */
        if (size > 1) {
            struct run r2 = {64, 64, 0, 50, -1, 9, 1, NULL, 0};
            rc = run_farm(3, 0, 1, &r2, &wt);
            int mine = rc == MPI_ERR_ARG, any = 0;
            MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            if (rank_ == 0)
                CHECK(rc == MPI_ERR_ARG && any == 2, "work callback error: manager %d, %d ranks saw it", rc, any);
        }
        /* the farm still works after the errors */
        exact(2, 0, 0, 40, 100, 100, 0);
        /* a bad configuration fails on every rank */
        sctpmpi_farm_config c;
        sctpmpi_farm_config_init(&c);
        c.k = 0;
        rc = sctpmpi_farm_run(MPI_COMM_WORLD, &c, 10, task_fn, work_fn, result_fn, &r, NULL);
        CHECK(rc == MPI_ERR_ARG, "k = 0 returned %d", rc);
        c.k = 1;
        c.manager = size;
        rc = sctpmpi_farm_run(MPI_COMM_WORLD, &c, 10, task_fn, work_fn, result_fn, &r, NULL);
        CHECK(rc == MPI_ERR_ARG, "manager out of range returned %d", rc);
        c.manager = 0;
        c.k = 5;
        c.tag_space = 4; /* fewer tags than outstanding tasks per worker */
        rc = sctpmpi_farm_run(MPI_COMM_WORLD, &c, 10, task_fn, work_fn, result_fn, &r, NULL);
        CHECK(rc == MPI_ERR_ARG, "tag space below k returned %d", rc);
    }
    int all = 0;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) {
        if (all == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", all);
    }
    MPI_Finalize();
    return all != 0;
}
