/* dtype.c — derived datatypes: the constructors (contiguous, vector, hvector, indexed,
 * hindexed, indexed_block, hindexed_block, struct, subarray, darray, resized, dup), commit,
 * free, names, true extent, envelope/contents.  A derived type is flattened when it is built:
 * one element is a list of contiguous byte blocks (typemap order) plus its type signature as
 * runs of predefined types, so packing never recurses. */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

struct builder {
    struct sm_dt_block *b;
    size_t nb, bcap;
    struct sm_dt_sig *s;
    size_t ns, scap;
    size_t size, psize;
    MPI_Aint lb, ub, tlb, tub;
    int have, have_true;
    int xlb_set, xub_set; /* MPI_LB / MPI_UB markers */
    MPI_Aint xlb, xub;
};

static MPI_Aint t_lb(MPI_Datatype t)
{
    return t->basic ? 0 : t->true_lb;
}
static MPI_Aint t_ext(MPI_Datatype t)
{
    return t->basic ? t->extent : t->true_extent;
}

static void add_block(struct builder *B, MPI_Aint disp, size_t len)
{
    if (!len)
        return;
    if (B->nb && B->b[B->nb - 1].disp + (MPI_Aint)B->b[B->nb - 1].len == disp) {
        B->b[B->nb - 1].len += len;
        return;
    }
    if (B->nb == B->bcap) {
        B->bcap = B->bcap ? 2 * B->bcap : 8;
        B->b = realloc(B->b, B->bcap * sizeof *B->b);
        if (!B->b)
            sm_die("out of memory building a datatype");
    }
    B->b[B->nb].disp = disp;
    B->b[B->nb].len = len;
    B->nb++;
}

static void add_sig(struct builder *B, MPI_Datatype t, size_t n)
{
    if (!n)
        return;
    if (B->ns && B->s[B->ns - 1].type == t) {
        B->s[B->ns - 1].count += n;
        return;
    }
    if (B->ns == B->scap) {
        B->scap = B->scap ? 2 * B->scap : 4;
        B->s = realloc(B->s, B->scap * sizeof *B->s);
        if (!B->s)
            sm_die("out of memory building a datatype");
    }
    B->s[B->ns].type = t;
    B->s[B->ns].count = n;
    B->ns++;
}

/* reps consecutive elements of t starting at byte displacement disp */
static void add_child(struct builder *B, MPI_Datatype t, MPI_Aint disp, size_t reps)
{
    if (t == MPI_LB) {
        if (!B->xlb_set || disp < B->xlb)
            B->xlb = disp;
        B->xlb_set = 1;
        return;
    }
    if (t == MPI_UB) {
        if (!B->xub_set || disp > B->xub)
            B->xub = disp;
        B->xub_set = 1;
        return;
    }
    if (!reps)
        return;
    MPI_Aint first = disp, last = disp + (MPI_Aint)(reps - 1) * t->extent;
    MPI_Aint lo = first < last ? first : last, hi = first < last ? last : first;
    if (!B->have || lo + t->lb < B->lb)
        B->lb = lo + t->lb;
    if (!B->have || hi + t->lb + t->extent > B->ub)
        B->ub = hi + t->lb + t->extent;
    B->have = 1;
    if (t->size) {
        if (!B->have_true || lo + t_lb(t) < B->tlb)
            B->tlb = lo + t_lb(t);
        if (!B->have_true || hi + t_lb(t) + t_ext(t) > B->tub)
            B->tub = hi + t_lb(t) + t_ext(t);
        B->have_true = 1;
    }
    for (size_t r = 0; r < reps; r++) {
        MPI_Aint base = disp + (MPI_Aint)r * t->extent;
        if (t->basic) {
            add_block(B, base, (size_t)t->extent);
        } else {
            for (size_t k = 0; k < t->nblocks; k++)
                add_block(B, base + t->blocks[k].disp, t->blocks[k].len);
        }
    }
    if (t->basic) {
        add_sig(B, t, reps);
    } else {
        for (size_t r = 0; r < reps; r++)
            for (size_t k = 0; k < t->nsig; k++)
                add_sig(B, t->sig[k].type, t->sig[k].count);
    }
    B->size += reps * t->size;
    B->psize += reps * sm_dt_psize(t);
}

