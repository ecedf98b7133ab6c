/* osc_large.c — the MPI-4 large-count ("_c") forms of the one-sided calls: counts become one
 * element of a derived datatype when they do not fit an int (api/large_count.h), then the int
 * function runs; displacement units are MPI_Aint and must fit an int. */
#include <limits.h>

#include "api/large_count.h"
#include "osc/osc.h"

/* three (count, type) pairs of one call in int form; NULL pairs are skipped */
struct lc3 {
    MPI_Datatype t[3], dt[3];
    int n[3];
};

static int lc_args(struct lc3 *a, const MPI_Count *c, const MPI_Datatype *dt, int k,
                   const char *fn)
{
    for (int i = 0; i < k; i++) {
        a->dt[i] = dt[i];
        a->t[i] = dt[i];
        a->n[i] = (int)(c[i] > INT_MAX ? 0 : c[i]);
        if (c[i] < 0)
            return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count");
        if (!dt[i] || !dt[i]->valid)
            continue; /* the int function reports it */
        int rc = sm_lc_arg(c[i], dt[i], &a->t[i], &a->n[i], MPI_COMM_WORLD, fn);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

static void lc_done(struct lc3 *a, int k)
{
    for (int i = 0; i < k; i++)
        if (a->dt[i] && a->dt[i]->valid)
            sm_lc_done(a->t[i], a->dt[i]);
}

int PMPI_Put_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target, MPI_Aint disp,
               MPI_Count tcount, MPI_Datatype tdt, MPI_Win win)
{
    struct lc3 a;
    MPI_Count c[2] = { ocount, tcount };
    MPI_Datatype d[2] = { odt, tdt };
    SM_TRY(lc_args(&a, c, d, 2, "MPI_Put_c"));
    int rc = PMPI_Put(oaddr, a.n[0], a.t[0], target, disp, a.n[1], a.t[1], win);
    lc_done(&a, 2);
    return rc;
}

int PMPI_Get_c(void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target, MPI_Aint disp,
               MPI_Count tcount, MPI_Datatype tdt, MPI_Win win)
{
    struct lc3 a;
    MPI_Count c[2] = { ocount, tcount };
    MPI_Datatype d[2] = { odt, tdt };
    SM_TRY(lc_args(&a, c, d, 2, "MPI_Get_c"));
    int rc = PMPI_Get(oaddr, a.n[0], a.t[0], target, disp, a.n[1], a.t[1], win);
    lc_done(&a, 2);
    return rc;
}

int PMPI_Accumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target,
                      MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    struct lc3 a;
    MPI_Count c[2] = { ocount, tcount };
    MPI_Datatype d[2] = { odt, tdt };
    SM_TRY(lc_args(&a, c, d, 2, "MPI_Accumulate_c"));
    int rc = PMPI_Accumulate(oaddr, a.n[0], a.t[0], target, disp, a.n[1], a.t[1], op, win);
    lc_done(&a, 2);
    return rc;
}

int PMPI_Get_accumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, void *raddr,
                          MPI_Count rcount, MPI_Datatype rdt, int target, MPI_Aint disp,
                          MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win)
{
    struct lc3 a;
    MPI_Count c[3] = { ocount, rcount, tcount };
    MPI_Datatype d[3] = { odt, rdt, tdt };
    SM_TRY(lc_args(&a, c, d, 3, "MPI_Get_accumulate_c"));
    int rc = PMPI_Get_accumulate(oaddr, a.n[0], a.t[0], raddr, a.n[1], a.t[1], target, disp,
                                 a.n[2], a.t[2], op, win);
    lc_done(&a, 3);
    return rc;
}

int PMPI_Rput_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                MPI_Count tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req)
{
    struct lc3 a;
    MPI_Count c[2] = { ocount, tcount };
    MPI_Datatype d[2] = { odt, tdt };
    SM_TRY(lc_args(&a, c, d, 2, "MPI_Rput_c"));
    int rc = PMPI_Rput(oaddr, a.n[0], a.t[0], target, disp, a.n[1], a.t[1], win, req);
    lc_done(&a, 2);
    return rc;
}

