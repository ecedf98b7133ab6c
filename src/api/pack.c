/* pack.c — moving typed data: packing and unpacking derived-type buffers (the flattened block
 * lists of dtype.c), local typed copies, temporary buffers for a type, element counts,
 * MPI_Pack/Unpack/Pack_size and the "external32" forms (big-endian). */
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

int sm_dt_contig(MPI_Datatype dt, int count, MPI_Aint *off)
{
    *off = 0;
    if (dt->basic || dt->nblocks == 0)
        return 1;
    if (dt->nblocks == 1 && (count <= 1 || (MPI_Aint)dt->blocks[0].len == dt->extent)) {
        *off = dt->blocks[0].disp;
        return 1;
    }
    return 0;
}

void sm_dt_pack(const void *buf, int count, MPI_Datatype dt, void *out)
{
    char *o = out;
    MPI_Aint off;
    if (sm_dt_contig(dt, count, &off)) {
        size_t n = sm_dt_psize(dt) * (size_t)count;
        if (n)
            memcpy(o, (const char *)buf + off, n);
        return;
    }
    for (int i = 0; i < count; i++) {
        const char *base = (const char *)buf + (MPI_Aint)i * dt->extent;
        for (size_t k = 0; k < dt->nblocks; k++) {
            memcpy(o, base + dt->blocks[k].disp, dt->blocks[k].len);
            o += dt->blocks[k].len;
        }
    }
}

void sm_dt_unpack(const void *in, size_t bytes, void *buf, int count, MPI_Datatype dt)
{
    const char *p = in;
    MPI_Aint off;
    if (sm_dt_contig(dt, count, &off)) {
        size_t n = sm_dt_psize(dt) * (size_t)count;
        if (bytes < n)
            n = bytes;
        if (n)
            memcpy((char *)buf + off, p, n);
        return;
    }
    for (int i = 0; i < count && bytes; i++) {
        char *base = (char *)buf + (MPI_Aint)i * dt->extent;
        for (size_t k = 0; k < dt->nblocks && bytes; k++) {
            size_t n = dt->blocks[k].len < bytes ? dt->blocks[k].len : bytes;
            memcpy(base + dt->blocks[k].disp, p, n);
            p += n;
            bytes -= n;
        }
    }
}

/* packed offset (within one element) of blocks 0, SM_DT_MARK, 2 x SM_DT_MARK, ...: built on
 * first use, 1/(2 x SM_DT_MARK) of the size of the block list */
#define SM_DT_MARK 1024
static const size_t *block_marks(MPI_Datatype dt)
{
    if (!dt->block_mark) {
        size_t nmarks = (dt->nblocks + SM_DT_MARK - 1) / SM_DT_MARK;
        dt->block_mark = sm_xmalloc(sizeof *dt->block_mark * (nmarks ? nmarks : 1));
        size_t sum = 0;
        for (size_t k = 0; k < dt->nblocks; k++) {
            if (k % SM_DT_MARK == 0)
                dt->block_mark[k / SM_DT_MARK] = sum;
            sum += dt->blocks[k].len;
        }
    }
    return dt->block_mark;
}

/* copy packed bytes [off, off + n) between packed and the typed buffer user (to_user: unpack);
 * the starting block is found by binary search over the marks, then at most SM_DT_MARK steps */
static void range_copy(char *user, int count, MPI_Datatype dt, size_t off, size_t n, char *packed,
                       int to_user)
{
    MPI_Aint coff;
    if (sm_dt_contig(dt, count, &coff)) {
        if (to_user)
            memcpy(user + coff + off, packed, n);
        else
            memcpy(packed, user + coff + off, n);
        return;
    }
    size_t ps = dt->psize;
    if (!ps || !n)
        return;
    const size_t *mark = block_marks(dt);
    size_t i = off / ps, within_elem = off % ps;
    size_t lo = 0, hi = (dt->nblocks - 1) / SM_DT_MARK; /* last mark at or before within_elem */
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (mark[mid] <= within_elem)
            lo = mid;
        else
            hi = mid - 1;
    }
    size_t k = lo * SM_DT_MARK, start = mark[lo];
    while (k + 1 < dt->nblocks && start + dt->blocks[k].len <= within_elem)
        start += dt->blocks[k++].len;
    size_t within = within_elem - start;
    while (n && i < (size_t)count) {
        char *at = user + (MPI_Aint)i * dt->extent + dt->blocks[k].disp + within;
        size_t c = dt->blocks[k].len - within < n ? dt->blocks[k].len - within : n;
        if (to_user)
            memcpy(at, packed, c);
        else
            memcpy(packed, at, c);
        packed += c;
        n -= c;
        within = 0;
        if (++k == dt->nblocks) {
            k = 0;
            i++;
        }
    }
}

