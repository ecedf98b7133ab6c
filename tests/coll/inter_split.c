/* inter_split.c — MPI_Comm_split and MPI_Comm_create given an intercommunicator: the two
 * groups (uneven: a third of the ranks against the rest) split with several color patterns
 * (one color, parity, a color present on one side only, MPI_UNDEFINED for some, keys that
 * reverse the order), and each side names a subgroup (in a chosen order, or an empty one).
 * Every result is checked against the expected local and remote groups (ranks, order,
 * MPI_COMM_NULL where a side is empty), then used: every process sends to every remote one,
 * an Allreduce and a Bcast with MPI_ROOT run on it.  Comm_create_group is refused on an
 * intercommunicator (it is defined on intracommunicators only). */
#include "../common/mpi_test.h"

static int nlow;                  /* world ranks [0, nlow) are the low group */
static MPI_Comm inter;
static MPI_Group world_group;

static int is_low(int w) { return w < nlow; }
static int color(int pat, int w);
static int key(int pat, int w);

/* the world ranks of group g (of some communicator) in g's order */
static void world_ranks(MPI_Group g, int n, int *out)
{
    int *in = xmalloc(sizeof(int) * (size_t)(n + 1));
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, n, in, world_group, out);
    free(in);
}

/* c must be an intercommunicator whose local group is lw[0..nl) (this process at lw[me]) and
 * remote group rw[0..nr), or MPI_COMM_NULL when expect_null */
static void verify(MPI_Comm c, int expect_null, const int *lw, int nl, const int *rw, int nr,
                   const char *what)
{
    if (expect_null) {
        CHECK(c == MPI_COMM_NULL, "%s: expected MPI_COMM_NULL", what);
        return;
    }
    CHECK(c != MPI_COMM_NULL, "%s: got MPI_COMM_NULL", what);
    int flag = 0, r, s, rs;
    MPI_Comm_test_inter(c, &flag);
    CHECK(flag, "%s: not an intercommunicator", what);
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    MPI_Comm_remote_size(c, &rs);
    CHECK(s == nl && rs == nr, "%s: sizes %d/%d, expected %d/%d", what, s, rs, nl, nr);
    CHECK(lw[r] == rank_, "%s: local rank %d is world %d, not me (%d)", what, r, lw[r], rank_);
    int *got = xmalloc(sizeof(int) * (size_t)(nl + nr + 1));
    MPI_Group g;
    MPI_Comm_group(c, &g);
    world_ranks(g, nl, got);
    MPI_Group_free(&g);
    for (int i = 0; i < nl; i++)
        CHECK(got[i] == lw[i], "%s: local %d is world %d, expected %d", what, i, got[i], lw[i]);
    MPI_Comm_remote_group(c, &g);
    world_ranks(g, nr, got);
    MPI_Group_free(&g);
    for (int i = 0; i < nr; i++)
        CHECK(got[i] == rw[i], "%s: remote %d is world %d, expected %d", what, i, got[i], rw[i]);
    /* every process sends its world rank to every remote one */
    MPI_Request *rq = xmalloc(sizeof *rq * 2 * (size_t)nr);
    int me = rank_;
    for (int j = 0; j < nr; j++) {
        MPI_Irecv(&got[j], 1, MPI_INT, j, 5, c, &rq[2 * j]);
        MPI_Isend(&me, 1, MPI_INT, j, 5, c, &rq[2 * j + 1]);
    }
    MPI_Waitall(2 * nr, rq, MPI_STATUSES_IGNORE);
    for (int j = 0; j < nr; j++)
        CHECK(got[j] == rw[j], "%s: remote %d sent %d, expected %d", what, j, got[j], rw[j]);
    free(rq);
    /* Allreduce: the sum of the remote group's world ranks */
    long mine = rank_, sum = -1, want = 0;
    for (int j = 0; j < nr; j++)
        want += rw[j];
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, c);
    CHECK(sum == want, "%s: Allreduce %ld, expected %ld", what, sum, want);
    /* Bcast from the low side's last local rank */
    int v = -1, root_w = is_low(rank_) ? lw[nl - 1] : rw[nr - 1];
    if (is_low(rank_)) {
        v = 1000 + rank_;
        MPI_Bcast(&v, 1, MPI_INT, r == nl - 1 ? MPI_ROOT : MPI_PROC_NULL, c);
    } else {
        MPI_Bcast(&v, 1, MPI_INT, nr - 1, c);
        CHECK(v == 1000 + root_w, "%s: Bcast got %d, expected %d", what, v, 1000 + root_w);
    }
    free(got);
}

struct pk { int key, w; };
static int by_key(const void *a, const void *b)
{
    const struct pk *x = a, *y = b;
    return x->key != y->key ? (x->key < y->key ? -1 : 1) : (x->w < y->w ? -1 : x->w > y->w);
}

