/* attr.c — attribute caching: keyvals for communicators, datatypes and windows (create, free,
 * copy and delete callbacks), set/get/delete on communicators and datatypes, the MPI-1 names
 * (Keyval_create, Attr_put/get/delete), copying on Comm_dup/Type_dup and deleting on free. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"
#include "osc/osc.h"

enum { K_COMM = 1, K_TYPE, K_WIN };
struct keyval {
    int kind, id, freed, uses;
    void *copy_fn, *delete_fn;
    void *extra;
    struct keyval *next;
};
struct sm_attr {
    struct keyval *kv;
    void *val;
    struct sm_attr *next;
};

static struct keyval *keyvals;
static int next_id = 0x7000; /* above the predefined keys (mpi.h) */

/* a keyval lives until it is freed and no attribute uses it any more: until then its id stays
 * valid (a freed keyval can still be used to get or delete the attributes set with it, and
 * freeing it again is harmless) */
static struct keyval *kv_find(int id, int kind)
{
    for (struct keyval *k = keyvals; k; k = k->next)
        if (k->id == id && k->kind == kind)
            return k;
    return NULL;
}

/* drop k from the list once it is freed and unused */
static void kv_reclaim(struct keyval *k)
{
    if (!k->freed || k->uses > 0)
        return;
    for (struct keyval **p = &keyvals; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            free(k);
            return;
        }
}

/* one attribute fewer uses k */
static void kv_unuse(struct keyval *k)
{
    k->uses--;
    kv_reclaim(k);
}

static int kv_create(int kind, void *copy_fn, void *delete_fn, int *keyval, void *extra,
                     const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!keyval)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL keyval pointer");
    struct keyval *k = sm_xcalloc(1, sizeof *k);
    k->kind = kind;
    k->id = next_id++;
    k->copy_fn = copy_fn;
    k->delete_fn = delete_fn;
    k->extra = extra;
    k->next = keyvals;
    keyvals = k;
    *keyval = k->id;
    return MPI_SUCCESS;
}

static int kv_free(int kind, int *keyval, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (!keyval)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL keyval pointer");
    struct keyval *k = kv_find(*keyval, kind);
    if (!k)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_KEYVAL, fn, "invalid keyval %d", *keyval);
    *keyval = MPI_KEYVAL_INVALID;
    if (k->freed) /* already freed, still used by attributes */
        return MPI_SUCCESS;
    k->freed = 1; /* attributes still set keep using it until deleted */
    kv_reclaim(k);
    return MPI_SUCCESS;
}

static struct keyval *kv_any(int id)
{
    for (struct keyval *k = keyvals; k; k = k->next)
        if (k->id == id)
            return k;
    return NULL;
}

/* ---- generic list operations; obj is the handle the callbacks see ---------------------- */
typedef int del_cb(void *obj, int keyval, void *val, void *extra);
typedef int copy_cb(void *obj, int keyval, void *extra, void *in, void *out, int *flag);

static int call_delete(struct keyval *k, void *obj, void *val)
{
    if (!k->delete_fn)
        return MPI_SUCCESS;
    return ((del_cb *)k->delete_fn)(obj, k->id, val, k->extra);
}

static int attr_set(struct sm_attr **list, struct keyval *k, void *obj, void *val)
{
    for (struct sm_attr *a = *list; a; a = a->next)
        if (a->kv == k) {
            int rc = call_delete(k, obj, a->val);
            if (rc)
                return rc;
            a->val = val;
            return MPI_SUCCESS;
        }
    struct sm_attr *a = sm_xcalloc(1, sizeof *a);
    a->kv = k;
    a->val = val;
    a->next = *list;
    *list = a;
    k->uses++;
    return MPI_SUCCESS;
}

static int attr_get(struct sm_attr *list, struct keyval *k, void *out, int *flag)
{
    for (struct sm_attr *a = list; a; a = a->next)
        if (a->kv == k) {
            *(void **)out = a->val;
            *flag = 1;
            return MPI_SUCCESS;
        }
    *flag = 0;
    return MPI_SUCCESS;
}

/* take a out of list (found again: a delete callback may have changed the list) */
static void attr_unlink(struct sm_attr **list, struct sm_attr *a)
{
    for (struct sm_attr **p = list; *p; p = &(*p)->next)
        if (*p == a) {
            *p = a->next;
            struct keyval *k = a->kv;
            free(a);
            kv_unuse(k);
            return;
        }
}

static int attr_delete(struct sm_attr **list, struct keyval *k, void *obj)
{
    for (struct sm_attr *a = *list; a; a = a->next)
        if (a->kv == k) {
            int rc = call_delete(k, obj, a->val);
            if (rc)
                return rc;
            attr_unlink(list, a);
            return MPI_SUCCESS;
        }
    return MPI_ERR_KEYVAL;
}

