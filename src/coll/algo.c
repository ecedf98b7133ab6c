/* coll_algo.c — the size-selected algorithms of the blocking collectives and their tunables
 * (SCTPMPI_COLL_*, read once): Bruck allgather, large-message Bcast (scatter + ring allgather,
 * van de Geijn), Bruck alltoall for small blocks, pairwise-exchange Reduce_scatter for
 * commutative ops, Rabenseifner Allreduce (recursive-halving reduce-scatter + recursive-doubling
 * allgather) for large vectors and commutative ops.  coll_move.c / coll_reduce.c decide which
 * one runs; every decision depends only on values all ranks share (sizes, counts, op), so all
 * ranks take the same path. */
#include <ctype.h>

#include "util/util.h"
#include "coll/coll_util.h"

static struct sm_coll_tun tun;
static int tun_loaded;

/* the shared parser: k/m/g suffixes, and a warning (then the default) for junk */
static size_t env_size(const char *name, size_t dflt)
{
    long long v = sm_env_size(name, (long long)dflt);
    return v < 0 ? dflt : (size_t)v;
}

const struct sm_coll_tun *sm_coll_tunables(void)
{
    if (!tun_loaded) {
        tun.bcast_large = env_size("SCTPMPI_COLL_BCAST_LARGE", 128 * 1024);
        tun.ag_bruck = env_size("SCTPMPI_COLL_ALLGATHER_BRUCK", 2 * 1024);
        tun.ag_ring = env_size("SCTPMPI_COLL_ALLGATHER_RING", 512 * 1024);
        tun.a2a_bruck = env_size("SCTPMPI_COLL_ALLTOALL_BRUCK", 256);
        tun.redscat_pairwise = env_size("SCTPMPI_COLL_REDSCAT_PAIRWISE", 16 * 1024);
        tun.allreduce_rab = env_size("SCTPMPI_COLL_ALLREDUCE_RABENSEIFNER", 32 * 1024);
        tun_loaded = 1;
    }
    return &tun;
}

/* ---- Allgather, Bruck: ceil(log2 n) steps for any n; my block is already in rbuf -------- */
int sm_coll_allgather_bruck(void *rbuf, int rcount, MPI_Datatype rt, int tag, MPI_Comm c)
{
    int n = c->size, me = c->rank, err = 0;
    void *base;
    char *tmp = sm_dt_tmp(n * rcount, rt, &base); /* tmp block i = block of rank me + i */
    sm_dt_copy(at(rbuf, (MPI_Aint)me * rcount, rt), rcount, rt, tmp, rcount, rt);
    for (int k = 1; k < n; k <<= 1) {
        int cnt = k < n - k ? k : n - k;
        int e = c_sendrecv(tmp, cnt * rcount, rt, (me - k + n) % n,
                           at(tmp, (MPI_Aint)k * rcount, rt), cnt * rcount, rt, (me + k) % n, tag, c);
        if (e && !err)
            err = e;
    }
    for (int i = 1; i < n; i++)
        sm_dt_copy(at(tmp, (MPI_Aint)i * rcount, rt), rcount, rt,
                   at(rbuf, (MPI_Aint)((me + i) % n) * rcount, rt), rcount, rt);
    free(base);
    return err;
}

/* ---- Bcast, van de Geijn: root scatters n chunks, then a ring allgather of the chunks ---- */
int sm_coll_bcast_scatter_ring(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm c)
{
    int n = c->size, me = c->rank, rel = (me - root + n) % n, tag = sm_coll_tag(c), err = 0;
    size_t bytes = sm_dt_psize(dt) * (size_t)count;
    MPI_Aint off;
    char *p, *packed = NULL;
    if (sm_dt_contig(dt, count, &off)) {
        p = (char *)buf + off;
    } else {
        p = packed = sm_xmalloc(bytes);
        if (me == root)
            sm_dt_pack(buf, count, dt, packed);
    }
    size_t chunk = (bytes + (size_t)n - 1) / (size_t)n;
#define CH_OFF(r) ((size_t)(r) * chunk < bytes ? (size_t)(r) * chunk : bytes)
#define CH_LEN(r) (bytes - CH_OFF(r) < chunk ? bytes - CH_OFF(r) : chunk)
    if (rel == 0) {
        MPI_Request *rq = sm_xmalloc(sizeof *rq * (size_t)n);
        int k = 0;
        for (int r = 1; r < n; r++)
            if (CH_LEN(r))
                sm_isend_dt(p + CH_OFF(r), (int)CH_LEN(r), MPI_BYTE, (r + root) % n, tag, c,
                            CCTX(c), SM_MODE_STANDARD, &rq[k++]);
        err = c_waitall(k, rq);
        free(rq);
    } else if (CH_LEN(rel)) {
        err = c_recv(p + CH_OFF(rel), (int)CH_LEN(rel), MPI_BYTE, root, tag, c);
    }
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    for (int s = 0; s < n - 1; s++) {
        int sb = (rel - s + n) % n, rb = (rel - s - 1 + n) % n;
        int e = c_sendrecv(p + CH_OFF(sb), (int)CH_LEN(sb), MPI_BYTE, right, p + CH_OFF(rb),
                           (int)CH_LEN(rb), MPI_BYTE, left, tag, c);
        if (e && !err)
            err = e;
    }
#undef CH_OFF
#undef CH_LEN
    if (packed) {
        if (me != root)
            sm_dt_unpack(packed, bytes, buf, count, dt);
        free(packed);
    }
    return err;
}

