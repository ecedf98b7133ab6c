/* osc_win.c — window objects: the creation flavours (Win_create, Win_allocate,
 * Win_create_dynamic with Win_attach/detach; Win_allocate_shared is in osc_shm.c), Win_free,
 * the window's group, attributes, info, name and error handler, and the error path every
 * window call reports through.  Creation registers this rank's memory in the protection
 * domain with remote read/write/atomic rights and allgathers every rank's STag, size,
 * displacement unit and window id over a private duplicate of the communicator. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "osc/osc.h"

int sm_osc_error(MPI_Win win, int err, const char *fn, const char *fmt, ...)
{
    int valid = win && win->valid;
    va_list ap;
    va_start(ap, fmt);
    int rc = sm_errh_vraise(valid && win->errh ? win->errh : MPI_ERRORS_ARE_FATAL, SM_ERRH_WIN,
                            &win, err, valid ? win->comm : MPI_COMM_WORLD, fn, fmt, ap);
    va_end(ap);
    return rc;
}

int sm_osc_check_win(MPI_Win win, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!win || !win->valid)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_WIN, fn, "null or freed window");
    return MPI_SUCCESS;
}

int sm_osc_win_setup(MPI_Comm comm, void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                     int flavor, MPI_Win *win, const char *fn)
{
    SM_TRY(sm_check_comm(comm, fn));
    if (!win)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL window pointer");
    *win = MPI_WIN_NULL;
    if (sm_comm_is_inter(comm))
        return sm_error(comm, MPI_ERR_COMM, fn, "windows need an intracommunicator");
    if (size < 0)
        return sm_error(comm, MPI_ERR_SIZE, fn, "negative size %zd", (ssize_t)size);
    if (disp_unit <= 0)
        return sm_error(comm, MPI_ERR_DISP, fn, "displacement unit %d", disp_unit);
    if (info != MPI_INFO_NULL && !sm_info_valid(info))
        return sm_error(comm, MPI_ERR_INFO, fn, "invalid info");
    sm_rma_chan_lock();
    int rc = sm_osc_init();
    sm_rma_chan_unlock();
    if (rc != MPI_SUCCESS)
        return sm_error(comm, rc, fn, "one-sided communication is not available");
    struct sctpmpi_win *w = sm_xcalloc(1, sizeof *w);
    /* a private copy of the group (a split: the program's attribute callbacks do not run) */
    rc = PMPI_Comm_split(comm, 0, comm->rank, &w->comm);
    if (rc != MPI_SUCCESS) {
        free(w);
        return rc;
    }
    PMPI_Comm_set_errhandler(w->comm, MPI_ERRORS_RETURN);
    w->valid = 1;
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->rank = comm->rank;
    w->size = comm->size;
    w->base = base;
    w->wsize = size;
    w->disp_unit = disp_unit;
    w->errh = MPI_ERRORS_ARE_FATAL;
    w->excl_holder = -1;
    w->info = info != MPI_INFO_NULL ? sm_info_dup(info) : MPI_INFO_NULL;
    w->attr_size = size;
    w->attr_disp_unit = disp_unit;
    w->attr_flavor = flavor;
    w->attr_model = w->model;
    w->t = sm_xcalloc((size_t)w->size, sizeof *w->t);
    w->peers = sm_xcalloc((size_t)w->size, sizeof *w->peers);
    struct osc_rinfo me = { 0 };
    sm_rma_chan_lock();
    if (size > 0 && flavor != MPI_WIN_FLAVOR_DYNAMIC) {
        unsigned acc = SM_RDMA_LOCAL_READ | SM_RDMA_LOCAL_WRITE | SM_RDMA_REMOTE_READ |
                       SM_RDMA_REMOTE_WRITE | SM_RDMA_REMOTE_ATOMIC;
        if (sm_rdma_reg(sm_osc_pd, base, (size_t)size, acc, &w->stag) == 0)
            w->have_stag = 1;
    }
    w->id = sm_osc_win_register(w);
    me.stag = w->stag;
    me.credit_stag = sm_osc_credit_stag();
    sm_rma_chan_unlock();
    me.size = (uint64_t)size;
    me.base = (uint64_t)(uintptr_t)base;
    me.disp_unit = disp_unit;
    me.id = w->id;
    me.world = sm_world_rank();
    rc = PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, w->peers, (int)sizeof me, MPI_BYTE,
                        w->comm);
    int ok = w->id != 0 && (size == 0 || flavor == MPI_WIN_FLAVOR_DYNAMIC || w->have_stag);
    /* the one-sided layer names peers by world rank (credit slots, queue pairs): a window over
     * processes of another job (dynamic processes) is refused on every member, never left to
     * hang; -1 wins the MIN below */
    for (int r = 0; r < w->size; r++)
        if (sm_comm_world_rank(w->comm, r) >= sm_world_size())
            ok = -1;
    int all_ok = 0;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, w->comm);
    if (rc != MPI_SUCCESS || all_ok <= 0) {
        sm_rma_chan_lock();
        sm_osc_win_unregister(w);
        if (w->have_stag)
            sm_rdma_dereg(sm_osc_pd, w->stag);
        sm_rma_chan_unlock();
        PMPI_Comm_free(&w->comm);
        free(w->t);
        free(w->peers);
        free(w);
        if (rc == MPI_SUCCESS && all_ok < 0)
            return sm_error(comm, MPI_ERR_UNSUPPORTED_OPERATION, fn,
                            "windows over processes of more than one job (dynamic processes) "
                            "are not supported");
        return sm_error(comm, rc != MPI_SUCCESS ? rc : MPI_ERR_NO_MEM, fn,
                        "could not set up the window");
    }
    sm_rma_chan_lock();
    for (int r = 0; r < w->size; r++)
        if (r != w->rank)
            sm_osc_learn_peer(w->peers[r].world, w->peers[r].credit_stag);
    sm_rma_chan_unlock();
    *win = w;
    return MPI_SUCCESS;
}

