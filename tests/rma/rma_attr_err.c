/* rma_attr_err.c — window attributes (MPI_WIN_BASE, _SIZE, _DISP_UNIT, _CREATE_FLAVOR,
 * _MODEL) for every flavour; MPI_Win_get_group; names; user keyvals (copy/delete callbacks,
 * the delete callback runs at MPI_Win_free); info hints (set at creation, MPI_Win_set_info /
 * MPI_Win_get_info); error handlers (a user handler called by MPI_Win_call_errhandler and by a
 * failing call, MPI_ERRORS_RETURN); and the errors erroneous one-sided calls report:
 *   a Put outside any epoch                      -> MPI_ERR_RMA_SYNC
 *   unlock of a target that is not locked        -> MPI_ERR_RMA_SYNC
 *   a Put beyond the end of the target's window  -> MPI_ERR_RMA_RANGE (an error, at the latest
 *                                                   when the epoch closes)
 *   lock of a rank outside the group             -> MPI_ERR_RANK
 *   attach to a window that is not dynamic       -> MPI_ERR_RMA_FLAVOR
 * Where the standard lets an implementation accept an erroneous call silently, the check is
 * strict only for sctpmpi (MPI_Get_library_version names it); other libraries print a note. */
#include "rma_test.h"

static int strict;
static int deleted, eh_calls, eh_last;

static int del_fn(MPI_Win w, int kv, void *val, void *extra)
{
    (void)w, (void)kv;
    CHECK(val == extra, "delete callback: wrong value");
    deleted++;
    return MPI_SUCCESS;
}

static void eh_fn(MPI_Win *w, int *code, ...)
{
    (void)w;
    eh_calls++;
    eh_last = *code;
}

static void expect_class(int rc, int cls, const char *what, int strict_only)
{
    if (rc == MPI_SUCCESS && strict_only && !strict) {
        if (rank_ == 0) printf("note: this library accepts %s silently\n", what);
        return;
    }
    CHECK(rc != MPI_SUCCESS, "%s: returned MPI_SUCCESS, expected class %d", what, cls);
    int got = rt_class(rc);
    if (got != cls && strict_only && !strict) {
        if (rank_ == 0) printf("note: %s: class %d (expected %d)\n", what, got, cls);
        return;
    }
    CHECK(got == cls, "%s: error class %d, expected %d", what, got, cls);
}

