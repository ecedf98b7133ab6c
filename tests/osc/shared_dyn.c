/* shared_dyn.c — shared-memory windows (Win_allocate_shared on the ranks of one host:
 * Win_shared_query gives every rank's part, a store by one rank is seen by a load of another
 * after Win_sync + barrier, and RMA Puts reach the same memory) and dynamic windows
 * (Win_create_dynamic, Win_attach of memory whose address travels with MPI_Get_address, then
 * Put, Get and Accumulate by absolute address, Win_detach). */
#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    int *mine;
    MPI_Win sw;
    MPI_Win_allocate_shared((MPI_Aint)(4 * sizeof(int)), sizeof(int), MPI_INFO_NULL, node, &mine,
                            &sw);
    MPI_Win_lock_all(0, sw);
    for (int i = 0; i < 4; i++)
        mine[i] = nr * 10 + i;
    MPI_Win_sync(sw);
    MPI_Barrier(node);
    MPI_Win_sync(sw);
    for (int r = 0; r < ns; r++) {
        MPI_Aint sz;
        int du;
        int *p;
        MPI_Win_shared_query(sw, r, &sz, &du, &p);
        CHECK(sz == 4 * sizeof(int) && du == sizeof(int), "query %d: %ld %d", r, (long)sz, du);
        for (int i = 0; i < 4; i++)
            CHECK(p[i] == r * 10 + i, "load of rank %d [%d] = %d", r, i, p[i]);
    }
    MPI_Barrier(node);
    int v = 500 + nr;
    MPI_Put(&v, 1, MPI_INT, (nr + 1) % ns, 3, 1, MPI_INT, sw);
    MPI_Win_flush_all(sw);
    MPI_Barrier(node);
    MPI_Win_sync(sw);
    CHECK(mine[3] == 500 + (nr + ns - 1) % ns, "put into shared %d", mine[3]);
    MPI_Win_unlock_all(sw);
    int flavor, *fp, flag;
    MPI_Win_get_attr(sw, MPI_WIN_CREATE_FLAVOR, &fp, &flag);
    flavor = *fp;
    CHECK(flag && flavor == MPI_WIN_FLAVOR_SHARED, "flavor %d", flavor);
    MPI_Win_free(&sw);
    MPI_Comm_free(&node);

    /* dynamic */
    MPI_Win dw;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw);
    int *mem = calloc(64, sizeof(int));
    MPI_Win_attach(dw, mem, 64 * sizeof(int));
    MPI_Aint addr, *addrs = malloc(sizeof(MPI_Aint) * (size_t)size_);
    MPI_Get_address(mem, &addr);
    MPI_Allgather(&addr, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
    MPI_Win_fence(0, dw);
    int data[8];
    for (int i = 0; i < 8; i++)
        data[i] = rank_ * 100 + i;
    MPI_Put(data, 8, MPI_INT, right, addrs[right] + 8 * (MPI_Aint)sizeof(int), 8, MPI_INT, dw);
    int one = 1;
    MPI_Accumulate(&one, 1, MPI_INT, 0, addrs[0], 1, MPI_INT, MPI_SUM, dw);
    MPI_Win_fence(0, dw);
    for (int i = 0; i < 8; i++)
        CHECK(mem[8 + i] == left * 100 + i, "dynamic put [%d] = %d", i, mem[8 + i]);
    if (rank_ == 0)
        CHECK(mem[0] == size_, "dynamic accumulate %d", mem[0]);
    int back[8];
    MPI_Get(back, 8, MPI_INT, left, addrs[left] + 8 * (MPI_Aint)sizeof(int), 8, MPI_INT, dw);
    MPI_Win_fence(0, dw);
    int ll = (left + size_ - 1) % size_;
    for (int i = 0; i < 8; i++)
        CHECK(back[i] == ll * 100 + i, "dynamic get [%d] = %d", i, back[i]);
    MPI_Win_detach(dw, mem);
    MPI_Win_free(&dw);
    free(mem);
    free(addrs);
    return finish();
}