void sm_dt_pack_range(const void *buf, int count, MPI_Datatype dt, size_t off, size_t n,
                      void *out)
{
    range_copy((char *)buf, count, dt, off, n, out, 0);
}

void sm_dt_unpack_range(const void *in, size_t off, size_t n, void *buf, int count,
                        MPI_Datatype dt)
{
    range_copy(buf, count, dt, off, n, (char *)in, 1);
}

void sm_dt_copy(const void *src, int scount, MPI_Datatype st, void *dst, int rcount,
                MPI_Datatype rt)
{
    size_t sn = sm_dt_psize(st) * (size_t)scount, rn = sm_dt_psize(rt) * (size_t)rcount;
    size_t n = sn < rn ? sn : rn;
    MPI_Aint so, ro;
    if (!n)
        return;
    int sc = sm_dt_contig(st, scount, &so), rc = sm_dt_contig(rt, rcount, &ro);
    if (sc && rc) {
        memmove((char *)dst + ro, (const char *)src + so, n);
        return;
    }
    if (sc) {
        sm_dt_unpack((const char *)src + so, n, dst, rcount, rt);
        return;
    }
    char *tmp = sm_xmalloc(sn);
    sm_dt_pack(src, scount, st, tmp);
    sm_dt_unpack(tmp, n, dst, rcount, rt);
    free(tmp);
}

void *sm_dt_tmp(int count, MPI_Datatype dt, void **base)
{
    MPI_Aint tlb = dt->basic ? 0 : dt->true_lb;
    MPI_Aint text = dt->basic ? dt->extent : dt->true_extent;
    MPI_Aint ext = dt->extent < 0 ? -dt->extent : dt->extent;
    size_t n = count > 0 ? (size_t)(text + (MPI_Aint)(count - 1) * ext) : 0;
    char *b = sm_xmalloc(n ? n : 1);
    *base = b;
    MPI_Aint shift = -tlb;
    if (dt->extent < 0 && count > 0)
        shift += (MPI_Aint)(count - 1) * ext;
    return b + shift;
}

/* basic elements in one predefined leaf: two for the pair types (MPI_DOUBLE_INT, ...), whose
 * first member takes *first bytes; one for every other predefined type */
static int leaf_parts(MPI_Datatype t, size_t *first)
{
    *first = 0;
    if (t == MPI_FLOAT_INT)
        *first = sizeof(float);
    else if (t == MPI_DOUBLE_INT)
        *first = sizeof(double);
    else if (t == MPI_LONG_INT)
        *first = sizeof(long);
    else if (t == MPI_2INT)
        *first = sizeof(int);
    else if (t == MPI_SHORT_INT)
        *first = sizeof(short);
    else if (t == MPI_LONG_DOUBLE_INT)
        *first = sizeof(long double);
    return *first ? 2 : 1;
}

/* basic elements in `left` packed bytes of at most max leaves of type t; *left keeps the bytes
 * of a partial leaf; *whole says whether every leaf was complete */
static MPI_Count leaf_elements(MPI_Datatype t, size_t max, size_t *left, int *whole)
{
    size_t first, e = (size_t)t->extent;
    int parts = leaf_parts(t, &first);
    size_t n = e ? *left / e : max;
    if (n > max)
        n = max;
    *left -= n * e;
    MPI_Count c = (MPI_Count)n * parts;
    *whole = n == max;
    if (!*whole && parts == 2 && *left >= first)
        c++;
    return c;
}

/* basic elements (a pair type's element counts two) in `bytes` packed bytes of dt */
MPI_Count sm_dt_elements(MPI_Datatype dt, size_t bytes)
{
    int whole;
    if (dt->basic)
        return dt->extent ? leaf_elements(dt, bytes / (size_t)dt->extent + 1, &bytes, &whole) : 0;
    size_t ps = dt->psize;
    if (!ps)
        return 0;
    MPI_Count per = 0;
    for (size_t k = 0; k < dt->nsig; k++) {
        size_t first;
        per += (MPI_Count)dt->sig[k].count * leaf_parts(dt->sig[k].type, &first);
    }
    MPI_Count n = (MPI_Count)(bytes / ps) * per;
    size_t rest = bytes % ps;
    for (size_t k = 0; k < dt->nsig && rest; k++) {
        n += leaf_elements(dt->sig[k].type, dt->sig[k].count, &rest, &whole);
        if (!whole)
            break;
    }
    return n;
}