/* ---- Alltoall, Bruck: log2 n steps of packed blocks, for small blocks ------------------- */
int sm_coll_alltoall_bruck(const void *sbuf, int scount, MPI_Datatype st, void *rbuf,
                           int rcount, MPI_Datatype rt, MPI_Comm c)
{
    int n = c->size, me = c->rank, tag = sm_coll_tag(c), err = 0;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf, scount = rcount, st = rt;
    size_t bs = sm_dt_psize(st) * (size_t)scount;
    char *tmp = sm_xmalloc((size_t)n * bs + 1), *pk = sm_xmalloc((size_t)n * bs + 1),
         *rv = sm_xmalloc((size_t)n * bs + 1);
    for (int i = 0; i < n; i++) /* tmp block i: what I send to rank me + i */
        sm_dt_pack(at(sbuf, (MPI_Aint)((me + i) % n) * scount, st), scount, st, tmp + i * bs);
    for (int k = 1; k < n; k <<= 1) {
        size_t m = 0;
        for (int i = 1; i < n; i++)
            if (i & k)
                memcpy(pk + (m++) * bs, tmp + i * bs, bs);
        int e = c_sendrecv(pk, (int)(m * bs), MPI_BYTE, (me + k) % n, rv, (int)(m * bs), MPI_BYTE,
                           (me - k + n) % n, tag, c);
        if (e && !err)
            err = e;
        m = 0;
        for (int i = 1; i < n; i++)
            if (i & k)
                memcpy(tmp + i * bs, rv + (m++) * bs, bs);
    }
    for (int i = 0; i < n; i++) /* tmp block i now came from rank me - i */
        sm_dt_unpack(tmp + i * bs, bs, at(rbuf, (MPI_Aint)((me - i + n) % n) * rcount, rt), rcount,
                     rt);
    free(tmp);
    free(pk);
    free(rv);
    return err;
}

/* ---- Reduce_scatter, pairwise exchange (commutative ops): step s sends rank me+s its block
 * of my input and folds in rank me-s's contribution to my block ----------------------------- */
int sm_coll_reduce_scatter_pairwise(const void *sbuf, void *rbuf, const int *counts,
                                    MPI_Datatype dt, MPI_Op op, MPI_Comm c)
{
    int n = c->size, me = c->rank, tag = sm_coll_tag(c), err = 0, total = 0;
    int *displs = sm_xmalloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        displs[i] = total;
        total += counts[i];
    }
    void *b_in = NULL, *b_acc, *b_tmp;
    const void *in = sbuf;
    if (sbuf == MPI_IN_PLACE) {
        char *copy = sm_dt_tmp(total, dt, &b_in);
        sm_dt_copy(rbuf, total, dt, copy, total, dt);
        in = copy;
    }
    int mine = counts[me];
    char *acc = sm_dt_tmp(mine, dt, &b_acc), *tmp = sm_dt_tmp(mine, dt, &b_tmp);
    sm_dt_copy(at(in, displs[me], dt), mine, dt, acc, mine, dt);
    for (int s = 1; s < n; s++) {
        int dst = (me + s) % n, src = (me - s + n) % n;
        int e = c_sendrecv(at(in, displs[dst], dt), counts[dst], dt, dst, tmp, mine, dt, src, tag, c);
        if (e && !err)
            err = e;
        if (mine)
            sm_op_apply(op, tmp, acc, mine, dt);
    }
    sm_dt_copy(acc, mine, dt, rbuf, mine, dt);
    free(b_in);
    free(b_acc);
    free(b_tmp);
    free(displs);
    return err;
}

/* ---- Pairing up the ranks beyond the largest power of two (coll_util.h) ---------------- */
int sm_coll_pof2_enter(void *rbuf, void *tmp, int count, MPI_Datatype dt, MPI_Op op, int pof2,
                       int tag, MPI_Comm c, int *err)
{
    int me = c->rank, rem = c->size - pof2, e;
    if (me >= 2 * rem)
        return me - rem;
    if (me % 2 == 0) {
        e = c_send(rbuf, count, dt, me + 1, tag, c);
    } else {
        e = c_recv(tmp, count, dt, me - 1, tag, c);
        sm_op_apply(op, tmp, rbuf, count, dt); /* the lower rank's data comes first */
    }
    if (e && !*err)
        *err = e;
    return me % 2 ? me / 2 : -1;
}

