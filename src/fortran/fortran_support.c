/* fortran_support.c — the hand-written part of the Fortran bindings: the sentinels' common
 * blocks, the conversion helpers the generated wrappers use, and the entry points the
 * generator cannot write: MPI_Init (no argc/argv), the FUNCTIONs (MPI_Wtime, MPI_Aint_add),
 * user reduction ops and error handlers (Fortran procedures called through C trampolines),
 * attribute keyvals with Fortran copy/delete procedures, and attribute values (Fortran sees
 * integers, C pointers). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "fortran_support.h"

/* ---- sentinels (see mpif.h) ------------------------------------------------------------ */
/* aligned like gfortran's own common blocks, so the program's copy and this one agree */
#define SM_FCOMMON SM_FEXPORT __attribute__((aligned(16)))
SM_FCOMMON MPI_Fint mpi_fortran_bottom_;
SM_FCOMMON MPI_Fint mpi_fortran_in_place_;
SM_FCOMMON MPI_Fint mpi_fortran_buffer_automatic_;
SM_FCOMMON MPI_Fint mpi_fortran_status_ignore_[MPI_F_STATUS_SIZE];
SM_FCOMMON MPI_Fint mpi_fortran_statuses_ignore_[MPI_F_STATUS_SIZE];
SM_FCOMMON MPI_Fint mpi_fortran_errcodes_ignore_[1];
SM_FCOMMON MPI_Fint mpi_fortran_unweighted_[1];
SM_FCOMMON MPI_Fint mpi_fortran_weights_empty_[1];
SM_FCOMMON char mpi_fortran_argv_null_[1];
SM_FCOMMON char mpi_fortran_argvs_null_[1];

void *sm_f_xmalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (!p) {
        fprintf(stderr, "sctpmpi (Fortran): out of memory\n");
        abort();
    }
    return p;
}

/* ---- strings --------------------------------------------------------------------------- */
char *sm_f_str_in_trim(const char *f, size_t len)
{
    while (len > 0 && f[0] == ' ')
        f++, len--;
    return sm_f_str_in(f, len);
}

char *sm_f_str_in(const char *f, size_t len)
{
    while (len > 0 && f[len - 1] == ' ')
        len--;
    char *c = sm_f_xmalloc(len + 1);
    memcpy(c, f, len);
    return c;
}

/* any string MPI writes fits (MPI_MAX_INFO_VAL and MPI_MAX_PORT_NAME are the longest) */
enum { SM_F_STRSLACK = 4096 };

char *sm_f_str_tmp(size_t len)
{
    return sm_f_xmalloc(len + SM_F_STRSLACK);
}

void sm_f_str_out(const char *c, char *f, size_t len)
{
    size_t n = strnlen(c, len);
    memcpy(f, c, n);
    memset(f + n, ' ', len - n);
}

/* ---- statuses, indices, logicals ---------------------------------------------------------- */
MPI_Status *sm_f_status_in(MPI_Fint *f, MPI_Status *c)
{
    if (f == mpi_fortran_status_ignore_ || f == mpi_fortran_statuses_ignore_)
        return MPI_STATUS_IGNORE;
    memset(c, 0, sizeof *c);
    MPI_Status_f2c(f, c);
    return c;
}

void sm_f_status_out(const MPI_Status *c, MPI_Fint *f)
{
    if (c)
        MPI_Status_c2f(c, f);
}

MPI_Status *sm_f_statuses_in(MPI_Fint *f, int n)
{
    if (f == mpi_fortran_statuses_ignore_ || f == mpi_fortran_status_ignore_)
        return MPI_STATUSES_IGNORE;
    MPI_Status *c = sm_f_xmalloc(sizeof *c * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++)
        MPI_Status_f2c(f + (size_t)i * MPI_F_STATUS_SIZE, &c[i]);
    return c;
}

