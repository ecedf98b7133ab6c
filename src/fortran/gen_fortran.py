#!/usr/bin/env python3
"""gen_fortran.py — generates sctpmpi's Fortran bindings from include/mpi.h.

Reads every `int MPI_Name(...)` prototype and the constants of include/mpi.h, the handle
numbering of src/api/handles_fortran.c and the annotation tables of annotations.py, and writes:
  fortran_wrappers.c  the f77-style entry points mpi_name_ (gfortran: lower case, one trailing
                      underscore; also pmpi_name_ and mpi_name_f08_), converting handles,
                      statuses, strings, LOGICALs and sentinels, then calling the C MPI_Name
  mpif.h              constants, sentinels and declarations (fixed-form compatible)
  mpi.f90             module mpi: the same constants plus explicit interfaces and MPI_Sizeof
  mpi_f08.f90         module mpi_f08: TYPE(MPI_Comm) etc., interfaces to the mpi_name_f08_
                      entry points with the typed handles and an OPTIONAL ierror
  bindings.txt        what was bound and what was skipped (and why)
usage: gen_fortran.py <mpi.h> <handles_fortran.c> <outdir>
"""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import annotations as A  # noqa: E402

HANDLES = {"MPI_Comm": "Comm", "MPI_Group": "Group", "MPI_Datatype": "Type",
           "MPI_Request": "Request", "MPI_Op": "Op", "MPI_Errhandler": "Errhandler",
           "MPI_Info": "Info", "MPI_Win": "Win", "MPI_File": "File", "MPI_Message": "Message",
           "MPI_Session": "Session"}
KINDS = {"MPI_Aint": "MPI_ADDRESS_KIND", "MPI_Offset": "MPI_OFFSET_KIND",
         "MPI_Count": "MPI_COUNT_KIND"}
KIND_VALUES = {"MPI_ADDRESS_KIND": 8, "MPI_OFFSET_KIND": 8, "MPI_COUNT_KIND": 8,
               "MPI_INTEGER_KIND": 4}


class Unbindable(Exception):
    pass


class Param:
    def __init__(self, text):
        text = " ".join(text.split())
        m = re.match(r"^(const\s+)?([A-Za-z_]\w*)\s*(\**)\s*([A-Za-z_]\w*)\s*((?:\[\w*\])*)$", text)
        if not m:
            raise Unbindable("cannot parse argument '%s'" % text)
        self.const = bool(m.group(1))
        self.base = m.group(2)
        self.ptr = len(m.group(3))
        self.name = m.group(4)
        self.dims = re.findall(r"\[(\w*)\]", m.group(5))
        self.arr = len(self.dims)


def read_prototypes(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r"^\s*#.*$", "", text, flags=re.M)
    out = {}
    for stmt in re.split(r"[;{}]", text):
        m = re.match(r"^\s*(int|double|MPI_Aint)\s+(MPI_\w+)\s*\((.*)\)\s*$", stmt, flags=re.S)
        if m and m.group(2) not in out:
            out[m.group(2)] = (m.group(1), " ".join(m.group(3).split()))
    return out


def read_constants(text):
    """integer #defines (MPI_*), in order, with aliases resolved"""
    vals = {}
    order = []
    for name, val in re.findall(r"^#define\s+(MPI_\w+)\s+(\S.*?)\s*$", text, flags=re.M):
        val = re.sub(r"/\*.*", "", val).strip()
        v = None
        mm = re.match(r"^\(?\s*(-?(?:0x[0-9a-fA-F]+|\d+))\s*\)?$", val)
        if mm:
            v = int(mm.group(1), 0)
        elif val in vals:
            v = vals[val]
        if v is not None and name not in vals:
            vals[name] = v
            order.append(name)
    return vals, order


