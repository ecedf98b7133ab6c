/* farm.c - the bench task farms, all three on the library farm of include/sctpmpi_farm.h
 * (src/farm/, docs/farm.md).  One source, three modes (--mode, or the default compiled in with
 * -DFARM_DEFAULT_MODE=0/1/2; the build makes the programs farm, bpfarm and farm_demo from it):
 *
 * buffered (program "farm"): the buffered farm of paper 001 (Kamal et al., "Using SCTP to hide
 *   latency in MPI programs").  Options --tasks N (5000) --size BYTES (12k) --k K (1) --maxreqs M
 *   (3) --tagpool P (1000) --task-ms MS (23.7, sleep; --spin burns CPU).  Every worker has
 *   M x K + 1 tasks outstanding: the paper's MAXREQS requests of k tasks each fill M x K posted
 *   receives, and its worker asks for the next tasks as soon as it takes one, so it also holds the
 *   task it is computing.  Tags are task ids modulo P.  Before the farm, the RTT is measured (median of 7 request/task-sized reply
 *   exchanges between ranks 0 and 1).  Output (rank 0): "farm,tasks,size,k,maxreqs,tagpool,
 *   workers,task_ms,seconds,rtt_ms,task_mean_ms,model_s,model_buffered_s", model_s from the
 *   paper's T = RTT + k T(task) + max((k-1)(RTT - T(task)), 0) with k = tasks per worker, and
 *   model_buffered_s the same with RTT / (M K) in the idle term.
 * bpfarm (program "bpfarm"): the Bulk Processor Farm of paper 000 (Kamal, Penoff, Wagner, SC05).
 *   Options --tasks N (10000) --size BYTES (30k) --fanout F (1) --outstanding R (10) --maxtags T
 *   (1000) --work-ms MS (0) --spin.  Every worker has R x F tasks outstanding, tags from a pool of
 *   T.  Output: "#per_worker_min=.. per_worker_max=.." and
 *   "bpfarm,tasks,size,fanout,outstanding,maxtags,workers,work_ms,seconds".
 * demo (program "farm_demo", scripts/demo.sh): --tasks N (2000, <= 32000) --task-bytes B (4096)
 *   --outstanding K (10) --work-us U (0) --csv.  Tasks are 32-bit words, results
 *   {task id, checksum, worker rank}.  Output with --csv:
 *   "bench,ranks,tasks,task_bytes,outstanding,seconds,tasks_per_s,mb_per_s,check" and a "farm,..."
 *   row; otherwise two human-readable lines.
 *
 * In the buffered and bpfarm modes task and result are messages of --size bytes (an 8-byte
 * header {id, kind} and a pattern of the id), checked at both ends.  In every mode each task must
 * come back exactly once with the right content, and the workers' counts must add up; any failure
 * exits non-zero.  Standard MPI only (plus src/farm/farm.c), so the same source builds with
 * mpicc.openmpi and mpicc.mpich (bench/run-experiment does). */
#include "../common/bench.h"
#include "sctpmpi_farm.h"

#ifndef FARM_DEFAULT_MODE
#define FARM_DEFAULT_MODE 0
#endif

enum { MODE_BUFFERED, MODE_BPFARM, MODE_DEMO };
#define KIND_TASK 1u
#define KIND_RESULT 2u
#define DEMO_MAX_TASKS 32000

struct opts {
    int mode, spin, csv;
    long tasks, k, maxreqs, tagpool; /* bpfarm: k = fanout, maxreqs = outstanding, tagpool = maxtags */
    size_t size;
    double task_ms;
};

struct state {
    const struct opts *o;
    char *seen;          /* manager: task -> came back */
    long *per;           /* manager: results per worker rank */
    uint64_t *expect;    /* demo: task -> checksum */
    long done;           /* worker: tasks computed */
    double work_s;       /* worker: time in the task routine */
};

/* ---- buffered and bpfarm modes: --size-byte messages ---- */

static int msg_task(long t, void *buf, int *len, void *ctx)
{
    struct state *s = ctx;
    bench_msg_fill(buf, s->o->size, (uint32_t)t, KIND_TASK);
    *len = (int)s->o->size;
    return MPI_SUCCESS;
}

