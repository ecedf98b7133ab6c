/* io_datarep.c — data representations: external32 writes big-endian bytes of the standard's
 * sizes for ints, shorts, doubles, long longs and a struct of them, which read back equal
 * through external32 and show as big-endian through a native view; MPI_File_get_type_extent;
 * a representation registered with MPI_Register_datarep (its conversion functions run: ints
 * are stored complemented) and MPI_ERR_DUP_DATAREP for a second registration. */
#include "io_test.h"

static int conv_calls;

static int to_file(void *userbuf, MPI_Datatype dt, int count, void *filebuf, MPI_Offset position,
                   void *extra)
{
    (void)position, (void)extra;
    SM_CHECK(dt == MPI_INT, "conversion asked for another type");
    conv_calls++;
    for (int i = 0; i < count; i++)
        ((int *)filebuf)[i] = ~((int *)userbuf)[i];
    return MPI_SUCCESS;
}

static int from_file(void *userbuf, MPI_Datatype dt, int count, void *filebuf,
                     MPI_Offset position, void *extra)
{
    (void)position, (void)extra, (void)dt;
    conv_calls++;
    for (int i = 0; i < count; i++)
        ((int *)userbuf)[i] = ~((int *)filebuf)[i];
    return MPI_SUCCESS;
}

static int extent_fn(MPI_Datatype dt, MPI_Aint *extent, void *extra)
{
    (void)extra;
    MPI_Aint lb;
    return MPI_Type_get_extent(dt, &lb, extent);
}