void sm_f_statuses_out(MPI_Status *c, MPI_Fint *f, int n)
{
    if (!c)
        return;
    for (int i = 0; i < n; i++)
        MPI_Status_c2f(&c[i], f + (size_t)i * MPI_F_STATUS_SIZE);
    free(c);
}

void sm_f_index_out(MPI_Fint *idx, int n)
{
    if (n == MPI_UNDEFINED)
        return;
    for (int i = 0; i < n; i++)
        if (idx[i] >= 0)
            idx[i]++;
}

void sm_f_logical_out(MPI_Fint *v, int n)
{
    for (int i = 0; i < n; i++)
        v[i] = v[i] != 0;
}

int sm_f_npeers(MPI_Fint fcomm, int which)
{
    MPI_Comm comm = MPI_Comm_f2c(fcomm);
    int n = 0, inter = 0, topo = MPI_UNDEFINED;
    if (!comm)
        return 0;
    if (which == 0) {
        MPI_Comm_test_inter(comm, &inter);
        if (inter)
            MPI_Comm_remote_size(comm, &n);
        else
            MPI_Comm_size(comm, &n);
        return n;
    }
    MPI_Topo_test(comm, &topo);
    if (topo == MPI_CART) {
        MPI_Cartdim_get(comm, &n);
        return 2 * n;
    }
    if (topo == MPI_GRAPH) {
        int rank;
        MPI_Comm_rank(comm, &rank);
        MPI_Graph_neighbors_count(comm, rank, &n);
        return n;
    }
    if (topo == MPI_DIST_GRAPH) {
        int in, out, w;
        MPI_Dist_graph_neighbors_count(comm, &in, &out, &w);
        return which == 1 ? in : out;
    }
    return 0;
}

static void set_ierr(MPI_Fint *ierr, int rc)
{
    if (ierr)
        *ierr = rc;
}

/* ---- environment -------------------------------------------------------------------------- */
SM_FENTRY(mpi_init, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Init(NULL, NULL));
}

SM_FENTRY(mpi_init_thread, MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Init_thread(NULL, NULL, *required, provided));
}

SM_FEXPORT double pmpi_wtime_(void);
SM_FEXPORT double mpi_wtime_(void) __attribute__((weak, alias("pmpi_wtime_")));
SM_FEXPORT double mpi_wtime_f08_(void) __attribute__((weak, alias("pmpi_wtime_")));
double pmpi_wtime_(void)
{
    return MPI_Wtime();
}

SM_FEXPORT double pmpi_wtick_(void);
SM_FEXPORT double mpi_wtick_(void) __attribute__((weak, alias("pmpi_wtick_")));
SM_FEXPORT double mpi_wtick_f08_(void) __attribute__((weak, alias("pmpi_wtick_")));
double pmpi_wtick_(void)
{
    return MPI_Wtick();
}

SM_FEXPORT MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp);
SM_FEXPORT MPI_Aint mpi_aint_add_(MPI_Aint *, MPI_Aint *)
    __attribute__((weak, alias("pmpi_aint_add_")));
SM_FEXPORT MPI_Aint mpi_aint_add_f08_(MPI_Aint *, MPI_Aint *)
    __attribute__((weak, alias("pmpi_aint_add_")));
MPI_Aint pmpi_aint_add_(MPI_Aint *base, MPI_Aint *disp)
{
    return MPI_Aint_add(*base, *disp);
}

SM_FEXPORT MPI_Aint pmpi_aint_diff_(MPI_Aint *a, MPI_Aint *b);
SM_FEXPORT MPI_Aint mpi_aint_diff_(MPI_Aint *, MPI_Aint *)
    __attribute__((weak, alias("pmpi_aint_diff_")));
SM_FEXPORT MPI_Aint mpi_aint_diff_f08_(MPI_Aint *, MPI_Aint *)
    __attribute__((weak, alias("pmpi_aint_diff_")));
MPI_Aint pmpi_aint_diff_(MPI_Aint *a, MPI_Aint *b)
{
    return MPI_Aint_diff(*a, *b);
}

