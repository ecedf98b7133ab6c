/* large_count.c — the MPI-4 large-count ("_c") functions against their int twins: every
 * point-to-point, collective, neighbourhood, datatype, Pack and status function of the
 * family, on counts small enough for this machine.  Run with SCTPMPI_LARGE_COUNT_CHUNK set
 * low (e.g. 7), the same program drives every count above it through the derived-datatype
 * path that carries counts beyond the int range.  Also: Get_count_c/Get_elements_c report
 * counts beyond 2^31, the _c constructors answer get_envelope_c/get_contents_c in the
 * large-count layout, and a few collectives run on an intercommunicator.  Every collective
 * runs in its blocking, non-blocking and persistent (*_init_c, started several times) form. */
#include "../common/mpi_test.h"

#include <limits.h>

#define N 100 /* elements per peer */

static int val(int from, int to, int i) { return from * 100000 + to * 1000 + i; }

static void check_ints(const int *got, const int *want, int n, const char *what)
{
    for (int i = 0; i < n; i++)
        CHECK(got[i] == want[i], "%s: element %d is %d, want %d", what, i, got[i], want[i]);
}

static void wait1(MPI_Request *r) { CHECK(MPI_Wait(r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "wait"); }

/* ---- point to point: a ring, every send and receive form ------------------------------- */
static void p2p(void)
{
    int next = (rank_ + 1) % size_, prev = (rank_ + size_ - 1) % size_;
    int *s = xmalloc(N * sizeof *s), *r = xmalloc(N * sizeof *r), *w = xmalloc(N * sizeof *w);
    for (int i = 0; i < N; i++) {
        s[i] = val(rank_, next, i);
        w[i] = val(prev, rank_, i);
    }
    MPI_Status st;
    MPI_Count c;
    MPI_Request rq[2];
    /* Isend_c / Recv_c, counts of the status */
    memset(r, 0, N * sizeof *r);
    MPI_Isend_c(s, N, MPI_INT, next, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Recv_c(r, N, MPI_INT, prev, 1, MPI_COMM_WORLD, &st);
    wait1(&rq[0]);
    check_ints(r, w, N, "Isend_c/Recv_c");
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(c == N, "Get_count_c %lld", (long long)c);
    MPI_Get_elements_c(&st, MPI_INT, &c);
    CHECK(c == N, "Get_elements_c %lld", (long long)c);
    MPI_Get_count_c(&st, MPI_DOUBLE, &c);
    CHECK(c == (N * sizeof(int)) / sizeof(double), "Get_count_c as double %lld", (long long)c);
    /* Irecv_c with each blocking send mode; Rsend_c after the receive is known posted */
    for (int mode = 0; mode < 4; mode++) {
        memset(r, 0, N * sizeof *r);
        MPI_Irecv_c(r, N, MPI_INT, prev, 2 + mode, MPI_COMM_WORLD, &rq[0]);
        if (mode == 3)
            MPI_Barrier(MPI_COMM_WORLD);
        if (mode == 0)
            MPI_Send_c(s, N, MPI_INT, next, 2, MPI_COMM_WORLD);
        else if (mode == 1)
            MPI_Ssend_c(s, N, MPI_INT, next, 3, MPI_COMM_WORLD);
        else if (mode == 2) {
            MPI_Count bsz = N * sizeof(int) + MPI_BSEND_OVERHEAD;
            char *b = xmalloc((size_t)bsz);
            MPI_Buffer_attach_c(b, bsz);
            MPI_Bsend_c(s, N, MPI_INT, next, 4, MPI_COMM_WORLD);
            wait1(&rq[0]);
            void *back;
            MPI_Count bs;
            MPI_Buffer_detach_c(&back, &bs);
            CHECK(back == b && bs == bsz, "Buffer_detach_c %lld", (long long)bs);
            free(b);
        } else
            MPI_Rsend_c(s, N, MPI_INT, next, 5, MPI_COMM_WORLD);
        if (mode != 2)
            wait1(&rq[0]);
        check_ints(r, w, N, "send modes");
    }
    /* the non-blocking send modes */
    for (int mode = 0; mode < 3; mode++) {
        memset(r, 0, N * sizeof *r);
        MPI_Irecv_c(r, N, MPI_INT, prev, 10 + mode, MPI_COMM_WORLD, &rq[0]);
        MPI_Barrier(MPI_COMM_WORLD);
        char *b = NULL;
        if (mode == 0)
            MPI_Issend_c(s, N, MPI_INT, next, 10, MPI_COMM_WORLD, &rq[1]);
        else if (mode == 1)
            MPI_Irsend_c(s, N, MPI_INT, next, 11, MPI_COMM_WORLD, &rq[1]);
        else {
            b = xmalloc(N * sizeof(int) + MPI_BSEND_OVERHEAD);
            MPI_Buffer_attach(b, N * sizeof(int) + MPI_BSEND_OVERHEAD);
            MPI_Ibsend_c(s, N, MPI_INT, next, 12, MPI_COMM_WORLD, &rq[1]);
        }
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        if (b) {
            void *back;
            int bs;
            MPI_Buffer_detach(&back, &bs);
            free(b);
        }
        check_ints(r, w, N, "non-blocking send modes");
    }
    /* persistent: every init form, started twice */
    for (int mode = 0; mode < 4; mode++) {
        char *b = NULL;
        if (mode == 2) {
            b = xmalloc(N * sizeof(int) + MPI_BSEND_OVERHEAD);
            MPI_Buffer_attach(b, N * sizeof(int) + MPI_BSEND_OVERHEAD);
        }
        MPI_Recv_init_c(r, N, MPI_INT, prev, 20, MPI_COMM_WORLD, &rq[0]);
        if (mode == 0)
            MPI_Send_init_c(s, N, MPI_INT, next, 20, MPI_COMM_WORLD, &rq[1]);
        else if (mode == 1)
            MPI_Ssend_init_c(s, N, MPI_INT, next, 20, MPI_COMM_WORLD, &rq[1]);
        else if (mode == 2)
            MPI_Bsend_init_c(s, N, MPI_INT, next, 20, MPI_COMM_WORLD, &rq[1]);
        else
            MPI_Rsend_init_c(s, N, MPI_INT, next, 20, MPI_COMM_WORLD, &rq[1]);
        for (int k = 0; k < 2; k++) {
            memset(r, 0, N * sizeof *r);
            MPI_Start(&rq[0]);
            MPI_Barrier(MPI_COMM_WORLD);
            MPI_Start(&rq[1]);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            check_ints(r, w, N, "persistent");
        }
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
        if (b) {
            void *back;
            int bs;
            MPI_Buffer_detach(&back, &bs);
            free(b);
        }
    }
    /* persistent requests outlive the datatype they were made with */
    {
        MPI_Datatype pt;
        MPI_Type_contiguous(N / 4, MPI_INT, &pt);
        MPI_Type_commit(&pt);
        MPI_Recv_init_c(r, 4, pt, prev, 21, MPI_COMM_WORLD, &rq[0]);
        MPI_Send_init_c(s, 4, pt, next, 21, MPI_COMM_WORLD, &rq[1]);
        MPI_Type_free(&pt);
        for (int k = 0; k < 2; k++) {
            memset(r, 0, N * sizeof *r);
            MPI_Startall(2, rq);
            MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
            check_ints(r, w, N, "persistent with a freed datatype");
        }
        MPI_Request_free(&rq[0]);
        MPI_Request_free(&rq[1]);
    }
    /* Sendrecv_c, Sendrecv_replace_c */
    memset(r, 0, N * sizeof *r);
    MPI_Sendrecv_c(s, N, MPI_INT, next, 30, r, N, MPI_INT, prev, 30, MPI_COMM_WORLD, &st);
    check_ints(r, w, N, "Sendrecv_c");
    memcpy(r, s, N * sizeof *r);
    MPI_Sendrecv_replace_c(r, N, MPI_INT, next, 31, prev, 31, MPI_COMM_WORLD, &st);
    check_ints(r, w, N, "Sendrecv_replace_c");
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(c == N, "Sendrecv_replace_c count %lld", (long long)c);
    /* Isendrecv_c, Isendrecv_replace_c against Sendrecv */
    memset(r, 0, N * sizeof *r);
    MPI_Isendrecv_c(s, N, MPI_INT, next, 32, r, N, MPI_INT, prev, 32, MPI_COMM_WORLD, &rq[0]);
    CHECK(MPI_Wait(&rq[0], &st) == MPI_SUCCESS, "Isendrecv_c wait");
    check_ints(r, w, N, "Isendrecv_c");
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(c == N && st.MPI_SOURCE == prev && st.MPI_TAG == 32, "Isendrecv_c status");
    memcpy(r, s, N * sizeof *r);
    MPI_Isendrecv_replace_c(r, N, MPI_INT, next, 33, prev, 33, MPI_COMM_WORLD, &rq[0]);
    CHECK(MPI_Wait(&rq[0], &st) == MPI_SUCCESS, "Isendrecv_replace_c wait");
    check_ints(r, w, N, "Isendrecv_replace_c");
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(c == N, "Isendrecv_replace_c count %lld", (long long)c);
    /* a communicator's and a session's buffer, by the _c functions */
    {
        MPI_Comm dup;
        MPI_Comm_dup(MPI_COMM_WORLD, &dup);
        MPI_Count bsz = N * sizeof(int) + MPI_BSEND_OVERHEAD, bs;
        char *b = xmalloc((size_t)bsz);
        void *back;
        CHECK(MPI_Comm_attach_buffer_c(dup, b, bsz) == MPI_SUCCESS, "Comm_attach_buffer_c");
        memset(r, 0, N * sizeof *r);
        MPI_Irecv_c(r, N, MPI_INT, prev, 34, dup, &rq[0]);
        MPI_Bsend_c(s, N, MPI_INT, next, 34, dup);
        wait1(&rq[0]);
        check_ints(r, w, N, "Bsend_c through Comm_attach_buffer_c");
        CHECK(MPI_Comm_detach_buffer_c(dup, &back, &bs) == MPI_SUCCESS && back == b &&
                  bs == bsz,
              "Comm_detach_buffer_c %lld", (long long)bs);
        MPI_Comm_free(&dup);
        MPI_Session ses;
        CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses) == MPI_SUCCESS,
              "Session_init");
        CHECK(MPI_Session_attach_buffer_c(ses, b, bsz) == MPI_SUCCESS,
              "Session_attach_buffer_c");
        CHECK(MPI_Session_detach_buffer_c(ses, &back, &bs) == MPI_SUCCESS && back == b &&
                  bs == bsz,
              "Session_detach_buffer_c %lld", (long long)bs);
        MPI_Session_finalize(&ses);
        free(b);
    }
    /* Mprobe + Mrecv_c, Improbe + Imrecv_c */
    for (int k = 0; k < 2; k++) {
        MPI_Message m;
        memset(r, 0, N * sizeof *r);
        MPI_Isend_c(s, N, MPI_INT, next, 40 + k, MPI_COMM_WORLD, &rq[0]);
        MPI_Mprobe(prev, 40 + k, MPI_COMM_WORLD, &m, &st);
        MPI_Get_count_c(&st, MPI_INT, &c);
        CHECK(c == N, "probed count %lld", (long long)c);
        if (k == 0) {
            MPI_Mrecv_c(r, N, MPI_INT, &m, &st);
        } else {
            MPI_Imrecv_c(r, N, MPI_INT, &m, &rq[1]);
            wait1(&rq[1]);
        }
        wait1(&rq[0]);
        check_ints(r, w, N, "Mrecv_c/Imrecv_c");
    }
    /* a non-contiguous type: 2 ints of every 3, 30 elements */
    MPI_Datatype vt;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vt); /* ints 0 and 2, extent 3 ints */
    MPI_Type_commit(&vt);
    int *vs = xmalloc(90 * sizeof(int)), *vr = xmalloc(90 * sizeof(int));
    for (int i = 0; i < 90; i++) {
        vs[i] = val(rank_, next, i);
        vr[i] = -1;
    }
    MPI_Sendrecv_c(vs, 30, vt, next, 50, vr, 60, MPI_INT, prev, 50, MPI_COMM_WORLD, &st);
    for (int e = 0; e < 30; e++) {
        CHECK(vr[2 * e] == val(prev, rank_, 3 * e) && vr[2 * e + 1] == val(prev, rank_, 3 * e + 2),
              "vector sendrecv element %d", e);
    }
    MPI_Get_elements_c(&st, MPI_INT, &c);
    CHECK(c == 60, "vector Get_elements_c %lld", (long long)c);
    MPI_Type_free(&vt);
    free(vs);
    free(vr);
    free(s);
    free(r);
    free(w);
}

