/* large_count_dtype.c — the large-count ("_c") datatype functions: constructors, extents and
 * sizes, envelope/contents with the large-count combiner layout, and the Pack family.  A type
 * whose arguments fit the int constructor is built by it; otherwise it is composed from the
 * large-count building blocks of large_count_type.c.  Either way, a type made by a "_c"
 * constructor records its arguments for MPI_Type_get_envelope_c/get_contents_c as MPI-4
 * lists them for the large-count constructors (counts and displacements as large counts). */
#include <stdlib.h>
#include <string.h>

#include "api/large_count.h"
#include "util/util.h"

static int fits_int(MPI_Count c)
{
    return c >= INT_MIN && c <= INT_MAX;
}

/* ---- what get_envelope_c / get_contents_c answer for a type made by a "_c" constructor -- */
struct lc_contents {
    int combiner, ni, nl, nt;
    int *ints;
    MPI_Count *larges;
    MPI_Datatype *types;
};
static int contents_keyval = MPI_KEYVAL_INVALID;

static int contents_delete(MPI_Datatype t, int keyval, void *val, void *extra)
{
    (void)t;
    (void)keyval;
    (void)extra;
    struct lc_contents *c = val;
    for (int i = 0; i < c->nt; i++)
        sm_dt_release(c->types[i]);
    free(c->ints);
    free(c->larges);
    free(c->types);
    free(c);
    return MPI_SUCCESS;
}

static int record(MPI_Datatype t, int combiner, int ni, const int *ints, int nl,
                  const MPI_Count *larges, int nt, const MPI_Datatype *types)
{
    if (contents_keyval == MPI_KEYVAL_INVALID)
        SM_TRY(PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, contents_delete, &contents_keyval,
                                       NULL));
    struct lc_contents *c = sm_xcalloc(1, sizeof *c);
    c->combiner = combiner;
    c->ni = ni;
    c->nl = nl;
    c->nt = nt;
    c->ints = sm_xmalloc(sizeof(int) * (size_t)(ni ? ni : 1));
    c->larges = sm_xmalloc(sizeof(MPI_Count) * (size_t)(nl ? nl : 1));
    c->types = sm_xmalloc(sizeof(MPI_Datatype) * (size_t)(nt ? nt : 1));
    if (ni)
        memcpy(c->ints, ints, sizeof(int) * (size_t)ni);
    if (nl)
        memcpy(c->larges, larges, sizeof(MPI_Count) * (size_t)nl);
    for (int i = 0; i < nt; i++) {
        c->types[i] = types[i];
        sm_dt_retain(types[i]);
    }
    return PMPI_Type_set_attr(t, contents_keyval, c);
}

static struct lc_contents *contents_of(MPI_Datatype t)
{
    struct lc_contents *c = NULL;
    int flag = 0;
    if (contents_keyval == MPI_KEYVAL_INVALID || !t || t->basic)
        return NULL;
    if (PMPI_Type_get_attr(t, contents_keyval, &c, &flag) != MPI_SUCCESS || !flag)
        return NULL;
    return c;
}

static int check_args(MPI_Count count, MPI_Datatype old, MPI_Datatype *newtype, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    if (old)
        SM_TRY(sm_check_dt(MPI_COMM_WORLD, old, fn));
    if (!newtype)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL output pointer");
    if (count < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "count %lld is negative",
                        (long long)count);
    if (count > INT_MAX)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn,
                        "%lld blocks: at most %d blocks are supported", (long long)count,
                        INT_MAX);
    return MPI_SUCCESS;
}

/* ---- constructors ------------------------------------------------------------------------ */
int PMPI_Type_contiguous_c(MPI_Count count, MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_contiguous_c";
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, old, fn));
    if (!newtype || count < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count or NULL output");
    if (sm_lc_fits(count))
        SM_TRY(PMPI_Type_contiguous((int)count, old, newtype));
    else
        SM_TRY(sm_lc_contig(count, old, newtype));
    return record(*newtype, MPI_COMBINER_CONTIGUOUS, 0, NULL, 1, &count, 1, &old);
}

/* count blocks of bl elements of old, block i starting stride bytes after block i - 1 */
static int hvec(MPI_Count count, MPI_Count bl, MPI_Aint stride, MPI_Datatype old,
                MPI_Datatype *newtype)
{
    MPI_Datatype blk;
    SM_TRY(sm_lc_contig(bl, old, &blk));
    int rc = sm_lc_hrep(count, stride, blk, newtype);
    PMPI_Type_free(&blk);
    return rc;
}

