/* farm.c - the buffered farm template of paper 001 (Kamal et al., "Using SCTP to hide latency in
 * MPI programs", section 3.2) with a synthetic task. Owned by the experiments work (issue 6).
 *
 * Rank 0 is the manager (create_task + process_results), ranks 1..N-1 are workers.
 * - Worker: keeps `--maxreqs` (MAXREQS) requests outstanding, each asking for `--k` tasks (a batched
 *   request: one small message carrying k). A request first posts k MPI_Irecv (MPI_ANY_TAG). The
 *   loop: MPI_Waitany for the first available task, immediately send another request (once k slots
 *   are free: with k = 1 at once), execute the task (`--task-ms`, sleep; `--spin` burns CPU),
 *   MPI_Isend the result (same size, tag RESULT_BASE + task tag), and re-post the receive with the
 *   next request. DONE messages (no task left) end the worker, which then reports its counts.
 * - Manager: receives in order of arrival; keeps each worker's demand (tasks requested, not yet
 *   sent) and hands tasks out round-robin over the workers with demand, one task per message
 *   (tasks are never batched into one message, as in the paper). Each task's tag is its id from a
 *   reusable pool of `--tagpool` tags; a dictionary tag -> task matches results to tasks.
 * The model of the paper (Figure 5): T = RTT + k*T(task) + max((k-1)(RTT - T(task)), 0) for one
 * worker doing k tasks; we print it with k = tasks per worker (ceil(tasks / workers)), RTT measured
 * before the farm (median of 7 request/task exchanges manager<->worker 1, task-sized replies) and
 * T(task) the workers' measured mean task time; also a buffered variant (ours, labelled as such)
 * where the idle term uses RTT / (MAXREQS * k) in place of RTT.
 * Checks: task data at the worker, result data/tag at the manager, every task exactly once, the
 * workers' counts add up. Any failure exits non-zero.
 * Output (rank 0): "farm,tasks,size,k,maxreqs,tagpool,workers,task_ms,seconds,rtt_ms,
 * task_mean_ms,model_s,model_buffered_s". */
#include "exp_common.h"

#define KIND_TASK 1u
#define KIND_RESULT 2u
#define NSENDBUF 64

static int TAG_REQ, TAG_DONE, TAG_FIN, TAG_RTT, RESULT_BASE;

struct opts {
    long tasks, k, maxreqs, tagpool;
    size_t size;
    double task_ms;
    int spin;
};

struct fin {
    double tasks;   /* tasks done */
    double work_s;  /* time spent in the task routine */
};

static void worker(const struct opts *o)
{
    long nslots = o->maxreqs * o->k;
    size_t n = o->size;
    unsigned char *rbuf = malloc((size_t)nslots * n), *resbuf = malloc((size_t)nslots * n);
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)nslots);
    MPI_Request *sreq = malloc(sizeof(MPI_Request) * (size_t)nslots);
    long *freeslots = malloc(sizeof(long) * (size_t)nslots);
    long nq = o->maxreqs * 2, qi = 0;
    MPI_Request *qreq = malloc(sizeof(MPI_Request) * (size_t)nq);
    int *qval = malloc(sizeof(int) * (size_t)nq);
    if (!rbuf || !resbuf || !rreq || !sreq || !freeslots || !qreq || !qval)
        exp_die("out of memory");
    long nfree = 0, posted = 0;
    int done = 0;
    struct fin fin = {0, 0};
    for (long i = 0; i < nslots; i++) {
        rreq[i] = sreq[i] = MPI_REQUEST_NULL;
        freeslots[nfree++] = nslots - 1 - i;
    }
    for (long i = 0; i < nq; i++)
        qreq[i] = MPI_REQUEST_NULL;
