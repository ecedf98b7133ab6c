/* rma_stress.c — randomized mixed Put / Get / Accumulate(SUM) / Fetch_and_op(SUM) traffic under
 * every synchronisation mode, checked against a serial model.
 * One seeded generator, run identically on every rank, draws each round's global schedule: for
 * every int of every rank's window, either nothing, one Put (one origin), Accumulates from
 * several origins, Fetch_and_op(+1) from several origins (a counter), or Gets from several
 * origins — never conflicting accesses inside one epoch, so the outcome is determined.  Each
 * origin issues its share of the schedule in its own shuffled order.  Modes cycle through
 * fence, post/start/complete/wait, lock per target (exclusive or shared), lock_all, and lock_all
 * with random flush / flush_all / flush_local; the window flavour rotates through create,
 * allocate, dynamic (attached memory, absolute displacements) and allocate_shared (when all
 * ranks share a node).  After each round every rank compares its window with the model, every Get with the
 * model's value before the round, every fetched counter value with its range, and the sum of all
 * fetched values of a counter (reduced over all ranks) with the exact sum.
 * Env: RMA_STRESS_SEED (default 20261124), RMA_STRESS_ROUNDS (default 30). */
#include "rma_test.h"

#define W 48 /* ints per window */

enum { C_NONE, C_PUT, C_ACC, C_FOP, C_GET, NCLASS };
struct op {
    int target, loc, kind, val, res, seq; /* res: fetched / got value; seq: issue order */
};
static int by_target(const void *a, const void *b)
{
    const struct op *x = a, *y = b;
    return x->target != y->target ? x->target - y->target : x->seq - y->seq;
}

