/* mpi.h — the public C interface of sctpmpi: MPI types, constants and prototypes.
 *
 * Handles are pointers to opaque library objects (as in Open MPI): predefined handles are the
 * addresses of objects inside libsctpmpi, null handles are NULL.  Functions not listed here are
 * not provided yet (see docs/mpi-functions.md). */
#ifndef SCTPMPI_MPI_H
#define SCTPMPI_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 3
#define MPI_SUBVERSION 1
#define SCTPMPI 1
#define SCTPMPI_VERSION_STRING "0.1.0"

/* ---- handle types ---------------------------------------------------------------------- */
typedef struct sctpmpi_comm *MPI_Comm;
typedef struct sctpmpi_group *MPI_Group;
typedef struct sctpmpi_datatype *MPI_Datatype;
typedef struct sctpmpi_request *MPI_Request;
typedef struct sctpmpi_op *MPI_Op;
typedef struct sctpmpi_errhandler *MPI_Errhandler;
typedef struct sctpmpi_message *MPI_Message;
typedef struct sctpmpi_info *MPI_Info;
typedef struct sctpmpi_win *MPI_Win;
typedef struct sctpmpi_file *MPI_File;

typedef ptrdiff_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    /* private */
    int sm_cancelled;
    size_t sm_count; /* bytes received */
} MPI_Status;

/* ---- predefined objects (defined in the library) -------------------------------------- */
extern struct sctpmpi_comm sctpmpi_comm_world, sctpmpi_comm_self, sctpmpi_comm_null_obj;
extern struct sctpmpi_group sctpmpi_group_empty;
extern struct sctpmpi_errhandler sctpmpi_errors_are_fatal, sctpmpi_errors_return,
    sctpmpi_errors_abort;
extern struct sctpmpi_message sctpmpi_message_no_proc;

#define MPI_COMM_WORLD (&sctpmpi_comm_world)
#define MPI_COMM_SELF (&sctpmpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY (&sctpmpi_group_empty)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC (&sctpmpi_message_no_proc)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_WIN_NULL ((MPI_Win)0)
#define MPI_FILE_NULL ((MPI_File)0)
#define MPI_ERRORS_ARE_FATAL (&sctpmpi_errors_are_fatal)
#define MPI_ERRORS_RETURN (&sctpmpi_errors_return)
#define MPI_ERRORS_ABORT (&sctpmpi_errors_abort)

/* predefined datatypes */
#define SCTPMPI_DT_LIST(X)                                                                       \
    X(MPI_CHAR, char) X(MPI_SIGNED_CHAR, signed_char) X(MPI_UNSIGNED_CHAR, unsigned_char)       \
    X(MPI_BYTE, byte) X(MPI_WCHAR, wchar) X(MPI_SHORT, short)                                  \
    X(MPI_UNSIGNED_SHORT, unsigned_short) X(MPI_INT, int) X(MPI_UNSIGNED, unsigned)             \
    X(MPI_LONG, long) X(MPI_UNSIGNED_LONG, unsigned_long) X(MPI_LONG_LONG_INT, long_long_int)   \
    X(MPI_UNSIGNED_LONG_LONG, unsigned_long_long) X(MPI_FLOAT, float) X(MPI_DOUBLE, double)     \
    X(MPI_LONG_DOUBLE, long_double) X(MPI_C_BOOL, c_bool) X(MPI_INT8_T, int8_t)                 \
    X(MPI_INT16_T, int16_t) X(MPI_INT32_T, int32_t) X(MPI_INT64_T, int64_t)                     \
    X(MPI_UINT8_T, uint8_t) X(MPI_UINT16_T, uint16_t) X(MPI_UINT32_T, uint32_t)                 \
    X(MPI_UINT64_T, uint64_t) X(MPI_AINT, aint) X(MPI_OFFSET, offset) X(MPI_COUNT, count)       \
    X(MPI_C_FLOAT_COMPLEX, c_float_complex) X(MPI_C_DOUBLE_COMPLEX, c_double_complex)           \
    X(MPI_C_LONG_DOUBLE_COMPLEX, c_long_double_complex) X(MPI_PACKED, packed)                   \
    X(MPI_FLOAT_INT, float_int) X(MPI_DOUBLE_INT, double_int) X(MPI_LONG_INT, long_int)         \
    X(MPI_2INT, 2int) X(MPI_SHORT_INT, short_int) X(MPI_LONG_DOUBLE_INT, long_double_int)       \
    X(MPI_UB, ub) X(MPI_LB, lb)