static void attrs(MPI_Win win, int flavour, void *base, MPI_Aint size, int du)
{
    void *v;
    int flag = 0;
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_BASE, &v, &flag));
    CHECK(flag, "MPI_WIN_BASE missing");
    if (flavour != MPI_WIN_FLAVOR_DYNAMIC)
        CHECK(v == base, "MPI_WIN_BASE %p, expected %p", v, base);
    else
        CHECK(v == MPI_BOTTOM, "MPI_WIN_BASE of a dynamic window is not MPI_BOTTOM");
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_SIZE, &v, &flag));
    CHECK(flag && *(MPI_Aint *)v == size, "MPI_WIN_SIZE %ld, expected %ld",
          flag ? (long)*(MPI_Aint *)v : -1L, (long)size);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &v, &flag));
    CHECK(flag && *(int *)v == du, "MPI_WIN_DISP_UNIT %d, expected %d", flag ? *(int *)v : -1, du);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_CREATE_FLAVOR, &v, &flag));
    CHECK(flag && *(int *)v == flavour, "MPI_WIN_CREATE_FLAVOR %d, expected %d",
          flag ? *(int *)v : -1, flavour);
    MPI_OK(MPI_Win_get_attr(win, MPI_WIN_MODEL, &v, &flag));
    CHECK(flag && (*(int *)v == MPI_WIN_UNIFIED || *(int *)v == MPI_WIN_SEPARATE), "MPI_WIN_MODEL");
    MPI_Group g, wg;
    int cmp;
    MPI_OK(MPI_Win_get_group(win, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    CHECK(cmp == MPI_IDENT, "MPI_Win_get_group differs from the communicator's group");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
}

int main(int argc, char **argv)
{
    rt_start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    char ver[MPI_MAX_LIBRARY_VERSION_STRING];
    int vl;
    MPI_Get_library_version(ver, &vl);
    strict = strstr(ver, "sctpmpi") != NULL;

    /* ---- attributes of every flavour */
    int buf[16];
    MPI_Win win;
    MPI_OK(MPI_Win_create(buf, sizeof buf, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    attrs(win, MPI_WIN_FLAVOR_CREATE, buf, sizeof buf, 4);
    MPI_OK(MPI_Win_free(&win));
    CHECK(win == MPI_WIN_NULL, "MPI_Win_free did not set MPI_WIN_NULL");
    double *dp;
    MPI_OK(MPI_Win_allocate(10 * sizeof(double), sizeof(double), MPI_INFO_NULL, MPI_COMM_WORLD, &dp, &win));
    attrs(win, MPI_WIN_FLAVOR_ALLOCATE, dp, 10 * sizeof(double), sizeof(double));
    MPI_OK(MPI_Win_free(&win));
    MPI_OK(MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &win));
    attrs(win, MPI_WIN_FLAVOR_DYNAMIC, NULL, 0, 1);
    MPI_OK(MPI_Win_free(&win));
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int node_size;
    MPI_Comm_size(node, &node_size);
    if (node_size == size_) {
        int *sp;
        MPI_OK(MPI_Win_allocate_shared(12, 4, MPI_INFO_NULL, MPI_COMM_WORLD, &sp, &win));
        attrs(win, MPI_WIN_FLAVOR_SHARED, sp, 12, 4);
        MPI_OK(MPI_Win_free(&win));
    }
    MPI_Comm_free(&node);

    /* ---- names, keyvals, info, error handlers on one window */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "false");
    MPI_Info_set(info, "accumulate_ordering", "none");
    MPI_Info_set(info, "sctpmpi_test_unknown_key", "whatever");
    MPI_OK(MPI_Win_create(buf, sizeof buf, 4, info, MPI_COMM_WORLD, &win));
    MPI_Info_free(&info);
    char name[MPI_MAX_OBJECT_NAME];
    int nl = -1;
    MPI_OK(MPI_Win_get_name(win, name, &nl));
    CHECK(nl == (int)strlen(name), "MPI_Win_get_name length %d for \"%s\"", nl, name);
    MPI_OK(MPI_Win_set_name(win, "rma test window"));
    MPI_OK(MPI_Win_get_name(win, name, &nl));
    CHECK(strcmp(name, "rma test window") == 0 && nl == 15, "MPI_Win_get_name: \"%s\" (%d)", name, nl);

    int kv;
    static int extra;
    MPI_OK(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, del_fn, &kv, &extra));
    MPI_OK(MPI_Win_set_attr(win, kv, &extra));
    void *got;
    int flag = 0;
    MPI_OK(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(flag && got == &extra, "user attribute not found");
    MPI_OK(MPI_Win_delete_attr(win, kv));
    CHECK(deleted == 1, "delete callback ran %d times after MPI_Win_delete_attr", deleted);
    MPI_OK(MPI_Win_get_attr(win, kv, &got, &flag));
    CHECK(!flag, "attribute still present after MPI_Win_delete_attr");
    MPI_OK(MPI_Win_set_attr(win, kv, &extra));

    MPI_Info got_info;
    MPI_OK(MPI_Win_get_info(win, &got_info));
    char val[MPI_MAX_INFO_VAL + 1];
    MPI_Info_get(got_info, "no_locks", MPI_MAX_INFO_VAL, val, &flag);
    if (flag) CHECK(strcmp(val, "false") == 0 || strcmp(val, "true") == 0, "no_locks = %s", val);
    MPI_Info_free(&got_info);
    MPI_Info_create(&info);
    MPI_Info_set(info, "accumulate_ops", "same_op_no_op");
    MPI_OK(MPI_Win_set_info(win, info));
    MPI_Info_free(&info);
    MPI_OK(MPI_Win_get_info(win, &got_info));
    MPI_Info_get(got_info, "accumulate_ops", MPI_MAX_INFO_VAL, val, &flag);
    if (flag) CHECK(strcmp(val, "same_op_no_op") == 0 || strcmp(val, "same_op") == 0,
                    "accumulate_ops = %s", val);
    MPI_Info_free(&got_info);

    MPI_Errhandler eh, cur;
    MPI_OK(MPI_Win_create_errhandler(eh_fn, &eh));
    MPI_OK(MPI_Win_get_errhandler(win, &cur));
    CHECK(cur == MPI_ERRORS_ARE_FATAL, "a new window's error handler is not MPI_ERRORS_ARE_FATAL");
    MPI_Errhandler_free(&cur);
    MPI_OK(MPI_Win_set_errhandler(win, eh));
    MPI_OK(MPI_Win_call_errhandler(win, MPI_ERR_OTHER));
    CHECK(eh_calls == 1 && eh_last == MPI_ERR_OTHER, "MPI_Win_call_errhandler: %d calls, code %d",
          eh_calls, eh_last);
    /* a failing call goes to the user handler */
    int dummy = 0;
    int rc = MPI_Put(&dummy, 1, MPI_INT, 0, 0, 1, MPI_INT, win); /* no epoch */
    CHECK(eh_calls == 2 && rt_class(eh_last) == MPI_ERR_RMA_SYNC,
          "Put outside an epoch with a user handler: %d calls, class %d", eh_calls, rt_class(eh_last));
    (void)rc;
    MPI_OK(MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN));
    MPI_Errhandler_free(&eh);

    /* ---- erroneous calls under MPI_ERRORS_RETURN */
    expect_class(MPI_Put(&dummy, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC,
                 "a Put outside an epoch", 0);
    expect_class(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC, "unlock without lock", 0);
    expect_class(MPI_Win_lock(MPI_LOCK_SHARED, size_, 0, win), MPI_ERR_RANK, "lock of rank size", 0);
    expect_class(MPI_Win_attach(win, buf, sizeof buf), MPI_ERR_RMA_FLAVOR,
                 "attach to a window made by MPI_Win_create", 1);
    {
        int target = (rank_ + 1) % size_;
        int big[32] = {0};
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        /* 16 ints from displacement 8 (units of 4 bytes): 8 ints beyond the 64-byte window */
        int rc1 = MPI_Put(big, 16, MPI_INT, target, 8, 16, MPI_INT, win);
        int rc2 = MPI_Win_unlock(target, win);
        expect_class(rc1 != MPI_SUCCESS ? rc1 : rc2, MPI_ERR_RMA_RANGE,
                     "a Put beyond the end of the target window", 1);
        if (rc2 != MPI_SUCCESS && rc1 == MPI_SUCCESS) { /* the epoch may still be open */ }
        else if (rc2 != MPI_SUCCESS) MPI_Win_unlock(target, win);
        /* a negative displacement */
        MPI_OK(MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win));
        rc1 = MPI_Get(big, 1, MPI_INT, target, -1, 1, MPI_INT, win);
        rc2 = MPI_Win_unlock(target, win);
        expect_class(rc1 != MPI_SUCCESS ? rc1 : rc2, MPI_ERR_RMA_RANGE,
                     "a Get at displacement -1", 1);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_OK(MPI_Win_free(&win));
    CHECK(deleted == 2, "delete callback ran %d times, expected 2 (at MPI_Win_free)", deleted);
    MPI_OK(MPI_Win_free_keyval(&kv));
    return rt_finish();
}
