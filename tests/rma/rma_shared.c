/* rma_shared.c — MPI_Win_allocate_shared and MPI_Win_shared_query with direct load/store.
 * On the node-local communicator (MPI_Comm_split_type SHARED) each rank allocates a segment of
 * a different size (rank 1 of it empty, to check shared_query's MPI_PROC_NULL rule); every rank
 * queries every segment, stores into its right neighbour's segment directly, synchronises with
 * MPI_Win_sync + barrier inside lock_all, and checks what its left neighbour stored; the default
 * (contiguous) layout puts segments back to back; Put/Get/Accumulate work on the same window;
 * the "alloc_shared_noncontig" info key gives a window whose segments are still all reachable. */
#include "rma_test.h"

static MPI_Aint seg_len(int r) { return r == 1 ? 0 : 16 + 8 * (MPI_Aint)r; } /* ints */

static void run(MPI_Comm node, int noncontig)
{
    int me, n;
    MPI_Comm_rank(node, &me);
    MPI_Comm_size(node, &n);
    MPI_Info info = MPI_INFO_NULL;
    if (noncontig) {
        MPI_Info_create(&info);
        MPI_Info_set(info, "alloc_shared_noncontig", "true");
    }
    int *mine = NULL;
    MPI_Win win;
    MPI_OK(MPI_Win_allocate_shared(seg_len(me) * (MPI_Aint)sizeof(int), sizeof(int), info, node,
                                   &mine, &win));
    if (info != MPI_INFO_NULL) MPI_Info_free(&info);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int **seg = rt_malloc(sizeof *seg * (size_t)n);
    for (int r = 0; r < n; r++) {
        MPI_Aint sz = -1;
        int du = -1;
        MPI_OK(MPI_Win_shared_query(win, r, &sz, &du, &seg[r]));
        /* a non-contiguous segment may be rounded up (to a page, say) */
        CHECK(sz == seg_len(r) * (MPI_Aint)sizeof(int) ||
                  (noncontig && sz >= seg_len(r) * (MPI_Aint)sizeof(int)),
              "shared_query(%d): size %ld, expected %ld",
              r, (long)sz, (long)(seg_len(r) * (MPI_Aint)sizeof(int)));
        CHECK(du == (int)sizeof(int), "shared_query(%d): disp_unit %d", r, du);
        if (r == me && sz > 0) CHECK(seg[r] == mine, "shared_query(self) base differs from the allocated base");
    }
    if (!noncontig) /* consecutive non-empty segments (an empty one's address is unspecified) */
        for (int r = 0, prev = -1; r < n; r++) {
            if (seg_len(r) == 0) continue;
            if (prev >= 0)
                CHECK(seg[prev] + seg_len(prev) == seg[r],
                      "contiguous layout: segment %d does not follow %d", r, prev);
            prev = r;
        }
    /* MPI_PROC_NULL: the segment of the lowest rank with a non-zero size */
    {
        MPI_Aint sz;
        int du;
        int *p;
        MPI_OK(MPI_Win_shared_query(win, MPI_PROC_NULL, &sz, &du, &p));
        CHECK(p == seg[0] && sz >= seg_len(0) * (MPI_Aint)sizeof(int),
              "shared_query(MPI_PROC_NULL) did not give rank 0's segment");
    }
    int right = (me + 1) % n, left = (me + n - 1) % n;
    MPI_OK(MPI_Win_lock_all(MPI_MODE_NOCHECK, win));
    for (MPI_Aint i = 0; i < seg_len(right); i++) seg[right][i] = 1000 * me + (int)i;
    MPI_OK(MPI_Win_sync(win));
    MPI_Barrier(node);
    MPI_OK(MPI_Win_sync(win));
    for (MPI_Aint i = 0; i < seg_len(me); i++)
        CHECK(mine[i] == 1000 * left + (int)i, "load/store: int %ld of my segment is %d, expected %d",
              (long)i, mine[i], 1000 * left + (int)i);
    MPI_Barrier(node);
    /* RMA calls on the same window: Put into the left neighbour's segment, Accumulate into
     * rank 0's first int, Get from the right neighbour */
    int v[4] = {7 + me, 8 + me, 9 + me, 10 + me}, g[4] = {0, 0, 0, 0}, one = me + 1;
    if (seg_len(left) >= 4) MPI_OK(MPI_Put(v, 4, MPI_INT, left, 0, 4, MPI_INT, win));
    MPI_OK(MPI_Accumulate(&one, 1, MPI_INT, 0, 4, 1, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Win_flush_all(win));
    MPI_OK(MPI_Win_sync(win));
    MPI_Barrier(node);
    MPI_OK(MPI_Win_sync(win));
    if (seg_len(right) >= 4) {
        MPI_OK(MPI_Get(g, 4, MPI_INT, right, 0, 4, MPI_INT, win));
        MPI_OK(MPI_Win_flush(right, win));
        for (int j = 0; j < 4; j++)
            CHECK(g[j] == 7 + (right + 1) % n + j && seg[right][j] == g[j],
                  "Get/load from %d: int %d is %d/%d, expected %d", right, j, g[j], seg[right][j],
                  7 + (right + 1) % n + j);
    }
    if (me == 0) {
        int want = 1000 * left + 4; /* the value stored before, plus every rank's me+1 */
        for (int r = 0; r < n; r++) want += r + 1;
        CHECK(mine[4] == want, "Accumulate into a shared segment: %d, expected %d", mine[4], want);
    }
    MPI_OK(MPI_Win_unlock_all(win));
    free(seg);
    MPI_OK(MPI_Win_free(&win));
}

int main(int argc, char **argv)
{
    rt_start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm node;
    MPI_OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
    run(node, 0);
    run(node, 1);
    MPI_Comm_free(&node);
    return rt_finish();
}
