/* bpfarm.c - the Bulk Processor Farm of paper 000 (Kamal, Penoff, Wagner, SC05, section 4.2).
 * Owned by the experiments work (issue 6).
 *
 * Rank 0 is the manager, ranks 1..N-1 are workers.
 * - Worker: keeps `--outstanding` (10) task requests outstanding. Sending a request first posts
 *   `--fanout` receives with MPI_ANY_TAG (so every task arrives to a pre-posted receive: expected
 *   messages), then MPI_Isend's a small request. It waits with MPI_Waitany, checks the task's data,
 *   "computes" (`--work-ms`, sleep; `--spin` burns CPU instead), and MPI_Isend's a result of the same
 *   size on tag RESULT_BASE + task tag. Each time `fanout` replies have been consumed it sends a new
 *   request, until the manager answers with DONE messages (no tasks left).
 * - Manager: receives in order of arrival (MPI_ANY_SOURCE, MPI_ANY_TAG). A request is answered with
 *   `fanout` messages: tasks while tasks remain, else DONE. Each task gets a tag that is unique
 *   among the tasks in flight, from a pool of `--maxtags` tags (MaxWorkTags); a tag returns to the
 *   pool when its result arrives. With no free tag, requests wait in arrival order.
 *   Task sends use a pool of send buffers (MPI_Isend; a buffer is reused once its send completed).
 * Checks: each task's data at the worker, each result's data and tag at the manager, every task
 * done exactly once, every worker's count; any failure exits non-zero (MPI_Abort).
 * Output (rank 0): a CSV header, a comment line "#per_worker_min=.. per_worker_max=.." and one row
 * "bpfarm,tasks,size,fanout,outstanding,maxtags,workers,work_ms,seconds" (seconds: manager's time
 * from the barrier to the last result and the last worker's FIN). */
#include "exp_common.h"

#define KIND_TASK 1u
#define KIND_RESULT 2u
#define NSENDBUF 64

static int TAG_REQ, TAG_DONE, TAG_FIN, RESULT_BASE; /* task tags are 0..maxtags-1 */

struct opts {
    long tasks, outstanding, fanout, maxtags;
    size_t size;
    double work_ms;
    int spin;
};

static void usage(void)
{
    fprintf(stderr, "usage: bpfarm [--tasks N] [--size BYTES] [--fanout F] [--outstanding R] "
                    "[--maxtags T] [--work-ms MS] [--spin]\n");
}