/* Released derived-type objects are kept, marked invalid, and reused newest first by the next
 * constructor (as handle tables are in other MPIs): a handle the program still holds after
 * MPI_Type_free fails cleanly with MPI_ERR_TYPE instead of touching freed memory, and one
 * reused by a later constructor names that new type. */
static struct sctpmpi_datatype *dt_recycled;

static struct sctpmpi_datatype *dt_alloc(void)
{
    struct sctpmpi_datatype *d = dt_recycled;
    if (!d)
        return sm_xcalloc(1, sizeof *d);
    dt_recycled = d->next_recycled;
    memset(d, 0, sizeof *d);
    return d;
}

static void dt_recycle(struct sctpmpi_datatype *d)
{
    memset(d, 0, sizeof *d); /* valid = 0 */
    d->next_recycled = dt_recycled;
    dt_recycled = d;
}

static MPI_Datatype finish(struct builder *B, int combiner, int ni, const int *ints, int na,
                           const MPI_Aint *aints, int nt, const MPI_Datatype *types)
{
    struct sctpmpi_datatype *d = dt_alloc();
    d->valid = 1;
    d->refcount = 1;
    d->handles = 1;
    d->size = B->size;
    d->psize = B->psize;
    d->blocks = B->b;
    d->nblocks = B->nb;
    d->sig = B->s;
    d->nsig = B->ns;
    MPI_Aint lb = B->have ? B->lb : 0, ub = B->have ? B->ub : 0;
    if (B->xlb_set)
        lb = B->xlb;
    if (B->xub_set)
        ub = B->xub;
    d->lb = lb;
    d->extent = ub - lb;
    d->true_lb = B->have_true ? B->tlb : 0;
    d->true_extent = B->have_true ? B->tub - B->tlb : 0;
    d->name = "(derived)";
    d->combiner = combiner;
    d->ni = ni;
    d->na = na;
    d->nt = nt;
    if (ni) {
        d->ints = sm_xmalloc((size_t)ni * sizeof *ints);
        memcpy(d->ints, ints, (size_t)ni * sizeof *ints);
    }
    if (na) {
        d->aints = sm_xmalloc((size_t)na * sizeof *aints);
        memcpy(d->aints, aints, (size_t)na * sizeof *aints);
    }
    if (nt) {
        d->types = sm_xmalloc((size_t)nt * sizeof *types);
        for (int i = 0; i < nt; i++) {
            d->types[i] = types[i];
            sm_dt_retain(types[i]);
        }
    }
    return d;
}

void sm_dt_retain(MPI_Datatype dt)
{
    if (dt && !dt->basic)
        dt->refcount++;
}

void sm_dt_release(MPI_Datatype dt)
{
    if (!dt || dt->basic || --dt->refcount > 0)
        return;
    sm_type_attr_delete_all(dt);
    for (int i = 0; i < dt->nt; i++)
        sm_dt_release(dt->types[i]);
    free(dt->blocks);
    free(dt->block_mark);
    free(dt->sig);
    free(dt->ints);
    free(dt->aints);
    free(dt->types);
    dt_recycle(dt);
}

int sm_check_dt(MPI_Comm c, MPI_Datatype dt, const char *fn)
{
    if (!dt || !dt->valid)
        return sm_error(c, MPI_ERR_TYPE, fn, "null or freed datatype");
    return MPI_SUCCESS;
}

static int check_old(MPI_Datatype t, const char *fn)
{
    SM_TRY(sm_check_init(fn));
    return sm_check_dt(MPI_COMM_WORLD, t, fn);
}

static int check_out(void *p, const char *fn)
{
    if (!p)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL output pointer");
    return MPI_SUCCESS;
}