/* the world ranks of side low (1) / high (0) with color col, ordered by (key, world rank) */
static int members(int low, int pat, int col, int *out)
{
    struct pk *m = xmalloc(sizeof *m * (size_t)size_);
    int k = 0;
    for (int w = 0; w < size_; w++)
        if (is_low(w) == low && color(pat, w) == col && col != MPI_UNDEFINED)
            m[k++] = (struct pk){key(pat, w), w};
    qsort(m, (size_t)k, sizeof *m, by_key);
    for (int i = 0; i < k; i++)
        out[i] = m[i].w;
    free(m);
    return k;
}

static int color(int pat, int w)
{
    switch (pat) {
    case 0: return 0;                                   /* everybody together */
    case 1: return w % 2;                               /* parity */
    case 2: return is_low(w) ? w % 2 : 0;               /* color 1 on the low side only */
    case 3: return w % 3 == 1 ? MPI_UNDEFINED : w % 3;  /* some stay out */
    default: return is_low(w) ? 7 : 8;                  /* no color on both sides */
    }
}

static int key(int pat, int w)
{
    switch (pat) {
    case 0: return -w;       /* reversed */
    case 1: return w % 3;    /* ties broken by the old rank */
    case 3: return 5;        /* all equal: the old order */
    default: return (w * 7) % 5;
    }
}

static void split_patterns(void)
{
    int *lw = xmalloc(sizeof(int) * (size_t)size_), *rw = xmalloc(sizeof(int) * (size_t)size_);
    for (int pat = 0; pat < 5; pat++) {
        int col = color(pat, rank_), low = is_low(rank_);
        MPI_Comm c;
        MPI_Comm_split(inter, col, key(pat, rank_), &c);
        int nl = members(low, pat, col, lw), nr = members(!low, pat, col, rw);
        char what[64];
        snprintf(what, sizeof what, "split pattern %d", pat);
        verify(c, col == MPI_UNDEFINED || nr == 0, lw, nl, rw, nr, what);
        if (c != MPI_COMM_NULL) {
            /* a split of the result again (one color): the same groups */
            MPI_Comm c2;
            MPI_Comm_split(c, 3, key(pat, rank_), &c2);
            verify(c2, 0, lw, nl, rw, nr, "split of a split");
            MPI_Comm_free(&c2);
            MPI_Comm_free(&c);
        }
    }
    free(lw);
    free(rw);
}

/* Comm_create: each side names a subgroup of its local group (the order of the group sets
 * the new ranks); pattern 2 gives the empty group on the high side */
static void create_patterns(void)
{
    int low = is_low(rank_), nloc = low ? nlow : size_ - nlow, base = low ? 0 : nlow;
    int *sel = xmalloc(sizeof(int) * (size_t)size_ * 2), *lw = sel + size_;
    MPI_Group lg;
    MPI_Comm_group(inter, &lg);
    for (int pat = 0; pat < 3; pat++) {
        /* the subgroup of side s as local ranks, in order */
        int n[2], sub[2][64];
        for (int s = 0; s < 2; s++) { /* s = 1: low side */
            int ns = s ? nlow : size_ - nlow;
            n[s] = 0;
            for (int i = ns - 1; i >= 0; i--) { /* reversed order */
                if (pat == 0 || (pat == 1 && i % 2 == 0) || (pat == 2 && s == 1 && i != 1))
                    sub[s][n[s]++] = i;
            }
        }
        int k = n[low];
        for (int i = 0; i < k; i++)
            sel[i] = sub[low][i];
        MPI_Group g;
        MPI_Group_incl(lg, k, sel, &g);
        MPI_Comm c;
        MPI_Comm_create(inter, g, &c);
        MPI_Group_free(&g);
        int in = 0;
        for (int i = 0; i < k; i++) {
            lw[i] = base + sub[low][i];
            if (lw[i] == rank_)
                in = 1;
        }
        int rbase = low ? nlow : 0, nr = n[!low];
        int rw[64];
        for (int i = 0; i < nr; i++)
            rw[i] = rbase + sub[!low][i];
        char what[64];
        snprintf(what, sizeof what, "create pattern %d", pat);
        verify(c, !in || nr == 0 || k == 0, lw, k, rw, nr, what);
        if (c != MPI_COMM_NULL)
            MPI_Comm_free(&c);
    }
    (void)nloc;
    MPI_Group_free(&lg);
    free(sel);
}

static void create_group_refused(void)
{
    MPI_Group g;
    MPI_Comm c = MPI_COMM_NULL;
    MPI_Comm_group(inter, &g);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
    int rc = MPI_Comm_create_group(inter, g, 3, &c);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_COMM, "Comm_create_group on an intercommunicator: class %d", cls);
    MPI_Comm_set_errhandler(inter, MPI_ERRORS_ARE_FATAL);
    MPI_Group_free(&g);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    if (size_ >= 2 && size_ <= 64) {
        nlow = size_ / 3 > 0 ? size_ / 3 : 1;
        MPI_Comm half;
        MPI_Comm_split(MPI_COMM_WORLD, is_low(rank_), rank_, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, is_low(rank_) ? nlow : 0, 9, &inter);
        MPI_Comm_free(&half);
        split_patterns();
        create_patterns();
        create_group_refused();
        MPI_Comm_free(&inter);
    }
    MPI_Group_free(&world_group);
    return finish();
}
