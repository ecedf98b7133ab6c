/* inter_icoll.c — collectives on an intercommunicator (two uneven halves of WORLD) that
 * inter_coll.c does not cover: every non-blocking one (Ibarrier, Ibcast, Ireduce, Iallreduce,
 * Igather(v), Iscatter(v), Iallgather(v), Ialltoall(v,w), Ireduce_scatter(_block)) and the
 * blocking v/w variants and Reduce_scatter(_block).  Roots from either group with MPI_ROOT /
 * MPI_PROC_NULL, uneven counts, a derived receive type, a non-commutative user op, small and
 * rendezvous-sized counts, several collectives in flight at once; every result against a
 * serial reference.  Scan/Exscan (blocking and not) must fail with MPI_ERR_COMM.  Standard
 * MPI only. */
#include "../common/mpi_test.h"

static int val(int who, int i) { return (who * 7919 + i * 31) % 1000003; }

/* affine maps x -> a*x + b (mod 1009) under composition: associative, not commutative */
static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *u = in, *v = inout;
    for (int i = 0; i < *len; i++) {
        int a = u[2 * i], b = u[2 * i + 1], c = v[2 * i], d = v[2 * i + 1];
        v[2 * i] = (a * c) % 1009;
        v[2 * i + 1] = (a * d + b) % 1009;
    }
}

static int g, lr, ls, rs;
static MPI_Comm ic;

static void wait_or(int nb, MPI_Request *r)
{
    if (nb)
        MPI_Wait(r, MPI_STATUS_IGNORE);
}

/* identity of rank p of group grp */
static int id(int grp, int p) { return grp * 1000 + p; }

static void test_rooted(int nb, int n, int *s, int *r)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    for (int rg = 0; rg < 2; rg++) {
        int rsz = rg == g ? ls : rs;
        for (int root = 0; root < rsz; root += (rsz > 1 ? rsz - 1 : 1)) {
            int arg = rg == g ? (lr == root ? MPI_ROOT : MPI_PROC_NULL) : root;
            int who = id(rg, root);
            /* (I)bcast */
            for (int i = 0; i < n; i++)
                r[i] = arg == MPI_ROOT ? val(who, i) : -3;
            if (nb)
                MPI_Ibcast(r, n, MPI_INT, arg, ic, &rq);
            else
                MPI_Bcast(r, n, MPI_INT, arg, ic);
            wait_or(nb, &rq);
            for (int i = 0; i < n; i++)
                CHECK(r[i] == (arg == MPI_PROC_NULL ? -3 : val(who, i)), "Ibcast nb %d [%d]", nb,
                      i);
            /* (I)reduce: the root gets the sum over the other group */
            for (int i = 0; i < n; i++)
                s[i] = val(id(g, lr), i), r[i] = -3;
            if (nb)
                MPI_Ireduce(s, r, n, MPI_INT, MPI_SUM, arg, ic, &rq);
            else
                MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, arg, ic);
            wait_or(nb, &rq);
            for (int i = 0; i < n; i++) {
                int want = -3;
                if (arg == MPI_ROOT)
                    for (int p = want = 0; p < rs; p++)
                        want += val(id(1 - g, p), i);
                CHECK(r[i] == want, "Ireduce nb %d [%d] %d != %d", nb, i, r[i], want);
            }
            /* (I)gatherv: remote rank p sends n + p ints, placed in reversed order */
            int *cnt = xmalloc(sizeof(int) * 2 * (size_t)rs), *dsp = cnt + rs;
            int tot = 0;
            for (int p = rs - 1; p >= 0; p--) {
                cnt[p] = n + p;
                dsp[p] = tot;
                tot += n + p;
            }
            int *big = xmalloc(sizeof(int) * (size_t)(tot + 1));
            int mine = n + lr;
            for (int i = 0; i < mine; i++)
                s[i] = val(id(g, lr) + 11, i);
            for (int i = 0; i < tot; i++)
                big[i] = -3;
            if (nb)
                MPI_Igatherv(s, mine, MPI_INT, big, cnt, dsp, MPI_INT, arg, ic, &rq);
            else
                MPI_Gatherv(s, mine, MPI_INT, big, cnt, dsp, MPI_INT, arg, ic);
            wait_or(nb, &rq);
            if (arg == MPI_ROOT)
                for (int p = 0; p < rs; p++)
                    for (int i = 0; i < cnt[p]; i++)
                        CHECK(big[dsp[p] + i] == val(id(1 - g, p) + 11, i),
                              "Igatherv nb %d p %d [%d]", nb, p, i);
            /* (I)gather */
            for (int i = 0; i < n * rs; i++)
                big[i] = -3;
            if (nb)
                MPI_Igather(s, n, MPI_INT, big, n, MPI_INT, arg, ic, &rq);
            else
                MPI_Gather(s, n, MPI_INT, big, n, MPI_INT, arg, ic);
            wait_or(nb, &rq);
            if (arg == MPI_ROOT)
                for (int p = 0; p < rs; p++)
                    for (int i = 0; i < n; i++)
                        CHECK(big[p * n + i] == val(id(1 - g, p) + 11, i), "Igather nb %d", nb);
            /* (I)scatterv: the root sends block p (counts n + p) to remote rank p */
            if (arg == MPI_ROOT)
                for (int p = 0; p < rs; p++)
                    for (int i = 0; i < cnt[p]; i++)
                        big[dsp[p] + i] = val(who + 3 * p, i);
            for (int i = 0; i < mine; i++)
                r[i] = -3;
            if (nb)
                MPI_Iscatterv(big, cnt, dsp, MPI_INT, r, mine, MPI_INT, arg, ic, &rq);
            else
                MPI_Scatterv(big, cnt, dsp, MPI_INT, r, mine, MPI_INT, arg, ic);
            wait_or(nb, &rq);
            if (arg >= 0)
                for (int i = 0; i < mine; i++)
                    CHECK(r[i] == val(who + 3 * lr, i), "Iscatterv nb %d [%d]", nb, i);
            /* Iscatter */
            if (arg == MPI_ROOT)
                for (int i = 0; i < n * rs; i++)
                    big[i] = val(who + 5, i);
            for (int i = 0; i < n; i++)
                r[i] = -3;
            if (nb)
                MPI_Iscatter(big, n, MPI_INT, r, n, MPI_INT, arg, ic, &rq);
            else
                MPI_Scatter(big, n, MPI_INT, r, n, MPI_INT, arg, ic);
            wait_or(nb, &rq);
            for (int i = 0; i < n; i++)
                CHECK(r[i] == (arg >= 0 ? val(who + 5, lr * n + i) : -3), "Iscatter nb %d", nb);
            free(big);
            free(cnt);
        }
    }
}

