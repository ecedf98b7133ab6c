/* mpi4_p2p.c — MPI-4 point-to-point extras: MPI_Isendrecv and MPI_Isendrecv_replace around a
 * ring (small and rendezvous sizes), to self and with MPI_PROC_NULL; MPI_Info_get_string's
 * buflen semantics; MPI_Buffer_flush / iflush and communicator buffers (incl.
 * MPI_BUFFER_AUTOMATIC). */
#include "sm_test.h"

static void ring(int n)
{
    int me = sm_rank, np = sm_size;
    int right = (me + 1) % np, left = (me + np - 1) % np;
    int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++) {
        s[i] = me * 7 + i;
        r[i] = -1;
    }
    MPI_Request q;
    MPI_Status st;
    SM_MPI(MPI_Isendrecv(s, n, MPI_INT, right, 5, r, n, MPI_INT, left, 5, MPI_COMM_WORLD, &q));
    SM_MPI(MPI_Wait(&q, &st));
    SM_CHECK(q == MPI_REQUEST_NULL, "request not freed");
    int c;
    SM_MPI(MPI_Get_count(&st, MPI_INT, &c));
    SM_CHECK(st.MPI_SOURCE == left && st.MPI_TAG == 5 && c == n, "status %d %d %d", st.MPI_SOURCE,
             st.MPI_TAG, c);
    for (int i = 0; i < n; i++)
        SM_CHECK(r[i] == left * 7 + i, "isendrecv n=%d [%d]=%d", n, i, r[i]);
    /* replace: the buffer receives while its old contents travel on */
    SM_MPI(MPI_Isendrecv_replace(s, n, MPI_INT, right, 6, left, 6, MPI_COMM_WORLD, &q));
    int flag = 0;
    while (!flag)
        SM_MPI(MPI_Test(&q, &flag, &st));
    SM_MPI(MPI_Get_count(&st, MPI_INT, &c));
    SM_CHECK(c == n, "replace count %d", c);
    for (int i = 0; i < n; i++)
        SM_CHECK(s[i] == left * 7 + i, "isendrecv_replace n=%d [%d]=%d", n, i, s[i]);
    free(s);
    free(r);
}

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    int me = sm_rank;
    ring(10);
    ring(100000); /* above the eager limit */

    /* to self, and with MPI_PROC_NULL */
    int a[3] = {1, 2, 3}, b[3] = {0, 0, 0};
    MPI_Request q;
    MPI_Status st;
    SM_MPI(MPI_Isendrecv(a, 3, MPI_INT, me, 1, b, 3, MPI_INT, me, 1, MPI_COMM_WORLD, &q));
    SM_MPI(MPI_Wait(&q, &st));
    SM_CHECK(b[0] == 1 && b[2] == 3 && st.MPI_SOURCE == me, "self isendrecv");
    SM_MPI(MPI_Isendrecv_replace(a, 3, MPI_INT, me, 2, me, 2, MPI_COMM_WORLD, &q));
    SM_MPI(MPI_Wait(&q, &st));
    SM_CHECK(a[0] == 1 && a[2] == 3, "self isendrecv_replace");
    b[0] = 42;
    SM_MPI(MPI_Isendrecv(a, 3, MPI_INT, MPI_PROC_NULL, 1, b, 3, MPI_INT, MPI_PROC_NULL, 1,
                         MPI_COMM_WORLD, &q));
    SM_MPI(MPI_Wait(&q, &st));
    int c;
    SM_MPI(MPI_Get_count(&st, MPI_INT, &c));
    SM_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && c == 0 && b[0] == 42, "PROC_NULL isendrecv");
    SM_MPI(MPI_Isendrecv_replace(a, 3, MPI_INT, MPI_PROC_NULL, 1, MPI_PROC_NULL, 1,
                                 MPI_COMM_WORLD, &q));
    SM_MPI(MPI_Wait(&q, &st));
    SM_CHECK(a[0] == 1 && st.MPI_SOURCE == MPI_PROC_NULL, "PROC_NULL isendrecv_replace");

    /* Info_get_string */
    MPI_Info info;
    SM_MPI(MPI_Info_create(&info));
    SM_MPI(MPI_Info_set(info, "color", "turquoise"));
    char v[64];
    int len = sizeof v, flag = -1;
    SM_MPI(MPI_Info_get_string(info, "color", &len, v, &flag));
    SM_CHECK(flag == 1 && len == 10 && strcmp(v, "turquoise") == 0, "get_string %d %d %s", flag,
             len, v);
    len = 5;
    memset(v, 'x', sizeof v);
    SM_MPI(MPI_Info_get_string(info, "color", &len, v, &flag));
    SM_CHECK(flag == 1 && len == 10 && strcmp(v, "turq") == 0, "short buffer %d %s", len, v);
    len = 0;
    SM_MPI(MPI_Info_get_string(info, "color", &len, NULL, &flag));
    SM_CHECK(flag == 1 && len == 10, "length query %d", len);
    len = sizeof v;
    SM_MPI(MPI_Info_get_string(info, "shape", &len, v, &flag));
    SM_CHECK(flag == 0, "missing key reported as present");
    SM_MPI(MPI_Info_free(&info));
    MPI_Info env;
    SM_MPI(MPI_Info_create_env(argc, argv, &env));
    len = sizeof v;
    SM_MPI(MPI_Info_get_string(env, "command", &len, v, &flag));
    SM_CHECK(flag == 1 && strstr(argv[0], v) != NULL, "create_env command '%s'", v);
    SM_MPI(MPI_Info_free(&env));

    /* buffered sends flushed: process buffer, then a communicator's automatic buffer */
    int np = sm_size, right = (me + 1) % np, left = (me + np - 1) % np;
    int bsz = 10 * (100 * (int)sizeof(int) + MPI_BSEND_OVERHEAD);
    char *buf = malloc((size_t)bsz);
    SM_MPI(MPI_Buffer_attach(buf, bsz));
    int msg[100], got[100];
    for (int k = 0; k < 10; k++) {
        for (int i = 0; i < 100; i++)
            msg[i] = me + k + i;
        SM_MPI(MPI_Bsend(msg, 100, MPI_INT, right, k, MPI_COMM_WORLD));
    }
    for (int k = 0; k < 10; k++) {
        SM_MPI(MPI_Recv(got, 100, MPI_INT, left, k, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        SM_CHECK(got[99] == left + k + 99, "bsend data");
    }
    SM_MPI(MPI_Buffer_flush());
    MPI_Request fr;
    SM_MPI(MPI_Bsend(msg, 100, MPI_INT, right, 99, MPI_COMM_WORLD));
    SM_MPI(MPI_Buffer_iflush(&fr));
    SM_MPI(MPI_Recv(got, 100, MPI_INT, left, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    SM_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    void *dbuf;
    int dsz;
    SM_MPI(MPI_Buffer_detach(&dbuf, &dsz));
    SM_CHECK(dbuf == buf && dsz == bsz, "detach");
    free(buf);

    MPI_Comm dup;
    SM_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    SM_MPI(MPI_Comm_attach_buffer(dup, MPI_BUFFER_AUTOMATIC, 0));
    for (int k = 0; k < 50; k++) /* no size limit */
        SM_MPI(MPI_Bsend(msg, 100, MPI_INT, right, k, dup));
    for (int k = 0; k < 50; k++)
        SM_MPI(MPI_Recv(got, 100, MPI_INT, left, k, dup, MPI_STATUS_IGNORE));
    SM_MPI(MPI_Comm_iflush_buffer(dup, &fr));
    SM_MPI(MPI_Wait(&fr, MPI_STATUS_IGNORE));
    SM_MPI(MPI_Comm_flush_buffer(dup));
    SM_MPI(MPI_Comm_detach_buffer(dup, &dbuf, &dsz));
    SM_CHECK(dbuf == MPI_BUFFER_AUTOMATIC && dsz == 0, "comm detach automatic");
    /* with nothing attached any more, a buffered send fails */
    SM_MPI(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    int rc = MPI_Bsend(msg, 100, MPI_INT, right, 0, dup), ec;
    MPI_Error_class(rc, &ec);
    SM_CHECK(ec == MPI_ERR_BUFFER, "bsend without a buffer: class %d", ec);
    SM_MPI(MPI_Comm_free(&dup));

    /* the MPI-4 error classes have strings */
    int cls[] = {MPI_ERR_SESSION, MPI_ERR_PROC_ABORTED, MPI_ERR_VALUE_TOO_LARGE,
                 MPI_ERR_ERRHANDLER};
    for (int i = 0; i < 4; i++) {
        char s[MPI_MAX_ERROR_STRING];
        int sl, k;
        SM_MPI(MPI_Error_string(cls[i], s, &sl));
        SM_MPI(MPI_Error_class(cls[i], &k));
        SM_CHECK(sl > 0 && k == cls[i], "error class %d", cls[i]);
    }
    sm_finish();
    return 0;
}
