/* osc_lock.c — passive-target synchronisation: MPI_Win_lock/unlock (LOCK, LOCK_GRANT, UNLOCK,
 * UNLOCK_ACK messages; the target's queue is in osc_target.c and is served by the channel
 * receiver, so no call of the target is needed), MPI_Win_lock_all/unlock_all (a shared lock on
 * every rank), MPI_MODE_NOCHECK (no lock messages, unlock is a flush), MPI_Win_flush* and
 * MPI_Win_sync. */
#include "osc/osc.h"

/* channel lock held: ask for the lock of rank r */
static int request_lock(MPI_Win w, int r, int type)
{
    w->t[r].lock_type = type;
    w->t[r].granted = 0;
    if (r == w->rank) {
        sm_osc_lock_request(w, r, type);
        return MPI_SUCCESS;
    }
    struct osc_msg h = { 0 };
    h.type = OSC_M_LOCK;
    h.flags = type == MPI_LOCK_EXCLUSIVE ? 1 : 2;
    h.win = w->peers[r].id;
    h.origin = w->rank;
    return sm_osc_send(w->peers[r].world, &h, NULL, 0, NULL, 0);
}

/* channel lock held: wait for the grant */
static int wait_grant(MPI_Win w, int r)
{
    int spins = 0;
    while (!w->t[r].granted) {
        if (r != w->rank && sm_osc_peer_failed(w->peers[r].world))
            return MPI_ERR_PROC_FAILED;
        sm_osc_step(&spins);
    }
    return MPI_SUCCESS;
}

/* channel lock held: release rank r's lock (UNLOCK is ordered after every operation) */
static int request_unlock(MPI_Win w, int r)
{
    if (w->t[r].granted == 2) /* MPI_MODE_NOCHECK: no lock was taken */
        return MPI_SUCCESS;
    if (r == w->rank) {
        sm_osc_lock_release(w, r);
        return MPI_SUCCESS;
    }
    struct osc_msg h = { 0 };
    h.type = OSC_M_UNLOCK;
    h.win = w->peers[r].id;
    h.origin = w->rank;
    w->t[r].acks_wanted++;
    return sm_osc_send(w->peers[r].world, &h, NULL, 0, NULL, 0);
}

int PMPI_Win_lock(int lock_type, int rank, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock";
    SM_TRY(sm_osc_check_win(win, fn));
    if (lock_type != MPI_LOCK_EXCLUSIVE && lock_type != MPI_LOCK_SHARED)
        return sm_osc_error(win, MPI_ERR_LOCKTYPE, fn, "lock type %d", lock_type);
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= win->size)
        return sm_osc_error(win, MPI_ERR_RANK, fn, "rank %d of %d", rank, win->size);
    if (assert & ~MPI_MODE_NOCHECK)
        return sm_osc_error(win, MPI_ERR_ASSERT, fn, "invalid assertion %d", assert);
    if (win->t[rank].lock_type || win->lock_all)
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "rank %d is already locked", rank);
    int rc = MPI_SUCCESS;
    sm_rma_chan_lock();
    if (assert & MPI_MODE_NOCHECK) {
        win->t[rank].lock_type = lock_type;
        win->t[rank].granted = 2;
    } else {
        rc = request_lock(win, rank, lock_type);
        if (rc == MPI_SUCCESS)
            rc = wait_grant(win, rank);
    }
    if (rc != MPI_SUCCESS)
        win->t[rank].lock_type = 0;
    else
        win->nlocks++;
    sm_rma_chan_unlock();
    return rc ? sm_osc_error(win, rc, fn, "rank %d unreachable", rank) : MPI_SUCCESS;
}

int PMPI_Win_unlock(int rank, MPI_Win win)
{
    const char *fn = "MPI_Win_unlock";
    SM_TRY(sm_osc_check_win(win, fn));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank < 0 || rank >= win->size)
        return sm_osc_error(win, MPI_ERR_RANK, fn, "rank %d of %d", rank, win->size);
    if (!win->t[rank].lock_type || win->lock_all)
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "rank %d is not locked", rank);
    int rc = MPI_SUCCESS;
    if (win->t[rank].granted == 2)
        rc = sm_osc_flush(win, rank, 0);
    int spins = 0;
    sm_rma_chan_lock();
    if (rc == MPI_SUCCESS)
        rc = request_unlock(win, rank);
    while (rc == MPI_SUCCESS && win->t[rank].acks < win->t[rank].acks_wanted) {
        if (sm_osc_peer_failed(win->peers[rank].world)) {
            rc = MPI_ERR_PROC_FAILED;
            win->t[rank].acks = win->t[rank].acks_wanted;
            break;
        }
        sm_osc_step(&spins);
    }
    win->t[rank].lock_type = 0;
    win->t[rank].granted = 0;
    win->t[rank].dirty = 0;
    win->nlocks--;
    sm_rma_chan_unlock();
    int rc2 = sm_osc_complete_ops(win, rank);
    if (!rc)
        rc = rc2;
    return rc ? sm_osc_error(win, rc, fn, "rank %d failed", rank) : MPI_SUCCESS;
}