static void test_all(int nb, int n, int *s, int *r)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    /* (I)allreduce with MPI_SUM: the sum over the remote group */
    for (int i = 0; i < n; i++)
        s[i] = val(id(g, lr), i);
    if (nb)
        MPI_Iallreduce(s, r, n, MPI_INT, MPI_SUM, ic, &rq);
    else
        MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, ic);
    wait_or(nb, &rq);
    for (int i = 0; i < n; i++) {
        int want = 0;
        for (int p = 0; p < rs; p++)
            want += val(id(1 - g, p), i);
        CHECK(r[i] == want, "Iallreduce nb %d [%d]", nb, i);
    }
    /* (I)allreduce with a non-commutative op: the remote maps composed in rank order */
    MPI_Op op;
    MPI_Op_create(compose, 0, &op);
    int m = n < 1000 ? n : 1000;
    for (int i = 0; i < m; i++) {
        s[2 * i] = 1 + val(id(g, lr), i) % 1000;
        s[2 * i + 1] = val(id(g, lr) + 1, i) % 1000;
    }
    if (nb)
        MPI_Iallreduce(s, r, m, MPI_2INT, op, ic, &rq);
    else
        MPI_Allreduce(s, r, m, MPI_2INT, op, ic);
    MPI_Op_free(&op); /* legal while the non-blocking one runs */
    wait_or(nb, &rq);
    for (int i = 0; i < m; i++) {
        int a = 1 + val(id(1 - g, rs - 1), i) % 1000, b = val(id(1 - g, rs - 1) + 1, i) % 1000;
        for (int p = rs - 2; p >= 0; p--) { /* (u o v): u applied last */
            int ua = 1 + val(id(1 - g, p), i) % 1000, ub = val(id(1 - g, p) + 1, i) % 1000;
            int na = (ua * a) % 1009, nb2 = (ua * b + ub) % 1009;
            a = na;
            b = nb2;
        }
        CHECK(r[2 * i] == a && r[2 * i + 1] == b, "Iallreduce non-commutative nb %d [%d]", nb, i);
    }
    /* (I)allgather / (I)allgatherv (counts p + 1, reversed, into a vector type of stride 2) */
    for (int i = 0; i < n + ls; i++) /* Allgatherv sends lr + 1 of them */
        s[i] = val(id(g, lr) + 17, i);
    for (int i = 0; i < n * rs; i++)
        r[i] = -3;
    if (nb)
        MPI_Iallgather(s, n, MPI_INT, r, n, MPI_INT, ic, &rq);
    else
        MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, ic);
    wait_or(nb, &rq);
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < n; i++)
            CHECK(r[p * n + i] == val(id(1 - g, p) + 17, i), "Iallgather nb %d", nb);
    MPI_Datatype two; /* one int out of every two */
    MPI_Type_vector(1, 1, 2, MPI_INT, &two);
    MPI_Datatype strided;
    MPI_Type_create_resized(two, 0, 2 * sizeof(int), &strided);
    MPI_Type_commit(&strided);
    MPI_Type_free(&two);
    int *cnt = xmalloc(sizeof(int) * 2 * (size_t)rs), *dsp = cnt + rs, tot = 0;
    for (int p = rs - 1; p >= 0; p--) {
        cnt[p] = p + 1;
        dsp[p] = tot;
        tot += p + 1;
    }
    int *big = xmalloc(sizeof(int) * 2 * (size_t)tot);
    for (int i = 0; i < 2 * tot; i++)
        big[i] = -3;
    if (nb)
        MPI_Iallgatherv(s, lr + 1, MPI_INT, big, cnt, dsp, strided, ic, &rq);
    else
        MPI_Allgatherv(s, lr + 1, MPI_INT, big, cnt, dsp, strided, ic);
    MPI_Type_free(&strided); /* legal while the non-blocking one runs */
    wait_or(nb, &rq);
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < cnt[p]; i++) {
            CHECK(big[2 * (dsp[p] + i)] == val(id(1 - g, p) + 17, i), "Iallgatherv nb %d", nb);
            CHECK(big[2 * (dsp[p] + i) + 1] == -3, "Iallgatherv wrote a gap");
        }
    free(big);
    /* (I)alltoall: block p of mine goes to remote p */
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < n; i++)
            s[p * n + i] = val(id(g, lr) * 100 + p, i);
    if (nb)
        MPI_Ialltoall(s, n, MPI_INT, r, n, MPI_INT, ic, &rq);
    else
        MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, ic);
    wait_or(nb, &rq);
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < n; i++)
            CHECK(r[p * n + i] == val(id(1 - g, p) * 100 + lr, i), "Ialltoall nb %d", nb);
    /* (I)alltoallv: to remote p, (lr + p) % 3 + 1 ints; from remote p, (p + lr) % 3 + 1 */
    int *sc = xmalloc(sizeof(int) * 4 * (size_t)rs), *sd = sc + rs, *rc = sd + rs, *rd = rc + rs;
    int st = 0, rt = 0;
    for (int p = 0; p < rs; p++) {
        sc[p] = (lr + p) % 3 + 1;
        sd[p] = st;
        st += sc[p];
        rc[p] = (p + lr) % 3 + 1;
        rd[p] = rt;
        rt += rc[p];
    }
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < sc[p]; i++)
            s[sd[p] + i] = val(id(g, lr) * 50 + p, i);
    for (int i = 0; i < rt; i++)
        r[i] = -3;
    if (nb)
        MPI_Ialltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ic, &rq);
    else
        MPI_Alltoallv(s, sc, sd, MPI_INT, r, rc, rd, MPI_INT, ic);
    wait_or(nb, &rq);
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < rc[p]; i++)
            CHECK(r[rd[p] + i] == val(id(1 - g, p) * 50 + lr, i), "Ialltoallv nb %d", nb);
    /* (I)alltoallw: byte displacements, MPI_INT to even remote ranks, contiguous(2) to odd */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Datatype *sts = xmalloc(sizeof(MPI_Datatype) * 2 * (size_t)rs), *rts = sts + rs;
    st = 0;
    for (int p = 0; p < rs; p++) {
        sts[p] = rts[p] = p % 2 ? pair : MPI_INT;
        sc[p] = rc[p] = p % 2 ? 1 : 2; /* 2 ints either way */
        sd[p] = rd[p] = (int)(st * sizeof(int));
        st += 2;
    }
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < 2; i++)
            s[2 * p + i] = val(id(g, lr) * 70 + p, i);
    for (int i = 0; i < 2 * rs; i++)
        r[i] = -3;
    if (nb)
        MPI_Ialltoallw(s, sc, sd, sts, r, rc, rd, rts, ic, &rq);
    else
        MPI_Alltoallw(s, sc, sd, sts, r, rc, rd, rts, ic);
    wait_or(nb, &rq);
    for (int p = 0; p < rs; p++)
        for (int i = 0; i < 2; i++)
            CHECK(r[2 * p + i] == val(id(1 - g, p) * 70 + lr, i), "Ialltoallw nb %d", nb);
    MPI_Type_free(&pair);
    free(sts);
    free(sc);
    free(cnt);
}

