/* rma_ops.c — every one-sided communication routine under every synchronisation mode and
 * every window flavour (create, allocate, dynamic, and allocate_shared when all ranks share a
 * node).
 *
 * Each rank is origin towards every rank (itself included).  In each target's window, origin r
 * owns a slot of SLOT ints where it performs, in one epoch: Put, Accumulate(SUM), Get_accumulate,
 * Fetch_and_op (SUM and NO_OP), Compare_and_swap (succeeding and failing), Accumulate(REPLACE)
 * and, in passive-target epochs, Rput / Raccumulate / Rget_accumulate; Get and Rget read a
 * read-only region.  Modes: fence; post/start/complete/wait; lock exclusive and shared per target;
 * lock_all; lock_all + flush per target; lock_all + flush_all with the target checking its memory
 * inside the epoch after MPI_Win_sync; lock + flush_local (origin buffers are overwritten after
 * it); lock_all + flush_local_all.  Fetched values are checked at the origin after the epoch (or
 * right after the flush that completes them), window contents at the target after the epoch. */
#include "rma_test.h"

#define SLOT 20
#define RO 8
enum { F_CREATE, F_ALLOCATE, F_DYNAMIC, F_SHARED, NFLAV };
static const char *flav_name[] = {"create", "allocate", "dynamic", "allocate_shared"};
enum {
    M_FENCE, M_PSCW, M_LOCK_EXCL, M_LOCK_SHARED, M_LOCKALL, M_LOCKALL_FLUSH, M_LOCKALL_FLUSHALL,
    M_LOCK_FLUSHLOCAL, M_LOCKALL_FLUSHLOCALALL, NMODE
};
static const char *mode_name[] = {"fence", "pscw", "lock-exclusive", "lock-shared", "lock_all",
                                  "lock_all+flush", "lock_all+flush_all+win_sync",
                                  "lock+flush_local", "lock_all+flush_local_all"};

static int flav, mode, round_;
static int nwin;          /* ints in the main region: size*SLOT (+RO unless dynamic) */
static int *mem, *romem;  /* my window memory (romem = read-only region) */
static MPI_Aint *bases, *robases; /* dynamic: every rank's attached addresses */
static MPI_Win win;

static int init_val(int t, int i) { return 1000 * t + i + 7 * round_ + 1; }
static int op_val(int r, int t, int k) { return 100000 * (r + 1) + 1000 * t + 10 * k + round_; }

/* displacement of int index i in target t's window (indices >= size*SLOT are the RO region) */
static MPI_Aint disp(int t, int i)
{
    int ro0 = size_ * SLOT;
    if (flav != F_DYNAMIC) return i;
    if (i >= ro0) return robases[t] + (MPI_Aint)(i - ro0) * (MPI_Aint)sizeof(int);
    return bases[t] + (MPI_Aint)i * (MPI_Aint)sizeof(int);
}
static int *local_int(int i) { return i >= size_ * SLOT ? &romem[i - size_ * SLOT] : &mem[i]; }

struct origin { /* per-target origin buffers */
    int put[4], acc[4], gacc, gacc_res, fop, fop_res, cas_new, cas_cmp, cas_res, cas2_cmp,
        cas2_res, noop_res, repl, rput[2], racc, rgacc, rgacc_res, get[4], rget[2];
    MPI_Request req[5];
    int nreq;
};
static struct origin *org;

static int passive(void) { return mode >= M_LOCK_EXCL; }