static int msg_work(int tag, const void *in, int n, void *out, int *out_len, void *ctx)
{
    struct state *s = ctx;
    uint32_t id;
    if (n != (int)s->o->size || bench_msg_check(in, (size_t)n, KIND_TASK, &id) != 0 ||
        id >= (uint32_t)s->o->tasks || (long)id % s->o->tagpool != tag)
        bench_fail("task corrupt (tag, size or data)");
    double w0 = MPI_Wtime();
    bench_work(s->o->task_ms, s->o->spin);
    s->work_s += MPI_Wtime() - w0;
    bench_msg_fill(out, (size_t)n, id, KIND_RESULT);
    *out_len = n;
    s->done++;
    return MPI_SUCCESS;
}

static int msg_result(long t, const void *res, int len, int worker, void *ctx)
{
    struct state *s = ctx;
    uint32_t id;
    if (len != (int)s->o->size || bench_msg_check(res, (size_t)len, KIND_RESULT, &id) != 0 ||
        id != (uint32_t)t || s->seen[t])
        bench_fail("result corrupt, unexpected or duplicated");
    s->seen[t] = 1;
    s->per[worker]++;
    return MPI_SUCCESS;
}

/* ---- demo mode: words and checksums ---- */

static uint64_t demo_task_fill(uint32_t *buf, size_t n, long task)
{
    uint32_t x = (uint32_t)task * 2654435761u + 0x9e3779b9u;
    uint64_t h = 1469598103934665603ULL;
    if (x == 0)
        x = 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = x;
        h = (h ^ x) * 1099511628211ULL;
    }
    return h;
}

static int demo_task(long t, void *buf, int *len, void *ctx)
{
    struct state *s = ctx;
    s->expect[t] = demo_task_fill(buf, s->o->size / 4, t);
    *len = (int)(s->o->size / 4 * 4);
    return MPI_SUCCESS;
}

static int demo_work(int tag, const void *in, int n, void *out, int *out_len, void *ctx)
{
    struct state *s = ctx;
    if (n != (int)(s->o->size / 4 * 4))
        bench_fail("farm check failed: task length");
    uint64_t h = 1469598103934665603ULL;
    uint32_t w;
    for (int i = 0; i < n; i += 4) {
        memcpy(&w, (const unsigned char *)in + i, 4);
        h = (h ^ w) * 1099511628211ULL;
    }
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    uint64_t res[3] = {(uint64_t)tag, h, (uint64_t)rank};
    bench_work(s->o->task_ms, 1);
    memcpy(out, res, sizeof res);
    *out_len = (int)sizeof res;
    s->done++;
    return MPI_SUCCESS;
}

static int demo_result(long t, const void *res, int len, int worker, void *ctx)
{
    struct state *s = ctx;
    uint64_t r[3];
    if (len != (int)sizeof r)
        bench_fail("farm check failed: result length");
    memcpy(r, res, sizeof r);
    if (r[0] != (uint64_t)t || s->seen[t] || r[2] != (uint64_t)worker || r[1] != s->expect[t])
        bench_fail("farm check failed: result id, duplicate, worker or checksum");
    s->seen[t] = 1;
    s->per[worker]++;
    return MPI_SUCCESS;
}

/* ---- options, RTT, main ---- */

static void usage(int mode)
{
    if (mode == MODE_BUFFERED)
        fprintf(stderr, "usage: farm [--tasks N] [--size BYTES] [--k K] [--maxreqs M] [--tagpool P] "
                        "[--task-ms MS] [--spin]\n");
    else if (mode == MODE_BPFARM)
        fprintf(stderr, "usage: bpfarm [--tasks N] [--size BYTES] [--fanout F] [--outstanding R] "
                        "[--maxtags T] [--work-ms MS] [--spin]\n");
    else
        fprintf(stderr, "usage: farm_demo [--tasks N] [--task-bytes B] [--outstanding K] [--work-us U] [--csv]\n");
    fprintf(stderr, "       (any program: --mode buffered|bpfarm|demo first)\n");
}

