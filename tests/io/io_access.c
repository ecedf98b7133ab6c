/* io_access.c — every data-access mode through every kind of view: contiguous blocks,
 * interleaved vectors, 2-D subarrays, block-cyclic darrays and irregular indexed
 * partitions of one global array of ints.  Each rank writes its part (explicit offsets,
 * the individual pointer, blocking, non-blocking, split collective, independent and
 * collective with collective buffering forced on and off, from contiguous and strided
 * memory), rank 0 checks the whole file through a plain byte view, and every rank reads its
 * part back the same way.  The expected global index of each element a view exposes comes
 * from MPI_Pack of an index array with the filetype, so any filetype checks the same way.
 * cb_buffer_size is small so collective buffering takes several rounds. */
#include "io_test.h"

enum { K = 1024 }; /* ints per rank (about: the darray and indexed parts vary) */
static int G;      /* ints in the file */

/* filetype kind k for this rank */
static MPI_Datatype make_type(int k)
{
    MPI_Datatype t, r;
    int P = sm_size, me = sm_rank;
    switch (k) {
    case 0: /* one contiguous block per rank */
        MPI_Type_create_subarray(1, &G, (int[]){ K }, (int[]){ me * K }, MPI_ORDER_C, MPI_INT,
                                 &t);
        break;
    case 1: /* interleaved blocks of 8 ints */
        MPI_Type_vector(K / 8, 8, 8 * P, MPI_INT, &r);
        MPI_Type_create_resized(r, 0, (MPI_Aint)G * 4, &t);
        MPI_Type_free(&r);
        {
            /* shift by rank: an hindexed of one block at me*32 bytes */
            MPI_Datatype s;
            int one = 1;
            MPI_Aint d = me * 32;
            MPI_Type_create_hindexed(1, &one, &d, t, &s);
            MPI_Type_free(&t);
            MPI_Type_create_resized(s, 0, (MPI_Aint)G * 4, &t);
            MPI_Type_free(&s);
        }
        break;
    case 2: { /* a column block of a 16 x 64P array */
        int gs[2] = { 16, 64 * P }, ss[2] = { 16, 64 }, st[2] = { 0, 64 * me };
        MPI_Type_create_subarray(2, gs, ss, st, MPI_ORDER_C, MPI_INT, &t);
        break;
    }
    case 3: { /* block-cyclic 32 x 32P, blocks of 4 x 4 */
        int dims[2] = { 0, 0 };
        MPI_Dims_create(P, 2, dims);
        int gs[2] = { 32, 32 * P }, ds[2] = { MPI_DISTRIBUTE_CYCLIC, MPI_DISTRIBUTE_CYCLIC },
            da[2] = { 4, 4 };
        MPI_Type_create_darray(P, me, 2, gs, ds, da, dims, MPI_ORDER_C, MPI_INT, &t);
        break;
    }
    default: { /* chunks of 1, 2, 3, 5 ints dealt round robin */
        int *bl = malloc(sizeof(int) * G), *dp = malloc(sizeof(int) * G), n = 0, pos = 0, c = 0;
        while (pos < G) {
            int len = (int[]){ 1, 2, 3, 5 }[c % 4];
            if (pos + len > G)
                len = G - pos;
            if (c % P == me) {
                bl[n] = len;
                dp[n++] = pos;
            }
            pos += len;
            c++;
        }
        MPI_Type_indexed(n, bl, dp, MPI_INT, &r);
        MPI_Type_create_resized(r, 0, (MPI_Aint)G * 4, &t);
        MPI_Type_free(&r);
        free(bl);
        free(dp);
        break;
    }
    }
    MPI_Type_commit(&t);
    return t;
}

enum {
    M_AT_ALL,
    M_AT_ALL_NOCB,
    M_ALL,
    M_AT,
    M_INDIV,
    M_IAT,
    M_IALL,
    M_IAT_ALL,
    M_SPLIT_AT,
    M_SPLIT,
    M_AT_ALL_STRIDED,
    M_N
};
static const char *mname[] = {
    "at_all", "at_all(cb off)",     "all", "at", "indiv", "iat", "iall", "iat_all", "split_at",
    "split",  "at_all(strided mem)"
};

