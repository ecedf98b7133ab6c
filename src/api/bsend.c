/* bsend.c — buffered sends and the buffers they are charged to: the process's
 * (MPI_Buffer_attach), a communicator's (MPI_Comm_attach_buffer) and a session's
 * (MPI_Session_attach_buffer), each of them a user buffer or MPI_BUFFER_AUTOMATIC (no limit);
 * and flushing them (MPI_Buffer_flush / iflush and the Comm_ / Session_ forms).
 *
 * An attached buffer's size is the budget (each message costs its bytes +
 * MPI_BSEND_OVERHEAD); the copy itself lives in library memory until the internal send
 * completes, which is equivalent for the program and keeps the engine's requests simple.
 * A buffered send is charged to its communicator's buffer if it has one, else to a session's
 * buffer if one is attached (communicators do not record the session they came from, so any
 * session's buffer serves), else to the process's.  The charge travels in the request's
 * bsend_charge: the bytes in the low 48 bits, the buffer's slot in the high 16. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

int sctpmpi_buffer_automatic[1];

struct budget {
    int used_slot;     /* slot taken (slot 0, the process's, always is) */
    const void *owner; /* communicator or session; NULL for the process */
    uint32_t ctx;      /* a communicator's context too: a later communicator at the same
                          * address (after MPI_Comm_free) does not inherit the buffer */
    int is_session;
    void *addr; /* NULL: nothing attached */
    size_t size;
    int automatic;
    size_t used; /* charged by sends not yet complete */
};

#define NSLOTS 64
static struct budget slots[NSLOTS] = { [0] = { .used_slot = 1 } };
#define SLOT_SHIFT 48

void sm_bsend_uncharge(size_t charge)
{
    size_t slot = charge >> SLOT_SHIFT;
    if (slot < NSLOTS)
        slots[slot].used -= charge & (((size_t)1 << SLOT_SHIFT) - 1);
}

static uint32_t ctx_of(const void *owner, int is_session)
{
    return is_session ? 0 : ((MPI_Comm)owner)->ctx;
}

static struct budget *find(const void *owner, int is_session)
{
    uint32_t ctx = ctx_of(owner, is_session);
    for (int i = 1; i < NSLOTS; i++)
        if (slots[i].used_slot && slots[i].owner == owner && slots[i].ctx == ctx &&
            slots[i].is_session == is_session)
            return &slots[i];
    return NULL;
}

static struct budget *find_or_add(const void *owner, int is_session)
{
    struct budget *b = find(owner, is_session);
    if (b)
        return b;
    for (int i = 1; i < NSLOTS; i++)
        if (!slots[i].used_slot) {
            slots[i] = (struct budget){ .used_slot = 1,
                                        .owner = owner,
                                        .ctx = ctx_of(owner, is_session),
                                        .is_session = is_session };
            return &slots[i];
        }
    return NULL;
}

static int attach(struct budget *b, void *buffer, MPI_Count size, MPI_Comm ec, const char *fn)
{
    if (!b)
        return sm_error(ec, MPI_ERR_INTERN, fn, "too many attached buffers");
    int automatic = buffer == MPI_BUFFER_AUTOMATIC;
    if (!automatic && (size < 0 || (!buffer && size > 0)))
        return sm_error(ec, MPI_ERR_ARG, fn, "bad buffer or size");
    if (b->addr)
        return sm_error(ec, MPI_ERR_BUFFER, fn, "a buffer is already attached");
    b->addr = buffer;
    b->size = automatic ? 0 : (size_t)size;
    b->automatic = automatic;
    return MPI_SUCCESS;
}

static int b_idle(void *a)
{
    return ((struct budget *)a)->used == 0;
}

static void flush(struct budget *b)
{
    if (b)
        sm_progress_until(b_idle, b);
}