def read_handle_numbers(mpih, hfc):
    """predefined handles -> their Fortran numbers, as handles_fortran.c hands them out"""
    nums = {}
    dts = []
    for lst in ("SCTPMPI_DT_LIST", "SCTPMPI_DT_LIST_MPI3"):
        m = re.search(r"#define\s+%s\(X\)(.*?)\n(?!.*\\\n)" % lst, mpih, flags=re.S)
        body = re.search(r"#define\s+%s\(X\)((?:.*\\\n)*.*)" % lst, mpih).group(1)
        dts += re.findall(r"X\((MPI_\w+),", body)
        del m
    for i, d in enumerate(dts):
        nums[d] = ("Type", i + 1)
    counters = {}
    for kind, name in re.findall(r"add\(&tabs\[H_(\w+)\],\s*(MPI_\w+)\)", hfc):
        counters[kind] = counters.get(kind, 0) + 1
        nums[name] = ({"COMM": "Comm", "GROUP": "Group", "ERRH": "Errhandler", "INFO": "Info",
                       "MESSAGE": "Message"}[kind], counters[kind])
    ops = re.search(r"MPI_Op ops\[\]\s*=\s*{(.*?)}", hfc, flags=re.S).group(1)
    for i, o in enumerate(re.findall(r"MPI_\w+", ops)):
        nums[o] = ("Op", i + 1)
    # aliases and null types
    for alias, target in re.findall(r"^#define\s+(MPI_\w+)\s+(MPI_\w+)\s*$", mpih, flags=re.M):
        if target in nums and alias not in nums:
            nums[alias] = nums[target]
        elif target == "MPI_DATATYPE_NULL":
            nums[alias] = ("Type", 0)
    for h, k in HANDLES.items():
        nm = {"Type": "MPI_DATATYPE_NULL"}.get(k, "MPI_%s_NULL" % k.upper())
        nums[nm] = (k, 0)
    return nums


# ---------------------------------------------------------------------------------------
# one routine


def is_logical(fn, p):
    return (p.name in A.LOGICAL_NAMES or (fn, p.name) in A.LOGICAL_ARGS) and p.base == "int"


def ftype(fn, p, f08):
    """the Fortran declaration of argument p: (type-spec, dims, is_choice)"""
    if (fn, p.name) in A.ARG_FTYPE:
        t = A.ARG_FTYPE[(fn, p.name)]
        return (t if isinstance(t, tuple) else (t, "")) + (False,)
    b = p.base
    if b.endswith("_function"):
        return "EXTERNAL", "", False
    if b == "void":
        return "TYPE(*)", "(*)", True
    if b == "char":
        if p.ptr + p.arr != 1:
            raise Unbindable("string array '%s'" % p.name)
        return "CHARACTER(LEN=*)", "", False
    dims = ""
    if p.arr:
        dims = "(3,*)" if p.dims == ["", "3"] else "(*)"
    if b == "MPI_Status":
        t = "TYPE(MPI_Status)" if f08 else "INTEGER"
        if not f08:
            dims = "(MPI_STATUS_SIZE,*)" if p.arr else "(MPI_STATUS_SIZE)"
        return t, dims, False
    if b in HANDLES:
        return ("TYPE(%s)" % b) if f08 else "INTEGER", dims, False
    if (fn, p.name) in A.FINT_AINT:
        return "INTEGER", dims, False
    if b in KINDS:
        return "INTEGER(KIND=%s)" % KINDS[b], dims, False
    if b == "int":
        return ("LOGICAL" if is_logical(fn, p) else "INTEGER"), dims, False
    raise Unbindable("argument type %s" % b)