static int check_count(int n, const char *fn)
{
    if (n < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "count %d is negative", n);
    return MPI_SUCCESS;
}

int PMPI_Type_contiguous(int count, MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_contiguous";
    SM_TRY(check_old(old, fn));
    SM_TRY(check_count(count, fn));
    SM_TRY(check_out(newtype, fn));
    struct builder B = { 0 };
    add_child(&B, old, 0, (size_t)count);
    *newtype = finish(&B, MPI_COMBINER_CONTIGUOUS, 1, &count, 0, NULL, 1, &old);
    return MPI_SUCCESS;
}

static int hvector(int count, int bl, MPI_Aint stride_bytes, MPI_Datatype old, int combiner,
                   MPI_Aint stride_arg, MPI_Datatype *newtype, const char *fn)
{
    SM_TRY(check_old(old, fn));
    SM_TRY(check_count(count, fn));
    SM_TRY(check_count(bl, fn));
    SM_TRY(check_out(newtype, fn));
    struct builder B = { 0 };
    for (int i = 0; i < count; i++)
        add_child(&B, old, (MPI_Aint)i * stride_bytes, (size_t)bl);
    int ints[3] = { count, bl, (int)stride_arg };
    if (combiner == MPI_COMBINER_VECTOR)
        *newtype = finish(&B, combiner, 3, ints, 0, NULL, 1, &old);
    else
        *newtype = finish(&B, combiner, 2, ints, 1, &stride_arg, 1, &old);
    return MPI_SUCCESS;
}

int PMPI_Type_vector(int count, int blocklength, int stride, MPI_Datatype old,
                     MPI_Datatype *newtype)
{
    if (!old || !old->valid)
        return check_old(old, "MPI_Type_vector");
    return hvector(count, blocklength, (MPI_Aint)stride * old->extent, old, MPI_COMBINER_VECTOR,
                   stride, newtype, "MPI_Type_vector");
}

int PMPI_Type_create_hvector(int count, int blocklength, MPI_Aint stride, MPI_Datatype old,
                             MPI_Datatype *newtype)
{
    return hvector(count, blocklength, stride, old, MPI_COMBINER_HVECTOR, stride, newtype,
                   "MPI_Type_create_hvector");
}

/* indexed family: displacements in elements of old (scale = extent) or bytes (scale 0) */
static int indexed(int count, const int *bls, int bl, const int *idisp, const MPI_Aint *adisp,
                   MPI_Datatype old, int combiner, MPI_Datatype *newtype, const char *fn)
{
    SM_TRY(check_old(old, fn));
    SM_TRY(check_count(count, fn));
    SM_TRY(check_out(newtype, fn));
    if (count > 0 && ((!bls && bl < 0) || (!idisp && !adisp)))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    struct builder B = { 0 };
    for (int i = 0; i < count; i++) {
        int n = bls ? bls[i] : bl;
        SM_TRY(check_count(n, fn));
        MPI_Aint d = idisp ? (MPI_Aint)idisp[i] * old->extent : adisp[i];
        add_child(&B, old, d, (size_t)n);
    }
    /* contents as the standard lays them out */
    int ni = 0;
    int *ints = sm_xmalloc(sizeof(int) * (2 * (size_t)count + 2));
    ints[ni++] = count;
    if (bls)
        for (int i = 0; i < count; i++)
            ints[ni++] = bls[i];
    else
        ints[ni++] = bl;
    if (idisp)
        for (int i = 0; i < count; i++)
            ints[ni++] = idisp[i];
    *newtype = finish(&B, combiner, ni, ints, adisp ? count : 0, adisp, 1, &old);
    free(ints);
    return MPI_SUCCESS;
}

int PMPI_Type_indexed(int count, const int bls[], const int disps[], MPI_Datatype old,
                      MPI_Datatype *newtype)
{
    return indexed(count, bls, 0, disps, NULL, old, MPI_COMBINER_INDEXED, newtype,
                   "MPI_Type_indexed");
}