static void worker(const struct opts *o)
{
    long nslots = o->outstanding * o->fanout;
    size_t n = o->size;
    unsigned char *rbuf = malloc((size_t)nslots * n), *resbuf = malloc((size_t)nslots * n);
    MPI_Request *rreq = malloc(sizeof(MPI_Request) * (size_t)nslots);
    MPI_Request *sreq = malloc(sizeof(MPI_Request) * (size_t)nslots);
    long *freeslots = malloc(sizeof(long) * (size_t)nslots);
    MPI_Request *qreq = malloc(sizeof(MPI_Request) * (size_t)o->outstanding * 2);
    if (!rbuf || !resbuf || !rreq || !sreq || !freeslots || !qreq)
        exp_die("out of memory");
    long nfree = 0, nq = o->outstanding * 2, qi = 0, posted = 0, consumed = 0, done_tasks = 0;
    int req_token = 0, done = 0;
    for (long i = 0; i < nslots; i++) {
        rreq[i] = sreq[i] = MPI_REQUEST_NULL;
        freeslots[nfree++] = nslots - 1 - i;
    }
    for (long i = 0; i < nq; i++)
        qreq[i] = MPI_REQUEST_NULL;
    /* one request: post fanout receives, then the request itself */
#define SEND_REQUEST()                                                                             \
    do {                                                                                           \
        for (long f = 0; f < o->fanout; f++) {                                                     \
            long s = freeslots[--nfree];                                                           \
            MPI_Irecv(rbuf + (size_t)s * n, (int)n, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rreq[s]); \
            posted++;                                                                              \
        }                                                                                          \
        MPI_Wait(&qreq[qi], MPI_STATUS_IGNORE);                                                    \
        MPI_Isend(&req_token, 0, MPI_INT, 0, TAG_REQ, MPI_COMM_WORLD, &qreq[qi]);                  \
        qi = (qi + 1) % nq;                                                                        \
    } while (0)
    for (long r = 0; r < o->outstanding; r++)
        SEND_REQUEST();
    while (posted > 0) {
        int idx;
        MPI_Status st;
        MPI_Waitany((int)nslots, rreq, &idx, &st);
        if (idx == MPI_UNDEFINED)
            exp_die("no posted receive left");
        posted--;
        unsigned char *buf = rbuf + (size_t)idx * n;
        if (st.MPI_TAG == TAG_DONE) {
            done = 1;
        } else {
            int cnt;
            uint32_t id;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            if (st.MPI_TAG < 0 || st.MPI_TAG >= o->maxtags || cnt != (int)n ||
                exp_msg_check(buf, n, KIND_TASK, &id) != 0 || id >= (uint32_t)o->tasks)
                exp_die("task corrupt (tag, size or data)");
            exp_work(o->work_ms, o->spin);
            MPI_Wait(&sreq[idx], MPI_STATUS_IGNORE);
            unsigned char *res = resbuf + (size_t)idx * n;
            exp_msg_fill(res, n, id, KIND_RESULT);
            MPI_Isend(res, (int)n, MPI_BYTE, 0, RESULT_BASE + st.MPI_TAG, MPI_COMM_WORLD, &sreq[idx]);
            done_tasks++;
        }
        freeslots[nfree++] = idx;
        consumed++;
        if (!done && consumed % o->fanout == 0)
            SEND_REQUEST();
    }
#undef SEND_REQUEST
    exp_waitall((int)nslots, sreq);
    exp_waitall((int)nq, qreq);
    MPI_Send(&done_tasks, 1, MPI_LONG, 0, TAG_FIN, MPI_COMM_WORLD);
    free(rbuf);
    free(resbuf);
    free(rreq);
    free(sreq);
    free(freeslots);
    free(qreq);
}