static int vector_args(MPI_Count count, MPI_Count bl, MPI_Datatype old, MPI_Datatype *newtype,
                       const char *fn)
{
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, old, fn));
    if (!newtype || count < 0 || bl < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative count or NULL output");
    return MPI_SUCCESS;
}

int PMPI_Type_vector_c(MPI_Count count, MPI_Count bl, MPI_Count stride, MPI_Datatype old,
                       MPI_Datatype *newtype)
{
    SM_TRY(vector_args(count, bl, old, newtype, "MPI_Type_vector_c"));
    if (sm_lc_fits(count) && sm_lc_fits(bl) && fits_int(stride))
        SM_TRY(PMPI_Type_vector((int)count, (int)bl, (int)stride, old, newtype));
    else
        SM_TRY(hvec(count, bl, (MPI_Aint)stride * old->extent, old, newtype));
    MPI_Count l[3] = { count, bl, stride };
    return record(*newtype, MPI_COMBINER_VECTOR, 0, NULL, 3, l, 1, &old);
}

int PMPI_Type_create_hvector_c(MPI_Count count, MPI_Count bl, MPI_Count stride, MPI_Datatype old,
                               MPI_Datatype *newtype)
{
    SM_TRY(vector_args(count, bl, old, newtype, "MPI_Type_create_hvector_c"));
    if (sm_lc_fits(count) && sm_lc_fits(bl))
        SM_TRY(PMPI_Type_create_hvector((int)count, (int)bl, (MPI_Aint)stride, old, newtype));
    else
        SM_TRY(hvec(count, bl, (MPI_Aint)stride, old, newtype));
    MPI_Count l[3] = { count, bl, stride };
    return record(*newtype, MPI_COMBINER_HVECTOR, 0, NULL, 3, l, 1, &old);
}

/* blocks of bls[i] (or bl) elements of old at disps[i] * unit bytes, as a struct of one
 * large-count block type each, resized to the bounds the indexed types have (no padding) */
static int blocks(int count, const MPI_Count *bls, MPI_Count bl, const MPI_Count *disps,
                  MPI_Aint unit, MPI_Datatype old, MPI_Datatype *newtype)
{
    MPI_Datatype *ts = sm_xmalloc(sizeof *ts * (size_t)(count ? count : 1));
    MPI_Aint *ds = sm_xmalloc(sizeof *ds * (size_t)(count ? count : 1));
    int *ones = sm_xmalloc(sizeof *ones * (size_t)(count ? count : 1));
    int n = 0, rc = MPI_SUCCESS;
    MPI_Aint lb = 0, ub = 0;
    for (int i = 0; i < count && rc == MPI_SUCCESS; i++) {
        MPI_Count b = bls ? bls[i] : bl;
        if (b < 0) {
            rc = sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, "MPI_Type_indexed_c",
                          "negative block length");
            break;
        }
        if (b == 0)
            continue;
        rc = sm_lc_contig(b, old, &ts[n]);
        if (rc != MPI_SUCCESS)
            break;
        ds[n] = (MPI_Aint)disps[i] * unit;
        ones[n] = 1;
        MPI_Aint l = ds[n] + ts[n]->lb, u = l + ts[n]->extent;
        if (!n || l < lb)
            lb = l;
        if (!n || u > ub)
            ub = u;
        n++;
    }
    MPI_Datatype st = MPI_DATATYPE_NULL;
    if (rc == MPI_SUCCESS)
        rc = PMPI_Type_create_struct(n, ones, ds, ts, &st);
    for (int i = 0; i < n; i++)
        PMPI_Type_free(&ts[i]);
    free(ts);
    free(ds);
    free(ones);
    SM_TRY(rc);
    rc = PMPI_Type_create_resized(st, lb, ub - lb, newtype);
    PMPI_Type_free(&st);
    return rc;
}

static int all_fit(MPI_Count n, const MPI_Count *a, int lc)
{
    for (MPI_Count i = 0; i < n; i++)
        if (lc ? !sm_lc_fits(a[i]) : !fits_int(a[i]))
            return 0;
    return 1;
}