int PMPI_Type_create_hindexed(int count, const int bls[], const MPI_Aint disps[],
                              MPI_Datatype old, MPI_Datatype *newtype)
{
    return indexed(count, bls, 0, NULL, disps, old, MPI_COMBINER_HINDEXED, newtype,
                   "MPI_Type_create_hindexed");
}

int PMPI_Type_create_indexed_block(int count, int bl, const int disps[], MPI_Datatype old,
                                   MPI_Datatype *newtype)
{
    return indexed(count, NULL, bl, disps, NULL, old, MPI_COMBINER_INDEXED_BLOCK, newtype,
                   "MPI_Type_create_indexed_block");
}

int PMPI_Type_create_hindexed_block(int count, int bl, const MPI_Aint disps[], MPI_Datatype old,
                                    MPI_Datatype *newtype)
{
    return indexed(count, NULL, bl, NULL, disps, old, MPI_COMBINER_HINDEXED_BLOCK, newtype,
                   "MPI_Type_create_hindexed_block");
}

/* C alignment of a predefined type (pair types: their struct's), and of a derived one: the
 * strictest of the predefined types of its signature */
static MPI_Aint basic_align(MPI_Datatype t)
{
    if (t == MPI_C_FLOAT_COMPLEX || t == MPI_FLOAT_INT || t == MPI_2INT || t == MPI_SHORT_INT)
        return 4;
    if (t == MPI_C_DOUBLE_COMPLEX || t == MPI_DOUBLE_INT || t == MPI_LONG_INT)
        return 8;
    if (t == MPI_C_LONG_DOUBLE_COMPLEX || t == MPI_LONG_DOUBLE_INT)
        return (MPI_Aint) _Alignof(long double);
    MPI_Aint e = t->extent;
    if (e <= 0 || (e & (e - 1)) || e > 16)
        return 1; /* MPI_LB / MPI_UB markers, MPI_PACKED-like oddities */
    return e;
}

static MPI_Aint type_align(MPI_Datatype t)
{
    if (t->basic)
        return basic_align(t);
    MPI_Aint al = 1;
    for (size_t k = 0; k < t->nsig; k++) {
        MPI_Aint a = basic_align(t->sig[k].type);
        if (a > al)
            al = a;
    }
    return al;
}

int PMPI_Type_create_struct(int count, const int bls[], const MPI_Aint disps[],
                            const MPI_Datatype types[], MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_struct";
    SM_TRY(sm_check_init(fn));
    SM_TRY(check_count(count, fn));
    SM_TRY(check_out(newtype, fn));
    if (count > 0 && (!bls || !disps || !types))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL array");
    struct builder B = { 0 };
    for (int i = 0; i < count; i++) {
        SM_TRY(sm_check_dt(MPI_COMM_WORLD, types[i], fn));
        SM_TRY(check_count(bls[i], fn));
        add_child(&B, types[i], disps[i], (size_t)bls[i]);
    }
    int *ints = sm_xmalloc(sizeof(int) * ((size_t)count + 1));
    ints[0] = count;
    for (int i = 0; i < count; i++)
        ints[i + 1] = bls[i];
    *newtype = finish(&B, MPI_COMBINER_STRUCT, count + 1, ints, count, disps, count, types);
    free(ints);
    /* the standard's epsilon: without explicit MPI_LB / MPI_UB markers the extent is rounded
     * up to the strictest alignment of the types inside, as a C compiler pads a struct (so
     * count > 1 steps over an array of structs correctly) */
    if (!B.xlb_set && !B.xub_set) {
        MPI_Aint al = 1;
        for (int i = 0; i < count; i++) {
            MPI_Aint a = bls[i] > 0 ? type_align(types[i]) : 1;
            if (a > al)
                al = a;
        }
        MPI_Aint rem = (*newtype)->extent % al;
        if (rem)
            (*newtype)->extent += al - rem;
    }
    return MPI_SUCCESS;
}

