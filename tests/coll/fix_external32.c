/* fix_external32.c — the "external32" representation has its own sizes (MPI_LONG and
 * MPI_UNSIGNED_LONG 4 bytes, pair types without padding, long double as IEEE binary128), all
 * big-endian: sizes, exact bytes of a few values, and round trips of predefined and derived
 * types. */
#include <stddef.h>

#include "../common/mpi_test.h"

static MPI_Aint ext_size(int n, MPI_Datatype t)
{
    MPI_Aint sz = -1;
    MPI_Pack_external_size("external32", n, t, &sz);
    return sz;
}

static void pack(const void *in, int n, MPI_Datatype t, unsigned char *out, MPI_Aint cap,
                 MPI_Aint *pos)
{
    *pos = 0;
    MPI_Pack_external("external32", in, n, t, out, cap, pos);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    CHECK(ext_size(3, MPI_LONG) == 12, "LONG: %ld", (long)ext_size(3, MPI_LONG));
    CHECK(ext_size(1, MPI_UNSIGNED_LONG) == 4, "UNSIGNED_LONG");
    CHECK(ext_size(1, MPI_DOUBLE_INT) == 12, "DOUBLE_INT: %ld", (long)ext_size(1, MPI_DOUBLE_INT));
    CHECK(ext_size(1, MPI_SHORT_INT) == 6, "SHORT_INT");
    CHECK(ext_size(1, MPI_LONG_INT) == 8, "LONG_INT");
    CHECK(ext_size(2, MPI_LONG_DOUBLE) == 32, "LONG_DOUBLE");
    CHECK(ext_size(1, MPI_INT) == 4 && ext_size(1, MPI_DOUBLE) == 8, "INT / DOUBLE");

    unsigned char buf[64];
    MPI_Aint pos;
    long l[2] = {-2, 0x01020304};
    pack(l, 2, MPI_LONG, buf, sizeof buf, &pos);
    static const unsigned char lw[8] = {0xff, 0xff, 0xff, 0xfe, 0x01, 0x02, 0x03, 0x04};
    CHECK(pos == 8 && !memcmp(buf, lw, 8), "LONG bytes");
    long lb[2] = {0, 0};
    pos = 0;
    MPI_Unpack_external("external32", buf, 8, &pos, lb, 2, MPI_LONG);
    CHECK(lb[0] == -2 && lb[1] == 0x01020304, "LONG round trip %ld %ld", lb[0], lb[1]);
    unsigned long ul = 0xfffffffeUL, ub = 0;
    pack(&ul, 1, MPI_UNSIGNED_LONG, buf, sizeof buf, &pos);
    pos = 0;
    MPI_Unpack_external("external32", buf, 4, &pos, &ub, 1, MPI_UNSIGNED_LONG);
    CHECK(ub == 0xfffffffeUL, "UNSIGNED_LONG round trip %lx", ub);

    struct { double d; int i; } di = {1.5, -3}, dib = {0, 0};
    pack(&di, 1, MPI_DOUBLE_INT, buf, sizeof buf, &pos);
    static const unsigned char dw[12] = {0x3f, 0xf8, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xfd};
    CHECK(pos == 12 && !memcmp(buf, dw, 12), "DOUBLE_INT bytes");
    pos = 0;
    MPI_Unpack_external("external32", buf, 12, &pos, &dib, 1, MPI_DOUBLE_INT);
    CHECK(dib.d == 1.5 && dib.i == -3, "DOUBLE_INT round trip");

    long double ld = 1.5L, ldb = 0;
    pack(&ld, 1, MPI_LONG_DOUBLE, buf, sizeof buf, &pos);
    CHECK(pos == 16 && buf[0] == 0x3f && buf[1] == 0xff && buf[2] == 0x80 && buf[15] == 0,
          "LONG_DOUBLE as binary128: %02x %02x %02x", buf[0], buf[1], buf[2]);
    pos = 0;
    MPI_Unpack_external("external32", buf, 16, &pos, &ldb, 1, MPI_LONG_DOUBLE);
    CHECK(ldb == 1.5L, "LONG_DOUBLE round trip");

    /* a derived type: { long, short, double } twice, with gaps */
    struct rec { long a; short b; double c; } r[2] = {{-7, 9, 2.25}, {123456, -1, -0.5}}, rb[2];
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3] = {offsetof(struct rec, a), offsetof(struct rec, b), offsetof(struct rec, c)};
    MPI_Datatype ts[3] = {MPI_LONG, MPI_SHORT, MPI_DOUBLE}, t;
    MPI_Type_create_struct(3, bl, disp, ts, &t);
    MPI_Type_commit(&t);
    CHECK(ext_size(2, t) == 2 * (4 + 2 + 8), "struct size %ld", (long)ext_size(2, t));
    pack(r, 2, t, buf, sizeof buf, &pos);
    memset(rb, 0, sizeof rb);
    MPI_Aint p2 = 0;
    MPI_Unpack_external("external32", buf, pos, &p2, rb, 2, t);
    for (int i = 0; i < 2; i++)
        CHECK(rb[i].a == r[i].a && rb[i].b == r[i].b && rb[i].c == r[i].c, "struct %d", i);
    MPI_Type_free(&t);
    return finish();
}
