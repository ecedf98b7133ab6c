/* dt_stream.c — large non-contiguous messages (rendezvous, streamed segment by segment without
 * a whole-message pack buffer): vector, indexed, struct and contiguous layouts of 16-64 MiB as
 * send and as receive types, also mismatched but signature-equal pairs; several in flight at
 * once; a small (eager) message into a large non-contiguous receive; to self; persistent
 * requests started twice.  Every int of every
 * receive buffer is checked: data at its typed position, the untouched gaps still hold their
 * sentinel.  2 ranks: rank 0 sends, rank 1 receives, then the roles swap. */
#include "sm_test.h"

#define SENTINEL (-7)

/* one element of a layout: blocks of ints (disp, len) within an extent, all in ints */
struct layout {
    const char *name;
    MPI_Datatype type;
    int count;      /* elements sent/received */
    int per;        /* data ints per element */
    long extent;    /* ints per element */
    int *map;       /* position (in ints) of each data int within its element */
};

static int value(long j, int seed) { return (int)((uint32_t)j * 2654435761u + (uint32_t)seed); }

static void set_map(struct layout *l, int nb, const int *disp, const int *len)
{
    l->per = 0;
    for (int b = 0; b < nb; b++)
        l->per += len[b];
    l->map = malloc(sizeof(int) * (size_t)l->per);
    SM_CHECK(l->map, "out of memory");
    int k = 0;
    for (int b = 0; b < nb; b++)
        for (int i = 0; i < len[b]; i++)
            l->map[k++] = disp[b] + i;
}

/* total data ints: the same for both sides of a pair */
static struct layout contig(long nints)
{
    struct layout l = {"contiguous", MPI_INT, (int)nints, 1, 1, NULL};
    int d = 0, n = 1;
    set_map(&l, 1, &d, &n);
    return l;
}

/* count elements of a vector of nbv blocks of bl ints, stride st ints */
static struct layout vector(long nints, int nbv, int bl, int st)
{
    struct layout l = {"vector", MPI_DATATYPE_NULL, 0, 0, 0, NULL};
    SM_CHECK(nints % ((long)nbv * bl) == 0, "bad vector shape");
    l.count = (int)(nints / ((long)nbv * bl));
    MPI_Type_vector(nbv, bl, st, MPI_INT, &l.type);
    MPI_Type_commit(&l.type);
    l.extent = (long)(nbv - 1) * st + bl;
    int *disp = malloc(sizeof(int) * (size_t)nbv), *len = malloc(sizeof(int) * (size_t)nbv);
    SM_CHECK(disp && len, "out of memory");
    for (int b = 0; b < nbv; b++) {
        disp[b] = b * st;
        len[b] = bl;
    }
    set_map(&l, nbv, disp, len);
    free(disp);
    free(len);
    return l;
}

/* irregular blocks: 1,3,2,7,5 ints at 0,2,8,12,25 (extent 30) */
static struct layout indexed(long nints)
{
    static const int disp[] = {0, 2, 8, 12, 25}, len[] = {1, 3, 2, 7, 5};
    struct layout l = {"indexed", MPI_DATATYPE_NULL, 0, 0, 30, NULL};
    set_map(&l, 5, disp, len);
    SM_CHECK(nints % l.per == 0, "bad indexed shape");
    l.count = (int)(nints / l.per);
    MPI_Type_indexed(5, len, disp, MPI_INT, &l.type);
    MPI_Type_commit(&l.type);
    return l;
}

/* a struct of int blocks 2,1,3 at ints 1,4,6, resized to an extent of 12 ints */
static struct layout structure(long nints)
{
    static const int disp[] = {1, 4, 6}, len[] = {2, 1, 3};
    struct layout l = {"struct", MPI_DATATYPE_NULL, 0, 0, 12, NULL};
    set_map(&l, 3, disp, len);
    SM_CHECK(nints % l.per == 0, "bad struct shape");
    l.count = (int)(nints / l.per);
    MPI_Aint bd[3];
    MPI_Datatype ty[3] = {MPI_INT, MPI_INT, MPI_INT};
    for (int b = 0; b < 3; b++)
        bd[b] = (MPI_Aint)disp[b] * (MPI_Aint)sizeof(int);
    MPI_Datatype t;
    MPI_Type_create_struct(3, len, bd, ty, &t);
    MPI_Type_create_resized(t, 0, 12 * (MPI_Aint)sizeof(int), &l.type);
    MPI_Type_free(&t);
    MPI_Type_commit(&l.type);
    return l;
}