static int *to_int(int n, const MPI_Count *a)
{
    int *r = sm_xmalloc(sizeof *r * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        r[i] = (int)a[i];
    return r;
}

static MPI_Aint *to_aint(int n, const MPI_Count *a)
{
    MPI_Aint *r = sm_xmalloc(sizeof *r * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        r[i] = (MPI_Aint)a[i];
    return r;
}

/* the large-count layout of the indexed family: count, the block length(s), displacements */
static int record_indexed(MPI_Datatype t, int combiner, MPI_Count count, const MPI_Count *bls,
                          MPI_Count bl, const MPI_Count *disps, MPI_Datatype old)
{
    int n = (int)count, nb = bls ? n : 1;
    MPI_Count *l = sm_xmalloc(sizeof *l * (size_t)(1 + nb + n));
    l[0] = count;
    if (bls)
        memcpy(l + 1, bls, sizeof *l * (size_t)n);
    else
        l[1] = bl;
    if (n)
        memcpy(l + 1 + nb, disps, sizeof *l * (size_t)n);
    int rc = record(t, combiner, 0, NULL, 1 + nb + n, l, 1, &old);
    free(l);
    return rc;
}

int PMPI_Type_indexed_c(MPI_Count count, const MPI_Count bls[], const MPI_Count disps[],
                        MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_indexed_c";
    SM_TRY(check_args(count, old, newtype, fn));
    int n = (int)count;
    if (n && (!bls || !disps))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    if (all_fit(n, bls, 1) && all_fit(n, disps, 0)) {
        int *b = to_int(n, bls), *d = to_int(n, disps);
        int rc = PMPI_Type_indexed(n, b, d, old, newtype);
        free(b);
        free(d);
        SM_TRY(rc);
    } else {
        SM_TRY(blocks(n, bls, 0, disps, old->extent, old, newtype));
    }
    return record_indexed(*newtype, MPI_COMBINER_INDEXED, count, bls, 0, disps, old);
}

int PMPI_Type_create_hindexed_c(MPI_Count count, const MPI_Count bls[], const MPI_Count disps[],
                                MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_hindexed_c";
    SM_TRY(check_args(count, old, newtype, fn));
    int n = (int)count;
    if (n && (!bls || !disps))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    if (all_fit(n, bls, 1)) {
        int *b = to_int(n, bls);
        MPI_Aint *d = to_aint(n, disps);
        int rc = PMPI_Type_create_hindexed(n, b, d, old, newtype);
        free(b);
        free(d);
        SM_TRY(rc);
    } else {
        SM_TRY(blocks(n, bls, 0, disps, 1, old, newtype));
    }
    return record_indexed(*newtype, MPI_COMBINER_HINDEXED, count, bls, 0, disps, old);
}

int PMPI_Type_create_indexed_block_c(MPI_Count count, MPI_Count bl, const MPI_Count disps[],
                                     MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_indexed_block_c";
    SM_TRY(check_args(count, old, newtype, fn));
    int n = (int)count;
    if (n && !disps)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    if (bl < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative block length");
    if (sm_lc_fits(bl) && all_fit(n, disps, 0)) {
        int *d = to_int(n, disps);
        int rc = PMPI_Type_create_indexed_block(n, (int)bl, d, old, newtype);
        free(d);
        SM_TRY(rc);
    } else {
        SM_TRY(blocks(n, NULL, bl, disps, old->extent, old, newtype));
    }
    return record_indexed(*newtype, MPI_COMBINER_INDEXED_BLOCK, count, NULL, bl, disps, old);
}

int PMPI_Type_create_hindexed_block_c(MPI_Count count, MPI_Count bl, const MPI_Count disps[],
                                      MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_hindexed_block_c";
    SM_TRY(check_args(count, old, newtype, fn));
    int n = (int)count;
    if (n && !disps)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    if (bl < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative block length");
    if (sm_lc_fits(bl)) {
        MPI_Aint *d = to_aint(n, disps);
        int rc = PMPI_Type_create_hindexed_block(n, (int)bl, d, old, newtype);
        free(d);
        SM_TRY(rc);
    } else {
        SM_TRY(blocks(n, NULL, bl, disps, 1, old, newtype));
    }
    return record_indexed(*newtype, MPI_COMBINER_HINDEXED_BLOCK, count, NULL, bl, disps, old);
}

int PMPI_Type_create_struct_c(MPI_Count count, const MPI_Count bls[], const MPI_Count disps[],
                              const MPI_Datatype types[], MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_struct_c";
    SM_TRY(check_args(count, NULL, newtype, fn));
    int n = (int)count, rc = MPI_SUCCESS;
    if (n && (!bls || !disps || !types))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    MPI_Aint *d = to_aint(n, disps);
    if (all_fit(n, bls, 1)) {
        int *b = to_int(n, bls);
        rc = PMPI_Type_create_struct(n, b, d, types, newtype);
        free(b);
    } else {
        /* one block type per member, each as one element */
        MPI_Datatype *ts = sm_xcalloc((size_t)(n ? n : 1), sizeof *ts);
        int *ones = sm_xmalloc(sizeof *ones * (size_t)(n ? n : 1)), k = 0;
        for (; k < n && rc == MPI_SUCCESS; k++) {
            ones[k] = 1;
            rc = sm_check_dt(MPI_COMM_WORLD, types[k], fn);
            if (rc == MPI_SUCCESS)
                rc = bls[k] < 0
                         ? sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "negative block length")
                         : sm_lc_contig(bls[k], types[k], &ts[k]);
        }
        if (rc == MPI_SUCCESS)
            rc = PMPI_Type_create_struct(n, ones, d, ts, newtype);
        for (int i = 0; i < n; i++)
            if (ts[i])
                PMPI_Type_free(&ts[i]);
        free(ts);
        free(ones);
    }
    free(d);
    SM_TRY(rc);
    MPI_Count *l = sm_xmalloc(sizeof *l * (size_t)(1 + 2 * n));
    l[0] = count;
    if (n) {
        memcpy(l + 1, bls, sizeof *l * (size_t)n);
        memcpy(l + 1 + n, disps, sizeof *l * (size_t)n);
    }
    rc = record(*newtype, MPI_COMBINER_STRUCT, 0, NULL, 1 + 2 * n, l, n, types);
    free(l);
    return rc;
}

int PMPI_Type_create_subarray_c(int ndims, const MPI_Count sizes[], const MPI_Count subsizes[],
                                const MPI_Count starts[], int order, MPI_Datatype old,
                                MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_subarray_c";
    SM_TRY(sm_check_init(fn));
    if (ndims < 0 || (ndims && (!sizes || !subsizes || !starts)))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad ndims or NULL array");
    if (!all_fit(ndims, sizes, 0) || !all_fit(ndims, subsizes, 0) || !all_fit(ndims, starts, 0))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn,
                        "array sizes beyond the int range are not supported");
    int *a = to_int(ndims, sizes), *b = to_int(ndims, subsizes), *c = to_int(ndims, starts);
    int rc = PMPI_Type_create_subarray(ndims, a, b, c, order, old, newtype);
    free(a);
    free(b);
    free(c);
    SM_TRY(rc);
    MPI_Count *l = sm_xmalloc(sizeof *l * (size_t)(3 * ndims + 1));
    for (int i = 0; i < ndims; i++) {
        l[i] = sizes[i];
        l[ndims + i] = subsizes[i];
        l[2 * ndims + i] = starts[i];
    }
    int ints[2] = { ndims, order };
    rc = record(*newtype, MPI_COMBINER_SUBARRAY, 2, ints, 3 * ndims, l, 1, &old);
    free(l);
    return rc;
}

int PMPI_Type_create_darray_c(int size, int rank, int ndims, const MPI_Count gsizes[],
                              const int distribs[], const int dargs[], const int psizes[],
                              int order, MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_darray_c";
    SM_TRY(sm_check_init(fn));
    if (ndims < 0 || (ndims && (!gsizes || !distribs || !dargs || !psizes)))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad ndims or NULL array");
    if (!all_fit(ndims, gsizes, 0))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn,
                        "global sizes beyond the int range are not supported");
    int *g = to_int(ndims, gsizes);
    int rc = PMPI_Type_create_darray(size, rank, ndims, g, distribs, dargs, psizes, order, old,
                                     newtype);
    free(g);
    SM_TRY(rc);
    int *ints = sm_xmalloc(sizeof *ints * (size_t)(3 * ndims + 4));
    int ni = 0;
    ints[ni++] = size;
    ints[ni++] = rank;
    ints[ni++] = ndims;
    for (int i = 0; i < ndims; i++)
        ints[ni++] = distribs[i];
    for (int i = 0; i < ndims; i++)
        ints[ni++] = dargs[i];
    for (int i = 0; i < ndims; i++)
        ints[ni++] = psizes[i];
    ints[ni++] = order;
    rc = record(*newtype, MPI_COMBINER_DARRAY, ni, ints, ndims, gsizes, 1, &old);
    free(ints);
    return rc;
}

int PMPI_Type_create_resized_c(MPI_Datatype old, MPI_Count lb, MPI_Count extent,
                               MPI_Datatype *newtype)
{
    SM_TRY(PMPI_Type_create_resized(old, (MPI_Aint)lb, (MPI_Aint)extent, newtype));
    MPI_Count l[2] = { lb, extent };
    return record(*newtype, MPI_COMBINER_RESIZED, 0, NULL, 2, l, 1, &old);
}

/* ---- queries ----------------------------------------------------------------------------- */
static int query_args(MPI_Datatype dt, const void *a, const void *b, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, dt, fn));
    if (!a || !b)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent_c(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    SM_TRY(query_args(dt, lb, extent, "MPI_Type_get_extent_c"));
    *lb = dt->lb;
    *extent = dt->extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_c(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    MPI_Aint a, b;
    SM_TRY(query_args(dt, lb, extent, "MPI_Type_get_true_extent_c"));
    SM_TRY(PMPI_Type_get_true_extent(dt, &a, &b));
    *lb = a;
    *extent = b;
    return MPI_SUCCESS;
}

int PMPI_Type_size_c(MPI_Datatype dt, MPI_Count *size)
{
    SM_TRY(query_args(dt, size, size, "MPI_Type_size_c"));
    *size = (MPI_Count)dt->size;
    return MPI_SUCCESS;
}

int PMPI_Type_get_envelope_c(MPI_Datatype dt, MPI_Count *ni, MPI_Count *na, MPI_Count *nl,
                             MPI_Count *nt, int *combiner)
{
    const char *fn = "MPI_Type_get_envelope_c";
    SM_TRY(query_args(dt, ni, na, fn));
    if (!nl || !nt || !combiner)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
    struct lc_contents *c = contents_of(dt);
    if (c) {
        *ni = c->ni;
        *na = 0;
        *nl = c->nl;
        *nt = c->nt;
        *combiner = c->combiner;
        return MPI_SUCCESS;
    }
    int i, a, t;
    SM_TRY(PMPI_Type_get_envelope(dt, &i, &a, &t, combiner));
    *ni = i;
    *na = a;
    *nl = 0;
    *nt = t;
    return MPI_SUCCESS;
}

static int clamp(MPI_Count c)
{
    return c < 0 ? -1 : c > INT_MAX ? INT_MAX : (int)c;
}

int PMPI_Type_get_contents_c(MPI_Datatype dt, MPI_Count maxi, MPI_Count maxa, MPI_Count maxl,
                             MPI_Count maxt, int ints[], MPI_Aint aints[], MPI_Count larges[],
                             MPI_Datatype types[])
{
    const char *fn = "MPI_Type_get_contents_c";
    SM_TRY(sm_check_init(fn));
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, dt, fn));
    struct lc_contents *c = contents_of(dt);
    if (!c)
        return PMPI_Type_get_contents(dt, clamp(maxi), clamp(maxa), clamp(maxt), ints, aints,
                                      types);
    (void)maxa;
    if (maxi < c->ni || maxl < c->nl || maxt < c->nt)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "output arrays too small");
    for (int i = 0; i < c->ni; i++)
        ints[i] = c->ints[i];
    for (int i = 0; i < c->nl; i++)
        larges[i] = c->larges[i];
    sm_dt_hand_out(types, c->types, c->nt);
    return MPI_SUCCESS;
}

