/* fortran_support.h — what the generated Fortran entry points (fortran_wrappers.c) share with
 * the hand-written ones (fortran_support.c): the entry-point macro, the sentinels' common
 * blocks, and the conversions of buffers, strings, statuses, indices and LOGICALs.
 *
 * gfortran's calling convention: every argument by reference, then the hidden lengths of the
 * CHARACTER arguments (size_t, in order) after all others; the entry point's name is the
 * routine's in lower case with one trailing underscore.  A Fortran LOGICAL is 4 bytes, .TRUE.
 * is 1.  An absent OPTIONAL ierror (mpi_f08) arrives as NULL. */
#ifndef SM_FORTRAN_SUPPORT_H
#define SM_FORTRAN_SUPPORT_H

#include <stddef.h>
#include <stdlib.h>

#include "mpi.h"

#define SM_FEXPORT __attribute__((visibility("default")))

/* SM_FENTRY(name, params): defines pmpi_<name>_ and the weak aliases mpi_<name>_ (what
 * programs call; a profiling library may replace it) and mpi_<name>_f08_ (mpi_f08's specific
 * procedure, same arguments: its handle types hold exactly the INTEGER) */
#define SM_FENTRY(name, ...)                                                                     \
    SM_FEXPORT void p##name##_(__VA_ARGS__);                                                     \
    SM_FEXPORT void name##_(__VA_ARGS__) __attribute__((weak, alias("p" #name "_")));            \
    SM_FEXPORT void name##_f08_(__VA_ARGS__) __attribute__((weak, alias("p" #name "_")));        \
    void p##name##_(__VA_ARGS__)

/* the sentinels: Fortran common blocks (mpif.h, modules mpi and mpi_f08); the library
 * recognises them by address */
extern MPI_Fint mpi_fortran_bottom_, mpi_fortran_in_place_, mpi_fortran_buffer_automatic_;
extern MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
extern MPI_Fint mpi_fortran_errcodes_ignore_[1], mpi_fortran_unweighted_[1],
    mpi_fortran_weights_empty_[1];
extern char mpi_fortran_argv_null_[1], mpi_fortran_argvs_null_[1];

void *sm_f_xmalloc(size_t n);

/* a choice buffer: MPI_BOTTOM and MPI_IN_PLACE become C's */
static inline void *sm_f_buf(void *p)
{
    if (p == (void *)&mpi_fortran_bottom_)
        return MPI_BOTTOM;
    if (p == (void *)&mpi_fortran_in_place_)
        return MPI_IN_PLACE;
    if (p == (void *)&mpi_fortran_buffer_automatic_)
        return MPI_BUFFER_AUTOMATIC;
    return p;
}

static inline int *sm_f_weights(MPI_Fint *p)
{
    if (p == mpi_fortran_unweighted_)
        return MPI_UNWEIGHTED;
    if (p == mpi_fortran_weights_empty_)
        return MPI_WEIGHTS_EMPTY;
    return p;
}

static inline int *sm_f_errcodes(MPI_Fint *p)
{
    return p == mpi_fortran_errcodes_ignore_ ? MPI_ERRCODES_IGNORE : p;
}

/* strings: an input is copied without its trailing blanks; an output is written into a
 * buffer big enough for any MPI string, then copied blank-padded into the Fortran one */
char *sm_f_str_in(const char *f, size_t len);
/* the same without leading blanks (info keys and values) */
char *sm_f_str_in_trim(const char *f, size_t len);
char *sm_f_str_tmp(size_t len);
void sm_f_str_out(const char *c, char *f, size_t len);

/* statuses: NULL for MPI_STATUS(ES)_IGNORE */
MPI_Status *sm_f_status_in(MPI_Fint *f, MPI_Status *c);
void sm_f_status_out(const MPI_Status *c, MPI_Fint *f);
MPI_Status *sm_f_statuses_in(MPI_Fint *f, int n);
void sm_f_statuses_out(MPI_Status *c, MPI_Fint *f, int n);

/* 0-based indices to 1-based (MPI_UNDEFINED stays); n entries */
void sm_f_index_out(MPI_Fint *idx, int n);
/* C truth values to Fortran .TRUE. (1) / .FALSE. (0) */
void sm_f_logical_out(MPI_Fint *v, int n);

/* the number of peers a w-collective's type arrays have: 0 = size (remote size of an
 * intercommunicator), 1 = neighbourhood in-degree, 2 = out-degree */
int sm_f_npeers(MPI_Fint comm, int which);

#endif