int main(int argc, char **argv)
{
    rt_start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    const char *e = getenv("RMA_STRESS_SEED");
    uint64_t seed = e ? strtoull(e, NULL, 10) : 20261124ULL;
    e = getenv("RMA_STRESS_ROUNDS");
    int rounds = e ? atoi(e) : 30;
    if (seed == 0) seed = 1;

    int n = size_ * W;
    int *model = rt_malloc(sizeof(int) * (size_t)n), *before = rt_malloc(sizeof(int) * (size_t)n);
    int *cls = rt_malloc(sizeof(int) * (size_t)n), *cnt = rt_malloc(sizeof(int) * (size_t)n);
    long long *fsum = rt_malloc(sizeof(long long) * (size_t)n);
    size_t cap = (size_t)n * (size_t)size_ + 16;
    struct op *mine = rt_malloc(sizeof *mine * cap);
    int *heap = rt_malloc(W * sizeof(int)), *dheap = rt_malloc(W * sizeof(int)), *amem, *smem = NULL;
    MPI_Win wins[4];
    int nwins = 3;
    MPI_OK(MPI_Win_create(heap, W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &wins[0]));
    MPI_OK(MPI_Win_allocate(W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &amem, &wins[1]));
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &wins[2]));
    MPI_OK(MPI_Win_attach(wins[2], dheap, W * sizeof(int)));
    MPI_Aint *dbase = rt_malloc(sizeof(MPI_Aint) * (size_t)size_), mybase;
    MPI_Get_address(dheap, &mybase);
    MPI_Allgather(&mybase, 1, MPI_AINT, dbase, 1, MPI_AINT, MPI_COMM_WORLD);
    {
        MPI_Comm node;
        int nsize;
        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
        MPI_Comm_size(node, &nsize);
        MPI_Comm_free(&node);
        if (nsize == size_) { /* every rank on one node */
            MPI_OK(MPI_Win_allocate_shared(W * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD,
                                           &smem, &wins[3]));
            nwins = 4;
        }
    }
    int *mem[4] = {heap, amem, dheap, smem};
    static const char *wname[] = {"create", "allocate", "dynamic", "allocate_shared"};
    for (int k = 0; k < nwins; k++) {
        MPI_Win_set_errhandler(wins[k], MPI_ERRORS_RETURN);
        MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, wins[k]));
        memset(mem[k], 0, W * sizeof(int));
        MPI_OK(MPI_Win_unlock(rank_, wins[k]));
    }
    int *models[4] = {model, rt_malloc(sizeof(int) * (size_t)n), rt_malloc(sizeof(int) * (size_t)n),
                      rt_malloc(sizeof(int) * (size_t)n)};
    for (int k = 0; k < 4; k++) memset(models[k], 0, sizeof(int) * (size_t)n);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Barrier(MPI_COMM_WORLD);
    static const char *mode_name[] = {"fence", "pscw", "lock", "lock_all", "lock_all+flushes"};
    long long total_ops = 0;

    uint64_t g = seed; /* the global generator: same draws on every rank */
    for (int round = 0; round < rounds; round++) {
        /* every (flavour, mode) pair comes up: modes advance once per full flavour cycle */
        int w = round % nwins, mode = (round / nwins) % 5;
        MPI_Win win = wins[w];
        int *mdl = models[w];
        int excl = (int)rt_below(&g, 2);
        memcpy(before, mdl, sizeof(int) * (size_t)n);
        size_t nm = 0;
        for (int i = 0; i < n; i++) {
            cls[i] = (int)rt_below(&g, NCLASS);
            int t = i / W, loc = i % W;
            int k = cls[i] == C_PUT ? 1 : cls[i] == C_NONE ? 0 : 1 + (int)rt_below(&g, (unsigned)(size_ < 4 ? size_ : 4));
            cnt[i] = k;
            int first = (int)rt_below(&g, (unsigned)size_);
            for (int j = 0; j < k; j++) {
                int o = (first + j) % size_; /* k distinct origins */
                int val = cls[i] == C_PUT ? (int)rt_below(&g, 1000000) : cls[i] == C_ACC ? 1 + (int)rt_below(&g, 100) : 1;
                if (cls[i] == C_PUT) mdl[i] = val;
                else if (cls[i] == C_ACC) mdl[i] += val;
                else if (cls[i] == C_FOP) mdl[i] += 1;
                if (o == rank_) mine[nm++] = (struct op){t, loc, cls[i], val, -1, 0};
            }
        }
        /* my own issue order */
        uint64_t s = seed * 1000003ULL + (uint64_t)round * 7919ULL + (uint64_t)rank_ + 1;
        for (size_t i = nm; i > 1; i--) {
            size_t j = rt_rand(&s) % i;
            struct op tmp = mine[i - 1];
            mine[i - 1] = mine[j];
            mine[j] = tmp;
        }
        for (size_t i = 0; i < nm; i++) mine[i].seq = (int)i;
        total_ops += (long long)nm;
        /* the epoch */
        if (mode == 0) MPI_OK(MPI_Win_fence(0, win));
        if (mode == 1) {
            MPI_OK(MPI_Win_post(world, 0, win));
            MPI_OK(MPI_Win_start(world, 0, win));
        }
        if (mode >= 3) MPI_OK(MPI_Win_lock_all(0, win));
        if (mode == 2) /* one target at a time (holding several exclusive locks could deadlock):
                          group my ops by target, keeping the shuffled order within a target */
            qsort(mine, nm, sizeof *mine, by_target);
        for (size_t i = 0; i < nm; i++) {
            struct op *p = &mine[i];
            if (mode == 2 && (i == 0 || mine[i - 1].target != p->target))
                MPI_OK(MPI_Win_lock(excl ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, p->target, 0, win));
            MPI_Aint d = w == 2 ? dbase[p->target] + (MPI_Aint)p->loc * (MPI_Aint)sizeof(int) : p->loc;
            switch (p->kind) {
            case C_PUT: MPI_OK(MPI_Put(&p->val, 1, MPI_INT, p->target, d, 1, MPI_INT, win)); break;
            case C_ACC:
                MPI_OK(MPI_Accumulate(&p->val, 1, MPI_INT, p->target, d, 1, MPI_INT, MPI_SUM, win));
                break;
            case C_FOP:
                MPI_OK(MPI_Fetch_and_op(&p->val, &p->res, MPI_INT, p->target, d, MPI_SUM, win));
                break;
            case C_GET: MPI_OK(MPI_Get(&p->res, 1, MPI_INT, p->target, d, 1, MPI_INT, win)); break;
            }
            if (mode == 2 && (i + 1 == nm || mine[i + 1].target != p->target))
                MPI_OK(MPI_Win_unlock(p->target, win));
            if (mode == 4) {
                unsigned r = (unsigned)(rt_rand(&s) % 16);
                if (r == 0) MPI_OK(MPI_Win_flush(p->target, win));
                else if (r == 1) MPI_OK(MPI_Win_flush_all(win));
                else if (r == 2) MPI_OK(MPI_Win_flush_local(p->target, win));
                else if (r == 3) MPI_OK(MPI_Win_flush_local_all(win));
            }
        }
        if (mode == 0) MPI_OK(MPI_Win_fence(0, win));
        if (mode == 1) {
            MPI_OK(MPI_Win_complete(win));
            MPI_OK(MPI_Win_wait(win));
        }
        if (mode >= 3) MPI_OK(MPI_Win_unlock_all(win));

        /* checks: fetched values, then my window */
        memset(fsum, 0, sizeof(long long) * (size_t)n);
        for (size_t i = 0; i < nm; i++) {
            struct op *p = &mine[i];
            int gi = p->target * W + p->loc;
            if (p->kind == C_GET)
                CHECK(p->res == before[gi], "round %d (%s): Get of rank %d int %d = %d, expected %d",
                      round, mode_name[mode], p->target, p->loc, p->res, before[gi]);
            if (p->kind == C_FOP) {
                CHECK(p->res >= before[gi] && p->res < before[gi] + cnt[gi],
                      "round %d (%s): Fetch_and_op of rank %d int %d fetched %d, outside [%d, %d)",
                      round, mode_name[mode], p->target, p->loc, p->res, before[gi], before[gi] + cnt[gi]);
                fsum[gi] += p->res;
            }
        }
        MPI_Allreduce(MPI_IN_PLACE, fsum, n, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
        for (int i = 0; i < n; i++)
            if (cls[i] == C_FOP) {
                long long k = cnt[i], want = k * before[i] + k * (k - 1) / 2;
                CHECK(fsum[i] == want, "round %d (%s): the %lld Fetch_and_op on rank %d int %d fetched "
                      "values summing to %lld, expected %lld (each value exactly once)",
                      round, mode_name[mode], k, i / W, i % W, fsum[i], want);
            }
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
        for (int l = 0; l < W; l++)
            CHECK(mem[w][l] == mdl[rank_ * W + l], "round %d (%s, %s window): int %d is %d, model %d "
                  "(class %d)", round, mode_name[mode], wname[w], l, mem[w][l],
                  mdl[rank_ * W + l], cls[rank_ * W + l]);
        MPI_OK(MPI_Win_unlock(rank_, win));
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Allreduce(MPI_IN_PLACE, &total_ops, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (rank_ == 0) printf("seed %llu: %d rounds, %lld one-sided operations checked\n",
                           (unsigned long long)seed, rounds, total_ops);
    MPI_Group_free(&world);
    MPI_OK(MPI_Win_detach(wins[2], dheap));
    for (int k = 0; k < nwins; k++) MPI_OK(MPI_Win_free(&wins[k]));
    free(heap);
    free(dheap);
    free(dbase);
    for (int k = 1; k < 4; k++) free(models[k]);
    free(model);
    free(before);
    free(cls);
    free(cnt);
    free(fsum);
    free(mine);
    return rt_finish();
}
