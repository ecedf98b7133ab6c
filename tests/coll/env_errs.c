/* env_errs.c — predefined attributes, error classes and handlers, and the communicator info
 * and split-type calls, each checked for a value that can be wrong:
 *   MPI_TAG_UB, MPI_HOST, MPI_IO, MPI_WTIME_IS_GLOBAL, MPI_APPNUM, MPI_UNIVERSE_SIZE and
 *   MPI_LASTUSEDCODE (which follows Add_error_class/Add_error_code);
 *   Add_error_class/code/string with Error_class/Error_string, a user code raised through a
 *   user handler; MPI_ERRORS_RETURN with real errors (bad rank, tag, count, datatype, root,
 *   uncommitted type, null communicator) after which the communicator still works; a user
 *   handler called for a real error with the communicator it was set on, and inherited by
 *   Comm_dup;
 *   Comm_split_type(MPI_COMM_TYPE_SHARED) ordered by key, MPI_UNDEFINED;
 *   Comm_dup_with_info and Comm_set_info/get_info (the hint is the new communicator's only);
 *   window keyvals with the window attribute calls failing cleanly (no windows exist);
 *   Pcontrol, Aint_add/Aint_diff, Status_set_cancelled on a received status, Alloc_mem.
 * Standard MPI only (the values the standard leaves open are checked for their range). */
#include "../common/mpi_test.h"

static int calls;
static MPI_Comm seen_comm;
static int seen_code;

static void handler(MPI_Comm *c, int *code, ...)
{
    calls++;
    seen_comm = *c;
    seen_code = *code;
}

static int get_int_attr(int key, int *flag)
{
    int *v = NULL;
    MPI_Comm_get_attr(MPI_COMM_WORLD, key, &v, flag);
    return *flag && v ? *v : -12345;
}

static void predefined_attributes(void)
{
    int flag, v;
    v = get_int_attr(MPI_TAG_UB, &flag);
    CHECK(flag && v >= 32767, "MPI_TAG_UB %d", v);
    v = get_int_attr(MPI_HOST, &flag);
    CHECK(flag && (v == MPI_PROC_NULL || (v >= 0 && v < size_)), "MPI_HOST %d", v);
    v = get_int_attr(MPI_IO, &flag);
    CHECK(flag && (v == MPI_ANY_SOURCE || v == MPI_PROC_NULL || (v >= 0 && v < size_)),
          "MPI_IO %d", v);
    v = get_int_attr(MPI_WTIME_IS_GLOBAL, &flag);
    CHECK(!flag || v == 0 || v == 1, "MPI_WTIME_IS_GLOBAL %d", v);
    v = get_int_attr(MPI_APPNUM, &flag);
    CHECK(!flag || v >= 0, "MPI_APPNUM %d", v);
    v = get_int_attr(MPI_UNIVERSE_SIZE, &flag);
    CHECK(!flag || v >= size_, "MPI_UNIVERSE_SIZE %d", v);
    v = get_int_attr(MPI_LASTUSEDCODE, &flag);
    CHECK(flag && v >= MPI_ERR_LASTCODE, "MPI_LASTUSEDCODE %d (flag %d)", v, flag);
}