/* ---- statuses: counts beyond 2^31 ---------------------------------------------------------- */
static void statuses(void)
{
    MPI_Status st;
    MPI_Count big = ((MPI_Count)1 << 33) + 5, c;
    MPI_Status_set_elements_c(&st, MPI_INT, big);
    MPI_Get_elements_c(&st, MPI_INT, &c);
    CHECK(c == big, "Get_elements_c beyond 2^31: %lld", (long long)c);
    MPI_Get_count_c(&st, MPI_INT, &c);
    CHECK(c == big, "Get_count_c beyond 2^31: %lld", (long long)c);
    MPI_Get_count_c(&st, MPI_SHORT, &c);
    CHECK(c == 2 * big, "Get_count_c as short: %lld", (long long)c);
    MPI_Get_count_c(&st, MPI_DOUBLE, &c);
    CHECK(c == MPI_UNDEFINED, "Get_count_c of a partial double: %lld", (long long)c);
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Get_elements_c(&st, pair, &c);
    CHECK(c == big, "Get_elements_c of a derived type: %lld", (long long)c);
    MPI_Type_free(&pair);

    /* types beyond the int range (built, never filled): sizes, extents, envelopes */
    MPI_Datatype huge, far;
    MPI_Count n = 3 * (MPI_Count)INT_MAX + 5, lb, ext, sz, ni, na, nl, nt;
    int comb;
    MPI_Type_contiguous_c(n, MPI_BYTE, &huge);
    MPI_Type_commit(&huge);
    MPI_Type_size_c(huge, &sz);
    MPI_Type_get_extent_c(huge, &lb, &ext);
    CHECK(sz == n && lb == 0 && ext == n, "contiguous_c beyond int: size %lld extent %lld",
          (long long)sz, (long long)ext);
    MPI_Type_get_true_extent_c(huge, &lb, &ext);
    CHECK(lb == 0 && ext == n, "contiguous_c beyond int: true extent %lld", (long long)ext);
    MPI_Type_get_envelope_c(huge, &ni, &na, &nl, &nt, &comb);
    CHECK(comb == MPI_COMBINER_CONTIGUOUS && ni == 0 && na == 0 && nl == 1 && nt == 1,
          "contiguous_c beyond int: envelope");
    MPI_Count l[1];
    MPI_Datatype t[1];
    MPI_Type_get_contents_c(huge, 0, 0, 1, 1, NULL, NULL, l, t);
    CHECK(l[0] == n && t[0] == MPI_BYTE, "contiguous_c beyond int: contents");
    MPI_Pack_size_c(2, huge, MPI_COMM_WORLD, &sz);
    CHECK(sz == 2 * n, "Pack_size_c beyond int: %lld", (long long)sz);
    MPI_Status_set_elements_c(&st, huge, 2 * n);
    MPI_Get_count_c(&st, huge, &c);
    CHECK(c == 2, "Get_count_c of a type beyond int: %lld", (long long)c);
    MPI_Get_elements_c(&st, huge, &c);
    CHECK(c == 2 * n, "Get_elements_c of a type beyond int: %lld", (long long)c);
    MPI_Type_free(&huge);
    MPI_Count bl[2] = {1, 2}, di[2] = {0, 4 * (MPI_Count)INT_MAX};
    MPI_Type_indexed_c(2, bl, di, MPI_INT, &far);
    MPI_Type_commit(&far);
    MPI_Type_size_c(far, &sz);
    MPI_Type_get_extent_c(far, &lb, &ext);
    CHECK(sz == 3 * (MPI_Count)sizeof(int) && lb == 0 &&
              ext == (di[1] + 2) * (MPI_Count)sizeof(int),
          "indexed_c with a displacement beyond int: size %lld extent %lld", (long long)sz,
          (long long)ext);
    MPI_Type_free(&far);
}