static int delete_all(struct sm_attr **list, void *obj)
{
    while (*list) {
        struct sm_attr *a = *list;
        int rc = call_delete(a->kv, obj, a->val);
        if (rc)
            return rc;
        attr_unlink(list, a);
    }
    return MPI_SUCCESS;
}

static int copy_all(struct sm_attr *from, struct sm_attr **to, void *oldobj, void *newobj)
{
    for (struct sm_attr *a = from; a; a = a->next) {
        if (!a->kv->copy_fn)
            continue;
        void *out = NULL;
        int flag = 0;
        int rc =
            ((copy_cb *)a->kv->copy_fn)(oldobj, a->kv->id, a->kv->extra, a->val, &out, &flag);
        if (rc) {
            /* the copy fails: the attributes copied so far go again */
            delete_all(to, newobj);
            return rc;
        }
        if (flag) {
            struct sm_attr *n = sm_xcalloc(1, sizeof *n);
            n->kv = a->kv;
            n->val = out;
            n->next = *to;
            *to = n;
            a->kv->uses++;
        }
    }
    return MPI_SUCCESS;
}

/* ---- predefined callbacks ---------------------------------------------------------------- */
int sctpmpi_dup_fn(void *obj, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)obj, (void)keyval, (void)extra;
    *(void **)out = in;
    *flag = 1;
    return MPI_SUCCESS;
}

/* ---- communicators ----------------------------------------------------------------------- */
int PMPI_Comm_create_keyval(MPI_Comm_copy_attr_function *copy_fn,
                            MPI_Comm_delete_attr_function *delete_fn, int *keyval, void *extra)
{
    return kv_create(K_COMM, (void *)copy_fn, (void *)delete_fn, keyval, extra,
                     "MPI_Comm_create_keyval");
}

int PMPI_Comm_free_keyval(int *keyval)
{
    return kv_free(K_COMM, keyval, "MPI_Comm_free_keyval");
}

int PMPI_Comm_set_attr(MPI_Comm comm, int keyval, void *val)
{
    const char *fn = "MPI_Comm_set_attr";
    SM_TRY(sm_check_comm(comm, fn));
    struct keyval *k = kv_find(keyval, K_COMM);
    if (!k)
        return sm_error(comm, MPI_ERR_KEYVAL, fn, "invalid keyval %d", keyval);
    int rc = attr_set(&sm_comm_x(comm)->attrs, k, comm, val);
    return rc ? sm_error(comm, rc, fn, "delete callback failed") : MPI_SUCCESS;
}

/* user keyvals (comm.c answers the predefined ones) */
int sm_comm_attr_get(MPI_Comm comm, int keyval, void *out, int *flag)
{
    struct keyval *k = kv_find(keyval, K_COMM);
    if (!k)
        return sm_error(comm, MPI_ERR_KEYVAL, "MPI_Comm_get_attr", "invalid keyval %d", keyval);
    return attr_get(comm->x ? comm->x->attrs : NULL, k, out, flag);
}

int PMPI_Comm_delete_attr(MPI_Comm comm, int keyval)
{
    const char *fn = "MPI_Comm_delete_attr";
    SM_TRY(sm_check_comm(comm, fn));
    struct keyval *k = kv_find(keyval, K_COMM);
    if (!k)
        return sm_error(comm, MPI_ERR_KEYVAL, fn, "invalid keyval %d", keyval);
    int rc = attr_delete(&sm_comm_x(comm)->attrs, k, comm);
    return rc ? sm_error(comm, rc, fn, "attribute not set or delete callback failed")
              : MPI_SUCCESS;
}

int sm_attr_copy_all(MPI_Comm old, MPI_Comm newc)
{
    if (!old->x || !old->x->attrs)
        return MPI_SUCCESS;
    return copy_all(old->x->attrs, &sm_comm_x(newc)->attrs, old, newc);
}

int sm_attr_delete_all(MPI_Comm c)
{
    return c->x ? delete_all(&c->x->attrs, c) : MPI_SUCCESS;
}

/* the start of MPI_Finalize: the attributes of MPI_COMM_SELF, then of MPI_COMM_WORLD, are
 * deleted, each in the reverse order of setting (lists keep the newest first) */
int sm_attr_finalize(void)
{
    int rc = sm_attr_delete_all(MPI_COMM_SELF);
    int rc2 = sm_attr_delete_all(MPI_COMM_WORLD);
    return rc ? rc : rc2;
}

