/* errors.c — bad RMA input gets its error class through the window's error handler
 * (MPI_ERRORS_RETURN here, then a user handler), never a hang: a rank outside the window,
 * a displacement outside the target's window, an operation outside any epoch, mismatched
 * origin/target sizes, a user op in an accumulate, a bad lock type, unlock without lock,
 * Win_complete without Win_start, Win_detach of memory never attached, shared_query on a
 * window that is not shared; plus window name, attributes, info and group. */
#include "../common/mpi_test.h"

static int calls;
static void handler(MPI_Win *w, int *err, ...)
{
    (void)w;
    (void)err;
    calls++;
}

static void myop(void *a, void *b, int *n, MPI_Datatype *t)
{
    (void)a, (void)b, (void)n, (void)t;
}

static void expect(int rc, int want, const char *what)
{
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == want, "%s: class %d, want %d", what, cls, want);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int buf[8] = {0};
    MPI_Win win;
    MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);
    int v = 1;
    expect(MPI_Put(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_RMA_SYNC, "put outside epoch");
    MPI_Win_fence(0, win);
    expect(MPI_Put(&v, 1, MPI_INT, size_, 0, 1, MPI_INT, win), MPI_ERR_RANK, "bad rank");
    expect(MPI_Put(&v, 1, MPI_INT, 0, 8, 1, MPI_INT, win), MPI_ERR_RMA_RANGE, "past the end");
    expect(MPI_Get(&v, 1, MPI_INT, 0, -1, 1, MPI_INT, win), MPI_ERR_RMA_RANGE, "negative disp");
    expect(MPI_Put(buf, 2, MPI_INT, 0, 0, 1, MPI_INT, win), MPI_ERR_TYPE, "size mismatch");
    MPI_Op op;
    MPI_Op_create(myop, 1, &op);
    expect(MPI_Accumulate(&v, 1, MPI_INT, 0, 0, 1, MPI_INT, op, win), MPI_ERR_OP, "user op");
    MPI_Op_free(&op);
    CHECK(MPI_Put(&v, 1, MPI_INT, MPI_PROC_NULL, 0, 1, MPI_INT, win) == MPI_SUCCESS, "PROC_NULL");
    MPI_Win_fence(0, win);
    expect(MPI_Win_lock(12345, 0, 0, win), MPI_ERR_LOCKTYPE, "lock type");
    expect(MPI_Win_unlock(0, win), MPI_ERR_RMA_SYNC, "unlock without lock");
    expect(MPI_Win_complete(win), MPI_ERR_RMA_SYNC, "complete without start");
    expect(MPI_Win_wait(win), MPI_ERR_RMA_SYNC, "wait without post");
    expect(MPI_Win_flush(0, win), MPI_ERR_RMA_SYNC, "flush without lock");
    MPI_Aint sz;
    int du;
    void *p;
    CHECK(MPI_Win_shared_query(win, rank_, &sz, &du, &p) == MPI_SUCCESS && sz == sizeof buf &&
              p == buf, "shared_query of the own memory");
    /* a user error handler is called */
    MPI_Errhandler eh;
    MPI_Win_create_errhandler(handler, &eh);
    MPI_Win_set_errhandler(win, eh);
    MPI_Errhandler_free(&eh);
    MPI_Win_unlock(0, win);
    CHECK(calls == 1, "user handler called %d times", calls);
    MPI_Win_call_errhandler(win, MPI_ERR_OTHER);
    CHECK(calls == 2, "call_errhandler: %d calls", calls);
    MPI_Win_set_errhandler(win, MPI_ERRORS_RETURN);

    /* names, attributes, info, group */
    char name[MPI_MAX_OBJECT_NAME];
    int len, flag;
    MPI_Win_set_name(win, "osc-window");
    MPI_Win_get_name(win, name, &len);
    CHECK(strcmp(name, "osc-window") == 0 && len == 10, "name '%s'", name);
    void *base;
    MPI_Aint *size;
    int *unit, *model;
    MPI_Win_get_attr(win, MPI_WIN_BASE, &base, &flag);
    CHECK(flag && base == buf, "base");
    MPI_Win_get_attr(win, MPI_WIN_SIZE, &size, &flag);
    CHECK(flag && *size == sizeof buf, "size");
    MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, &unit, &flag);
    CHECK(flag && *unit == sizeof(int), "disp unit");
    MPI_Win_get_attr(win, MPI_WIN_MODEL, &model, &flag);
    CHECK(flag && *model == MPI_WIN_UNIFIED, "model");
    int kv;
    static int payload = 5;
    MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kv, NULL);
    MPI_Win_set_attr(win, kv, &payload);
    int *got;
    MPI_Win_get_attr(win, kv, &got, &flag);
    CHECK(flag && got == &payload, "user attribute");
    MPI_Win_delete_attr(win, kv);
    MPI_Win_get_attr(win, kv, &got, &flag);
    CHECK(!flag, "deleted attribute still there");
    MPI_Win_free_keyval(&kv);
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "no_locks", "true");
    MPI_Win_set_info(win, info);
    MPI_Info_free(&info);
    MPI_Win_get_info(win, &info);
    char val[MPI_MAX_INFO_VAL];
    MPI_Info_get(info, "no_locks", MPI_MAX_INFO_VAL - 1, val, &flag);
    CHECK(flag && strcmp(val, "true") == 0, "no_locks '%s'", val);
    MPI_Info_get(info, "accumulate_ordering", MPI_MAX_INFO_VAL - 1, val, &flag);
    CHECK(flag, "accumulate_ordering missing");
    MPI_Info_free(&info);
    MPI_Group g, wg;
    int res;
    MPI_Win_get_group(win, &g);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &res);
    CHECK(res == MPI_IDENT, "window group");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Win_free(&win);
    CHECK(win == MPI_WIN_NULL, "free left a handle");

    /* dynamic window: detach of memory never attached */
    MPI_Win dw;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw);
    MPI_Win_set_errhandler(dw, MPI_ERRORS_RETURN);
    expect(MPI_Win_detach(dw, buf), MPI_ERR_RMA_ATTACH, "detach");
    MPI_Win_free(&dw);
    return finish();
}