static int detach(struct budget *b, void *addr_out, MPI_Count *size, MPI_Comm ec, const char *fn)
{
    if (!addr_out || !size)
        return sm_error(ec, MPI_ERR_ARG, fn, "NULL argument");
    if (b == &slots[0] && !b->addr) { /* nothing attached: a null buffer of size 0 */
        flush(b);
        *(void **)addr_out = NULL;
        *size = 0;
        return MPI_SUCCESS;
    }
    if (!b || !b->addr)
        return sm_error(ec, MPI_ERR_BUFFER, fn, "no buffer is attached");
    flush(b);
    *(void **)addr_out = b->addr;
    *size = (MPI_Count)b->size;
    b->addr = NULL;
    b->size = 0;
    b->automatic = 0;
    if (b != &slots[0])
        b->used_slot = 0;
    return MPI_SUCCESS;
}

static int int_size(MPI_Count n, int *size)
{
    *size = n > 0x7fffffff ? 0x7fffffff : (int)n;
    return MPI_SUCCESS;
}

/* the budget a buffered send on comm is charged to (NULL: none attached) */
static struct budget *budget_for(MPI_Comm comm)
{
    struct budget *b = find(comm, 0);
    if (b && b->addr)
        return b;
    for (int i = 1; i < NSLOTS; i++)
        if (slots[i].used_slot && slots[i].is_session && slots[i].addr)
            return &slots[i];
    return &slots[0];
}

void sm_bsend_drain(void)
{
    for (int i = 0; i < NSLOTS; i++)
        if (slots[i].used_slot)
            flush(&slots[i]);
}

int sm_bsend_start(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                   const char *fn)
{
    struct budget *b = budget_for(comm);
    size_t n = sm_dt_psize(dt) * (size_t)count;
    size_t charge = n + MPI_BSEND_OVERHEAD;
    if (!b->automatic && b->used + charge > b->size)
        return sm_error(comm, MPI_ERR_BUFFER, fn,
                        "attached buffer too small: %zu bytes needed, %zu of %zu free", charge,
                        b->size - b->used, b->size);
    b->used += charge;
    MPI_Request r;
    sm_isend_copy(buf, count, dt, dest, tag, comm, charge | ((size_t)(b - slots) << SLOT_SHIFT),
                  &r);
    if (r->base.complete)
        sm_req_release(&r->base);
    else
        r->base.freed = 1;
    return MPI_SUCCESS;
}

/* ---- the process's buffer ----------------------------------------------------------------- */
int PMPI_Buffer_attach(void *buffer, int size)
{
    SM_TRY(sm_check_init("MPI_Buffer_attach"));
    return attach(&slots[0], buffer, size, MPI_COMM_WORLD, "MPI_Buffer_attach");
}

int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    SM_TRY(sm_check_init("MPI_Buffer_detach"));
    MPI_Count n = 0;
    if (!size)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Buffer_detach", "NULL argument");
    SM_TRY(detach(&slots[0], buffer_addr, &n, MPI_COMM_WORLD, "MPI_Buffer_detach"));
    return int_size(n, size);
}

int PMPI_Buffer_flush(void)
{
    SM_TRY(sm_check_init("MPI_Buffer_flush"));
    flush(&slots[0]);
    return MPI_SUCCESS;
}

/* a request completed (through a waiter) when a budget has no send left */
struct iflush {
    struct sm_waiter w;
    struct budget *b;
    MPI_Request r;
};
static int if_poll(struct sm_waiter *w)
{
    return ((struct iflush *)w)->b->used == 0;
}
static void if_done(struct sm_waiter *w)
{
    MPI_Request r = ((struct iflush *)w)->r;
    free(w);
    sm_req_complete(&r->base);
}

static int iflush(struct budget *b, MPI_Comm comm, MPI_Request *request, const char *fn)
{
    if (!request)
        return sm_error(comm, MPI_ERR_REQUEST, fn, "NULL request pointer");
    struct sctpmpi_request *r = sm_request_alloc(SM_REQ_DONE);
    r->base.comm = comm;
    sm_status_empty(&r->base.status);
    *request = r;
    if (!b || b->used == 0) {
        r->base.complete = 1;
        return MPI_SUCCESS;
    }
    struct iflush *x = sm_xcalloc(1, sizeof *x);
    x->w.poll = if_poll;
    x->w.done = if_done;
    x->b = b;
    x->r = r;
    sm_waiter_add(&x->w);
    return MPI_SUCCESS;
}