int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return sm_osc_win_setup(comm, base, size, disp_unit, info, MPI_WIN_FLAVOR_CREATE, win,
                            "MPI_Win_create");
}

int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    const char *fn = "MPI_Win_allocate";
    SM_TRY(sm_check_comm(comm, fn));
    if (!baseptr)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL base pointer");
    if (size < 0)
        return sm_error(comm, MPI_ERR_SIZE, fn, "negative size %zd", (ssize_t)size);
    void *mem = NULL;
    if (posix_memalign(&mem, 64, size ? (size_t)size : 64) != 0)
        return sm_error(comm, MPI_ERR_NO_MEM, fn, "%zd bytes", (ssize_t)size);
    int rc = sm_osc_win_setup(comm, mem, size, disp_unit, info, MPI_WIN_FLAVOR_ALLOCATE, win, fn);
    if (rc != MPI_SUCCESS) {
        free(mem);
        return rc;
    }
    *(void **)baseptr = mem;
    return MPI_SUCCESS;
}

int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return sm_osc_win_setup(comm, MPI_BOTTOM, 0, 1, info, MPI_WIN_FLAVOR_DYNAMIC, win,
                            "MPI_Win_create_dynamic");
}

int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    const char *fn = "MPI_Win_attach";
    SM_TRY(sm_osc_check_win(win, fn));
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return sm_osc_error(win, MPI_ERR_RMA_FLAVOR, fn, "not a dynamic window");
    if (size < 0)
        return sm_osc_error(win, MPI_ERR_SIZE, fn, "negative size");
    if (size > 0 && !base)
        return sm_osc_error(win, MPI_ERR_ARG, fn, "NULL base");
    struct osc_region *r = sm_xcalloc(1, sizeof *r);
    r->base = (uint64_t)(uintptr_t)base;
    r->len = (uint64_t)size;
    sm_rma_chan_lock();
    r->next = win->regions;
    win->regions = r;
    sm_rma_chan_unlock();
    return MPI_SUCCESS;
}

int PMPI_Win_detach(MPI_Win win, const void *base)
{
    const char *fn = "MPI_Win_detach";
    SM_TRY(sm_osc_check_win(win, fn));
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return sm_osc_error(win, MPI_ERR_RMA_FLAVOR, fn, "not a dynamic window");
    int found = 0;
    sm_rma_chan_lock();
    for (struct osc_region **p = &win->regions; *p; p = &(*p)->next)
        if ((*p)->base == (uint64_t)(uintptr_t)base) {
            struct osc_region *r = *p;
            *p = r->next;
            free(r);
            found = 1;
            break;
        }
    sm_rma_chan_unlock();
    if (!found)
        return sm_osc_error(win, MPI_ERR_RMA_ATTACH, fn, "no memory attached at %p", base);
    return MPI_SUCCESS;
}

