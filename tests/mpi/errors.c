/* errors — argument checking with MPI_ERRORS_RETURN on MPI_COMM_WORLD: a bad rank, a bad tag
 * (negative, > MPI_TAG_UB), a negative count, MPI_DATATYPE_NULL, MPI_COMM_NULL and a NULL buffer
 * with count > 0 each make Send / Isend / Recv / Irecv return an error of the right class
 * (MPI_ERR_RANK, MPI_ERR_TAG, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_COMM, MPI_ERR_BUFFER); a
 * truncated receive returns MPI_ERR_TRUNCATE; MPI_Error_string gives non-empty text for every
 * class; MPI_Error_class maps each class to itself; the error handler can be read back; and
 * communication still works after all that. */
#include "sm_test.h"

#include <limits.h>

static int nerr_checks;

/* Checks that rc is an error of class want. */
static void expect_class(int rc, int want, const char *what, int line)
{
    int cls = -1;
    if (rc != MPI_SUCCESS) MPI_Error_class(rc, &cls);
    char s1[MPI_MAX_ERROR_STRING] = "", s2[MPI_MAX_ERROR_STRING] = "";
    int l1 = 0, l2 = 0;
    if (rc != MPI_SUCCESS) MPI_Error_string(rc, s1, &l1);
    MPI_Error_string(want, s2, &l2);
    if (rc == MPI_SUCCESS || cls != want)
        sm_fail(__FILE__, line, "%s: returned %d (class %d, \"%s\"), want class %d (\"%s\")", what,
                rc, cls, s1, want, s2);
    SM_CHECK(l1 > 0 && l1 < MPI_MAX_ERROR_STRING && (size_t)l1 == strlen(s1),
             "%s: Error_string of code %d gave length %d for \"%s\"", what, rc, l1, s1);
    nerr_checks++;
}
#define EXPECT(call, cls) expect_class((call), (cls), #call, __LINE__)

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    SM_CHECK(sm_size >= 2, "needs at least 2 ranks");
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    SM_CHECK(eh == MPI_ERRORS_ARE_FATAL, "default error handler of COMM_WORLD is not "
             "MPI_ERRORS_ARE_FATAL");
    SM_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    SM_CHECK(eh == MPI_ERRORS_RETURN, "Comm_get_errhandler does not return MPI_ERRORS_RETURN");

    int *tag_ub = NULL, flag = 0;
    SM_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
    SM_CHECK(flag && tag_ub && *tag_ub >= 32767, "MPI_TAG_UB: flag %d value %d", flag,
             tag_ub ? *tag_ub : -1);
    const int ub = *tag_ub;

    const int peer = (sm_rank + 1) % sm_size;
    int buf[16] = {0};
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st;

    /* Error classes: Error_string non-empty, Error_class identity */
    const int classes[] = {MPI_ERR_BUFFER, MPI_ERR_COUNT, MPI_ERR_TYPE, MPI_ERR_TAG,
                           MPI_ERR_COMM, MPI_ERR_RANK, MPI_ERR_REQUEST, MPI_ERR_ARG,
                           MPI_ERR_UNKNOWN, MPI_ERR_TRUNCATE, MPI_ERR_OTHER, MPI_ERR_INTERN,
                           MPI_ERR_IN_STATUS, MPI_ERR_PENDING};
    for (int i = 0; i < (int)(sizeof classes / sizeof classes[0]); i++) {
        char s[MPI_MAX_ERROR_STRING];
        int len = -1, cls = -1;
        SM_MPI(MPI_Error_string(classes[i], s, &len));
        SM_CHECK(len > 0 && len < MPI_MAX_ERROR_STRING && (size_t)len == strlen(s),
                 "Error_string(%d) gave length %d", classes[i], len);
        SM_MPI(MPI_Error_class(classes[i], &cls));
        SM_CHECK(cls == classes[i], "Error_class(%d) = %d", classes[i], cls);
    }
    {
        char s[MPI_MAX_ERROR_STRING];
        int len = -1, cls = -1;
        SM_MPI(MPI_Error_string(MPI_SUCCESS, s, &len));
        SM_CHECK(len >= 0 && (size_t)len == strlen(s), "Error_string(MPI_SUCCESS) length %d", len);
        SM_MPI(MPI_Error_class(MPI_SUCCESS, &cls));
        SM_CHECK(cls == MPI_SUCCESS, "Error_class(MPI_SUCCESS) = %d", cls);
    }

    /* bad rank */
    EXPECT(MPI_Send(buf, 1, MPI_INT, sm_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, -5, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Send(buf, 1, MPI_INT, MPI_ANY_SOURCE, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, sm_size + 3, 0, MPI_COMM_WORLD, &rq), MPI_ERR_RANK);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, sm_size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, -7, 0, MPI_COMM_WORLD, &rq), MPI_ERR_RANK);
    EXPECT(MPI_Ssend(buf, 1, MPI_INT, sm_size, 0, MPI_COMM_WORLD), MPI_ERR_RANK);
    EXPECT(MPI_Probe(sm_size, 0, MPI_COMM_WORLD, &st), MPI_ERR_RANK);

    /* bad tag */
    EXPECT(MPI_Send(buf, 1, MPI_INT, peer, -1, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Send(buf, 1, MPI_INT, peer, -100, MPI_COMM_WORLD), MPI_ERR_TAG);
    EXPECT(MPI_Isend(buf, 1, MPI_INT, peer, MPI_ANY_TAG, MPI_COMM_WORLD, &rq), MPI_ERR_TAG);
    EXPECT(MPI_Recv(buf, 1, MPI_INT, peer, -5, MPI_COMM_WORLD, &st), MPI_ERR_TAG);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, peer, -5, MPI_COMM_WORLD, &rq), MPI_ERR_TAG);
    if (ub < INT_MAX) {
        EXPECT(MPI_Send(buf, 1, MPI_INT, peer, ub + 1, MPI_COMM_WORLD), MPI_ERR_TAG);
        EXPECT(MPI_Irecv(buf, 1, MPI_INT, peer, ub + 1, MPI_COMM_WORLD, &rq), MPI_ERR_TAG);
    }

    /* negative count */
    EXPECT(MPI_Send(buf, -1, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT(MPI_Isend(buf, -3, MPI_INT, peer, 0, MPI_COMM_WORLD, &rq), MPI_ERR_COUNT);
    EXPECT(MPI_Recv(buf, -1, MPI_INT, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_COUNT);
    EXPECT(MPI_Irecv(buf, -1, MPI_INT, peer, 0, MPI_COMM_WORLD, &rq), MPI_ERR_COUNT);

    /* null datatype */
    EXPECT(MPI_Send(buf, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, peer, 0, MPI_COMM_WORLD, &rq), MPI_ERR_TYPE);

    /* null communicator (its errors go to COMM_WORLD's handler, here ERRORS_RETURN) */
    EXPECT(MPI_Send(buf, 1, MPI_INT, peer, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT(MPI_Irecv(buf, 1, MPI_INT, peer, 0, MPI_COMM_NULL, &rq), MPI_ERR_COMM);
    {
        int r = -1;
        EXPECT(MPI_Comm_rank(MPI_COMM_NULL, &r), MPI_ERR_COMM);
    }

    /* NULL buffer with count > 0 */
    EXPECT(MPI_Send(NULL, 4, MPI_INT, peer, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT(MPI_Recv(NULL, 4, MPI_INT, peer, 0, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    EXPECT(MPI_Isend(NULL, 1, MPI_DOUBLE, peer, 0, MPI_COMM_WORLD, &rq), MPI_ERR_BUFFER);

    /* No message was sent by any of the failed calls: a NULL buffer with count 0 is fine, and
     * the first message each rank gets from its left neighbour is the real one. */
    {
        const int left = (sm_rank - 1 + sm_size) % sm_size;
        int v = 1000 + sm_rank, w = -1;
        SM_MPI(MPI_Sendrecv(&v, 1, MPI_INT, peer, 0, &w, 1, MPI_INT, left, MPI_ANY_TAG,
                            MPI_COMM_WORLD, &st));
        SM_CHECK(w == 1000 + left && st.MPI_TAG == 0, "after the errors got %d (tag %d) from %d",
                 w, st.MPI_TAG, left);
        SM_MPI(MPI_Sendrecv(NULL, 0, MPI_INT, peer, 1, NULL, 0, MPI_INT, left, 1, MPI_COMM_WORLD,
                            &st));
    }

    /* truncation: 10 ints into room for 5 */
    if (sm_rank == 0) {
        int big[10];
        for (int i = 0; i < 10; i++) big[i] = i;
        SM_MPI(MPI_Send(big, 10, MPI_INT, 1, 44, MPI_COMM_WORLD));
        SM_MPI(MPI_Send(big, 10, MPI_INT, 1, 45, MPI_COMM_WORLD));
    } else if (sm_rank == 1) {
        int small[5];
        EXPECT(MPI_Recv(small, 5, MPI_INT, 0, 44, MPI_COMM_WORLD, &st), MPI_ERR_TRUNCATE);
        /* nonblocking: the error is reported by Wait (return code or status.MPI_ERROR) */
        int rc = MPI_Irecv(small, 5, MPI_INT, 0, 45, MPI_COMM_WORLD, &rq);
        SM_CHECK(rc == MPI_SUCCESS, "Irecv returned %d", rc);
        st.MPI_ERROR = MPI_SUCCESS;
        rc = MPI_Wait(&rq, &st);
        if (rc == MPI_SUCCESS) rc = st.MPI_ERROR;
        expect_class(rc, MPI_ERR_TRUNCATE, "Irecv + Wait of a truncated message", __LINE__);
        /* (the buffer contents after a truncation are not defined by the standard) */
    }

    /* back to the default handler */
    SM_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &eh);
    SM_CHECK(eh == MPI_ERRORS_ARE_FATAL, "error handler not restored");
    if (sm_rank == 0 && getenv("SM_TEST_VERBOSE")) printf("%d error checks\n", nerr_checks);
    return sm_finish();
}
