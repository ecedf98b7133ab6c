/* coll_algo.c — each size-selected algorithm of sctpmpi's blocking collectives, on both sides
 * of its default threshold (docs/tunables.md, SCTPMPI_COLL_*), against a serial reference:
 * Bcast binomial / scatter + ring (128 KiB; with a vector type at the root only), Allgather
 * Bruck / recursive doubling / ring (2 KiB block, 512 KiB total), Alltoall Bruck / pairwise
 * (256 B block), Reduce_scatter(_block) allreduce-based / pairwise (16 KiB total, commutative
 * ops only; a non-commutative op always takes the allreduce path).  MPI_IN_PLACE and derived
 * types where they change the code path.  Each in its blocking, non-blocking and persistent
 * form (the three share one algorithm per size).  Standard MPI only. */
#include "../common/mpi_test.h"

/* which form of each collective runs: 0 blocking, 1 non-blocking (then Wait), 2 persistent
 * (*_init, Start, Wait, Request_free): all three must take the same algorithms */
static int form_;
static const char *form_name_[] = {"blocking", "non-blocking", "persistent"};

static void run_(MPI_Request *q)
{
    if (form_ == 2)
        MPI_Start(q);
    MPI_Wait(q, MPI_STATUS_IGNORE);
    if (form_ == 2)
        MPI_Request_free(q);
}

static void Bcast(void *b, int n, MPI_Datatype t, int root)
{
    MPI_Request q;
    if (form_ == 0)
        MPI_Bcast(b, n, t, root, MPI_COMM_WORLD);
    else if (form_ == 1)
        MPI_Ibcast(b, n, t, root, MPI_COMM_WORLD, &q), run_(&q);
    else
        MPI_Bcast_init(b, n, t, root, MPI_COMM_WORLD, MPI_INFO_NULL, &q), run_(&q);
}

static void Allgather(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt)
{
    MPI_Request q;
    if (form_ == 0)
        MPI_Allgather(s, sn, st, r, rn, rt, MPI_COMM_WORLD);
    else if (form_ == 1)
        MPI_Iallgather(s, sn, st, r, rn, rt, MPI_COMM_WORLD, &q), run_(&q);
    else
        MPI_Allgather_init(s, sn, st, r, rn, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &q), run_(&q);
}

static void Alltoall(const void *s, int sn, MPI_Datatype st, void *r, int rn, MPI_Datatype rt)
{
    MPI_Request q;
    if (form_ == 0)
        MPI_Alltoall(s, sn, st, r, rn, rt, MPI_COMM_WORLD);
    else if (form_ == 1)
        MPI_Ialltoall(s, sn, st, r, rn, rt, MPI_COMM_WORLD, &q), run_(&q);
    else
        MPI_Alltoall_init(s, sn, st, r, rn, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &q), run_(&q);
}

static void Reduce_scatter_block(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op)
{
    MPI_Request q;
    if (form_ == 0)
        MPI_Reduce_scatter_block(s, r, n, t, op, MPI_COMM_WORLD);
    else if (form_ == 1)
        MPI_Ireduce_scatter_block(s, r, n, t, op, MPI_COMM_WORLD, &q), run_(&q);
    else
        MPI_Reduce_scatter_block_init(s, r, n, t, op, MPI_COMM_WORLD, MPI_INFO_NULL, &q), run_(&q);
}

static void Reduce_scatter(const void *s, void *r, const int *c, MPI_Datatype t, MPI_Op op)
{
    MPI_Request q;
    if (form_ == 0)
        MPI_Reduce_scatter(s, r, c, t, op, MPI_COMM_WORLD);
    else if (form_ == 1)
        MPI_Ireduce_scatter(s, r, c, t, op, MPI_COMM_WORLD, &q), run_(&q);
    else
        MPI_Reduce_scatter_init(s, r, c, t, op, MPI_COMM_WORLD, MPI_INFO_NULL, &q), run_(&q);
}

static int val(int r, int i) { return (r * 7919 + i * 31) % 1000003; }

/* non-commutative, associative: a op b = a (the lowest rank's value wins) */
static void first(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    memcpy(inout, in, sizeof(int) * (size_t)*len);
}

