/* fix_suite.c — regressions found with MPICH's rma tests:
 *  - a Put whose target type has 200 000 one-int blocks, and 5000 separate one-int Puts in one
 *    epoch, each once meant that many RDMA Writes in flight, more than the peer tracks, and the
 *    queue pair failed (transpose1/7);
 *  - an access spanning two adjacent regions attached to a dynamic window was refused
 *    (win_dynamic_rma_flush_get);
 *  - operations with zero-size datatypes failed with MPI_ERR_TYPE (badrma);
 *  - Win_shared_query failed on windows that are not shared, and gave a non-NULL base for a rank
 *    whose shared part is empty (win_shared_query, win_shared_noncontig_put). */
#include "../common/mpi_test.h"

#define NB 200000

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
    int *mem = calloc(2 * NB, sizeof(int)), *src = malloc(NB * sizeof(int));
    MPI_Win win;
    MPI_Win_create(mem, 2 * NB * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Datatype every2;
    MPI_Type_vector(NB, 1, 2, MPI_INT, &every2);
    MPI_Type_commit(&every2);
    for (int i = 0; i < NB; i++)
        src[i] = rank_ * 1000000 + i;
    MPI_Win_fence(0, win);
    MPI_Put(src, NB, MPI_INT, right, 0, 1, every2, win);
    MPI_Win_fence(0, win);
    for (int i = 0; i < NB; i++)
        CHECK(mem[2 * i] == left * 1000000 + i && mem[2 * i + 1] == 0, "strided put [%d] = %d",
              i, mem[2 * i]);
    MPI_Barrier(MPI_COMM_WORLD); /* checked before the neighbour writes the odd slots */
    MPI_Win_lock(MPI_LOCK_SHARED, right, 0, win);
    for (int i = 0; i < 5000; i++)
        MPI_Put(&src[i], 1, MPI_INT, right, 2 * i + 1, 1, MPI_INT, win);
    MPI_Win_unlock(right, win);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 5000; i++)
        CHECK(mem[2 * i + 1] == left * 1000000 + i, "single puts [%d] = %d", i, mem[2 * i + 1]);
    /* zero-size types: nothing moves, no error */
    MPI_Datatype empty;
    MPI_Type_contiguous(0, MPI_INT, &empty);
    MPI_Type_commit(&empty);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    MPI_Win_fence(0, win);
    CHECK(MPI_Put(src, 1, empty, right, 0, 0, MPI_INT, win) == MPI_SUCCESS, "zero put");
    CHECK(MPI_Accumulate(src, 1, empty, right, 0, 1, empty, MPI_SUM, win) == MPI_SUCCESS,
          "zero accumulate");
    CHECK(MPI_Get_accumulate(NULL, 0, MPI_INT, NULL, 0, MPI_DOUBLE, right, 0, 0, MPI_INT,
                             MPI_SUM, win) == MPI_SUCCESS, "zero get_accumulate");
    MPI_Win_fence(0, win);
    /* shared_query on a window that is not shared: the own memory only */
    MPI_Aint sz;
    int du;
    int *p;
    CHECK(MPI_Win_shared_query(win, rank_, &sz, &du, &p) == MPI_SUCCESS && p == mem &&
          sz == 2 * NB * (MPI_Aint)sizeof(int), "shared_query on Win_create");
    MPI_Type_free(&empty);
    MPI_Type_free(&every2);
    MPI_Win_free(&win);

    /* dynamic window: one Put and one Get across two adjacent attached regions */
    int *dmem = calloc(64, sizeof(int));
    MPI_Win dw;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw);
    MPI_Win_attach(dw, dmem, 32 * sizeof(int));
    MPI_Win_attach(dw, dmem + 32, 32 * sizeof(int));
    MPI_Aint a, *addrs = malloc(sizeof(MPI_Aint) * (size_t)size_);
    MPI_Get_address(dmem, &a);
    MPI_Allgather(&a, 1, MPI_AINT, addrs, 1, MPI_AINT, MPI_COMM_WORLD);
    int v[40], back[40];
    for (int i = 0; i < 40; i++)
        v[i] = rank_ * 100 + i;
    MPI_Win_lock_all(0, dw);
    MPI_Put(v, 40, MPI_INT, right, addrs[right] + 12 * (MPI_Aint)sizeof(int), 40, MPI_INT, dw);
    MPI_Win_flush(right, dw);
    MPI_Get(back, 40, MPI_INT, right, addrs[right] + 12 * (MPI_Aint)sizeof(int), 40, MPI_INT,
            dw);
    MPI_Win_flush(right, dw);
    MPI_Win_unlock_all(dw);
    for (int i = 0; i < 40; i++)
        CHECK(back[i] == rank_ * 100 + i, "spanning get [%d] = %d", i, back[i]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < 40; i++)
        CHECK(dmem[12 + i] == left * 100 + i, "spanning put [%d] = %d", i, dmem[12 + i]);
    MPI_Win_detach(dw, dmem);
    MPI_Win_detach(dw, dmem + 32);
    MPI_Win_free(&dw);

    /* shared window where odd ranks have no part */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr, ns;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    int *sbase;
    MPI_Win sw;
    MPI_Win_allocate_shared(nr % 2 ? 0 : 16, 4, MPI_INFO_NULL, node, &sbase, &sw);
    for (int r = 0; r < ns; r++) {
        MPI_Win_shared_query(sw, r, &sz, &du, &p);
        CHECK(r % 2 ? (sz == 0 && p == NULL) : (sz == 16 && p != NULL), "part of %d: %ld %p", r,
              (long)sz, (void *)p);
    }
    MPI_Win_free(&sw);
    MPI_Comm_free(&node);
    free(mem);
    free(src);
    free(dmem);
    free(addrs);
    return finish();
}