static int parse(int argc, char **argv, struct opts *o)
{
    int i = 1;
    o->mode = FARM_DEFAULT_MODE;
    if (argc > 2 && !strcmp(argv[1], "--mode")) {
        o->mode = !strcmp(argv[2], "buffered") ? MODE_BUFFERED
                  : !strcmp(argv[2], "bpfarm") ? MODE_BPFARM
                  : !strcmp(argv[2], "demo")   ? MODE_DEMO
                                               : -1;
        if (o->mode < 0)
            return -1;
        i = 3;
    }
    static const struct opts defs[3] = {
        {MODE_BUFFERED, 0, 0, 5000, 1, 3, 1000, 12 * 1024, 23.7},
        {MODE_BPFARM, 0, 0, 10000, 1, 10, 1000, 30 * 1024, 0.0},
        {MODE_DEMO, 1, 0, 2000, 1, 10, 32767, 4096, 0.0},
    };
    int mode = o->mode;
    *o = defs[mode];
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--spin") && mode != MODE_DEMO) {
            o->spin = 1;
            continue;
        }
        if (!strcmp(a, "--csv") && mode == MODE_DEMO) {
            o->csv = 1;
            continue;
        }
        if (!v)
            return -1;
        i++;
        if (!strcmp(a, "--tasks"))
            o->tasks = bench_long(v);
        else if (!strcmp(a, mode == MODE_DEMO ? "--task-bytes" : "--size"))
            o->size = mode == MODE_DEMO ? (size_t)bench_long(v) : bench_size(v);
        else if (!strcmp(a, mode == MODE_BPFARM ? "--fanout" : "--k") && mode != MODE_DEMO)
            o->k = bench_long(v);
        else if (!strcmp(a, mode == MODE_BUFFERED ? "--maxreqs" : "--outstanding"))
            o->maxreqs = bench_long(v);
        else if (!strcmp(a, mode == MODE_BPFARM ? "--maxtags" : "--tagpool") && mode != MODE_DEMO)
            o->tagpool = bench_long(v);
        else if (!strcmp(a, mode == MODE_BPFARM ? "--work-ms" : "--task-ms") && mode != MODE_DEMO)
            o->task_ms = bench_double(v);
        else if (!strcmp(a, "--work-us") && mode == MODE_DEMO)
            o->task_ms = (double)bench_long(v) / 1e3;
        else
            return -1;
    }
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median round trip of a request (4 bytes) answered by a task-sized message, rank 0 <-> 1. */
static double measure_rtt(int rank, size_t n)
{
    enum { R = 7, TAG_RTT = 1 };
    double v[R];
    unsigned char *b = calloc(n, 1);
    int x = 0;
    if (!b)
        bench_fail("out of memory");
    for (int i = 0; i < R; i++) {
        if (rank == 1) {
            double t0 = MPI_Wtime();
            MPI_Send(&x, 1, MPI_INT, 0, TAG_RTT, MPI_COMM_WORLD);
            MPI_Recv(b, (int)n, MPI_BYTE, 0, TAG_RTT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            v[i] = MPI_Wtime() - t0;
        } else if (rank == 0) {
            MPI_Recv(&x, 1, MPI_INT, 1, TAG_RTT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(b, (int)n, MPI_BYTE, 1, TAG_RTT, MPI_COMM_WORLD);
        }
    }
    free(b);
    double med = 0;
    if (rank == 1) {
        qsort(v, R, sizeof v[0], cmp_double);
        med = v[R / 2];
        MPI_Send(&med, 1, MPI_DOUBLE, 0, TAG_RTT, MPI_COMM_WORLD);
    } else if (rank == 0) {
        MPI_Recv(&med, 1, MPI_DOUBLE, 1, TAG_RTT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    return med;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    struct opts o;
    if (parse(argc, argv, &o) != 0) {
        if (rank == 0)
            usage(o.mode < 0 ? FARM_DEFAULT_MODE : o.mode);
        MPI_Finalize();
        return 2;
    }
    const int demo = o.mode == MODE_DEMO;
    /* tasks outstanding per worker: the paper's buffered worker asks for more as soon as it takes a
       task, so besides its MAXREQS x k posted receives it holds the task it computes */
    long slots = o.k * o.maxreqs + (o.mode == MODE_BUFFERED);
    if (np < 2 || o.tasks < 1 || o.k < 1 || o.maxreqs < 1 || o.tagpool < slots ||
        o.maxreqs * o.k > 100000 || o.size < (demo ? 4u : 16u) || o.size > (1u << 28) ||
        (demo && (o.tasks > DEMO_MAX_TASKS || o.maxreqs > 1000)))
        bench_fail("bad parameters (need >= 2 ranks, positive counts, a tag pool of at least the "
                "tasks outstanding per worker, size >= 16; farm_demo: tasks <= 32000, outstanding <= 1000)");
    int *ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    if (flag && o.tagpool > *ub)
        bench_fail("tag pool too large for MPI_TAG_UB");

    sctpmpi_farm_config c;
    sctpmpi_farm_config_init(&c);
    c.k = (int)slots;
    c.max_task_bytes = (int)o.size;
    c.max_result_bytes = demo ? 24 : (int)o.size;
    c.tag_space = (int)o.tagpool;
    struct state s = {&o, NULL, NULL, NULL, 0, 0};
    if (rank == 0) {
        s.seen = calloc((size_t)o.tasks, 1);
        s.per = calloc((size_t)np, sizeof(long));
        s.expect = calloc((size_t)o.tasks, sizeof(uint64_t));
        if (!s.seen || !s.per || !s.expect)
            bench_fail("out of memory");
    }
    double rtt = o.mode == MODE_BUFFERED ? measure_rtt(rank, o.size) : 0;
    if (rank == 0 && !demo) {
        bench_print_env(stdout);
        printf(o.mode == MODE_BUFFERED
                   ? "bench,tasks,size,k,maxreqs,tagpool,workers,task_ms,seconds,rtt_ms,task_mean_ms,model_s,"
                     "model_buffered_s\n"
                   : "bench,tasks,size,fanout,outstanding,maxtags,workers,work_ms,seconds\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    int rc = demo ? sctpmpi_farm_run(MPI_COMM_WORLD, &c, o.tasks, demo_task, demo_work, demo_result, &s, NULL)
                  : sctpmpi_farm_run(MPI_COMM_WORLD, &c, o.tasks, msg_task, msg_work, msg_result, &s, NULL);
    double el = MPI_Wtime() - t0;
    if (rc != MPI_SUCCESS)
        bench_fail("the farm returned an error");
    /* the workers' counts and task times, and the per-worker results the manager saw */
    double mine[2] = {(double)s.done, s.work_s}, tot[2] = {0, 0};
    MPI_Reduce(mine, tot, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    long *did = rank == 0 ? calloc((size_t)np, sizeof(long)) : NULL;
    MPI_Gather(&s.done, 1, MPI_LONG, did, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        int nw = np - 1;
        long mn = o.tasks, mx = 0;
        for (long t = 0; t < o.tasks; t++)
            if (!s.seen[t])
                bench_fail("a task was never done");
        for (int w = 1; w < np; w++) {
            if (did[w] != s.per[w])
                bench_fail("workers' task counts do not add up");
            mn = s.per[w] < mn ? s.per[w] : mn;
            mx = s.per[w] > mx ? s.per[w] : mx;
        }
        if ((long)tot[0] != o.tasks)
            bench_fail("workers' task counts do not add up");
        if (o.mode == MODE_BUFFERED) {
            double tmean = tot[1] / tot[0];
            double kk = (double)((o.tasks + nw - 1) / nw);
            double idle = rtt - tmean, model = rtt + kk * tmean + (idle > 0 ? (kk - 1) * idle : 0);
            double bidle = rtt / (double)(o.maxreqs * o.k) - tmean;
            double bmodel = rtt + kk * tmean + (bidle > 0 ? (kk - 1) * bidle : 0);
            printf("farm,%ld,%zu,%ld,%ld,%ld,%d,%g,%.4f,%.3f,%.3f,%.4f,%.4f\n", o.tasks, o.size, o.k,
                   o.maxreqs, o.tagpool, nw, o.task_ms, el, rtt * 1e3, tmean * 1e3, model, bmodel);
        } else if (o.mode == MODE_BPFARM) {
            printf("#per_worker_min=%ld per_worker_max=%ld\n", mn, mx);
            printf("bpfarm,%ld,%zu,%ld,%ld,%ld,%d,%g,%.4f\n", o.tasks, o.size, o.k, o.maxreqs, o.tagpool, nw,
                   o.task_ms, el);
        } else {
            long tb = (long)o.size;
            double tps = (double)o.tasks / el, mbs = (double)o.tasks * (double)tb / el / 1e6;
            if (o.csv) {
                printf("bench,ranks,tasks,task_bytes,outstanding,seconds,tasks_per_s,mb_per_s,check\n");
                printf("farm,%d,%ld,%ld,%ld,%.6f,%.1f,%.2f,OK\n", np, o.tasks, tb, o.maxreqs, el, tps, mbs);
            } else {
                printf("# sctpmpi bench: farm_demo (%d workers, %ld outstanding each)\n", nw, o.maxreqs);
                printf("tasks %ld x %ld B: %.3f s, %.1f tasks/s, %.2f MB/s, result check OK\n", o.tasks, tb, el,
                       tps, mbs);
            }
        }
        fflush(stdout);
    }
    free(did);
    free(s.seen);
    free(s.per);
    free(s.expect);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