#define SCTPMPI_DT_DECLARE(name, id) extern struct sctpmpi_datatype sctpmpi_dt_##id;
SCTPMPI_DT_LIST(SCTPMPI_DT_DECLARE)
#undef SCTPMPI_DT_DECLARE

#define MPI_CHAR (&sctpmpi_dt_char)
#define MPI_SIGNED_CHAR (&sctpmpi_dt_signed_char)
#define MPI_UNSIGNED_CHAR (&sctpmpi_dt_unsigned_char)
#define MPI_BYTE (&sctpmpi_dt_byte)
#define MPI_WCHAR (&sctpmpi_dt_wchar)
#define MPI_SHORT (&sctpmpi_dt_short)
#define MPI_UNSIGNED_SHORT (&sctpmpi_dt_unsigned_short)
#define MPI_INT (&sctpmpi_dt_int)
#define MPI_UNSIGNED (&sctpmpi_dt_unsigned)
#define MPI_LONG (&sctpmpi_dt_long)
#define MPI_UNSIGNED_LONG (&sctpmpi_dt_unsigned_long)
#define MPI_LONG_LONG_INT (&sctpmpi_dt_long_long_int)
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG (&sctpmpi_dt_unsigned_long_long)
#define MPI_FLOAT (&sctpmpi_dt_float)
#define MPI_DOUBLE (&sctpmpi_dt_double)
#define MPI_LONG_DOUBLE (&sctpmpi_dt_long_double)
#define MPI_C_BOOL (&sctpmpi_dt_c_bool)
#define MPI_INT8_T (&sctpmpi_dt_int8_t)
#define MPI_INT16_T (&sctpmpi_dt_int16_t)
#define MPI_INT32_T (&sctpmpi_dt_int32_t)
#define MPI_INT64_T (&sctpmpi_dt_int64_t)
#define MPI_UINT8_T (&sctpmpi_dt_uint8_t)
#define MPI_UINT16_T (&sctpmpi_dt_uint16_t)
#define MPI_UINT32_T (&sctpmpi_dt_uint32_t)
#define MPI_UINT64_T (&sctpmpi_dt_uint64_t)
#define MPI_AINT (&sctpmpi_dt_aint)
#define MPI_OFFSET (&sctpmpi_dt_offset)
#define MPI_COUNT (&sctpmpi_dt_count)
#define MPI_C_FLOAT_COMPLEX (&sctpmpi_dt_c_float_complex)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX (&sctpmpi_dt_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX (&sctpmpi_dt_c_long_double_complex)
#define MPI_PACKED (&sctpmpi_dt_packed)
#define MPI_FLOAT_INT (&sctpmpi_dt_float_int)
#define MPI_DOUBLE_INT (&sctpmpi_dt_double_int)
#define MPI_LONG_INT (&sctpmpi_dt_long_int)
#define MPI_2INT (&sctpmpi_dt_2int)
#define MPI_SHORT_INT (&sctpmpi_dt_short_int)
#define MPI_LONG_DOUBLE_INT (&sctpmpi_dt_long_double_int)
#define MPI_UB (&sctpmpi_dt_ub)
#define MPI_LB (&sctpmpi_dt_lb)

