/* rma_dtypes.c — one-sided transfers with derived datatypes on the origin side, the target
 * side or both: vector, indexed, resized (a stride made from the extent), struct (an aligned
 * C struct on the origin, a packed layout with the same type signature on the target), for
 * Put, Get, Accumulate, Get_accumulate (fence) and Rput / Rget (lock).  Each rank works on its
 * right neighbour's window; the target checks every int of its window (the untouched ones
 * too), the origin checks what it fetched. */
#include "rma_test.h"

#include <stddef.h>

#define N 256 /* ints per window */
struct rec { int a; double b; char c[3]; };

static int ival(int t, int i) { return 10000 * t + i; }
static int oval(int r, int k) { return -(1000 * (r + 1) + k); }

int main(int argc, char **argv)
{
    rt_start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
    int *mem = rt_malloc(N * sizeof(int));
    MPI_Win win;
    MPI_OK(MPI_Win_create(mem, N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    for (int i = 0; i < N; i++) mem[i] = ival(rank_, i);

    MPI_Datatype vec_2x4s5, vec_8s3, idx_8, res_3, vec_3x2s4, idx_4, res2, rec_t, rec_aligned,
        rec_packed;
    MPI_Type_vector(4, 2, 5, MPI_INT, &vec_2x4s5);       /* 8 ints spread over 17 */
    MPI_Type_vector(8, 1, 3, MPI_INT, &vec_8s3);         /* 8 ints, stride 3 */
    int bl[3] = {1, 3, 4}, dl[3] = {0, 4, 10};
    MPI_Type_indexed(3, bl, dl, MPI_INT, &idx_8);        /* 8 ints at 0, 4..6, 10..13 */
    MPI_Type_create_resized(MPI_INT, 0, 3 * sizeof(int), &res_3); /* one int every 3 */
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec_3x2s4);       /* 6 ints */
    int bl4[2] = {2, 2}, dl4[2] = {1, 5};
    MPI_Type_indexed(2, bl4, dl4, MPI_INT, &idx_4);
    MPI_Type_create_resized(MPI_INT, 0, 2 * sizeof(int), &res2);
    int rbl[3] = {1, 1, 3};
    MPI_Datatype rty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Aint rdl[3] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
    MPI_Type_create_struct(3, rbl, rdl, rty, &rec_t);
    MPI_Type_create_resized(rec_t, 0, sizeof(struct rec), &rec_aligned);
    MPI_Aint pdl[3] = {0, 4, 12};                        /* packed: 15 bytes, no padding */
    MPI_Datatype rec_packed_raw; /* its extent is padded to the double's alignment: resize */
    MPI_Type_create_struct(3, rbl, pdl, rty, &rec_packed_raw);
    MPI_Type_create_resized(rec_packed_raw, 0, 15, &rec_packed);
    MPI_Type_free(&rec_packed_raw);
    MPI_Datatype all[] = {vec_2x4s5, vec_8s3, idx_8, res_3, vec_3x2s4, idx_4, res2, rec_aligned,
                          rec_packed};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) MPI_Type_commit(&all[i]);
    vec_2x4s5 = all[0], vec_8s3 = all[1], idx_8 = all[2], res_3 = all[3], vec_3x2s4 = all[4];
    idx_4 = all[5], res2 = all[6], rec_aligned = all[7], rec_packed = all[8];

    /* origin buffers */
    int src8[8], src24[24], acc6[6], gsrc[8], gres[8], g1[5], g2[16], rg[6];
    struct rec recs[3];
    for (int k = 0; k < 8; k++) src8[k] = oval(rank_, k);
    for (int k = 0; k < 24; k++) src24[k] = k % 3 == 0 ? oval(rank_, 100 + k / 3) : -7;
    for (int k = 0; k < 6; k++) acc6[k] = rank_ + k + 1;
    for (int k = 0; k < 8; k++) gsrc[k] = 2 * k == 0 ? 5 : 2 * k; /* resized: every other used */
    for (int k = 0; k < 8; k++) gres[k] = -1;
    memset(g1, 0xff, sizeof g1);
    memset(g2, 0xff, sizeof g2);
    memset(rg, 0xff, sizeof rg);
    for (int k = 0; k < 3; k++) {
        memset(&recs[k], 0, sizeof recs[k]);
        recs[k].a = oval(rank_, 200 + k);
        recs[k].b = 0.5 + rank_ + k;
        recs[k].c[0] = (char)('a' + k), recs[k].c[1] = (char)('A' + rank_), recs[k].c[2] = 'z';
    }

    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_fence(0, win));
    /* contiguous -> vector at 0 */
    MPI_OK(MPI_Put(src8, 8, MPI_INT, right, 0, 1, vec_2x4s5, win));
    /* vector (every 3rd of src24) -> indexed at 20 */
    MPI_OK(MPI_Put(src24, 1, vec_8s3, right, 20, 1, idx_8, win));
    /* resized at 40 (target, count 5: ints 40, 43, ... 52) -> contiguous */
    MPI_OK(MPI_Get(g1, 5, MPI_INT, right, 40, 5, res_3, win));
    /* vector at 60 (8 ints over 17) -> indexed into g2 (count 2: two copies of idx_4) */
    MPI_OK(MPI_Get(g2, 2, idx_4, right, 60, 1, vec_2x4s5, win));
    /* Accumulate contiguous -> vector at 100 */
    MPI_OK(MPI_Accumulate(acc6, 6, MPI_INT, right, 100, 1, vec_3x2s4, MPI_SUM, win));
    /* Get_accumulate: origin resized (count 4), result indexed (count 1 of idx_4 -> 4 ints), target
     * resized at 120 (ints 120, 122, 124, 126) */
    MPI_OK(MPI_Get_accumulate(gsrc, 4, res2, gres, 1, idx_4, right, 120, 4, res2, MPI_SUM, win));
    /* aligned struct -> packed struct at int 140 (byte 560) */
    MPI_OK(MPI_Put(recs, 3, rec_aligned, right, 140, 3, rec_packed, win));
    MPI_OK(MPI_Win_fence(0, win));
    /* passive target: Rput resized (every other int of src8) -> resized at 160 (every third int),
     * Rget vector at 180 -> contiguous */
    MPI_Request rq[2];
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win));
    MPI_OK(MPI_Rput(src8, 4, res2, right, 160, 4, res_3, win, &rq[0]));
    MPI_OK(MPI_Rget(rg, 6, MPI_INT, right, 180, 1, vec_3x2s4, win, &rq[1]));
    MPI_OK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Wait(&rq[1], MPI_STATUS_IGNORE));
    MPI_OK(MPI_Win_unlock(right, win));
    MPI_Barrier(MPI_COMM_WORLD);

    /* origin side */
    for (int k = 0; k < 5; k++)
        CHECK(g1[k] == ival(right, 40 + 3 * k), "Get from resized target: %d is %d", k, g1[k]);
    {
        int want[16];
        memset(want, 0xff, sizeof want);
        int vi[8], n = 0; /* the 8 ints of vec_2x4s5 at 60, in order */
        for (int b = 0; b < 4; b++)
            for (int j = 0; j < 2; j++) vi[n++] = 60 + 5 * b + j;
        int slot[8] = {1, 2, 5, 6, 1 + 6, 2 + 6, 5 + 6, 6 + 6}; /* idx_4 twice, extent 6 ints */
        for (int k = 0; k < 8; k++) want[slot[k]] = ival(right, vi[k]);
        for (int k = 0; k < 16; k++)
            CHECK(g2[k] == want[k], "Get vector -> indexed: int %d is %d, expected %d", k, g2[k],
                  want[k]);
    }
    {
        int slot[4] = {1, 2, 5, 6};
        for (int k = 0; k < 8; k++) {
            int exp = -1;
            for (int j = 0; j < 4; j++)
                if (slot[j] == k) exp = ival(right, 120 + 2 * j);
            CHECK(gres[k] == exp, "Get_accumulate result (indexed) int %d is %d, expected %d", k,
                  gres[k], exp);
        }
    }
    {
        int n = 0;
        for (int b = 0; b < 3; b++)
            for (int j = 0; j < 2; j++, n++)
                CHECK(rg[n] == ival(right, 180 + 4 * b + j), "Rget vector: int %d is %d", n, rg[n]);
    }

    /* target side: my window after the left neighbour's epochs */
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
    int *want = rt_malloc(N * sizeof(int));
    for (int i = 0; i < N; i++) want[i] = ival(rank_, i);
    int n = 0;
    for (int b = 0; b < 4; b++)
        for (int j = 0; j < 2; j++) want[5 * b + j] = oval(left, n++);
    int ix[8] = {0, 4, 5, 6, 10, 11, 12, 13};
    for (int k = 0; k < 8; k++) want[20 + ix[k]] = oval(left, 100 + k);
    n = 0;
    for (int b = 0; b < 3; b++)
        for (int j = 0; j < 2; j++, n++) want[100 + 4 * b + j] += left + n + 1;
    for (int j = 0; j < 4; j++) want[120 + 2 * j] += 2 * (2 * j) == 0 ? 5 : 2 * (2 * j);
    for (int k = 0; k < 4; k++) want[160 + 3 * k] = oval(left, 2 * k); /* the Rput */
    for (int i = 0; i < N; i++) {
        if (i >= 140 && i < 140 + 12) continue; /* the packed records: checked below */
        CHECK(mem[i] == want[i], "window int %d is %d, expected %d", i, mem[i], want[i]);
    }
    const unsigned char *p = (const unsigned char *)&mem[140];
    for (int k = 0; k < 3; k++, p += 15) {
        int a;
        double b;
        memcpy(&a, p, 4);
        memcpy(&b, p + 4, 8);
        CHECK(a == oval(left, 200 + k) && b == 0.5 + left + k && p[12] == 'a' + k &&
                  p[13] == 'A' + left && p[14] == 'z',
              "packed record %d: a=%d b=%g c=%c%c%c", k, a, b, p[12], p[13], p[14]);
    }
    /* the 3 bytes after the packed records keep their initial contents */
    {
        int init = ival(rank_, 140 + 11);
        CHECK(memcmp((const unsigned char *)&mem[140] + 45, (const unsigned char *)&init + 1, 3) == 0,
              "bytes after the packed records changed");
    }
    MPI_OK(MPI_Win_unlock(rank_, win));
    free(want);
    MPI_OK(MPI_Win_free(&win));
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) MPI_Type_free(&all[i]);
    MPI_Type_free(&rec_t);
    free(mem);
    return rt_finish();
}