#define SEND_REQUEST()                                                                             \
    do {                                                                                           \
        for (long f = 0; f < o->k; f++) {                                                          \
            long s = freeslots[--nfree];                                                           \
            MPI_Irecv(rbuf + (size_t)s * n, (int)n, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq[s]); \
            posted++;                                                                              \
        }                                                                                          \
        MPI_Wait(&qreq[qi], MPI_STATUS_IGNORE);                                                    \
        qval[qi] = (int)o->k;                                                                      \
        MPI_Isend(&qval[qi], 1, MPI_INT, 0, TAG_REQ, MPI_COMM_WORLD, &qreq[qi]);                   \
        qi = (qi + 1) % nq;                                                                        \
    } while (0)
    for (long r = 0; r < o->maxreqs; r++)
        SEND_REQUEST();
    while (posted > 0) {
        int idx;
        MPI_Status st;
        MPI_Waitany((int)nslots, rreq, &idx, &st);
        if (idx == MPI_UNDEFINED)
            exp_die("no posted receive left");
        posted--;
        freeslots[nfree++] = idx;
        unsigned char *buf = rbuf + (size_t)idx * n;
        if (st.MPI_TAG == TAG_DONE) {
            done = 1;
            continue;
        }
        int cnt;
        uint32_t id;
        MPI_Get_count(&st, MPI_BYTE, &cnt);
        if (st.MPI_TAG < 0 || st.MPI_TAG >= o->tagpool || cnt != (int)n ||
            exp_msg_check(buf, n, KIND_TASK, &id) != 0 || id >= (uint32_t)o->tasks)
            exp_die("task corrupt (tag, size or data)");
        /* the slot's data is checked: it may be re-posted by the next request at once */
        unsigned char *res = resbuf + (size_t)idx * n;
        MPI_Wait(&sreq[idx], MPI_STATUS_IGNORE);
        exp_msg_fill(res, n, id, KIND_RESULT);
        int tag = st.MPI_TAG;
        if (!done && nfree >= o->k)
            SEND_REQUEST();
        double w0 = MPI_Wtime();
        exp_work(o->task_ms, o->spin);
        fin.work_s += MPI_Wtime() - w0;
        MPI_Isend(res, (int)n, MPI_BYTE, 0, RESULT_BASE + tag, MPI_COMM_WORLD, &sreq[idx]);
        fin.tasks += 1;
    }
#undef SEND_REQUEST
    exp_waitall((int)nslots, sreq);
    exp_waitall((int)nq, qreq);
    MPI_Send(&fin, 2, MPI_DOUBLE, 0, TAG_FIN, MPI_COMM_WORLD);
    free(rbuf);
    free(resbuf);
    free(rreq);
    free(sreq);
    free(freeslots);
    free(qreq);
    free(qval);
}