/* predefined reduction operations (implemented by the collectives issue) */
extern struct sctpmpi_op sctpmpi_op_max, sctpmpi_op_min, sctpmpi_op_sum, sctpmpi_op_prod,
    sctpmpi_op_land, sctpmpi_op_band, sctpmpi_op_lor, sctpmpi_op_bor, sctpmpi_op_lxor,
    sctpmpi_op_bxor, sctpmpi_op_minloc, sctpmpi_op_maxloc, sctpmpi_op_replace,
    sctpmpi_op_no_op;
#define MPI_MAX (&sctpmpi_op_max)
#define MPI_MIN (&sctpmpi_op_min)
#define MPI_SUM (&sctpmpi_op_sum)
#define MPI_PROD (&sctpmpi_op_prod)
#define MPI_LAND (&sctpmpi_op_land)
#define MPI_BAND (&sctpmpi_op_band)
#define MPI_LOR (&sctpmpi_op_lor)
#define MPI_BOR (&sctpmpi_op_bor)
#define MPI_LXOR (&sctpmpi_op_lxor)
#define MPI_BXOR (&sctpmpi_op_bxor)
#define MPI_MINLOC (&sctpmpi_op_minloc)
#define MPI_MAXLOC (&sctpmpi_op_maxloc)
#define MPI_REPLACE (&sctpmpi_op_replace)
#define MPI_NO_OP (&sctpmpi_op_no_op)

/* ---- special values ------------------------------------------------------------------- */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_KEYVAL_INVALID (-1)
#define MPI_BSEND_OVERHEAD 96
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 256
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME 128
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_MAX_PORT_NAME 1024

#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_BOTTOM ((void *)0)
#define MPI_UNWEIGHTED ((int *)2)
#define MPI_WEIGHTS_EMPTY ((int *)3)
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)

/* thread levels */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* comparison results */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* predefined attribute keys on MPI_COMM_WORLD */
#define MPI_TAG_UB 0x6401
#define MPI_HOST 0x6402
#define MPI_IO 0x6403
#define MPI_WTIME_IS_GLOBAL 0x6404
#define MPI_APPNUM 0x6405
#define MPI_UNIVERSE_SIZE 0x6406
#define MPI_LASTUSEDCODE 0x6407

/* topology kinds */
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3

/* communicator split types */
#define MPI_COMM_TYPE_SHARED 1

/* datatype combiners */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR 5
#define MPI_COMBINER_INDEXED 6
#define MPI_COMBINER_HINDEXED 7
#define MPI_COMBINER_INDEXED_BLOCK 8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT 10
#define MPI_COMBINER_SUBARRAY 11
#define MPI_COMBINER_DARRAY 12
#define MPI_COMBINER_RESIZED 13
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* ---- error classes -------------------------------------------------------------------- */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_BASE 22
#define MPI_ERR_INFO_KEY 23
#define MPI_ERR_INFO_VALUE 24
#define MPI_ERR_INFO_NOKEY 25
#define MPI_ERR_SPAWN 26
#define MPI_ERR_PORT 27
#define MPI_ERR_SERVICE 28
#define MPI_ERR_NAME 29
#define MPI_ERR_WIN 30
#define MPI_ERR_SIZE 31
#define MPI_ERR_DISP 32
#define MPI_ERR_INFO 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_ASSERT 35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC 37
#define MPI_ERR_FILE 38
#define MPI_ERR_NOT_SAME 39
#define MPI_ERR_AMODE 40
#define MPI_ERR_UNSUPPORTED_DATAREP 41
#define MPI_ERR_UNSUPPORTED_OPERATION 42
#define MPI_ERR_NO_SUCH_FILE 43
#define MPI_ERR_FILE_EXISTS 44
#define MPI_ERR_BAD_FILE 45
#define MPI_ERR_ACCESS 46
#define MPI_ERR_NO_SPACE 47
#define MPI_ERR_QUOTA 48
#define MPI_ERR_READ_ONLY 49
#define MPI_ERR_FILE_IN_USE 50
#define MPI_ERR_DUP_DATAREP 51
#define MPI_ERR_CONVERSION 52
#define MPI_ERR_IO 53
#define MPI_ERR_RMA_RANGE 54
#define MPI_ERR_RMA_ATTACH 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
#define MPI_ERR_PROC_FAILED 58
#define MPI_ERR_LASTCODE 92