def c_wrapper(fn, params):
    """the C body of mpi_name_ for a generated routine"""
    lname = fn.lower()
    cargs = []   # wrapper parameters
    hidden = []  # hidden string lengths
    pre, call, post = [], [], []
    for p in params:
        n = p.name
        b = p.base
        if b == "void" and n in A.ADDRESS_DISCARD:
            cargs.append("void *%s" % n)
            pre.append("void *c_%s = NULL;" % n)
            pre.append("(void)%s;" % n)
            call.append("&c_%s" % n)
        elif b == "void":
            cargs.append("void *%s" % n)
            call.append(n if n in A.ADDRESS_OUT else "sm_f_buf(%s)" % n)
        elif b == "char":
            cargs.append("char *%s" % n)
            hidden.append("size_t %s_len" % n)
            if p.const:
                fn_in = "sm_f_str_in_trim" if fn.startswith(A.TRIM_LEADING) else "sm_f_str_in"
                pre.append("char *c_%s = %s(%s, %s_len);" % (n, fn_in, n, n))
            else:
                pre.append("char *c_%s = sm_f_str_tmp(%s_len);" % (n, n))
                # a routine answering a flag leaves the string alone when flag is false
                cond = "if (*flag) " if any(q.name == "flag" for q in params) else ""
                post.append("%ssm_f_str_out(c_%s, %s, %s_len);" % (cond, n, n, n))
            call.append("c_%s" % n)
            post.append("free(c_%s);" % n)
        elif b == "MPI_Status":
            cargs.append("MPI_Fint *%s" % n)
            if p.arr:
                ln = A.ARRAY_LEN.get((large_base(fn), n), A.DEFAULT_ARRAY_LEN)
                pre.append("int n_%s = %s;" % (n, ln))
                pre.append("MPI_Status *c_%s = sm_f_statuses_in(%s, n_%s);" % (n, n, n))
                post.append("sm_f_statuses_out(c_%s, %s, n_%s);" % (n, n, n))
            else:
                pre.append("MPI_Status s_%s, *c_%s = sm_f_status_in(%s, &s_%s);" % (n, n, n, n))
                if not p.const:
                    post.append("sm_f_status_out(c_%s, %s);" % (n, n))
            call.append("c_%s" % n)
        elif b in HANDLES:
            k = HANDLES[b]
            cargs.append("MPI_Fint *%s" % n)
            if p.arr:
                ln = A.ARRAY_LEN.get((large_base(fn), n), A.DEFAULT_ARRAY_LEN)
                pre.append("int n_%s = %s;" % (n, ln))
                pre.append("%s *c_%s = sm_f_xmalloc((size_t)(n_%s > 0 ? n_%s : 1) * sizeof *c_%s);"
                           % (b, n, n, n, n))
                pre.append("for (int i = 0; i < n_%s; i++) c_%s[i] = MPI_%s_f2c(%s[i]);"
                           % (n, n, k, n))
                if not p.const:
                    post.append("for (int i = 0; i < n_%s; i++) %s[i] = MPI_%s_c2f(c_%s[i]);"
                                % (n, n, k, n))
                post.append("free(c_%s);" % n)
                call.append("c_%s" % n)
            elif p.ptr:
                pre.append("%s c_%s = MPI_%s_f2c(*%s);" % (b, n, k, n))
                call.append("&c_%s" % n)
                post.append("%s = MPI_%s_c2f(c_%s);" % ("*" + n, k, n))
            else:
                call.append("MPI_%s_f2c(*%s)" % (k, n))
        elif (fn, n) in A.FINT_AINT:
            cargs.append("MPI_Fint *%s" % n)
            ln = A.FINT_AINT[(fn, n)]
            if ln:
                pre.append("int n_%s = %s;" % (n, ln))
                pre.append("MPI_Aint *c_%s = sm_f_xmalloc((size_t)(n_%s > 0 ? n_%s : 1) * "
                           "sizeof(MPI_Aint));" % (n, n, n))
                pre.append("for (int i = 0; i < n_%s; i++) c_%s[i] = %s[i];" % (n, n, n))
                post.append("free(c_%s);" % n)
                call.append("c_%s" % n)
            elif p.ptr:
                pre.append("MPI_Aint c_%s = 0;" % n)
                call.append("&c_%s" % n)
                post.append("*%s = (MPI_Fint)c_%s;" % (n, n))
            else:
                call.append("(MPI_Aint)*%s" % n)
        elif b in KINDS:
            cargs.append("%s *%s" % (b, n))
            call.append(n if (p.ptr or p.arr) else "*%s" % n)
        elif b == "int":
            cargs.append(("MPI_Fint (*%s)[3]" if p.arr == 2 else "MPI_Fint *%s") % n)
            if p.ptr or p.arr:
                call.append("%s(%s)" % (A.INT_SENTINELS[n], n) if n in A.INT_SENTINELS else n)
                if (fn, n) in A.INDEX_OUT:
                    ln = A.INDEX_OUT[(fn, n)]
                    post.append("sm_f_index_out(%s, %s);" % (n, ln or "1"))
                if is_logical(fn, p) and not p.const:
                    ln = A.LOGICAL_ARRAY_OUT_LEN.get((fn, n))
                    if ln or not p.arr:
                        post.append("sm_f_logical_out(%s, %s);" % (n, ln or "1"))
            else:
                call.append("*%s" % n)
        else:
            raise Unbindable("argument type %s" % b)
    sig = ", ".join(cargs + ["MPI_Fint *ierr"] + hidden)
    body = ["SM_FENTRY(%s, %s)" % (lname, sig), "{"]
    body += ["    " + s for s in pre]
    body.append("    int rc = %s(%s);" % (fn, ", ".join(call)))
    if post:
        body.append("    if (rc == MPI_SUCCESS) {")
        body += ["        " + s for s in post if not s.startswith("free(")]
        body.append("    }")
        body += ["    " + s for s in post if s.startswith("free(")]
    body.append("    if (ierr)")
    body.append("        *ierr = rc;")
    body.append("}")
    return "\n".join(body) + "\n"