/* MPI-1 names */
int PMPI_Keyval_create(MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                       void *extra)
{
    return kv_create(K_COMM, (void *)copy_fn, (void *)delete_fn, keyval, extra,
                     "MPI_Keyval_create");
}
int PMPI_Keyval_free(int *keyval)
{
    return kv_free(K_COMM, keyval, "MPI_Keyval_free");
}
int PMPI_Attr_put(MPI_Comm comm, int keyval, void *val)
{
    return PMPI_Comm_set_attr(comm, keyval, val);
}
int PMPI_Attr_get(MPI_Comm comm, int keyval, void *val, int *flag)
{
    return PMPI_Comm_get_attr(comm, keyval, val, flag);
}
int PMPI_Attr_delete(MPI_Comm comm, int keyval)
{
    return MPI_Comm_delete_attr(comm, keyval);
}

/* ---- datatypes --------------------------------------------------------------------------- */
int PMPI_Type_create_keyval(MPI_Type_copy_attr_function *copy_fn,
                            MPI_Type_delete_attr_function *delete_fn, int *keyval, void *extra)
{
    return kv_create(K_TYPE, (void *)copy_fn, (void *)delete_fn, keyval, extra,
                     "MPI_Type_create_keyval");
}

int PMPI_Type_free_keyval(int *keyval)
{
    return kv_free(K_TYPE, keyval, "MPI_Type_free_keyval");
}

static int type_ok(MPI_Datatype t, int keyval, struct keyval **k, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, t, fn));
    *k = kv_find(keyval, K_TYPE);
    if (!*k)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_KEYVAL, fn, "invalid keyval %d", keyval);
    return MPI_SUCCESS;
}

int PMPI_Type_set_attr(MPI_Datatype t, int keyval, void *val)
{
    struct keyval *k;
    SM_TRY(type_ok(t, keyval, &k, "MPI_Type_set_attr"));
    int rc = attr_set(&t->attrs, k, t, val);
    return rc ? sm_error(MPI_COMM_WORLD, rc, "MPI_Type_set_attr", NULL) : MPI_SUCCESS;
}

int PMPI_Type_get_attr(MPI_Datatype t, int keyval, void *val, int *flag)
{
    struct keyval *k;
    SM_TRY(type_ok(t, keyval, &k, "MPI_Type_get_attr"));
    return attr_get(t->attrs, k, val, flag);
}

int PMPI_Type_delete_attr(MPI_Datatype t, int keyval)
{
    struct keyval *k;
    SM_TRY(type_ok(t, keyval, &k, "MPI_Type_delete_attr"));
    int rc = attr_delete(&t->attrs, k, t);
    return rc ? sm_error(MPI_COMM_WORLD, rc, "MPI_Type_delete_attr", NULL) : MPI_SUCCESS;
}

int sm_type_attr_delete_all(MPI_Datatype t)
{
    return delete_all(&t->attrs, t);
}

int sm_type_attr_copy_all(MPI_Datatype old, MPI_Datatype newt)
{
    return copy_all(old->attrs, &newt->attrs, old, newt);
}

/* ---- windows: keyvals here, the calls in osc/osc_win.c ------------------------------------ */
int PMPI_Win_create_keyval(MPI_Win_copy_attr_function *copy_fn,
                           MPI_Win_delete_attr_function *delete_fn, int *keyval, void *extra)
{
    return kv_create(K_WIN, (void *)copy_fn, (void *)delete_fn, keyval, extra,
                     "MPI_Win_create_keyval");
}

int PMPI_Win_free_keyval(int *keyval)
{
    return kv_free(K_WIN, keyval, "MPI_Win_free_keyval");
}

int sm_win_attr_set(MPI_Win w, int keyval, void *val, const char *fn)
{
    (void)fn;
    struct keyval *k = kv_find(keyval, K_WIN);
    return k ? attr_set(&w->attrs, k, w, val) : MPI_ERR_KEYVAL;
}

int sm_win_attr_get(MPI_Win w, int keyval, void *val, int *flag, const char *fn)
{
    (void)fn;
    struct keyval *k = kv_find(keyval, K_WIN);
    return k ? attr_get(w->attrs, k, val, flag) : MPI_ERR_KEYVAL;
}

int sm_win_attr_delete(MPI_Win w, int keyval, const char *fn)
{
    (void)fn;
    struct keyval *k = kv_find(keyval, K_WIN);
    return k ? attr_delete(&w->attrs, k, w) : MPI_ERR_KEYVAL;
}

int sm_win_attr_delete_all(MPI_Win w)
{
    return delete_all(&w->attrs, w);
}

int sm_keyval_exists(int id)
{
    return kv_any(id) != NULL;
}
