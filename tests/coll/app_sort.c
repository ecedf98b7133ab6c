/* app_sort.c — application test: parallel sample sort of pseudo-random 64-bit keys (with
 * duplicates, and an uneven number of keys per rank, one rank possibly empty).  Local sort,
 * regular samples gathered with Allgather, splitters chosen identically everywhere, bucket
 * sizes exchanged with Alltoall, keys with Alltoallv.  Checks: every rank's keys are sorted,
 * each rank's last key <= the next rank's first (Sendrecv), the key count is unchanged and
 * the multiset is unchanged (order-independent sum and xor of a hash over all keys,
 * Allreduce, plus a sorted gather compared on rank 0). */
#include <stdint.h>

#include "../common/mpi_test.h"

static uint64_t rng(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}
static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return x;
}
static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int n = (rank_ == 1) ? 0 : 1000 + 137 * rank_;
    uint64_t seed = 0x9e3779b97f4a7c15ULL * (uint64_t)(rank_ + 1), *keys = xmalloc(8 * (size_t)n);
    for (int i = 0; i < n; i++)
        keys[i] = rng(&seed) % 5000; /* many duplicates */
    uint64_t h[2] = {0, 0}, hs[2], before = (uint64_t)n, total;
    for (int i = 0; i < n; i++) {
        h[0] += mix(keys[i]);
        h[1] ^= mix(keys[i] + 0x1234);
    }
    MPI_Allreduce(&before, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    /* keep the original multiset on rank 0 */
    int *cnt = xmalloc(sizeof(int) * (size_t)size_), *dis = xmalloc(sizeof(int) * (size_t)size_);
    MPI_Gather(&n, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
    uint64_t *orig = xmalloc(8 * (size_t)(rank_ == 0 ? total : 1));
    if (rank_ == 0)
        for (int k = 0, o = 0; k < size_; k++) {
            dis[k] = o;
            o += cnt[k];
        }
    MPI_Gatherv(keys, n, MPI_UINT64_T, orig, cnt, dis, MPI_UINT64_T, 0, MPI_COMM_WORLD);

    /* sample sort */
    qsort(keys, (size_t)n, 8, cmp);
    int p = size_;
    uint64_t *samp = xmalloc(8 * (size_t)p), *allsamp = xmalloc(8 * (size_t)p * (size_t)p);
    for (int i = 0; i < p; i++) /* empty ranks sample the maximum key: harmless */
        samp[i] = n ? keys[(size_t)i * (size_t)n / (size_t)p] : UINT64_MAX;
    MPI_Allgather(samp, p, MPI_UINT64_T, allsamp, p, MPI_UINT64_T, MPI_COMM_WORLD);
    qsort(allsamp, (size_t)p * (size_t)p, 8, cmp);
    uint64_t *split = xmalloc(8 * (size_t)p); /* bucket k takes keys < split[k] (k < p-1) */
    for (int k = 0; k < p - 1; k++)
        split[k] = allsamp[(size_t)(k + 1) * (size_t)p];
    int *sc = xmalloc(sizeof(int) * (size_t)p), *sd = xmalloc(sizeof(int) * (size_t)p),
        *rc = xmalloc(sizeof(int) * (size_t)p), *rd = xmalloc(sizeof(int) * (size_t)p);
    for (int k = 0, i = 0; k < p; k++) {
        sd[k] = i;
        while (i < n && (k == p - 1 || keys[i] < split[k]))
            i++;
        sc[k] = i - sd[k];
    }
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, MPI_COMM_WORLD);
    int m = 0;
    for (int k = 0; k < p; k++) {
        rd[k] = m;
        m += rc[k];
    }
    uint64_t *out = xmalloc(8 * (size_t)m);
    MPI_Alltoallv(keys, sc, sd, MPI_UINT64_T, out, rc, rd, MPI_UINT64_T, MPI_COMM_WORLD);
    qsort(out, (size_t)m, 8, cmp); /* merge of p sorted runs */

    /* verify */
    for (int i = 1; i < m; i++)
        CHECK(out[i - 1] <= out[i], "not sorted locally at %d", i);
    uint64_t after = (uint64_t)m, total2;
    MPI_Allreduce(&after, &total2, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    CHECK(total2 == total, "key count %llu -> %llu", (unsigned long long)total,
          (unsigned long long)total2);
    /* boundary: my max (or 0 if empty) against the next non-empty rank's min: pass the running
     * max to the right */
    uint64_t mymax = m ? out[m - 1] : 0, prevmax = 0, carry;
    MPI_Scan(&mymax, &carry, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    MPI_Sendrecv(&carry, 1, MPI_UINT64_T, rank_ + 1 < p ? rank_ + 1 : MPI_PROC_NULL, 0, &prevmax,
                 1, MPI_UINT64_T, rank_ > 0 ? rank_ - 1 : MPI_PROC_NULL, 0, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE);
    if (m)
        CHECK(prevmax <= out[0], "global order broken: %llu > %llu", (unsigned long long)prevmax,
              (unsigned long long)out[0]);
    uint64_t g[2] = {0, 0};
    for (int i = 0; i < m; i++) {
        g[0] += mix(out[i]);
        g[1] ^= mix(out[i] + 0x1234);
    }
    MPI_Allreduce(h, hs, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&h[1], &hs[1], 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    uint64_t gs[2];
    MPI_Allreduce(g, gs, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&g[1], &gs[1], 1, MPI_UINT64_T, MPI_BXOR, MPI_COMM_WORLD);
    CHECK(hs[0] == gs[0] && hs[1] == gs[1], "multiset hash changed");
    /* exact check on rank 0: the concatenation equals the sorted original */
    MPI_Gather(&m, 1, MPI_INT, cnt, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank_ == 0)
        for (int k = 0, o = 0; k < size_; k++) {
            dis[k] = o;
            o += cnt[k];
        }
    uint64_t *fin = xmalloc(8 * (size_t)(rank_ == 0 ? total : 1));
    MPI_Gatherv(out, m, MPI_UINT64_T, fin, cnt, dis, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (rank_ == 0) {
        qsort(orig, (size_t)total, 8, cmp);
        for (uint64_t i = 0; i < total; i++)
            CHECK(orig[i] == fin[i], "key %llu differs", (unsigned long long)i);
    }
    free(fin), free(out), free(sc), free(sd), free(rc), free(rd), free(split), free(samp);
    free(allsamp), free(orig), free(cnt), free(dis), free(keys);
    return finish();
}