int PMPI_Rget_c(void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target, MPI_Aint disp,
                MPI_Count tcount, MPI_Datatype tdt, MPI_Win win, MPI_Request *req)
{
    struct lc3 a;
    MPI_Count c[2] = { ocount, tcount };
    MPI_Datatype d[2] = { odt, tdt };
    SM_TRY(lc_args(&a, c, d, 2, "MPI_Rget_c"));
    int rc = PMPI_Rget(oaddr, a.n[0], a.t[0], target, disp, a.n[1], a.t[1], win, req);
    lc_done(&a, 2);
    return rc;
}

int PMPI_Raccumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, int target,
                       MPI_Aint disp, MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win,
                       MPI_Request *req)
{
    struct lc3 a;
    MPI_Count c[2] = { ocount, tcount };
    MPI_Datatype d[2] = { odt, tdt };
    SM_TRY(lc_args(&a, c, d, 2, "MPI_Raccumulate_c"));
    int rc = PMPI_Raccumulate(oaddr, a.n[0], a.t[0], target, disp, a.n[1], a.t[1], op, win, req);
    lc_done(&a, 2);
    return rc;
}

int PMPI_Rget_accumulate_c(const void *oaddr, MPI_Count ocount, MPI_Datatype odt, void *raddr,
                           MPI_Count rcount, MPI_Datatype rdt, int target, MPI_Aint disp,
                           MPI_Count tcount, MPI_Datatype tdt, MPI_Op op, MPI_Win win,
                           MPI_Request *req)
{
    struct lc3 a;
    MPI_Count c[3] = { ocount, rcount, tcount };
    MPI_Datatype d[3] = { odt, rdt, tdt };
    SM_TRY(lc_args(&a, c, d, 3, "MPI_Rget_accumulate_c"));
    int rc = PMPI_Rget_accumulate(oaddr, a.n[0], a.t[0], raddr, a.n[1], a.t[1], target, disp,
                                  a.n[2], a.t[2], op, win, req);
    lc_done(&a, 3);
    return rc;
}

static int unit_of(MPI_Aint u, MPI_Comm comm, const char *fn, int *out)
{
    if (u <= 0 || u > INT_MAX)
        return sm_error(comm, MPI_ERR_DISP, fn, "displacement unit %zd", (ssize_t)u);
    *out = (int)u;
    return MPI_SUCCESS;
}

int PMPI_Win_create_c(void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                      MPI_Win *win)
{
    int u = 0;
    SM_TRY(sm_check_comm(comm, "MPI_Win_create_c"));
    SM_TRY(unit_of(disp_unit, comm, "MPI_Win_create_c", &u));
    return PMPI_Win_create(base, size, u, info, comm, win);
}

int PMPI_Win_allocate_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                        void *baseptr, MPI_Win *win)
{
    int u = 0;
    SM_TRY(sm_check_comm(comm, "MPI_Win_allocate_c"));
    SM_TRY(unit_of(disp_unit, comm, "MPI_Win_allocate_c", &u));
    return PMPI_Win_allocate(size, u, info, comm, baseptr, win);
}

int PMPI_Win_allocate_shared_c(MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm,
                               void *baseptr, MPI_Win *win)
{
    int u = 0;
    SM_TRY(sm_check_comm(comm, "MPI_Win_allocate_shared_c"));
    SM_TRY(unit_of(disp_unit, comm, "MPI_Win_allocate_shared_c", &u));
    return PMPI_Win_allocate_shared(size, u, info, comm, baseptr, win);
}

int PMPI_Win_shared_query_c(MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit,
                            void *baseptr)
{
    if (!disp_unit)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Win_shared_query_c", "NULL argument");
    int u = 0;
    int rc = PMPI_Win_shared_query(win, rank, size, &u, baseptr);
    if (rc == MPI_SUCCESS)
        *disp_unit = u;
    return rc;
}
