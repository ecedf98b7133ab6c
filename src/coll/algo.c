/* algo.c — the size-selected collective algorithms, as schedule builders (sched.h), and their
 * tunables (SCTPMPI_COLL_*, read once): Bruck, recursive-doubling and ring allgather,
 * large-message Bcast (scatter + ring allgather, van de Geijn), Bruck alltoall for small
 * blocks, pairwise-exchange Alltoallw and Reduce_scatter, recursive-doubling and Rabenseifner
 * (recursive-halving reduce-scatter + recursive-doubling allgather) Allreduce.  move.c and
 * reduce.c decide which one runs; every decision depends only on values all ranks share
 * (sizes, counts, op), so all ranks take the same path, blocking or not. */
#include <ctype.h>

#include "util/util.h"
#include "coll/coll.h"

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

/* one round exchanging with two peers: receive first, then send (the order of the posts) */
static void sendrecv(struct sm_sched *s, const void *sb, int sn, MPI_Datatype st, int dst,
                     void *rb, int rn, MPI_Datatype rt, int src)
{
    sm_sched_round(s);
    sm_sched_recv(s, rb, rn, rt, src);
    sm_sched_send(s, sb, sn, st, dst);
}

/* ---- Bcast, binomial tree ------------------------------------------------------------------ */
void sm_algo_bcast_binomial(struct sm_sched *s, void *buf, int count, MPI_Datatype dt, int root)
{
    MPI_Comm c = s->comm;
    int n = c->size, rel = (c->rank - root + n) % n, mask = 1;
    while (mask < n) {
        if (rel & mask) {
            sm_sched_round(s);
            sm_sched_recv(s, buf, count, dt, (rel - mask + root) % n);
            break;
        }
        mask <<= 1;
    }
    mask >>= 1;
    sm_sched_round(s);
    for (; mask > 0; mask >>= 1)
        if (rel + mask < n)
            sm_sched_send(s, buf, count, dt, (rel + mask + root) % n);
}

/* ---- Bcast, van de Geijn: root scatters n chunks, then a ring allgather of the chunks ---- */
void sm_algo_bcast_scatter_ring(struct sm_sched *s, void *buf, int count, MPI_Datatype dt,
                                int root)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank, rel = (me - root + n) % n;
    size_t bytes = sm_dt_psize(dt) * (size_t)count;
    MPI_Aint off;
    char *p, *packed = NULL;
    if (sm_dt_contig(dt, count, &off)) {
        p = (char *)buf + off;
    } else {
        p = packed = sm_sched_bytes(s, bytes);
        if (me == root) {
            sm_sched_round(s);
            sm_sched_copy(s, buf, count, dt, packed, (int)bytes, MPI_BYTE);
        }
    }
    size_t chunk = (bytes + (size_t)n - 1) / (size_t)n;
#define CH_OFF(r) ((size_t)(r)*chunk < bytes ? (size_t)(r)*chunk : bytes)
#define CH_LEN(r) (bytes - CH_OFF(r) < chunk ? bytes - CH_OFF(r) : chunk)
    sm_sched_round(s);
    if (rel == 0) {
        for (int r = 1; r < n; r++)
            if (CH_LEN(r))
                sm_sched_send(s, p + CH_OFF(r), (int)CH_LEN(r), MPI_BYTE, (r + root) % n);
    } else if (CH_LEN(rel)) {
        sm_sched_recv(s, p + CH_OFF(rel), (int)CH_LEN(rel), MPI_BYTE, root);
    }
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    for (int k = 0; k < n - 1; k++) {
        int sb = (rel - k + n) % n, rb = (rel - k - 1 + n) % n;
        sendrecv(s, p + CH_OFF(sb), (int)CH_LEN(sb), MPI_BYTE, right, p + CH_OFF(rb),
                 (int)CH_LEN(rb), MPI_BYTE, left);
    }
#undef CH_OFF
#undef CH_LEN
    if (packed && me != root) {
        sm_sched_round(s);
        sm_sched_copy(s, packed, (int)bytes, MPI_BYTE, buf, count, dt);
    }
}

