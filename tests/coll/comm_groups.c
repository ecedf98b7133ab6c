/* comm_groups.c — communicators and groups: dup/split/create/create_group/free churn (1,000
 * communicators), compare, group set operations and translate_ranks, Group_incl in a chosen
 * order with Comm_create over that subset, names, split_type,
 * intercommunicator round trip (create, p2p both ways, remote size/group, merge), and that
 * traffic on a dup'd communicator never matches the parent's, nor a communicator's
 * point-to-point traffic its collective traffic. */
#include "../common/mpi_test.h"

static void churn(void)
{
    for (int i = 0; i < 1000; i++) {
        MPI_Comm c;
        switch (i % 4) {
        case 0: MPI_Comm_dup(MPI_COMM_WORLD, &c); break;
        case 1: MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, -rank_, &c); break;
        case 2: {
            MPI_Group g;
            MPI_Comm_group(MPI_COMM_WORLD, &g);
            MPI_Comm_create(MPI_COMM_WORLD, g, &c);
            MPI_Group_free(&g);
            break;
        }
        default: MPI_Comm_dup(MPI_COMM_SELF, &c); break;
        }
        int s, sum = 0, one = 1;
        MPI_Comm_size(c, &s);
        if (i % 50 == 0) {
            MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
            CHECK(sum == s, "allreduce on churned comm %d", i);
        }
        MPI_Comm_free(&c);
        CHECK(c == MPI_COMM_NULL, "Comm_free sets MPI_COMM_NULL");
    }
}

static void split_checks(void)
{
    MPI_Comm c;
    MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, -rank_, &c); /* reversed order */
    int r, s;
    MPI_Comm_rank(c, &r);
    MPI_Comm_size(c, &s);
    CHECK(s == (size_ + 1 - rank_ % 2) / 2, "split size %d", s);
    int mine = rank_, *all = xmalloc(sizeof(int) * (size_t)s);
    MPI_Allgather(&mine, 1, MPI_INT, all, 1, MPI_INT, c);
    for (int i = 1; i < s; i++)
        CHECK(all[i] < all[i - 1], "split must order by key (descending world rank)");
    free(all);
    /* same-tag messages on parent and child do not mix */
    if (size_ >= 2) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        int res;
        MPI_Comm_compare(MPI_COMM_WORLD, d, &res);
        CHECK(res == MPI_CONGRUENT, "dup is congruent (%d)", res);
        MPI_Comm_compare(MPI_COMM_WORLD, MPI_COMM_WORLD, &res);
        CHECK(res == MPI_IDENT, "ident");
        MPI_Comm_compare(MPI_COMM_WORLD, c, &res);
        CHECK(size_ == 1 || res == MPI_UNEQUAL, "unequal");
        if (rank_ == 0) {
            int a = 1, b = 2;
            MPI_Send(&a, 1, MPI_INT, 1, 5, MPI_COMM_WORLD);
            MPI_Send(&b, 1, MPI_INT, 1, 5, d);
        } else if (rank_ == 1) {
            int x = 0, y = 0;
            MPI_Recv(&y, 1, MPI_INT, 0, 5, d, MPI_STATUS_IGNORE);
            MPI_Recv(&x, 1, MPI_INT, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            CHECK(x == 1 && y == 2, "context separation: %d %d", x, y);
        }
        char name[MPI_MAX_OBJECT_NAME];
        int len;
        MPI_Comm_set_name(d, "dupcomm");
        MPI_Comm_get_name(d, name, &len);
        CHECK(strcmp(name, "dupcomm") == 0 && len == 7, "name");
        MPI_Comm_get_name(MPI_COMM_WORLD, name, &len);
        CHECK(strcmp(name, "MPI_COMM_WORLD") == 0, "world name %s", name);
        MPI_Comm_free(&d);
    }
    MPI_Comm_free(&c);
    MPI_Comm u;
    MPI_Comm_split(MPI_COMM_WORLD, rank_ == 0 ? MPI_UNDEFINED : 1, 0, &u);
    CHECK((rank_ == 0) == (u == MPI_COMM_NULL), "UNDEFINED color");
    if (u != MPI_COMM_NULL)
        MPI_Comm_free(&u);
    MPI_Comm sh;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &sh);
    int shs;
    MPI_Comm_size(sh, &shs);
    CHECK(shs == size_, "all ranks share this host: %d", shs);
    MPI_Comm_free(&sh);
}