def wrap_f(line, indent="  "):
    """split a free-form line at commas to stay below 132 columns"""
    out = []
    while len(line) > 100:
        cut = line.rfind(",", 0, 100) + 1
        out.append(line[:cut] + " &")
        line = indent + "    " + line[cut:].lstrip()
    out.append(line)
    return "\n".join(out)


def f_interface(fn, params, f08, ret=None):
    """an interface body (free form) for routine fn; f08 names it Name_f08 with typed handles"""
    name = fn + ("_f08" if f08 else "")
    names = [p.name for p in params]
    lines = []
    if ret:
        lines.append(wrap_f("  FUNCTION %s(%s)" % (name, ", ".join(names))))
        lines.append("    IMPORT")
        lines.append("    %s :: %s" % (ret, name))
    else:
        lines.append(wrap_f("  SUBROUTINE %s(%s)" % (name, ", ".join(names + ["ierror"]))))
        lines.append("    IMPORT")
    for p in params:
        t, dims, choice = ftype(fn, p, f08)
        if choice or (p.base == "void"):
            lines.append("    !GCC$ ATTRIBUTES NO_ARG_CHECK :: %s" % p.name)
        if t == "EXTERNAL":
            lines.append("    EXTERNAL :: %s" % p.name)
        else:
            lines.append("    %s :: %s%s" % (t, p.name, dims))
    if not ret:
        lines.append("    INTEGER%s :: ierror" % (", OPTIONAL" if f08 else ""))
        lines.append("  END SUBROUTINE %s" % name)
    else:
        lines.append("  END FUNCTION %s" % name)
    return "\n".join(lines) + "\n"


def large_base(fn):
    """the routine a large-count variant MPI_Name_c shares its annotations with"""
    return fn[:-2] if fn.endswith("_c") else fn


def f08_signature(fn, params):
    """what tells specifics of one generic apart: each non-choice argument's type, kind
    (kind names resolved to numbers) and rank"""
    sig = []
    for p in params:
        t, dims, choice = ftype(fn, p, True)
        for k, v in KIND_VALUES.items():
            t = t.replace("KIND=%s" % k, "KIND=%d" % v)
        sig.append(None if choice or t.startswith("TYPE(*)") else (t, bool(dims)))
    return sig