static void error_classes(void)
{
    int c1, c2, e1, e2, e3, cls, len, flag;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Add_error_class(&c1);
    MPI_Add_error_class(&c2);
    CHECK(c1 > MPI_ERR_LASTCODE && c2 != c1, "new classes %d %d", c1, c2);
    MPI_Add_error_code(c1, &e1);
    MPI_Add_error_code(c2, &e2);
    MPI_Add_error_code(MPI_ERR_OTHER, &e3); /* a new code of a predefined class */
    CHECK(e1 != e2 && e2 != e3 && e1 != c1, "distinct codes");
    int last = get_int_attr(MPI_LASTUSEDCODE, &flag);
    CHECK(flag && last >= c1 && last >= c2 && last >= e1 && last >= e2 && last >= e3,
          "MPI_LASTUSEDCODE %d below a new code", last);
    MPI_Error_class(e1, &cls);
    CHECK(cls == c1, "class of e1 %d", cls);
    MPI_Error_class(e2, &cls);
    CHECK(cls == c2, "class of e2 %d", cls);
    MPI_Error_class(e3, &cls);
    CHECK(cls == MPI_ERR_OTHER, "class of e3 %d", cls);
    MPI_Error_class(c1, &cls);
    CHECK(cls == c1, "a class is its own class");
    MPI_Add_error_string(c1, "class one");
    MPI_Add_error_string(e1, "code one of class one");
    MPI_Add_error_string(e3, "other, ours");
    MPI_Error_string(c1, msg, &len);
    CHECK(strcmp(msg, "class one") == 0 && len == 9, "class string '%s'", msg);
    MPI_Error_string(e1, msg, &len);
    CHECK(strcmp(msg, "code one of class one") == 0, "code string '%s'", msg);
    MPI_Error_string(e3, msg, &len);
    CHECK(strcmp(msg, "other, ours") == 0, "code string '%s'", msg);
    MPI_Add_error_string(e1, "replaced");
    MPI_Error_string(e1, msg, &len);
    CHECK(strcmp(msg, "replaced") == 0, "replaced string '%s'", msg);
    /* a user code raised through a user handler */
    MPI_Comm c;
    MPI_Errhandler eh;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(c, eh);
    calls = 0;
    MPI_Comm_call_errhandler(c, e2);
    CHECK(calls == 1 && seen_code == e2 && seen_comm == c, "user code through the handler");
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&c);
    /* Add_error_code on something that is not a class fails */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int bogus;
    CHECK(MPI_Add_error_code(e1, &bogus) != MPI_SUCCESS, "Add_error_code on a code");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void expect_class(int rc, int want, const char *what)
{
    int cls, len;
    char msg[MPI_MAX_ERROR_STRING] = "";
    CHECK(rc != MPI_SUCCESS, "%s succeeded", what);
    MPI_Error_class(rc, &cls);
    MPI_Error_string(rc, msg, &len);
    CHECK(cls == want, "%s: class %d, want %d (%s)", what, cls, want, msg);
    CHECK(len > 0 && (int)strlen(msg) == len, "%s: error string", what);
}

static void errors_return(void)
{
    MPI_Comm c;
    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    int x = 1, y;
    expect_class(MPI_Send(&x, 1, MPI_INT, size_, 0, c), MPI_ERR_RANK, "Send to rank size");
    expect_class(MPI_Send(&x, 1, MPI_INT, 0, -5, c), MPI_ERR_TAG, "Send tag -5");
    expect_class(MPI_Send(&x, -1, MPI_INT, 0, 0, c), MPI_ERR_COUNT, "Send count -1");
    expect_class(MPI_Send(&x, 1, MPI_DATATYPE_NULL, 0, 0, c), MPI_ERR_TYPE, "Send null type");
    expect_class(MPI_Recv(&y, 1, MPI_INT, -7, 0, c, MPI_STATUS_IGNORE), MPI_ERR_RANK,
                 "Recv from rank -7");
    expect_class(MPI_Bcast(&x, 1, MPI_INT, size_, c), MPI_ERR_ROOT, "Bcast root size");
    expect_class(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_OP_NULL, c), MPI_ERR_OP,
                 "Allreduce null op");
    MPI_Datatype vec;
    MPI_Type_vector(2, 1, 2, MPI_INT, &vec); /* never committed */
    int two[4];
    expect_class(MPI_Sendrecv(two, 1, vec, rank_, 0, two, 1, vec, rank_, 0, c, MPI_STATUS_IGNORE),
                 MPI_ERR_TYPE, "uncommitted type");
    MPI_Type_free(&vec);
    /* the communicator still works after the errors */
    int one = 1, sum = 0;
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == size_, "communicator usable after returned errors");
    /* a null communicator: MPI_COMM_WORLD's handler decides */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int r;
    expect_class(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM, "Comm_rank(MPI_COMM_NULL)");
    expect_class(MPI_Send(&x, 1, MPI_INT, 0, 0, MPI_COMM_NULL), MPI_ERR_COMM, "Send on COMM_NULL");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    /* a user handler runs for a real error in a collective, with its communicator, and
     * Comm_dup passes it on */
    MPI_Errhandler eh, got;
    MPI_Comm_create_errhandler(handler, &eh);
    MPI_Comm_set_errhandler(c, eh);
    calls = 0;
    seen_comm = MPI_COMM_NULL;
    int rc = MPI_Bcast(&x, 1, MPI_INT, -9, c);
    CHECK(rc != MPI_SUCCESS && calls == 1 && seen_comm == c, "handler on Bcast bad root (%d)",
          calls);
    int cls;
    MPI_Error_class(seen_code, &cls);
    CHECK(cls == MPI_ERR_ROOT, "handler got class %d", cls);
    MPI_Comm d;
    MPI_Comm_dup(c, &d);
    MPI_Comm_get_errhandler(d, &got);
    CHECK(got == eh, "Comm_dup inherits the error handler");
    MPI_Errhandler_free(&got);
    calls = 0;
    MPI_Send(&x, 1, MPI_INT, size_ + 3, 0, d);
    CHECK(calls == 1 && seen_comm == d, "inherited handler called with the dup");
    MPI_Errhandler_free(&eh); /* the communicators keep it */
    calls = 0;
    MPI_Send(&x, 1, MPI_INT, 0, -1, c);
    CHECK(calls == 1, "handler outlives Errhandler_free while set");
    MPI_Comm_free(&d);
    MPI_Comm_free(&c);
}

