/* interop_c.c — the C half of interop.f90: reads an attribute Fortran set (through a pointer
 * to the value), sets one Fortran reads (as the pointer's integer value), and converts the
 * handles Fortran passes. */
#include <mpi.h>
#include <stdint.h>

static int c_value = 4242;

/* the Fortran name mapping of gfortran: lower case, one trailing underscore */
void c_check_attr_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Fint *expected, MPI_Fint *errs);
void c_set_attr_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Aint *addr);

void c_check_attr_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Fint *expected, MPI_Fint *errs)
{
    MPI_Comm comm = MPI_Comm_f2c(*fcomm);
    MPI_Aint *val = NULL;
    int flag = 0;
    MPI_Comm_get_attr(comm, *keyval, &val, &flag);
    if (!flag || !val || *val != *expected)
        (*errs)++;
}

void c_set_attr_(MPI_Fint *fcomm, MPI_Fint *keyval, MPI_Aint *addr)
{
    MPI_Comm comm = MPI_Comm_f2c(*fcomm);
    MPI_Comm_set_attr(comm, *keyval, &c_value);
    *addr = (MPI_Aint)(intptr_t)&c_value;
}