static void drop(struct layout *l)
{
    if (l->type != MPI_INT)
        MPI_Type_free(&l->type);
    free(l->map);
}

static int *alloc_filled(const struct layout *l)
{
    size_t n = (size_t)l->count * (size_t)l->extent;
    int *b = malloc(n * sizeof(int));
    SM_CHECK(b, "out of memory (%zu ints)", n);
    for (size_t i = 0; i < n; i++)
        b[i] = SENTINEL;
    return b;
}

static void fill(int *b, const struct layout *l, long nints, int seed)
{
    for (long j = 0; j < nints; j++)
        b[(long)(j / l->per) * l->extent + l->map[j % l->per]] = value(j, seed);
}

/* every data int in place, then every int of the buffer (gaps included) is the sentinel */
static void verify(int *b, const struct layout *l, long nints, int seed, const char *what)
{
    for (long j = 0; j < nints; j++) {
        long at = (long)(j / l->per) * l->extent + l->map[j % l->per];
        SM_CHECK(b[at] == value(j, seed), "%s: data int %ld (at %ld) is %d, want %d", what, j,
                 at, b[at], value(j, seed));
        b[at] = SENTINEL;
    }
    size_t n = (size_t)l->count * (size_t)l->extent;
    for (size_t i = 0; i < n; i++)
        SM_CHECK(b[i] == SENTINEL, "%s: int %zu outside the data was written (%d)", what, i,
                 b[i]);
}

/* one message of nints ints from `from` to the other rank, sent as s, received as r */
static void pair(struct layout s, struct layout r, long nints, int from, int seed)
{
    char what[128];
    snprintf(what, sizeof what, "%s -> %s, %ld MiB, from rank %d", s.name, r.name,
             nints * (long)sizeof(int) >> 20, from);
    if (sm_rank == from) {
        int *b = alloc_filled(&s);
        fill(b, &s, nints, seed);
        MPI_Send(b, s.count, s.type, 1 - from, seed, MPI_COMM_WORLD);
        free(b);
    } else {
        int *b = alloc_filled(&r);
        MPI_Status st;
        MPI_Recv(b, r.count, r.type, from, seed, MPI_COMM_WORLD, &st);
        int got;
        MPI_Get_count(&st, MPI_INT, &got);
        SM_CHECK(got == nints, "%s: received %d ints, want %ld", what, got, nints);
        verify(b, &r, nints, seed, what);
        free(b);
    }
    drop(&s);
    drop(&r);
}

/* two streamed messages in flight at once each way (Isend/Irecv), different layouts */
static void concurrent(long nints, int seed)
{
    struct layout a = vector(nints, 64, 3, 5), b = indexed(nints);
    int *sa = alloc_filled(&a), *sb = alloc_filled(&b), *ra = alloc_filled(&a),
        *rb = alloc_filled(&b);
    fill(sa, &a, nints, seed);
    fill(sb, &b, nints, seed + 1);
    int peer = 1 - sm_rank;
    MPI_Request q[4];
    MPI_Irecv(ra, a.count, a.type, peer, 1, MPI_COMM_WORLD, &q[0]);
    MPI_Irecv(rb, b.count, b.type, peer, 2, MPI_COMM_WORLD, &q[1]);
    MPI_Isend(sb, b.count, b.type, peer, 2, MPI_COMM_WORLD, &q[2]);
    MPI_Isend(sa, a.count, a.type, peer, 1, MPI_COMM_WORLD, &q[3]);
    MPI_Waitall(4, q, MPI_STATUSES_IGNORE);
    verify(ra, &a, nints, seed, "concurrent vector");
    verify(rb, &b, nints, seed + 1, "concurrent indexed");
    free(sa);
    free(sb);
    free(ra);
    free(rb);
    drop(&a);
    drop(&b);
}

