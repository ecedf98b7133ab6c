"""annotations.py — what the C prototypes in mpi.h cannot say about the Fortran bindings.

gen_fortran.py reads every MPI_* prototype from include/mpi.h and binds it from these tables.
A new prototype whose arguments are all plain (int, handles, MPI_Aint/Offset/Count, status,
strings, choice buffers) needs no entry here; add one only for what the C type leaves open:
the length of a handle or status array, LOGICAL arguments, 0-based indices Fortran sees
1-based, and routines whose C wrapper is written by hand (callbacks, attribute values). """

# Length (a C expression over the wrapper's Fortran arguments, all pointers) of handle and
# status arrays, by (routine, argument).  Routines not listed use DEFAULT_ARRAY_LEN.
ARRAY_LEN = {
    ("MPI_Type_get_contents", "array_of_datatypes"): "*max_datatypes",
    ("MPI_Type_create_struct", "types"): "*count",
    ("MPI_Type_struct", "types"): "*count",
    ("MPI_Waitsome", "requests"): "*incount",
    ("MPI_Waitsome", "statuses"): "*incount",
    ("MPI_Testsome", "requests"): "*incount",
    ("MPI_Testsome", "statuses"): "*incount",
    ("MPI_Request_get_status_some", "array_of_requests"): "*incount",
    ("MPI_Request_get_status_some", "array_of_statuses"): "*incount",
}
# the per-peer datatype arrays of the w collectives: one per peer of the communicator
# (sm_f_npeers answers the size, the remote size or the neighbour count)
for _f in ("Alltoallw", "Ialltoallw", "Alltoallw_init"):
    ARRAY_LEN[("MPI_" + _f, "sendtypes")] = "sm_f_npeers(*comm, 0)"
    ARRAY_LEN[("MPI_" + _f, "recvtypes")] = "sm_f_npeers(*comm, 0)"
for _f in ("Neighbor_alltoallw", "Ineighbor_alltoallw", "Neighbor_alltoallw_init"):
    ARRAY_LEN[("MPI_" + _f, "sendtypes")] = "sm_f_npeers(*comm, 2)"
    ARRAY_LEN[("MPI_" + _f, "recvtypes")] = "sm_f_npeers(*comm, 1)"
DEFAULT_ARRAY_LEN = "*count"

# LOGICAL arguments (by name, in any routine), and ones only in a given routine
LOGICAL_NAMES = {"flag", "weighted", "reorder", "periods", "remain_dims"}
LOGICAL_ARGS = {("MPI_Op_create", "commute"), ("MPI_Op_commutative", "commute"),
                ("MPI_Intercomm_merge", "high")}
# how many entries of an output LOGICAL array are written
LOGICAL_ARRAY_OUT_LEN = {("MPI_Cart_get", "periods"): "*maxdims"}

# 0-based indices returned to Fortran 1-based: (routine, argument) -> count expression
# ("" for a scalar)
INDEX_OUT = {
    ("MPI_Waitany", "index"): "",
    ("MPI_Testany", "index"): "",
    ("MPI_Request_get_status_any", "index"): "",
    ("MPI_Waitsome", "indices"): "*outcount",
    ("MPI_Testsome", "indices"): "*outcount",
    ("MPI_Request_get_status_some", "array_of_indices"): "*outcount",
}

# integer arrays with a sentinel of their own
INT_SENTINELS = {"sourceweights": "sm_f_weights", "destweights": "sm_f_weights",
                 "weights": "sm_f_weights", "array_of_errcodes": "sm_f_errcodes"}

# void * arguments that are not choice buffers
ADDRESS_OUT = {"baseptr"}  # the library stores an address there (Alloc_mem, Win_allocate)
# the library stores an address the Fortran program has no use for (Buffer_detach): it goes
# to a temporary, never into the program's buffer
ADDRESS_DISCARD = {"buffer_addr"}

