/* fortran_datarep.c — the Fortran entry point of MPI_Register_datarep: the program's conversion
 * and extent procedures and its extra_state travel in a record that is C's extra_state, and C
 * adapters call them with Fortran's conventions (everything by reference, the position as
 * INTEGER(KIND=MPI_OFFSET_KIND), extra_state as INTEGER(KIND=MPI_ADDRESS_KIND)).
 * MPI_CONVERSION_FN_NULL (a procedure of the library) becomes C's NULL.  A data representation
 * cannot be unregistered, so a record lives as long as the process. */
#include "fortran_support.h"

typedef void f_conv_fn(void *userbuf, MPI_Fint *datatype, MPI_Fint *count, void *filebuf,
                       MPI_Offset *position, MPI_Aint *extra, MPI_Fint *ierr);
typedef void f_extent_fn(MPI_Fint *datatype, MPI_Aint *extent, MPI_Aint *extra, MPI_Fint *ierr);

/* defined in fortran_support.c */
SM_FEXPORT void mpi_conversion_fn_null_(void);

struct f_datarep {
    f_conv_fn *rd, *wr;
    f_extent_fn *ext;
    MPI_Aint extra;
};

static int conv(f_conv_fn *fn, void *userbuf, MPI_Datatype type, int count, void *filebuf,
                MPI_Offset position, struct f_datarep *r)
{
    MPI_Fint ftype = MPI_Type_c2f(type), fcount = count, ierr = MPI_SUCCESS;
    fn(userbuf, &ftype, &fcount, filebuf, &position, &r->extra, &ierr);
    return ierr;
}

static int rd_adapter(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                      MPI_Offset position, void *extra)
{
    struct f_datarep *r = extra;
    return conv(r->rd, userbuf, type, count, filebuf, position, r);
}

static int wr_adapter(void *userbuf, MPI_Datatype type, int count, void *filebuf,
                      MPI_Offset position, void *extra)
{
    struct f_datarep *r = extra;
    return conv(r->wr, userbuf, type, count, filebuf, position, r);
}

static int ext_adapter(MPI_Datatype type, MPI_Aint *extent, void *extra)
{
    struct f_datarep *r = extra;
    MPI_Fint ftype = MPI_Type_c2f(type), ierr = MPI_SUCCESS;
    r->ext(&ftype, extent, &r->extra, &ierr);
    return ierr;
}

SM_FENTRY(mpi_register_datarep, char *datarep, f_conv_fn *rd, f_conv_fn *wr, f_extent_fn *ext,
          MPI_Aint *extra_state, MPI_Fint *ierr, size_t datarep_len)
{
    f_conv_fn *null = (f_conv_fn *)mpi_conversion_fn_null_;
    struct f_datarep *r = sm_f_xmalloc(sizeof *r);
    r->rd = rd == null ? NULL : rd;
    r->wr = wr == null ? NULL : wr;
    r->ext = ext;
    r->extra = *extra_state;
    char *c_datarep = sm_f_str_in(datarep, datarep_len);
    int rc = MPI_Register_datarep(c_datarep, r->rd ? rd_adapter : MPI_CONVERSION_FN_NULL,
                                  r->wr ? wr_adapter : MPI_CONVERSION_FN_NULL,
                                  ext ? ext_adapter : NULL, r);
    if (rc != MPI_SUCCESS)
        free(r);
    free(c_datarep);
    if (ierr)
        *ierr = rc;
}
