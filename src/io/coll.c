/* coll.c — collective data access with two-phase collective buffering.
 *
 * Every process turns its access into file pieces (view.c) and tells the others the range it
 * touches.  When buffering is on (romio_cb_read/write "enable", or "automatic" and some
 * access is non-contiguous or the ranges interleave), cb_nodes aggregator processes split
 * the touched range [lo, hi) into equal file domains (boundaries on multiples of
 * striping_unit when that hint is set); each domain is worked through in windows of
 * cb_buffer_size bytes.  In round r every process sends each aggregator the pieces of its
 * access inside that aggregator's r-th window (offsets and lengths, then the data, by
 * all-to-all exchanges on the file's private communicator); the aggregator assembles the
 * window and writes it with one pwrite (reading it first when the pieces leave holes, so the
 * holes keep the file's bytes).  Reads are the mirror image: the requests go to the
 * aggregators, each reads its window with one pread and sends every piece back.
 * Otherwise (and in atomic mode, where every access takes its own lock) each process makes
 * its access independently. */
#include "io/io.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* a piece of the exchange: where in the file, how long, where in the local stream */
struct piece {
    MPI_Offset off, len, soff;
    int round, aggr;
};

static int piece_cmp(const void *a, const void *b)
{
    const struct piece *x = a, *y = b;
    if (x->round != y->round)
        return x->round < y->round ? -1 : 1;
    if (x->aggr != y->aggr)
        return x->aggr < y->aggr ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* a received piece at the aggregator: file range and where its bytes are in the buffer */
struct rpiece {
    MPI_Offset off, len;
    size_t at;
};

static int rpiece_cmp(const void *a, const void *b)
{
    const struct rpiece *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

struct plan {
    int naggr;
    int *aggr_rank; /* aggregator a is this rank */
    int my_aggr;    /* my aggregator index or -1 */
    MPI_Offset base, fdsize, cbs, lo, hi;
    int rounds;
};

static MPI_Offset dom_start(const struct plan *p, int a)
{
    MPI_Offset s = p->base + (MPI_Offset)a * p->fdsize;
    return s < p->lo ? p->lo : s;
}

static MPI_Offset dom_end(const struct plan *p, int a)
{
    MPI_Offset e = p->base + (MPI_Offset)(a + 1) * p->fdsize;
    return e > p->hi ? p->hi : e;
}

/* split the local pieces at domain and window boundaries, tagging each with (round, aggr) */
static size_t split(const struct plan *p, const struct sm_seg *s, size_t ns, struct piece **out)
{
    size_t cap = ns + 16, n = 0;
    struct piece *v = sm_xmalloc(cap * sizeof *v);
    for (size_t i = 0; i < ns; i++) {
        MPI_Offset off = s[i].off, left = s[i].len, soff = s[i].soff;
        while (left > 0) {
            int a = (int)((off - p->base) / p->fdsize);
            if (a >= p->naggr)
                a = p->naggr - 1;
            MPI_Offset ds = dom_start(p, a);
            int r = (int)((off - ds) / p->cbs);
            MPI_Offset wend = ds + (MPI_Offset)(r + 1) * p->cbs, de = dom_end(p, a);
            if (wend > de)
                wend = de;
            MPI_Offset len = wend - off < left ? wend - off : left;
            if (len <= 0) /* cannot happen inside [lo, hi); keep the loop finite anyway */
                len = left;
            if (n == cap) {
                cap *= 2;
                struct piece *t = sm_xmalloc(cap * sizeof *t);
                memcpy(t, v, n * sizeof *t);
                free(v);
                v = t;
            }
            v[n++] = (struct piece){ off, len, soff, r, a };
            off += len;
            soff += len;
            left -= len;
        }
    }
    qsort(v, n, sizeof *v, piece_cmp);
    *out = v;
    return n;
}

static int exchange_round(MPI_File fh, int write, const struct plan *p, const struct piece *pc,
                          size_t np, char *stream, MPI_Offset got, int *err)
{
    MPI_Comm c = fh->comm;
    int size = c->size;
    /* what I send to each process this round: piece counts and bytes */
    long long *scnt = sm_xcalloc((size_t)size * 2, sizeof *scnt);
    long long *rcnt = sm_xcalloc((size_t)size * 2, sizeof *rcnt);
    for (size_t i = 0; i < np; i++) {
        int dest = p->aggr_rank[pc[i].aggr];
        scnt[2 * dest]++;
        scnt[2 * dest + 1] += pc[i].len;
    }
    PMPI_Alltoall(scnt, 2, MPI_LONG_LONG, rcnt, 2, MPI_LONG_LONG, c);
    int *sc = sm_xcalloc((size_t)size, sizeof *sc), *sd = sm_xcalloc((size_t)size, sizeof *sd);
    int *rc = sm_xcalloc((size_t)size, sizeof *rc), *rd = sm_xcalloc((size_t)size, sizeof *rd);
    /* metadata: (off, len) pairs; the local pieces are already sorted by aggregator */
    long long *smeta = sm_xmalloc((np ? np : 1) * 2 * sizeof *smeta);
    size_t nrecv = 0;
    for (int r = 0; r < size; r++) {
        sc[r] = (int)(2 * scnt[2 * r]);
        rc[r] = (int)(2 * rcnt[2 * r]);
        nrecv += (size_t)rcnt[2 * r];
        if (r) {
            sd[r] = sd[r - 1] + sc[r - 1];
            rd[r] = rd[r - 1] + rc[r - 1];
        }
    }
    /* pieces for process r must sit at sd[r]: sort order is by aggregator index, and
     * aggregator ranks increase with the index, so the order matches */
    for (size_t i = 0; i < np; i++) {
        smeta[2 * i] = pc[i].off;
        smeta[2 * i + 1] = pc[i].len;
    }
    long long *rmeta = sm_xmalloc((nrecv ? nrecv : 1) * 2 * sizeof *rmeta);
    PMPI_Alltoallv(smeta, sc, sd, MPI_LONG_LONG, rmeta, rc, rd, MPI_LONG_LONG, c);
    /* data counts in bytes */
    size_t sbytes = 0, rbytes = 0;
    for (int r = 0; r < size; r++) {
        sc[r] = (int)scnt[2 * r + 1];
        rc[r] = (int)rcnt[2 * r + 1];
        sd[r] = (int)sbytes;
        rd[r] = (int)rbytes;
        sbytes += (size_t)sc[r];
        rbytes += (size_t)rc[r];
    }
    /* the window the received pieces span (aggregators only receive) */
    struct rpiece *rp = sm_xmalloc((nrecv ? nrecv : 1) * sizeof *rp);
    size_t at = 0;
    MPI_Offset wlo = LLONG_MAX, whi = 0;
    for (size_t i = 0; i < nrecv; i++) {
        rp[i].off = rmeta[2 * i];
        rp[i].len = rmeta[2 * i + 1];
        rp[i].at = at;
        at += (size_t)rp[i].len;
        if (rp[i].off < wlo)
            wlo = rp[i].off;
        if (rp[i].off + rp[i].len > whi)
            whi = rp[i].off + rp[i].len;
    }
    char *win = NULL;
    if (write) {
        char *sbuf = sm_xmalloc(sbytes ? sbytes : 1);
        size_t o = 0;
        for (size_t i = 0; i < np; i++) {
            memcpy(sbuf + o, stream + pc[i].soff, (size_t)pc[i].len);
            o += (size_t)pc[i].len;
        }
        char *rbuf = sm_xmalloc(rbytes ? rbytes : 1);
        PMPI_Alltoallv(sbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, c);
        free(sbuf);
        if (nrecv) {
            qsort(rp, nrecv, sizeof *rp, rpiece_cmp);
            MPI_Offset span = whi - wlo, covered_to = wlo;
            int holes = 0;
            for (size_t i = 0; i < nrecv; i++) {
                if (rp[i].off > covered_to)
                    holes = 1;
                if (rp[i].off + rp[i].len > covered_to)
                    covered_to = rp[i].off + rp[i].len;
            }
            win = sm_xmalloc((size_t)span);
            if (holes) {
                ssize_t got = sm_io_pread(fh, win, (size_t)span, wlo);
                if (got < 0) {
                    if (!*err)
                        *err = sm_errno_class(errno);
                    got = 0;
                }
                memset(win + got, 0, (size_t)(span - got));
            }
            for (size_t i = 0; i < nrecv; i++)
                memcpy(win + (rp[i].off - wlo), rbuf + rp[i].at, (size_t)rp[i].len);
            if (sm_io_pwrite(fh, win, (size_t)span, wlo) < 0 && !*err)
                *err = sm_errno_class(errno);
        }
        free(rbuf);
    } else {
        /* aggregator: read the window once, answer every request in arrival order */
        char *sbuf = sm_xmalloc(rbytes ? rbytes : 1);
        if (nrecv) {
            MPI_Offset span = whi - wlo;
            win = sm_xmalloc((size_t)span);
            ssize_t got = sm_io_pread(fh, win, (size_t)span, wlo);
            if (got < 0) {
                if (!*err)
                    *err = sm_errno_class(errno);
                got = 0;
            }
            memset(win + got, 0, (size_t)(span - got));
            for (size_t i = 0; i < nrecv; i++)
                memcpy(sbuf + rp[i].at, win + (rp[i].off - wlo), (size_t)rp[i].len);
        }
        char *rbuf = sm_xmalloc(sbytes ? sbytes : 1);
        /* the answers travel back: the counts swap roles */
        PMPI_Alltoallv(sbuf, rc, rd, MPI_BYTE, rbuf, sc, sd, MPI_BYTE, c);
        size_t o = 0;
        for (size_t i = 0; i < np; i++) {
            /* bytes past end of file leave the buffer as it was */
            MPI_Offset keep = got - pc[i].soff < pc[i].len ? got - pc[i].soff : pc[i].len;
            if (keep > 0)
                memcpy(stream + pc[i].soff, rbuf + o, (size_t)keep);
            o += (size_t)pc[i].len;
        }
        free(sbuf);
        free(rbuf);
    }
    free(win);
    free(rp);
    free(rmeta);
    free(smeta);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
    free(scnt);
    free(rcnt);
    return MPI_SUCCESS;
}

int sm_io_coll(MPI_File fh, int write, MPI_Offset offset, void *buf, MPI_Offset count,
               MPI_Datatype dt, MPI_Status *status, const char *fn)
{
    MPI_Comm c = fh->comm;
    int size = c->size;
    MPI_Offset n = sm_rep_size(fh, dt, count);
    struct sm_seg *s;
    size_t ns = sm_view_segments(fh, offset * fh->esize, n, &s);
    long long mine[3] = { LLONG_MAX, 0, (long long)ns };
    for (size_t i = 0; i < ns; i++) {
        if (s[i].off < mine[0])
            mine[0] = s[i].off;
        if (s[i].off + s[i].len > mine[1])
            mine[1] = s[i].off + s[i].len;
    }
    long long *all = sm_xmalloc((size_t)size * 3 * sizeof *all);
    PMPI_Allgather(mine, 3, MPI_LONG_LONG, all, 3, MPI_LONG_LONG, c);
    struct plan p = { 0 };
    p.lo = LLONG_MAX;
    int noncontig = 0, interleave = 0;
    for (int r = 0; r < size; r++) {
        if (all[3 * r + 2] == 0)
            continue;
        if (all[3 * r + 2] > 1)
            noncontig = 1;
        if (all[3 * r] < p.lo)
            p.lo = all[3 * r];
        if (all[3 * r + 1] > p.hi)
            p.hi = all[3 * r + 1];
        for (int q = 0; q < r && !interleave; q++)
            if (all[3 * q + 2] && all[3 * q] < all[3 * r + 1] && all[3 * r] < all[3 * q + 1])
                interleave = 1;
    }
    free(all);
    int mode = write ? fh->cb_write : fh->cb_read;
    int use_cb = p.lo < p.hi && !fh->atomic && size > 1 &&
                 (mode == SM_CB_ENABLE || (mode == SM_CB_AUTO && (noncontig || interleave)));
    if (!use_cb) {
        free(s);
        int rc = sm_io_indep(fh, write, offset, buf, count, dt, status, fn);
        /* the access stays collective: nobody leaves before all have done theirs */
        int any = rc;
        PMPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MAX, c);
        return rc;
    }
    /* the plan: aggregators spread over the ranks, equal domains, windows of cb_buffer_size */
    p.naggr = fh->cb_nodes < 1 ? 1 : fh->cb_nodes > size ? size : fh->cb_nodes;
    p.aggr_rank = sm_xmalloc((size_t)p.naggr * sizeof *p.aggr_rank);
    for (int a = 0; a < p.naggr; a++)
        p.aggr_rank[a] = (int)((long long)a * size / p.naggr);
    MPI_Offset su = fh->striping_unit > 0 ? fh->striping_unit : 1;
    p.base = p.lo - p.lo % su;
    MPI_Offset total = p.hi - p.base;
    p.fdsize = (total + p.naggr - 1) / p.naggr;
    p.fdsize = (p.fdsize + su - 1) / su * su;
    p.cbs = fh->cb_buffer_size;
    p.rounds = (int)((p.fdsize + p.cbs - 1) / p.cbs);
    int err = MPI_SUCCESS;
    void *tmp = NULL;
    char *stream;
    MPI_Offset got = n;
    if (write) {
        const void *cs;
        err = sm_rep_to_file(fh, buf, count, dt, offset, &cs, &tmp);
        stream = (char *)cs;
        if (err != MPI_SUCCESS)
            ns = 0; /* take part in the exchange with nothing */
    } else {
        stream = sm_rep_read_buffer(fh, buf, count, dt, &tmp);
        struct stat st;
        if (ns && fstat(fh->fd, &st) == 0) {
            MPI_Offset size_now = (MPI_Offset)st.st_size;
            got = n;
            for (size_t i = 0; i < ns; i++)
                if (s[i].off + s[i].len > size_now) {
                    got = s[i].soff + (size_now > s[i].off ? size_now - s[i].off : 0);
                    break;
                }
        }
    }
    struct piece *pc;
    size_t np = split(&p, s, ns, &pc);
    size_t first = 0;
    int aerr = MPI_SUCCESS;
    for (int r = 0; r < p.rounds; r++) {
        size_t last = first;
        while (last < np && pc[last].round == r)
            last++;
        exchange_round(fh, write, &p, pc + first, last - first, stream, got, &aerr);
        first = last;
    }
    if (err == MPI_SUCCESS)
        err = aerr;
    int any = err;
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, c);
    if (any == MPI_SUCCESS) {
        if (write)
            sm_io_status(status, (MPI_Offset)sm_dt_psize(dt) * count);
        else
            any = sm_rep_from_file(fh, buf, count, dt, offset, stream, got, status);
    }
    free(pc);
    free(tmp);
    free(s);
    free(p.aggr_rank);
    if (any != MPI_SUCCESS)
        return sm_file_error(fh, any, fn, "collective %s failed", write ? "write" : "read");
    return MPI_SUCCESS;
}