# routines whose C wrapper is hand-written in fortran_support.c (the generator still writes
# their Fortran interfaces): callbacks, attribute values, MPI_Init's missing argc/argv
HANDWRITTEN = {
    "MPI_Init", "MPI_Init_thread", "MPI_Op_create", "MPI_Comm_create_errhandler",
    "MPI_Win_create_errhandler", "MPI_File_create_errhandler", "MPI_Session_create_errhandler",
    "MPI_Errhandler_create", "MPI_Comm_create_keyval", "MPI_Type_create_keyval",
    "MPI_Win_create_keyval", "MPI_Keyval_create", "MPI_Comm_get_attr", "MPI_Type_get_attr",
    "MPI_Win_get_attr", "MPI_Attr_get", "MPI_Comm_set_attr", "MPI_Type_set_attr",
    "MPI_Win_set_attr", "MPI_Attr_put", "MPI_Pcontrol", "MPI_Grequest_start",
    "MPI_Info_create_env", "MPI_Info_get_string", "MPI_Comm_spawn", "MPI_Comm_spawn_multiple",
    "MPI_Register_datarep",
}
# string arguments that lose their leading blanks too (info keys and values)
TRIM_LEADING = ("MPI_Info_",)

# routines with a Fortran FUNCTION binding (hand-written C), and their Fortran result type
FUNCTIONS = {"MPI_Wtime": "DOUBLE PRECISION", "MPI_Wtick": "DOUBLE PRECISION",
             "MPI_Aint_add": "INTEGER(KIND=MPI_ADDRESS_KIND)",
             "MPI_Aint_diff": "INTEGER(KIND=MPI_ADDRESS_KIND)"}