/* one access of n ints by method m; data in buf (strided methods use every other int) */
static void do_access(MPI_File fh, int write, int m, int *buf, int n, MPI_Status *st)
{
    MPI_Request rq;
    MPI_Datatype strided;
    switch (m) {
    case M_AT_ALL:
    case M_AT_ALL_NOCB:
        SM_MPI(write ? MPI_File_write_at_all(fh, 0, buf, n, MPI_INT, st)
                     : MPI_File_read_at_all(fh, 0, buf, n, MPI_INT, st));
        break;
    case M_ALL:
        SM_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        SM_MPI(write ? MPI_File_write_all(fh, buf, n, MPI_INT, st)
                     : MPI_File_read_all(fh, buf, n, MPI_INT, st));
        break;
    case M_AT:
        SM_MPI(write ? MPI_File_write_at(fh, 0, buf, n, MPI_INT, st)
                     : MPI_File_read_at(fh, 0, buf, n, MPI_INT, st));
        break;
    case M_INDIV: { /* two halves through the individual pointer */
        SM_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        int h = n / 2;
        SM_MPI(write ? MPI_File_write(fh, buf, h, MPI_INT, st)
                     : MPI_File_read(fh, buf, h, MPI_INT, st));
        MPI_Offset pos;
        SM_MPI(MPI_File_get_position(fh, &pos));
        SM_CHECK(pos == h, "individual pointer at %lld, expected %d", (long long)pos, h);
        SM_MPI(write ? MPI_File_write(fh, buf + h, n - h, MPI_INT, MPI_STATUS_IGNORE)
                     : MPI_File_read(fh, buf + h, n - h, MPI_INT, MPI_STATUS_IGNORE));
        if (st != MPI_STATUS_IGNORE)
            MPI_Status_set_elements(st, MPI_INT, n);
        break;
    }
    case M_IAT:
        SM_MPI(write ? MPI_File_iwrite_at(fh, 0, buf, n, MPI_INT, &rq)
                     : MPI_File_iread_at(fh, 0, buf, n, MPI_INT, &rq));
        SM_MPI(MPI_Wait(&rq, st));
        break;
    case M_IALL: {
        SM_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        SM_MPI(write ? MPI_File_iwrite_all(fh, buf, n, MPI_INT, &rq)
                     : MPI_File_iread_all(fh, buf, n, MPI_INT, &rq));
        int flag = 0;
        while (!flag)
            SM_MPI(MPI_Test(&rq, &flag, st));
        break;
    }
    case M_IAT_ALL:
        SM_MPI(write ? MPI_File_iwrite_at_all(fh, 0, buf, n, MPI_INT, &rq)
                     : MPI_File_iread_at_all(fh, 0, buf, n, MPI_INT, &rq));
        SM_MPI(MPI_Waitall(1, &rq, st == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : st));
        break;
    case M_SPLIT_AT:
        if (write) {
            SM_MPI(MPI_File_write_at_all_begin(fh, 0, buf, n, MPI_INT));
            SM_MPI(MPI_File_write_at_all_end(fh, buf, st));
        } else {
            SM_MPI(MPI_File_read_at_all_begin(fh, 0, buf, n, MPI_INT));
            SM_MPI(MPI_File_read_at_all_end(fh, buf, st));
        }
        break;
    case M_SPLIT:
        SM_MPI(MPI_File_seek(fh, 0, MPI_SEEK_SET));
        if (write) {
            SM_MPI(MPI_File_write_all_begin(fh, buf, n, MPI_INT));
            SM_MPI(MPI_File_write_all_end(fh, buf, st));
        } else {
            SM_MPI(MPI_File_read_all_begin(fh, buf, n, MPI_INT));
            SM_MPI(MPI_File_read_all_end(fh, buf, st));
        }
        break;
    case M_AT_ALL_STRIDED:
        MPI_Type_vector(n, 1, 2, MPI_INT, &strided);
        MPI_Type_commit(&strided);
        SM_MPI(write ? MPI_File_write_at_all(fh, 0, buf, 1, strided, st)
                     : MPI_File_read_at_all(fh, 0, buf, 1, strided, st));
        MPI_Type_free(&strided);
        break;
    }
}

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    io_setup();
    G = K * sm_size;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "cb_buffer_size", "4096");
    MPI_Info_set(info, "cb_nodes", sm_size > 1 ? "2" : "1");
    MPI_Info_set(info, "striping_unit", "1024");
    MPI_File fh;
    SM_MPI(MPI_File_open(MPI_COMM_WORLD, io_path("access"), MPI_MODE_CREATE | MPI_MODE_RDWR, info,
                         &fh));
    MPI_Info_free(&info);
    int *index = malloc(sizeof(int) * G), *expect = malloc(sizeof(int) * G);
    int *buf = malloc(sizeof(int) * 2 * G), *file = malloc(sizeof(int) * G);
    for (int i = 0; i < G; i++)
        index[i] = i;
    int seed = 0;
    for (int k = 0; k < 5; k++) {
        MPI_Datatype ft = make_type(k);
        int bytes;
        MPI_Type_size(ft, &bytes);
        int n = bytes / 4, pos = 0;
        /* the global index of each element of my view, in view order */
        MPI_Pack(index, 1, ft, expect, G * 4, &pos, MPI_COMM_WORLD);
        for (int m = 0; m < M_N; m++) {
            seed += 1000003;
            int stride = m == M_AT_ALL_STRIDED ? 2 : 1;
            MPI_Info hint;
            MPI_Info_create(&hint);
            MPI_Info_set(hint, "romio_cb_write", m == M_AT_ALL_NOCB ? "disable" : "enable");
            MPI_Info_set(hint, "romio_cb_read", m == M_AT_ALL_NOCB ? "disable" : "enable");
            SM_MPI(MPI_File_set_view(fh, 0, MPI_INT, ft, "native", hint));
            MPI_Info_free(&hint);
            for (int i = 0; i < n; i++)
                buf[i * stride] = expect[i] + seed;
            MPI_Status st;
            do_access(fh, 1, m, buf, n, &st);
            int cnt;
            MPI_Get_elements(&st, MPI_INT, &cnt);
            SM_CHECK(cnt == n, "type %d %s: write status has %d ints, expected %d", k, mname[m],
                     cnt, n);
            SM_MPI(MPI_File_sync(fh));
            MPI_Barrier(MPI_COMM_WORLD);
            SM_MPI(MPI_File_sync(fh));
            /* rank 0 reads the whole file as plain bytes */
            if (sm_rank == 0) {
                MPI_File f0;
                SM_MPI(MPI_File_open(MPI_COMM_SELF, io_path("access"), MPI_MODE_RDONLY,
                                     MPI_INFO_NULL, &f0));
                SM_MPI(MPI_File_read_at(f0, 0, file, G, MPI_INT, &st));
                MPI_Get_count(&st, MPI_INT, &cnt);
                SM_CHECK(cnt == G, "type %d %s: file has %d ints, expected %d", k, mname[m], cnt,
                         G);
                for (int i = 0; i < G; i++)
                    SM_CHECK(file[i] == i + seed, "type %d %s: file[%d] = %d, expected %d", k,
                             mname[m], i, file[i] - seed, i);
                SM_MPI(MPI_File_close(&f0));
            }
            MPI_Barrier(MPI_COMM_WORLD);
            memset(buf, 0xff, sizeof(int) * 2 * G);
            do_access(fh, 0, m, buf, n, &st);
            MPI_Get_elements(&st, MPI_INT, &cnt);
            SM_CHECK(cnt == n, "type %d %s: read status has %d ints, expected %d", k, mname[m],
                     cnt, n);
            for (int i = 0; i < n; i++)
                SM_CHECK(buf[i * stride] == expect[i] + seed,
                         "type %d %s: read back [%d] = %d, expected %d", k, mname[m], i,
                         buf[i * stride] - seed, expect[i]);
            if (stride == 2)
                for (int i = 0; i < n; i++)
                    SM_CHECK(buf[2 * i + 1] == -1, "strided read wrote a gap");
            MPI_Barrier(MPI_COMM_WORLD);
        }
        MPI_Type_free(&ft);
    }
    SM_MPI(MPI_File_close(&fh));
    free(index);
    free(expect);
    free(buf);
    free(file);
    io_cleanup();
    sm_finish();
    return 0;
}
