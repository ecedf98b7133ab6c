/* large_count_type.c — the derived datatypes and internal reduction operations that carry a
 * count beyond the int functions' range, for the large-count ("_c") functions. */
#include <stdlib.h>

#include "api/large_count.h"
#include "util/util.h"

static MPI_Count chunk;

MPI_Count sm_lc_chunk(void)
{
    if (!chunk) {
        long long c = sm_env_int("SCTPMPI_LARGE_COUNT_CHUNK", INT_MAX);
        chunk = c < 1 ? 1 : c > INT_MAX ? INT_MAX : c;
    }
    return chunk;
}

/* the widest hvector built in one piece: bounded so that building a type of 2^31 predefined
 * elements does not walk 2^31 elements (the flattened form merges them anyway) */
static MPI_Count piece(void)
{
    MPI_Count c = sm_lc_chunk();
    return c < 65536 ? c : 65536;
}

int sm_lc_hrep(MPI_Count n, MPI_Aint s, MPI_Datatype t, MPI_Datatype *out)
{
    MPI_Count f = piece();
    if (n <= f) {
        SM_TRY(PMPI_Type_create_hvector((int)n, 1, s, t, out));
        return PMPI_Type_commit(out);
    }
    /* q runs of f copies, then the remainder, as a struct resized to the hvector's bounds */
    MPI_Count q = n / f, r = n % f;
    MPI_Datatype a, parts[2];
    SM_TRY(PMPI_Type_create_hvector((int)f, 1, s, t, &a));
    int rc = sm_lc_hrep(q, s * (MPI_Aint)f, a, &parts[0]);
    PMPI_Type_free(&a);
    SM_TRY(rc);
    int np = 1;
    if (r) {
        SM_TRY(PMPI_Type_create_hvector((int)r, 1, s, t, &parts[1]));
        np = 2;
    }
    int bls[2] = { 1, 1 };
    MPI_Aint disps[2] = { 0, s * (MPI_Aint)(q * f) };
    MPI_Datatype st;
    rc = PMPI_Type_create_struct(np, bls, disps, parts, &st);
    for (int i = 0; i < np; i++)
        PMPI_Type_free(&parts[i]);
    SM_TRY(rc);
    MPI_Aint span = s * (MPI_Aint)(n - 1);
    MPI_Aint lb = t->lb + (span < 0 ? span : 0);
    MPI_Aint ub = t->lb + t->extent + (span > 0 ? span : 0);
    rc = PMPI_Type_create_resized(st, lb, ub - lb, out);
    PMPI_Type_free(&st);
    SM_TRY(rc);
    return PMPI_Type_commit(out);
}

int sm_lc_contig(MPI_Count n, MPI_Datatype dt, MPI_Datatype *out)
{
    if (n == 0) {
        SM_TRY(PMPI_Type_contiguous(0, dt, out));
        return PMPI_Type_commit(out);
    }
    MPI_Datatype t;
    SM_TRY(sm_lc_hrep(n, dt->extent, dt, &t));
    /* contiguous: extent n * extent(dt) from lb(dt), whatever the sign of the extent */
    MPI_Aint lb = dt->extent >= 0 ? dt->lb : dt->lb + dt->extent * (MPI_Aint)(n - 1);
    int rc = PMPI_Type_create_resized(t, lb, dt->extent * (MPI_Aint)n, out);
    PMPI_Type_free(&t);
    SM_TRY(rc);
    return PMPI_Type_commit(out);
}

static int arg(MPI_Count count, MPI_Datatype dt, int force, MPI_Datatype *t, int *n,
               MPI_Comm comm, const char *fn)
{
    *t = dt;
    *n = 0;
    if (count < 0)
        return sm_error(comm, MPI_ERR_COUNT, fn, "count %lld is negative", (long long)count);
    if (count <= sm_lc_chunk() && !(force && count > 0)) {
        *n = (int)count;
        return MPI_SUCCESS;
    }
    SM_TRY(sm_check_dt(comm, dt, fn));
    SM_TRY(sm_lc_contig(count, dt, t));
    *n = 1;
    return MPI_SUCCESS;
}

int sm_lc_arg(MPI_Count count, MPI_Datatype dt, MPI_Datatype *t, int *n, MPI_Comm comm,
              const char *fn)
{
    return arg(count, dt, 0, t, n, comm, fn);
}

void sm_lc_done(MPI_Datatype t, MPI_Datatype dt)
{
    if (t != dt)
        PMPI_Type_free(&t);
}

/* ---- reductions: the built type carries (op, dt, count); an internal user op applies op to
 * count elements of dt per element of that type, int-sized pieces at a time ---------------- */
struct lc_red {
    MPI_Datatype t; /* the type the record belongs to */
    MPI_Op op;
    MPI_Datatype dt;
    MPI_Count n;
    struct lc_red *next;
};
static struct lc_red *reds;
static int red_keyval = MPI_KEYVAL_INVALID;

static int red_delete(MPI_Datatype t, int keyval, void *val, void *extra)
{
    (void)t;
    (void)keyval;
    (void)extra;
    struct lc_red *r = val;
    for (struct lc_red **p = &reds; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    sm_op_release(r->op);
    sm_dt_release(r->dt);
    free(r);
    return MPI_SUCCESS;
}

static void red_apply(void *in, void *inout, int *len, MPI_Datatype *t)
{
    struct lc_red *r = reds;
    while (r && r->t != *t)
        r = r->next;
    if (!r)
        sm_die("large-count reduction: unknown datatype");
    MPI_Count total = r->n * (MPI_Count)*len, f = sm_lc_chunk();
    MPI_Aint ext = r->dt->extent;
    for (MPI_Count off = 0; off < total; off += f) {
        MPI_Count k = total - off < f ? total - off : f;
        sm_op_apply(r->op, (char *)in + off * ext, (char *)inout + off * ext, (int)k, r->dt);
    }
}

int sm_lc_red(MPI_Count count, int force, MPI_Datatype dt, MPI_Op op, MPI_Datatype *t, MPI_Op *o,
              int *n, MPI_Comm comm, const char *fn)
{
    *o = op;
    SM_TRY(arg(count, dt, force, t, n, comm, fn));
    if (*t == dt)
        return MPI_SUCCESS;
    int rc = sm_op_check(comm, op, dt, fn);
    if (rc == MPI_SUCCESS && red_keyval == MPI_KEYVAL_INVALID)
        rc = PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, red_delete, &red_keyval, NULL);
    if (rc != MPI_SUCCESS) {
        PMPI_Type_free(t);
        *t = dt;
        return rc;
    }
    struct lc_red *r = sm_xcalloc(1, sizeof *r);
    r->t = *t;
    r->op = op;
    r->dt = dt;
    r->n = count;
    sm_op_retain(op);
    sm_dt_retain(dt);
    r->next = reds;
    reds = r;
    PMPI_Type_set_attr(*t, red_keyval, r);
    PMPI_Op_create(red_apply, op->commute, o);
    return MPI_SUCCESS;
}

void sm_lc_red_done(MPI_Datatype t, MPI_Op o, MPI_Datatype dt, MPI_Op op)
{
    if (o != op)
        PMPI_Op_free(&o);
    sm_lc_done(t, dt);
}
