/* mpit.h — shared state of the MPI tool information interface (MPI_T): whether it is
 * initialised, the string-return rule every MPI_T query follows, and what the control-variable
 * and performance-variable tables tell the categories (mpit_category.c). */
#ifndef SCTPMPI_API_MPIT_H
#define SCTPMPI_API_MPIT_H

#include "mpi.h"

/* MPI_T_init_thread minus MPI_T_finalize calls so far (mpit_init.c) */
int sm_t_initialized(void);

/* MPI_T's rule for a returned string: with *len == 0 (or buf NULL) only the length it needs,
 * NUL included, is returned; otherwise at most *len - 1 characters and a NUL are written and
 * *len is what was written, NUL included.  len NULL: nothing is returned. */
void sm_t_strcpy(char *buf, int *len, const char *src);

/* control variables (mpit_cvar.c): one per SCTPMPI_* tunable, in docs/tunables.md's order;
 * section is the heading of its table there */
int sm_t_cvar_count(void);
const char *sm_t_cvar_section(int index);

/* performance variables (mpit_pvar.c) */
int sm_t_pvar_count(void);
/* release every session (and its handles) left at the last MPI_T_finalize */
void sm_t_pvar_free_all(void);
/* release every control-variable handle left at the last MPI_T_finalize */
void sm_t_cvar_free_all(void);

#endif
