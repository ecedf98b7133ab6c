/* persistent_freed.c — persistent collectives whose datatypes, type arrays and op the program
 * frees right after *_init (the standard allows it): every MPI_Start must still use them.
 * MPI_Alltoallw_init and MPI_Neighbor_alltoallw_init get per-peer derived types that are freed
 * (and their array overwritten) before the first Start; MPI_Allreduce_init gets a derived type
 * and a user op freed likewise; a new type made after the frees must not disturb them.  Each
 * request is started three times with fresh data. */
#include "../common/mpi_test.h"

/* a pair (m, c) is the map x -> m x + c; in op inout = inout after in: associative and not
 * commutative, so a wrong order shows */
static void pair_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    int *a = in, *b = inout;
    for (int i = 0; i < *len; i++) {
        int m = a[2 * i] * b[2 * i], c = a[2 * i + 1] * b[2 * i] + b[2 * i + 1];
        b[2 * i] = m;
        b[2 * i + 1] = c;
    }
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    int n = size_, me = rank_;
    /* ---- Alltoallw_init: to rank j, a vector type of 2 ints with stride 2 (ints 0 and 2 of a
     * 4-int block); from rank j, 2 contiguous ints */
    int *sc = malloc(sizeof(int) * n), *sd = malloc(sizeof(int) * n);
    int *rc = malloc(sizeof(int) * n), *rd = malloc(sizeof(int) * n);
    MPI_Datatype *st = malloc(sizeof(MPI_Datatype) * n), *rt = malloc(sizeof(MPI_Datatype) * n);
    int *sbuf = malloc(sizeof(int) * 4 * n), *rbuf = malloc(sizeof(int) * 2 * n);
    for (int j = 0; j < n; j++) {
        MPI_Type_vector(2, 1, 2, MPI_INT, &st[j]);
        MPI_Type_commit(&st[j]);
        MPI_Type_contiguous(2, MPI_INT, &rt[j]);
        MPI_Type_commit(&rt[j]);
        sc[j] = rc[j] = 1;
        sd[j] = (int)(sizeof(int) * 4 * j);
        rd[j] = (int)(sizeof(int) * 2 * j);
    }
    MPI_Request a2a;
    MPI_Alltoallw_init(sbuf, sc, sd, st, rbuf, rc, rd, rt, MPI_COMM_WORLD, MPI_INFO_NULL, &a2a);
    for (int j = 0; j < n; j++) {
        MPI_Type_free(&st[j]);
        MPI_Type_free(&rt[j]);
        st[j] = rt[j] = MPI_DATATYPE_NULL; /* the arrays no longer name the types */
    }
    MPI_Datatype other; /* may take a freed type's place if one were wrongly released */
    MPI_Type_vector(3, 2, 5, MPI_DOUBLE, &other);
    MPI_Type_commit(&other);

    /* ---- Neighbor_alltoallw_init on a periodic ring: one int to each side, through derived
     * types freed after init */
    MPI_Comm ring;
    int dims = n, periods = 1;
    MPI_Cart_create(MPI_COMM_WORLD, 1, &dims, &periods, 0, &ring);
    int nsc[2] = {1, 1}, nrc[2] = {1, 1};
    MPI_Aint nsd[2] = {0, sizeof(int)}, nrd[2] = {0, sizeof(int)};
    MPI_Datatype nst[2], nrt[2];
    for (int k = 0; k < 2; k++) {
        MPI_Type_contiguous(1, MPI_INT, &nst[k]);
        MPI_Type_commit(&nst[k]);
        MPI_Type_dup(nst[k], &nrt[k]);
        MPI_Type_commit(&nrt[k]);
    }
    int nsb[2], nrb[2];
    MPI_Request nb;
    MPI_Neighbor_alltoallw_init(nsb, nsc, nsd, nst, nrb, nrc, nrd, nrt, ring, MPI_INFO_NULL, &nb);
    for (int k = 0; k < 2; k++) {
        MPI_Type_free(&nst[k]);
        MPI_Type_free(&nrt[k]);
    }

    /* ---- Allreduce_init with a derived type (a pair of ints) and a user op, both freed */
    MPI_Datatype pair;
    MPI_Type_contiguous(2, MPI_INT, &pair);
    MPI_Type_commit(&pair);
    MPI_Op op;
    MPI_Op_create(pair_op, 0, &op);
    int ain[2], aout[2];
    MPI_Request ar;
    MPI_Allreduce_init(ain, aout, 1, pair, op, MPI_COMM_WORLD, MPI_INFO_NULL, &ar);
    MPI_Type_free(&pair);
    MPI_Op_free(&op);

    for (int it = 0; it < 3; it++) {
        for (int j = 0; j < n; j++)
            for (int k = 0; k < 4; k++)
                sbuf[4 * j + k] = 1000 * it + 100 * me + 10 * j + k;
        for (int j = 0; j < 2 * n; j++)
            rbuf[j] = -1;
        nsb[0] = 10 * it + me; /* to the -1 neighbour */
        nsb[1] = 10 * it + me + 100000; /* to the +1 neighbour */
        nrb[0] = nrb[1] = -1;
        ain[0] = 1 + (me + it) % 2;
        ain[1] = me + it;
        MPI_Start(&a2a);
        MPI_Start(&nb);
        MPI_Start(&ar);
        MPI_Wait(&a2a, MPI_STATUS_IGNORE);
        MPI_Wait(&nb, MPI_STATUS_IGNORE);
        MPI_Wait(&ar, MPI_STATUS_IGNORE);
        for (int j = 0; j < n; j++) { /* from j: its ints 0 and 2 of the block meant for me */
            int base = 1000 * it + 100 * j + 10 * me;
            CHECK(rbuf[2 * j] == base && rbuf[2 * j + 1] == base + 2,
                  "alltoallw start %d from %d: %d %d, expected %d %d", it, j, rbuf[2 * j],
                  rbuf[2 * j + 1], base, base + 2);
        }
        int left = (me - 1 + n) % n, right = (me + 1) % n;
        /* slot 0 (from the -1 side) got left's +1 block; slot 1 got right's -1 block */
        CHECK(nrb[0] == 10 * it + left + 100000 && nrb[1] == 10 * it + right,
              "neighbor_alltoallw start %d: %d %d", it, nrb[0], nrb[1]);
        /* rank order: r = x_0, then r = r op x_i for i = 1..n-1 */
        long e0 = 1 + it % 2, e1 = it;
        for (int i = 1; i < n; i++) {
            long m = 1 + (i + it) % 2;
            e1 = e1 * m + (i + it);
            e0 *= m;
        }
        CHECK(aout[0] == e0 && aout[1] == e1, "allreduce start %d: %d %d, expected %ld %ld", it,
              aout[0], aout[1], e0, e1);
    }
    MPI_Request_free(&a2a);
    MPI_Request_free(&nb);
    MPI_Request_free(&ar);
    MPI_Type_free(&other);
    MPI_Comm_free(&ring);
    free(sc), free(sd), free(rc), free(rd), free(st), free(rt), free(sbuf), free(rbuf);
    return finish();
}