/* ---- callback types --------------------------------------------------------------------- */
typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);

/* ---- environment ------------------------------------------------------------------------ */
int MPI_Init(int *argc, char ***argv);
int MPI_Init_thread(int *argc, char ***argv, int required, int *provided);
int MPI_Initialized(int *flag);
int MPI_Finalize(void);
int MPI_Finalized(int *flag);
int MPI_Abort(MPI_Comm comm, int errorcode);
int MPI_Query_thread(int *provided);
int MPI_Is_thread_main(int *flag);
int MPI_Get_processor_name(char *name, int *resultlen);
int MPI_Get_version(int *version, int *subversion);
int MPI_Get_library_version(char *version, int *resultlen);
double MPI_Wtime(void);
double MPI_Wtick(void);
int MPI_Error_string(int errorcode, char *string, int *resultlen);
int MPI_Error_class(int errorcode, int *errorclass);
int MPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler);
int MPI_Comm_call_errhandler(MPI_Comm comm, int errorcode);
int MPI_Errhandler_free(MPI_Errhandler *errhandler);
int MPI_Comm_create_errhandler(MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler);
int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void *attribute_val, int *flag);

/* ---- communicators (world and self only in this version) -------------------------------- */
int MPI_Comm_rank(MPI_Comm comm, int *rank);
int MPI_Comm_size(MPI_Comm comm, int *size);

/* ---- point to point --------------------------------------------------------------------- */
int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int MPI_Ssend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int MPI_Rsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int MPI_Bsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm);
int MPI_Recv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
             MPI_Status *status);
int MPI_Isend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Issend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Ibsend(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
               MPI_Request *request);
int MPI_Irecv(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
              MPI_Request *request);
int MPI_Buffer_attach(void *buffer, int size);
int MPI_Buffer_detach(void *buffer_addr, int *size);
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                 int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source,
                 int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype dt, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status);
int MPI_Wait(MPI_Request *request, MPI_Status *status);
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]);
int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status);
int MPI_Waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]);
int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status);
int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[]);
int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status);
int MPI_Testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                 MPI_Status statuses[]);
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status);
int MPI_Iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status);
int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status);
int MPI_Improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                MPI_Status *status);
int MPI_Mrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message, MPI_Status *status);
int MPI_Imrecv(void *buf, int count, MPI_Datatype dt, MPI_Message *message,
               MPI_Request *request);
int MPI_Cancel(MPI_Request *request);
int MPI_Test_cancelled(const MPI_Status *status, int *flag);
int MPI_Get_count(const MPI_Status *status, MPI_Datatype dt, int *count);
int MPI_Get_elements(const MPI_Status *status, MPI_Datatype dt, int *count);
int MPI_Request_free(MPI_Request *request);
int MPI_Request_get_status(MPI_Request request, int *flag, MPI_Status *status);
int MPI_Send_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Ssend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Rsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Bsend_init(const void *buf, int count, MPI_Datatype dt, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request);
int MPI_Recv_init(void *buf, int count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                  MPI_Request *request);
int MPI_Start(MPI_Request *request);
int MPI_Startall(int count, MPI_Request requests[]);
int MPI_Type_size(MPI_Datatype dt, int *size);
int MPI_Type_get_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent);

/* ---- collectives available in this version ---------------------------------------------- */
int MPI_Barrier(MPI_Comm comm);

#ifdef __cplusplus
}
#endif
#endif /* SCTPMPI_MPI_H */
