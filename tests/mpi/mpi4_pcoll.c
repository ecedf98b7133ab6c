/* mpi4_pcoll.c — persistent collectives (MPI-4): every *_init started several rounds with
 * new buffer contents, Startall over several, Request_free of inactive requests, the errors
 * of Start on an active request and of freeing an active one. */
#include "sm_test.h"

#define N 5
#define R 3

static int val(int rank, int round, int i) { return rank * 1000 + round * 100 + i; }

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    int me = sm_rank, np = sm_size;
    int *sb = malloc(sizeof(int) * N * np), *rb = malloc(sizeof(int) * N * np);
    int *cnt = malloc(sizeof(int) * np), *dsp = malloc(sizeof(int) * np);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * np);
    int *bdsp = malloc(sizeof(int) * np);
    for (int i = 0; i < np; i++) {
        cnt[i] = N;
        dsp[i] = i * N;
        bdsp[i] = i * N * (int)sizeof(int);
        types[i] = MPI_INT;
    }
    int root = np - 1;
    enum { BAR, BC, GA, GAV, SC, SCV, AG, AGV, A2A, A2AV, A2AW, RED, ARED, RS, RSB, SCAN, EXSCAN,
           NK };
    MPI_Request rq[NK];
    SM_MPI(MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &rq[BAR]));
    int bc[N], red[N], ared[N], rsb[N], rs[N], scn[N], exs[N];
    int *ga = malloc(sizeof(int) * N * np), *gav = malloc(sizeof(int) * N * np);
    int *ag = malloc(sizeof(int) * N * np), *agv = malloc(sizeof(int) * N * np);
    int *a2a = malloc(sizeof(int) * N * np), *a2av = malloc(sizeof(int) * N * np);
    int *a2aw = malloc(sizeof(int) * N * np), *rsin = malloc(sizeof(int) * N * np);
    int sc[N], scv[N], mine[N];
    SM_MPI(MPI_Bcast_init(bc, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL, &rq[BC]));
    SM_MPI(MPI_Gather_init(mine, N, MPI_INT, ga, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rq[GA]));
    SM_MPI(MPI_Gatherv_init(mine, N, MPI_INT, gav, cnt, dsp, MPI_INT, 0, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &rq[GAV]));
    SM_MPI(MPI_Scatter_init(sb, N, MPI_INT, sc, N, MPI_INT, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                            &rq[SC]));
    SM_MPI(MPI_Scatterv_init(sb, cnt, dsp, MPI_INT, scv, N, MPI_INT, 0, MPI_COMM_WORLD,
                             MPI_INFO_NULL, &rq[SCV]));
    SM_MPI(MPI_Allgather_init(mine, N, MPI_INT, ag, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &rq[AG]));
    SM_MPI(MPI_Allgatherv_init(mine, N, MPI_INT, agv, cnt, dsp, MPI_INT, MPI_COMM_WORLD,
                               MPI_INFO_NULL, &rq[AGV]));
    SM_MPI(MPI_Alltoall_init(sb, N, MPI_INT, a2a, N, MPI_INT, MPI_COMM_WORLD, MPI_INFO_NULL,
                             &rq[A2A]));
    SM_MPI(MPI_Alltoallv_init(sb, cnt, dsp, MPI_INT, a2av, cnt, dsp, MPI_INT, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &rq[A2AV]));
    SM_MPI(MPI_Alltoallw_init(sb, cnt, bdsp, types, a2aw, cnt, bdsp, types, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &rq[A2AW]));
    SM_MPI(MPI_Reduce_init(mine, red, N, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rq[RED]));
    SM_MPI(MPI_Allreduce_init(mine, ared, N, MPI_INT, MPI_MAX, MPI_COMM_WORLD, MPI_INFO_NULL,
                              &rq[ARED]));
    SM_MPI(MPI_Reduce_scatter_init(rsin, rs, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &rq[RS]));
    SM_MPI(MPI_Reduce_scatter_block_init(rsin, rsb, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                         MPI_INFO_NULL, &rq[RSB]));
    SM_MPI(MPI_Scan_init(mine, scn, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                         &rq[SCAN]));
    SM_MPI(MPI_Exscan_init(mine, exs, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL,
                           &rq[EXSCAN]));

    for (int round = 0; round < R; round++) {
        for (int i = 0; i < N; i++) {
            mine[i] = val(me, round, i);
            bc[i] = me == root ? val(99, round, i) : -1;
        }
        for (int j = 0; j < N * np; j++) {
            sb[j] = val(me, round, j); /* block for rank j / N */
            rsin[j] = val(me, round, j);
            ga[j] = gav[j] = ag[j] = agv[j] = a2a[j] = a2av[j] = a2aw[j] = -1;
        }
        if (round == 1) { /* one at a time, Wait each */
            for (int k = 0; k < NK; k++) {
                SM_MPI(MPI_Start(&rq[k]));
                SM_MPI(MPI_Wait(&rq[k], MPI_STATUS_IGNORE));
                SM_CHECK(rq[k] != MPI_REQUEST_NULL, "persistent request was freed by Wait");
            }
        } else { /* all at once, Waitall / Test loop */
            SM_MPI(MPI_Startall(NK, rq));
            if (round == 0) {
                SM_MPI(MPI_Waitall(NK, rq, MPI_STATUSES_IGNORE));
            } else {
                int flag = 0;
                while (!flag)
                    SM_MPI(MPI_Testall(NK, rq, &flag, MPI_STATUSES_IGNORE));
            }
        }
        for (int i = 0; i < N; i++) {
            SM_CHECK(bc[i] == val(99, round, i), "bcast round %d", round);
            SM_CHECK(sc[i] == val(root, round, me * N + i), "scatter round %d", round);
            SM_CHECK(scv[i] == val(0, round, me * N + i), "scatterv round %d", round);
            int sum = 0, mx = 0, pre = 0, ex = 0, rsum = 0;
            for (int r = 0; r < np; r++) {
                sum += val(r, round, i);
                if (val(r, round, i) > mx)
                    mx = val(r, round, i);
                if (r <= me)
                    pre += val(r, round, i);
                if (r < me)
                    ex += val(r, round, i);
                rsum += val(r, round, me * N + i);
            }
            if (me == root)
                SM_CHECK(red[i] == sum, "reduce round %d: %d != %d", round, red[i], sum);
            SM_CHECK(ared[i] == mx, "allreduce round %d", round);
            SM_CHECK(scn[i] == pre, "scan round %d", round);
            if (me > 0)
                SM_CHECK(exs[i] == ex, "exscan round %d", round);
            SM_CHECK(rs[i] == rsum && rsb[i] == rsum, "reduce_scatter round %d", round);
            for (int r = 0; r < np; r++) {
                if (me == root)
                    SM_CHECK(ga[r * N + i] == val(r, round, i), "gather round %d", round);
                if (me == 0)
                    SM_CHECK(gav[r * N + i] == val(r, round, i), "gatherv round %d", round);
                SM_CHECK(ag[r * N + i] == val(r, round, i), "allgather round %d", round);
                SM_CHECK(agv[r * N + i] == val(r, round, i), "allgatherv round %d", round);
                SM_CHECK(a2a[r * N + i] == val(r, round, me * N + i), "alltoall round %d", round);
                SM_CHECK(a2av[r * N + i] == val(r, round, me * N + i), "alltoallv round %d",
                         round);
                SM_CHECK(a2aw[r * N + i] == val(r, round, me * N + i), "alltoallw round %d",
                         round);
            }
        }
    }

    /* errors: Start on an active request, Request_free of an active request */
    SM_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    SM_MPI(MPI_Start(&rq[BAR]));
    int ec, rc = MPI_Start(&rq[BAR]);
    MPI_Error_class(rc, &ec);
    SM_CHECK(rc != MPI_SUCCESS && ec == MPI_ERR_REQUEST, "Start on an active request: %d", rc);
    MPI_Request keep = rq[BAR];
    rc = MPI_Request_free(&keep);
    SM_CHECK(rc != MPI_SUCCESS, "Request_free of an active persistent collective succeeded");
    SM_MPI(MPI_Wait(&rq[BAR], MPI_STATUS_IGNORE));
    SM_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    /* a persistent collective on a duplicate that is freed before the request */
    MPI_Comm dup;
    MPI_Request ab;
    int x = me + 1, y = 0;
    SM_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    SM_MPI(MPI_Allreduce_init(&x, &y, 1, MPI_INT, MPI_SUM, dup, MPI_INFO_NULL, &ab));
    SM_MPI(MPI_Comm_free(&dup));
    for (int k = 0; k < 2; k++) {
        x = me + 1 + k;
        SM_MPI(MPI_Start(&ab));
        SM_MPI(MPI_Wait(&ab, MPI_STATUS_IGNORE));
        SM_CHECK(y == np * (np + 1) / 2 + k * np, "allreduce on freed dup: %d", y);
    }
    SM_MPI(MPI_Request_free(&ab));

    /* requests match in the order of their *_init calls, not of their starts: odd ranks
     * start them the other way round */
    {
        int b1 = -1, b2 = -1;
        MPI_Request two[2];
        SM_MPI(MPI_Bcast_init(&b1, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &two[0]));
        SM_MPI(MPI_Bcast_init(&b2, 1, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &two[1]));
        for (int round = 0; round < 3; round++) {
            if (me == 0) {
                b1 = 10 + round;
                b2 = 20 + round;
            }
            if (me % 2) {
                SM_MPI(MPI_Start(&two[1]));
                SM_MPI(MPI_Start(&two[0]));
            } else {
                SM_MPI(MPI_Startall(2, two));
            }
            SM_MPI(MPI_Waitall(2, two, MPI_STATUSES_IGNORE));
            SM_CHECK(b1 == 10 + round && b2 == 20 + round, "start order: %d %d", b1, b2);
        }
        SM_MPI(MPI_Request_free(&two[0]));
        SM_MPI(MPI_Request_free(&two[1]));
    }

    for (int k = 0; k < NK; k++) { /* inactive: freeing is allowed */
        SM_MPI(MPI_Request_free(&rq[k]));
        SM_CHECK(rq[k] == MPI_REQUEST_NULL, "Request_free did not null the handle");
    }
    free(sb); free(rb); free(cnt); free(dsp); free(types); free(bdsp);
    free(ga); free(gav); free(ag); free(agv); free(a2a); free(a2av); free(a2aw); free(rsin);
    sm_finish();
    return 0;
}
