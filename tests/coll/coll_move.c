/* coll_move.c — data-moving collectives against the obvious serial answer: Bcast (every root,
 * small and rendezvous-sized), Gather(v), Scatter(v), Allgather(v), Alltoall(v,w), each with
 * MPI_IN_PLACE where allowed and zero counts; a vector datatype as the receive type of
 * Gather and the send type of Alltoall. */
#include "../common/mpi_test.h"

static int val(int r, int i) { return r * 100000 + i; }

int main(int argc, char **argv)
{
    start(&argc, &argv);
    const int sizes[] = {0, 1, 13, 40000};
    for (int si = 0; si < 4; si++) {
        int n = sizes[si];
        int *b = xmalloc(sizeof(int) * (size_t)n * (size_t)size_);
        int *r = xmalloc(sizeof(int) * (size_t)n * (size_t)size_);
        for (int root = 0; root < size_; root++) {
            for (int i = 0; i < n; i++)
                b[i] = rank_ == root ? val(root, i) : -1;
            MPI_Bcast(b, n, MPI_INT, root, MPI_COMM_WORLD);
            for (int i = 0; i < n; i++)
                CHECK(b[i] == val(root, i), "Bcast n %d root %d [%d]", n, root, i);
        }
        int root = size_ - 1;
        /* Gather / IN_PLACE */
        for (int ip = 0; ip < 2; ip++) {
            for (int i = 0; i < n; i++)
                b[i] = val(rank_, i);
            memset(r, 0xff, sizeof(int) * (size_t)n * (size_t)size_);
            if (ip && rank_ == root) {
                memcpy(r + (size_t)n * (size_t)root, b, sizeof(int) * (size_t)n);
                MPI_Gather(MPI_IN_PLACE, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
            } else {
                MPI_Gather(b, n, MPI_INT, r, n, MPI_INT, root, MPI_COMM_WORLD);
            }
            if (rank_ == root)
                for (int p = 0; p < size_; p++)
                    for (int i = 0; i < n; i++)
                        CHECK(r[p * n + i] == val(p, i), "Gather ip %d", ip);
            /* Scatter */
            if (rank_ == root)
                for (int p = 0; p < size_; p++)
                    for (int i = 0; i < n; i++)
                        r[p * n + i] = val(p, i) + 1;
            if (ip && rank_ == root)
                MPI_Scatter(r, n, MPI_INT, MPI_IN_PLACE, n, MPI_INT, root, MPI_COMM_WORLD);
            else
                MPI_Scatter(r, n, MPI_INT, b, n, MPI_INT, root, MPI_COMM_WORLD);
            if (!(ip && rank_ == root))
                for (int i = 0; i < n; i++)
                    CHECK(b[i] == val(rank_, i) + 1, "Scatter");
            /* Allgather */
            for (int i = 0; i < n; i++)
                b[i] = val(rank_, i);
            if (ip) {
                memcpy(r + (size_t)n * (size_t)rank_, b, sizeof(int) * (size_t)n);
                MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, MPI_COMM_WORLD);
            } else {
                MPI_Allgather(b, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
            }
            for (int p = 0; p < size_; p++)
                for (int i = 0; i < n; i++)
                    CHECK(r[p * n + i] == val(p, i), "Allgather ip %d n %d", ip, n);
            /* Alltoall: block p of rank q's send goes to rank p */
            int *s = xmalloc(sizeof(int) * (size_t)n * (size_t)size_);
            for (int p = 0; p < size_; p++)
                for (int i = 0; i < n; i++)
                    s[p * n + i] = val(rank_, i) + p;
            if (ip) {
                memcpy(r, s, sizeof(int) * (size_t)n * (size_t)size_);
                MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, r, n, MPI_INT, MPI_COMM_WORLD);
            } else {
                MPI_Alltoall(s, n, MPI_INT, r, n, MPI_INT, MPI_COMM_WORLD);
            }
            for (int p = 0; p < size_; p++)
                for (int i = 0; i < n; i++)
                    CHECK(r[p * n + i] == val(p, i) + rank_, "Alltoall ip %d n %d", ip, n);
            free(s);
        }
        free(b);
        free(r);
    }
    /* v-variants: rank p contributes p+1 elements (rank p % 3 == 2 none) */
    int *cnt = xmalloc(sizeof(int) * (size_t)size_), *dis = xmalloc(sizeof(int) * (size_t)size_);
    int tot = 0;
    for (int p = 0; p < size_; p++) {
        cnt[p] = p % 3 == 2 ? 0 : p + 1;
        dis[p] = tot + 1; /* a gap of one */
        tot += cnt[p] + 1;
    }
    int mine[64], all[1024];
    for (int i = 0; i < cnt[rank_]; i++)
        mine[i] = val(rank_, i);
    for (int root = 0; root < size_; root += 2) {
        memset(all, 0, sizeof all);
        MPI_Gatherv(mine, cnt[rank_], MPI_INT, all, cnt, dis, MPI_INT, root, MPI_COMM_WORLD);
        if (rank_ == root)
            for (int p = 0; p < size_; p++)
                for (int i = 0; i < cnt[p]; i++)
                    CHECK(all[dis[p] + i] == val(p, i), "Gatherv");
        int got[64];
        MPI_Scatterv(all, cnt, dis, MPI_INT, got, cnt[rank_], MPI_INT, root, MPI_COMM_WORLD);
        for (int i = 0; i < cnt[rank_]; i++)
            CHECK(got[i] == val(rank_, i), "Scatterv");
    }
    memset(all, 0, sizeof all);
    MPI_Allgatherv(mine, cnt[rank_], MPI_INT, all, cnt, dis, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < size_; p++)
        for (int i = 0; i < cnt[p]; i++)
            CHECK(all[dis[p] + i] == val(p, i), "Allgatherv");
    memcpy(all + dis[rank_], mine, sizeof(int) * (size_t)cnt[rank_]);
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, cnt, dis, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < size_; p++)
        for (int i = 0; i < cnt[p]; i++)
            CHECK(all[dis[p] + i] == val(p, i), "Allgatherv IN_PLACE");
    /* Alltoallv: rank q sends (q + p) % 3 elements to p */
    int sc[64], sd[64], rc[64], rd[64], sbuf[512], rbuf[512], so = 0, ro = 0;
    for (int p = 0; p < size_; p++) {
        sc[p] = (rank_ + p) % 3;
        sd[p] = so;
        so += sc[p];
        rc[p] = (p + rank_) % 3;
        rd[p] = ro;
        ro += rc[p];
        for (int i = 0; i < sc[p]; i++)
            sbuf[sd[p] + i] = val(rank_, p * 10 + i);
    }
    MPI_Alltoallv(sbuf, sc, sd, MPI_INT, rbuf, rc, rd, MPI_INT, MPI_COMM_WORLD);
    for (int p = 0; p < size_; p++)
        for (int i = 0; i < rc[p]; i++)
            CHECK(rbuf[rd[p] + i] == val(p, rank_ * 10 + i), "Alltoallv");
    /* Alltoallw with byte displacements and a vector send type (every other int) */
    MPI_Datatype every2;
    MPI_Type_vector(2, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    int *wc = xmalloc(sizeof(int) * (size_t)size_), *wd = xmalloc(sizeof(int) * (size_t)size_);
    int *rwc = xmalloc(sizeof(int) * (size_t)size_), *rwd = xmalloc(sizeof(int) * (size_t)size_);
    MPI_Datatype *wt = xmalloc(sizeof(MPI_Datatype) * (size_t)size_),
                 *rwt = xmalloc(sizeof(MPI_Datatype) * (size_t)size_);
    int *ws = xmalloc(sizeof(int) * 4 * (size_t)size_), *wr = xmalloc(sizeof(int) * 2 * (size_t)size_);
    for (int p = 0; p < size_; p++) {
        wc[p] = 1;
        wd[p] = (int)(sizeof(int) * 4 * (size_t)p);
        wt[p] = every2;
        rwc[p] = 2;
        rwd[p] = (int)(sizeof(int) * 2 * (size_t)p);
        rwt[p] = MPI_INT;
        for (int i = 0; i < 4; i++)
            ws[4 * p + i] = i % 2 ? -1 : val(rank_, p) + i;
    }
    MPI_Alltoallw(ws, wc, wd, wt, wr, rwc, rwd, rwt, MPI_COMM_WORLD);
    for (int p = 0; p < size_; p++)
        CHECK(wr[2 * p] == val(p, rank_) && wr[2 * p + 1] == val(p, rank_) + 2, "Alltoallw");
    /* Gather into a strided receive type: one column of a size x 3 matrix */
    MPI_Datatype col, colr;
    MPI_Type_vector(1, 1, 3, MPI_INT, &col);
    MPI_Type_create_resized(col, 0, 3 * (MPI_Aint)sizeof(int), &colr);
    MPI_Type_commit(&colr);
    int m[3 * 64], x = val(rank_, 7);
    memset(m, 0, sizeof m);
    MPI_Gather(&x, 1, MPI_INT, m, 1, colr, 0, MPI_COMM_WORLD);
    if (rank_ == 0)
        for (int p = 0; p < size_; p++)
            CHECK(m[3 * p] == val(p, 7) && m[3 * p + 1] == 0, "Gather into resized vector");
    MPI_Type_free(&col);
    MPI_Type_free(&colr);
    MPI_Type_free(&every2);
    free(wc), free(wd), free(rwc), free(rwd), free(wt), free(rwt), free(ws), free(wr);
    free(cnt), free(dis);
    return finish();
}
