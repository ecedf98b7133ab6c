/* farm_demo: a small bulk-processor farm (the pattern of Kamal et al.'s Bulk Processor Farm and
 * buffered farm template).
 *
 * Rank 0 (manager) hands out N tasks; each task is a buffer of 32-bit numbers whose MPI tag is the
 * task id + 1 (tag 0 = stop). Every worker keeps K receives outstanding with MPI_ANY_TAG, completes
 * them with Waitany, computes a checksum (FNV-1a over the words) and returns
 * {task id, checksum, worker rank} with the same tag. The manager keeps up to K tasks in flight per
 * worker (Isend from a pool of buffers), takes results in whatever order they come (Probe on
 * ANY_SOURCE/ANY_TAG, Get_count to check the length, Recv), and sends the next task to the worker
 * that answered. At the end it sends K zero-byte stop messages per worker (one for each
 * outstanding receive, so nothing is left pending), and each worker reports how many tasks it did.
 *
 * Verified: every task completed exactly once, by the worker it was sent to, with the right
 * checksum; per-worker counts agree. Any failure aborts with a non-zero exit.
 *
 * Options: --tasks N (default 2000, at most 32000 so tags stay below the guaranteed MPI_TAG_UB),
 * --task-bytes B (default 4096), --outstanding K (default 10), --work-us U (busy work per task,
 * default 0), --csv ("bench,ranks,tasks,task_bytes,outstanding,seconds,tasks_per_s,mb_per_s,check").
 * Standard MPI only. */
#include "bench_common.h"

#define TAG_STOP 0
#define MAX_TASKS 32000

struct farm_opts {
    long tasks;
    long task_bytes;
    long outstanding;
    long work_us;
    int csv;
};

static uint32_t xorshift32(uint32_t *s)
{
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *s = x;
    return x;
}

static void gen_task(uint32_t *buf, size_t n, long task)
{
    uint32_t s = (uint32_t)task * 2654435761u + 0x9e3779b9u;
    if (s == 0)
        s = 1;
    for (size_t i = 0; i < n; i++)
        buf[i] = xorshift32(&s);
}

static uint64_t checksum(const uint32_t *buf, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++) {
        h ^= buf[i];
        h *= 1099511628211ULL;
    }
    return h;
}

static void die(int rank, const char *what, long a, long b)
{
    char msg[200];
    snprintf(msg, sizeof msg, "farm check failed: %s (%ld, %ld)", what, a, b);
    bench_die(rank, "%s", msg);
}

static int parse(int argc, char **argv, struct farm_opts *o, int rank)
{
    o->tasks = 2000;
    o->task_bytes = 4096;
    o->outstanding = 10;
    o->work_us = 0;
    o->csv = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long *dst = NULL;
        if (strcmp(a, "--csv") == 0) {
            o->csv = 1;
            continue;
        }
        if (strcmp(a, "--tasks") == 0)
            dst = &o->tasks;
        else if (strcmp(a, "--task-bytes") == 0)
            dst = &o->task_bytes;
        else if (strcmp(a, "--outstanding") == 0)
            dst = &o->outstanding;
        else if (strcmp(a, "--work-us") == 0)
            dst = &o->work_us;
        if (dst == NULL || i + 1 >= argc || bench_parse_long(argv[i + 1], dst) != 0) {
            if (rank == 0)
                fprintf(stderr,
                        "usage: %s [--tasks N] [--task-bytes B] [--outstanding K] [--work-us U] [--csv]\n",
                        argv[0]);
            return -1;
        }
        i++;
    }
    if (o->tasks < 1 || o->tasks > MAX_TASKS || o->task_bytes < 4 || o->task_bytes > (1L << 28) ||
        o->outstanding < 1 || o->outstanding > 1000) {
        if (rank == 0)
            fprintf(stderr, "farm_demo: need 1 <= tasks <= %d, 4 <= task-bytes <= 256M, 1 <= outstanding <= 1000\n",
                    MAX_TASKS);
        return -1;
    }
    return 0;
}

static void busy_work(long us)
{
    if (us <= 0)
        return;
    double end = MPI_Wtime() + (double)us * 1e-6;
    while (MPI_Wtime() < end) {
    }
}