static void bcast(void)
{
    const int counts[] = {100, 32767, 32768, 33333, 40000};
    for (int ci = 0; ci < 5; ci++) {
        int n = counts[ci];
        int *b = xmalloc(sizeof(int) * (size_t)n * 2);
        for (int root = 0; root < size_; root += (size_ > 1 ? size_ - 1 : 1)) {
            for (int vec = 0; vec < 2; vec++) {
                MPI_Datatype v = MPI_DATATYPE_NULL;
                if (vec && rank_ == root) { /* strided at the root, contiguous elsewhere */
                    MPI_Type_vector(n, 1, 2, MPI_INT, &v);
                    MPI_Type_commit(&v);
                    for (int i = 0; i < 2 * n; i++)
                        b[i] = i % 2 ? -7 : val(root, i / 2);
                    Bcast(b, 1, v, root);
                    MPI_Type_free(&v);
                    for (int i = 0; i < 2 * n; i++)
                        CHECK(b[i] == (i % 2 ? -7 : val(root, i / 2)), "Bcast root buffer changed");
                    continue;
                }
                for (int i = 0; i < n; i++)
                    b[i] = rank_ == root ? val(root, i) : -1;
                Bcast(b, n, MPI_INT, root);
                for (int i = 0; i < n; i++)
                    CHECK(b[i] == val(root, i), "Bcast n %d root %d vec %d [%d] = %d", n, root, vec,
                          i, b[i]);
            }
        }
        free(b);
    }
}

static void allgather(void)
{
    const int counts[] = {1, 512, 513, 1024, 70000};
    for (int ci = 0; ci < 5; ci++) {
        int n = counts[ci];
        int *s = xmalloc(sizeof(int) * (size_t)n), *r = xmalloc(sizeof(int) * (size_t)n * size_);
        for (int ip = 0; ip < 2; ip++) {
            for (int i = 0; i < n; i++)
                s[i] = val(rank_, i);
            memset(r, 0xff, sizeof(int) * (size_t)n * size_);
            if (ip) {
                memcpy(r + (size_t)n * rank_, s, sizeof(int) * (size_t)n);
                Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT);
            } else {
                Allgather(s, n, MPI_INT, r, n, MPI_INT);
            }
            for (int p = 0; p < size_; p++)
                for (int i = 0; i < n; i++)
                    CHECK(r[(size_t)p * n + i] == val(p, i), "Allgather n %d ip %d from %d [%d]", n,
                          ip, p, i);
        }
        free(s);
        free(r);
    }
    /* a strided receive type (extent 3 ints, data at 0 and 2) through the Bruck path */
    MPI_Datatype v;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_commit(&v);
    int s[2] = {val(rank_, 0), val(rank_, 1)}, *r = xmalloc(sizeof(int) * 3 * (size_t)size_);
    for (int i = 0; i < 3 * size_; i++)
        r[i] = -5;
    Allgather(s, 2, MPI_INT, r, 1, v);
    for (int p = 0; p < size_; p++)
        CHECK(r[3 * p] == val(p, 0) && r[3 * p + 1] == -5 && r[3 * p + 2] == val(p, 1),
              "Allgather vector from %d", p);
    MPI_Type_free(&v);
    free(r);
}

