/* api.h — what the MPI API layer shares: state of the library (initialised, finalised),
 * datatype objects, argument checking and error reporting through error handlers. */
#ifndef SCTPMPI_API_H
#define SCTPMPI_API_H

#include "engine/engine.h"
#include "mpi.h"

#define SM_TAG_UB 0x3fffffff

struct sctpmpi_datatype {
    int valid;
    int basic;           /* predefined */
    size_t size;         /* bytes of data */
    MPI_Aint lb, extent;
    const char *name;
};

struct sctpmpi_group { int valid; int size; int *world_of; };
struct sctpmpi_op { int valid; const char *name; };

extern int sm_initialized, sm_finalized, sm_thread_level;

/* Report error class err from function fn on comm (MPI_COMM_NULL: COMM_WORLD's handler):
 * aborts for MPI_ERRORS_ARE_FATAL, else returns err. */
int sm_error(MPI_Comm comm, int err, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* argument checks: each returns MPI_SUCCESS or reports through sm_error */
int sm_check_init(const char *fn);
int sm_check_comm(MPI_Comm comm, const char *fn);
int sm_check_buffer(MPI_Comm c, const void *buf, int count, MPI_Datatype dt, const char *fn);
int sm_check_dest(MPI_Comm c, int rank, const char *fn);   /* PROC_NULL allowed */
int sm_check_source(MPI_Comm c, int rank, const char *fn); /* + ANY_SOURCE */
int sm_check_send_tag(MPI_Comm c, int tag, const char *fn);
int sm_check_recv_tag(MPI_Comm c, int tag, const char *fn); /* + ANY_TAG */

#define SM_TRY(expr)                                                                             \
    do {                                                                                         \
        int sm_rc_ = (expr);                                                                     \
        if (sm_rc_ != MPI_SUCCESS)                                                               \
            return sm_rc_;                                                                       \
    } while (0)

/* requests built from user arguments (p2p.c) */
int sm_isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
             int mode, MPI_Request *req, const char *fn);
int sm_irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Request *req, const char *fn);
int sm_isend_ctx(const void *buf, size_t bytes, int dest, int tag, MPI_Comm comm, uint32_t ctx,
                 MPI_Request *req);
int sm_irecv_ctx(void *buf, size_t bytes, int source, int tag, MPI_Comm comm, uint32_t ctx,
                 MPI_Request *req);
int sm_bsend_start(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, const char *fn);
/* completes and returns the request's error class (0) after filling status */
int sm_wait_one(MPI_Request *req, MPI_Status *status);
void sm_status_empty(MPI_Status *s);
void sm_bsend_drain(void); /* wait for every buffered send */
int sm_barrier_ctx(MPI_Comm comm, uint32_t ctx);

#define SM_CTX_FINALIZE 0xfffffff0u

#endif