int PMPI_Win_free(MPI_Win *winp)
{
    const char *fn = "MPI_Win_free";
    SM_TRY(sm_check_init(fn));
    if (!winp)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL window pointer");
    MPI_Win w = *winp;
    SM_TRY(sm_osc_check_win(w, fn));
    if (w->nlocks || w->lock_all || w->pscw_access || w->pscw_exposure)
        return sm_osc_error(w, MPI_ERR_RMA_SYNC, fn, "an epoch is still open");
    int rc = sm_osc_complete_ops(w, -1);
    if (rc != MPI_SUCCESS)
        return sm_osc_error(w, rc, fn, "pending operations failed");
    rc = sm_win_attr_delete_all(w);
    if (rc != MPI_SUCCESS)
        return sm_osc_error(w, rc, fn, "an attribute delete callback failed");
    /* nobody may still be accessing this rank's memory */
    PMPI_Barrier(w->comm);
    sm_rma_chan_lock();
    sm_osc_win_unregister(w);
    if (w->have_stag)
        sm_rdma_dereg(sm_osc_pd, w->stag);
    while (w->regions) {
        struct osc_region *r = w->regions;
        w->regions = r->next;
        free(r);
    }
    sm_rma_chan_unlock();
    if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE)
        free(w->base);
    if (w->flavor == MPI_WIN_FLAVOR_SHARED)
        sm_osc_shm_free(w->shm_base, w->shm_len);
    PMPI_Comm_free(&w->comm);
    if (w->info != MPI_INFO_NULL)
        sm_info_free(w->info);
    sm_errh_release(w->errh);
    free(w->waitq);
    free(w->access_ranks);
    free(w->t);
    free(w->peers);
    w->valid = 0;
    free(w);
    *winp = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

int PMPI_Win_get_group(MPI_Win win, MPI_Group *group)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_get_group"));
    if (!group)
        return sm_osc_error(win, MPI_ERR_ARG, "MPI_Win_get_group", "NULL group pointer");
    *group = sm_comm_local_group(win->comm);
    return MPI_SUCCESS;
}

/* ---- attributes -------------------------------------------------------------------------- */
int PMPI_Win_set_attr(MPI_Win win, int keyval, void *val)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_set_attr"));
    if (keyval >= MPI_WIN_BASE && keyval <= MPI_WIN_MODEL)
        return sm_osc_error(win, MPI_ERR_KEYVAL, "MPI_Win_set_attr", "predefined keyval");
    int rc = sm_win_attr_set(win, keyval, val, "MPI_Win_set_attr");
    return rc ? sm_osc_error(win, rc, "MPI_Win_set_attr", NULL) : MPI_SUCCESS;
}

int PMPI_Win_get_attr(MPI_Win win, int keyval, void *val, int *flag)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_get_attr"));
    if (!val || !flag)
        return sm_osc_error(win, MPI_ERR_ARG, "MPI_Win_get_attr", "NULL argument");
    *flag = 1;
    switch (keyval) {
    case MPI_WIN_BASE: *(void **)val = win->base; return MPI_SUCCESS;
    case MPI_WIN_SIZE: *(MPI_Aint **)val = &win->attr_size; return MPI_SUCCESS;
    case MPI_WIN_DISP_UNIT: *(int **)val = &win->attr_disp_unit; return MPI_SUCCESS;
    case MPI_WIN_CREATE_FLAVOR: *(int **)val = &win->attr_flavor; return MPI_SUCCESS;
    case MPI_WIN_MODEL: *(int **)val = &win->attr_model; return MPI_SUCCESS;
    }
    *flag = 0;
    int rc = sm_win_attr_get(win, keyval, val, flag, "MPI_Win_get_attr");
    return rc ? sm_osc_error(win, rc, "MPI_Win_get_attr", "invalid keyval %d", keyval)
              : MPI_SUCCESS;
}

int PMPI_Win_delete_attr(MPI_Win win, int keyval)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_delete_attr"));
    int rc = sm_win_attr_delete(win, keyval, "MPI_Win_delete_attr");
    return rc ? sm_osc_error(win, rc, "MPI_Win_delete_attr", NULL) : MPI_SUCCESS;
}

