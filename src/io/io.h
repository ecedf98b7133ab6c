/* io.h — what the MPI-IO files of src/io share: the file object (handle, view, pointers,
 * hints), the flattened view, the data representations and the low-level file access with its
 * counters.  One concept per file: file.c (open/close/delete/size/info/atomicity), errhandler.c,
 * view.c, datarep.c, access.c (independent data access), shared.c (shared file pointer),
 * coll.c (two-phase collective buffering), nonblock.c (MPI_File_i* and split collectives),
 * large_count.c (the MPI-4 _c variants). */
#ifndef SCTPMPI_IO_H
#define SCTPMPI_IO_H

#include "api/api.h"

#include <sys/types.h>

/* data representations of a view */
enum { SM_REP_NATIVE, SM_REP_INTERNAL, SM_REP_EXTERNAL32, SM_REP_USER };

struct sm_datarep; /* a representation registered with MPI_Register_datarep (datarep.c) */

/* one run of file bytes a filetype element covers: offset from the element's origin */
struct sm_fblock {
    MPI_Offset off;
    MPI_Offset len;
};

/* one piece of an access: len bytes of the file at off, stream bytes from soff on */
struct sm_seg {
    MPI_Offset off;
    MPI_Offset len;
    MPI_Offset soff;
};

struct sctpmpi_file {
    int valid;
    MPI_Comm comm; /* a private duplicate of the opening communicator */
    char *path;
    int fd;
    int amode;
    int atomic;
    MPI_Info info; /* the hints in use and the program's other keys */
    MPI_Errhandler errh;
    /* view */
    MPI_Offset disp;
    MPI_Datatype etype, filetype;
    char datarep[MPI_MAX_DATAREP_STRING];
    int rep;
    struct sm_datarep *urep;
    MPI_Offset esize; /* bytes of one etype in the file */
    size_t nblk;      /* the filetype flattened: blocks in order, merged */
    struct sm_fblock *blk;
    MPI_Offset *prefix; /* data bytes before block k */
    MPI_Offset ft_data; /* data bytes of one filetype element */
    MPI_Offset ft_extent;
    /* pointers, in etypes of the current view */
    MPI_Offset fp;
    char *shfp_path; /* sidecar file holding the shared pointer (shared.c) */
    int shfp_fd;
    /* hints */
    int cb_nodes;
    MPI_Offset cb_buffer_size;
    int cb_read, cb_write; /* SM_CB_* */
    MPI_Offset striping_unit;
    MPI_Offset ind_rd_buffer_size, ind_wr_buffer_size;
    int ds_read, ds_write; /* data sieving of independent accesses */
    int can_read;          /* the descriptor reads too (write sieving needs it) */
    /* split collective in progress (nonblock.c) */
    int split_active;
    const void *split_buf;
    MPI_Status split_status;
    int split_err;
    /* counters (SCTPMPI_STATS=1 prints them at close) */
    unsigned long long n_write, n_read, b_write, b_read;
};

enum { SM_CB_AUTO, SM_CB_ENABLE, SM_CB_DISABLE };