/* ---- collectives ------------------------------------------------------------------------ */
static void sum_c(void *in, void *inout, MPI_Count *len, MPI_Datatype *dt)
{
    (void)dt;
    for (MPI_Count i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* is the derived-datatype path taken for counts of N (sctpmpi's test tunable) */
static int large_path(void)
{
    const char *c = getenv("SCTPMPI_LARGE_COUNT_CHUNK");
    return c && atoll(c) > 0 && atoll(c) < N - 3;
}

static void colls(int nb)
{
    int P = size_, root = size_ - 1;
    int *s = xmalloc(sizeof(int) * N * P), *r = xmalloc(sizeof(int) * N * P),
        *w = xmalloc(sizeof(int) * N * P);
    MPI_Request rq = MPI_REQUEST_NULL;
    int *r0 = xmalloc(sizeof(int) * N * P);
    /* nb 0: the blocking call; 1: the non-blocking one; 2: the persistent one, started
     * several times, r restored to what it was before each start */
#define RUN(call_c, icall_c, pcall_c)                                                            \
    do {                                                                                         \
        if (nb == 2) {                                                                           \
            memcpy(r0, r, sizeof(int) * N * P);                                                  \
            CHECK((pcall_c) == MPI_SUCCESS, "%s", #pcall_c);                                     \
            for (int k_ = 0; k_ < 3; k_++) {                                                     \
                memcpy(r, r0, sizeof(int) * N * P);                                              \
                CHECK(MPI_Start(&rq) == MPI_SUCCESS, "start");                                   \
                wait1(&rq);                                                                      \
            }                                                                                    \
            MPI_Request_free(&rq);                                                               \
        } else if (nb) {                                                                         \
            icall_c;                                                                             \
            wait1(&rq);                                                                          \
        } else {                                                                                 \
            call_c;                                                                              \
        }                                                                                        \
    } while (0)
#define FILL_S(expr)                                                                             \
    for (int i = 0; i < N * P; i++)                                                              \
    s[i] = (expr)
#define CLEAR() memset(r, 0xff, sizeof(int) * N * P), memset(w, 0xfe, sizeof(int) * N * P)
    /* Bcast */
    FILL_S(rank_ == root ? val(root, 0, i) : 0);
    memcpy(r, s, sizeof(int) * N);
    RUN(MPI_Bcast_c(r, N, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Ibcast_c(r, N, MPI_INT, root, MPI_COMM_WORLD, &rq),
        MPI_Bcast_init_c(r, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    for (int i = 0; i < N; i++)
        w[i] = val(root, 0, i);
    check_ints(r, w, N, "Bcast_c");
    /* Gather / Scatter / Allgather / Alltoall against the int functions */
    FILL_S(val(rank_, i / N, i % N));
    CLEAR();
    RUN(MPI_Gather_c(s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Igather_c(s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD, &rq),
        MPI_Gather_init_c(s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    MPI_Gather(s, N, MPI_INT, w, N, MPI_INT, root, MPI_COMM_WORLD);
    if (rank_ == root)
        check_ints(r, w, N * P, "Gather_c");
    CLEAR();
    RUN(MPI_Scatter_c(s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Iscatter_c(s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD, &rq),
        MPI_Scatter_init_c(s, N, MPI_INT, r, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    MPI_Scatter(s, N, MPI_INT, w, N, MPI_INT, root, MPI_COMM_WORLD);
    check_ints(r, w, N, "Scatter_c");
    CLEAR();
    RUN(MPI_Allgather_c(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD),
        MPI_Iallgather_c(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD, &rq),
        MPI_Allgather_init_c(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    MPI_Allgather(s, N, MPI_INT, w, N, MPI_INT, MPI_COMM_WORLD);
    check_ints(r, w, N * P, "Allgather_c");
    CLEAR();
    RUN(MPI_Alltoall_c(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD),
        MPI_Ialltoall_c(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD, &rq),
        MPI_Alltoall_init_c(s, N, MPI_INT, r, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    MPI_Alltoall(s, N, MPI_INT, w, N, MPI_INT, MPI_COMM_WORLD);
    check_ints(r, w, N * P, "Alltoall_c");
    /* the v and w forms: peer i gets N - i elements, blocks stored in reverse order */
    MPI_Count *cnt = xmalloc(sizeof(MPI_Count) * P);
    MPI_Aint *dis = xmalloc(sizeof(MPI_Aint) * P), *bdis = xmalloc(sizeof(MPI_Aint) * P);
    int *icnt = xmalloc(sizeof(int) * P), *idis = xmalloc(sizeof(int) * P);
    MPI_Datatype *types = xmalloc(sizeof(MPI_Datatype) * P);
    for (int i = 0; i < P; i++) {
        cnt[i] = icnt[i] = N - i;
        dis[i] = idis[i] = (P - 1 - i) * N;
        bdis[i] = dis[i] * (MPI_Aint)sizeof(int);
        types[i] = MPI_INT;
    }
    CLEAR();
    RUN(MPI_Gatherv_c(s, N - rank_, MPI_INT, r, cnt, dis, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Igatherv_c(s, N - rank_, MPI_INT, r, cnt, dis, MPI_INT, root, MPI_COMM_WORLD, &rq),
        MPI_Gatherv_init_c(s, N - rank_, MPI_INT, r, cnt, dis, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    memcpy(w, r, sizeof(int) * N * P);
    MPI_Gatherv(s, N - rank_, MPI_INT, w, icnt, idis, MPI_INT, root, MPI_COMM_WORLD);
    if (rank_ == root)
        check_ints(r, w, N * P, "Gatherv_c");
    CLEAR();
    RUN(MPI_Scatterv_c(s, cnt, dis, MPI_INT, r, N - rank_, MPI_INT, root, MPI_COMM_WORLD),
        MPI_Iscatterv_c(s, cnt, dis, MPI_INT, r, N - rank_, MPI_INT, root, MPI_COMM_WORLD, &rq),
        MPI_Scatterv_init_c(s, cnt, dis, MPI_INT, r, N - rank_, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    MPI_Scatterv(s, icnt, idis, MPI_INT, w, N - rank_, MPI_INT, root, MPI_COMM_WORLD);
    check_ints(r, w, N - rank_, "Scatterv_c");
    CLEAR();
    RUN(MPI_Allgatherv_c(s, N - rank_, MPI_INT, r, cnt, dis, MPI_INT, MPI_COMM_WORLD),
        MPI_Iallgatherv_c(s, N - rank_, MPI_INT, r, cnt, dis, MPI_INT, MPI_COMM_WORLD, &rq),
        MPI_Allgatherv_init_c(s, N - rank_, MPI_INT, r, cnt, dis, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    memcpy(w, r, sizeof(int) * N * P);
    MPI_Allgatherv(s, N - rank_, MPI_INT, w, icnt, idis, MPI_INT, MPI_COMM_WORLD);
    check_ints(r, w, N * P, "Allgatherv_c");
    /* Allgatherv_c in place */
    for (int i = 0; i < N * P; i++)
        r[i] = w[i] = -7;
    for (int i = 0; i < N - rank_; i++)
        r[dis[rank_] + i] = w[dis[rank_] + i] = val(rank_, 9, i);
    RUN(MPI_Allgatherv_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cnt, dis, MPI_INT,
                         MPI_COMM_WORLD),
        MPI_Iallgatherv_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cnt, dis, MPI_INT,
                          MPI_COMM_WORLD, &rq),
        MPI_Allgatherv_init_c(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, cnt, dis, MPI_INT,
                          MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, w, icnt, idis, MPI_INT, MPI_COMM_WORLD);
    check_ints(r, w, N * P, "Allgatherv_c in place");
    /* Alltoallv: the same counts and displacements on both sides (peer i: N - i elements is
     * not symmetric, so every process sends N - me to everyone and receives N - i) */
    MPI_Count *scnt = xmalloc(sizeof(MPI_Count) * P);
    MPI_Aint *sdis = xmalloc(sizeof(MPI_Aint) * P), *sbdis = xmalloc(sizeof(MPI_Aint) * P);
    int *iscnt = xmalloc(sizeof(int) * P), *isdis = xmalloc(sizeof(int) * P);
    for (int i = 0; i < P; i++) {
        scnt[i] = iscnt[i] = N - rank_;
        sdis[i] = isdis[i] = i * N;
        sbdis[i] = sdis[i] * (MPI_Aint)sizeof(int);
    }
    CLEAR();
    RUN(MPI_Alltoallv_c(s, scnt, sdis, MPI_INT, r, cnt, dis, MPI_INT, MPI_COMM_WORLD),
        MPI_Ialltoallv_c(s, scnt, sdis, MPI_INT, r, cnt, dis, MPI_INT, MPI_COMM_WORLD, &rq),
        MPI_Alltoallv_init_c(s, scnt, sdis, MPI_INT, r, cnt, dis, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    memcpy(w, r, sizeof(int) * N * P);
    MPI_Alltoallv(s, iscnt, isdis, MPI_INT, w, icnt, idis, MPI_INT, MPI_COMM_WORLD);
    check_ints(r, w, N * P, "Alltoallv_c");
    CLEAR();
    RUN(MPI_Alltoallw_c(s, scnt, sbdis, types, r, cnt, bdis, types, MPI_COMM_WORLD),
        MPI_Ialltoallw_c(s, scnt, sbdis, types, r, cnt, bdis, types, MPI_COMM_WORLD, &rq),
        MPI_Alltoallw_init_c(s, scnt, sbdis, types, r, cnt, bdis, types, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    memcpy(w, r, sizeof(int) * N * P);
    MPI_Alltoallv(s, iscnt, isdis, MPI_INT, w, icnt, idis, MPI_INT, MPI_COMM_WORLD);
    check_ints(r, w, N * P, "Alltoallw_c");
    /* reductions: predefined, MINLOC on pairs, a user op made by Op_create_c */
    MPI_Op usum;
    MPI_Op_create_c(sum_c, 1, &usum);
    MPI_Op ops[2] = {MPI_SUM, usum};
    for (int k = 0; k < 2; k++) {
        MPI_Op op = ops[k];
        FILL_S(val(rank_, 0, i) % 1000 + rank_);
        CLEAR();
        RUN(MPI_Reduce_c(s, r, N * P, MPI_INT, op, root, MPI_COMM_WORLD),
            MPI_Ireduce_c(s, r, N * P, MPI_INT, op, root, MPI_COMM_WORLD, &rq),
            MPI_Reduce_init_c(s, r, N * P, MPI_INT, op, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
        MPI_Reduce(s, w, N * P, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        if (rank_ == root)
            check_ints(r, w, N * P, "Reduce_c");
        CLEAR();
        RUN(MPI_Allreduce_c(s, r, N * P, MPI_INT, op, MPI_COMM_WORLD),
            MPI_Iallreduce_c(s, r, N * P, MPI_INT, op, MPI_COMM_WORLD, &rq),
            MPI_Allreduce_init_c(s, r, N * P, MPI_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
        MPI_Allreduce(s, w, N * P, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_ints(r, w, N * P, "Allreduce_c");
        CLEAR();
        RUN(MPI_Scan_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD),
            MPI_Iscan_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD, &rq),
            MPI_Scan_init_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
        MPI_Scan(s, w, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_ints(r, w, N, "Scan_c");
        CLEAR();
        RUN(MPI_Exscan_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD),
            MPI_Iexscan_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD, &rq),
            MPI_Exscan_init_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
        MPI_Exscan(s, w, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        if (rank_ > 0)
            check_ints(r, w, N, "Exscan_c");
        CLEAR();
        RUN(MPI_Reduce_scatter_block_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD),
            MPI_Ireduce_scatter_block_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD, &rq),
            MPI_Reduce_scatter_block_init_c(s, r, N, MPI_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
        MPI_Reduce_scatter_block(s, w, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        check_ints(r, w, N, "Reduce_scatter_block_c");
        CLEAR();
        if (nb && P > 1 && large_path()) {
            /* the one documented corner: unequal counts beyond the int range, non-blocking */
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
            int cls, err = nb == 2 ? MPI_Reduce_scatter_init_c(s, r, cnt, MPI_INT, op,
                                                               MPI_COMM_WORLD, MPI_INFO_NULL, &rq)
                                   : MPI_Ireduce_scatter_c(s, r, cnt, MPI_INT, op,
                                                           MPI_COMM_WORLD, &rq);
            MPI_Error_class(err, &cls);
            CHECK(cls == MPI_ERR_COUNT, "Ireduce_scatter_c corner: class %d", cls);
            MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
        } else {
            RUN(MPI_Reduce_scatter_c(s, r, cnt, MPI_INT, op, MPI_COMM_WORLD),
                MPI_Ireduce_scatter_c(s, r, cnt, MPI_INT, op, MPI_COMM_WORLD, &rq),
                MPI_Reduce_scatter_init_c(s, r, cnt, MPI_INT, op, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
            MPI_Reduce_scatter(s, w, icnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
            check_ints(r, w, N - rank_, "Reduce_scatter_c");
        }
        memcpy(r, s, sizeof(int) * N);
        memcpy(w, s, sizeof(int) * N);
        FILL_S(i * 3 + rank_);
        MPI_Reduce_local_c(s, r, N, MPI_INT, op);
        MPI_Reduce_local(s, w, N, MPI_INT, MPI_SUM);
        check_ints(r, w, N, "Reduce_local_c");
    }
    /* Reduce_scatter_c with equal counts (Reduce_scatter_block underneath when large) */
    MPI_Count *eq = xmalloc(sizeof(MPI_Count) * P);
    int *ieq = xmalloc(sizeof(int) * P);
    for (int i = 0; i < P; i++)
        eq[i] = ieq[i] = N;
    CLEAR();
    RUN(MPI_Reduce_scatter_c(s, r, eq, MPI_INT, MPI_SUM, MPI_COMM_WORLD),
        MPI_Ireduce_scatter_c(s, r, eq, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq),
        MPI_Reduce_scatter_init_c(s, r, eq, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    MPI_Reduce_scatter(s, w, ieq, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    check_ints(r, w, N, "Reduce_scatter_c equal counts");
    /* MINLOC on pairs, in place */
    struct { int v, i; } *pa = xmalloc(sizeof *pa * N), *pb = xmalloc(sizeof *pb * N);
    for (int i = 0; i < N; i++) {
        pa[i].v = pb[i].v = (i * 7 + rank_ * 13) % 17;
        pa[i].i = pb[i].i = rank_;
    }
    RUN(MPI_Allreduce_c(MPI_IN_PLACE, pa, N, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD),
        MPI_Iallreduce_c(MPI_IN_PLACE, pa, N, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, &rq),
        MPI_Allreduce_init_c(MPI_IN_PLACE, pa, N, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    MPI_Allreduce(MPI_IN_PLACE, pb, N, MPI_2INT, MPI_MINLOC, MPI_COMM_WORLD);
    check_ints((int *)pa, (int *)pb, 2 * N, "Allreduce_c MINLOC");
    free(pa);
    free(pb);
    MPI_Op_free(&usum);
    free(eq);
    free(ieq);
    free(scnt);
    free(sdis);
    free(sbdis);
    free(iscnt);
    free(isdis);
    free(cnt);
    free(dis);
    free(bdis);
    free(icnt);
    free(idis);
    free(types);
    free(s);
    free(r);
    free(r0);
    free(w);
}

/* ---- neighbourhood collectives on a periodic ring ----------------------------------------- */
static void neighbors(int nb)
{
    MPI_Comm ring;
    int dims[1] = {size_}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int s[2 * N], r[2 * N], w[2 * N];
    MPI_Count cnt[2] = {N, N - 3};
    MPI_Aint dis[2] = {N, 0}, bdis[2] = {N * sizeof(int), 0};
    int icnt[2] = {N, N - 3}, idis[2] = {N, 0};
    MPI_Aint ibdis[2] = {N * sizeof(int), 0};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Request rq;
    for (int i = 0; i < 2 * N; i++)
        s[i] = val(rank_, 0, i);
#define NRUN(call_c, icall_c, pcall_c)                                                           \
    do {                                                                                         \
        memset(r, 0xff, sizeof r);                                                               \
        memset(w, 0xff, sizeof w);                                                               \
        if (nb == 2) {                                                                           \
            CHECK((pcall_c) == MPI_SUCCESS, "%s", #pcall_c);                                     \
            for (int k_ = 0; k_ < 3; k_++) {                                                     \
                memset(r, 0xff, sizeof r);                                                       \
                CHECK(MPI_Start(&rq) == MPI_SUCCESS, "start");                                   \
                wait1(&rq);                                                                      \
            }                                                                                    \
            MPI_Request_free(&rq);                                                               \
        } else if (nb) {                                                                         \
            icall_c;                                                                             \
            wait1(&rq);                                                                          \
        } else {                                                                                 \
            call_c;                                                                              \
        }                                                                                        \
    } while (0)
    NRUN(MPI_Neighbor_allgather_c(s, N, MPI_INT, r, N, MPI_INT, ring),
         MPI_Ineighbor_allgather_c(s, N, MPI_INT, r, N, MPI_INT, ring, &rq),
         MPI_Neighbor_allgather_init_c(s, N, MPI_INT, r, N, MPI_INT, ring, MPI_INFO_NULL, &rq));
    MPI_Neighbor_allgather(s, N, MPI_INT, w, N, MPI_INT, ring);
    check_ints(r, w, 2 * N, "Neighbor_allgather_c");
    NRUN(MPI_Neighbor_alltoall_c(s, N, MPI_INT, r, N, MPI_INT, ring),
         MPI_Ineighbor_alltoall_c(s, N, MPI_INT, r, N, MPI_INT, ring, &rq),
         MPI_Neighbor_alltoall_init_c(s, N, MPI_INT, r, N, MPI_INT, ring, MPI_INFO_NULL, &rq));
    MPI_Neighbor_alltoall(s, N, MPI_INT, w, N, MPI_INT, ring);
    check_ints(r, w, 2 * N, "Neighbor_alltoall_c");
    int c2[2] = {N - 3, N - 3};
    MPI_Count cc2[2] = {N - 3, N - 3};
    NRUN(MPI_Neighbor_allgatherv_c(s, N - 3, MPI_INT, r, cc2, dis, MPI_INT, ring),
         MPI_Ineighbor_allgatherv_c(s, N - 3, MPI_INT, r, cc2, dis, MPI_INT, ring, &rq),
         MPI_Neighbor_allgatherv_init_c(s, N - 3, MPI_INT, r, cc2, dis, MPI_INT, ring,
                                        MPI_INFO_NULL, &rq));
    MPI_Neighbor_allgatherv(s, N - 3, MPI_INT, w, c2, idis, MPI_INT, ring);
    check_ints(r, w, 2 * N, "Neighbor_allgatherv_c");
    MPI_Count sc[2] = {N - 3, N};
    int isc[2] = {N - 3, N};
    MPI_Aint sd[2] = {0, N}, sbd[2] = {0, N * sizeof(int)};
    int isd[2] = {0, N};
    /* each process sends N - 3 to its lower neighbour and N to its upper one; receives
     * N from the lower (placed at N) and N - 3 from the upper (at 0) */
    MPI_Count rc[2] = {N, N - 3};
    NRUN(MPI_Neighbor_alltoallv_c(s, sc, sd, MPI_INT, r, rc, dis, MPI_INT, ring),
         MPI_Ineighbor_alltoallv_c(s, sc, sd, MPI_INT, r, rc, dis, MPI_INT, ring, &rq),
         MPI_Neighbor_alltoallv_init_c(s, sc, sd, MPI_INT, r, rc, dis, MPI_INT, ring, MPI_INFO_NULL, &rq));
    MPI_Neighbor_alltoallv(s, isc, isd, MPI_INT, w, icnt, idis, MPI_INT, ring);
    check_ints(r, w, 2 * N, "Neighbor_alltoallv_c");
    NRUN(MPI_Neighbor_alltoallw_c(s, sc, sbd, types, r, rc, bdis, types, ring),
         MPI_Ineighbor_alltoallw_c(s, sc, sbd, types, r, rc, bdis, types, ring, &rq),
         MPI_Neighbor_alltoallw_init_c(s, sc, sbd, types, r, rc, bdis, types, ring, MPI_INFO_NULL, &rq));
    MPI_Neighbor_alltoallw(s, isc, sbd, types, w, icnt, ibdis, types, ring);
    check_ints(r, w, 2 * N, "Neighbor_alltoallw_c");
    (void)cnt;
    (void)icnt;
    MPI_Comm_free(&ring);
}

/* ---- datatypes: each _c constructor against its int twin ------------------------------------ */
static void same_type(MPI_Datatype a, MPI_Datatype b, int count, const char *what)
{
    MPI_Count lb, ext, tlb, text, sz;
    MPI_Aint l2, e2, tl2, te2;
    int s2;
    MPI_Type_commit(&a);
    MPI_Type_commit(&b);
    MPI_Type_get_extent_c(a, &lb, &ext);
    MPI_Type_get_extent(b, &l2, &e2);
    CHECK(lb == l2 && ext == e2, "%s: extent %lld/%lld vs %ld/%ld", what, (long long)lb,
          (long long)ext, (long)l2, (long)e2);
    MPI_Type_get_true_extent_c(a, &tlb, &text);
    MPI_Type_get_true_extent(b, &tl2, &te2);
    CHECK(tlb == tl2 && text == te2, "%s: true extent", what);
    MPI_Type_size_c(a, &sz);
    MPI_Type_size(b, &s2);
    CHECK(sz == s2, "%s: size %lld vs %d", what, (long long)sz, s2);
    /* the same bytes packed, through Pack_c and Pack */
    MPI_Count need;
    int ineed;
    MPI_Pack_size_c(count, a, MPI_COMM_WORLD, &need);
    MPI_Pack_size(count, b, MPI_COMM_WORLD, &ineed);
    CHECK(need == ineed, "%s: Pack_size_c", what);
    size_t span = (size_t)(ext > 0 ? ext : -ext) * (size_t)count + (size_t)text + 64;
    char *src = xmalloc(span), *p1 = xmalloc((size_t)need + 8), *p2 = xmalloc((size_t)need + 8);
    char *dst = xmalloc(span), *dst2 = xmalloc(span);
    for (size_t i = 0; i < span; i++)
        src[i] = (char)(i * 31 + 7);
    char *base = src + (tlb < 0 ? -tlb : 0);
    MPI_Count pos = 0;
    int ipos = 0;
    MPI_Pack_c(base, count, a, p1, need, &pos, MPI_COMM_WORLD);
    MPI_Pack(base, count, b, p2, ineed, &ipos, MPI_COMM_WORLD);
    CHECK(pos == ipos && memcmp(p1, p2, (size_t)need) == 0, "%s: Pack_c", what);
    memset(dst, 0, span);
    memset(dst2, 0, span);
    pos = 0;
    MPI_Unpack_c(p1, need, &pos, dst + (base - src), count, a, MPI_COMM_WORLD);
    ipos = 0;
    MPI_Unpack(p2, ineed, &ipos, dst2 + (base - src), count, b, MPI_COMM_WORLD);
    CHECK(pos == need && memcmp(dst, dst2, span) == 0, "%s: Unpack_c", what);
    MPI_Count xs;
    MPI_Aint ixs;
    MPI_Pack_external_size_c("external32", count, a, &xs);
    MPI_Pack_external_size("external32", count, b, &ixs);
    CHECK(xs == ixs, "%s: Pack_external_size_c", what);
    pos = 0;
    MPI_Aint apos = 0;
    MPI_Pack_external_c("external32", base, count, a, p1, xs, &pos);
    MPI_Pack_external("external32", base, count, b, p2, ixs, &apos);
    CHECK(pos == apos && memcmp(p1, p2, (size_t)xs) == 0, "%s: Pack_external_c", what);
    memset(dst, 0, span);
    pos = 0;
    MPI_Unpack_external_c("external32", p1, xs, &pos, dst + (base - src), count, a);
    CHECK(pos == xs && memcmp(dst, dst2, span) == 0, "%s: Unpack_external_c", what);
    free(src);
    free(p1);
    free(p2);
    free(dst);
    free(dst2);
    MPI_Type_free(&a);
    MPI_Type_free(&b);
}

static void envelope(MPI_Datatype t, int combiner, int ni, const int *ints, int nl,
                     const MPI_Count *larges, int nt, const char *what)
{
    MPI_Count a, b, c, d;
    int comb;
    MPI_Type_get_envelope_c(t, &a, &b, &c, &d, &comb);
    CHECK(comb == combiner && a == ni && b == 0 && c == nl && d == nt,
          "%s: envelope_c %d %lld %lld %lld %lld", what, comb, (long long)a, (long long)b,
          (long long)c, (long long)d);
    int gi[16];
    MPI_Aint ga[1];
    MPI_Count gl[16];
    MPI_Datatype gt[4];
    MPI_Type_get_contents_c(t, 16, 1, 16, 4, gi, ga, gl, gt);
    for (int i = 0; i < ni; i++)
        CHECK(gi[i] == ints[i], "%s: contents_c integer %d", what, i);
    for (int i = 0; i < nl; i++)
        CHECK(gl[i] == larges[i], "%s: contents_c large count %d is %lld", what, i,
              (long long)gl[i]);
    for (int i = 0; i < nt; i++) {
        int ni2, na2, nt2, c2;
        MPI_Type_get_envelope(gt[i], &ni2, &na2, &nt2, &c2);
        if (c2 != MPI_COMBINER_NAMED)
            MPI_Type_free(&gt[i]);
    }
}

static void dtypes(void)
{
    MPI_Datatype a, b, vec;
    MPI_Type_vector(2, 1, 3, MPI_SHORT, &vec); /* a non-contiguous element */
    MPI_Type_commit(&vec);
    MPI_Datatype olds[2] = {MPI_INT, vec};
    for (int k = 0; k < 2; k++) {
        MPI_Datatype old = olds[k];
        MPI_Type_contiguous_c(37, old, &a);
        MPI_Type_contiguous(37, old, &b);
        MPI_Count l1[1] = {37};
        envelope(a, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, l1, 1, "contiguous_c");
        same_type(a, b, 3, "contiguous_c");
        MPI_Type_vector_c(9, 4, 6, old, &a);
        MPI_Type_vector(9, 4, 6, old, &b);
        MPI_Count l2[3] = {9, 4, 6};
        envelope(a, MPI_COMBINER_VECTOR, 0, NULL, 3, l2, 1, "vector_c");
        same_type(a, b, 2, "vector_c");
        MPI_Type_vector_c(9, 4, -6, old, &a);
        MPI_Type_vector(9, 4, -6, old, &b);
        same_type(a, b, 2, "vector_c negative stride");
        MPI_Type_create_hvector_c(10, 3, 40, old, &a);
        MPI_Type_create_hvector(10, 3, 40, old, &b);
        MPI_Count l3[3] = {10, 3, 40};
        envelope(a, MPI_COMBINER_HVECTOR, 0, NULL, 3, l3, 1, "hvector_c");
        same_type(a, b, 2, "hvector_c");
        MPI_Count bl[3] = {8, 0, 11}, di[3] = {30, 2, 9};
        int ibl[3] = {8, 0, 11}, idi[3] = {30, 2, 9};
        MPI_Aint adi[3] = {300, 2, 90};
        MPI_Count hdi[3] = {300, 2, 90};
        MPI_Type_indexed_c(3, bl, di, old, &a);
        MPI_Type_indexed(3, ibl, idi, old, &b);
        MPI_Count l4[7] = {3, 8, 0, 11, 30, 2, 9};
        envelope(a, MPI_COMBINER_INDEXED, 0, NULL, 7, l4, 1, "indexed_c");
        same_type(a, b, 2, "indexed_c");
        MPI_Type_create_hindexed_c(3, bl, hdi, old, &a);
        MPI_Type_create_hindexed(3, ibl, adi, old, &b);
        MPI_Count l5[7] = {3, 8, 0, 11, 300, 2, 90};
        envelope(a, MPI_COMBINER_HINDEXED, 0, NULL, 7, l5, 1, "hindexed_c");
        same_type(a, b, 2, "hindexed_c");
        MPI_Type_create_indexed_block_c(3, 9, di, old, &a);
        MPI_Type_create_indexed_block(3, 9, idi, old, &b);
        MPI_Count l6[5] = {3, 9, 30, 2, 9};
        envelope(a, MPI_COMBINER_INDEXED_BLOCK, 0, NULL, 5, l6, 1, "indexed_block_c");
        same_type(a, b, 2, "indexed_block_c");
        MPI_Type_create_hindexed_block_c(3, 9, hdi, old, &a);
        MPI_Type_create_hindexed_block(3, 9, adi, old, &b);
        envelope(a, MPI_COMBINER_HINDEXED_BLOCK, 0, NULL, 5, (MPI_Count[]){3, 9, 300, 2, 90},
                 1, "hindexed_block_c");
        same_type(a, b, 2, "hindexed_block_c");
        MPI_Datatype sts[3] = {MPI_CHAR, old, MPI_DOUBLE};
        MPI_Count sbl[3] = {3, 10, 2}, sdi[3] = {0, 8, 400};
        int isbl[3] = {3, 10, 2};
        MPI_Aint isdi[3] = {0, 8, 400};
        MPI_Type_create_struct_c(3, sbl, sdi, sts, &a);
        MPI_Type_create_struct(3, isbl, isdi, sts, &b);
        envelope(a, MPI_COMBINER_STRUCT, 0, NULL, 7, (MPI_Count[]){3, 3, 10, 2, 0, 8, 400}, 3,
                 "struct_c");
        same_type(a, b, 2, "struct_c");
        MPI_Type_create_resized_c(old, -4, 100, &a);
        MPI_Type_create_resized(old, -4, 100, &b);
        envelope(a, MPI_COMBINER_RESIZED, 0, NULL, 2, (MPI_Count[]){-4, 100}, 1, "resized_c");
        same_type(a, b, 3, "resized_c");
        MPI_Count sz[2] = {10, 12}, ssz[2] = {4, 5}, sst[2] = {3, 6};
        int isz[2] = {10, 12}, issz[2] = {4, 5}, isst[2] = {3, 6};
        MPI_Type_create_subarray_c(2, sz, ssz, sst, MPI_ORDER_C, old, &a);
        MPI_Type_create_subarray(2, isz, issz, isst, MPI_ORDER_C, old, &b);
        envelope(a, MPI_COMBINER_SUBARRAY, 2, (int[]){2, MPI_ORDER_C}, 6,
                 (MPI_Count[]){10, 12, 4, 5, 3, 6}, 1, "subarray_c");
        same_type(a, b, 1, "subarray_c");
        MPI_Count gs[2] = {8, 9};
        int igs[2] = {8, 9}, dist[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC},
            darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, 2}, ps[2] = {2, 2};
        MPI_Type_create_darray_c(4, 3, 2, gs, dist, darg, ps, MPI_ORDER_FORTRAN, old, &a);
        MPI_Type_create_darray(4, 3, 2, igs, dist, darg, ps, MPI_ORDER_FORTRAN, old, &b);
        envelope(a, MPI_COMBINER_DARRAY, 10,
                 (int[]){4, 3, 2, MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_CYCLIC,
                         MPI_DISTRIBUTE_DFLT_DARG, 2, 2, 2, MPI_ORDER_FORTRAN},
                 2, gs, 1, "darray_c");
        same_type(a, b, 1, "darray_c");
    }
    /* a type made by an int constructor answers envelope_c with no large counts */
    MPI_Count ni, na, nl, nt;
    int comb;
    MPI_Type_get_envelope_c(vec, &ni, &na, &nl, &nt, &comb);
    CHECK(comb == MPI_COMBINER_VECTOR && ni == 3 && na == 0 && nl == 0 && nt == 1,
          "envelope_c of an int-made type");
    int gi[3];
    MPI_Aint ga[1];
    MPI_Count gl[1];
    MPI_Datatype gt[1];
    MPI_Type_get_contents_c(vec, 3, 0, 0, 1, gi, ga, gl, gt);
    CHECK(gi[0] == 2 && gi[1] == 1 && gi[2] == 3 && gt[0] == MPI_SHORT, "contents_c of int-made");
    MPI_Type_get_envelope_c(MPI_INT, &ni, &na, &nl, &nt, &comb);
    CHECK(comb == MPI_COMBINER_NAMED, "envelope_c of MPI_INT");
    MPI_Type_free(&vec);
    /* errors: a negative count is MPI_ERR_COUNT */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int cls, err = MPI_Send_c(NULL, -1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COUNT, "negative count: class %d", cls);
    err = MPI_Type_contiguous_c(-5, MPI_INT, &a);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COUNT, "negative contiguous count: class %d", cls);
    /* the documented corners: subarray / darray sizes beyond the int range */
    MPI_Count bigsz[1] = {(MPI_Count)INT_MAX + 10}, one[1] = {1}, zero[1] = {0};
    err = MPI_Type_create_subarray_c(1, bigsz, one, zero, MPI_ORDER_C, MPI_CHAR, &a);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COUNT, "subarray_c beyond int: class %d", cls);
    int dist[1] = {MPI_DISTRIBUTE_BLOCK}, darg[1] = {MPI_DISTRIBUTE_DFLT_DARG}, ps[1] = {1};
    err = MPI_Type_create_darray_c(1, 0, 1, bigsz, dist, darg, ps, MPI_ORDER_C, MPI_CHAR, &a);
    MPI_Error_class(err, &cls);
    CHECK(cls == MPI_ERR_COUNT, "darray_c beyond int: class %d", cls);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

/* ---- intercommunicators: the halves of the world (at least 2 ranks) ------------------------ */
static void inter(void)
{
    if (size_ < 2)
        return;
    int low = rank_ < size_ / 2, lsize, rsize;
    MPI_Comm local, ic;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank_, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, low ? size_ / 2 : 0, 77, &ic);
    MPI_Comm_size(ic, &lsize);
    MPI_Comm_remote_size(ic, &rsize);
    int lrank;
    MPI_Comm_rank(ic, &lrank);
    int *s = xmalloc(sizeof(int) * N * 8), *r = xmalloc(sizeof(int) * N * 8),
        *w = xmalloc(sizeof(int) * N * 8);
    for (int i = 0; i < N * 8; i++)
        s[i] = val(rank_, 1, i);
    /* Bcast_c from the low group's rank 0 */
    int root = low ? (lrank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
    memcpy(r, s, sizeof(int) * N);
    memcpy(w, s, sizeof(int) * N);
    MPI_Bcast_c(r, N, MPI_INT, root, ic);
    MPI_Bcast(w, N, MPI_INT, root, ic);
    check_ints(r, w, N, "intercomm Bcast_c");
    memset(r, 0, sizeof(int) * N * 8);
    memset(w, 0, sizeof(int) * N * 8);
    MPI_Allgather_c(s, N, MPI_INT, r, N, MPI_INT, ic);
    MPI_Allgather(s, N, MPI_INT, w, N, MPI_INT, ic);
    check_ints(r, w, N * rsize, "intercomm Allgather_c");
    MPI_Count c[8];
    MPI_Aint d[8];
    int ic_[8], id_[8];
    for (int i = 0; i < rsize; i++) {
        c[i] = ic_[i] = N / 2 + i;
        d[i] = id_[i] = i * N;
    }
    memset(r, 0, sizeof(int) * N * 8);
    memset(w, 0, sizeof(int) * N * 8);
    /* each sends N / 2 + (its local rank) to every remote rank */
    MPI_Count sc[8];
    int isc[8];
    for (int i = 0; i < rsize; i++)
        sc[i] = isc[i] = N / 2 + lrank;
    MPI_Alltoallv_c(s, sc, d, MPI_INT, r, c, d, MPI_INT, ic);
    MPI_Alltoallv(s, isc, id_, MPI_INT, w, ic_, id_, MPI_INT, ic);
    check_ints(r, w, N * rsize, "intercomm Alltoallv_c");
    /* the same and Bcast as persistent requests, started twice */
    MPI_Request rq;
    MPI_Alltoallv_init_c(s, sc, d, MPI_INT, r, c, d, MPI_INT, ic, MPI_INFO_NULL, &rq);
    for (int k = 0; k < 2; k++) {
        memset(r, 0, sizeof(int) * N * 8);
        MPI_Start(&rq);
        wait1(&rq);
        check_ints(r, w, N * rsize, "intercomm Alltoallv_init_c");
    }
    MPI_Request_free(&rq);
    memcpy(w, s, sizeof(int) * N);
    MPI_Bcast(w, N, MPI_INT, root, ic);
    MPI_Bcast_init_c(r, N, MPI_INT, root, ic, MPI_INFO_NULL, &rq);
    for (int k = 0; k < 2; k++) {
        memcpy(r, s, sizeof(int) * N);
        MPI_Start(&rq);
        wait1(&rq);
        check_ints(r, w, N, "intercomm Bcast_init_c");
    }
    MPI_Request_free(&rq);
    memset(r, 0, sizeof(int) * N * 8);
    memset(w, 0, sizeof(int) * N * 8);
    MPI_Allreduce_c(s, r, N, MPI_INT, MPI_SUM, ic);
    MPI_Allreduce(s, w, N, MPI_INT, MPI_SUM, ic);
    check_ints(r, w, N, "intercomm Allreduce_c");
    free(s);
    free(r);
    free(w);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&local);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    p2p();
    statuses();
    colls(0);
    colls(1);
    colls(2);
    neighbors(0);
    neighbors(1);
    neighbors(2);
    dtypes();
    inter();
    return finish();
}