static void alltoall(void)
{
    const int counts[] = {1, 16, 64, 65, 300};
    for (int ci = 0; ci < 5; ci++) {
        int n = counts[ci];
        size_t all = (size_t)n * size_;
        int *s = xmalloc(sizeof(int) * all), *r = xmalloc(sizeof(int) * all);
        for (int ip = 0; ip < 2; ip++) {
            for (int d = 0; d < size_; d++)
                for (int i = 0; i < n; i++)
                    s[(size_t)d * n + i] = val(rank_ * size_ + d, i);
            if (ip) {
                memcpy(r, s, sizeof(int) * all);
                Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT);
            } else {
                memset(r, 0xff, sizeof(int) * all);
                Alltoall(s, n, MPI_INT, r, n, MPI_INT);
            }
            for (int p = 0; p < size_; p++)
                for (int i = 0; i < n; i++)
                    CHECK(r[(size_t)p * n + i] == val(p * size_ + rank_, i),
                          "Alltoall n %d ip %d from %d [%d]", n, ip, p, i);
        }
        free(s);
        free(r);
    }
    /* strided send type on the Bruck path: 2 ints per peer taken from every other int */
    MPI_Datatype v, vr;
    MPI_Type_vector(2, 1, 2, MPI_INT, &v);
    MPI_Type_create_resized(v, 0, 4 * sizeof(int), &vr);
    MPI_Type_commit(&vr);
    int *s = xmalloc(sizeof(int) * 4 * (size_t)size_), *r = xmalloc(sizeof(int) * 2 * (size_t)size_);
    for (int d = 0; d < size_; d++)
        for (int k = 0; k < 4; k++)
            s[4 * d + k] = k % 2 ? -1 : val(rank_ * size_ + d, k / 2);
    Alltoall(s, 1, vr, r, 2, MPI_INT);
    for (int p = 0; p < size_; p++)
        for (int k = 0; k < 2; k++)
            CHECK(r[2 * p + k] == val(p * size_ + rank_, k), "Alltoall vector from %d", p);
    MPI_Type_free(&v);
    MPI_Type_free(&vr);
    free(s);
    free(r);
}

static void reduce_scatter(void)
{
    MPI_Op fst;
    MPI_Op_create(first, 0, &fst);
    const int blocks[] = {1, 10, 1024, 5000};
    for (int bi = 0; bi < 4; bi++) {
        int n = blocks[bi];
        size_t all = (size_t)n * size_;
        int *s = xmalloc(sizeof(int) * all), *r = xmalloc(sizeof(int) * all);
        for (int k = 0; k < 3; k++) { /* 0 SUM, 1 SUM in place, 2 non-commutative */
            for (size_t i = 0; i < all; i++)
                s[i] = val(rank_, (int)i);
            if (k == 1) {
                memcpy(r, s, sizeof(int) * all);
                Reduce_scatter_block(MPI_IN_PLACE, r, n, MPI_INT, MPI_SUM);
            } else {
                Reduce_scatter_block(s, r, n, MPI_INT, k ? fst : MPI_SUM);
            }
            for (int i = 0; i < n; i++) {
                int g = rank_ * n + i, want = 0;
                for (int p = 0; p < size_; p++)
                    want += val(p, g);
                if (k == 2)
                    want = val(0, g);
                CHECK(r[i] == want, "Reduce_scatter_block n %d k %d [%d] = %d want %d", n, k, i,
                      r[i], want);
            }
        }
        free(s);
        free(r);
    }
    /* uneven counts (one zero), small and large totals */
    for (int big = 0; big < 2; big++) {
        int *counts = xmalloc(sizeof(int) * (size_t)size_), total = 0, off = 0;
        for (int p = 0; p < size_; p++) {
            counts[p] = p == 1 ? 0 : (big ? 3000 : 2) + p * 7;
            if (p < rank_)
                off += counts[p];
            total += counts[p];
        }
        int *s = xmalloc(sizeof(int) * (size_t)total), *r = xmalloc(sizeof(int) * (size_t)total);
        for (int k = 0; k < 2; k++) {
            for (int i = 0; i < total; i++)
                s[i] = val(rank_, i);
            Reduce_scatter(s, r, counts, MPI_INT, k ? MPI_MAX : MPI_SUM);
            for (int i = 0; i < counts[rank_]; i++) {
                int want = k ? -1 : 0;
                for (int p = 0; p < size_; p++)
                    want = k ? (val(p, off + i) > want ? val(p, off + i) : want) : want + val(p, off + i);
                CHECK(r[i] == want, "Reduce_scatter big %d k %d [%d]", big, k, i);
            }
        }
        free(counts);
        free(s);
        free(r);
    }
    MPI_Op_free(&fst);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    for (form_ = 0; form_ < 3; form_++) {
        bcast();
        allgather();
        alltoall();
        reduce_scatter();
        if (rank_ == 0)
            printf("%s: ok\n", form_name_[form_]);
    }
    return finish();
}