struct manager {
    int nworkers, K;
    size_t elems;
    uint32_t *pool;      /* nworkers*K task buffers */
    MPI_Request *reqs;   /* one per pool slot */
    int *free_slots, nfree;
    int *slot_of;        /* task -> pool slot */
    int *owner;          /* task -> worker rank */
    unsigned char *done; /* task -> completions seen */
    uint64_t *expect;    /* task -> checksum */
    long *sent_to;       /* worker rank -> tasks sent */
};

static void send_task(struct manager *m, long t, int worker)
{
    int slot = m->free_slots[--m->nfree];
    uint32_t *buf = m->pool + (size_t)slot * m->elems;
    gen_task(buf, m->elems, t);
    m->expect[t] = checksum(buf, m->elems);
    m->slot_of[t] = slot;
    m->owner[t] = worker;
    m->sent_to[worker]++;
    MPI_Isend(buf, (int)m->elems, MPI_UINT32_T, worker, (int)(t + 1), MPI_COMM_WORLD, &m->reqs[slot]);
}

static void run_manager(const struct farm_opts *o, int nprocs)
{
    struct manager m;
    const long N = o->tasks;
    m.nworkers = nprocs - 1;
    m.K = (int)o->outstanding;
    m.elems = (size_t)o->task_bytes / 4;
    const int nslots = m.nworkers * m.K;
    m.pool = bench_alloc(sizeof(uint32_t) * m.elems * (size_t)nslots, 0);
    m.reqs = bench_alloc(sizeof(MPI_Request) * (size_t)nslots, 0);
    m.free_slots = bench_alloc(sizeof(int) * (size_t)nslots, 0);
    m.slot_of = bench_alloc(sizeof(int) * (size_t)N, 0);
    m.owner = bench_alloc(sizeof(int) * (size_t)N, 0);
    m.done = bench_alloc((size_t)N, 0);
    m.expect = bench_alloc(sizeof(uint64_t) * (size_t)N, 0);
    m.sent_to = bench_alloc(sizeof(long) * (size_t)nprocs, 0);
    for (int i = 0; i < nslots; i++) {
        m.reqs[i] = MPI_REQUEST_NULL;
        m.free_slots[i] = nslots - 1 - i;
    }
    m.nfree = nslots;

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    long next = 0, ndone = 0;
    for (int k = 0; k < m.K && next < N; k++)
        for (int w = 1; w <= m.nworkers && next < N; w++)
            send_task(&m, next++, w);

    while (ndone < N) {
        MPI_Status st;
        uint64_t res[3];
        int count = -1;
        MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        MPI_Get_count(&st, MPI_UINT64_T, &count);
        if (count != 3)
            die(0, "result length", count, 3);
        if (st.MPI_TAG < 1 || st.MPI_TAG > N)
            die(0, "result tag out of range", st.MPI_TAG, N);
        const int src = st.MPI_SOURCE;
        MPI_Recv(res, 3, MPI_UINT64_T, src, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const long t = st.MPI_TAG - 1;
        if (res[0] != (uint64_t)t)
            die(0, "result task id differs from tag", (long)res[0], t);
        if (m.done[t])
            die(0, "task completed twice", t, src);
        if (m.owner[t] != src || res[2] != (uint64_t)src)
            die(0, "task answered by the wrong worker", t, src);
        if (res[1] != m.expect[t])
            die(0, "wrong checksum for task", t, src);
        m.done[t] = 1;
        ndone++;
        /* The worker has the data, so the send is complete (or completes now). */
        const int slot = m.slot_of[t];
        MPI_Status sst; /* a real status: GCC flags MPICH's MPI_STATUSES_IGNORE here */
        MPI_Waitall(1, &m.reqs[slot], &sst);
        m.free_slots[m.nfree++] = slot;
        if (next < N)
            send_task(&m, next++, src);
    }
    double t1 = MPI_Wtime();

    for (int w = 1; w <= m.nworkers; w++)
        for (int k = 0; k < m.K; k++)
            MPI_Send(NULL, 0, MPI_BYTE, w, TAG_STOP, MPI_COMM_WORLD);
    long total = 0;
    for (int w = 1; w <= m.nworkers; w++) {
        long did = -1;
        MPI_Recv(&did, 1, MPI_LONG, w, TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (did != m.sent_to[w])
            die(0, "worker task count", did, m.sent_to[w]);
        total += did;
    }
    for (long t = 0; t < N; t++)
        if (m.done[t] != 1)
            die(0, "task never completed", t, 0);
    if (total != N || m.nfree != nslots)
        die(0, "task totals", total, N);

    const double secs = t1 - t0;
    const double tps = (double)N / secs;
    const double mbs = (double)N * (double)o->task_bytes / secs / 1e6;
    if (o->csv) {
        printf("bench,ranks,tasks,task_bytes,outstanding,seconds,tasks_per_s,mb_per_s,check\n");
        printf("farm,%d,%ld,%ld,%ld,%.6f,%.1f,%.2f,OK\n", nprocs, N, o->task_bytes, o->outstanding, secs,
               tps, mbs);
    } else {
        printf("# sctpmpi bench: farm_demo (%d workers, %ld outstanding each)\n", m.nworkers, o->outstanding);
        printf("tasks %ld x %ld B: %.3f s, %.1f tasks/s, %.2f MB/s, result check OK\n", N, o->task_bytes,
               secs, tps, mbs);
    }
    fflush(stdout);

    free(m.pool);
    free(m.reqs);
    free(m.free_slots);
    free(m.slot_of);
    free(m.owner);
    free(m.done);
    free(m.expect);
    free(m.sent_to);
}

static void run_worker(const struct farm_opts *o, int rank)
{
    const int K = (int)o->outstanding;
    const size_t elems = (size_t)o->task_bytes / 4;
    uint32_t *bufs = bench_alloc(sizeof(uint32_t) * elems * (size_t)K, rank);
    MPI_Request *reqs = bench_alloc(sizeof(MPI_Request) * (size_t)K, rank);

    MPI_Barrier(MPI_COMM_WORLD);
    for (int k = 0; k < K; k++)
        MPI_Irecv(bufs + (size_t)k * elems, (int)elems, MPI_UINT32_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[k]);
    int stops = 0;
    long did = 0;
    while (stops < K) {
        int idx = -1, count = -1;
        MPI_Status st;
        MPI_Waitany(K, reqs, &idx, &st);
        if (idx < 0 || idx >= K)
            die(rank, "Waitany index", idx, K);
        if (st.MPI_SOURCE != 0)
            die(rank, "task from a non-manager rank", st.MPI_SOURCE, 0);
        if (st.MPI_TAG == TAG_STOP) {
            stops++; /* this receive is not reposted */
            continue;
        }
        MPI_Get_count(&st, MPI_UINT32_T, &count);
        if (count != (int)elems)
            die(rank, "task length", count, (long)elems);
        const uint32_t *buf = bufs + (size_t)idx * elems;
        uint64_t res[3] = {(uint64_t)(st.MPI_TAG - 1), checksum(buf, elems), (uint64_t)rank};
        busy_work(o->work_us);
        MPI_Send(res, 3, MPI_UINT64_T, 0, st.MPI_TAG, MPI_COMM_WORLD);
        did++;
        MPI_Irecv(bufs + (size_t)idx * elems, (int)elems, MPI_UINT32_T, 0, MPI_ANY_TAG, MPI_COMM_WORLD,
                  &reqs[idx]);
    }
    MPI_Send(&did, 1, MPI_LONG, 0, TAG_STOP, MPI_COMM_WORLD);
    free(bufs);
    free(reqs);
}

int main(int argc, char **argv)
{
    int rank = 0, nprocs = 0;
    struct farm_opts o;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (parse(argc, argv, &o, rank) != 0) {
        MPI_Finalize();
        return 1;
    }
    if (nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "farm_demo: needs at least 2 ranks (a manager and a worker)\n");
        MPI_Finalize();
        return 1;
    }
    if (rank == 0)
        run_manager(&o, nprocs);
    else
        run_worker(&o, rank);
    MPI_Finalize();
    return 0;
}