/* the inverse: packed bytes holding the first `count` basic elements of a run of dt's */
size_t sm_dt_elements_bytes(MPI_Datatype dt, MPI_Count count)
{
    size_t first;
    if (dt->basic) {
        int parts = leaf_parts(dt, &first);
        return (size_t)(count / parts) * (size_t)dt->extent + (count % parts ? first : 0);
    }
    MPI_Count per = 0;
    for (size_t k = 0; k < dt->nsig; k++)
        per += (MPI_Count)dt->sig[k].count * leaf_parts(dt->sig[k].type, &first);
    size_t bytes = per ? (size_t)(count / per) * dt->psize : 0;
    MPI_Count rest = per ? count % per : 0;
    for (size_t k = 0; k < dt->nsig && rest > 0; k++) {
        MPI_Datatype t = dt->sig[k].type;
        MPI_Count in_run = (MPI_Count)dt->sig[k].count * leaf_parts(t, &first);
        MPI_Count take = rest < in_run ? rest : in_run;
        bytes += sm_dt_elements_bytes(t, take);
        rest -= take;
    }
    return bytes;
}

/* ---- MPI_Pack family --------------------------------------------------------------------- */
int PMPI_Pack_size(int incount, MPI_Datatype dt, MPI_Comm comm, int *size)
{
    SM_TRY(sm_check_comm(comm, "MPI_Pack_size"));
    SM_TRY(sm_check_dt(comm, dt, "MPI_Pack_size"));
    if (incount < 0 || !size)
        return sm_error(comm, MPI_ERR_ARG, "MPI_Pack_size", "bad count or NULL size");
    *size = (int)(sm_dt_psize(dt) * (size_t)incount);
    return MPI_SUCCESS;
}

int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype dt, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    const char *fn = "MPI_Pack";
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(sm_check_buffer(comm, inbuf, incount, dt, fn));
    if (!position || *position < 0)
        return sm_error(comm, MPI_ERR_ARG, fn, "bad position");
    size_t n = sm_dt_psize(dt) * (size_t)incount;
    if ((size_t)*position + n > (size_t)(outsize < 0 ? 0 : outsize))
        return sm_error(comm, MPI_ERR_TRUNCATE, fn, "%zu bytes do not fit at position %d of %d",
                        n, *position, outsize);
    sm_dt_pack(inbuf, incount, dt, (char *)outbuf + *position);
    *position += (int)n;
    return MPI_SUCCESS;
}

int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype dt, MPI_Comm comm)
{
    const char *fn = "MPI_Unpack";
    SM_TRY(sm_check_comm(comm, fn));
    SM_TRY(sm_check_buffer(comm, outbuf, outcount, dt, fn));
    if (!position || *position < 0)
        return sm_error(comm, MPI_ERR_ARG, fn, "bad position");
    size_t n = sm_dt_psize(dt) * (size_t)outcount;
    if ((size_t)*position + n > (size_t)(insize < 0 ? 0 : insize))
        return sm_error(comm, MPI_ERR_TRUNCATE, fn,
                        "%zu bytes are not there at position %d of %d", n, *position, insize);
    sm_dt_unpack((const char *)inbuf + *position, n, outbuf, outcount, dt);
    *position += (int)n;
    return MPI_SUCCESS;
}

/* ---- external32 (MPI-3.1 13.5.2): every predefined leaf in its external size, big-endian,
 * fields of pair and complex types one after the other without padding.  Data is first packed
 * natively (each leaf as its extent), then converted leaf by leaf. ---- */

/* one field of a leaf: at native offset noff, nsize bytes there, esize bytes in external32;
 * kind 'i' signed integer, 'u' unsigned integer or plain bytes, 'L' x87 long double stored as
 * IEEE binary128 */
struct ext_field {
    unsigned char noff, nsize, esize;
    char kind;
};