int PMPI_Type_create_resized(MPI_Datatype old, MPI_Aint lb, MPI_Aint extent,
                             MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_resized";
    SM_TRY(check_old(old, fn));
    SM_TRY(check_out(newtype, fn));
    struct builder B = { 0 };
    add_child(&B, old, 0, 1);
    MPI_Aint a[2] = { lb, extent };
    MPI_Datatype d = finish(&B, MPI_COMBINER_RESIZED, 0, NULL, 2, a, 1, &old);
    d->lb = lb;
    d->extent = extent;
    *newtype = d;
    return MPI_SUCCESS;
}

int PMPI_Type_dup(MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_dup";
    SM_TRY(check_old(old, fn));
    SM_TRY(check_out(newtype, fn));
    struct builder B = { 0 };
    add_child(&B, old, 0, 1);
    MPI_Datatype d = finish(&B, MPI_COMBINER_DUP, 0, NULL, 0, NULL, 1, &old);
    d->lb = old->lb;
    d->extent = old->extent;
    d->committed = old->basic || old->committed;
    int rc = sm_type_attr_copy_all(old, d);
    if (rc) { /* a copy callback failed: no new type */
        sm_dt_release(d);
        return sm_error(MPI_COMM_WORLD, rc, fn, "attribute copy callback failed");
    }
    *newtype = d;
    return MPI_SUCCESS;
}

/* subarray and darray: one element per index tuple, typemap in array order */
static void array_elems(struct builder *B, int nd, const int *gsizes, int *const *idx,
                        const int *nidx, int order, MPI_Datatype old)
{
    int pos[32] = { 0 };
    for (int d = 0; d < nd; d++)
        if (!nidx[d])
            return;
    for (;;) {
        MPI_Aint off = 0;
        if (order == MPI_ORDER_C)
            for (int d = 0; d < nd; d++)
                off = off * gsizes[d] + idx[d][pos[d]];
        else
            for (int d = nd - 1; d >= 0; d--)
                off = off * gsizes[d] + idx[d][pos[d]];
        add_child(B, old, off * old->extent, 1);
        /* next tuple: fastest dimension last (C) or first (Fortran) */
        int d;
        if (order == MPI_ORDER_C) {
            for (d = nd - 1; d >= 0; d--) {
                if (++pos[d] < nidx[d])
                    break;
                pos[d] = 0;
            }
            if (d < 0)
                return;
        } else {
            for (d = 0; d < nd; d++) {
                if (++pos[d] < nidx[d])
                    break;
                pos[d] = 0;
            }
            if (d == nd)
                return;
        }
    }
}

static MPI_Datatype array_finish(struct builder *B, int nd, const int *gsizes, MPI_Datatype old,
                                 int combiner, int ni, const int *ints)
{
    MPI_Aint total = old->extent;
    for (int d = 0; d < nd; d++)
        total *= gsizes[d];
    MPI_Datatype t = finish(B, combiner, ni, ints, 0, NULL, 1, &old);
    t->lb = 0;
    t->extent = total;
    return t;
}

