/* comm_idup.c — MPI_Comm_idup and MPI_Comm_idup_with_info: non-blocking (rank 0 calls it
 * only after receiving from ranks that already started theirs and wait in Ssend), several
 * outstanding at once with non-blocking and blocking collectives on the parent in between,
 * started in different orders on different ranks (the context ids must still come out
 * distinct), mixed with a blocking Comm_dup and Comm_create_group while they are pending,
 * overlapping pairs of communicators, and of an intercommunicator (with attributes copied).
 * Every new communicator is checked by messages on it that must not cross into the others,
 * and a collective. */
#include "../common/mpi_test.h"

#define K 6

/* c is a working copy of parent: congruent, and its messages stay on it */
static void check_dups(MPI_Comm parent, MPI_Comm *d, int k, const char *what)
{
    int n, r, inter = 0;
    MPI_Comm_test_inter(parent, &inter);
    MPI_Comm_rank(parent, &r);
    if (inter)
        MPI_Comm_remote_size(parent, &n);
    else
        MPI_Comm_size(parent, &n);
    for (int i = 0; i < k; i++) {
        int res = -1, fl = -1;
        MPI_Comm_compare(parent, d[i], &res);
        CHECK(res == MPI_CONGRUENT, "%s %d: compare gives %d", what, i, res);
        MPI_Comm_test_inter(d[i], &fl);
        CHECK(fl == inter, "%s %d: test_inter %d", what, i, fl);
    }
    /* to the next peer on every copy, received in the reverse order */
    int to = inter ? r % n : (r + 1) % n, from = inter ? -1 : (r + n - 1) % n;
    int *got = xmalloc(sizeof(int) * 2 * (size_t)k), *out = got + k;
    MPI_Request *rq = xmalloc(sizeof *rq * 2 * (size_t)k + 2 * sizeof *rq * (size_t)n * k);
    int nrq = 0;
    if (inter) {
        /* remote ranks j with j % lsize == my rank send to me */
        int ls;
        MPI_Comm_size(parent, &ls);
        int *vals = xmalloc(sizeof(int) * (size_t)n * k + sizeof(int));
        for (int i = k - 1; i >= 0; i--)
            for (int j = r; j < n; j += ls)
                MPI_Irecv(&vals[i * n + j], 1, MPI_INT, j, 1, d[i], &rq[nrq++]);
        for (int i = 0; i < k; i++) {
            out[i] = 1000 * i + r;
            MPI_Isend(&out[i], 1, MPI_INT, to, 1, d[i], &rq[nrq++]);
        }
        (void)from;
        /* remote rank j sends to my rank (j % n_remote_of_them) == r: both directions use
         * rank % (size of the other group); only ranks below the other group's size send */
        MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE);
        for (int i = 0; i < k; i++)
            for (int j = r; j < n; j += ls)
                CHECK(vals[i * n + j] == 1000 * i + j, "%s: copy %d from remote %d: %d", what,
                      i, j, vals[i * n + j]);
        free(vals);
    } else {
        for (int i = k - 1; i >= 0; i--)
            MPI_Irecv(&got[i], 1, MPI_INT, from, 1, d[i], &rq[nrq++]);
        for (int i = 0; i < k; i++) {
            out[i] = 1000 * i + r;
            MPI_Isend(&out[i], 1, MPI_INT, to, 1, d[i], &rq[nrq++]);
        }
        MPI_Waitall(nrq, rq, MPI_STATUSES_IGNORE);
        for (int i = 0; i < k; i++)
            CHECK(got[i] == 1000 * i + from, "%s: copy %d from %d: %d", what, i, from, got[i]);
    }
    for (int i = 0; i < k; i++) {
        int one = 1, sum = -1;
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, d[i]);
        CHECK(sum == n, "%s %d: Allreduce %d, expected %d", what, i, sum, n);
    }
    free(rq);
    free(got);
}

