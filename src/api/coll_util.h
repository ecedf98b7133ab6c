/* coll_util.h — helpers shared by the collective files: typed point-to-point on a
 * communicator's collective context (ctx + 1), waits, buffer arithmetic. */
#ifndef SCTPMPI_COLL_UTIL_H
#define SCTPMPI_COLL_UTIL_H

#include <stdlib.h>
#include <string.h>

#include "api/api.h"

#define CCTX(c) ((c)->ctx + 1)

static inline int c_send(const void *b, int n, MPI_Datatype t, int dst, int tag, MPI_Comm c)
{
    MPI_Request r;
    sm_isend_dt(b, n, t, dst, tag, c, CCTX(c), SM_MODE_STANDARD, &r);
    return sm_wait_one(&r, MPI_STATUS_IGNORE);
}

static inline int c_recv(void *b, int n, MPI_Datatype t, int src, int tag, MPI_Comm c)
{
    MPI_Request r;
    sm_irecv_dt(b, n, t, src, tag, c, CCTX(c), &r);
    return sm_wait_one(&r, MPI_STATUS_IGNORE);
}

static inline int c_sendrecv(const void *sb, int sn, MPI_Datatype st, int dst, void *rb, int rn,
                             MPI_Datatype rt, int src, int tag, MPI_Comm c)
{
    MPI_Request r[2];
    sm_irecv_dt(rb, rn, rt, src, tag, c, CCTX(c), &r[0]);
    sm_isend_dt(sb, sn, st, dst, tag, c, CCTX(c), SM_MODE_STANDARD, &r[1]);
    int e1 = sm_wait_one(&r[1], MPI_STATUS_IGNORE);
    int e0 = sm_wait_one(&r[0], MPI_STATUS_IGNORE);
    return e0 ? e0 : e1;
}

static inline int c_waitall(int n, MPI_Request *r)
{
    int err = 0;
    for (int i = 0; i < n; i++) {
        int e = sm_wait_one(&r[i], MPI_STATUS_IGNORE);
        if (e && !err)
            err = e;
    }
    return err;
}

/* address of element i of a buffer of type t */
static inline void *at(const void *buf, MPI_Aint i, MPI_Datatype t)
{
    return (char *)buf + i * t->extent;
}

#endif
