/* neighbor_init.c — the persistent neighbourhood collectives (MPI-4 MPI_Neighbor_*_init) on a
 * periodic 1-D Cartesian ring: each started three times with new data, checked against what
 * the left and right neighbours sent, then freed. */
#include "../common/mpi_test.h"

#define N 3

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm ring;
    int dims[1] = {size_}, periods[1] = {1};
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
    int left, right;
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    /* neighbours in the order the standard gives for a Cartesian topology: left (-1), right (+1) */
    int sb[2 * N], ag[2 * N], agv[2 * N], a2a[2 * N], a2av[2 * N], a2aw[2 * N], mine[N];
    int cnt[2] = {N, N}, dsp[2] = {0, N};
    MPI_Aint bdsp[2] = {0, N * (MPI_Aint)sizeof(int)};
    MPI_Datatype types[2] = {MPI_INT, MPI_INT};
    MPI_Request rq[5];
    MPI_Neighbor_allgather_init(mine, N, MPI_INT, ag, N, MPI_INT, ring, MPI_INFO_NULL, &rq[0]);
    MPI_Neighbor_allgatherv_init(mine, N, MPI_INT, agv, cnt, dsp, MPI_INT, ring, MPI_INFO_NULL,
                                 &rq[1]);
    MPI_Neighbor_alltoall_init(sb, N, MPI_INT, a2a, N, MPI_INT, ring, MPI_INFO_NULL, &rq[2]);
    MPI_Neighbor_alltoallv_init(sb, cnt, dsp, MPI_INT, a2av, cnt, dsp, MPI_INT, ring,
                                MPI_INFO_NULL, &rq[3]);
    MPI_Neighbor_alltoallw_init(sb, cnt, bdsp, types, a2aw, cnt, bdsp, types, ring,
                                MPI_INFO_NULL, &rq[4]);
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < N; i++) {
            mine[i] = 1000 * rank_ + 100 * round + i;
            sb[i] = 1000 * rank_ + 100 * round + 10 + i;     /* to the left neighbour */
            sb[N + i] = 1000 * rank_ + 100 * round + 20 + i; /* to the right neighbour */
        }
        for (int i = 0; i < 2 * N; i++)
            ag[i] = agv[i] = a2a[i] = a2av[i] = a2aw[i] = -1;
        MPI_Startall(5, rq);
        MPI_Waitall(5, rq, MPI_STATUSES_IGNORE);
        for (int i = 0; i < N; i++) {
            int from_left = 1000 * left + 100 * round + i, from_right = 1000 * right + 100 * round + i;
            CHECK(ag[i] == from_left && ag[N + i] == from_right, "allgather round %d", round);
            CHECK(agv[i] == from_left && agv[N + i] == from_right, "allgatherv round %d", round);
            /* the left neighbour sent me its "to the right" block, the right one its "to the left" */
            int l = from_left + 20, r = from_right + 10;
            CHECK(a2a[i] == l && a2a[N + i] == r, "alltoall round %d: %d %d", round, a2a[i],
                  a2a[N + i]);
            CHECK(a2av[i] == l && a2av[N + i] == r, "alltoallv round %d", round);
            CHECK(a2aw[i] == l && a2aw[N + i] == r, "alltoallw round %d", round);
        }
    }
    for (int k = 0; k < 5; k++)
        MPI_Request_free(&rq[k]);
    MPI_Comm_free(&ring);
    return finish();
}
