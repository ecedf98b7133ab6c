/* io_shared.c — shared file pointers across processes: independent MPI_File_write_shared
 * records land each exactly once and the pointer ends after all of them; the ordered
 * collectives place each rank's data in rank order (blocking and split); read_shared hands
 * out every record exactly once; iwrite_shared / iread_shared; seek_shared and
 * get_position_shared; all in etype units of a view with a displacement. */
#include "io_test.h"

enum { R = 20, REC = 4 }; /* records per rank, ints per record */

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    io_setup();
    int P = sm_size, me = sm_rank;
    MPI_File fh;
    MPI_Status st;
    MPI_Offset pos;
    int cnt;
    SM_MPI(MPI_File_open(MPI_COMM_WORLD, io_path("shared"), MPI_MODE_CREATE | MPI_MODE_RDWR,
                         MPI_INFO_NULL, &fh));
    MPI_Datatype rec;
    MPI_Type_contiguous(REC, MPI_INT, &rec);
    MPI_Type_commit(&rec);
    /* a 64-byte header the view skips; etype = one record */
    SM_MPI(MPI_File_set_view(fh, 64, rec, rec, "native", MPI_INFO_NULL));

    /* independent shared writes, half of them non-blocking */
    for (int i = 0; i < R; i++) {
        int r[REC] = { me, i, 0x5eed, me * 1000 + i };
        if (i % 2) {
            MPI_Request rq;
            SM_MPI(MPI_File_iwrite_shared(fh, r, 1, rec, &rq));
            SM_MPI(MPI_Wait(&rq, &st));
        } else {
            SM_MPI(MPI_File_write_shared(fh, r, 1, rec, &st));
        }
        MPI_Get_count(&st, rec, &cnt);
        SM_CHECK(cnt == 1, "write_shared count %d", cnt);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    SM_MPI(MPI_File_get_position_shared(fh, &pos));
    SM_CHECK(pos == (MPI_Offset)P * R, "shared pointer at %lld, expected %d", (long long)pos,
             P * R);
    if (me == 0) {
        int *all = malloc(sizeof(int) * REC * P * R), *seen = calloc((size_t)P * R, sizeof(int));
        SM_MPI(MPI_File_read_at(fh, 0, all, P * R, rec, &st));
        MPI_Get_count(&st, rec, &cnt);
        SM_CHECK(cnt == P * R, "read %d records", cnt);
        for (int i = 0; i < P * R; i++) {
            int *r = all + REC * i;
            SM_CHECK(r[0] >= 0 && r[0] < P && r[1] >= 0 && r[1] < R && r[2] == 0x5eed &&
                         r[3] == r[0] * 1000 + r[1],
                     "record %d garbled (%d %d %d %d)", i, r[0], r[1], r[2], r[3]);
            SM_CHECK(!seen[r[0] * R + r[1]]++, "record (%d,%d) twice", r[0], r[1]);
        }
        free(all);
        free(seen);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* every record read once by someone through read_shared */
    SM_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET));
    int mine = 0, sum_mine = 0;
    for (;;) {
        int r[REC];
        if (mine % 2) {
            MPI_Request rq;
            SM_MPI(MPI_File_iread_shared(fh, r, 1, rec, &rq));
            SM_MPI(MPI_Wait(&rq, &st));
        } else {
            SM_MPI(MPI_File_read_shared(fh, r, 1, rec, &st));
        }
        MPI_Get_count(&st, rec, &cnt);
        if (cnt == 0)
            break;
        SM_CHECK(r[2] == 0x5eed, "read_shared got a garbled record");
        mine++;
        sum_mine += r[3];
    }
    int total, sum;
    MPI_Allreduce(&mine, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&sum_mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    int want = 0;
    for (int p = 0; p < P; p++)
        for (int i = 0; i < R; i++)
            want += p * 1000 + i;
    SM_CHECK(total == P * R && sum == want, "read_shared: %d records (sum %d), expected %d (%d)",
             total, sum, P * R, want);

    /* ordered: rank r writes r + 1 records after everything so far */
    SM_MPI(MPI_File_seek_shared(fh, 0, MPI_SEEK_END));
    SM_MPI(MPI_File_get_position_shared(fh, &pos));
    SM_CHECK(pos == (MPI_Offset)P * R, "SEEK_END put the shared pointer at %lld", (long long)pos);
    int *mineb = malloc(sizeof(int) * REC * (me + 1));
    for (int j = 0; j <= me; j++)
        for (int q = 0; q < REC; q++)
            mineb[REC * j + q] = 100000 + me * 100 + j;
    SM_MPI(MPI_File_write_ordered(fh, mineb, me + 1, rec, &st));
    MPI_Get_count(&st, rec, &cnt);
    SM_CHECK(cnt == me + 1, "write_ordered count %d", cnt);
    int tri = P * (P + 1) / 2;
    SM_MPI(MPI_File_get_position_shared(fh, &pos));
    SM_CHECK(pos == (MPI_Offset)P * R + tri, "after write_ordered the pointer is at %lld",
             (long long)pos);
    /* the same again with the split collective */
    SM_MPI(MPI_File_write_ordered_begin(fh, mineb, me + 1, rec));
    SM_MPI(MPI_File_write_ordered_end(fh, mineb, &st));
    MPI_Barrier(MPI_COMM_WORLD);
    if (me == 0) {
        int *all = malloc(sizeof(int) * REC * 2 * tri);
        SM_MPI(MPI_File_read_at(fh, (MPI_Offset)P * R, all, 2 * tri, rec, &st));
        int at = 0;
        for (int rep = 0; rep < 2; rep++)
            for (int p = 0; p < P; p++)
                for (int j = 0; j <= p; j++, at++)
                    SM_CHECK(all[REC * at] == 100000 + p * 100 + j,
                             "ordered record %d is %d, expected %d", at, all[REC * at],
                             100000 + p * 100 + j);
        free(all);
    }
    /* read_ordered gives each rank back its own records */
    SM_MPI(MPI_File_seek_shared(fh, (MPI_Offset)P * R, MPI_SEEK_SET));
    memset(mineb, 0, sizeof(int) * REC * (me + 1));
    SM_MPI(MPI_File_read_ordered(fh, mineb, me + 1, rec, &st));
    for (int j = 0; j <= me; j++)
        SM_CHECK(mineb[REC * j] == 100000 + me * 100 + j, "read_ordered record %d", j);
    memset(mineb, 0, sizeof(int) * REC * (me + 1));
    SM_MPI(MPI_File_read_ordered_begin(fh, mineb, me + 1, rec));
    SM_MPI(MPI_File_read_ordered_end(fh, mineb, &st));
    for (int j = 0; j <= me; j++)
        SM_CHECK(mineb[REC * j] == 100000 + me * 100 + j, "split read_ordered record %d", j);
    free(mineb);
    SM_MPI(MPI_File_get_position_shared(fh, &pos));
    SM_CHECK(pos == (MPI_Offset)P * R + 2 * tri, "pointer at %lld at the end", (long long)pos);
    MPI_Type_free(&rec);
    SM_MPI(MPI_File_close(&fh));
    if (me == 0)
        SM_CHECK(io_count_files() == 1, "%d files left: the shared-pointer file stayed",
                 io_count_files());
    io_cleanup();
    sm_finish();
    return 0;
}