/* ---- Allgather: my block is already in rbuf ------------------------------------------------ */
/* Bruck: ceil(log2 n) steps for any n */
void sm_algo_allgather_bruck(struct sm_sched *s, void *rbuf, int rcount, MPI_Datatype rt)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    char *tmp = sm_sched_tmp(s, n * rcount, rt); /* tmp block i = block of rank me + i */
    sm_sched_round(s);
    sm_sched_copy(s, at(rbuf, (MPI_Aint)me * rcount, rt), rcount, rt, tmp, rcount, rt);
    for (int k = 1; k < n; k <<= 1) {
        int cnt = k < n - k ? k : n - k;
        sendrecv(s, tmp, cnt * rcount, rt, (me - k + n) % n, at(tmp, (MPI_Aint)k * rcount, rt),
                 cnt * rcount, rt, (me + k) % n);
    }
    sm_sched_round(s);
    for (int i = 1; i < n; i++)
        sm_sched_copy(s, at(tmp, (MPI_Aint)i * rcount, rt), rcount, rt,
                      at(rbuf, (MPI_Aint)((me + i) % n) * rcount, rt), rcount, rt);
}

/* recursive doubling, n a power of two: the blocks exchanged stay contiguous */
void sm_algo_allgather_recdbl(struct sm_sched *s, void *rbuf, int rcount, MPI_Datatype rt)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    for (int mask = 1; mask < n; mask <<= 1) {
        int peer = me ^ mask, mine = me & ~(mask - 1), theirs = peer & ~(mask - 1);
        sendrecv(s, at(rbuf, (MPI_Aint)mine * rcount, rt), mask * rcount, rt, peer,
                 at(rbuf, (MPI_Aint)theirs * rcount, rt), mask * rcount, rt, peer);
    }
}

/* ring: in step k, pass on the block received in step k-1 (displs in elements of rt) */
void sm_algo_allgatherv_ring(struct sm_sched *s, void *rbuf, const int *rcounts,
                             const MPI_Aint *displs, int rcount, MPI_Datatype rt)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank, right = (me + 1) % n, left = (me - 1 + n) % n;
#define RC(i) (rcounts ? rcounts[i] : rcount)
#define RD(i) (displs ? displs[i] : (MPI_Aint)(i)*rcount)
    for (int k = 0; k < n - 1; k++) {
        int sb = (me - k + n) % n, rb = (me - k - 1 + n) % n;
        sendrecv(s, at(rbuf, RD(sb), rt), RC(sb), rt, right, at(rbuf, RD(rb), rt), RC(rb), rt,
                 left);
    }
#undef RC
#undef RD
}

/* ---- Alltoall, Bruck: log2 n steps of packed blocks, for small blocks --------------------- */
void sm_algo_alltoall_bruck(struct sm_sched *s, const void *sbuf, int scount, MPI_Datatype st,
                            void *rbuf, int rcount, MPI_Datatype rt)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank;
    if (sbuf == MPI_IN_PLACE)
        sbuf = rbuf, scount = rcount, st = rt;
    size_t bs = sm_dt_psize(st) * (size_t)scount;
    char *tmp = sm_sched_bytes(s, (size_t)n * bs + 1),
         *pk = sm_sched_bytes(s, (size_t)n * bs + 1), *rv = sm_sched_bytes(s, (size_t)n * bs + 1);
    sm_sched_round(s);
    for (int i = 0; i < n; i++) /* tmp block i: what I send to rank me + i */
        sm_sched_copy(s, at(sbuf, (MPI_Aint)((me + i) % n) * scount, st), scount, st,
                      tmp + i * bs, (int)bs, MPI_BYTE);
    /* step k sends the blocks whose index has bit k, packed; the packing is a local step of
     * the round before (the first: of the copying round) */
    for (int k = 1; k < n; k <<= 1) {
        int m = 0;
        for (int i = 1; i < n; i++)
            if (i & k)
                sm_sched_copy(s, tmp + i * bs, (int)bs, MPI_BYTE, pk + (m++) * bs, (int)bs,
                              MPI_BYTE);
        sendrecv(s, pk, (int)(m * bs), MPI_BYTE, (me + k) % n, rv, (int)(m * bs), MPI_BYTE,
                 (me - k + n) % n);
        m = 0;
        for (int i = 1; i < n; i++)
            if (i & k)
                sm_sched_copy(s, rv + (m++) * bs, (int)bs, MPI_BYTE, tmp + i * bs, (int)bs,
                              MPI_BYTE);
    }
    for (int i = 0; i < n; i++) /* tmp block i now came from rank me - i */
        sm_sched_copy(s, tmp + i * bs, (int)bs, MPI_BYTE,
                      at(rbuf, (MPI_Aint)((me - i + n) % n) * rcount, rt), rcount, rt);
}

