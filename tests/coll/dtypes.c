/* dtypes.c — derived datatypes: vector, hvector, indexed, indexed_block, hindexed, struct,
 * subarray, darray, resized, dup; extents and true extents; envelope/contents; Pack/Unpack and
 * external32 round trips; point-to-point with a non-contiguous send type received as a
 * different but signature-equal type (and large enough for rendezvous); Get_elements. */
#include "../common/mpi_test.h"

int main(int argc, char **argv)
{
    start(&argc, &argv);
    MPI_Datatype vec, hvec, idx, blk, st, sub, res, dup, darr;
    MPI_Type_vector(3, 2, 4, MPI_INT, &vec); /* ints 0,1,4,5,8,9 */
    MPI_Type_commit(&vec);
    MPI_Aint lb, ext, tlb, text;
    int sz;
    MPI_Type_get_extent(vec, &lb, &ext);
    MPI_Type_size(vec, &sz);
    CHECK(lb == 0 && ext == 10 * (MPI_Aint)sizeof(int) && sz == 6 * (int)sizeof(int), "vector");
    MPI_Type_create_hvector(2, 1, 3 * sizeof(double), MPI_DOUBLE, &hvec);
    int bl[2] = {1, 2}, dis[2] = {3, 0};
    MPI_Type_indexed(2, bl, dis, MPI_INT, &idx); /* typemap order: 3, 0, 1 */
    MPI_Type_commit(&idx);
    MPI_Type_get_true_extent(idx, &tlb, &text);
    CHECK(tlb == 0 && text == 4 * (MPI_Aint)sizeof(int), "indexed true extent");
    int bd[3] = {4, 0, 2};
    MPI_Type_create_indexed_block(3, 1, bd, MPI_INT, &blk);
    MPI_Type_commit(&blk);
    struct s { char c; double d; int i[2]; } sv[2];
    memset(sv, 0, sizeof sv);
    int sbl[3] = {1, 1, 2};
    MPI_Aint sdisp[3];
    MPI_Datatype sty[3] = {MPI_CHAR, MPI_DOUBLE, MPI_INT};
    MPI_Aint base;
    MPI_Get_address(&sv[0], &base);
    MPI_Get_address(&sv[0].c, &sdisp[0]);
    MPI_Get_address(&sv[0].d, &sdisp[1]);
    MPI_Get_address(&sv[0].i, &sdisp[2]);
    for (int k = 0; k < 3; k++)
        sdisp[k] = MPI_Aint_diff(sdisp[k], base);
    MPI_Type_create_struct(3, sbl, sdisp, sty, &st);
    MPI_Type_create_resized(st, 0, sizeof(struct s), &res);
    MPI_Type_commit(&res);
    MPI_Type_get_extent(res, &lb, &ext);
    CHECK(ext == (MPI_Aint)sizeof(struct s), "resized extent");
    int ni, na, nt, comb;
    MPI_Type_get_envelope(st, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_STRUCT && ni == 4 && na == 3 && nt == 3, "envelope");
    int ints[4];
    MPI_Aint ais[3];
    MPI_Datatype tys[3];
    MPI_Type_get_contents(st, 4, 3, 3, ints, ais, tys);
    CHECK(ints[0] == 3 && ints[3] == 2 && ais[1] == sdisp[1] && tys[2] == MPI_INT, "contents");
    MPI_Type_get_envelope(MPI_INT, &ni, &na, &nt, &comb);
    CHECK(comb == MPI_COMBINER_NAMED, "named");
    int gs[2] = {4, 6}, ss[2] = {2, 3}, so[2] = {1, 2};
    MPI_Type_create_subarray(2, gs, ss, so, MPI_ORDER_C, MPI_INT, &sub);
    MPI_Type_commit(&sub);
    MPI_Type_dup(sub, &dup);
    MPI_Type_commit(&dup);
    int psz[2] = {2, 1}, distr[2] = {MPI_DISTRIBUTE_BLOCK, MPI_DISTRIBUTE_NONE},
        darg[2] = {MPI_DISTRIBUTE_DFLT_DARG, MPI_DISTRIBUTE_DFLT_DARG};
    MPI_Type_create_darray(2, 1, 2, gs, distr, darg, psz, MPI_ORDER_C, MPI_INT, &darr);
    MPI_Type_commit(&darr);
    MPI_Type_size(darr, &sz);
    CHECK(sz == 12 * (int)sizeof(int), "darray size %d", sz);

    /* Pack / Unpack round trip of the subarray out of a 4x6 matrix */
    int m[24], back[24], pos = 0;
    for (int i = 0; i < 24; i++)
        m[i] = i;
    char pbuf[256];
    int psize;
    MPI_Pack_size(1, dup, MPI_COMM_WORLD, &psize);
    CHECK(psize == 6 * (int)sizeof(int), "Pack_size");
    MPI_Pack(m, 1, dup, pbuf, sizeof pbuf, &pos, MPI_COMM_WORLD);
    int *pi = (int *)pbuf;
    CHECK(pi[0] == 8 && pi[2] == 10 && pi[3] == 14 && pi[5] == 16, "subarray pack order");
    memset(back, 0, sizeof back);
    pos = 0;
    MPI_Unpack(pbuf, psize, &pos, back, 1, sub, MPI_COMM_WORLD);
    CHECK(back[8] == 8 && back[16] == 16 && back[0] == 0 && back[11] == 0, "unpack");
    /* external32: big-endian bytes */
    int one = 0x01020304, got = 0;
    unsigned char ext32[4];
    MPI_Aint ep = 0;
    MPI_Pack_external("external32", &one, 1, MPI_INT, ext32, 4, &ep);
    CHECK(ext32[0] == 1 && ext32[3] == 4 && ep == 4, "external32 is big-endian");
    ep = 0;
    MPI_Unpack_external("external32", ext32, 4, &ep, &got, 1, MPI_INT);
    CHECK(got == one, "external32 round trip");

    /* p2p: send 3 vectors (non-contiguous), receive as contiguous ints and as indexed */
    if (size_ >= 2 && rank_ < 2) {
        enum { N = 20000 }; /* 20000 * 6 ints: rendezvous */
        int *src = xmalloc(sizeof(int) * 10 * N), *dst = xmalloc(sizeof(int) * 6 * N);
        for (int i = 0; i < 10 * N; i++)
            src[i] = i;
        if (rank_ == 0) {
            MPI_Send(src, N, vec, 1, 1, MPI_COMM_WORLD);
            MPI_Send(src, 1, vec, 1, 2, MPI_COMM_WORLD);
            MPI_Send(sv, 2, res, 1, 3, MPI_COMM_WORLD);
        } else {
            MPI_Status stt;
            MPI_Recv(dst, 6 * N, MPI_INT, 0, 1, MPI_COMM_WORLD, &stt);
            for (int e = 0; e < N; e++)
                for (int k = 0; k < 6; k++)
                    CHECK(dst[6 * e + k] == 10 * e + (k / 2) * 4 + k % 2, "vec->int %d %d", e, k);
            int cnt;
            MPI_Get_count(&stt, MPI_INT, &cnt);
            CHECK(cnt == 6 * N, "count %d", cnt);
            MPI_Get_count(&stt, vec, &cnt);
            CHECK(cnt == N, "count in vectors %d", cnt);
            int two[2 * 6];
            memset(two, 0, sizeof two);
            MPI_Recv(two, 2, idx, 0, 2, MPI_COMM_WORLD, &stt); /* 6 ints into 2 x indexed */
            /* idx element e places ints at 4e+3, 4e+0, 4e+1 (extent 4 ints) */
            CHECK(two[3] == 0 && two[0] == 1 && two[1] == 4 && two[7] == 5 && two[4] == 8 &&
                      two[5] == 9, "vec->indexed");
            int el;
            MPI_Get_elements(&stt, idx, &el);
            CHECK(el == 6, "Get_elements %d", el);
            struct s r2[2];
            memset(r2, 0, sizeof r2);
            MPI_Recv(r2, 2, res, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        }
        free(src);
        free(dst);
    }
    (void)sv;
    MPI_Type_free(&vec);
    MPI_Type_free(&hvec);
    MPI_Type_free(&idx);
    MPI_Type_free(&blk);
    MPI_Type_free(&st);
    MPI_Type_free(&res);
    MPI_Type_free(&sub);
    MPI_Type_free(&dup);
    MPI_Type_free(&darr);
    CHECK(vec == MPI_DATATYPE_NULL, "Type_free sets NULL");
    return finish();
}