int PMPI_Type_create_subarray(int ndims, const int sizes[], const int subsizes[],
                              const int starts[], int order, MPI_Datatype old,
                              MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_subarray";
    SM_TRY(check_old(old, fn));
    SM_TRY(check_out(newtype, fn));
    if (ndims < 1 || ndims > 32 || !sizes || !subsizes || !starts ||
        (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad dimensions or order");
    int *idx[32], nidx[32];
    for (int d = 0; d < ndims; d++) {
        if (sizes[d] < 1 || subsizes[d] < 0 || starts[d] < 0 ||
            starts[d] + subsizes[d] > sizes[d])
            return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad subarray in dimension %d", d);
        nidx[d] = subsizes[d];
        idx[d] = sm_xmalloc(sizeof(int) * ((size_t)subsizes[d] + 1));
        for (int i = 0; i < subsizes[d]; i++)
            idx[d][i] = starts[d] + i;
    }
    struct builder B = { 0 };
    array_elems(&B, ndims, sizes, idx, nidx, order, old);
    int *ints = sm_xmalloc(sizeof(int) * (3 * (size_t)ndims + 2));
    ints[0] = ndims;
    for (int d = 0; d < ndims; d++) {
        ints[1 + d] = sizes[d];
        ints[1 + ndims + d] = subsizes[d];
        ints[1 + 2 * ndims + d] = starts[d];
        free(idx[d]);
    }
    ints[1 + 3 * ndims] = order;
    *newtype = array_finish(&B, ndims, sizes, old, MPI_COMBINER_SUBARRAY, 3 * ndims + 2, ints);
    free(ints);
    return MPI_SUCCESS;
}

int PMPI_Type_create_darray(int size, int rank, int ndims, const int gsizes[],
                            const int distribs[], const int dargs[], const int psizes[],
                            int order, MPI_Datatype old, MPI_Datatype *newtype)
{
    const char *fn = "MPI_Type_create_darray";
    SM_TRY(check_old(old, fn));
    SM_TRY(check_out(newtype, fn));
    if (ndims < 1 || ndims > 32 || rank < 0 || rank >= size ||
        (order != MPI_ORDER_C && order != MPI_ORDER_FORTRAN))
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad arguments");
    int nprocs = 1;
    for (int d = 0; d < ndims; d++)
        nprocs *= psizes[d];
    if (nprocs != size)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "psizes do not multiply to size");
    /* process coordinates: row-major process grid */
    int coords[32], r = rank;
    for (int d = ndims - 1; d >= 0; d--) {
        coords[d] = r % psizes[d];
        r /= psizes[d];
    }
    int *idx[32], nidx[32];
    for (int d = 0; d < ndims; d++) {
        int g = gsizes[d], p = psizes[d], c = coords[d];
        idx[d] = sm_xmalloc(sizeof(int) * ((size_t)g + 1));
        nidx[d] = 0;
        if (distribs[d] == MPI_DISTRIBUTE_NONE) {
            for (int i = 0; i < g; i++)
                idx[d][nidx[d]++] = i;
        } else if (distribs[d] == MPI_DISTRIBUTE_BLOCK) {
            int b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : dargs[d];
            for (int i = c * b; i < (c + 1) * b && i < g; i++)
                idx[d][nidx[d]++] = i;
        } else {
            int b = dargs[d] == MPI_DISTRIBUTE_DFLT_DARG ? 1 : dargs[d];
            for (int start = c * b; start < g; start += p * b)
                for (int i = start; i < start + b && i < g; i++)
                    idx[d][nidx[d]++] = i;
        }
    }
    struct builder B = { 0 };
    array_elems(&B, ndims, gsizes, idx, nidx, order, old);
    int *ints = sm_xmalloc(sizeof(int) * (4 * (size_t)ndims + 4));
    int ni = 0;
    ints[ni++] = size;
    ints[ni++] = rank;
    ints[ni++] = ndims;
    for (int d = 0; d < ndims; d++)
        ints[ni++] = gsizes[d];
    for (int d = 0; d < ndims; d++)
        ints[ni++] = distribs[d];
    for (int d = 0; d < ndims; d++)
        ints[ni++] = dargs[d];
    for (int d = 0; d < ndims; d++)
        ints[ni++] = psizes[d];
    ints[ni++] = order;
    for (int d = 0; d < ndims; d++)
        free(idx[d]);
    *newtype = array_finish(&B, ndims, gsizes, old, MPI_COMBINER_DARRAY, ni, ints);
    free(ints);
    return MPI_SUCCESS;
}

/* deprecated MPI-1 names still used by old programs */
int PMPI_Type_hvector(int count, int bl, MPI_Aint stride, MPI_Datatype old, MPI_Datatype *nt)
{
    return PMPI_Type_create_hvector(count, bl, stride, old, nt);
}
int PMPI_Type_hindexed(int count, int bls[], MPI_Aint disps[], MPI_Datatype old, MPI_Datatype *nt)
{
    return PMPI_Type_create_hindexed(count, bls, disps, old, nt);
}
int PMPI_Type_struct(int count, int bls[], MPI_Aint disps[], MPI_Datatype types[],
                     MPI_Datatype *nt)
{
    return PMPI_Type_create_struct(count, bls, disps, types, nt);
}

int PMPI_Type_commit(MPI_Datatype *dt)
{
    SM_TRY(sm_check_init("MPI_Type_commit"));
    if (!dt)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_commit", "NULL pointer");
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, *dt, "MPI_Type_commit"));
    (*dt)->committed = 1;
    return MPI_SUCCESS;
}

