/* osc_fence.c — active-target synchronisation by MPI_Win_fence: every target this rank sent
 * operations to since the last fence gets a FLUSH and answers once they are all applied
 * (messages are delivered in order, so the answer also proves every earlier RDMA Write
 * placed), local results are unpacked, then a barrier over the window's communicator tells
 * every rank that all operations on its memory are done. */
#include "osc/osc.h"

#define OSC_MODES                                                                                \
    (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE |                 \
     MPI_MODE_NOSUCCEED)

int PMPI_Win_fence(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_fence";
    SM_TRY(sm_osc_check_win(win, fn));
    if (assert & ~OSC_MODES)
        return sm_osc_error(win, MPI_ERR_ASSERT, fn, "invalid assertion %d", assert);
    if (win->nlocks || win->lock_all || win->pscw_access || win->pscw_exposure)
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn,
                            "a lock or post/start epoch is open on this window");
    int rc = sm_osc_flush(win, -1, 1);
    if (rc != MPI_SUCCESS)
        return sm_osc_error(win, rc, fn, "operations of the closing epoch failed");
    rc = PMPI_Barrier(win->comm);
    if (rc != MPI_SUCCESS)
        return sm_osc_error(win, rc, fn, "the fence's barrier failed");
    win->fence_open = !(assert &MPI_MODE_NOSUCCEED);
    return MPI_SUCCESS;
}