/* ---- error handlers ---------------------------------------------------------------------- */
int PMPI_Win_set_errhandler(MPI_Win win, MPI_Errhandler errhandler)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_set_errhandler"));
    if (!errhandler)
        return sm_osc_error(win, MPI_ERR_ARG, "MPI_Win_set_errhandler", "null error handler");
    sm_errh_set(&win->errh, errhandler);
    return MPI_SUCCESS;
}

int PMPI_Win_get_errhandler(MPI_Win win, MPI_Errhandler *errhandler)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_get_errhandler"));
    if (!errhandler)
        return sm_osc_error(win, MPI_ERR_ARG, "MPI_Win_get_errhandler", "NULL argument");
    sm_errh_get(win->errh, errhandler);
    return MPI_SUCCESS;
}

int PMPI_Win_call_errhandler(MPI_Win win, int errorcode)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_call_errhandler"));
    sm_osc_error(win, errorcode, "MPI_Win_call_errhandler", NULL);
    return MPI_SUCCESS;
}

/* ---- names and info ---------------------------------------------------------------------- */
int PMPI_Win_set_name(MPI_Win win, const char *name)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_set_name"));
    if (!name)
        return sm_osc_error(win, MPI_ERR_ARG, "MPI_Win_set_name", "NULL name");
    snprintf(win->name, sizeof win->name, "%s", name);
    return MPI_SUCCESS;
}

int PMPI_Win_get_name(MPI_Win win, char *name, int *resultlen)
{
    if (win == MPI_WIN_NULL && name && resultlen) { /* MPI-4.1: the null handle's name */
        SM_TRY(sm_check_init("MPI_Win_get_name"));
        *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "MPI_WIN_NULL");
        return MPI_SUCCESS;
    }
    SM_TRY(sm_osc_check_win(win, "MPI_Win_get_name"));
    if (!name || !resultlen)
        return sm_osc_error(win, MPI_ERR_ARG, "MPI_Win_get_name", "NULL argument");
    snprintf(name, MPI_MAX_OBJECT_NAME, "%s", win->name);
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

int PMPI_Win_set_info(MPI_Win win, MPI_Info info)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_set_info"));
    if (info == MPI_INFO_NULL || !sm_info_valid(info))
        return sm_osc_error(win, MPI_ERR_INFO, "MPI_Win_set_info", "invalid info");
    if (win->info == MPI_INFO_NULL) {
        win->info = sm_info_dup(info);
        return MPI_SUCCESS;
    }
    int n = 0;
    PMPI_Info_get_nkeys(info, &n);
    for (int i = 0; i < n; i++) {
        char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
        int flag = 0;
        PMPI_Info_get_nthkey(info, i, key);
        PMPI_Info_get(info, key, MPI_MAX_INFO_VAL, val, &flag);
        if (flag)
            PMPI_Info_set(win->info, key, val);
    }
    return MPI_SUCCESS;
}

int PMPI_Win_get_info(MPI_Win win, MPI_Info *info_used)
{
    SM_TRY(sm_osc_check_win(win, "MPI_Win_get_info"));
    if (!info_used)
        return sm_osc_error(win, MPI_ERR_ARG, "MPI_Win_get_info", "NULL argument");
    MPI_Info in;
    PMPI_Info_create(&in);
    /* what this implementation does whatever was asked: accumulates are always ordered and
     * may use any op */
    PMPI_Info_set(in, "no_locks", "false");
    PMPI_Info_set(in, "accumulate_ordering", "rar,raw,war,waw");
    PMPI_Info_set(in, "accumulate_ops", "same_op_no_op");
    PMPI_Info_set(in, "same_size", "false");
    PMPI_Info_set(in, "same_disp_unit", "false");
    if (win->flavor == MPI_WIN_FLAVOR_SHARED)
        PMPI_Info_set(in, "alloc_shared_noncontig", "false");
    if (win->info != MPI_INFO_NULL) {
        int n = 0;
        PMPI_Info_get_nkeys(win->info, &n);
        for (int i = 0; i < n; i++) {
            char key[MPI_MAX_INFO_KEY + 1], val[MPI_MAX_INFO_VAL + 1];
            int flag = 0;
            PMPI_Info_get_nthkey(win->info, i, key);
            PMPI_Info_get(win->info, key, MPI_MAX_INFO_VAL, val, &flag);
            if (flag)
                PMPI_Info_set(in, key, val);
        }
    }
    *info_used = in;
    return MPI_SUCCESS;
}
