/* allreduce_rab.c — MPI_Allreduce on both sides of the Rabenseifner threshold
 * (SCTPMPI_COLL_ALLREDUCE_RABENSEIFNER, 32 KiB by default; the ctest variants also run it with
 * 0, so every vector of at least pof2 elements takes it): counts from 0 to 100,000 around the
 * threshold and around the power of two below the rank count, MPI_SUM / MIN / MAX / BAND on
 * int, MPI_SUM on integer-valued doubles (exact in any order), MPI_IN_PLACE, a derived type
 * (contiguous pairs), a commutative user op, and a non-commutative one (which must keep rank
 * order, so it never takes the reduce-scatter path).  Every element against a serial
 * reference, on every rank; blocking, non-blocking and persistent (they share the algorithm).
 * Standard MPI only. */
#include "../common/mpi_test.h"

/* which form of each collective runs: 0 blocking, 1 non-blocking (then Wait), 2 persistent
 * (*_init, Start, Wait, Request_free): all three must take the same algorithms */
static int form_;

static void run_(MPI_Request *q)
{
    if (form_ == 2)
        MPI_Start(q);
    MPI_Wait(q, MPI_STATUS_IGNORE);
    if (form_ == 2)
        MPI_Request_free(q);
}

static void Allreduce(const void *s, void *r, int n, MPI_Datatype t, MPI_Op op)
{
    MPI_Request q;
    if (form_ == 0)
        MPI_Allreduce(s, r, n, t, op, MPI_COMM_WORLD);
    else if (form_ == 1)
        MPI_Iallreduce(s, r, n, t, op, MPI_COMM_WORLD, &q), run_(&q);
    else
        MPI_Allreduce_init(s, r, n, t, op, MPI_COMM_WORLD, MPI_INFO_NULL, &q), run_(&q);
}

static int val(int r, int i) { return (r * 131 + i * 7) % 1001 - 500; }

static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int sz; /* *len elements of *dt, all ints */
    MPI_Type_size(*dt, &sz);
    for (int i = 0; i < *len * (sz / (int)sizeof(int)); i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

/* 2x2 integer matrices mod 997, multiplied: associative, not commutative */
static void matmul(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int k = 0; k < *len; k++, a += 4, b += 4) {
        int c[4] = {(a[0] * b[0] + a[1] * b[2]) % 997, (a[0] * b[1] + a[1] * b[3]) % 997,
                    (a[2] * b[0] + a[3] * b[2]) % 997, (a[2] * b[1] + a[3] * b[3]) % 997};
        memcpy(b, c, sizeof c);
    }
}

static void check_int(int count, MPI_Op op, int in_place)
{
    int *s = xmalloc(sizeof(int) * (size_t)(count + 1));
    int *r = xmalloc(sizeof(int) * (size_t)(count + 1));
    for (int i = 0; i < count; i++)
        s[i] = r[i] = val(rank_, i);
    Allreduce(in_place ? MPI_IN_PLACE : s, r, count, MPI_INT, op);
    for (int i = 0; i < count; i++) {
        int want = val(0, i);
        for (int p = 1; p < size_; p++) {
            int v = val(p, i);
            if (op == MPI_SUM)
                want += v;
            else if (op == MPI_MIN)
                want = v < want ? v : want;
            else if (op == MPI_MAX)
                want = v > want ? v : want;
            else
                want &= v;
        }
        CHECK(r[i] == want, "int count %d in_place %d [%d]: %d != %d", count, in_place, i, r[i],
              want);
    }
    free(s);
    free(r);
}

static void check_double(int count)
{
    double *s = xmalloc(sizeof(double) * (size_t)(count + 1));
    double *r = xmalloc(sizeof(double) * (size_t)(count + 1));
    for (int i = 0; i < count; i++)
        s[i] = val(rank_, i);
    Allreduce(s, r, count, MPI_DOUBLE, MPI_SUM);
    for (int i = 0; i < count; i++) {
        double want = 0;
        for (int p = 0; p < size_; p++)
            want += val(p, i);
        CHECK(r[i] == want, "double count %d [%d]", count, i);
    }
    free(s);
    free(r);
}

static void check_derived_user(int count)
{
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op op;
    MPI_Op_create(user_sum, 1, &op);
    int *s = xmalloc(sizeof(int) * 2 * (size_t)(count + 1));
    int *r = xmalloc(sizeof(int) * 2 * (size_t)(count + 1));
    for (int i = 0; i < 2 * count; i++)
        s[i] = val(rank_, i);
    Allreduce(s, r, count, pair, op);
    for (int i = 0; i < 2 * count; i++) {
        int want = 0;
        for (int p = 0; p < size_; p++)
            want += val(p, i);
        CHECK(r[i] == want, "pairs + user op count %d [%d]", count, i);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&pair);
    free(s);
    free(r);
}

static void check_noncommutative(int count)
{
    MPI_Datatype mat;
    MPI_Type_contiguous(4, MPI_INT, &mat);
    MPI_Type_commit(&mat);
    MPI_Op op;
    MPI_Op_create(matmul, 0, &op);
    int *s = xmalloc(sizeof(int) * 4 * (size_t)count);
    int *r = xmalloc(sizeof(int) * 4 * (size_t)count);
    for (int i = 0; i < 4 * count; i++)
        s[i] = (val(rank_, i) + 1000) % 997;
    Allreduce(s, r, count, mat, op);
    for (int k = 0; k < count; k++) { /* M_0 * M_1 * ... * M_{n-1} */
        int acc[4];
        for (int j = 0; j < 4; j++)
            acc[j] = (val(size_ - 1, 4 * k + j) + 1000) % 997;
        for (int p = size_ - 2; p >= 0; p--) {
            int m[4];
            for (int j = 0; j < 4; j++)
                m[j] = (val(p, 4 * k + j) + 1000) % 997;
            int len = 1;
            matmul(m, acc, &len, NULL);
        }
        for (int j = 0; j < 4; j++)
            CHECK(r[4 * k + j] == acc[j], "non-commutative count %d [%d]", count, k);
    }
    MPI_Op_free(&op);
    MPI_Type_free(&mat);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int pof2 = 1;
    while (pof2 * 2 <= size_)
        pof2 *= 2;
    /* 8192 ints = the default threshold; pof2 +- 1 elements with the threshold at 0 */
    const int counts[] = {0, 1, pof2 - 1, pof2, pof2 + 1, 1000, 8191, 8192, 8193, 30011, 100000};
    for (form_ = 0; form_ < 3; form_++) {
        for (unsigned c = 0; c < sizeof counts / sizeof *counts; c++) {
            int n = counts[c];
            check_int(n, MPI_SUM, 0);
            check_int(n, MPI_SUM, 1);
            check_int(n, c % 2 ? MPI_MIN : MPI_MAX, 0);
            check_int(n, MPI_BAND, c % 2);
            check_double(n);
            if (n <= 30011) {
                check_derived_user(n);
                check_noncommutative(n / 4 + 1);
            }
        }
    }
    return finish();
}