/* a message below the eager limit into a receive whose capacity is far above it */
static void small_into_large(int from, int seed)
{
    long nints = 1000, cap = 3L << 20; /* 12 MiB of capacity */
    struct layout s = contig(nints), r = vector(cap, 1024, 3, 7);
    if (sm_rank == from) {
        int *b = alloc_filled(&s);
        fill(b, &s, nints, seed);
        MPI_Send(b, (int)nints, MPI_INT, 1 - from, seed, MPI_COMM_WORLD);
        free(b);
    } else {
        int *b = alloc_filled(&r);
        MPI_Status st;
        MPI_Recv(b, r.count, r.type, from, seed, MPI_COMM_WORLD, &st);
        int got;
        MPI_Get_count(&st, MPI_INT, &got);
        SM_CHECK(got == nints, "small into large: received %d ints, want %ld", got, nints);
        verify(b, &r, nints, seed, "small into large");
        free(b);
    }
    drop(&s);
    drop(&r);
}

/* each rank to itself (the engine's self path), vector sent, indexed received */
static void to_self(long nints, int seed)
{
    struct layout s = vector(nints, 256, 3, 5), r = indexed(nints);
    int *sb = alloc_filled(&s), *rb = alloc_filled(&r);
    fill(sb, &s, nints, seed + sm_rank);
    MPI_Sendrecv(sb, s.count, s.type, sm_rank, 5, rb, r.count, r.type, sm_rank, 5,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    verify(rb, &r, nints, seed + sm_rank, "to self");
    free(sb);
    free(rb);
    drop(&s);
    drop(&r);
}

/* persistent requests started twice, struct sent, vector received, rank 0 to rank 1 */
static void persistent(long nints, int seed)
{
    struct layout s = structure(nints), r = vector(nints, 256, 3, 5);
    int *b = alloc_filled(sm_rank == 0 ? &s : &r);
    MPI_Request q;
    if (sm_rank == 0)
        MPI_Send_init(b, s.count, s.type, 1, 6, MPI_COMM_WORLD, &q);
    else
        MPI_Recv_init(b, r.count, r.type, 0, 6, MPI_COMM_WORLD, &q);
    for (int round = 0; round < 2; round++) {
        if (sm_rank == 0)
            fill(b, &s, nints, seed + round);
        MPI_Start(&q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        if (sm_rank == 1)
            verify(b, &r, nints, seed + round, "persistent");
    }
    MPI_Request_free(&q);
    free(b);
    drop(&s);
    drop(&r);
}

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    SM_CHECK(sm_size == 2, "run with 2 ranks");
    /* 16 MiB of ints, rounded down to a multiple of every element size below (2304) */
    const long n16 = (4L << 20) - (4L << 20) % 2304, mib16 = 4L << 20, mib64 = 16L << 20;
    for (int from = 0; from < 2; from++) {
        int s = 100 * from;
        pair(vector(n16, 256, 3, 5), contig(n16), n16, from, s + 1);
        pair(contig(n16), vector(n16, 256, 3, 5), n16, from, s + 2);
        pair(indexed(n16), structure(n16), n16, from, s + 3);
        pair(structure(n16), indexed(n16), n16, from, s + 4);
        pair(indexed(n16), vector(n16, 256, 3, 5), n16, from, s + 5);
        /* one element whose block list is 2M blocks long */
        pair(vector(mib16, 1 << 21, 2, 3), contig(mib16), mib16, from, s + 6);
        pair(contig(mib16), vector(mib16, 1 << 21, 2, 3), mib16, from, s + 7);
        small_into_large(from, s + 8);
    }
    pair(vector(mib64, 512, 1, 2), vector(mib64, 64, 8, 9), mib64, 0, 7);
    concurrent(n16, 9);
    to_self(n16, 11);
    persistent(n16, 13);
    sm_finish();
    return 0;
}