int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_lock_all";
    SM_TRY(sm_osc_check_win(win, fn));
    if (assert & ~MPI_MODE_NOCHECK)
        return sm_osc_error(win, MPI_ERR_ASSERT, fn, "invalid assertion %d", assert);
    if (win->lock_all || win->nlocks)
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "a lock epoch is already open");
    int rc = MPI_SUCCESS;
    sm_rma_chan_lock();
    for (int r = 0; r < win->size && rc == MPI_SUCCESS; r++) {
        if (assert & MPI_MODE_NOCHECK) {
            win->t[r].lock_type = MPI_LOCK_SHARED;
            win->t[r].granted = 2;
        } else {
            rc = request_lock(win, r, MPI_LOCK_SHARED);
        }
    }
    for (int r = 0; r < win->size && rc == MPI_SUCCESS; r++)
        rc = wait_grant(win, r);
    win->lock_all = 1;
    sm_rma_chan_unlock();
    return rc ? sm_osc_error(win, rc, fn, "a rank is unreachable") : MPI_SUCCESS;
}

int PMPI_Win_unlock_all(MPI_Win win)
{
    const char *fn = "MPI_Win_unlock_all";
    SM_TRY(sm_osc_check_win(win, fn));
    if (!win->lock_all)
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "no lock_all epoch is open");
    int rc = MPI_SUCCESS;
    if (win->t[0].granted == 2)
        rc = sm_osc_flush(win, -1, 1);
    int spins = 0;
    sm_rma_chan_lock();
    for (int r = 0; r < win->size; r++) {
        int e = request_unlock(win, r);
        if (e && !rc)
            rc = e;
    }
    for (int r = 0; r < win->size; r++) {
        while (win->t[r].acks < win->t[r].acks_wanted) {
            if (sm_osc_peer_failed(win->peers[r].world)) {
                rc = MPI_ERR_PROC_FAILED;
                win->t[r].acks = win->t[r].acks_wanted;
                break;
            }
            sm_osc_step(&spins);
        }
        win->t[r].lock_type = 0;
        win->t[r].granted = 0;
        win->t[r].dirty = 0;
    }
    win->lock_all = 0;
    sm_rma_chan_unlock();
    int rc2 = sm_osc_complete_ops(win, -1);
    if (!rc)
        rc = rc2;
    return rc ? sm_osc_error(win, rc, fn, "a rank failed") : MPI_SUCCESS;
}

static int flush_common(MPI_Win win, int rank, const char *fn)
{
    SM_TRY(sm_osc_check_win(win, fn));
    if (rank == MPI_PROC_NULL)
        return MPI_SUCCESS;
    if (rank != -1 && (rank < 0 || rank >= win->size))
        return sm_osc_error(win, MPI_ERR_RANK, fn, "rank %d of %d", rank, win->size);
    if (!win->lock_all && (rank == -1 ? !win->nlocks : !win->t[rank].lock_type))
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "no passive-target epoch is open");
    int rc = sm_osc_flush(win, rank, rank == -1);
    return rc ? sm_osc_error(win, rc, fn, "a target failed") : MPI_SUCCESS;
}

int PMPI_Win_flush(int rank, MPI_Win win)
{
    return flush_common(win, rank, "MPI_Win_flush");
}

int PMPI_Win_flush_all(MPI_Win win)
{
    return flush_common(win, -1, "MPI_Win_flush_all");
}

int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    return flush_common(win, rank, "MPI_Win_flush_local");
}

int PMPI_Win_flush_local_all(MPI_Win win)
{
    return flush_common(win, -1, "MPI_Win_flush_local_all");
}

int PMPI_Win_sync(MPI_Win win)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_sync"));
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return MPI_SUCCESS;
}