/* ---- the Pack family ----------------------------------------------------------------------- */
int PMPI_Pack_size_c(MPI_Count incount, MPI_Datatype dt, MPI_Comm comm, MPI_Count *size)
{
    SM_TRY(sm_check_comm(comm, "MPI_Pack_size_c"));
    SM_TRY(sm_check_dt(comm, dt, "MPI_Pack_size_c"));
    if (incount < 0 || !size)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Pack_size_c", "bad count or NULL size");
    *size = (MPI_Count)sm_dt_psize(dt) * incount;
    return MPI_SUCCESS;
}

int PMPI_Pack_c(const void *inbuf, MPI_Count incount, MPI_Datatype dt, void *outbuf,
                MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    const char *fn = "MPI_Pack_c";
    SM_TRY(sm_check_comm(comm, fn));
    if (!position || *position < 0)
        return sm_error(comm, MPI_ERR_ARG, fn, "bad position");
    MPI_Datatype t;
    int n;
    SM_TRY(sm_lc_arg(incount, dt, &t, &n, comm, fn));
    int rc = sm_check_buffer(comm, inbuf, n, t, fn);
    MPI_Count bytes = (MPI_Count)sm_dt_psize(t) * n;
    if (rc == MPI_SUCCESS && *position + bytes > outsize)
        rc =
            sm_error(comm, MPI_ERR_TRUNCATE, fn, "%lld bytes do not fit at position %lld of %lld",
                     (long long)bytes, (long long)*position, (long long)outsize);
    if (rc == MPI_SUCCESS) {
        sm_dt_pack(inbuf, n, t, (char *)outbuf + *position);
        *position += bytes;
    }
    sm_lc_done(t, dt);
    return rc;
}