/* rank 0 enters only after every other rank has started its idup and waits in Ssend */
static void not_blocking(void)
{
    MPI_Comm d;
    MPI_Request r;
    int v = rank_;
    if (rank_ == 0) {
        for (int i = 1; i < size_; i++) {
            MPI_Recv(&v, 1, MPI_INT, i, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(v == i, "Recv from %d got %d", i, v);
        }
        MPI_Comm_idup(MPI_COMM_WORLD, &d, &r);
    } else {
        MPI_Comm_idup(MPI_COMM_WORLD, &d, &r);
        MPI_Ssend(&v, 1, MPI_INT, 0, 0, MPI_COMM_WORLD);
    }
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    check_dups(MPI_COMM_WORLD, &d, 1, "idup while rank 0 receives");
    MPI_Comm_free(&d);
}

/* K idups of one parent with an Iallreduce and a blocking Allreduce on it in between */
static void many_outstanding(MPI_Comm parent, const char *what)
{
    MPI_Comm d[K];
    MPI_Request rq[2 * K];
    int in[K], out[K], n, inter = 0;
    MPI_Comm_test_inter(parent, &inter); /* the sums run over the remote group */
    if (inter)
        MPI_Comm_remote_size(parent, &n);
    else
        MPI_Comm_size(parent, &n);
    for (int i = 0; i < K; i++) {
        in[i] = i + 1;
        MPI_Iallreduce(&in[i], &out[i], 1, MPI_INT, MPI_SUM, parent, &rq[2 * i]);
        MPI_Comm_idup(parent, &d[i], &rq[2 * i + 1]);
        if (i == K / 2) {
            int one = 1, s = 0;
            MPI_Allreduce(&one, &s, 1, MPI_INT, MPI_SUM, parent);
            CHECK(s == n, "%s: blocking Allreduce among idups: %d", what, s);
        }
    }
    MPI_Waitall(2 * K, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < K; i++)
        CHECK(out[i] == n * (i + 1), "%s: Iallreduce %d gives %d", what, i, out[i]);
    check_dups(parent, d, K, what);
    for (int i = 0; i < K; i++)
        MPI_Comm_free(&d[i]);
}

/* two parents, idups started in opposite orders on even and odd ranks, a blocking Comm_dup
 * and a Comm_create_group while they are outstanding */
static void crossed(void)
{
    MPI_Comm a, b, da[2], db[2], x, g;
    MPI_Request rq[4];
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_tag", "true");
    for (int i = 0; i < 2; i++) {
        if (rank_ % 2) {
            MPI_Comm_idup(b, &db[i], &rq[2 * i]);
            MPI_Comm_idup_with_info(a, info, &da[i], &rq[2 * i + 1]);
        } else {
            MPI_Comm_idup_with_info(a, info, &da[i], &rq[2 * i + 1]);
            MPI_Comm_idup(b, &db[i], &rq[2 * i]);
        }
    }
    MPI_Info_free(&info);
    MPI_Comm_dup(MPI_COMM_WORLD, &x);
    MPI_Group wg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Comm_create_group(MPI_COMM_WORLD, wg, 4, &g);
    MPI_Group_free(&wg);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    MPI_Comm all[6] = {da[0], da[1], db[0], db[1], x, g};
    check_dups(MPI_COMM_WORLD, all, 6, "crossed idups");
    MPI_Info got;
    char v[16] = "";
    int flag = 0;
    MPI_Comm_get_info(da[0], &got);
    MPI_Info_get(got, "mpi_assert_no_any_tag", (int)sizeof v - 1, v, &flag);
    MPI_Info_free(&got);
    CHECK(flag && strcmp(v, "true") == 0, "Comm_idup_with_info keeps the info");
    for (int i = 0; i < 6; i++)
        MPI_Comm_free(&all[i]);
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
}

/* every process is in two pair communicators and idups both before waiting */
static void overlapping_pairs(void)
{
    if (size_ < 3)
        return;
    MPI_Comm mine = MPI_COMM_NULL, prev = MPI_COMM_NULL, tmp;
    for (int i = 0; i < size_; i++) {
        int in = rank_ == i || rank_ == (i + 1) % size_;
        MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, rank_ == i ? 0 : 1, &tmp);
        if (rank_ == i)
            mine = tmp;
        else if (in)
            prev = tmp;
    }
    MPI_Comm d[2];
    MPI_Request rq[2];
    MPI_Comm_idup(mine, &d[0], &rq[0]);
    MPI_Comm_idup(prev, &d[1], &rq[1]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    /* checked pair by pair in one global order (the checks block) */
    for (int i = 0; i < size_; i++) {
        if (i == rank_)
            check_dups(mine, &d[0], 1, "overlapping pair (first)");
        if (i == (rank_ + size_ - 1) % size_)
            check_dups(prev, &d[1], 1, "overlapping pair (second)");
    }
    MPI_Comm_free(&d[0]);
    MPI_Comm_free(&d[1]);
    MPI_Comm_free(&mine);
    MPI_Comm_free(&prev);
}

static int copies;
static int copy_fn(MPI_Comm c, int kv, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)kv, (void)extra;
    copies++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* an intercommunicator (a third against the rest): idup while the leaders receive first */
static void of_intercomm(void)
{
    if (size_ < 2)
        return;
    int nlow = size_ / 3 > 0 ? size_ / 3 : 1, low = rank_ < nlow;
    MPI_Comm half, inter;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank_, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? nlow : 0, 11, &inter);
    int kv;
    static int attr_val = 77;
    MPI_Comm_create_keyval(copy_fn, MPI_COMM_NULL_DELETE_FN, &kv, NULL);
    MPI_Comm_set_attr(inter, kv, &attr_val);
    int lr, rs;
    MPI_Comm_rank(inter, &lr);
    MPI_Comm_remote_size(inter, &rs);
    MPI_Comm d[3];
    MPI_Request rq[3];
    int v = lr;
    if (lr == 0) {
        for (int j = 1; j < rs; j++) {
            MPI_Recv(&v, 1, MPI_INT, j, 0, inter, MPI_STATUS_IGNORE);
            CHECK(v == j, "intercomm Recv from %d got %d", j, v);
        }
        for (int i = 0; i < 3; i++)
            MPI_Comm_idup(inter, &d[i], &rq[i]);
    } else {
        for (int i = 0; i < 3; i++)
            MPI_Comm_idup(inter, &d[i], &rq[i]);
        MPI_Ssend(&v, 1, MPI_INT, 0, 0, inter);
    }
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    CHECK(copies == 3, "attribute copied %d times, expected 3", copies);
    for (int i = 0; i < 3; i++) {
        void *p = NULL;
        int flag = 0;
        MPI_Comm_get_attr(d[i], kv, &p, &flag);
        CHECK(flag && p == &attr_val, "idup of an intercommunicator keeps the attribute");
    }
    check_dups(inter, d, 3, "idup of an intercommunicator");
    for (int i = 0; i < 3; i++)
        MPI_Comm_free(&d[i]);
    MPI_Comm_free_keyval(&kv);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    not_blocking();
    many_outstanding(MPI_COMM_WORLD, "idups of WORLD");
    crossed();
    overlapping_pairs();
    of_intercomm();
    if (size_ >= 2) {
        /* outstanding idups of an intercommunicator with collectives on it in between */
        int nlow = size_ / 2, low = rank_ < nlow;
        MPI_Comm half, inter;
        MPI_Comm_split(MPI_COMM_WORLD, low, rank_, &half);
        MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, low ? nlow : 0, 12, &inter);
        many_outstanding(inter, "idups of an intercommunicator");
        MPI_Comm_free(&inter);
        MPI_Comm_free(&half);
    }
    return finish();
}
