/* fix_attr.c — attribute semantics: MPI_COMM_SELF's delete callbacks run at the start of
 * MPI_Finalize in the reverse order of setting; a freed keyval stays usable while attributes
 * use it (and freeing it again from a delete callback is harmless); a copy callback's error
 * makes MPI_Comm_dup / MPI_Type_dup fail with that error, and the attributes copied before it
 * are deleted again; attributes on predefined datatypes; a delete callback that deletes other
 * attributes of the same object. */
#include "../common/mpi_test.h"

#define NSELF 6
static int self_order[NSELF], self_calls;
static int live; /* attribute values alive (copies made minus deletions) */

static int self_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)extra;
    int flag = 0;
    MPI_Finalized(&flag); /* MPI must still be usable */
    if (!flag && self_calls < NSELF)
        self_order[self_calls] = (int)(MPI_Aint)val;
    self_calls++;
    return MPI_SUCCESS;
}

static int count_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra;
    live++;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

static int count_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)key, (void)val, (void)extra;
    live--;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm c, int key, void *extra, void *in, void *out, int *flag)
{
    (void)c, (void)key, (void)extra, (void)in, (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int type_count_copy(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)t;
    return count_copy(MPI_COMM_NULL, key, extra, in, out, flag);
}
static int type_count_delete(MPI_Datatype t, int key, void *val, void *extra)
{
    (void)t;
    return count_delete(MPI_COMM_NULL, key, val, extra);
}
static int type_failing_copy(MPI_Datatype t, int key, void *extra, void *in, void *out, int *flag)
{
    (void)t;
    return failing_copy(MPI_COMM_NULL, key, extra, in, out, flag);
}

static int freeing_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)c, (void)val, (void)extra;
    live--;
    return MPI_Comm_free_keyval(&key);
}