int PMPI_Unpack_c(const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf,
                  MPI_Count outcount, MPI_Datatype dt, MPI_Comm comm)
{
    const char *fn = "MPI_Unpack_c";
    SM_TRY(sm_check_comm(comm, fn));
    if (!position || *position < 0)
        return sm_error(comm, MPI_ERR_ARG, fn, "bad position");
    MPI_Datatype t;
    int n;
    SM_TRY(sm_lc_arg(outcount, dt, &t, &n, comm, fn));
    int rc = sm_check_buffer(comm, outbuf, n, t, fn);
    MPI_Count bytes = (MPI_Count)sm_dt_psize(t) * n;
    if (rc == MPI_SUCCESS && *position + bytes > insize)
        rc = sm_error(comm, MPI_ERR_TRUNCATE, fn,
                      "%lld bytes are not there at position %lld of %lld", (long long)bytes,
                      (long long)*position, (long long)insize);
    if (rc == MPI_SUCCESS) {
        sm_dt_unpack((const char *)inbuf + *position, (size_t)bytes, outbuf, n, t);
        *position += bytes;
    }
    sm_lc_done(t, dt);
    return rc;
}

int PMPI_Pack_external_size_c(const char datarep[], MPI_Count incount, MPI_Datatype dt,
                              MPI_Count *size)
{
    MPI_Aint one;
    if (incount < 0 || !size)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Pack_external_size_c",
                        "bad count or NULL size");
    SM_TRY(PMPI_Pack_external_size(datarep, 1, dt, &one));
    *size = (MPI_Count)one * incount;
    return MPI_SUCCESS;
}