struct rec {
    int i;
    short s;
    double d;
    long long l;
};

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    io_setup();
    int me = sm_rank;
    MPI_File fh;
    MPI_Status st;
    int cnt;
    SM_MPI(MPI_File_open(MPI_COMM_WORLD, io_path("rep"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh));
    /* ints: each rank 4 of them at its own place */
    SM_MPI(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "external32", MPI_INFO_NULL));
    MPI_Aint ext;
    SM_MPI(MPI_File_get_type_extent(fh, MPI_INT, &ext));
    SM_CHECK(ext == 4, "external32 extent of MPI_INT %ld", (long)ext);
    SM_MPI(MPI_File_get_type_extent(fh, MPI_DOUBLE, &ext));
    SM_CHECK(ext == 8, "external32 extent of MPI_DOUBLE %ld", (long)ext);
    int v[4] = { 0x01020304, -2, me, 0x7f000001 }, back[4];
    SM_MPI(MPI_File_write_at_all(fh, me * 4, v, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    SM_CHECK(cnt == 4, "external32 write count %d", cnt);
    SM_MPI(MPI_File_read_at_all(fh, me * 4, back, 4, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    SM_CHECK(cnt == 4 && !memcmp(v, back, sizeof v), "external32 int round trip");
    /* the bytes are big-endian */
    SM_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    unsigned char raw[16];
    SM_MPI(MPI_File_read_at(fh, me * 16, raw, 16, MPI_BYTE, MPI_STATUS_IGNORE));
    SM_CHECK(raw[0] == 1 && raw[1] == 2 && raw[2] == 3 && raw[3] == 4, "not big-endian");
    SM_CHECK(raw[4] == 0xff && raw[7] == 0xfe && raw[11] == (unsigned char)me,
             "external32 bytes of -2 / rank");

    /* a struct of mixed types: external32 is packed (no padding): 4 + 2 + 8 + 8 bytes */
    MPI_Datatype rt;
    int bl[4] = { 1, 1, 1, 1 };
    MPI_Aint dp[4] = { offsetof(struct rec, i), offsetof(struct rec, s), offsetof(struct rec, d),
                       offsetof(struct rec, l) };
    MPI_Datatype ty[4] = { MPI_INT, MPI_SHORT, MPI_DOUBLE, MPI_LONG_LONG };
    MPI_Type_create_struct(4, bl, dp, ty, &rt);
    MPI_Datatype rts;
    MPI_Type_create_resized(rt, 0, sizeof(struct rec), &rts);
    MPI_Type_commit(&rts);
    struct rec r[3], rb[3];
    memset(r, 0, sizeof r);
    for (int k = 0; k < 3; k++) {
        r[k].i = me * 10 + k;
        r[k].s = (short)(-k - 1);
        r[k].d = 1.5 * k + me;
        r[k].l = 0x0102030405060708LL + k;
    }
    SM_MPI(MPI_File_set_view(fh, 4096, MPI_BYTE, MPI_BYTE, "external32", MPI_INFO_NULL));
    SM_MPI(MPI_File_write_at_all(fh, me * 3 * 22, r, 3, rts, MPI_STATUS_IGNORE));
    memset(rb, 0, sizeof rb);
    SM_MPI(MPI_File_read_at_all(fh, me * 3 * 22, rb, 3, rts, &st));
    MPI_Get_count(&st, rts, &cnt);
    SM_CHECK(cnt == 3, "struct read count %d", cnt);
    for (int k = 0; k < 3; k++)
        SM_CHECK(rb[k].i == r[k].i && rb[k].s == r[k].s && rb[k].d == r[k].d && rb[k].l == r[k].l,
                 "struct %d round trip", k);
    SM_MPI(MPI_File_set_view(fh, 4096, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    SM_MPI(MPI_File_read_at(fh, me * 66 + 14, raw, 8, MPI_BYTE, MPI_STATUS_IGNORE));
    for (int b = 0; b < 8; b++)
        SM_CHECK(raw[b] == b + 1, "long long byte %d is %d (not big-endian)", b, raw[b]);
    MPI_Type_free(&rt);
    MPI_Type_free(&rts);

    /* MPI_LONG is 4 bytes in external32 (its values must fit): 3 longs take 12 bytes */
    if (me == 0) {
        MPI_File f1;
        SM_MPI(MPI_File_open(MPI_COMM_SELF, io_path("longs"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &f1));
        SM_MPI(MPI_File_set_view(f1, 0, MPI_LONG, MPI_LONG, "external32", MPI_INFO_NULL));
        long lv[3] = { -7, 123456, 0x01020304 }, lb[3] = { 0, 0, 0 };
        SM_MPI(MPI_File_write(f1, lv, 3, MPI_LONG, MPI_STATUS_IGNORE));
        MPI_Offset fsz, fpos;
        SM_MPI(MPI_File_get_size(f1, &fsz));
        SM_MPI(MPI_File_get_position(f1, &fpos));
        SM_CHECK(fsz == 12 && fpos == 3, "3 external32 longs: size %lld, position %lld",
                 (long long)fsz, (long long)fpos);
        SM_MPI(MPI_File_read_at(f1, 0, lb, 3, MPI_LONG, MPI_STATUS_IGNORE));
        SM_CHECK(lb[0] == -7 && lb[1] == 123456 && lb[2] == 0x01020304, "longs round trip");
        SM_MPI(MPI_File_close(&f1));
    }

    /* a registered representation */
    SM_MPI(MPI_Register_datarep("complement", from_file, to_file, extent_fn, NULL));
    IO_EXPECT(MPI_Register_datarep("complement", from_file, to_file, extent_fn, NULL),
              MPI_ERR_DUP_DATAREP);
    IO_EXPECT(MPI_Register_datarep("external32", from_file, to_file, extent_fn, NULL),
              MPI_ERR_DUP_DATAREP);
    SM_MPI(MPI_File_set_view(fh, 8192, MPI_INT, MPI_INT, "complement", MPI_INFO_NULL));
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    MPI_Datatype et, ft;
    SM_MPI(MPI_File_get_view(fh, &disp, &et, &ft, rep));
    SM_CHECK(!strcmp(rep, "complement") && disp == 8192, "get_view datarep %s", rep);
    SM_MPI(MPI_File_write_at(fh, me * 4, v, 4, MPI_INT, MPI_STATUS_IGNORE));
    memset(back, 0, sizeof back);
    SM_MPI(MPI_File_read_at(fh, me * 4, back, 4, MPI_INT, MPI_STATUS_IGNORE));
    SM_CHECK(!memcmp(v, back, sizeof v), "user representation round trip");
    SM_CHECK(conv_calls >= 2, "conversion functions not called (%d)", conv_calls);
    SM_MPI(MPI_File_set_view(fh, 8192, MPI_INT, MPI_INT, "native", MPI_INFO_NULL));
    SM_MPI(MPI_File_read_at(fh, me * 4, back, 4, MPI_INT, MPI_STATUS_IGNORE));
    for (int k = 0; k < 4; k++)
        SM_CHECK(back[k] == ~v[k], "stored form of int %d", k);
    SM_MPI(MPI_File_close(&fh));
    io_cleanup();
    sm_finish();
    return 0;
}