static void groups(void)
{
    MPI_Group w, evens, odds, u, in, diff;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    int gs, gr;
    MPI_Group_size(w, &gs);
    MPI_Group_rank(w, &gr);
    CHECK(gs == size_ && gr == rank_, "world group");
    int range[1][3] = {{0, size_ - 1, 2}};
    MPI_Group_range_incl(w, 1, range, &evens);
    MPI_Group_range_excl(w, 1, range, &odds);
    MPI_Group_union(odds, evens, &u);
    MPI_Group_intersection(evens, odds, &in);
    MPI_Group_difference(w, odds, &diff);
    int n, res;
    MPI_Group_size(u, &n);
    CHECK(n == size_, "union size");
    MPI_Group_compare(u, w, &res);
    CHECK(res == (size_ <= 1 ? MPI_IDENT : MPI_SIMILAR) || (size_ == 2 && res == MPI_SIMILAR),
          "union similar (%d)", res);
    MPI_Group_size(in, &n);
    CHECK(n == 0, "intersection empty");
    MPI_Group_compare(diff, evens, &res);
    CHECK(res == MPI_IDENT, "difference == evens");
    int ranks[64], out[64];
    for (int i = 0; i < size_; i++)
        ranks[i] = i;
    MPI_Group_translate_ranks(w, size_, ranks, evens, out);
    for (int i = 0; i < size_; i++)
        CHECK(out[i] == (i % 2 ? MPI_UNDEFINED : i / 2), "translate %d -> %d", i, out[i]);
    int ex[1] = {0};
    MPI_Group nz;
    MPI_Group_excl(w, 1, ex, &nz);
    MPI_Group_size(nz, &n);
    CHECK(n == size_ - 1, "excl");
    /* Comm_create_group over the evens only */
    if (rank_ % 2 == 0) {
        MPI_Comm ce;
        MPI_Comm_create_group(MPI_COMM_WORLD, evens, 7, &ce);
        int s, v = 1, sum;
        MPI_Comm_size(ce, &s);
        MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, ce);
        CHECK(sum == s && s == (size_ + 1) / 2, "create_group");
        MPI_Comm_free(&ce);
    }
    MPI_Group_free(&nz);
    MPI_Group_free(&w);
    MPI_Group_free(&evens);
    MPI_Group_free(&odds);
    MPI_Group_free(&u);
    MPI_Group_free(&in);
    MPI_Group_free(&diff);
}

/* Group_incl in a chosen order, Comm_create over a subset in that order (the others get
 * MPI_COMM_NULL), range_incl with a negative stride, the union's order, empty groups */
static void groups_more(void)
{
    MPI_Group w, rev, sub, ranged, u, e;
    MPI_Comm_group(MPI_COMM_WORLD, &w);
    int ranks[64], out[64], n, res;
    for (int i = 0; i < size_; i++)
        ranks[i] = size_ - 1 - i;
    MPI_Group_incl(w, size_, ranks, &rev);
    MPI_Group_rank(rev, &n);
    CHECK(n == size_ - 1 - rank_, "Group_incl reversed: my rank %d", n);
    MPI_Group_compare(rev, w, &res);
    CHECK(res == (size_ == 1 ? MPI_IDENT : MPI_SIMILAR), "reversed group compare %d", res);
    /* every third rank from the top, as Group_incl and as range_incl (first, last, -3) */
    int k = 0;
    for (int i = size_ - 1; i >= 0; i -= 3)
        ranks[k++] = i;
    MPI_Group_incl(w, k, ranks, &sub);
    int range[1][3] = {{size_ - 1, 0, -3}};
    MPI_Group_range_incl(w, 1, range, &ranged);
    MPI_Group_compare(sub, ranged, &res);
    CHECK(res == MPI_IDENT, "range_incl with a negative stride == incl (%d)", res);
    MPI_Group_translate_ranks(sub, k, (int[]){0, 1, 2, 3, 4, 5, 6, 7}, w, out);
    for (int i = 0; i < k; i++)
        CHECK(out[i] == ranks[i], "translate sub %d -> %d", i, out[i]);
    MPI_Comm c;
    MPI_Comm_create(MPI_COMM_WORLD, sub, &c);
    int member = (size_ - 1 - rank_) % 3 == 0;
    CHECK(member == (c != MPI_COMM_NULL), "Comm_create membership");
    if (c != MPI_COMM_NULL) {
        int r, s, v = rank_, *all = xmalloc(sizeof(int) * (size_t)k);
        MPI_Comm_rank(c, &r);
        MPI_Comm_size(c, &s);
        CHECK(s == k && r == (size_ - 1 - rank_) / 3, "Comm_create rank %d of %d", r, s);
        MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, c);
        for (int i = 0; i < k; i++)
            CHECK(all[i] == ranks[i], "Comm_create keeps the group's order");
        free(all);
        MPI_Comm_free(&c);
    }
    /* the union lists the first group's members, then the second's that are new */
    MPI_Group_union(sub, w, &u);
    MPI_Group_translate_ranks(u, k, (int[]){0, 1, 2, 3, 4, 5, 6, 7}, w, out);
    for (int i = 0; i < k; i++)
        CHECK(out[i] == ranks[i], "union order %d", i);
    MPI_Group_size(u, &n);
    CHECK(n == size_, "union size %d", n);
    /* empty results */
    MPI_Group_difference(sub, w, &e);
    MPI_Group_size(e, &n);
    MPI_Group_compare(e, MPI_GROUP_EMPTY, &res);
    CHECK(n == 0 && res == MPI_IDENT, "empty difference");
    MPI_Group_rank(e, &n);
    CHECK(n == MPI_UNDEFINED, "rank in an empty group");
    MPI_Group_free(&e);
    MPI_Group_incl(w, 0, ranks, &e);
    MPI_Group_size(e, &n);
    CHECK(n == 0, "Group_incl of nobody");
    MPI_Group_free(&e);
    MPI_Group_free(&u);
    MPI_Group_free(&ranged);
    MPI_Group_free(&sub);
    MPI_Group_free(&rev);
    MPI_Group_free(&w);
    CHECK(w == MPI_GROUP_NULL, "Group_free sets MPI_GROUP_NULL");
}