static void split_shared_and_info(void)
{
    MPI_Comm sh;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, size_ - rank_, MPI_INFO_NULL, &sh);
    int r, s;
    MPI_Comm_rank(sh, &r);
    MPI_Comm_size(sh, &s);
    /* every rank of a ctest run is on this host: one node, ordered by the key (reversed) */
    CHECK(s == size_ && r == size_ - 1 - rank_, "split_type SHARED: rank %d of %d", r, s);
    int res;
    MPI_Comm_compare(sh, MPI_COMM_WORLD, &res);
    CHECK(res == (size_ == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "shared vs world %d", res);
    MPI_Comm_free(&sh);
    MPI_Comm u;
    MPI_Comm_split_type(MPI_COMM_WORLD, rank_ % 2 ? MPI_UNDEFINED : MPI_COMM_TYPE_SHARED, 0,
                        MPI_INFO_NULL, &u);
    CHECK((rank_ % 2 == 1) == (u == MPI_COMM_NULL), "split_type MPI_UNDEFINED");
    if (u != MPI_COMM_NULL) {
        MPI_Comm_size(u, &s);
        CHECK(s == (size_ + 1) / 2, "split_type of the even ranks: %d", s);
        MPI_Comm_free(&u);
    }
    /* dup_with_info: the hint is on the new communicator only */
    MPI_Info info, got;
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_allow_overtaking", "true");
    MPI_Comm d;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &d);
    MPI_Info_free(&info);
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    MPI_Comm_get_info(d, &got);
    MPI_Info_get(got, "mpi_assert_allow_overtaking", MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && strcmp(v, "true") == 0, "dup_with_info hint");
    MPI_Info_free(&got);
    MPI_Comm_get_info(MPI_COMM_WORLD, &got);
    MPI_Info_get(got, "mpi_assert_allow_overtaking", MPI_MAX_INFO_VAL, v, &flag);
    CHECK(!flag || strcmp(v, "false") == 0, "the parent did not get the hint");
    MPI_Info_free(&got);
    /* traffic still flows on it (ordering is only relaxed, not broken) */
    int x = rank_, y = -1;
    MPI_Sendrecv(&x, 1, MPI_INT, (rank_ + 1) % size_, 0, &y, 1, MPI_INT,
                 (rank_ - 1 + size_) % size_, 0, d, MPI_STATUS_IGNORE);
    CHECK(y == (rank_ - 1 + size_) % size_, "ring on the overtaking communicator");
    /* set_info then get_info: a new hint replaces nothing else */
    MPI_Info_create(&info);
    MPI_Info_set(info, "mpi_assert_no_any_source", "true");
    MPI_Comm_set_info(d, info);
    MPI_Info_free(&info);
    MPI_Comm_get_info(d, &got);
    MPI_Info_get(got, "mpi_assert_no_any_source", MPI_MAX_INFO_VAL, v, &flag);
    CHECK(flag && strcmp(v, "true") == 0, "set_info hint");
    MPI_Info_free(&got);
    MPI_Comm_free(&d);
}