/* (I)reduce_scatter(_block): the sum of the remote group's vectors, scattered over my group.
 * Both groups' vectors are ls * rs elements long: local counts split that evenly. */
static void test_reduce_scatter(int nb, int *s, int *r)
{
    MPI_Request rq = MPI_REQUEST_NULL;
    int total = ls * rs;
    for (int i = 0; i < total; i++)
        s[i] = val(id(g, lr) + 23, i);
    /* v form: counts rs +- 1 alternating (sum unchanged when ls is even) or uneven tail */
    int *cnt = xmalloc(sizeof(int) * (size_t)ls), off = 0, mine = 0;
    for (int j = 0; j < ls; j++)
        cnt[j] = rs;
    if (ls > 1) {
        cnt[0] += rs / 2;
        cnt[ls - 1] -= rs / 2;
    }
    for (int j = 0; j < lr; j++)
        off += cnt[j];
    mine = cnt[lr];
    for (int i = 0; i < mine; i++)
        r[i] = -3;
    if (nb)
        MPI_Ireduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, ic, &rq);
    else
        MPI_Reduce_scatter(s, r, cnt, MPI_INT, MPI_SUM, ic);
    wait_or(nb, &rq);
    for (int i = 0; i < mine; i++) {
        int want = 0;
        for (int p = 0; p < rs; p++)
            want += val(id(1 - g, p) + 23, off + i);
        CHECK(r[i] == want, "Ireduce_scatter nb %d [%d]", nb, i);
    }
    /* block form: rs each */
    if (nb)
        MPI_Ireduce_scatter_block(s, r, rs, MPI_INT, MPI_SUM, ic, &rq);
    else
        MPI_Reduce_scatter_block(s, r, rs, MPI_INT, MPI_SUM, ic);
    wait_or(nb, &rq);
    for (int i = 0; i < rs; i++) {
        int want = 0;
        for (int p = 0; p < rs; p++)
            want += val(id(1 - g, p) + 23, lr * rs + i);
        CHECK(r[i] == want, "Ireduce_scatter_block nb %d [%d]", nb, i);
    }
    free(cnt);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    if (size_ < 2)
        return finish();
    int na = (size_ + 1) / 2;
    g = rank_ < na ? 0 : 1;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, g, rank_, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, g ? 0 : na, 7, &ic);
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    const int counts[] = {3, 40000};
    int cap = 40000 * 2 * (size_ + 8) + 64;
    int *s = xmalloc(sizeof(int) * (size_t)cap), *r = xmalloc(sizeof(int) * (size_t)cap);
    for (int nb = 0; nb < 2; nb++) {
        for (int ci = 0; ci < 2; ci++) {
            test_rooted(nb, counts[ci], s, r);
            test_all(nb, counts[ci], s, r);
        }
        test_reduce_scatter(nb, s, r);
        if (nb) {
            MPI_Request rq;
            MPI_Ibarrier(ic, &rq);
            MPI_Wait(&rq, MPI_STATUS_IGNORE);
        }
    }
    /* several non-blocking collectives in flight on the intercommunicator at once */
    {
        int a = id(g, lr), sum = -1;
        MPI_Request rq[3];
        MPI_Ibarrier(ic, &rq[0]);
        MPI_Iallreduce(&a, &sum, 1, MPI_INT, MPI_SUM, ic, &rq[1]);
        int bv = g == 0 ? 77 : -1;
        MPI_Ibcast(&bv, 1, MPI_INT, g == 0 ? (lr == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0, ic, &rq[2]);
        MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
        int want = 0;
        for (int p = 0; p < rs; p++)
            want += id(1 - g, p);
        CHECK(sum == want, "concurrent Iallreduce %d != %d", sum, want);
        CHECK(bv == 77, "concurrent Ibcast: %d", bv);
    }
    /* Scan / Exscan are not defined on intercommunicators */
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    int x = 1, y = 0, cls = 0;
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Error_class(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, ic), &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_Scan on an intercommunicator: class %d", cls);
    MPI_Error_class(MPI_Exscan(&x, &y, 1, MPI_INT, MPI_SUM, ic), &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_Exscan on an intercommunicator: class %d", cls);
    MPI_Error_class(MPI_Iscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &rq), &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_Iscan on an intercommunicator: class %d", cls);
    MPI_Error_class(MPI_Iexscan(&x, &y, 1, MPI_INT, MPI_SUM, ic, &rq), &cls);
    CHECK(cls == MPI_ERR_COMM, "MPI_Iexscan on an intercommunicator: class %d", cls);
    CHECK(rq == MPI_REQUEST_NULL, "a request was returned for an erroneous call");
    /* MPI_IN_PLACE is refused on intercommunicators */
    MPI_Error_class(MPI_Iallreduce(MPI_IN_PLACE, &y, 1, MPI_INT, MPI_SUM, ic, &rq), &cls);
    CHECK(cls == MPI_ERR_BUFFER, "MPI_IN_PLACE Iallreduce: class %d", cls);
    free(s);
    free(r);
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
    return finish();
}
