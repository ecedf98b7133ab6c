/* inter_coll.c — blocking collectives on an intercommunicator (two uneven halves of WORLD):
 * Bcast, Reduce, Gather, Scatter with MPI_ROOT / MPI_PROC_NULL from either group and several
 * roots, Allreduce, Allgather, Alltoall, Barrier; small and rendezvous-sized counts; every
 * result against a serial reference, PROC_NULL buffers untouched.  Standard MPI only. */
#include "../common/mpi_test.h"

static int val(int who, int i) { return (who * 7919 + i * 31) % 1000003; }

int main(int argc, char **argv)
{
    start(&argc, &argv);
    if (size_ < 2)
        return finish();
    int na = (size_ + 1) / 2, g = rank_ < na ? 0 : 1;
    MPI_Comm half, ic;
    MPI_Comm_split(MPI_COMM_WORLD, g, rank_, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, g ? 0 : na, 7, &ic);
    int lr, ls, rs;
    MPI_Comm_rank(ic, &lr);
    MPI_Comm_size(ic, &ls);
    MPI_Comm_remote_size(ic, &rs);
    CHECK(ls == (g ? size_ - na : na) && rs == size_ - ls, "sizes %d %d", ls, rs);
    const int counts[] = {3, 50000};
    for (int ci = 0; ci < 2; ci++) {
        int n = counts[ci], big = n * (size_ > 8 ? size_ : 8);
        int *s = xmalloc(sizeof(int) * (size_t)big), *r = xmalloc(sizeof(int) * (size_t)big);
        for (int rg = 0; rg < 2; rg++) {          /* group holding the root */
            int rsz = rg == g ? ls : rs;
            for (int root = 0; root < rsz; root += (rsz > 1 ? rsz - 1 : 1)) {
                int arg = rg == g ? (lr == root ? MPI_ROOT : MPI_PROC_NULL) : root;
                int who = rg * 1000 + root;     /* the root's identity */
                /* Bcast */
                for (int i = 0; i < n; i++)
                    r[i] = arg == MPI_ROOT ? val(who, i) : -3;
                MPI_Bcast(r, n, MPI_INT, arg, ic);
                for (int i = 0; i < n; i++)
                    CHECK(r[i] == (arg == MPI_PROC_NULL ? -3 : val(who, i)), "Bcast n %d rg %d root %d",
                          n, rg, root);
                /* Reduce: the root gets the sum over the other group */
                for (int i = 0; i < n; i++)
                    s[i] = val(g * 1000 + lr, i), r[i] = -3;
                MPI_Reduce(s, r, n, MPI_INT, MPI_SUM, arg, ic);
                for (int i = 0; i < n; i++) {
                    int want = -3;
                    if (arg == MPI_ROOT) {
                        want = 0;
                        for (int p = 0; p < rs; p++)
                            want += val((1 - g) * 1000 + p, i);
                    }
                    CHECK(r[i] == want, "Reduce n %d rg %d root %d [%d]", n, rg, root, i);
                }
                /* Gather: block p from remote rank p */
                for (int i = 0; i < n; i++)
                    s[i] = val(g * 1000 + lr + 7, i);
                for (int i = 0; i < n * rs; i++)
                    r[i] = -3;
                MPI_Gather(s, n, MPI_INT, r, n, MPI_INT, arg, ic);
                if (arg == MPI_ROOT)
                    for (int p = 0; p < rs; p++)
                        for (int i = 0; i < n; i++)
                            CHECK(r[p * n + i] == val((1 - g) * 1000 + p + 7, i), "Gather from %d", p);
                else if (arg == MPI_PROC_NULL)
                    CHECK(r[0] == -3, "Gather PROC_NULL touched");
                /* Scatter: block p to remote rank p */
                if (arg == MPI_ROOT)
                    for (int p = 0; p < rs; p++)
                        for (int i = 0; i < n; i++)
                            s[p * n + i] = val(who + 50 + p, i);
                for (int i = 0; i < n; i++)
                    r[i] = -3;
                MPI_Scatter(s, n, MPI_INT, r, n, MPI_INT, arg, ic);
                if (arg >= 0)
                    for (int i = 0; i < n; i++)
                        CHECK(r[i] == val((1 - g) * 1000 + root + 50 + lr, i), "Scatter [%d]", i);
                else
                    CHECK(r[0] == -3, "Scatter root side touched");
            }
        }
        /* Allreduce: the sum over the remote group */
        for (int i = 0; i < n; i++)
            s[i] = val(g * 1000 + lr, i);
        MPI_Allreduce(s, r, n, MPI_INT, MPI_SUM, ic);
        for (int i = 0; i < n; i++) {
            int want = 0;
            for (int p = 0; p < rs; p++)
                want += val((1 - g) * 1000 + p, i);
            CHECK(r[i] == want, "Allreduce n %d [%d]", n, i);
        }
        /* Allgather: the remote group's blocks in rank order */
        MPI_Allgather(s, n, MPI_INT, r, n, MPI_INT, ic);
        for (int p = 0; p < rs; p++)
            for (int i = 0; i < n; i++)
                CHECK(r[p * n + i] == val((1 - g) * 1000 + p, i), "Allgather from %d", p);
        /* Alltoall: block j to remote rank j */
        if (n * rs <= big) {
            for (int j = 0; j < rs; j++)
                for (int i = 0; i < n; i++)
                    s[j * n + i] = val(g * 100000 + lr * 100 + j, i);
            MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, ic);
            for (int j = 0; j < rs; j++)
                for (int i = 0; i < n; i++)
                    CHECK(r[j * n + i] == val((1 - g) * 100000 + j * 100 + lr, i), "Alltoall from %d", j);
        }
        MPI_Barrier(ic);
        free(s);
        free(r);
    }
    MPI_Comm_free(&ic);
    MPI_Comm_free(&half);
    return finish();
}
