/* acc_ops.c — the accumulate family against a target shared by all ranks: MPI_SUM on int,
 * double and long long (every rank adds, the total is exact), MAX/MIN/BAND/BOR/BXOR/PROD/LAND,
 * MAXLOC on MPI_DOUBLE_INT, MPI_REPLACE, Get_accumulate with MPI_NO_OP and with SUM (the
 * fetched values of all ranks are distinct: element-wise atomic), Fetch_and_op and
 * Compare_and_swap counters under a shared lock, a strided target datatype with a contiguous
 * origin, an accumulate longer than one receive buffer (chunked), and Raccumulate /
 * Rget_accumulate. */
#include "../common/mpi_test.h"

#define BIG 10000

struct di { double d; int i; };

int main(int argc, char **argv)
{
    start(&argc, &argv);
    struct {
        int isum[4];
        double dsum;
        long long lsum;
        int imax, imin, band, bor, bxor, prod, land;
        int rep;
        struct di loc;
        int fop, cas, cas_win;
        int strided[16];
        int big[BIG];
        int gacc;
    } * t;
    MPI_Win win;
    MPI_Win_allocate(sizeof *t, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &t, &win);
    memset(t, 0, sizeof *t);
    t->imin = 1 << 30;
    t->band = ~0;
    t->prod = 1;
    t->land = 1;
    t->loc.d = -1;
    t->cas_win = -1;
    MPI_Barrier(MPI_COMM_WORLD);
#define OFF(f) ((MPI_Aint)((char *)&t->f - (char *)t))
    int me = rank_ + 1;
    MPI_Win_lock_all(0, win);
    int iv[4] = {me, 2 * me, 3 * me, 4 * me};
    MPI_Accumulate(iv, 4, MPI_INT, 0, OFF(isum), 4, MPI_INT, MPI_SUM, win);
    double dv = 0.5 * me;
    MPI_Accumulate(&dv, 1, MPI_DOUBLE, 0, OFF(dsum), 1, MPI_DOUBLE, MPI_SUM, win);
    long long lv = 1000000000000LL * me;
    MPI_Accumulate(&lv, 1, MPI_LONG_LONG, 0, OFF(lsum), 1, MPI_LONG_LONG, MPI_SUM, win);
    MPI_Accumulate(&me, 1, MPI_INT, 0, OFF(imax), 1, MPI_INT, MPI_MAX, win);
    MPI_Accumulate(&me, 1, MPI_INT, 0, OFF(imin), 1, MPI_INT, MPI_MIN, win);
    int bit = ~(1 << rank_);
    MPI_Accumulate(&bit, 1, MPI_INT, 0, OFF(band), 1, MPI_INT, MPI_BAND, win);
    int bbit = 1 << rank_;
    MPI_Accumulate(&bbit, 1, MPI_INT, 0, OFF(bor), 1, MPI_INT, MPI_BOR, win);
    MPI_Accumulate(&bbit, 1, MPI_INT, 0, OFF(bxor), 1, MPI_INT, MPI_BXOR, win);
    int two = 2;
    MPI_Accumulate(&two, 1, MPI_INT, 0, OFF(prod), 1, MPI_INT, MPI_PROD, win);
    int tru = 1;
    MPI_Accumulate(&tru, 1, MPI_INT, 0, OFF(land), 1, MPI_INT, MPI_LAND, win);
    struct di lvv = {(double)(rank_ % 3), rank_};
    MPI_Accumulate(&lvv, 1, MPI_DOUBLE_INT, 0, OFF(loc), 1, MPI_DOUBLE_INT, MPI_MAXLOC, win);
    /* counters: every fetched value is distinct */
    int one = 1, got = -1;
    MPI_Fetch_and_op(&one, &got, MPI_INT, 0, OFF(fop), MPI_SUM, win);
    MPI_Win_flush(0, win);
    int *all = malloc(sizeof(int) * (size_t)size_);
    MPI_Allgather(&got, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < size_; i++)
        for (int j = 0; j < i; j++)
            CHECK(all[i] != all[j], "fetch_and_op returned %d twice", all[i]);
    /* compare-and-swap: exactly one rank wins the slot */
    int minus = -1, old = 0;
    MPI_Compare_and_swap(&rank_, &minus, &old, MPI_INT, 0, OFF(cas_win), win);
    MPI_Win_flush(0, win);
    int won = old == -1, winners = 0;
    MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    CHECK(winners == 1, "%d ranks won the compare-and-swap", winners);
    /* strided target: element i of the origin goes to strided[2 i] */
    MPI_Datatype vec;
    MPI_Type_vector(8, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int ones[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    MPI_Accumulate(ones, 8, MPI_INT, 0, OFF(strided), 1, vec, MPI_SUM, win);
    /* chunked: BIG ints in one call */
    int *bigv = malloc(sizeof(int) * BIG);
    for (int i = 0; i < BIG; i++)
        bigv[i] = i;
    MPI_Request rq;
    MPI_Raccumulate(bigv, BIG, MPI_INT, 0, OFF(big), BIG, MPI_INT, MPI_SUM, win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    int prev = -1;
    MPI_Rget_accumulate(&one, 1, MPI_INT, &prev, 1, MPI_INT, 0, OFF(gacc), 1, MPI_INT, MPI_SUM,
                        win, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    CHECK(prev >= 0 && prev < size_, "rget_accumulate fetched %d", prev);
    MPI_Win_unlock_all(win);
    MPI_Barrier(MPI_COMM_WORLD);

    /* the results, read back by every rank with Get_accumulate(NO_OP) */
    int n = size_;
    MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
    int isum[4];
    MPI_Get_accumulate(NULL, 0, MPI_INT, isum, 4, MPI_INT, 0, OFF(isum), 4, MPI_INT, MPI_NO_OP,
                       win);
    int *bigr = malloc(sizeof(int) * BIG);
    MPI_Get_accumulate(NULL, 0, MPI_INT, bigr, BIG, MPI_INT, 0, OFF(big), BIG, MPI_INT,
                       MPI_NO_OP, win);
    MPI_Win_unlock(0, win);
    int tot = n * (n + 1) / 2;
    for (int k = 0; k < 4; k++)
        CHECK(isum[k] == (k + 1) * tot, "isum[%d] = %d, want %d", k, isum[k], (k + 1) * tot);
    for (int i = 0; i < BIG; i++)
        CHECK(bigr[i] == i * n, "big[%d] = %d", i, bigr[i]);
    if (rank_ == 0) {
        MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
        CHECK(t->dsum == 0.5 * tot, "dsum %g", t->dsum);
        CHECK(t->lsum == 1000000000000LL * tot, "lsum %lld", t->lsum);
        CHECK(t->imax == n && t->imin == 1, "max %d min %d", t->imax, t->imin);
        int mask = n >= 31 ? ~0 : (1 << n) - 1;
        CHECK(t->band == ~mask && t->bor == mask && t->bxor == mask, "band %x bor %x bxor %x",
              t->band, t->bor, t->bxor);
        CHECK(t->prod == (1 << n) && t->land == 1, "prod %d land %d", t->prod, t->land);
        double best = n >= 3 ? 2 : n - 1;
        CHECK(t->loc.d == best && t->loc.i == (int)best, "maxloc %g at %d", t->loc.d, t->loc.i);
        CHECK(t->fop == n && t->gacc == n, "fop %d gacc %d", t->fop, t->gacc);
        CHECK(t->cas_win >= 0 && t->cas_win < n, "cas slot %d", t->cas_win);
        for (int i = 0; i < 16; i++)
            CHECK(t->strided[i] == (i % 2 ? 0 : n), "strided[%d] = %d", i, t->strided[i]);
        /* MPI_REPLACE through the own rank */
        int r = 42;
        MPI_Accumulate(&r, 1, MPI_INT, 0, OFF(rep), 1, MPI_INT, MPI_REPLACE, win);
        MPI_Win_unlock(0, win);
        CHECK(t->rep == 42, "replace %d", t->rep);
    }
    MPI_Type_free(&vec);
    free(all);
    free(bigv);
    free(bigr);
    MPI_Win_free(&win);
    return finish();
}