static void manager(const struct opts *o, int nworkers)
{
    size_t n = o->size;
    unsigned char *in = malloc(n), *sbuf = malloc((size_t)NSENDBUF * n);
    MPI_Request sreq[NSENDBUF];
    int *tag_task = malloc(sizeof(int) * (size_t)o->maxtags); /* task in flight per tag, -1 free */
    int *freetags = malloc(sizeof(int) * (size_t)o->maxtags);
    char *seen = calloc((size_t)o->tasks, 1);
    /* FIFO of pending requests: worker rank and replies still owed */
    long qcap = (long)nworkers * (o->outstanding + 2) + 16, qh = 0, qt = 0;
    int *qw = malloc(sizeof(int) * (size_t)qcap);
    long *qleft = malloc(sizeof(long) * (size_t)qcap);
    long *per = calloc((size_t)nworkers + 1, sizeof(long));
    if (!in || !sbuf || !tag_task || !freetags || !seen || !qw || !qleft || !per)
        exp_die("out of memory");
    for (int i = 0; i < NSENDBUF; i++)
        sreq[i] = MPI_REQUEST_NULL;
    int nfreetags = 0;
    for (long t = o->maxtags - 1; t >= 0; t--) {
        tag_task[t] = -1;
        freetags[nfreetags++] = (int)t;
    }
    long next = 0, results = 0, fins = 0, total_reported = 0;
    int dummy = 0;
    while (results < o->tasks || fins < nworkers) {
        MPI_Status st;
        MPI_Recv(in, (int)n, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        int src = st.MPI_SOURCE, tag = st.MPI_TAG;
        if (tag == TAG_REQ) {
            if ((qt + 1) % qcap == qh)
                exp_die("request queue overflow");
            qw[qt] = src;
            qleft[qt] = o->fanout;
            qt = (qt + 1) % qcap;
        } else if (tag == TAG_FIN) {
            long c;
            memcpy(&c, in, sizeof c);
            total_reported += c;
            per[src] = c;
            fins++;
        } else if (tag >= RESULT_BASE && tag < RESULT_BASE + o->maxtags) {
            int t = tag - RESULT_BASE, cnt;
            uint32_t id;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            if (tag_task[t] < 0 || cnt != (int)n || exp_msg_check(in, n, KIND_RESULT, &id) != 0 ||
                id != (uint32_t)tag_task[t] || seen[id])
                exp_die("result corrupt, unexpected or duplicated");
            seen[id] = 1;
            tag_task[t] = -1;
            freetags[nfreetags++] = t;
            results++;
        } else {
            exp_die("unexpected tag at the manager");
        }
        /* serve pending requests in arrival order */
        while (qh != qt) {
            if (next < o->tasks) {
                if (nfreetags == 0)
                    break;
                int t = freetags[--nfreetags];
                int b = -1;
                for (int k = 0; k < NSENDBUF && b < 0; k++)
                    if (sreq[k] == MPI_REQUEST_NULL)
                        b = k;
                if (b < 0)
                    MPI_Waitany(NSENDBUF, sreq, &b, MPI_STATUS_IGNORE);
                unsigned char *tb = sbuf + (size_t)b * n;
                tag_task[t] = (int)next;
                exp_msg_fill(tb, n, (uint32_t)next, KIND_TASK);
                MPI_Isend(tb, (int)n, MPI_BYTE, qw[qh], t, MPI_COMM_WORLD, &sreq[b]);
                next++;
            } else {
                MPI_Send(&dummy, 0, MPI_INT, qw[qh], TAG_DONE, MPI_COMM_WORLD);
            }
            if (--qleft[qh] == 0)
                qh = (qh + 1) % qcap;
        }
    }
    exp_waitall(NSENDBUF, sreq);
    for (long i = 0; i < o->tasks; i++)
        if (!seen[i])
            exp_die("a task was never done");
    if (total_reported != o->tasks)
        exp_die("workers' task counts do not add up");
    long mn = o->tasks, mx = 0;
    for (int w = 1; w <= nworkers; w++) {
        if (per[w] < mn)
            mn = per[w];
        if (per[w] > mx)
            mx = per[w];
    }
    free(in);
    free(sbuf);
    free(tag_task);
    free(freetags);
    free(seen);
    free(qw);
    free(qleft);
    printf("#per_worker_min=%ld per_worker_max=%ld\n", mn, mx);
    free(per);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, np;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    struct opts o = {10000, 10, 1, 1000, 30 * 1024, 0.0, 0};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--spin")) {
            o.spin = 1;
            continue;
        }
        if (!v) {
            if (rank == 0)
                usage();
            MPI_Finalize();
            return 2;
        }
        i++;
        if (!strcmp(a, "--tasks"))
            o.tasks = exp_long(v);
        else if (!strcmp(a, "--size"))
            o.size = exp_size(v);
        else if (!strcmp(a, "--fanout"))
            o.fanout = exp_long(v);
        else if (!strcmp(a, "--outstanding"))
            o.outstanding = exp_long(v);
        else if (!strcmp(a, "--maxtags"))
            o.maxtags = exp_long(v);
        else if (!strcmp(a, "--work-ms"))
            o.work_ms = exp_double(v);
        else {
            if (rank == 0)
                usage();
            MPI_Finalize();
            return 2;
        }
    }
    if (np < 2 || o.tasks < 1 || o.fanout < 1 || o.outstanding < 1 || o.maxtags < 1 || o.size < 16 ||
        o.size > (1u << 28))
        exp_die("bad parameters (need >= 2 ranks, positive counts, size >= 16)");
    RESULT_BASE = (int)o.maxtags;
    TAG_REQ = (int)(2 * o.maxtags);
    TAG_DONE = TAG_REQ + 1;
    TAG_FIN = TAG_REQ + 2;
    int *ub, flag;
    MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &ub, &flag);
    if (flag && TAG_FIN > *ub)
        exp_die("--maxtags too large for MPI_TAG_UB");
    if (rank == 0) {
        exp_print_env(stdout);
        printf("bench,tasks,size,fanout,outstanding,maxtags,workers,work_ms,seconds\n");
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0)
        manager(&o, np - 1);
    else
        worker(&o);
    double el = MPI_Wtime() - t0;
    if (rank == 0) {
        printf("bpfarm,%ld,%zu,%ld,%ld,%ld,%d,%g,%.4f\n", o.tasks, o.size, o.fanout, o.outstanding, o.maxtags,
               np - 1, o.work_ms, el);
        fflush(stdout);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