SM_FENTRY(mpi_pcontrol, MPI_Fint *level, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Pcontrol(*level));
}

/* MPI_F_sync_reg: the call itself is the barrier to the compiler's register caching */
SM_FEXPORT void mpi_f_sync_reg_(void *buf);
void mpi_f_sync_reg_(void *buf)
{
    (void)buf;
}

/* ---- callbacks: trampolines -----------------------------------------------------------------
 * C calls a user op or an error handler with no room for state, so each Fortran procedure
 * registered gets a trampoline of its own from a fixed pool. */
#define SM_F_POOL 64
#define SM_F_REP8(X, b) X(b##0) X(b##1) X(b##2) X(b##3) X(b##4) X(b##5) X(b##6) X(b##7)
#define SM_F_REP64(X)                                                                            \
    SM_F_REP8(X, 0)                                                                              \
    SM_F_REP8(X, 1)                                                                              \
    SM_F_REP8(X, 2)                                                                              \
    SM_F_REP8(X, 3) SM_F_REP8(X, 4) SM_F_REP8(X, 5) SM_F_REP8(X, 6) SM_F_REP8(X, 7)

typedef void f_user_fn(void *, void *, MPI_Fint *, MPI_Fint *);
static f_user_fn *op_fns[SM_F_POOL];
static int n_op_fns;