static void issue(int t)
{
    struct origin *o = &org[t];
    int b = rank_ * SLOT, ro0 = size_ * SLOT;
    for (int j = 0; j < 4; j++) o->put[j] = op_val(rank_, t, j);
    for (int j = 0; j < 4; j++) o->acc[j] = op_val(rank_, t, 4 + j);
    o->gacc = op_val(rank_, t, 8);
    o->fop = op_val(rank_, t, 9);
    o->cas_new = op_val(rank_, t, 10);
    o->cas_cmp = init_val(t, b + 10);
    o->cas2_cmp = init_val(t, b + 11) + 1;
    o->repl = op_val(rank_, t, 13);
    o->rput[0] = op_val(rank_, t, 14);
    o->rput[1] = op_val(rank_, t, 15);
    o->racc = op_val(rank_, t, 16);
    o->rgacc = op_val(rank_, t, 17);
    o->gacc_res = o->fop_res = o->cas_res = o->cas2_res = o->noop_res = o->rgacc_res = -1;
    for (int j = 0; j < 4; j++) o->get[j] = -1;
    o->rget[0] = o->rget[1] = -1;
    o->nreq = 0;

    MPI_OK(MPI_Put(o->put, 4, MPI_INT, t, disp(t, b), 4, MPI_INT, win));
    MPI_OK(MPI_Accumulate(o->acc, 4, MPI_INT, t, disp(t, b + 4), 4, MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Get_accumulate(&o->gacc, 1, MPI_INT, &o->gacc_res, 1, MPI_INT, t, disp(t, b + 8), 1,
                              MPI_INT, MPI_SUM, win));
    MPI_OK(MPI_Fetch_and_op(&o->fop, &o->fop_res, MPI_INT, t, disp(t, b + 9), MPI_SUM, win));
    MPI_OK(MPI_Compare_and_swap(&o->cas_new, &o->cas_cmp, &o->cas_res, MPI_INT, t, disp(t, b + 10),
                                win));
    MPI_OK(MPI_Compare_and_swap(&o->cas_new, &o->cas2_cmp, &o->cas2_res, MPI_INT, t,
                                disp(t, b + 11), win));
    MPI_OK(MPI_Fetch_and_op(NULL, &o->noop_res, MPI_INT, t, disp(t, b + 12), MPI_NO_OP, win));
    MPI_OK(MPI_Accumulate(&o->repl, 1, MPI_INT, t, disp(t, b + 13), 1, MPI_INT, MPI_REPLACE, win));
    MPI_OK(MPI_Get(o->get, 4, MPI_INT, t, disp(t, ro0 + rank_ % 4), 4, MPI_INT, win));
    if (passive()) {
        MPI_OK(MPI_Rput(o->rput, 2, MPI_INT, t, disp(t, b + 14), 2, MPI_INT, win, &o->req[0]));
        MPI_OK(MPI_Raccumulate(&o->racc, 1, MPI_INT, t, disp(t, b + 16), 1, MPI_INT, MPI_SUM, win,
                               &o->req[1]));
        MPI_OK(MPI_Rget_accumulate(&o->rgacc, 1, MPI_INT, &o->rgacc_res, 1, MPI_INT, t,
                                   disp(t, b + 17), 1, MPI_INT, MPI_SUM, win, &o->req[2]));
        MPI_OK(MPI_Rget(o->rget, 2, MPI_INT, t, disp(t, ro0 + 4), 2, MPI_INT, win, &o->req[3]));
        o->nreq = 4;
    } else {
        MPI_OK(MPI_Put(o->rput, 2, MPI_INT, t, disp(t, b + 14), 2, MPI_INT, win));
        MPI_OK(MPI_Accumulate(&o->racc, 1, MPI_INT, t, disp(t, b + 16), 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Get_accumulate(&o->rgacc, 1, MPI_INT, &o->rgacc_res, 1, MPI_INT, t,
                                  disp(t, b + 17), 1, MPI_INT, MPI_SUM, win));
        MPI_OK(MPI_Get(o->rget, 2, MPI_INT, t, disp(t, ro0 + 4), 2, MPI_INT, win));
    }
}

#define WHERE "%s/%s round %d target %d: "
#define WARGS flav_name[flav], mode_name[mode], round_, t

/* the origin-side results of target t (complete once the op completed at the origin) */
static void check_fetched(int t, int gets_only)
{
    struct origin *o = &org[t];
    int b = rank_ * SLOT, ro0 = size_ * SLOT;
    for (int j = 0; j < 4; j++)
        CHECK(o->get[j] == init_val(t, ro0 + rank_ % 4 + j), WHERE "Get[%d] = %d, expected %d",
              WARGS, j, o->get[j], init_val(t, ro0 + rank_ % 4 + j));
    for (int j = 0; j < 2; j++)
        CHECK(o->rget[j] == init_val(t, ro0 + 4 + j), WHERE "Rget[%d] = %d, expected %d", WARGS, j,
              o->rget[j], init_val(t, ro0 + 4 + j));
    if (gets_only) return;
    CHECK(o->gacc_res == init_val(t, b + 8), WHERE "Get_accumulate fetched %d, expected %d", WARGS,
          o->gacc_res, init_val(t, b + 8));
    CHECK(o->fop_res == init_val(t, b + 9), WHERE "Fetch_and_op fetched %d, expected %d", WARGS,
          o->fop_res, init_val(t, b + 9));
    CHECK(o->cas_res == init_val(t, b + 10), WHERE "Compare_and_swap fetched %d, expected %d",
          WARGS, o->cas_res, init_val(t, b + 10));
    CHECK(o->cas2_res == init_val(t, b + 11), WHERE "failing Compare_and_swap fetched %d, "
          "expected %d", WARGS, o->cas2_res, init_val(t, b + 11));
    CHECK(o->noop_res == init_val(t, b + 12), WHERE "Fetch_and_op(NO_OP) fetched %d, expected %d",
          WARGS, o->noop_res, init_val(t, b + 12));
    CHECK(o->rgacc_res == init_val(t, b + 17), WHERE "Rget_accumulate fetched %d, expected %d",
          WARGS, o->rgacc_res, init_val(t, b + 17));
}

/* my window memory after every origin's epoch completed */
static void check_target(const char *when)
{
    int t = rank_;
    for (int r = 0; r < size_; r++) {
        int b = r * SLOT;
        int exp[SLOT];
        for (int k = 0; k < SLOT; k++) exp[k] = init_val(t, b + k);
        for (int j = 0; j < 4; j++) exp[j] = op_val(r, t, j);
        for (int j = 4; j < 8; j++) exp[j] += op_val(r, t, j);
        exp[8] += op_val(r, t, 8);
        exp[9] += op_val(r, t, 9);
        exp[10] = op_val(r, t, 10);
        exp[13] = op_val(r, t, 13);
        exp[14] = op_val(r, t, 14);
        exp[15] = op_val(r, t, 15);
        exp[16] += op_val(r, t, 16);
        exp[17] += op_val(r, t, 17);
        for (int k = 0; k < SLOT; k++)
            CHECK(mem[b + k] == exp[k], WHERE "%s: slot of origin %d, int %d is %d, expected %d",
                  WARGS, when, r, k, mem[b + k], exp[k]);
    }
    for (int i = 0; i < RO; i++)
        CHECK(romem[i] == init_val(t, size_ * SLOT + i), WHERE "read-only int %d changed to %d",
              WARGS, i, romem[i]);
}

static void wait_reqs(int t)
{
    for (int i = 0; i < org[t].nreq; i++) MPI_OK(MPI_Wait(&org[t].req[i], MPI_STATUS_IGNORE));
    org[t].nreq = 0;
}

static void one_round(MPI_Group world)
{
    /* (re)initialise my memory for this round */
    MPI_OK(MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank_, 0, win));
    for (int i = 0; i < size_ * SLOT + RO; i++) *local_int(i) = init_val(rank_, i);
    MPI_OK(MPI_Win_unlock(rank_, win));
    MPI_Barrier(MPI_COMM_WORLD);

    int checked = 0;
    switch (mode) {
    case M_FENCE:
        MPI_OK(MPI_Win_fence(0, win));
        for (int t = 0; t < size_; t++) issue(t);
        MPI_OK(MPI_Win_fence(0, win));
        break;
    case M_PSCW:
        MPI_OK(MPI_Win_post(world, 0, win));
        MPI_OK(MPI_Win_start(world, 0, win));
        for (int t = 0; t < size_; t++) issue((t + rank_) % size_);
        MPI_OK(MPI_Win_complete(win));
        MPI_OK(MPI_Win_wait(win));
        break;
    case M_LOCK_EXCL:
    case M_LOCK_SHARED:
        for (int k = 0; k < size_; k++) {
            int t = (k + rank_) % size_;
            MPI_OK(MPI_Win_lock(mode == M_LOCK_EXCL ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED, t, 0,
                                win));
            issue(t);
            wait_reqs(t);
            MPI_OK(MPI_Win_unlock(t, win));
        }
        break;
    case M_LOCKALL:
        MPI_OK(MPI_Win_lock_all(0, win));
        for (int t = 0; t < size_; t++) issue(t);
        for (int t = 0; t < size_; t++) wait_reqs(t);
        MPI_OK(MPI_Win_unlock_all(win));
        break;
    case M_LOCKALL_FLUSH:
        MPI_OK(MPI_Win_lock_all(0, win));
        for (int k = 0; k < size_; k++) {
            int t = (k + rank_) % size_;
            issue(t);
            wait_reqs(t);
            MPI_OK(MPI_Win_flush(t, win));
            check_fetched(t, 0);
        }
        MPI_OK(MPI_Win_unlock_all(win));
        checked = 1;
        break;
    case M_LOCKALL_FLUSHALL:
        MPI_OK(MPI_Win_lock_all(0, win));
        for (int t = 0; t < size_; t++) issue(t);
        for (int t = 0; t < size_; t++) wait_reqs(t);
        MPI_OK(MPI_Win_flush_all(win));
        for (int t = 0; t < size_; t++) check_fetched(t, 0);
        checked = 1;
        MPI_Barrier(MPI_COMM_WORLD); /* every origin's updates are complete at every target */
        MPI_OK(MPI_Win_sync(win));
        check_target("inside the epoch after MPI_Win_sync");
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_OK(MPI_Win_unlock_all(win));
        break;
    case M_LOCK_FLUSHLOCAL:
    case M_LOCKALL_FLUSHLOCALALL:
        if (mode == M_LOCKALL_FLUSHLOCALALL) MPI_OK(MPI_Win_lock_all(0, win));
        for (int k = 0; k < size_; k++) {
            int t = (k + rank_) % size_;
            if (mode == M_LOCK_FLUSHLOCAL) MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, t, 0, win));
            issue(t);
            if (mode == M_LOCK_FLUSHLOCAL) {
                MPI_OK(MPI_Win_flush_local(t, win));
                check_fetched(t, 1); /* gets are complete locally */
                wait_reqs(t);
                /* the origin buffers may be reused now: what the target sees must not change */
                memset(org[t].put, 0xEE, sizeof org[t].put);
                memset(org[t].acc, 0xEE, sizeof org[t].acc);
                org[t].repl = org[t].rput[0] = org[t].rput[1] = -5;
                MPI_OK(MPI_Win_unlock(t, win));
                check_fetched(t, 0);
            }
        }
        if (mode == M_LOCKALL_FLUSHLOCALALL) {
            MPI_OK(MPI_Win_flush_local_all(win));
            for (int t = 0; t < size_; t++) {
                check_fetched(t, 1);
                wait_reqs(t);
                memset(org[t].put, 0xEE, sizeof org[t].put);
                memset(org[t].acc, 0xEE, sizeof org[t].acc);
                org[t].repl = org[t].rput[0] = org[t].rput[1] = -5;
            }
            MPI_OK(MPI_Win_unlock_all(win));
        }
        break;
    }
    if (!checked)
        for (int t = 0; t < size_; t++) check_fetched(t, 0);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, rank_, 0, win));
    check_target("after the epoch");
    MPI_OK(MPI_Win_unlock(rank_, win));
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    rt_start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Group world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    org = rt_malloc(sizeof *org * (size_t)size_);
    bases = rt_malloc(sizeof *bases * (size_t)size_);
    robases = rt_malloc(sizeof *robases * (size_t)size_);
    nwin = size_ * SLOT + RO;
    for (flav = 0; flav < NFLAV; flav++) {
        int *heap = NULL, *ro_heap = NULL;
        MPI_Aint bytes = (MPI_Aint)nwin * (MPI_Aint)sizeof(int);
        if (flav == F_CREATE) {
            heap = rt_malloc((size_t)bytes);
            MPI_OK(MPI_Win_create(heap, bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            mem = heap;
        } else if (flav == F_ALLOCATE) {
            MPI_OK(MPI_Win_allocate(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        } else if (flav == F_SHARED) {
            MPI_Comm node;
            int nsize;
            MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
            MPI_Comm_size(node, &nsize);
            MPI_Comm_free(&node);
            if (nsize != size_) continue; /* ranks on several hosts: no shared window over all */
            MPI_OK(MPI_Win_allocate_shared(bytes, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &win));
        } else {
            MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
            heap = rt_malloc((size_t)size_ * SLOT * sizeof(int));
            ro_heap = rt_malloc(RO * sizeof(int));
            MPI_OK(MPI_Win_attach(win, heap, (MPI_Aint)size_ * SLOT * (MPI_Aint)sizeof(int)));
            MPI_OK(MPI_Win_attach(win, ro_heap, RO * (MPI_Aint)sizeof(int)));
            MPI_Aint a, ra;
            MPI_Get_address(heap, &a);
            MPI_Get_address(ro_heap, &ra);
            MPI_Allgather(&a, 1, MPI_AINT, bases, 1, MPI_AINT, MPI_COMM_WORLD);
            MPI_Allgather(&ra, 1, MPI_AINT, robases, 1, MPI_AINT, MPI_COMM_WORLD);
            mem = heap;
        }
        romem = flav == F_DYNAMIC ? ro_heap : mem + size_ * SLOT;
        MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
        for (mode = 0; mode < NMODE; mode++) {
            round_ = flav * NMODE + mode;
            one_round(world);
        }
        if (flav == F_DYNAMIC) {
            MPI_OK(MPI_Win_detach(win, ro_heap));
            MPI_OK(MPI_Win_detach(win, heap));
        }
        MPI_OK(MPI_Win_free(&win));
        free(heap);
        free(ro_heap);
    }
    MPI_Group_free(&world);
    free(org);
    free(bases);
    free(robases);
    return rt_finish();
}
