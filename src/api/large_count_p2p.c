/* large_count_p2p.c — the large-count ("_c") point-to-point functions (Isendrecv among them),
 * status counts and the buffered-send buffers (the global one, a communicator's, a session's):
 * each calls its int twin, with a derived datatype standing for counts beyond the int range
 * (see large_count.h). */
#include <stdlib.h>

#include "api/large_count.h"

MPI_Count sm_dt_elements(MPI_Datatype dt, size_t bytes); /* pack.c */

/* the sends and receives that take (buf, count, dt, peer, tag, comm, last) */
#define LC_P2P(NAME, BUFT, LASTT)                                                                \
    int PMPI_##NAME##_c(BUFT *buf, MPI_Count count, MPI_Datatype dt, int peer, int tag,          \
                        MPI_Comm comm, LASTT last)                                               \
    {                                                                                            \
        MPI_Datatype t;                                                                          \
        int n;                                                                                   \
        SM_TRY(sm_lc_arg(count, dt, &t, &n, comm, "MPI_" #NAME "_c"));                           \
        int rc = PMPI_##NAME(buf, n, t, peer, tag, comm, last);                                  \
        sm_lc_done(t, dt);                                                                       \
        return rc;                                                                               \
    }
#define LC_SEND(NAME)                                                                            \
    int PMPI_##NAME##_c(const void *buf, MPI_Count count, MPI_Datatype dt, int peer, int tag,    \
                        MPI_Comm comm)                                                           \
    {                                                                                            \
        MPI_Datatype t;                                                                          \
        int n;                                                                                   \
        SM_TRY(sm_lc_arg(count, dt, &t, &n, comm, "MPI_" #NAME "_c"));                           \
        int rc = PMPI_##NAME(buf, n, t, peer, tag, comm);                                        \
        sm_lc_done(t, dt);                                                                       \
        return rc;                                                                               \
    }

LC_SEND(Send)
LC_SEND(Bsend)
LC_SEND(Ssend)
LC_SEND(Rsend)
LC_P2P(Recv, void, MPI_Status *)
LC_P2P(Isend, const void, MPI_Request *)
LC_P2P(Ibsend, const void, MPI_Request *)
LC_P2P(Issend, const void, MPI_Request *)
LC_P2P(Irsend, const void, MPI_Request *)
LC_P2P(Irecv, void, MPI_Request *)
LC_P2P(Send_init, const void, MPI_Request *)
LC_P2P(Bsend_init, const void, MPI_Request *)
LC_P2P(Ssend_init, const void, MPI_Request *)
LC_P2P(Rsend_init, const void, MPI_Request *)
LC_P2P(Recv_init, void, MPI_Request *)

int PMPI_Sendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype st, int dest, int stag,
                    void *rbuf, MPI_Count rcount, MPI_Datatype rt, int source, int rtag,
                    MPI_Comm comm, MPI_Status *status)
{
    const char *fn = "MPI_Sendrecv_c";
    MPI_Datatype t1, t2;
    int n1, n2;
    SM_TRY(sm_lc_arg(scount, st, &t1, &n1, comm, fn));
    int rc = sm_lc_arg(rcount, rt, &t2, &n2, comm, fn);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Sendrecv(sbuf, n1, t1, dest, stag, rbuf, n2, t2, source, rtag, comm, status);
        sm_lc_done(t2, rt);
    }
    sm_lc_done(t1, st);
    return rc;
}

int PMPI_Sendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
                            int source, int rtag, MPI_Comm comm, MPI_Status *status)
{
    MPI_Datatype t;
    int n;
    SM_TRY(sm_lc_arg(count, dt, &t, &n, comm, "MPI_Sendrecv_replace_c"));
    int rc = PMPI_Sendrecv_replace(buf, n, t, dest, stag, source, rtag, comm, status);
    sm_lc_done(t, dt);
    return rc;
}

int PMPI_Mrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
                 MPI_Status *status)
{
    MPI_Datatype t;
    int n;
    SM_TRY(sm_lc_arg(count, dt, &t, &n, MPI_COMM_WORLD, "MPI_Mrecv_c"));
    int rc = PMPI_Mrecv(buf, n, t, message, status);
    sm_lc_done(t, dt);
    return rc;
}

int PMPI_Imrecv_c(void *buf, MPI_Count count, MPI_Datatype dt, MPI_Message *message,
                  MPI_Request *request)
{
    MPI_Datatype t;
    int n;
    SM_TRY(sm_lc_arg(count, dt, &t, &n, MPI_COMM_WORLD, "MPI_Imrecv_c"));
    int rc = PMPI_Imrecv(buf, n, t, message, request);
    sm_lc_done(t, dt);
    return rc;
}

/* ---- counts of statuses: from the byte count the status holds ---------------------------- */
static int status_args(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count,
                       const char *fn)
{
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, dt, fn));
    if (!status || !count)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    return MPI_SUCCESS;
}

int PMPI_Get_count_c(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    SM_TRY(status_args(status, dt, count, "MPI_Get_count_c"));
    size_t e = sm_dt_psize(dt); /* bytes one element occupies on the wire */
    if (e == 0)
        *count = 0;
    else
        *count = status->sm_count % e ? MPI_UNDEFINED : (MPI_Count)(status->sm_count / e);
    return MPI_SUCCESS;
}

int PMPI_Get_elements_c(const MPI_Status *status, MPI_Datatype dt, MPI_Count *count)
{
    SM_TRY(status_args(status, dt, count, "MPI_Get_elements_c"));
    if (dt->basic) {
        size_t e = (size_t)dt->extent;
        *count = !e                     ? 0
                 : status->sm_count % e ? MPI_UNDEFINED
                                        : (MPI_Count)(status->sm_count / e);
        return MPI_SUCCESS;
    }
    *count = sm_dt_elements(dt, status->sm_count);
    return MPI_SUCCESS;
}