static const struct ext_leaf {
    MPI_Datatype t;
    int n;
    struct ext_field f[2];
} ext_leaves[] = {
    { MPI_LONG, 1, { { 0, sizeof(long), 4, 'i' } } },
    { MPI_UNSIGNED_LONG, 1, { { 0, sizeof(long), 4, 'u' } } },
    { MPI_LONG_DOUBLE, 1, { { 0, 16, 16, 'L' } } },
    { MPI_C_LONG_DOUBLE_COMPLEX, 2, { { 0, 16, 16, 'L' }, { 16, 16, 16, 'L' } } },
    { MPI_CXX_LONG_DOUBLE_COMPLEX, 2, { { 0, 16, 16, 'L' }, { 16, 16, 16, 'L' } } },
    { MPI_C_FLOAT_COMPLEX, 2, { { 0, 4, 4, 'u' }, { 4, 4, 4, 'u' } } },
    { MPI_CXX_FLOAT_COMPLEX, 2, { { 0, 4, 4, 'u' }, { 4, 4, 4, 'u' } } },
    { MPI_COMPLEX, 2, { { 0, 4, 4, 'u' }, { 4, 4, 4, 'u' } } },
    { MPI_COMPLEX8, 2, { { 0, 4, 4, 'u' }, { 4, 4, 4, 'u' } } },
    { MPI_C_DOUBLE_COMPLEX, 2, { { 0, 8, 8, 'u' }, { 8, 8, 8, 'u' } } },
    { MPI_CXX_DOUBLE_COMPLEX, 2, { { 0, 8, 8, 'u' }, { 8, 8, 8, 'u' } } },
    { MPI_DOUBLE_COMPLEX, 2, { { 0, 8, 8, 'u' }, { 8, 8, 8, 'u' } } },
    { MPI_COMPLEX16, 2, { { 0, 8, 8, 'u' }, { 8, 8, 8, 'u' } } },
    { MPI_COMPLEX32, 2, { { 0, 16, 16, 'u' }, { 16, 16, 16, 'u' } } },
    { MPI_FLOAT_INT, 2, { { 0, 4, 4, 'u' }, { 4, 4, 4, 'i' } } },
    { MPI_DOUBLE_INT, 2, { { 0, 8, 8, 'u' }, { 8, 4, 4, 'i' } } },
    { MPI_LONG_INT, 2, { { 0, sizeof(long), 4, 'i' }, { sizeof(long), 4, 4, 'i' } } },
    { MPI_2INT, 2, { { 0, 4, 4, 'i' }, { 4, 4, 4, 'i' } } },
    { MPI_SHORT_INT, 2, { { 0, 2, 2, 'i' }, { 4, 4, 4, 'i' } } },
    { MPI_LONG_DOUBLE_INT, 2, { { 0, 16, 16, 'L' }, { 16, 4, 4, 'i' } } },
    { MPI_2INTEGER, 2, { { 0, 4, 4, 'i' }, { 4, 4, 4, 'i' } } },
    { MPI_2REAL, 2, { { 0, 4, 4, 'u' }, { 4, 4, 4, 'u' } } },
    { MPI_2DOUBLE_PRECISION, 2, { { 0, 8, 8, 'u' }, { 8, 8, 8, 'u' } } },
};

/* the fields of leaf t (a plain leaf: one field of its extent) */
static const struct ext_field *ext_fields(MPI_Datatype t, int *n, struct ext_field *one)
{
    for (size_t i = 0; i < sizeof ext_leaves / sizeof ext_leaves[0]; i++)
        if (ext_leaves[i].t == t) {
            *n = ext_leaves[i].n;
            return ext_leaves[i].f;
        }
    *one = (struct ext_field){ 0, (unsigned char)t->extent, (unsigned char)t->extent, 'u' };
    *n = 1;
    return one;
}

static size_t ext_leaf_size(MPI_Datatype t)
{
    int n;
    struct ext_field one;
    const struct ext_field *f = ext_fields(t, &n, &one);
    size_t sz = 0;
    for (int i = 0; i < n; i++)
        sz += f[i].esize;
    return sz;
}

/* external32 bytes of one element of dt */
static size_t ext_size(MPI_Datatype dt)
{
    if (dt->basic)
        return ext_leaf_size(dt);
    size_t sz = 0;
    for (size_t k = 0; k < dt->nsig; k++)
        sz += dt->sig[k].count * ext_leaf_size(dt->sig[k].type);
    return sz;
}

static int little_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* bytes in memory order <-> big-endian */
static void copy_be(unsigned char *dst, const unsigned char *src, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = little_endian() ? src[n - 1 - i] : src[i];
}

static void field_to_ext(const unsigned char *nat, const struct ext_field *f, unsigned char *ext)
{
    if (f->kind == 'L') {
#ifdef __SIZEOF_FLOAT128__
        long double x;
        memcpy(&x, nat, sizeof x);
        __extension__ __float128 q = (__float128)x;
        copy_be(ext, (const unsigned char *)&q, 16);
#else
        copy_be(ext, nat, 16);
#endif
        return;
    }
    if (f->esize == f->nsize) {
        copy_be(ext, nat, f->nsize);
        return;
    }
    /* a narrower integer: the low-order bytes (values that do not fit are cut, as MPI allows) */
    unsigned char be[16];
    copy_be(be, nat, f->nsize);
    memcpy(ext, be + (f->nsize - f->esize), f->esize);
}