int PMPI_Buffer_iflush(MPI_Request *request)
{
    SM_TRY(sm_check_init("MPI_Buffer_iflush"));
    return iflush(&slots[0], MPI_COMM_WORLD, request, "MPI_Buffer_iflush");
}

/* ---- a communicator's buffer -------------------------------------------------------------- */
int PMPI_Comm_attach_buffer(MPI_Comm comm, void *buffer, int size)
{
    const char *fn = "MPI_Comm_attach_buffer";
    SM_TRY(sm_check_comm(comm, fn));
    return attach(find_or_add(comm, 0), buffer, size, comm, fn);
}

int PMPI_Comm_detach_buffer(MPI_Comm comm, void *buffer_addr, int *size)
{
    const char *fn = "MPI_Comm_detach_buffer";
    SM_TRY(sm_check_comm(comm, fn));
    if (!size)
        return sm_error(comm, MPI_ERR_ARG, fn, "NULL argument");
    MPI_Count n = 0;
    SM_TRY(detach(find(comm, 0), buffer_addr, &n, comm, fn));
    return int_size(n, size);
}

int PMPI_Comm_flush_buffer(MPI_Comm comm)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_flush_buffer"));
    flush(find(comm, 0));
    return MPI_SUCCESS;
}

int PMPI_Comm_iflush_buffer(MPI_Comm comm, MPI_Request *request)
{
    SM_TRY(sm_check_comm(comm, "MPI_Comm_iflush_buffer"));
    return iflush(find(comm, 0), comm, request, "MPI_Comm_iflush_buffer");
}

/* ---- a session's buffer ------------------------------------------------------------------- */
int PMPI_Session_attach_buffer(MPI_Session session, void *buffer, int size)
{
    const char *fn = "MPI_Session_attach_buffer";
    SM_TRY(sm_check_init(fn));
    if (!session)
        return sm_error(MPI_COMM_SELF, MPI_ERR_SESSION, fn, "null session");
    return attach(find_or_add(session, 1), buffer, size, MPI_COMM_SELF, fn);
}

int PMPI_Session_detach_buffer(MPI_Session session, void *buffer_addr, int *size)
{
    const char *fn = "MPI_Session_detach_buffer";
    SM_TRY(sm_check_init(fn));
    if (!session)
        return sm_error(MPI_COMM_SELF, MPI_ERR_SESSION, fn, "null session");
    if (!size)
        return sm_error(MPI_COMM_SELF, MPI_ERR_ARG, fn, "NULL argument");
    MPI_Count n = 0;
    SM_TRY(detach(find(session, 1), buffer_addr, &n, MPI_COMM_SELF, fn));
    return int_size(n, size);
}

int PMPI_Session_flush_buffer(MPI_Session session)
{
    SM_TRY(sm_check_init("MPI_Session_flush_buffer"));
    if (!session)
        return sm_error(MPI_COMM_SELF, MPI_ERR_SESSION, "MPI_Session_flush_buffer",
                        "null session");
    flush(find(session, 1));
    return MPI_SUCCESS;
}

int PMPI_Session_iflush_buffer(MPI_Session session, MPI_Request *request)
{
    SM_TRY(sm_check_init("MPI_Session_iflush_buffer"));
    if (!session)
        return sm_error(MPI_COMM_SELF, MPI_ERR_SESSION, "MPI_Session_iflush_buffer",
                        "null session");
    return iflush(find(session, 1), MPI_COMM_SELF, request, "MPI_Session_iflush_buffer");
}

/* a session finalized with a buffer attached: wait for its sends and forget the buffer */
void sm_bsend_session_freed(MPI_Session session)
{
    struct budget *b = find(session, 1);
    if (b) {
        flush(b);
        b->used_slot = 0;
        b->addr = NULL;
    }
}