int PMPI_Pack_external_c(const char datarep[], const void *inbuf, MPI_Count incount,
                         MPI_Datatype dt, void *outbuf, MPI_Count outsize, MPI_Count *position)
{
    const char *fn = "MPI_Pack_external_c";
    if (!position)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad position");
    MPI_Datatype t;
    int n;
    SM_TRY(sm_lc_arg(incount, dt, &t, &n, MPI_COMM_WORLD, fn));
    MPI_Aint pos = (MPI_Aint)*position;
    int rc = PMPI_Pack_external(datarep, inbuf, n, t, outbuf, (MPI_Aint)outsize, &pos);
    *position = pos;
    sm_lc_done(t, dt);
    return rc;
}

int PMPI_Unpack_external_c(const char datarep[], const void *inbuf, MPI_Count insize,
                           MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype dt)
{
    const char *fn = "MPI_Unpack_external_c";
    if (!position)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad position");
    MPI_Datatype t;
    int n;
    SM_TRY(sm_lc_arg(outcount, dt, &t, &n, MPI_COMM_WORLD, fn));
    MPI_Aint pos = (MPI_Aint)*position;
    int rc = PMPI_Unpack_external(datarep, inbuf, (MPI_Aint)insize, &pos, outbuf, n, t);
    *position = pos;
    sm_lc_done(t, dt);
    return rc;
}