static void field_from_ext(const unsigned char *ext, const struct ext_field *f,
                           unsigned char *nat)
{
    if (f->kind == 'L') {
#ifdef __SIZEOF_FLOAT128__
        __extension__ __float128 q;
        copy_be((unsigned char *)&q, ext, 16);
        long double x = (long double)q;
        memset(nat, 0, f->nsize);
        memcpy(nat, &x, sizeof x < f->nsize ? sizeof x : f->nsize);
#else
        copy_be(nat, ext, 16);
#endif
        return;
    }
    if (f->esize == f->nsize) {
        copy_be(nat, ext, f->nsize);
        return;
    }
    /* widen: sign-extend signed integers, zero-extend the others */
    unsigned char be[16];
    unsigned char fill = (f->kind == 'i' && (ext[0] & 0x80)) ? 0xff : 0;
    memset(be, fill, f->nsize - f->esize);
    memcpy(be + (f->nsize - f->esize), ext, f->esize);
    copy_be(nat, be, f->nsize);
}

/* convert count elements of dt between the native packed form and external32 */
static void ext_convert(unsigned char *nat, unsigned char *ext, int count, MPI_Datatype dt,
                        int to_ext)
{
    for (int i = 0; i < count; i++) {
        size_t nk = dt->basic ? 1 : dt->nsig;
        for (size_t k = 0; k < nk; k++) {
            MPI_Datatype t = dt->basic ? dt : dt->sig[k].type;
            size_t reps = dt->basic ? 1 : dt->sig[k].count;
            int n;
            struct ext_field one;
            const struct ext_field *f = ext_fields(t, &n, &one);
            for (size_t j = 0; j < reps; j++) {
                for (int q = 0; q < n; q++) {
                    if (to_ext)
                        field_to_ext(nat + f[q].noff, &f[q], ext);
                    else
                        field_from_ext(ext, &f[q], nat + f[q].noff);
                    ext += f[q].esize;
                }
                nat += (size_t)t->extent;
            }
        }
    }
}

static int check_rep(const char *datarep, const char *fn)
{
    if (!datarep || strcmp(datarep, "external32") != 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_UNSUPPORTED_DATAREP, fn,
                        "only \"external32\" is supported");
    return MPI_SUCCESS;
}

int PMPI_Pack_external_size(const char *datarep, int incount, MPI_Datatype dt, MPI_Aint *size)
{
    const char *fn = "MPI_Pack_external_size";
    SM_TRY(sm_check_init(fn));
    SM_TRY(check_rep(datarep, fn));
    SM_TRY(sm_check_dt(MPI_COMM_WORLD, dt, fn));
    if (incount < 0 || !size)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad count or NULL size");
    *size = (MPI_Aint)(ext_size(dt) * (size_t)incount);
    return MPI_SUCCESS;
}

int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount, MPI_Datatype dt,
                       void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    const char *fn = "MPI_Pack_external";
    SM_TRY(sm_check_init(fn));
    SM_TRY(check_rep(datarep, fn));
    SM_TRY(sm_check_buffer(MPI_COMM_WORLD, inbuf, incount, dt, fn));
    if (!position || *position < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad position");
    size_t n = ext_size(dt) * (size_t)incount, native = sm_dt_psize(dt) * (size_t)incount;
    if (*position + (MPI_Aint)n > outsize)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, fn, "output buffer too small");
    unsigned char *tmp = sm_xmalloc(native ? native : 1);
    sm_dt_pack(inbuf, incount, dt, tmp);
    ext_convert(tmp, (unsigned char *)outbuf + *position, incount, dt, 1);
    free(tmp);
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}

int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype dt)
{
    const char *fn = "MPI_Unpack_external";
    SM_TRY(sm_check_init(fn));
    SM_TRY(check_rep(datarep, fn));
    SM_TRY(sm_check_buffer(MPI_COMM_WORLD, outbuf, outcount, dt, fn));
    if (!position || *position < 0)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "bad position");
    size_t n = ext_size(dt) * (size_t)outcount, native = sm_dt_psize(dt) * (size_t)outcount;
    if (*position + (MPI_Aint)n > insize)
        return sm_error(MPI_COMM_WORLD, MPI_ERR_TRUNCATE, fn, "input buffer too small");
    unsigned char *tmp = sm_xcalloc(native ? native : 1, 1);
    ext_convert(tmp, (unsigned char *)inbuf + *position, outcount, dt, 0);
    sm_dt_unpack(tmp, native, outbuf, outcount, dt);
    free(tmp);
    *position += (MPI_Aint)n;
    return MPI_SUCCESS;
}