/* Returns the mean task time (seconds) the workers reported. */
static double manager(const struct opts *o, int nw)
{
    size_t n = o->size;
    unsigned char *in = malloc(n), *sbuf = malloc((size_t)NSENDBUF * n);
    MPI_Request sreq[NSENDBUF];
    long *dict = malloc(sizeof(long) * (size_t)o->tagpool); /* tag -> task in flight, -1 free */
    int *freetags = malloc(sizeof(int) * (size_t)o->tagpool);
    char *seen = calloc((size_t)o->tasks, 1);
    long *demand = calloc((size_t)nw + 1, sizeof(long));
    if (!in || !sbuf || !dict || !freetags || !seen || !demand)
        exp_die("out of memory");
    for (int i = 0; i < NSENDBUF; i++)
        sreq[i] = MPI_REQUEST_NULL;
    int nfreetags = 0;
    for (long t = o->tagpool - 1; t >= 0; t--) {
        dict[t] = -1;
        freetags[nfreetags++] = (int)t;
    }
    long next = 0, results = 0, fins = 0, total = 0, total_demand = 0;
    double work = 0;
    int rr = 0, dummy = 0;
    while (results < o->tasks || fins < nw) {
        MPI_Status st;
        MPI_Recv(in, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        int src = st.MPI_SOURCE, tag = st.MPI_TAG;
        if (tag == TAG_REQ) {
            int kk;
            memcpy(&kk, in, sizeof kk);
            if (kk < 1)
                exp_die("bad request");
            demand[src] += kk;
            total_demand += kk;
        } else if (tag == TAG_FIN) {
            struct fin f;
            memcpy(&f, in, sizeof f);
            total += (long)f.tasks;
            work += f.work_s;
            fins++;
        } else if (tag >= RESULT_BASE && tag < RESULT_BASE + o->tagpool) {
            int t = tag - RESULT_BASE, cnt;
            uint32_t id;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            if (dict[t] < 0 || cnt != (int)n || exp_msg_check(in, n, KIND_RESULT, &id) != 0 ||
                id != (uint32_t)dict[t] || seen[id])
                exp_die("result corrupt, unexpected or duplicated");
            seen[id] = 1;
            dict[t] = -1;
            freetags[nfreetags++] = t;
            results++;
        } else {
            exp_die("unexpected tag at the manager");
        }
        /* round-robin over the workers with demand, one task per message */
        while (total_demand > 0 && (next >= o->tasks || nfreetags > 0)) {
            int w = 0;
            for (int c = 0; c < nw; c++) {
                int cand = 1 + (rr + c) % nw;
                if (demand[cand] > 0) {
                    w = cand;
                    rr = (rr + c + 1) % nw;
                    break;
                }
            }
            if (next < o->tasks) {
                int t = freetags[--nfreetags];
                int b = -1;
                for (int q = 0; q < NSENDBUF && b < 0; q++)
                    if (sreq[q] == MPI_REQUEST_NULL)
                        b = q;
                if (b < 0)
                    MPI_Waitany(NSENDBUF, sreq, &b, MPI_STATUS_IGNORE);
                unsigned char *tb = sbuf + (size_t)b * n;
                dict[t] = next;
                exp_msg_fill(tb, n, (uint32_t)next, KIND_TASK);
                MPI_Isend(tb, (int)n, MPI_BYTE, w, t, MPI_COMM_WORLD, &sreq[b]);
                next++;
            } else {
                MPI_Send(&dummy, 0, MPI_INT, w, TAG_DONE, MPI_COMM_WORLD);
            }
            demand[w]--;
            total_demand--;
        }
    }
    exp_waitall(NSENDBUF, sreq);
    for (long i = 0; i < o->tasks; i++)
        if (!seen[i])
            exp_die("a task was never done");
    if (total != o->tasks)
        exp_die("workers' task counts do not add up");
    free(in);
    free(sbuf);
    free(dict);
    free(freetags);
    free(seen);
    free(demand);
    return total > 0 ? work / (double)total : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Median round trip of a request (4 bytes) answered by a task-sized message, rank 0 <-> 1. */
static double measure_rtt(int rank, size_t n)
{
    enum { R = 7 };
    double v[R];
    unsigned char *b = calloc(n, 1);
    int x = 0;
    if (!b)
        exp_die("out of memory");
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
    struct opts o = {5000, 1, 3, 1000, 12 * 1024, 23.7, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--spin")) {
            o.spin = 1;
            continue;
        }
        int ok = v != NULL;
        if (ok) {
            i++;
            if (!strcmp(a, "--tasks"))
                o.tasks = exp_long(v);
            else if (!strcmp(a, "--size"))
                o.size = exp_size(v);
            else if (!strcmp(a, "--k"))
                o.k = exp_long(v);
            else if (!strcmp(a, "--maxreqs"))
                o.maxreqs = exp_long(v);
            else if (!strcmp(a, "--tagpool"))
                o.tagpool = exp_long(v);
            else if (!strcmp(a, "--task-ms"))
                o.task_ms = exp_double(v);
            else
                ok = 0;
        }
        if (!ok) {
            if (rank == 0)
                fprintf(stderr, "usage: farm [--tasks N] [--size BYTES] [--k K] [--maxreqs M] "
                                "[--tagpool P] [--task-ms MS] [--spin]\n");
            MPI_Finalize();
            return 2;
        }
    }
    if (np < 2 || o.tasks < 1 || o.k < 1 || o.maxreqs < 1 || o.tagpool < 1 || o.size < 16 ||
        o.size > (1u << 28))
        exp_die("bad parameters (need >= 2 ranks, positive counts, size >= 16)");
    RESULT_BASE = (int)o.tagpool;
    TAG_REQ = (int)(2 * o.tagpool);
    TAG_DONE = TAG_REQ + 1;
    TAG_FIN = TAG_REQ + 2;
    TAG_RTT = TAG_REQ + 3;
    int *ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    if (flag && TAG_RTT > *ub)
        exp_die("--tagpool too large for MPI_TAG_UB");
    double rtt = measure_rtt(rank, o.size);
    if (rank == 0) {
        exp_print_env(stdout);
        printf("bench,tasks,size,k,maxreqs,tagpool,workers,task_ms,seconds,rtt_ms,task_mean_ms,model_s,"
               "model_buffered_s\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), tmean = 0;
    if (rank == 0)
        tmean = manager(&o, np - 1);
    else
        worker(&o);
    double el = MPI_Wtime() - t0;
    if (rank == 0) {
        int nw = np - 1;
        double kk = (double)((o.tasks + nw - 1) / nw);
        double idle = rtt - tmean, model = rtt + kk * tmean + (idle > 0 ? (kk - 1) * idle : 0);
        double bidle = rtt / (double)(o.maxreqs * o.k) - tmean;
        double bmodel = rtt + kk * tmean + (bidle > 0 ? (kk - 1) * bidle : 0);
        printf("farm,%ld,%zu,%ld,%ld,%ld,%d,%g,%.4f,%.3f,%.3f,%.4f,%.4f\n", o.tasks, o.size, o.k, o.maxreqs,
               o.tagpool, nw, o.task_ms, el, rtt * 1e3, tmean * 1e3, model, bmodel);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