/* ---- Alltoallw, pairwise exchange: per-peer counts, byte displacements and types -------- */
void sm_algo_alltoallw_pairwise(struct sm_sched *s, const void *sbuf, const struct sm_a2a *a,
                                void *rbuf)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank, pof2 = (n & (n - 1)) == 0;
    sm_sched_round(s);
    sm_sched_copy(s, at_bytes(sbuf, a->sd[me]), a->sc[me], a->st[me], at_bytes(rbuf, a->rd[me]),
                  a->rc[me], a->rt[me]);
    for (int k = 1; k < n; k++) {
        int to = pof2 ? me ^ k : (me + k) % n, from = pof2 ? me ^ k : (me - k + n) % n;
        sm_sched_round(s);
        /* a pair exchanges a message only when it carries data: the two sides may describe
         * zero bytes differently (count 0, or elements of a zero-size type) */
        if (a->rc[from] && sm_dt_psize(a->rt[from]))
            sm_sched_recv(s, at_bytes(rbuf, a->rd[from]), a->rc[from], a->rt[from], from);
        if (a->sc[to] && sm_dt_psize(a->st[to]))
            sm_sched_send(s, at_bytes(sbuf, a->sd[to]), a->sc[to], a->st[to], to);
    }
}

/* ---- Reduce_scatter, pairwise exchange (commutative ops): step k sends rank me+k its block
 * of my input and folds in rank me-k's contribution to my block ----------------------------- */
void sm_algo_reduce_scatter_pairwise(struct sm_sched *s, const void *sbuf, void *rbuf,
                                     const int *counts, MPI_Datatype dt, MPI_Op op)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank, total = 0;
    MPI_Aint *displs = sm_sched_bytes(s, sizeof(MPI_Aint) * (size_t)n);
    for (int i = 0; i < n; i++) {
        displs[i] = total;
        total += counts[i];
    }
    const void *in = sbuf;
    sm_sched_round(s);
    if (sbuf == MPI_IN_PLACE) {
        char *copy = sm_sched_tmp(s, total, dt);
        sm_sched_copy(s, rbuf, total, dt, copy, total, dt);
        in = copy;
    }
    int mine = counts[me];
    char *acc = sm_sched_tmp(s, mine, dt), *tmp = sm_sched_tmp(s, mine, dt);
    sm_sched_copy(s, at(in, displs[me], dt), mine, dt, acc, mine, dt);
    for (int k = 1; k < n; k++) {
        int dst = (me + k) % n, src = (me - k + n) % n;
        sendrecv(s, at(in, displs[dst], dt), counts[dst], dt, dst, tmp, mine, dt, src);
        if (mine)
            sm_sched_reduce(s, op, tmp, acc, mine, dt);
    }
    sm_sched_round(s);
    sm_sched_copy(s, acc, mine, dt, rbuf, mine, dt);
}

/* ---- Allreduce ------------------------------------------------------------------------------
 * On n ranks that are not a power of two (pof2 = the largest power of two <= n) the first
 * 2 (n - pof2) ranks pair up before the exchange — an even rank hands its vector to its odd
 * neighbour, which combines it as the lower rank's data — and after it the odd one hands the
 * result back.  pof2_enter returns the rank's number within the power of two, or -1 for a
 * rank that waits; pof2_real maps that number back to a rank. */
static int pof2_enter(struct sm_sched *s, void *rbuf, void *tmp, int count, MPI_Datatype dt,
                      MPI_Op op, int pof2)
{
    MPI_Comm c = s->comm;
    int me = c->rank, rem = c->size - pof2;
    if (me >= 2 * rem)
        return me - rem;
    sm_sched_round(s);
    if (me % 2 == 0) {
        sm_sched_send(s, rbuf, count, dt, me + 1);
        return -1;
    }
    sm_sched_recv(s, tmp, count, dt, me - 1);
    sm_sched_reduce(s, op, tmp, rbuf, count, dt); /* the lower rank's data comes first */
    return me / 2;
}