#define OP_TRAMP(i)                                                                              \
    static void op_tramp_##i(void *in, void *inout, int *len, MPI_Datatype *dt)                  \
    {                                                                                            \
        MPI_Fint fdt = MPI_Type_c2f(*dt);                                                        \
        op_fns[(#i[0] - '0') * 8 + (#i[1] - '0')](in, inout, len, &fdt);                         \
    }
SM_F_REP64(OP_TRAMP)
#define OP_ENTRY(i) op_tramp_##i,
static MPI_User_function *op_tramps[SM_F_POOL] = { SM_F_REP64(OP_ENTRY) };

SM_FENTRY(mpi_op_create, f_user_fn *fn, MPI_Fint *commute, MPI_Fint *op, MPI_Fint *ierr)
{
    int slot = -1;
    for (int i = 0; i < n_op_fns; i++)
        if (op_fns[i] == fn)
            slot = i;
    if (slot < 0) {
        if (n_op_fns == SM_F_POOL) {
            set_ierr(ierr, MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_INTERN));
            return;
        }
        slot = n_op_fns++;
        op_fns[slot] = fn;
    }
    MPI_Op c = MPI_OP_NULL;
    int rc = MPI_Op_create(op_tramps[slot], *commute, &c);
    if (rc == MPI_SUCCESS)
        *op = MPI_Op_c2f(c);
    set_ierr(ierr, rc);
}

/* error handlers: Fortran's SUBROUTINE HANDLER(OBJECT, ERROR_CODE); one pool for all kinds */
typedef void f_errh_fn(MPI_Fint *, MPI_Fint *);
static struct {
    f_errh_fn *fn;
    int kind; /* 0 comm, 1 win, 2 file, 3 session */
} eh_fns[SM_F_POOL];
static int n_eh_fns;

#define EH_TRAMP(i)                                                                              \
    static void eh_tramp_##i(void *h, int *err, ...)                                             \
    {                                                                                            \
        int s = (#i[0] - '0') * 8 + (#i[1] - '0');                                               \
        MPI_Fint f = 0;                                                                          \
        switch (eh_fns[s].kind) {                                                                \
        case 0: f = MPI_Comm_c2f(*(MPI_Comm *)h); break;                                         \
        case 1: f = MPI_Win_c2f(*(MPI_Win *)h); break;                                           \
        case 2: f = MPI_File_c2f(*(MPI_File *)h); break;                                         \
        default: f = 0; break;                                                                   \
        }                                                                                        \
        eh_fns[s].fn(&f, err);                                                                   \
    }
SM_F_REP64(EH_TRAMP)
#define EH_ENTRY(i) (void (*)(void)) eh_tramp_##i,
static void (*eh_tramps[SM_F_POOL])(void) = { SM_F_REP64(EH_ENTRY) };

static int eh_slot(f_errh_fn *fn, int kind)
{
    for (int i = 0; i < n_eh_fns; i++)
        if (eh_fns[i].fn == fn && eh_fns[i].kind == kind)
            return i;
    if (n_eh_fns == SM_F_POOL)
        return -1;
    eh_fns[n_eh_fns].fn = fn;
    eh_fns[n_eh_fns].kind = kind;
    return n_eh_fns++;
}

#define EH_CREATE(lname, Kind, kind)                                                             \
    SM_FENTRY(lname, f_errh_fn *fn, MPI_Fint *errh, MPI_Fint *ierr)                              \
    {                                                                                            \
        int s = eh_slot(fn, kind);                                                               \
        if (s < 0) {                                                                             \
            set_ierr(ierr, MPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_INTERN));            \
            return;                                                                              \
        }                                                                                        \
        MPI_Errhandler c = MPI_ERRHANDLER_NULL;                                                  \
        int rc = MPI_##Kind((void *)eh_tramps[s], &c);                                           \
        if (rc == MPI_SUCCESS)                                                                   \
            *errh = MPI_Errhandler_c2f(c);                                                       \
        set_ierr(ierr, rc);                                                                      \
    }
EH_CREATE(mpi_comm_create_errhandler, Comm_create_errhandler, 0)
EH_CREATE(mpi_errhandler_create, Errhandler_create, 0)
EH_CREATE(mpi_win_create_errhandler, Win_create_errhandler, 1)
EH_CREATE(mpi_file_create_errhandler, File_create_errhandler, 2)
EH_CREATE(mpi_session_create_errhandler, Session_create_errhandler, 3)

/* ---- attribute values set from Fortran ------------------------------------------------------
 * A Fortran attribute is an integer; the library stores it in a cell of its own and hands C the
 * cell's address, so C code reading it gets a pointer to the value (MPI's language
 * interoperability rule for attributes), while Fortran reading a C-set attribute gets the
 * pointer as an integer.  The cells are remembered in a set so a read can tell them apart;
 * they live until the process ends (attributes can be copied between objects freely). */
static void **cells;
static size_t ncells_cap, ncells;

static size_t cell_slot(void *p, size_t cap)
{
    return (size_t)(((uintptr_t)p * 0x9e3779b97f4a7c15ull) >> 20) & (cap - 1);
}

static void cell_insert(void *p)
{
    if (2 * (ncells + 1) > ncells_cap) {
        size_t cap = ncells_cap ? 2 * ncells_cap : 256;
        void **t = sm_f_xmalloc(cap * sizeof *t);
        for (size_t i = 0; i < ncells_cap; i++)
            if (cells[i]) {
                size_t j = cell_slot(cells[i], cap);
                while (t[j])
                    j = (j + 1) & (cap - 1);
                t[j] = cells[i];
            }
        free(cells);
        cells = t;
        ncells_cap = cap;
    }
    size_t j = cell_slot(p, ncells_cap);
    while (cells[j])
        j = (j + 1) & (ncells_cap - 1);
    cells[j] = p;
    ncells++;
}

static int cell_is(void *p)
{
    if (!ncells_cap || !p)
        return 0;
    for (size_t j = cell_slot(p, ncells_cap); cells[j]; j = (j + 1) & (ncells_cap - 1))
        if (cells[j] == p)
            return 1;
    return 0;
}

static void *cell_new(MPI_Aint v)
{
    MPI_Aint *c = sm_f_xmalloc(sizeof *c);
    *c = v;
    cell_insert(c);
    return c;
}

/* the integer a Fortran program sees for a stored attribute value */
static MPI_Aint cell_value(void *p)
{
    return cell_is(p) ? *(MPI_Aint *)p : (MPI_Aint)(intptr_t)p;
}

/* ---- attribute keyvals -------------------------------------------------------------------
 * A keyval made from Fortran carries its procedures and the Fortran extra_state in a record
 * passed to C as the extra_state; the C trampolines call the Fortran procedures with
 * integers.  MPI-1 (MPI_Keyval_create) procedures take default INTEGERs, MPI-2 ones
 * INTEGER(KIND=MPI_ADDRESS_KIND). */
typedef void f_copy_fn(MPI_Fint *, MPI_Fint *, void *, void *, void *, MPI_Fint *, MPI_Fint *);
typedef void f_delete_fn(MPI_Fint *, MPI_Fint *, void *, void *, MPI_Fint *);

struct f_keyval {
    f_copy_fn *copy;
    f_delete_fn *del;
    MPI_Aint extra;
    int mpi1;
    struct f_keyval *next;
};
/* the records live until the process ends: the library may call a keyval's procedures after
 * the program freed it (attributes still set), and nothing tells us when it no longer will */
static struct f_keyval *f_keyvals;

/* the predefined Fortran procedures: real procedures (programs may call them), recognised by
 * address when a keyval is made */
#define F_NULL_COPY(name, T)                                                                     \
    SM_FEXPORT void name(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag,          \
                         MPI_Fint *ierr)                                                         \
    {                                                                                            \
        (void)o, (void)k, (void)e, (void)in, (void)out;                                          \
        *flag = 0;                                                                               \
        *ierr = MPI_SUCCESS;                                                                     \
    }
#define F_DUP(name, T)                                                                           \
    SM_FEXPORT void name(MPI_Fint *o, MPI_Fint *k, T *e, T *in, T *out, MPI_Fint *flag,          \
                         MPI_Fint *ierr)                                                         \
    {                                                                                            \
        (void)o, (void)k, (void)e;                                                               \
        *out = *in;                                                                              \
        *flag = 1;                                                                               \
        *ierr = MPI_SUCCESS;                                                                     \
    }
#define F_NULL_DELETE(name, T)                                                                   \
    SM_FEXPORT void name(MPI_Fint *o, MPI_Fint *k, T *v, T *e, MPI_Fint *ierr)                   \
    {                                                                                            \
        (void)o, (void)k, (void)v, (void)e;                                                      \
        *ierr = MPI_SUCCESS;                                                                     \
    }
F_NULL_COPY(mpi_null_copy_fn_, MPI_Fint)
F_DUP(mpi_dup_fn_, MPI_Fint)
F_NULL_DELETE(mpi_null_delete_fn_, MPI_Fint)
F_NULL_COPY(mpi_comm_null_copy_fn_, MPI_Aint)
F_DUP(mpi_comm_dup_fn_, MPI_Aint)
F_NULL_DELETE(mpi_comm_null_delete_fn_, MPI_Aint)
F_NULL_COPY(mpi_type_null_copy_fn_, MPI_Aint)
F_DUP(mpi_type_dup_fn_, MPI_Aint)
F_NULL_DELETE(mpi_type_null_delete_fn_, MPI_Aint)
F_NULL_COPY(mpi_win_null_copy_fn_, MPI_Aint)
F_DUP(mpi_win_dup_fn_, MPI_Aint)
F_NULL_DELETE(mpi_win_null_delete_fn_, MPI_Aint)
SM_FEXPORT void mpi_conversion_fn_null_(void) {}

static int kv_copy(struct f_keyval *kv, MPI_Fint fobj, int keyval, void *in, void *out, int *flag)
{
    MPI_Fint fk = keyval, fflag = 0, ierr = MPI_SUCCESS;
    if (kv->mpi1) {
        MPI_Fint e = (MPI_Fint)kv->extra, vin = (MPI_Fint)cell_value(in), vout = 0;
        kv->copy(&fobj, &fk, &e, &vin, &vout, &fflag, &ierr);
        if (fflag)
            *(void **)out = cell_new(vout);
    } else {
        MPI_Aint vin = cell_value(in), vout = 0;
        kv->copy(&fobj, &fk, &kv->extra, &vin, &vout, &fflag, &ierr);
        if (fflag)
            *(void **)out = cell_new(vout);
    }
    *flag = fflag != 0;
    return ierr;
}

static int kv_delete(struct f_keyval *kv, MPI_Fint fobj, int keyval, void *val)
{
    MPI_Fint fk = keyval, ierr = MPI_SUCCESS;
    if (kv->mpi1) {
        MPI_Fint e = (MPI_Fint)kv->extra, v = (MPI_Fint)cell_value(val);
        kv->del(&fobj, &fk, &v, &e, &ierr);
    } else {
        MPI_Aint v = cell_value(val);
        kv->del(&fobj, &fk, &v, &kv->extra, &ierr);
    }
    return ierr;
}

#define KV_TRAMPS(Kind, CType)                                                                   \
    static int kv_copy_##Kind(CType o, int k, void *e, void *in, void *out, int *flag)           \
    {                                                                                            \
        return kv_copy(e, MPI_##Kind##_c2f(o), k, in, out, flag);                                \
    }                                                                                            \
    static int kv_delete_##Kind(CType o, int k, void *v, void *e)                                \
    {                                                                                            \
        return kv_delete(e, MPI_##Kind##_c2f(o), k, v);                                          \
    }
KV_TRAMPS(Comm, MPI_Comm)
KV_TRAMPS(Type, MPI_Datatype)
KV_TRAMPS(Win, MPI_Win)

#define KV_CREATE(lname, Cname, Kind, ExtraT, mpi1_, nullcopy, dup, nulldel)                     \
    SM_FENTRY(lname, f_copy_fn *copy, f_delete_fn *del, MPI_Fint *keyval, ExtraT *extra,         \
              MPI_Fint *ierr)                                                                    \
    {                                                                                            \
        struct f_keyval *kv = sm_f_xmalloc(sizeof *kv);                                          \
        kv->copy = copy;                                                                         \
        kv->del = del;                                                                           \
        kv->extra = *extra;                                                                      \
        kv->mpi1 = mpi1_;                                                                        \
        kv->next = f_keyvals;                                                                    \
        f_keyvals = kv;                                                                          \
        void *ccopy = copy == (f_copy_fn *)nullcopy ? NULL                                       \
                      : copy == (f_copy_fn *)dup    ? (void *)sctpmpi_dup_fn                     \
                                                    : (void *)kv_copy_##Kind;                       \
        void *cdel = del == (f_delete_fn *)nulldel ? NULL : (void *)kv_delete_##Kind;            \
        set_ierr(ierr, MPI_##Cname(ccopy, cdel, keyval, kv));                                    \
    }
KV_CREATE(mpi_comm_create_keyval, Comm_create_keyval, Comm, MPI_Aint, 0, mpi_comm_null_copy_fn_,
          mpi_comm_dup_fn_, mpi_comm_null_delete_fn_)
KV_CREATE(mpi_type_create_keyval, Type_create_keyval, Type, MPI_Aint, 0, mpi_type_null_copy_fn_,
          mpi_type_dup_fn_, mpi_type_null_delete_fn_)
KV_CREATE(mpi_win_create_keyval, Win_create_keyval, Win, MPI_Aint, 0, mpi_win_null_copy_fn_,
          mpi_win_dup_fn_, mpi_win_null_delete_fn_)
KV_CREATE(mpi_keyval_create, Keyval_create, Comm, MPI_Fint, 1, mpi_null_copy_fn_, mpi_dup_fn_,
          mpi_null_delete_fn_)

/* ---- attribute values ------------------------------------------------------------------------
 * Fortran stores integers; the predefined attributes C answers with a pointer to the value
 * (the window's base is the address itself). */
static MPI_Aint attr_value(int kind, int keyval, void *v)
{
    if (kind == 0 && keyval >= MPI_TAG_UB && keyval <= MPI_LASTUSEDCODE)
        return *(int *)v;
    if (kind == 2) {
        if (keyval == MPI_WIN_SIZE)
            return *(MPI_Aint *)v;
        if (keyval == MPI_WIN_DISP_UNIT || keyval == MPI_WIN_CREATE_FLAVOR ||
            keyval == MPI_WIN_MODEL)
            return *(int *)v;
    }
    return cell_value(v);
}

SM_FENTRY(mpi_comm_get_attr, MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag,
          MPI_Fint *ierr)
{
    void *v = NULL;
    int rc = MPI_Comm_get_attr(MPI_Comm_f2c(*comm), *keyval, &v, flag);
    if (rc == MPI_SUCCESS && *flag)
        *val = attr_value(0, *keyval, v);
    sm_f_logical_out(flag, 1);
    set_ierr(ierr, rc);
}

SM_FENTRY(mpi_attr_get, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *flag,
          MPI_Fint *ierr)
{
    void *v = NULL;
    int rc = MPI_Attr_get(MPI_Comm_f2c(*comm), *keyval, &v, flag);
    if (rc == MPI_SUCCESS && *flag)
        *val = (MPI_Fint)attr_value(0, *keyval, v);
    sm_f_logical_out(flag, 1);
    set_ierr(ierr, rc);
}

SM_FENTRY(mpi_type_get_attr, MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag,
          MPI_Fint *ierr)
{
    void *v = NULL;
    int rc = MPI_Type_get_attr(MPI_Type_f2c(*type), *keyval, &v, flag);
    if (rc == MPI_SUCCESS && *flag)
        *val = attr_value(1, *keyval, v);
    sm_f_logical_out(flag, 1);
    set_ierr(ierr, rc);
}

SM_FENTRY(mpi_win_get_attr, MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *flag,
          MPI_Fint *ierr)
{
    void *v = NULL;
    int rc = MPI_Win_get_attr(MPI_Win_f2c(*win), *keyval, &v, flag);
    if (rc == MPI_SUCCESS && *flag)
        *val = attr_value(2, *keyval, v);
    sm_f_logical_out(flag, 1);
    set_ierr(ierr, rc);
}

SM_FENTRY(mpi_comm_set_attr, MPI_Fint *comm, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Comm_set_attr(MPI_Comm_f2c(*comm), *keyval, cell_new(*val)));
}

SM_FENTRY(mpi_attr_put, MPI_Fint *comm, MPI_Fint *keyval, MPI_Fint *val, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Attr_put(MPI_Comm_f2c(*comm), *keyval, cell_new(*val)));
}

SM_FENTRY(mpi_type_set_attr, MPI_Fint *type, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Type_set_attr(MPI_Type_f2c(*type), *keyval, cell_new(*val)));
}

SM_FENTRY(mpi_win_set_attr, MPI_Fint *win, MPI_Fint *keyval, MPI_Aint *val, MPI_Fint *ierr)
{
    set_ierr(ierr, MPI_Win_set_attr(MPI_Win_f2c(*win), *keyval, cell_new(*val)));
}

/* ---- generalized requests: the Fortran procedures and extra_state travel in a record that is
 * C's extra_state; it is freed after the free procedure ran ---------------------------------- */
typedef void f_query_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);
typedef void f_free_fn(MPI_Aint *, MPI_Fint *);
typedef void f_cancel_fn(MPI_Aint *, MPI_Fint *, MPI_Fint *);
/* the procedures see the program's own extra_state variable (by reference, as in other
 * implementations: a free procedure may update it) */
