/* comm_inter.h — making intercommunicators (comm_inter.c) for the communicator constructors
 * of comm_create.c. */
#ifndef SCTPMPI_COMM_INTER_H
#define SCTPMPI_COMM_INTER_H

#include "api/api.h"

/* an intercommunicator with context ids ctx .. ctx + 3 (the hidden local one: ctx + 2):
 * local group lw[0..lsize), remote group rw[0..rsize), this process local rank lrank */
MPI_Comm sm_inter_new(int lrank, int lsize, const int *lw, int rsize, const int *rw,
                      uint32_t ctx);
/* MPI_Comm_split / MPI_Comm_create on an intercommunicator (arguments already checked) */
int sm_inter_split(MPI_Comm comm, int color, int key, MPI_Comm *newcomm, const char *fn);
int sm_inter_create(MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm, const char *fn);
/* comm_create.c: the error handler of a new communicator comes from its parent */
void sm_comm_inherit(MPI_Comm from, MPI_Comm to);

#endif