int PMPI_Status_set_elements_c(MPI_Status *status, MPI_Datatype dt, MPI_Count count)
{
    return PMPI_Status_set_elements_x(status, dt, count);
}

/* ---- the buffered-send buffer: the int layer takes at most INT_MAX bytes of it ----------- */
static void *attached;
static MPI_Count attached_size;

int PMPI_Buffer_attach_c(void *buffer, MPI_Count size)
{
    if (size < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_attach_c",
                        "size %lld is negative", (long long)size);
    SM_TRY(PMPI_Buffer_attach(buffer, size > INT_MAX ? INT_MAX : (int)size));
    attached = buffer;
    attached_size = size;
    return MPI_SUCCESS;
}

int PMPI_Buffer_detach_c(void *buffer_addr, MPI_Count *size)
{
    int n;
    if (!size)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_detach_c", "NULL size");
    SM_TRY(PMPI_Buffer_detach(buffer_addr, &n));
    void *b = buffer_addr ? *(void **)buffer_addr : NULL;
    *size = b && b == attached && attached_size > INT_MAX ? attached_size : n;
    attached = NULL;
    return MPI_SUCCESS;
}

/* ---- a communicator's or a session's buffer: the same, one record per owner whose buffer is
 * larger than the int layer takes ----------------------------------------------------------- */
struct big_buf {
    struct big_buf *next;
    const void *owner; /* the communicator or session */
    void *buf;
    MPI_Count size;
};
static struct big_buf *big_bufs;

/* the record of owner, unlinked (NULL: none) */
static struct big_buf *take_big(const void *owner)
{
    for (struct big_buf **pp = &big_bufs; *pp; pp = &(*pp)->next)
        if ((*pp)->owner == owner) {
            struct big_buf *b = *pp;
            *pp = b->next;
            return b;
        }
    return NULL;
}

static int attach_c(const void *owner, int session, void *buffer, MPI_Count size, const char *fn)
{
    if (size < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "size %lld is negative",
                        (long long)size);
    int n = size > INT_MAX ? INT_MAX : (int)size;
    SM_TRY(session ? PMPI_Session_attach_buffer((MPI_Session)owner, buffer, n)
                   : PMPI_Comm_attach_buffer((MPI_Comm)owner, buffer, n));
    free(take_big(owner));
    if (size > INT_MAX) {
        struct big_buf *b = sm_xmalloc(sizeof *b);
        *b = (struct big_buf){ big_bufs, owner, buffer, size };
        big_bufs = b;
    }
    return MPI_SUCCESS;
}

static int detach_c(const void *owner, int session, void *buffer_addr, MPI_Count *size,
                    const char *fn)
{
    int n;
    if (!size)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL size");
    SM_TRY(session ? PMPI_Session_detach_buffer((MPI_Session)owner, buffer_addr, &n)
                   : PMPI_Comm_detach_buffer((MPI_Comm)owner, buffer_addr, &n));
    struct big_buf *b = take_big(owner);
    void *buf = buffer_addr ? *(void **)buffer_addr : NULL;
    *size = b && buf == b->buf ? b->size : n;
    free(b);
    return MPI_SUCCESS;
}

int PMPI_Comm_attach_buffer_c(MPI_Comm comm, void *buffer, MPI_Count size)
{
    return attach_c(comm, 0, buffer, size, "MPI_Comm_attach_buffer_c");
}

int PMPI_Comm_detach_buffer_c(MPI_Comm comm, void *buffer_addr, MPI_Count *size)
{
    return detach_c(comm, 0, buffer_addr, size, "MPI_Comm_detach_buffer_c");
}

int PMPI_Session_attach_buffer_c(MPI_Session session, void *buffer, MPI_Count size)
{
    return attach_c(session, 1, buffer, size, "MPI_Session_attach_buffer_c");
}

int PMPI_Session_detach_buffer_c(MPI_Session session, void *buffer_addr, MPI_Count *size)
{
    return detach_c(session, 1, buffer_addr, size, "MPI_Session_detach_buffer_c");
}

/* ---- Isendrecv ----------------------------------------------------------------------------- */
int PMPI_Isendrecv_c(const void *sbuf, MPI_Count scount, MPI_Datatype st, int dest, int stag,
                     void *rbuf, MPI_Count rcount, MPI_Datatype rt, int source, int rtag,
                     MPI_Comm comm, MPI_Request *request)
{
    const char *fn = "MPI_Isendrecv_c";
    MPI_Datatype t1, t2;
    int n1, n2;
    SM_TRY(sm_lc_arg(scount, st, &t1, &n1, comm, fn));
    int rc = sm_lc_arg(rcount, rt, &t2, &n2, comm, fn);
    if (rc == MPI_SUCCESS) {
        rc = PMPI_Isendrecv(sbuf, n1, t1, dest, stag, rbuf, n2, t2, source, rtag, comm, request);
        sm_lc_done(t2, rt);
    }
    sm_lc_done(t1, st);
    return rc;
}

int PMPI_Isendrecv_replace_c(void *buf, MPI_Count count, MPI_Datatype dt, int dest, int stag,
                             int source, int rtag, MPI_Comm comm, MPI_Request *request)
{
    MPI_Datatype t;
    int n;
    SM_TRY(sm_lc_arg(count, dt, &t, &n, comm, "MPI_Isendrecv_replace_c"));
    int rc = PMPI_Isendrecv_replace(buf, n, t, dest, stag, source, rtag, comm, request);
    sm_lc_done(t, dt);
    return rc;
}