struct f_greq {
    f_query_fn *query;
    f_free_fn *free;
    f_cancel_fn *cancel;
    MPI_Aint *extra;
};

static int greq_query(void *e, MPI_Status *status)
{
    struct f_greq *g = e;
    MPI_Fint fst[MPI_F_STATUS_SIZE], ierr = MPI_SUCCESS;
    MPI_Status_c2f(status, fst);
    g->query(g->extra, fst, &ierr);
    MPI_Status_f2c(fst, status);
    return ierr;
}

static int greq_free(void *e)
{
    struct f_greq *g = e;
    MPI_Fint ierr = MPI_SUCCESS;
    g->free(g->extra, &ierr);
    free(g);
    return ierr;
}

static int greq_cancel(void *e, int complete)
{
    struct f_greq *g = e;
    MPI_Fint ierr = MPI_SUCCESS, fc = complete != 0;
    g->cancel(g->extra, &fc, &ierr);
    return ierr;
}

SM_FENTRY(mpi_grequest_start, f_query_fn *query, f_free_fn *freef, f_cancel_fn *cancel,
          MPI_Aint *extra, MPI_Fint *request, MPI_Fint *ierr)
{
    struct f_greq *g = sm_f_xmalloc(sizeof *g);
    g->query = query;
    g->free = freef;
    g->cancel = cancel;
    g->extra = extra;
    MPI_Request c = MPI_REQUEST_NULL;
    int rc = MPI_Grequest_start(greq_query, greq_free, greq_cancel, g, &c);
    if (rc == MPI_SUCCESS)
        *request = MPI_Request_c2f(c);
    else
        free(g);
    set_ierr(ierr, rc);
}

