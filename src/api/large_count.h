/* large_count.h — what the large-count ("_c") functions share: a count beyond what the int
 * functions take is carried by one element of a derived datatype built for it (or, for
 * reductions, by such a type together with an internal operation that applies the real one
 * piecewise). */
#ifndef SCTPMPI_LARGE_COUNT_H
#define SCTPMPI_LARGE_COUNT_H

#include <limits.h>

#include "api/api.h"

/* counts above this go through a derived datatype (SCTPMPI_LARGE_COUNT_CHUNK, default INT_MAX;
 * lowering it makes small buffers take the large-count path, for tests) */
MPI_Count sm_lc_chunk(void);

/* (count, dt) as an int count of a type the int functions take: *t = dt and *n = count when
 * count is small enough, else *t = a new committed type of count elements of dt (extent
 * count * extent(dt)) and *n = 1.  sm_lc_done frees *t if it was built. */
int sm_lc_arg(MPI_Count count, MPI_Datatype dt, MPI_Datatype *t, int *n, MPI_Comm comm,
              const char *fn);
void sm_lc_done(MPI_Datatype t, MPI_Datatype dt);

/* n consecutive elements of dt as one committed derived type (any n >= 0) */
int sm_lc_contig(MPI_Count n, MPI_Datatype dt, MPI_Datatype *out);
/* n copies of t at byte stride s (the type map of hvector(n, 1, s, t)), committed */
int sm_lc_hrep(MPI_Count n, MPI_Aint s, MPI_Datatype t, MPI_Datatype *out);

/* a reduction of count elements of dt with op: *t and *o are what to pass to the int function
 * with count *n (dt/op themselves when the count is small, unless force: the int function
 * would overflow a total of its own).  sm_lc_red_done frees what was built (running
 * non-blocking collectives keep their own references). */
int sm_lc_red(MPI_Count count, int force, MPI_Datatype dt, MPI_Op op, MPI_Datatype *t, MPI_Op *o,
              int *n, MPI_Comm comm, const char *fn);
void sm_lc_red_done(MPI_Datatype t, MPI_Op o, MPI_Datatype dt, MPI_Op op);

static inline int sm_lc_fits(MPI_Count c)
{
    return c >= 0 && c <= sm_lc_chunk();
}

#endif