int PMPI_Type_free(MPI_Datatype *dt)
{
    const char *fn = "MPI_Type_free";
    SM_TRY(sm_check_init(fn));
    if (!dt)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "NULL pointer");
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, *dt, fn));
    if ((*dt)->basic)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "%s is predefined", (*dt)->name);
    /* get_contents hands out the same object again: the last user handle invalidates it */
    if (--(*dt)->handles <= 0)
        (*dt)->valid = 0;
    sm_dt_release(*dt);
    *dt = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent(MPI_Datatype dt, MPI_Aint *lb, MPI_Aint *extent)
{
    SM_TRY(check_old(dt, "MPI_Type_get_true_extent"));
    SM_TRY(check_out(lb, "MPI_Type_get_true_extent"));
    SM_TRY(check_out(extent, "MPI_Type_get_true_extent"));
    *lb = t_lb(dt);
    *extent = dt->basic ? (MPI_Aint)dt->size : dt->true_extent;
    return MPI_SUCCESS;
}

int PMPI_Type_get_true_extent_x(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    MPI_Aint a, b;
    SM_TRY(PMPI_Type_get_true_extent(dt, &a, &b));
    *lb = a;
    *extent = b;
    return MPI_SUCCESS;
}

int PMPI_Type_get_extent_x(MPI_Datatype dt, MPI_Count *lb, MPI_Count *extent)
{
    MPI_Aint a, b;
    SM_TRY(PMPI_Type_get_extent(dt, &a, &b));
    *lb = a;
    *extent = b;
    return MPI_SUCCESS;
}

int PMPI_Type_size_x(MPI_Datatype dt, MPI_Count *size)
{
    SM_TRY(check_old(dt, "MPI_Type_size_x"));
    SM_TRY(check_out(size, "MPI_Type_size_x"));
    *size = (MPI_Count)dt->size;
    return MPI_SUCCESS;
}

int PMPI_Type_lb(MPI_Datatype dt, MPI_Aint *lb)
{
    MPI_Aint e;
    return PMPI_Type_get_extent(dt, lb, &e);
}
int PMPI_Type_ub(MPI_Datatype dt, MPI_Aint *ub)
{
    MPI_Aint lb, e;
    SM_TRY(PMPI_Type_get_extent(dt, &lb, &e));
    *ub = lb + e;
    return MPI_SUCCESS;
}
int PMPI_Type_extent(MPI_Datatype dt, MPI_Aint *extent)
{
    MPI_Aint lb;
    return PMPI_Type_get_extent(dt, &lb, extent);
}

int PMPI_Type_get_envelope(MPI_Datatype dt, int *ni, int *na, int *nt, int *combiner)
{
    SM_TRY(check_old(dt, "MPI_Type_get_envelope"));
    if (!ni || !na || !nt || !combiner)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_envelope", "NULL argument");
    /* predefined: named, or a parameterized f90 type (dt_fortran.c) with its combiner */
    int named = dt->basic && !dt->combiner;
    *ni = named ? 0 : dt->ni;
    *na = named ? 0 : dt->na;
    *nt = named ? 0 : dt->nt;
    *combiner = named ? MPI_COMBINER_NAMED : dt->combiner;
    return MPI_SUCCESS;
}

