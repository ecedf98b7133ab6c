/* f08_io_c.c — the C half of f08_io.f90: converts the Fortran file handle with MPI_File_f2c and
 * checks it names the open file (its access mode). */
#include <mpi.h>

void c_check_file(MPI_Fint *fh, int *amode, int *errs);

void c_check_file(MPI_Fint *fh, int *amode, int *errs)
{
    MPI_File f = MPI_File_f2c(*fh);
    int mode = -1;
    if (f == MPI_FILE_NULL || MPI_File_get_amode(f, &mode) != MPI_SUCCESS || mode != *amode ||
        MPI_File_c2f(f) != *fh)
        (*errs)++;
}