/* ---- errors (errhandler.c): report class err on fh (MPI_FILE_NULL: the default handler) */
int sm_file_error(MPI_File fh, int err, const char *fn, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int sm_file_check(MPI_File fh, const char *fn); /* valid open file */
int sm_errno_class(int e);                      /* errno -> MPI error class */
MPI_Errhandler sm_file_default_errh(void);

/* ---- file.c */
void sm_file_hints_defaults(MPI_File fh);
void sm_file_apply_info(MPI_File fh, MPI_Info info);
/* the low-level accesses, counted: full length or error (-1 with errno), reads stop at EOF */
ssize_t sm_io_pwrite(MPI_File fh, const void *buf, size_t n, MPI_Offset off);
ssize_t sm_io_pread(MPI_File fh, void *buf, size_t n, MPI_Offset off);
/* byte-range locks (atomic mode, read-modify-write) */
void sm_io_lock(MPI_File fh, int write, MPI_Offset off, MPI_Offset len);
void sm_io_unlock(MPI_File fh, MPI_Offset off, MPI_Offset len);

/* ---- view.c */
void sm_view_reset(MPI_File fh); /* the default view: disp 0, MPI_BYTE, MPI_BYTE, native */
/* the file pieces of view bytes [vbyte, vbyte + n): *out is malloc'd, merged when adjacent */
size_t sm_view_segments(MPI_File fh, MPI_Offset vbyte, MPI_Offset n, struct sm_seg **out);
/* the absolute byte offset of view byte vbyte */
MPI_Offset sm_view_byte(MPI_File fh, MPI_Offset vbyte);

/* ---- datarep.c: between the program's (buf, count, dt) and the stream in file form */
int sm_rep_lookup(const char *name, int *rep, struct sm_datarep **urep);
MPI_Offset sm_rep_size(MPI_File fh, MPI_Datatype dt, MPI_Offset count); /* file bytes */
/* the stream to write: *stream points into buf (contiguous native data) or to *tmp (free it) */
int sm_rep_to_file(MPI_File fh, const void *buf, MPI_Offset count, MPI_Datatype dt,
                   MPI_Offset position, const void **stream, void **tmp);
/* a stream buffer for reading: buf itself when possible, else malloc'd (*tmp) */
void *sm_rep_read_buffer(MPI_File fh, void *buf, MPI_Offset count, MPI_Datatype dt, void **tmp);
/* convert the first got stream bytes back into buf; sets status's count */
int sm_rep_from_file(MPI_File fh, void *buf, MPI_Offset count, MPI_Datatype dt,
                     MPI_Offset position, const void *stream, MPI_Offset got, MPI_Status *status);

/* ---- access.c: the common path of every data access */
enum { SM_IO_READ = 0, SM_IO_WRITE = 1 };
/* where: SM_AT (explicit offset in etypes), SM_INDIV, SM_SHARED */
enum { SM_AT, SM_INDIV, SM_SHARED };
/* independent access at view offset (etypes); sets status */
int sm_io_indep(MPI_File fh, int write, MPI_Offset offset, void *buf, MPI_Offset count,
                MPI_Datatype dt, MPI_Status *status, const char *fn);
/* the entry points for all modes (blocking; collective ones call coll.c) */
int sm_io_rw(MPI_File fh, int write, int where, int coll, MPI_Offset offset, void *buf,
             MPI_Offset count, MPI_Datatype dt, MPI_Status *status, const char *fn);
void sm_io_status(MPI_Status *st, MPI_Offset bytes);
/* the position whence + offset names, from cur (individual or shared pointer), in etypes */
int sm_io_seek_target(MPI_File fh, MPI_Offset cur, MPI_Offset offset, int whence, MPI_Offset *out,
                      const char *fn);

/* ---- coll.c: collective access at view offset (etypes) */
int sm_io_coll(MPI_File fh, int write, MPI_Offset offset, void *buf, MPI_Offset count,
               MPI_Datatype dt, MPI_Status *status, const char *fn);

/* ---- shared.c */
int sm_shfp_create(MPI_File fh);   /* collective, at open */
void sm_shfp_destroy(MPI_File fh); /* collective, at close */
int sm_shfp_fetch_add(MPI_File fh, MPI_Offset add, MPI_Offset *old);
int sm_shfp_set(MPI_File fh, MPI_Offset val);
int sm_shfp_get(MPI_File fh, MPI_Offset *val);

/* ---- nonblock.c: a request already complete with status st */
MPI_Request sm_io_request(const MPI_Status *st, int err);

/* the int-count entry points check their count; the _c ones use these */
int sm_io_split_begin(MPI_File fh, int write, int where, MPI_Offset offset, const void *buf,
                      MPI_Offset count, MPI_Datatype dt, const char *fn);
int sm_io_split_end(MPI_File fh, int write, int where, const void *buf, MPI_Status *status,
                    const char *fn);
int sm_io_irw(MPI_File fh, int write, int where, int coll, MPI_Offset offset, void *buf,
              MPI_Offset count, MPI_Datatype dt, MPI_Request *req, const char *fn);
int sm_io_type_extent(MPI_File fh, MPI_Datatype dt, MPI_Count *extent, const char *fn);

#endif