static int other1, other2;
static int deleting_delete(MPI_Comm c, int key, void *val, void *extra)
{
    (void)key, (void)val, (void)extra;
    MPI_Comm_delete_attr(c, other1);
    MPI_Comm_delete_attr(c, other2);
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int flag;
    void *v;

    /* a freed keyval stays usable while an attribute uses it */
    int key, saved;
    MPI_Comm_create_keyval(count_copy, count_delete, &key, NULL);
    saved = key;
    MPI_Comm_set_attr(MPI_COMM_WORLD, key, (void *)(MPI_Aint)41);
    live = 1;
    CHECK(MPI_Comm_free_keyval(&key) == MPI_SUCCESS && key == MPI_KEYVAL_INVALID, "free");
    MPI_Comm dup;
    CHECK(MPI_Comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS && live == 2, "dup copies");
    CHECK(MPI_Comm_get_attr(dup, saved, &v, &flag) == MPI_SUCCESS && flag &&
              v == (void *)(MPI_Aint)41, "get with a freed keyval");
    MPI_Comm_free(&dup);
    CHECK(live == 1, "Comm_free deletes the copy");
    CHECK(MPI_Comm_delete_attr(MPI_COMM_WORLD, saved) == MPI_SUCCESS && live == 0,
          "delete with a freed keyval");
    /* once unused, the freed keyval is gone */
    CHECK(MPI_Comm_set_attr(MPI_COMM_WORLD, saved, NULL) != MPI_SUCCESS, "reclaimed keyval");

    /* a delete callback freeing its keyval, the keyval freed again meanwhile */
    int fk, fk_copy, fk_id;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, freeing_delete, &fk, NULL);
    fk_copy = fk_id = fk;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    MPI_Comm_set_attr(dup, fk, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, fk, NULL);
    live = 2;
    MPI_Comm_free(&dup);
    CHECK(MPI_Comm_free_keyval(&fk) == MPI_SUCCESS, "second free while in use");
    CHECK(MPI_Comm_free_keyval(&fk_copy) == MPI_SUCCESS, "third free while in use");
    int rc = MPI_Comm_delete_attr(MPI_COMM_WORLD, fk_id);
    CHECK(rc == MPI_SUCCESS && live == 0, "last delete: rc %d, %d alive", rc, live);

    /* a failing copy callback fails Comm_dup with its error; earlier copies are deleted */
    int good, bad;
    MPI_Comm_create_keyval(failing_copy, MPI_COMM_NULL_DELETE_FN, &bad, NULL);
    MPI_Comm_create_keyval(count_copy, count_delete, &good, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, bad, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, good, NULL); /* newest: copied first */
    live = 1;
    dup = MPI_COMM_NULL;
    rc = MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    int cls;
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "Comm_dup with a failing copy: class %d", cls);
    CHECK(live == 1, "the copy made before the failure is still alive (%d)", live);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, bad);
    MPI_Comm_delete_attr(MPI_COMM_WORLD, good);
    MPI_Comm_free_keyval(&bad);
    MPI_Comm_free_keyval(&good);

    /* the same for datatypes, on a predefined and on a derived type */
    int tgood, tbad;
    MPI_Type_create_keyval(type_count_copy, type_count_delete, &tgood, NULL);
    MPI_Type_create_keyval(type_failing_copy, MPI_TYPE_NULL_DELETE_FN, &tbad, NULL);
    live = 0;
    CHECK(MPI_Type_set_attr(MPI_INT, tgood, (void *)(MPI_Aint)7) == MPI_SUCCESS,
          "attribute on MPI_INT");
    live = 1;
    CHECK(MPI_Type_get_attr(MPI_INT, tgood, &v, &flag) == MPI_SUCCESS && flag &&
              v == (void *)(MPI_Aint)7, "get on MPI_INT");
    MPI_Datatype td;
    CHECK(MPI_Type_dup(MPI_INT, &td) == MPI_SUCCESS && live == 2, "Type_dup(MPI_INT) copies");
    CHECK(MPI_Type_get_attr(td, tgood, &v, &flag) == MPI_SUCCESS && flag, "copied to the dup");
    MPI_Type_set_attr(td, tbad, NULL);
    MPI_Datatype td2 = MPI_DATATYPE_NULL;
    rc = MPI_Type_dup(td, &td2);
    MPI_Error_class(rc, &cls);
    CHECK(cls == MPI_ERR_OTHER, "Type_dup with a failing copy: class %d", cls);
    CHECK(live == 2, "the half-made type's copies deleted (%d alive)", live);
    MPI_Type_free(&td);
    CHECK(live == 1, "Type_free deletes");
    CHECK(MPI_Type_delete_attr(MPI_INT, tgood) == MPI_SUCCESS && live == 0, "delete on MPI_INT");
    MPI_Type_free_keyval(&tgood);
    MPI_Type_free_keyval(&tbad);

    /* a delete callback deleting other attributes of the same communicator */
    int dk;
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &other1, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, deleting_delete, &dk, NULL);
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &other2, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, other1, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, dk, NULL);
    MPI_Comm_set_attr(MPI_COMM_WORLD, other2, NULL);
    CHECK(MPI_Comm_delete_attr(MPI_COMM_WORLD, dk) == MPI_SUCCESS, "delete dk");
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, other1, &v, &flag) == MPI_SUCCESS && !flag, "o1");
    CHECK(MPI_Comm_get_attr(MPI_COMM_WORLD, other2, &v, &flag) == MPI_SUCCESS && !flag, "o2");
    MPI_Comm_free_keyval(&other1), MPI_Comm_free_keyval(&dk), MPI_Comm_free_keyval(&other2);

    /* COMM_SELF: callbacks at the start of Finalize, newest first (keyvals already freed);
     * setting key 2 again keeps its place */
    int sk[NSELF];
    for (int i = 0; i < NSELF; i++) {
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, self_delete, &sk[i], NULL);
        MPI_Comm_set_attr(MPI_COMM_SELF, sk[i], (void *)(MPI_Aint)(i + 100));
    }
    MPI_Comm_set_attr(MPI_COMM_SELF, sk[2], (void *)(MPI_Aint)2);
    self_calls = 0; /* the replaced value's delete callback ran */
    for (int i = 0; i < NSELF; i++)
        MPI_Comm_free_keyval(&sk[i]);
    (void)finish, (void)xmalloc; /* Finalize is called here, then the order is checked */
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    int bad_order = self_calls != NSELF;
    for (int i = 0; i < NSELF && !bad_order; i++)
        bad_order = self_order[i] != (NSELF - 1 - i == 2 ? 2 : NSELF - 1 - i + 100);
    if (bad_order) {
        printf("FAILED: %d COMM_SELF delete callbacks, order", self_calls);
        for (int i = 0; i < NSELF; i++)
            printf(" %d", self_order[i]);
        printf("\n");
        return 1;
    }
    if (rank_ == 0)
        printf(" No Errors\n");
    return 0;
}