static void pof2_leave(struct sm_sched *s, void *rbuf, int count, MPI_Datatype dt, int pof2)
{
    MPI_Comm c = s->comm;
    int me = c->rank, rem = c->size - pof2;
    if (me >= 2 * rem)
        return;
    sm_sched_round(s);
    if (me % 2)
        sm_sched_send(s, rbuf, count, dt, me - 1);
    else
        sm_sched_recv(s, rbuf, count, dt, me + 1);
}

static int pof2_real(int newrank, int rem)
{
    return newrank < rem ? newrank * 2 + 1 : newrank + rem;
}

static int pof2_below(int n)
{
    int pof2 = 1;
    while (pof2 * 2 <= n)
        pof2 *= 2;
    return pof2;
}

/* recursive doubling, order-preserving (non-commutative ops too); rbuf holds this rank's
 * contribution and receives the result */
void sm_algo_allreduce_recdbl(struct sm_sched *s, void *rbuf, int count, MPI_Datatype dt,
                              MPI_Op op)
{
    MPI_Comm c = s->comm;
    int n = c->size, me = c->rank, pof2 = pof2_below(n), rem = n - pof2;
    char *tmp = sm_sched_tmp(s, count, dt);
    int newrank = pof2_enter(s, rbuf, tmp, count, dt, op, pof2);
    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            int dst = pof2_real(newrank ^ mask, rem);
            sendrecv(s, rbuf, count, dt, dst, tmp, count, dt, dst);
            if (dst < me)
                sm_sched_reduce(s, op, tmp, rbuf, count, dt);
            else
                sm_sched_combine_higher(s, op, rbuf, tmp, count, dt);
        }
    }
    pof2_leave(s, rbuf, count, dt, pof2);
}

/* Rabenseifner: the vector is split into pof2 blocks; a reduce-scatter by recursive halving
 * leaves each of pof2 ranks with one block reduced over everyone, an allgather by recursive
 * doubling gives everyone the whole vector: 2 log2(pof2) steps moving about 2 (pof2-1)/pof2 of
 * the vector each way instead of log2(pof2) whole vectors.  The op must commute (blocks are
 * combined in exchange order). */
void sm_algo_allreduce_rabenseifner(struct sm_sched *s, void *rbuf, int count, MPI_Datatype dt,
                                    MPI_Op op)
{
    MPI_Comm c = s->comm;
    int n = c->size, pof2 = pof2_below(n), rem = n - pof2;
    char *tmp = sm_sched_tmp(s, count, dt);
    int newrank = pof2_enter(s, rbuf, tmp, count, dt, op, pof2);
    if (newrank >= 0) {
        int *cnts = sm_sched_bytes(s, sizeof(int) * 2 * (size_t)pof2), *disps = cnts + pof2;
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
            int nd = newrank ^ mask, dst = pof2_real(nd, rem);
            if (newrank < nd) {
                send_idx = recv_idx + pof2 / (mask * 2);
                SUM(send_idx, last_idx, scnt);
                SUM(recv_idx, send_idx, rcnt);
            } else {
                recv_idx = send_idx + pof2 / (mask * 2);
                SUM(send_idx, recv_idx, scnt);
                SUM(recv_idx, last_idx, rcnt);
            }
            sendrecv(s, at(rbuf, disps[send_idx], dt), scnt, dt, dst,
                     at(tmp, disps[recv_idx], dt), rcnt, dt, dst);
            sm_sched_reduce(s, op, at(tmp, disps[recv_idx], dt), at(rbuf, disps[recv_idx], dt),
                            rcnt, dt);
            send_idx = recv_idx;
            mask <<= 1;
            if (mask < pof2)
                last_idx = recv_idx + pof2 / mask;
        }
        mask >>= 1;
        while (mask > 0) { /* allgather, recursive doubling */
            int nd = newrank ^ mask, dst = pof2_real(nd, rem);
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
            sendrecv(s, at(rbuf, disps[send_idx], dt), scnt, dt, dst,
                     at(rbuf, disps[recv_idx], dt), rcnt, dt, dst);
            if (newrank > nd)
                send_idx = recv_idx;
            mask >>= 1;
        }
#undef SUM
    }
    pof2_leave(s, rbuf, count, dt, pof2);
}

int sm_algo_pof2_below(int n)
{
    return pof2_below(n);
}
