/* ctx_agree.h — agreeing on the context ids of new communicators (ctx_agree.c), blocking and
 * non-blocking.  A communicator takes two ids (ctx: point-to-point, ctx + 1: collective); an
 * intercommunicator four (its hidden local intracommunicator has ctx + 2 and ctx + 3), so
 * callers ask for nids pairs. */
#ifndef SCTPMPI_CTX_AGREE_H
#define SCTPMPI_CTX_AGREE_H

#include "api/api.h"

/* in-place maximum of v[0..1] over every process that takes part in one agreement */
typedef int sm_allmax_fn(uint32_t v[2], void *arg);

/* blocking agreement over the processes that f reaches: returns the first of nids pairs */
uint32_t sm_ctx_agree_with(sm_allmax_fn *f, void *arg, int nids);
/* blocking agreement over parent (intra or inter: both groups) */
uint32_t sm_ctx_agree_n(MPI_Comm parent, int nids);
/* the allmax of an intercommunicator's two groups, with one tag of it */
int sm_ctx_allmax_inter(uint32_t v[2], void *inter);

/* non-blocking agreement over parent: done(arg, ctx) is called from progress once every
 * process agreed, then the request completes.  *req gets the request at once. */
void sm_ctx_agree_start(MPI_Comm parent, int nids, void (*done)(void *arg, uint32_t ctx),
                        void *arg, MPI_Request *req);

#endif