# Fortran types of hand-written routines' arguments the C type does not tell
ARG_FTYPE = {
    ("MPI_Comm_set_attr", "attribute_val"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Type_set_attr", "attribute_val"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Win_set_attr", "attribute_val"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Comm_get_attr", "attribute_val"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Type_get_attr", "attribute_val"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Win_get_attr", "attribute_val"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Attr_put", "attribute_val"): "INTEGER",
    ("MPI_Attr_get", "attribute_val"): "INTEGER",
    ("MPI_Comm_create_keyval", "extra_state"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Type_create_keyval", "extra_state"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Win_create_keyval", "extra_state"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Keyval_create", "extra_state"): "INTEGER",
    ("MPI_Pcontrol", "level"): "INTEGER",
    ("MPI_Grequest_start", "extra_state"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    ("MPI_Register_datarep", "extra_state"): "INTEGER(KIND=MPI_ADDRESS_KIND)",
    # argument vectors: CHARACTER arrays ended by a blank entry (MPI_ARGV_NULL: none); the
    # argv of command i of spawn_multiple is array_of_argv(i, :)
    ("MPI_Comm_spawn", "argv"): ("CHARACTER(LEN=*)", "(*)"),
    ("MPI_Comm_spawn_multiple", "array_of_commands"): ("CHARACTER(LEN=*)", "(*)"),
    ("MPI_Comm_spawn_multiple", "array_of_argv"): ("CHARACTER(LEN=*)", "(count,*)"),
}

# integer constants of kind MPI_OFFSET_KIND (the rest are default INTEGERs)
OFFSET_CONSTANTS = {"MPI_DISPLACEMENT_CURRENT"}

# families not bound yet, with the reason (listed in docs/fortran.md); a routine matching
# none of these and not bindable stops the generator, so new prototypes are never dropped
# silently
SKIP = [
    (r"^MPI_(Op_create|Register_datarep)_c$",
     "large-count callbacks (MPI_User_function_c, conversion functions) not bound"),
    (r"_(c2f|f2c|c2f08|f082c|f082f|f2f08)$", "C-only handle and status conversion"),
    (r"^MPI_T_", "the tool information interface has no Fortran binding"),
]

# the Fortran argument lists (as C text) of routines whose C ones differ
FORTRAN_ARGS = {"MPI_Init": "", "MPI_Init_thread": "int required, int *provided",
                "MPI_Pcontrol": "int level", "MPI_Info_create_env": "MPI_Info *info"}

# MPI-1 routines whose address-sized arguments are default INTEGERs in Fortran
# (argument -> array length expression, "" for a scalar)
FINT_AINT = {("MPI_Type_hvector", "stride"): "", ("MPI_Type_hindexed", "displacements"): "*count",
             ("MPI_Type_struct", "displacements"): "*count", ("MPI_Address", "address"): "",
             ("MPI_Type_extent", "extent"): "", ("MPI_Type_lb", "displacement"): "",
             ("MPI_Type_ub", "displacement"): ""}

# mpi_f08's abstract interfaces of the procedures a program writes (callback arguments stay
# EXTERNAL in the routines' interfaces, so a program may declare its procedure either way);
# TYPE(C_PTR), VALUE buffers receive the same address a Fortran array dummy would
_CB = [
    ("MPI_User_function", "invec, inoutvec, len, datatype",
     "TYPE(C_PTR), VALUE :: invec, inoutvec\n INTEGER :: len\n TYPE(MPI_Datatype) :: datatype"),
    ("MPI_Datarep_conversion_function",
     "userbuf, datatype, count, filebuf, position, extra_state, ierror",
     "TYPE(C_PTR), VALUE :: userbuf, filebuf\n TYPE(MPI_Datatype) :: datatype\n"
     " INTEGER :: count, ierror\n INTEGER(KIND=MPI_OFFSET_KIND) :: position\n"
     " INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state"),
    ("MPI_Datarep_extent_function", "datatype, extent, extra_state, ierror",
     "TYPE(MPI_Datatype) :: datatype\n INTEGER(KIND=MPI_ADDRESS_KIND) :: extent, extra_state\n"
     " INTEGER :: ierror"),
    ("MPI_Grequest_query_function", "extra_state, status, ierror",
     "INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state\n TYPE(MPI_Status) :: status\n"
     " INTEGER :: ierror"),
    ("MPI_Grequest_free_function", "extra_state, ierror",
     "INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state\n INTEGER :: ierror"),
    ("MPI_Grequest_cancel_function", "extra_state, complete, ierror",
     "INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state\n LOGICAL :: complete\n INTEGER :: ierror"),
]
for _k in ("Comm", "Win", "File", "Session"):
    _CB.append(("MPI_%s_errhandler_function" % _k, "obj, error_code",
                "TYPE(MPI_%s) :: obj\n INTEGER :: error_code" % _k))
for _k in ("Comm", "Type", "Win"):
    _h = "Datatype" if _k == "Type" else _k
    _CB.append(("MPI_%s_copy_attr_function" % _k,
                "oldobj, keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror",
                "TYPE(MPI_%s) :: oldobj\n INTEGER :: keyval, ierror\n"
                " INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, "
                "attribute_val_out\n LOGICAL :: flag" % _h))
    _CB.append(("MPI_%s_delete_attr_function" % _k, "obj, keyval, attribute_val, extra_state, ierror",
                "TYPE(MPI_%s) :: obj\n INTEGER :: keyval, ierror\n"
                " INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state" % _h))
F08_CALLBACK_INTERFACES = "  ABSTRACT INTERFACE\n" + "".join(
    "  SUBROUTINE %s(%s)\n    IMPORT\n%s\n  END SUBROUTINE %s\n"
    % (n, a, "\n".join("    " + x.strip() for x in d.split("\n")), n) for n, a, d in _CB) + \
    "  END INTERFACE\n"

# mpi_f08 routines written by hand in fortran_support.c that have no C prototype of a bindable
# form (the C ones take MPI_F08_status): the two Fortran status conversions of MPI-4.0
F08_EXTRA_INTERFACES = "".join(
    "  INTERFACE MPI_Status_%s\n  SUBROUTINE MPI_Status_%s_f08(%s, %s, ierror)\n    IMPORT\n"
    "    %s\n    %s\n    INTEGER, OPTIONAL :: ierror\n  END SUBROUTINE\n  END INTERFACE\n"
    % (n, n, a, b, da, db) for n, a, b, da, db in (
        ("f082f", "f08_status", "f_status", "TYPE(MPI_Status) :: f08_status",
         "INTEGER :: f_status(MPI_STATUS_SIZE)"),
        ("f2f08", "f_status", "f08_status", "INTEGER :: f_status(MPI_STATUS_SIZE)",
         "TYPE(MPI_Status) :: f08_status")))
