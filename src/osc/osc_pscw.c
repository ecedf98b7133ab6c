/* osc_pscw.c — general active-target synchronisation: MPI_Win_post sends POST to every origin
 * of the group; MPI_Win_start waits for POST from every target of its group (unless
 * MPI_MODE_NOCHECK); MPI_Win_complete sends COMPLETE after the epoch's operations (delivered
 * after them, so the target's count proves they are applied) and finishes local results;
 * MPI_Win_wait / MPI_Win_test wait for one COMPLETE per origin of the post group. */
#include <stdlib.h>

#include "osc/osc.h"

/* the group's members as window ranks */
static int group_ranks(MPI_Win w, MPI_Group g, int **out, const char *fn)
{
    if (!g || !g->valid)
        return sm_osc_error(w, MPI_ERR_GROUP, fn, "null or freed group");
    int *r = sm_xmalloc(sizeof(int) * (size_t)(g->size ? g->size : 1));
    for (int i = 0; i < g->size; i++) {
        r[i] = sm_comm_rank_of_world(w->comm, g->world_of ? g->world_of[i] : i);
        if (r[i] < 0) {
            free(r);
            return sm_osc_error(w, MPI_ERR_GROUP, fn, "group member %d is not in the window", i);
        }
    }
    *out = r;
    return MPI_SUCCESS;
}

int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_post";
    SM_TRY(sm_osc_check_win(win, fn));
    if (win->pscw_exposure)
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "an exposure epoch is already open");
    int *r;
    SM_TRY(group_ranks(win, group, &r, fn));
    int err = MPI_SUCCESS;
    sm_rma_chan_lock();
    win->expose_count = group->size;
    win->pscw_exposure = 1;
    if (!(assert &MPI_MODE_NOCHECK))
        for (int i = 0; i < group->size; i++) {
            if (r[i] == win->rank) {
                win->t[r[i]].posts++;
                continue;
            }
            struct osc_msg h = { 0 };
            h.type = OSC_M_POST;
            h.win = win->peers[r[i]].id;
            h.origin = win->rank;
            if (sm_osc_send(win->peers[r[i]].world, &h, NULL, 0, NULL, 0) != MPI_SUCCESS)
                err = MPI_ERR_PROC_FAILED;
        }
    sm_rma_chan_unlock();
    free(r);
    return err ? sm_osc_error(win, err, fn, "an origin is unreachable") : MPI_SUCCESS;
}

int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    const char *fn = "MPI_Win_start";
    SM_TRY(sm_osc_check_win(win, fn));
    if (win->pscw_access)
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "an access epoch is already open");
    int *r;
    SM_TRY(group_ranks(win, group, &r, fn));
    int err = MPI_SUCCESS, spins = 0;
    sm_rma_chan_lock();
    for (int i = 0; i < group->size; i++) {
        win->t[r[i]].in_access = 1;
        if (assert & MPI_MODE_NOCHECK)
            continue;
        while (win->t[r[i]].posts == 0) {
            if (r[i] != win->rank && sm_osc_peer_failed(win->peers[r[i]].world)) {
                err = MPI_ERR_PROC_FAILED;
                break;
            }
            sm_osc_step(&spins);
        }
        if (win->t[r[i]].posts > 0)
            win->t[r[i]].posts--;
    }
    sm_rma_chan_unlock();
    free(win->access_ranks);
    win->access_ranks = r;
    win->naccess = group->size;
    win->pscw_access = 1;
    return err ? sm_osc_error(win, err, fn, "a target failed") : MPI_SUCCESS;
}

int PMPI_Win_complete(MPI_Win win)
{
    const char *fn = "MPI_Win_complete";
    SM_TRY(sm_osc_check_win(win, fn));
    if (!win->pscw_access)
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "no access epoch is open");
    int err = MPI_SUCCESS;
    sm_rma_chan_lock();
    for (int i = 0; i < win->naccess; i++) {
        int t = win->access_ranks[i];
        win->t[t].in_access = 0;
        win->t[t].dirty = 0;
        if (t == win->rank) {
            win->completes++;
            continue;
        }
        struct osc_msg h = { 0 };
        h.type = OSC_M_COMPLETE;
        h.win = win->peers[t].id;
        h.origin = win->rank;
        if (sm_osc_send(win->peers[t].world, &h, NULL, 0, NULL, 0) != MPI_SUCCESS)
            err = MPI_ERR_PROC_FAILED;
    }
    sm_rma_chan_unlock();
    int rc = sm_osc_complete_ops(win, -1);
    win->pscw_access = 0;
    win->naccess = 0;
    if (!err)
        err = rc;
    return err ? sm_osc_error(win, err, fn, "a target failed") : MPI_SUCCESS;
}

static int wait_or_test(MPI_Win win, int *flag, const char *fn)
{
    SM_TRY(sm_osc_check_win(win, fn));
    if (!win->pscw_exposure)
        return sm_osc_error(win, MPI_ERR_RMA_SYNC, fn, "no exposure epoch is open");
    int spins = 0;
    sm_rma_chan_lock();
    if (flag) {
        sm_osc_step(&spins);
        *flag = win->completes >= win->expose_count;
    } else {
        while (win->completes < win->expose_count)
            sm_osc_step(&spins);
    }
    int done = win->completes >= win->expose_count;
    if (done) {
        win->completes -= win->expose_count;
        win->expose_count = 0;
        win->pscw_exposure = 0;
    }
    sm_rma_chan_unlock();
    return MPI_SUCCESS;
}

int PMPI_Win_wait(MPI_Win win)
{
    return wait_or_test(win, NULL, "MPI_Win_wait");
}

int PMPI_Win_test(MPI_Win win, int *flag)
{
    if (!flag)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Win_test", "NULL flag");
    return wait_or_test(win, flag, "MPI_Win_test");
}