void sm_coll_pof2_leave(void *rbuf, int count, MPI_Datatype dt, int pof2, int tag, MPI_Comm c,
                        int *err)
{
    int me = c->rank, rem = c->size - pof2;
    if (me >= 2 * rem)
        return;
    int e = me % 2 ? c_send(rbuf, count, dt, me - 1, tag, c)
                   : c_recv(rbuf, count, dt, me + 1, tag, c);
    if (e && !*err)
        *err = e;
}

/* ---- Allreduce, Rabenseifner: the vector is split into pof2 blocks (pof2 = the largest power
 * of two <= n); a reduce-scatter by recursive halving leaves each of pof2 ranks with one
 * block reduced over everyone, an allgather by recursive doubling gives everyone the whole
 * vector: 2 log2(pof2) steps moving about 2 (pof2-1)/pof2 of the vector each way instead of
 * log2(pof2) whole vectors.  The first 2 * (n - pof2) ranks pair up first (even ranks hand
 * their vector to the odd neighbour and get the result back at the end), as in MPICH.  The
 * op must commute (blocks are combined in exchange order). ---------------------------------- */
int sm_coll_allreduce_rabenseifner(void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int tag,
                                   MPI_Comm c)
{
    int n = c->size, err = 0, e;
    int pof2 = 1;
    while (pof2 * 2 <= n)
        pof2 *= 2;
    int rem = n - pof2;
    void *base;
    char *tmp = sm_dt_tmp(count, dt, &base);
    int newrank = sm_coll_pof2_enter(rbuf, tmp, count, dt, op, pof2, tag, c, &err);
    if (newrank >= 0) {
        int *cnts = sm_xmalloc(sizeof(int) * 2 * (size_t)pof2), *disps = cnts + pof2;
        for (int i = 0, d = 0; i < pof2; i++) {
            cnts[i] = count / pof2 + (i < count % pof2);
            disps[i] = d;
            d += cnts[i];
        }
#define SUM(from, to, out)                                                                       \
    do {                                                                                         \
        out = 0;                                                                                 \
        for (int i_ = (from); i_ < (to); i_++)                                                   \
            out += cnts[i_];                                                                     \
    } while (0)
        int mask = 1, send_idx = 0, recv_idx = 0, last_idx = pof2, scnt, rcnt;
        while (mask < pof2) { /* reduce-scatter, recursive halving */
            int nd = newrank ^ mask, dst = sm_coll_pof2_real(nd, rem);
            if (newrank < nd) {
                send_idx = recv_idx + pof2 / (mask * 2);
                SUM(send_idx, last_idx, scnt);
                SUM(recv_idx, send_idx, rcnt);
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                SUM(send_idx, recv_idx, scnt);
                SUM(recv_idx, last_idx, rcnt);
            }
            e = c_sendrecv(at(rbuf, disps[send_idx], dt), scnt, dt, dst,
                           at(tmp, disps[recv_idx], dt), rcnt, dt, dst, tag, c);
            if (e && !err)
                err = e;
            sm_op_apply(op, at(tmp, disps[recv_idx], dt), at(rbuf, disps[recv_idx], dt), rcnt,
                        dt);
            send_idx = recv_idx;
            mask <<= 1;
            if (mask < pof2)
                last_idx = recv_idx + pof2 / mask;
        }
        mask >>= 1;
        while (mask > 0) { /* allgather, recursive doubling */
            int nd = newrank ^ mask, dst = sm_coll_pof2_real(nd, rem);
            if (newrank < nd) {
                if (mask != pof2 / 2)
                    last_idx = last_idx + pof2 / (mask * 2);
                recv_idx = send_idx + pof2 / (mask * 2);
                SUM(send_idx, recv_idx, scnt);
                SUM(recv_idx, last_idx, rcnt);
            } else {
                recv_idx = send_idx - pof2 / (mask * 2);
                SUM(send_idx, last_idx, scnt);
                SUM(recv_idx, send_idx, rcnt);
            }
            e = c_sendrecv(at(rbuf, disps[send_idx], dt), scnt, dt, dst,
                           at(rbuf, disps[recv_idx], dt), rcnt, dt, dst, tag, c);
            if (e && !err)
                err = e;
            if (newrank > nd)
                send_idx = recv_idx;
            mask >>= 1;
        }
#undef SUM
        free(cnts);
    }
    sm_coll_pof2_leave(rbuf, count, dt, pof2, tag, c, &err);
    free(base);
    return err;
}
