/* io_cbcount.c — collective buffering turns many small pieces into few large system calls.
 * Every rank writes its part of a block-cyclic 2-D array (blocks of 4 x 4 ints, darray
 * filetype: 16-byte pieces) with MPI_File_write_all, once with romio_cb_write=enable and
 * cb_nodes=1 into "cb", once with romio_cb_write=disable and data sieving off into "nocb",
 * and reads both back with MPI_File_read_all.  cbcount_check.sh runs it with SCTPMPI_STATS=1
 * and compares the write calls each file took (printed at MPI_File_close). */
#include "io_test.h"

enum { NG = 256, BS = 4 };

static void one(const char *name, int cb, MPI_Datatype ft, int *buf, int n)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", cb ? "enable" : "disable");
    MPI_Info_set(info, "romio_cb_read", cb ? "enable" : "disable");
    MPI_Info_set(info, "romio_ds_write", cb ? "automatic" : "disable");
    MPI_Info_set(info, "romio_ds_read", cb ? "automatic" : "disable");
    MPI_Info_set(info, "cb_nodes", "1");
    MPI_File fh;
    SM_MPI(
        MPI_File_open(MPI_COMM_WORLD, io_path(name), MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    SM_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", MPI_INFO_NULL));
    SM_MPI(MPI_File_write_all(fh, buf, n, MPI_INT, MPI_STATUS_IGNORE));
    SM_MPI(MPI_File_sync(fh));
    int *back = malloc(sizeof(int) * (size_t)n);
    SM_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
    SM_MPI(MPI_File_read_all(fh, back, n, MPI_INT, MPI_STATUS_IGNORE));
    for (int i = 0; i < n; i++)
        SM_CHECK(back[i] == buf[i], "%s: element %d read back %d, wrote %d", name, i, back[i],
                 buf[i]);
    free(back);
    SM_MPI(MPI_File_close(&fh));
}

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    io_setup();
    int dims[2] = { 0, 0 };
    MPI_Dims_create(sm_size, 2, dims);
    int gs[2] = { NG, NG }, ds[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC },
        da[2] = { BS, BS };
    MPI_Datatype ft;
    MPI_Type_create_darray(sm_size, sm_rank, 2, gs, ds, da, dims, MPI_ORDER_C, MPI_INT, &ft);
    MPI_Type_commit(&ft);
    int bytes;
    MPI_Type_size(ft, &bytes);
    int n = bytes / 4, *buf = malloc(sizeof(int) * (size_t)(n ? n : 1));
    for (int i = 0; i < n; i++)
        buf[i] = sm_rank * 1000000 + i;
    one("cb", 1, ft, buf, n);
    one("nocb", 0, ft, buf, n);
    MPI_Type_free(&ft);
    free(buf);
    io_cleanup();
    sm_finish();
    return 0;
}