static int wcopies;
static int win_copy(MPI_Win w, int k, void *extra, void *in, void *out, int *flag)
{
    (void)w, (void)k, (void)extra, (void)in, (void)out;
    wcopies++;
    *flag = 0;
    return MPI_SUCCESS;
}

static void windows_and_misc(void)
{
    int key;
    MPI_Win_create_keyval(win_copy, MPI_WIN_NULL_DELETE_FN, &key, NULL);
    CHECK(key != MPI_KEYVAL_INVALID, "Win_create_keyval");
    int key2;
    MPI_Win_create_keyval(MPI_WIN_DUP_FN, MPI_WIN_NULL_DELETE_FN, &key2, NULL);
    CHECK(key2 != key, "distinct window keyvals");
    /* no window can exist here: the attribute calls fail and say so */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    static int payload;
    CHECK(MPI_Win_set_attr(MPI_WIN_NULL, key, &payload) != MPI_SUCCESS, "Win_set_attr on no window");
    int flag = 1;
    void *val;
    CHECK(MPI_Win_get_attr(MPI_WIN_NULL, key, &val, &flag) != MPI_SUCCESS, "Win_get_attr");
    CHECK(MPI_Win_delete_attr(MPI_WIN_NULL, key) != MPI_SUCCESS, "Win_delete_attr");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    MPI_Win_free_keyval(&key);
    MPI_Win_free_keyval(&key2);
    CHECK(key == MPI_KEYVAL_INVALID && key2 == MPI_KEYVAL_INVALID && wcopies == 0,
          "Win_free_keyval");
    /* Pcontrol at every level the standard names */
    CHECK(MPI_Pcontrol(0) == MPI_SUCCESS && MPI_Pcontrol(1) == MPI_SUCCESS &&
              MPI_Pcontrol(2) == MPI_SUCCESS,
          "Pcontrol");
    /* addresses */
    double arr[10];
    MPI_Aint a2, a7;
    MPI_Get_address(&arr[2], &a2);
    MPI_Get_address(&arr[7], &a7);
    CHECK(MPI_Aint_diff(a7, a2) == 5 * (MPI_Aint)sizeof(double), "Aint_diff");
    CHECK(MPI_Aint_diff(a2, a7) == -5 * (MPI_Aint)sizeof(double), "negative Aint_diff");
    CHECK(MPI_Aint_add(a7, -5 * (MPI_Aint)sizeof(double)) == a2, "Aint_add negative");
    MPI_Aint b;
    MPI_Get_address(arr, &b);
    CHECK(MPI_Aint_add(b, MPI_Aint_diff(a7, b)) == a7, "Aint_add(base, diff) round trip");
    /* Status_set_cancelled on the status of a real receive */
    MPI_Status st;
    int x = 3, y = 0, f;
    MPI_Sendrecv(&x, 1, MPI_INT, rank_, 1, &y, 1, MPI_INT, rank_, 1, MPI_COMM_WORLD, &st);
    MPI_Test_cancelled(&st, &f);
    CHECK(!f && y == 3, "a completed receive is not cancelled");
    MPI_Status_set_cancelled(&st, 1);
    MPI_Test_cancelled(&st, &f);
    CHECK(f && st.MPI_SOURCE == rank_ && st.MPI_TAG == 1, "Status_set_cancelled keeps the rest");
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    CHECK(cnt == 1, "count kept by Status_set_cancelled");
    /* Alloc_mem gives writable memory */
    char *mem;
    MPI_Alloc_mem(1 << 16, MPI_INFO_NULL, &mem);
    memset(mem, 0x5a, 1 << 16);
    CHECK(mem[0] == 0x5a && mem[(1 << 16) - 1] == 0x5a, "Alloc_mem");
    MPI_Free_mem(mem);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    predefined_attributes();
    error_classes();
    errors_return();
    split_shared_and_info();
    windows_and_misc();
    (void)xmalloc;
    return finish();
}