/* MPI_Status_f082f / MPI_Status_f2f08 (mpi_f08): TYPE(MPI_Status) holds the integers of an
 * INTEGER status in the same order */
SM_FENTRY(mpi_status_f082f, MPI_Fint *f08, MPI_Fint *f, MPI_Fint *ierr)
{
    memcpy(f, f08, MPI_F_STATUS_SIZE * sizeof *f);
    set_ierr(ierr, MPI_SUCCESS);
}

SM_FENTRY(mpi_status_f2f08, MPI_Fint *f, MPI_Fint *f08, MPI_Fint *ierr)
{
    memcpy(f08, f, MPI_F_STATUS_SIZE * sizeof *f08);
    set_ierr(ierr, MPI_SUCCESS);
}

/* MPI_Info_create_env: Fortran has no argc/argv to pass */
SM_FENTRY(mpi_info_create_env, MPI_Fint *info, MPI_Fint *ierr)
{
    MPI_Info c = MPI_INFO_NULL;
    int rc = MPI_Info_create_env(0, NULL, &c);
    if (rc == MPI_SUCCESS)
        *info = MPI_Info_c2f(c);
    set_ierr(ierr, rc);
}

/* MPI_Info_get_string: Fortran's buflen says how many characters to store (0: none) and
 * returns the value's full length; the rest of the CHARACTER is blank-padded */
SM_FENTRY(mpi_info_get_string, MPI_Fint *info, char *key, MPI_Fint *buflen, char *value,
          MPI_Fint *flag, MPI_Fint *ierr, size_t key_len, size_t value_len)
{
    char *c_key = sm_f_str_in_trim(key, key_len);
    char *c_value = sm_f_str_tmp(MPI_MAX_INFO_VAL);
    int n = MPI_MAX_INFO_VAL + 1;
    int rc = MPI_Info_get_string(MPI_Info_f2c(*info), c_key, &n, c_value, flag);
    if (rc == MPI_SUCCESS) {
        if (*flag) {
            size_t want = *buflen > 0 ? (size_t)*buflen : 0;
            if (want > value_len)
                want = value_len;
            if (want > 0) {
                c_value[strnlen(c_value, want)] = 0;
                sm_f_str_out(c_value, value, value_len);
            }
            *buflen = n > 0 ? n - 1 : 0; /* the full length, from C */
        }
        sm_f_logical_out(flag, 1);
    }
    free(c_key);
    free(c_value);
    set_ierr(ierr, rc);
}
