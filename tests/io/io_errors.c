/* io_errors.c — file management and the error classes of MPI-IO: missing file, bad and
 * inconsistent access modes, MPI_MODE_EXCL on an existing file, writes to a read-only file and
 * reads of a write-only one, MPI_MODE_SEQUENTIAL restrictions, MPI_MODE_DELETE_ON_CLOSE,
 * MPI_File_delete; the default handler MPI_ERRORS_RETURN, a user file error handler and
 * MPI_File_call_errhandler; amode, group, size, preallocate, info hints, c2f / f2c, seek and
 * positions, byte offsets through a view. */
#include "io_test.h"

static int handler_calls, handler_class;
static MPI_File handler_file;

static void file_eh(MPI_File *fh, int *err, ...)
{
    handler_calls++;
    handler_file = *fh;
    handler_class = io_class(*err);
}

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    io_setup();
    MPI_File fh;
    const char *missing = io_path("missing"), *f = io_path("data");

    /* the default error handler of files returns */
    MPI_Errhandler eh;
    SM_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &eh));
    SM_CHECK(eh == MPI_ERRORS_RETURN, "default file error handler is not MPI_ERRORS_RETURN");

    IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, missing, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
              MPI_ERR_NO_SUCH_FILE);
    SM_CHECK(fh == MPI_FILE_NULL, "failed open left a handle");
    IO_EXPECT(
        MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_RDONLY | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
        MPI_ERR_AMODE);
    IO_EXPECT(
        MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_RDONLY | MPI_MODE_CREATE, MPI_INFO_NULL, &fh),
        MPI_ERR_AMODE);
    IO_EXPECT(
        MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_RDWR | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL, &fh),
        MPI_ERR_AMODE);
    IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, f, 0, MPI_INFO_NULL, &fh), MPI_ERR_AMODE);
    /* the access mode must agree */
    if (sm_size > 1)
        IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, f,
                                MPI_MODE_CREATE | (sm_rank ? MPI_MODE_RDWR : MPI_MODE_WRONLY),
                                MPI_INFO_NULL, &fh),
                  MPI_ERR_NOT_SAME);
    IO_EXPECT(MPI_File_delete(missing, MPI_INFO_NULL), MPI_ERR_NO_SUCH_FILE);
    IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, io_dir, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
              MPI_ERR_BAD_FILE);
    IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, io_dir, MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
              MPI_ERR_BAD_FILE);

    /* create, check the metadata */
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "65536");
    MPI_Info_set(info, "my_own_key", "kept");
    SM_MPI(MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_CREATE | MPI_MODE_RDWR, info, &fh));
    MPI_Info_free(&info);
    int amode;
    SM_MPI(MPI_File_get_amode(fh, &amode));
    SM_CHECK(amode == (MPI_MODE_CREATE | MPI_MODE_RDWR), "amode %#x", amode);
    MPI_Group g, wg;
    int cmp;
    SM_MPI(MPI_File_get_group(fh, &g));
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_compare(g, wg, &cmp);
    SM_CHECK(cmp == MPI_IDENT, "file group differs from the communicator's");
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Info used;
    char v[MPI_MAX_INFO_VAL + 1];
    int flag;
    SM_MPI(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "cb_buffer_size", MPI_MAX_INFO_VAL, v, &flag);
    SM_CHECK(flag && !strcmp(v, "65536"), "cb_buffer_size hint not reported (%s)", v);
    MPI_Info_get(used, "my_own_key", MPI_MAX_INFO_VAL, v, &flag);
    SM_CHECK(flag && !strcmp(v, "kept"), "unknown key not kept");
    MPI_Info_get(used, "cb_nodes", MPI_MAX_INFO_VAL, v, &flag);
    SM_CHECK(flag && atoi(v) >= 1, "cb_nodes not reported");
    MPI_Info_free(&used);
    MPI_Info_create(&info);
    MPI_Info_set(info, "romio_cb_write", "disable");
    SM_MPI(MPI_File_set_info(fh, info));
    MPI_Info_free(&info);
    SM_MPI(MPI_File_get_info(fh, &used));
    MPI_Info_get(used, "romio_cb_write", MPI_MAX_INFO_VAL, v, &flag);
    SM_CHECK(flag && !strcmp(v, "disable"), "romio_cb_write not updated (%s)", v);
    MPI_Info_free(&used);

    MPI_Offset size;
    SM_MPI(MPI_File_set_size(fh, 1000));
    SM_MPI(MPI_File_get_size(fh, &size));
    SM_CHECK(size == 1000, "size %lld after set_size(1000)", (long long)size);
    SM_MPI(MPI_File_preallocate(fh, 4000));
    SM_MPI(MPI_File_get_size(fh, &size));
    SM_CHECK(size == 4000, "size %lld after preallocate(4000)", (long long)size);
    SM_MPI(MPI_File_preallocate(fh, 10)); /* never shrinks */
    SM_MPI(MPI_File_get_size(fh, &size));
    SM_CHECK(size == 4000, "preallocate shrank the file to %lld", (long long)size);
    SM_MPI(MPI_File_set_size(fh, 0));

    /* seek, positions, byte offsets through a strided view of ints */
    MPI_Datatype vec;
    MPI_Type_vector(4, 1, 3, MPI_INT, &vec); /* 4 ints, stride 3: extent 10 ints */
    MPI_Datatype ft;
    MPI_Type_create_resized(vec, 0, 12 * sizeof(int), &ft);
    MPI_Type_commit(&ft);
    SM_MPI(MPI_File_set_view(fh, 100, MPI_INT, ft, "native", MPI_INFO_NULL));
    MPI_Offset pos, byte;
    SM_MPI(MPI_File_seek(fh, 5, MPI_SEEK_SET));
    SM_MPI(MPI_File_seek(fh, 2, MPI_SEEK_CUR));
    SM_MPI(MPI_File_get_position(fh, &pos));
    SM_CHECK(pos == 7, "position %lld, expected 7", (long long)pos);
    SM_MPI(MPI_File_get_byte_offset(fh, pos, &byte));
    /* etype 7 = element 1 (48 bytes), its 4th int (3 * 3 * 4 bytes) */
    SM_CHECK(byte == 100 + 48 + 36, "byte offset %lld", (long long)byte);
    IO_EXPECT(MPI_File_seek(fh, -100, MPI_SEEK_CUR), MPI_ERR_ARG);
    IO_EXPECT(MPI_File_seek(fh, 0, 12345), MPI_ERR_ARG);
    MPI_Datatype et, ft2;
    char rep[MPI_MAX_DATAREP_STRING];
    MPI_Offset disp;
    SM_MPI(MPI_File_get_view(fh, &disp, &et, &ft2, rep));
    SM_CHECK(disp == 100 && et == MPI_INT && !strcmp(rep, "native"), "get_view");
    int size1, size2;
    MPI_Type_size(ft2, &size1);
    MPI_Type_size(ft, &size2);
    SM_CHECK(size1 == size2, "get_view filetype size");
    MPI_Type_free(&ft2);
    MPI_Type_free(&ft);
    MPI_Type_free(&vec);
    /* a write past the end, then MPI_SEEK_END lands after it */
    int one = 7;
    MPI_Status st;
    if (sm_rank == 0)
        SM_MPI(MPI_File_write_at(fh, 9, &one, 1, MPI_INT, MPI_STATUS_IGNORE));
    MPI_Barrier(MPI_COMM_WORLD);
    SM_MPI(MPI_File_sync(fh));
    SM_MPI(MPI_File_seek(fh, 0, MPI_SEEK_END));
    SM_MPI(MPI_File_get_position(fh, &pos));
    SM_CHECK(pos == 10, "SEEK_END position %lld, expected 10", (long long)pos);
    SM_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, "native", MPI_INFO_NULL));
    IO_EXPECT(MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "no-such-rep", MPI_INFO_NULL),
              MPI_ERR_UNSUPPORTED_DATAREP);

    /* c2f / f2c */
    MPI_Fint fi = MPI_File_c2f(fh);
    SM_CHECK(MPI_File_f2c(fi) == fh, "c2f/f2c round trip");

    /* a user error handler sees the file and the class; call_errhandler reaches it too */
    MPI_Errhandler ueh;
    SM_MPI(MPI_File_create_errhandler(file_eh, &ueh));
    SM_MPI(MPI_File_set_errhandler(fh, ueh));
    MPI_Errhandler got;
    SM_MPI(MPI_File_get_errhandler(fh, &got));
    SM_CHECK(got == ueh, "get_errhandler");
    MPI_Errhandler_free(&got);
    MPI_Errhandler_free(&ueh);
    int x;
    MPI_File_read_at(fh, -1, &x, 1, MPI_INT, MPI_STATUS_IGNORE);
    SM_CHECK(handler_calls == 1 && handler_file == fh && handler_class == MPI_ERR_ARG,
             "user handler: %d calls, class %d", handler_calls, handler_class);
    SM_MPI(MPI_File_call_errhandler(fh, MPI_ERR_IO));
    SM_CHECK(handler_calls == 2 && handler_class == MPI_ERR_IO, "call_errhandler");
    SM_MPI(MPI_File_set_errhandler(fh, MPI_ERRORS_RETURN));
    SM_MPI(MPI_File_close(&fh));
    SM_CHECK(fh == MPI_FILE_NULL, "close did not reset the handle");
    IO_EXPECT(MPI_File_close(&fh), MPI_ERR_FILE);

    /* views must place data at non-negative, non-decreasing, non-overlapping displacements
     * (overlaps are fine for a file only read) */
    {
        SM_MPI(MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        int dneg[2] = { -2, 2 }, ddec[2] = { 3, 0 }, dovl[2] = { 0, 1 }, b1[2] = { 1, 1 },
            b3[2] = { 3, 1 };
        MPI_Datatype t;
        int *disps[3] = { dneg, ddec, dovl }, *blens[3] = { b1, b1, b3 };
        for (int k = 0; k < 3; k++) {
            MPI_Type_indexed(2, blens[k], disps[k], MPI_INT, &t);
            MPI_Type_commit(&t);
            IO_EXPECT(MPI_File_set_view(fh, 0, MPI_INT, t, "native", MPI_INFO_NULL), MPI_ERR_IO);
            IO_EXPECT(MPI_File_set_view(fh, 0, t, t, "native", MPI_INFO_NULL), MPI_ERR_IO);
            MPI_Type_free(&t);
        }
        SM_MPI(MPI_File_close(&fh));
        SM_MPI(MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
        MPI_Type_indexed(2, b3, dovl, MPI_INT, &t);
        MPI_Type_commit(&t);
        SM_MPI(MPI_File_set_view(fh, 0, MPI_INT, t, "native", MPI_INFO_NULL));
        MPI_Type_free(&t);
        SM_MPI(MPI_File_close(&fh));
    }

    /* a collective read reaching past end of file fills only what the file has, with and
     * without collective buffering, and says so in the status */
    {
        SM_MPI(MPI_File_open(MPI_COMM_WORLD, io_path("short"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                             MPI_INFO_NULL, &fh));
        int five[5] = { 1, 2, 3, 4, 5 }, ten[10], c10;
        if (sm_rank == 0)
            SM_MPI(MPI_File_write_at(fh, 0, five, 5, MPI_INT, MPI_STATUS_IGNORE));
        SM_MPI(MPI_File_sync(fh));
        MPI_Barrier(MPI_COMM_WORLD);
        SM_MPI(MPI_File_sync(fh));
        for (int cbon = 0; cbon < 2; cbon++) {
            MPI_Info_create(&info);
            MPI_Info_set(info, "romio_cb_read", cbon ? "enable" : "disable");
            SM_MPI(MPI_File_set_info(fh, info));
            MPI_Info_free(&info);
            for (int i = 0; i < 10; i++)
                ten[i] = 99;
            SM_MPI(MPI_File_read_at_all(fh, 0, ten, 10, MPI_INT, &st));
            MPI_Get_count(&st, MPI_INT, &c10);
            SM_CHECK(c10 == 5, "short collective read count %d (cb %d)", c10, cbon);
            for (int i = 0; i < 10; i++)
                SM_CHECK(ten[i] == (i < 5 ? i + 1 : 99), "short read [%d] = %d (cb %d)", i,
                         ten[i], cbon);
        }
        /* the old MPIO_Request names still work */
        MPIO_Request mr;
        SM_MPI(MPI_File_iread_at(fh, 0, ten, 2, MPI_INT, &mr));
        SM_MPI(MPIO_Wait(&mr, &st));
        SM_CHECK(ten[0] == 1 && ten[1] == 2, "iread_at through MPIO_Request");
        /* the large-count forms */
        MPI_Count ce;
        SM_MPI(MPI_File_get_type_extent_c(fh, MPI_INT, &ce));
        SM_CHECK(ce == 4, "get_type_extent_c %lld", (long long)ce);
        int two[2] = { 1000 + sm_rank, 2000 + sm_rank }, got2[2] = { 0, 0 };
        MPI_Offset at = 400 + 8 * sm_rank;
        SM_MPI(MPI_File_write_at_c(fh, at, two, (MPI_Count)2, MPI_INT, &st));
        MPI_Count cc;
        MPI_Get_count_c(&st, MPI_INT, &cc);
        SM_CHECK(cc == 2, "write_at_c count %lld", (long long)cc);
        SM_MPI(MPI_File_read_at_all_c(fh, at, got2, (MPI_Count)2, MPI_INT, &st));
        SM_CHECK(got2[0] == two[0] && got2[1] == two[1], "read_at_all_c");
        MPI_Request rq;
        got2[0] = got2[1] = 0;
        SM_MPI(MPI_File_iread_at_c(fh, at, got2, (MPI_Count)2, MPI_INT, &rq));
        SM_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        SM_CHECK(got2[1] == two[1], "iread_at_c");
        SM_MPI(MPI_File_seek(fh, at, MPI_SEEK_SET)); /* the byte view: etypes are bytes */
        SM_MPI(MPI_File_write_all_begin_c(fh, two, (MPI_Count)2, MPI_INT));
        SM_MPI(MPI_File_write_all_end(fh, two, &st));
        MPI_Offset p2;
        SM_MPI(MPI_File_get_position(fh, &p2));
        SM_CHECK(p2 == at + 8, "write_all_begin_c moved the pointer to %lld", (long long)p2);
        /* a split collective needs its _begin, and only one at a time */
        IO_EXPECT(MPI_File_read_all_end(fh, ten, &st), MPI_ERR_OTHER);
        SM_MPI(MPI_File_close(&fh));
    }

    /* a wrong argument on one process of a collective call: every process returns an error
     * (none is left waiting in the exchange) */
    if (sm_size > 1) {
        SM_MPI(MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        int y[2] = { 1, 2 };
        int e1 =
            MPI_File_write_at_all(fh, 0, y, sm_rank == 1 ? -1 : 2, MPI_INT, MPI_STATUS_IGNORE);
        SM_CHECK(io_class(e1) == MPI_ERR_COUNT, "one bad count: class %d on rank %d",
                 io_class(e1), sm_rank);
        int e2 = MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, sm_rank == 1 ? "bogus" : "native",
                                   MPI_INFO_NULL);
        SM_CHECK(e2 != MPI_SUCCESS, "one bad datarep: rank %d succeeded", sm_rank);
        int e3 =
            MPI_File_read_at_all(fh, sm_rank == 1 ? -5 : 0, y, 2, MPI_INT, MPI_STATUS_IGNORE);
        SM_CHECK(io_class(e3) == MPI_ERR_ARG, "one negative offset: class %d", io_class(e3));
        /* and the file still works afterwards */
        SM_MPI(MPI_File_write_at_all(fh, 4 * sm_rank, y, 1, MPI_INT, MPI_STATUS_IGNORE));
        SM_MPI(MPI_File_close(&fh));
    }

    /* MPI_MODE_EXCL on an existing file */
    IO_EXPECT(MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_CREATE | MPI_MODE_EXCL | MPI_MODE_RDWR,
                            MPI_INFO_NULL, &fh),
              MPI_ERR_FILE_EXISTS);

    /* read-only: writes fail with MPI_ERR_ACCESS, reads work */
    SM_MPI(MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    IO_EXPECT(MPI_File_write_at(fh, 0, &one, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    IO_EXPECT(MPI_File_write_all(fh, &one, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    IO_EXPECT(MPI_File_set_size(fh, 0), MPI_ERR_ACCESS);
    SM_MPI(MPI_File_read_at(fh, 208, &x, 1, MPI_INT, &st));
    int cnt;
    MPI_Get_count(&st, MPI_INT, &cnt);
    SM_CHECK(x == 7 && cnt == 1, "read back %d (count %d)", x, cnt);
    /* a read at end of file reads nothing */
    SM_MPI(MPI_File_read_at(fh, 212, &x, 1, MPI_INT, &st));
    MPI_Get_count(&st, MPI_INT, &cnt);
    SM_CHECK(cnt == 0, "read past the end gave count %d", cnt);
    IO_EXPECT(MPI_File_read_at(fh, 0, &x, -1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_COUNT);
    SM_MPI(MPI_File_close(&fh));

    /* write-only: reads fail */
    SM_MPI(MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_WRONLY, MPI_INFO_NULL, &fh));
    IO_EXPECT(MPI_File_read_at(fh, 0, &x, 1, MPI_INT, MPI_STATUS_IGNORE), MPI_ERR_ACCESS);
    SM_MPI(MPI_File_close(&fh));

    /* sequential: only shared file pointers */
    SM_MPI(MPI_File_open(MPI_COMM_WORLD, f, MPI_MODE_WRONLY | MPI_MODE_SEQUENTIAL, MPI_INFO_NULL,
                         &fh));
    IO_EXPECT(MPI_File_write_at(fh, 0, &one, 1, MPI_INT, MPI_STATUS_IGNORE),
              MPI_ERR_UNSUPPORTED_OPERATION);
    IO_EXPECT(MPI_File_seek(fh, 0, MPI_SEEK_SET), MPI_ERR_UNSUPPORTED_OPERATION);
    IO_EXPECT(MPI_File_set_view(fh, -1, MPI_INT, MPI_INT, "native", MPI_INFO_NULL), MPI_ERR_ARG);
    SM_MPI(MPI_File_write_shared(fh, &one, 1, MPI_INT, MPI_STATUS_IGNORE));
    /* MPI_DISPLACEMENT_CURRENT: the new view starts where the shared pointer is */
    MPI_Barrier(MPI_COMM_WORLD);
    SM_MPI(MPI_File_set_view(fh, MPI_DISPLACEMENT_CURRENT, MPI_INT, MPI_INT, "native",
                             MPI_INFO_NULL));
    SM_MPI(MPI_File_get_view(fh, &disp, &et, &ft2, rep));
    SM_CHECK(disp == 4 * sm_size, "MPI_DISPLACEMENT_CURRENT gave %lld, expected %d",
             (long long)disp, 4 * sm_size);
    SM_MPI(MPI_File_close(&fh));

    /* delete on close; then MPI_File_delete of it fails */
    const char *tmpf = io_path("gone");
    SM_MPI(MPI_File_open(MPI_COMM_WORLD, tmpf,
                         MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                         MPI_INFO_NULL, &fh));
    SM_MPI(MPI_File_write_at(fh, sm_rank * 4, &one, 1, MPI_INT, MPI_STATUS_IGNORE));
    SM_MPI(MPI_File_close(&fh));
    SM_CHECK(access(tmpf, F_OK) != 0, "MPI_MODE_DELETE_ON_CLOSE left the file");
    MPI_Barrier(MPI_COMM_WORLD);
    if (sm_rank == 0) {
        SM_MPI(MPI_File_delete(f, MPI_INFO_NULL));
        SM_MPI(MPI_File_delete(io_path("short"), MPI_INFO_NULL));
        SM_CHECK(io_count_files() == 0, "%d files left (shared-pointer side files?)",
                 io_count_files());
    }
    io_cleanup();
    sm_finish();
    return 0;
}