int PMPI_Type_get_contents(MPI_Datatype dt, int maxi, int maxa, int maxt, int ints[],
                           MPI_Aint aints[], MPI_Datatype types[])
{
    const char *fn = "MPI_Type_get_contents";
    SM_TRY(check_old(dt, fn));
    if (dt->basic && !dt->combiner)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_TYPE, fn, "predefined datatype has no contents");
    if (maxi < dt->ni || maxa < dt->na || maxt < dt->nt)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "output arrays too small");
    for (int i = 0; i < dt->ni; i++)
        ints[i] = dt->ints[i];
    for (int i = 0; i < dt->na; i++)
        aints[i] = dt->aints[i];
    sm_dt_hand_out(types, dt->types, dt->nt);
    return MPI_SUCCESS;
}

void sm_dt_hand_out(MPI_Datatype *out, MPI_Datatype const *types, int n)
{
    for (int i = 0; i < n; i++) {
        out[i] = types[i];
        if (out[i]->basic)
            continue;
        /* a new user handle the caller frees; the constituent may have been freed already */
        if (!out[i]->valid) {
            out[i]->valid = 1;
            out[i]->handles = 0;
        }
        out[i]->handles++;
        sm_dt_retain(out[i]);
    }
}

int PMPI_Type_set_name(MPI_Datatype dt, const char *name)
{
    SM_TRY(check_old(dt, "MPI_Type_set_name"));
    if (!name)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_set_name", "NULL name");
    /* a predefined type keeps its own name until one is set (Type_get_name) */
    snprintf(dt->uname, sizeof dt->uname, "%s", name);
    return MPI_SUCCESS;
}

int PMPI_Type_get_name(MPI_Datatype dt, char *name, int *resultlen)
{
    SM_TRY(check_old(dt, "MPI_Type_get_name"));
    if (!name || !resultlen)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_get_name", "NULL argument");
    if (dt->basic && dt->uname[0]) {
        *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "%s", dt->uname);
        return MPI_SUCCESS;
    }
    const char *n = dt->basic ? dt->name : dt->uname;
    if (dt->basic && strncmp(n, "MPI_", 4) != 0)
        *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "MPI_%s", n);
    else
        *resultlen = snprintf(name, MPI_MAX_OBJECT_NAME, "%s", n);
    for (char *p = name; dt->basic && *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    return MPI_SUCCESS;
}

int PMPI_Type_match_size(int typeclass, int size, MPI_Datatype *dt)
{
    SM_TRY(sm_check_init("MPI_Type_match_size"));
    MPI_Datatype r = MPI_DATATYPE_NULL;
    /* C types where C has one of the size (as before the Fortran types existed), else the
     * sized Fortran type (INTEGER*16) */
    if (typeclass == MPI_TYPECLASS_REAL)
        r = size == 4                          ? MPI_FLOAT
            : size == 8                        ? MPI_DOUBLE
            : size == (int)sizeof(long double) ? MPI_LONG_DOUBLE
                                               : NULL;
    else if (typeclass == MPI_TYPECLASS_INTEGER)
        r = size == 1    ? MPI_INT8_T
            : size == 2  ? MPI_INT16_T
            : size == 4  ? MPI_INT32_T
            : size == 8  ? MPI_INT64_T
            : size == 16 ? MPI_INTEGER16
                         : NULL;
    else if (typeclass == MPI_TYPECLASS_COMPLEX)
        r = size == 8                                   ? MPI_C_FLOAT_COMPLEX
            : size == 16                                ? MPI_C_DOUBLE_COMPLEX
            : size == (int)sizeof(long double _Complex) ? MPI_C_LONG_DOUBLE_COMPLEX
                                                        : NULL;
    if (!r || !dt)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_match_size",
                        "no type of class %d and size %d", typeclass, size);
    *dt = r;
    return MPI_SUCCESS;
}
