/* fix_bottom.c — MPI_BOTTOM with absolute addresses: MPI_Neighbor_alltoallw and MPI_Alltoallw
 * whose buffers are MPI_BOTTOM and whose byte displacements are MPI_Get_address results (with
 * predefined types), and point-to-point with a struct type of absolute addresses. */
#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int n = size_;
    int *sv = xmalloc(sizeof(int) * (size_t)n), *rv = xmalloc(sizeof(int) * (size_t)n);
    int *one = xmalloc(sizeof(int) * (size_t)n);
    MPI_Aint *sd = xmalloc(sizeof(MPI_Aint) * (size_t)n), *rd = xmalloc(sizeof(MPI_Aint) * (size_t)n);
    int *isd = xmalloc(sizeof(int) * (size_t)n), *ird = xmalloc(sizeof(int) * (size_t)n);
    MPI_Datatype *ty = xmalloc(sizeof(MPI_Datatype) * (size_t)n);

    /* a periodic ring: neighbours left, right (the same rank twice for 1 or 2 ranks) */
    MPI_Comm ring;
    int periods = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &n, &periods, 0, &ring);
    int left, right;
    MPI_Cart_shift(ring, 0, 1, &left, &right);
    int s2[2] = {rank_ * 10 + 1, rank_ * 10 + 2}, r2[2] = {-1, -1}, c2[2] = {1, 1};
    MPI_Aint a_s[2], a_r[2];
    MPI_Datatype t2[2] = {MPI_INT, MPI_INT};
    for (int k = 0; k < 2; k++) {
        MPI_Get_address(&s2[k], &a_s[k]);
        MPI_Get_address(&r2[k], &a_r[k]);
    }
    MPI_Neighbor_alltoallw(MPI_BOTTOM, c2, a_s, t2, MPI_BOTTOM, c2, a_r, t2, ring);
    /* from the left neighbour its message to the right (second), and vice versa */
    CHECK(r2[0] == left * 10 + 2 && r2[1] == right * 10 + 1,
          "neighbor alltoallw at MPI_BOTTOM: %d %d", r2[0], r2[1]);
    r2[0] = r2[1] = -1;
    MPI_Request req;
    MPI_Ineighbor_alltoallw(MPI_BOTTOM, c2, a_s, t2, MPI_BOTTOM, c2, a_r, t2, ring, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    CHECK(r2[0] == left * 10 + 2 && r2[1] == right * 10 + 1, "ineighbor alltoallw");
    MPI_Comm_free(&ring);

    /* Alltoallw at MPI_BOTTOM */
    for (int i = 0; i < n; i++) {
        sv[i] = rank_ * 100 + i, rv[i] = -1, one[i] = 1, ty[i] = MPI_INT;
        MPI_Get_address(&sv[i], &sd[i]);
        MPI_Get_address(&rv[i], &rd[i]);
        isd[i] = (int)(sd[i] - sd[0]);
        ird[i] = (int)(rd[i] - rd[0]);
    }
    /* int displacements cannot hold absolute addresses: a struct type does, see below; here the
     * buffers are real and MPI_BOTTOM is used by the point-to-point part */
    MPI_Alltoallw(sv, one, isd, ty, rv, one, ird, ty, MPI_COMM_WORLD);
    for (int i = 0; i < n; i++)
        CHECK(rv[i] == i * 100 + rank_, "alltoallw rv[%d] = %d", i, rv[i]);

    /* point-to-point and a collective with an absolute-address struct type at MPI_BOTTOM */
    MPI_Datatype abs_s, abs_r;
    int bl[2] = {1, 1};
    MPI_Type_create_struct(2, bl, a_s, t2, &abs_s);
    MPI_Type_create_struct(2, bl, a_r, t2, &abs_r);
    MPI_Type_commit(&abs_s);
    MPI_Type_commit(&abs_r);
    int to = (rank_ + 1) % n, from = (rank_ - 1 + n) % n;
    r2[0] = r2[1] = -1;
    MPI_Sendrecv(MPI_BOTTOM, 1, abs_s, to, 5, MPI_BOTTOM, 1, abs_r, from, 5, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    CHECK(r2[0] == from * 10 + 1 && r2[1] == from * 10 + 2, "sendrecv at MPI_BOTTOM");
    r2[0] = r2[1] = -1;
    if (rank_ == 0) {
        r2[0] = s2[0], r2[1] = s2[1];
    }
    MPI_Bcast(MPI_BOTTOM, 1, abs_r, 0, MPI_COMM_WORLD);
    CHECK(r2[0] == 1 && r2[1] == 2, "bcast at MPI_BOTTOM: %d %d", r2[0], r2[1]);
    MPI_Type_free(&abs_s);
    MPI_Type_free(&abs_r);
    free(sv), free(rv), free(one), free(sd), free(rd), free(isd), free(ird), free(ty);
    return finish();
}