/* point-to-point and collective traffic of one communicator never match each other: a
 * wildcard receive posted before a round of collectives still gets the later send */
static void p2p_vs_coll(void)
{
    if (size_ < 2)
        return;
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    int got = -1, v = 77, x = rank_, sum = 0, all[64];
    MPI_Request rq = MPI_REQUEST_NULL;
    if (rank_ == 1)
        MPI_Irecv(&got, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, c, &rq);
    MPI_Bcast(&x, 1, MPI_INT, 0, c);
    MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, c);
    MPI_Allgather(&v, 1, MPI_INT, all, 1, MPI_INT, c);
    MPI_Barrier(c);
    if (rank_ == 1) {
        int flag;
        MPI_Status st;
        MPI_Test(&rq, &flag, &st);
        CHECK(!flag, "a wildcard receive matched collective traffic: %d from %d tag %d", got,
              st.MPI_SOURCE, st.MPI_TAG);
    }
    MPI_Barrier(c); /* rank 1 has tested before rank 0 sends */
    if (rank_ == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 0, c);
    if (rank_ == 1) {
        MPI_Status st;
        MPI_Wait(&rq, &st);
        CHECK(got == 77 && st.MPI_SOURCE == 0 && st.MPI_TAG == 0, "the send reached the receive");
    }
    CHECK(x == 0 && sum == 77 * size_, "collectives around a pending wildcard receive");
    MPI_Comm_free(&c);
}

static void intercomm(void)
{
    if (size_ < 2)
        return;
    MPI_Comm half, inter, merged;
    int color = rank_ < size_ / 2 ? 0 : 1;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank_, &half);
    int remote_leader = color == 0 ? size_ / 2 : 0;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 42, &inter);
    int flag, rs, ls, lr;
    MPI_Comm_test_inter(inter, &flag);
    MPI_Comm_remote_size(inter, &rs);
    MPI_Comm_size(inter, &ls);
    MPI_Comm_rank(inter, &lr);
    CHECK(flag, "test_inter");
    CHECK(ls + rs == size_ && ls == (color ? size_ - size_ / 2 : size_ / 2), "sizes %d %d", ls, rs);
    /* round trip: local rank i of group 0 <-> rank i of group 1 */
    if (lr < rs && lr < (color ? size_ / 2 : size_ - size_ / 2)) {
        int v = rank_, got = -1;
        MPI_Status st;
        MPI_Sendrecv(&v, 1, MPI_INT, lr, 3, &got, 1, MPI_INT, lr, 3, inter, &st);
        int want = color ? lr : size_ / 2 + lr;
        CHECK(got == want && st.MPI_SOURCE == lr, "intercomm round trip got %d want %d", got, want);
    }
    MPI_Group rg;
    MPI_Comm_remote_group(inter, &rg);
    int rgs;
    MPI_Group_size(rg, &rgs);
    CHECK(rgs == rs, "remote group");
    MPI_Group_free(&rg);
    MPI_Barrier(inter);
    MPI_Comm dupi;
    MPI_Comm_dup(inter, &dupi);
    MPI_Intercomm_merge(dupi, color, &merged);
    int mr, ms;
    MPI_Comm_rank(merged, &mr);
    MPI_Comm_size(merged, &ms);
    CHECK(ms == size_ && mr == rank_, "merge order: %d of %d (world %d)", mr, ms, rank_);
    int one = 1, sum;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == size_, "allreduce on merged");
    MPI_Comm_free(&merged);
    MPI_Comm_free(&dupi);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    split_checks();
    groups();
    groups_more();
    p2p_vs_coll();
    intercomm();
    churn();
    return finish();
}