def distinguishable(a, b):
    return len(a) != len(b) or any(x and y and x != y for x, y in zip(a, b))


def skip_reason(fn):
    for pat, why in A.SKIP:
        if re.search(pat, fn):
            return why
    return None


# ---------------------------------------------------------------------------------------
# the constants


def fixed(decl):
    """a fixed-form line (columns 7-72)"""
    line = "      " + decl
    assert len(line) <= 72, line
    return line


def main():
    mpih_path, hfc_path, outdir = sys.argv[1:4]
    mpih = open(mpih_path).read()
    hfc = open(hfc_path).read()
    protos = read_prototypes(mpih)
    consts, corder = read_constants(mpih)
    handles = read_handle_numbers(mpih, hfc)

    bound, skipped, cwrap, f77ifc, f08ifc = [], [], [], [], []
    f08sig = {}
    large = []  # (fn, params, fret): the _c routines, mpi_f08 only
    for fn in sorted(protos):
        ret, args = protos[fn]
        why = skip_reason(fn)
        if why:
            skipped.append((fn, why))
            continue
        args = A.FORTRAN_ARGS.get(fn, args)
        params = [] if args in ("", "void") else [Param(a) for a in args.split(",")]
        if any(p.name == "..." for p in params):
            raise SystemExit("%s: varargs needs a hand-written binding" % fn)
        fret = A.FUNCTIONS.get(fn)
        if ret != "int" and not fret:
            raise SystemExit("%s returns %s: add it to annotations.FUNCTIONS" % (fn, ret))
        try:
            if fn not in A.HANDWRITTEN and not fret:
                cwrap.append(c_wrapper(fn, params))
            if fn.endswith("_c") and fn[:-2] in protos:
                large.append((fn, params, fret))
                bound.append(fn)
                continue
            f08sig[fn] = f08_signature(fn, params)
            f77ifc.append(f_interface(fn, params, False, fret))
            f08ifc.append((fn, f_interface(fn, params, True, fret)))
        except Unbindable as e:
            raise SystemExit("%s: %s: add an annotation or a SKIP entry" % (fn, e))
        bound.append(fn)
    # a large-count routine joins its base routine's generic in mpi_f08 (MPI_Send takes either
    # count kind); where the two cannot be told apart by their arguments (MPI_Aint and
    # MPI_Count are both 8-byte integers) it keeps a generic of its own name
    f08gen = {fn: [s] for fn, s in f08ifc}
    for fn, params, fret in large:
        s = f_interface(fn, params, True, fret)
        base = fn[:-2]
        if base in f08gen and distinguishable(f08sig[base], f08_signature(fn, params)):
            f08gen[base].append(s)
        else:
            f08gen[fn] = [s]

    os.makedirs(outdir, exist_ok=True)
    # ---- C wrappers
    with open(os.path.join(outdir, "fortran_wrappers.c"), "w") as f:
        f.write("/* fortran_wrappers.c — generated by src/fortran/gen_fortran.py from mpi.h; "
                "do not edit. */\n#include \"fortran_support.h\"\n\n")
        f.write("\n".join(cwrap))

    # ---- constants, shared by mpif.h and the modules
    ints = []  # (name, value)
    for name in corder:
        if name in handles or name in ("MPI_F_STATUS_IGNORE", "MPI_F_STATUSES_IGNORE"):
            continue
        ints.append((name, consts[name]))
    ints += [("MPI_STATUS_SIZE", consts["MPI_F_STATUS_SIZE"]), ("MPI_SOURCE", 1),
             ("MPI_TAG", 2), ("MPI_ERROR", 3)]
    ints += list(KIND_VALUES.items())
    hnums = sorted(handles.items(), key=lambda kv: (kv[1][0], kv[1][1], kv[0]))

    sentinels = [  # (name, common block, Fortran declaration, f08 type)
        ("MPI_BOTTOM", "mpi_fortran_bottom", "INTEGER MPI_BOTTOM", None),
        ("MPI_IN_PLACE", "mpi_fortran_in_place", "INTEGER MPI_IN_PLACE", None),
        ("MPI_BUFFER_AUTOMATIC", "mpi_fortran_buffer_automatic",
         "INTEGER MPI_BUFFER_AUTOMATIC", None),
        ("MPI_STATUS_IGNORE", "mpi_fortran_status_ignore",
         "INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)", "TYPE(MPI_Status) :: MPI_STATUS_IGNORE"),
        ("MPI_STATUSES_IGNORE", "mpi_fortran_statuses_ignore",
         "INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)",
         "TYPE(MPI_Status) :: MPI_STATUSES_IGNORE(1)"),
        ("MPI_ERRCODES_IGNORE", "mpi_fortran_errcodes_ignore",
         "INTEGER MPI_ERRCODES_IGNORE(1)", None),
        ("MPI_UNWEIGHTED", "mpi_fortran_unweighted", "INTEGER MPI_UNWEIGHTED(1)", None),
        ("MPI_WEIGHTS_EMPTY", "mpi_fortran_weights_empty", "INTEGER MPI_WEIGHTS_EMPTY(1)", None),
        ("MPI_ARGV_NULL", "mpi_fortran_argv_null", "CHARACTER*1 MPI_ARGV_NULL(1)", None),
        ("MPI_ARGVS_NULL", "mpi_fortran_argvs_null", "CHARACTER*1 MPI_ARGVS_NULL(1,1)", None),
    ]
    callbacks = ["MPI_NULL_COPY_FN", "MPI_NULL_DELETE_FN", "MPI_DUP_FN",
                 "MPI_COMM_NULL_COPY_FN", "MPI_COMM_NULL_DELETE_FN", "MPI_COMM_DUP_FN",
                 "MPI_TYPE_NULL_COPY_FN", "MPI_TYPE_NULL_DELETE_FN", "MPI_TYPE_DUP_FN",
                 "MPI_WIN_NULL_COPY_FN", "MPI_WIN_NULL_DELETE_FN", "MPI_WIN_DUP_FN",
                 "MPI_CONVERSION_FN_NULL"]

    # ---- mpif.h
    L = ["! mpif.h - sctpmpi's Fortran interface: constants, handles, sentinels",
         "! (generated by src/fortran/gen_fortran.py from mpi.h; fixed and free",
         "! form).  Handles are INTEGERs, the numbers of MPI_Comm_c2f & co."]
    for name, v in ints:
        L.append(fixed("%s %s" % ("INTEGER*8" if name in A.OFFSET_CONSTANTS else "INTEGER",
                                  name)))
        L.append(fixed("PARAMETER (%s=%d)" % (name, v)))
    for name, (k, v) in hnums:
        L.append(fixed("INTEGER %s" % name))
        L.append(fixed("PARAMETER (%s=%d)" % (name, v)))
    for name, blk, decl, _ in sentinels:
        L.append(fixed(decl))
        L.append(fixed("COMMON /%s/ %s" % (blk, name)))
        L.append(fixed("SAVE /%s/" % blk))
    for cb in callbacks:
        L.append(fixed("EXTERNAL %s" % cb))
    for fn, t in A.FUNCTIONS.items():
        L.append(fixed("%s %s, P%s" % (t.replace("(KIND=MPI_ADDRESS_KIND)", "*8"), fn.upper(),
                                      fn.upper())))
        L.append(fixed("EXTERNAL %s, P%s" % (fn.upper(), fn.upper())))
    L.append(fixed("LOGICAL MPI_SUBARRAYS_SUPPORTED"))
    L.append(fixed("PARAMETER (MPI_SUBARRAYS_SUPPORTED=.FALSE.)"))
    L.append(fixed("LOGICAL MPI_ASYNC_PROTECTS_NONBLOCKING"))
    L.append(fixed("PARAMETER (MPI_ASYNC_PROTECTS_NONBLOCKING=.FALSE.)"))
    with open(os.path.join(outdir, "mpif.h"), "w") as f:
        f.write("\n".join(L) + "\n")

    def module_constants(f08):
        M = []
        for name, v in ints:
            t = "INTEGER(KIND=%d)" % KIND_VALUES["MPI_OFFSET_KIND"] \
                if name in A.OFFSET_CONSTANTS else "INTEGER"
            M.append("  %s, PARAMETER :: %s = %d" % (t, name, v))
        for name, (k, v) in hnums:
            if f08:
                tn = [h for h, kk in HANDLES.items() if kk == k][0]
                M.append("  TYPE(%s), PARAMETER :: %s = %s(%d)" % (tn, name, tn, v))
            else:
                M.append("  INTEGER, PARAMETER :: %s = %d" % (name, v))
        for name, blk, decl, d08 in sentinels:
            if f08 and d08:
                M.append("  " + d08)
            else:
                M.append("  " + decl.replace("CHARACTER*1", "CHARACTER(LEN=1)"))
            M.append("  COMMON /%s/ %s" % (blk, name))
            M.append("  SAVE /%s/" % blk)
        M.append("  EXTERNAL :: " + ", ".join(callbacks))
        M.append("  LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .FALSE.")
        M.append("  LOGICAL, PARAMETER :: MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE.")
        return "\n".join(wrap_f(m) for m in M) + "\n"

    sizeof = []
    specifics = []
    for t, kinds in (("INTEGER", (1, 2, 4, 8, 16)), ("REAL", (4, 8, 16)),
                     ("COMPLEX", (4, 8, 16)), ("LOGICAL", (1, 2, 4, 8)),
                     ("CHARACTER", (1,))):
        for k in kinds:
            sn = "sm_sizeof_%s%d" % (t.lower(), k)
            specifics.append(sn)
            sizeof.append("  SUBROUTINE %s(x, size, ierror)\n"
                          "    %s(KIND=%d), DIMENSION(..) :: x\n"
                          "    INTEGER :: size\n    INTEGER%s :: ierror\n"
                          "    size = STORAGE_SIZE(x) / 8\n"
                          "    %sierror = MPI_SUCCESS\n  END SUBROUTINE %s\n"
                          % (sn, t, k, "@OPT@", "@IF@", sn))
    sizeof_generic = ("  INTERFACE MPI_Sizeof\n    MODULE PROCEDURE " +
                      ", ".join(specifics) + "\n  END INTERFACE MPI_Sizeof\n")
    sizeof_generic = wrap_f(sizeof_generic.replace("\n", "@NL@"), "").replace("@NL@", "\n")

    # ---- module mpi
    with open(os.path.join(outdir, "mpi.f90"), "w") as f:
        f.write("! mpi.f90 — module mpi of sctpmpi (generated by src/fortran/gen_fortran.py; do "
                "not edit)\nMODULE mpi\n  IMPLICIT NONE\n")
        f.write(module_constants(False))
        f.write("  INTERFACE\n")
        for s in f77ifc:
            f.write(s)
        for fn, t in A.FUNCTIONS.items():   # the profiling names of the FUNCTIONs too
            f.write(f_interface("P" + fn, [Param(x) for x in protos[fn][1].split(",")
                                           if x.strip() not in ("", "void")], False, t))
        f.write("  SUBROUTINE MPI_F_sync_reg(buf)\n    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf\n"
                "    TYPE(*), DIMENSION(*) :: buf\n  END SUBROUTINE MPI_F_sync_reg\n")
        f.write("  END INTERFACE\n")
        f.write(sizeof_generic)
        f.write("CONTAINS\n")
        f.write("".join(sizeof).replace("@OPT@", "").replace("@IF@", ""))
        f.write("END MODULE mpi\n")

    # ---- module mpi_f08
    with open(os.path.join(outdir, "mpi_f08.f90"), "w") as f:
        f.write("! mpi_f08.f90 — module mpi_f08 of sctpmpi (generated by "
                "src/fortran/gen_fortran.py; do not edit)\nMODULE mpi_f08\n"
                "  USE, INTRINSIC :: ISO_C_BINDING\n  IMPLICIT NONE\n")
        for h in HANDLES:
            f.write("  TYPE, BIND(C) :: %s\n    INTEGER(C_INT) :: MPI_VAL\n  END TYPE %s\n" % (h, h))
        f.write("  TYPE, BIND(C) :: MPI_Status\n    INTEGER(C_INT) :: MPI_SOURCE, MPI_TAG, MPI_ERROR\n"
                "    INTEGER(C_INT) :: sm_private(%d)\n  END TYPE MPI_Status\n"
                % (consts["MPI_F_STATUS_SIZE"] - 3))
        f.write(module_constants(True))
        ops = []
        for h in HANDLES:
            ops.append("  INTERFACE OPERATOR(==)\n    MODULE PROCEDURE sm_eq_%s\n"
                       "  END INTERFACE\n  INTERFACE OPERATOR(/=)\n"
                       "    MODULE PROCEDURE sm_ne_%s\n  END INTERFACE\n" % (h, h))
        f.write("".join(ops))
        f.write(A.F08_CALLBACK_INTERFACES)
        f.write(A.F08_EXTRA_INTERFACES)
        for fn in sorted(f08gen):
            f.write("  INTERFACE %s\n" % fn)
            for s in f08gen[fn]:
                f.write(s.replace("  FUNCTION", "    FUNCTION").replace("  SUBROUTINE",
                        "    SUBROUTINE"))
            f.write("  END INTERFACE %s\n" % fn)
        f.write("  INTERFACE\n")
        for fn, t in A.FUNCTIONS.items():   # PMPI_Wtime & co. (the same entry points as mpi's)
            f.write(f_interface("P" + fn, [Param(x) for x in protos[fn][1].split(",")
                                           if x.strip() not in ("", "void")], False, t))
        f.write("  END INTERFACE\n")
        f.write("  INTERFACE\n  SUBROUTINE MPI_F_sync_reg(buf)\n"
                "    !GCC$ ATTRIBUTES NO_ARG_CHECK :: buf\n"
                "    TYPE(*), DIMENSION(*) :: buf\n  END SUBROUTINE MPI_F_sync_reg\n"
                "  END INTERFACE\n")
        f.write(sizeof_generic)
        f.write("CONTAINS\n")
        for h in HANDLES:
            for nm, op in (("eq", "=="), ("ne", "/=")):
                f.write("  ELEMENTAL LOGICAL FUNCTION sm_%s_%s(a, b)\n"
                        "    TYPE(%s), INTENT(IN) :: a, b\n"
                        "    sm_%s_%s = a%%MPI_VAL %s b%%MPI_VAL\n  END FUNCTION\n"
                        % (nm, h, h, nm, h, op))
        f.write("".join(sizeof).replace("@OPT@", ", OPTIONAL").replace(
            "@IF@", "IF (PRESENT(ierror)) "))
        f.write("END MODULE mpi_f08\n")

    with open(os.path.join(outdir, "bindings.txt"), "w") as f:
        f.write("# bound (%d)\n" % len(bound))
        f.write("".join("%s\n" % b for b in bound))
        f.write("# skipped (%d)\n" % len(skipped))
        f.write("".join("%s\t%s\n" % s for s in skipped))


if __name__ == "__main__":
    main()
