/* large_count.c — the MPI-4 large-count (_c) variants of the file data-access calls: the
 * same paths as the int versions (access.c, nonblock.c) with an MPI_Count count. */
#include "io/io.h"

#define NOCONST

#define RWC(Name, W, Where, Coll, CONST)                                                         \
    int PMPI_File_##Name##_c(MPI_File fh, CONST void *buf, MPI_Count count,                      \
                             MPI_Datatype datatype, MPI_Status *status)                          \
    {                                                                                            \
        return sm_io_rw(fh, W, Where, Coll, 0, (void *)buf, count, datatype, status,             \
                        "MPI_File_" #Name "_c");                                                 \
    }
#define RWC_AT(Name, W, Coll, CONST)                                                             \
    int PMPI_File_##Name##_c(MPI_File fh, MPI_Offset offset, CONST void *buf, MPI_Count count,   \
                             MPI_Datatype datatype, MPI_Status *status)                          \
    {                                                                                            \
        return sm_io_rw(fh, W, SM_AT, Coll, offset, (void *)buf, count, datatype, status,        \
                        "MPI_File_" #Name "_c");                                                 \
    }
#define IRWC(Name, W, Where, Coll, CONST)                                                        \
    int PMPI_File_##Name##_c(MPI_File fh, CONST void *buf, MPI_Count count,                      \
                             MPI_Datatype datatype, MPI_Request *request)                        \
    {                                                                                            \
        return sm_io_irw(fh, W, Where, Coll, 0, (void *)buf, count, datatype, request,           \
                         "MPI_File_" #Name "_c");                                                \
    }
#define IRWC_AT(Name, W, Coll, CONST)                                                            \
    int PMPI_File_##Name##_c(MPI_File fh, MPI_Offset offset, CONST void *buf, MPI_Count count,   \
                             MPI_Datatype datatype, MPI_Request *request)                        \
    {                                                                                            \
        return sm_io_irw(fh, W, SM_AT, Coll, offset, (void *)buf, count, datatype, request,      \
                         "MPI_File_" #Name "_c");                                                \
    }
#define BEGINC(Name, W, Where, CONST)                                                            \
    int PMPI_File_##Name##_begin_c(MPI_File fh, CONST void *buf, MPI_Count count,                \
                                   MPI_Datatype datatype)                                        \
    {                                                                                            \
        return sm_io_split_begin(fh, W, Where, 0, buf, count, datatype,                          \
                                 "MPI_File_" #Name "_begin_c");                                  \
    }
#define BEGINC_AT(Name, W, CONST)                                                                \
    int PMPI_File_##Name##_begin_c(MPI_File fh, MPI_Offset offset, CONST void *buf,              \
                                   MPI_Count count, MPI_Datatype datatype)                       \
    {                                                                                            \
        return sm_io_split_begin(fh, W, SM_AT, offset, buf, count, datatype,                     \
                                 "MPI_File_" #Name "_begin_c");                                  \
    }

RWC(read, 0, SM_INDIV, 0, NOCONST)
RWC(write, 1, SM_INDIV, 0, const)
RWC(read_all, 0, SM_INDIV, 1, NOCONST)
RWC(write_all, 1, SM_INDIV, 1, const)
RWC(read_shared, 0, SM_SHARED, 0, NOCONST)
RWC(write_shared, 1, SM_SHARED, 0, const)
RWC(read_ordered, 0, SM_SHARED, 1, NOCONST)
RWC(write_ordered, 1, SM_SHARED, 1, const)
RWC_AT(read_at, 0, 0, NOCONST)
RWC_AT(write_at, 1, 0, const)
RWC_AT(read_at_all, 0, 1, NOCONST)
RWC_AT(write_at_all, 1, 1, const)
IRWC(iread, 0, SM_INDIV, 0, NOCONST)
IRWC(iwrite, 1, SM_INDIV, 0, const)
IRWC(iread_all, 0, SM_INDIV, 1, NOCONST)
IRWC(iwrite_all, 1, SM_INDIV, 1, const)
IRWC(iread_shared, 0, SM_SHARED, 0, NOCONST)
IRWC(iwrite_shared, 1, SM_SHARED, 0, const)
IRWC_AT(iread_at, 0, 0, NOCONST)
IRWC_AT(iwrite_at, 1, 0, const)
IRWC_AT(iread_at_all, 0, 1, NOCONST)
IRWC_AT(iwrite_at_all, 1, 1, const)
BEGINC(read_all, 0, SM_INDIV, NOCONST)
BEGINC(write_all, 1, SM_INDIV, const)
BEGINC(read_ordered, 0, SM_SHARED, NOCONST)
BEGINC(write_ordered, 1, SM_SHARED, const)
BEGINC_AT(read_at_all, 0, NOCONST)
BEGINC_AT(write_at_all, 1, const)
