/* grequest.c — generalized requests: when MPI calls query_fn, free_fn and cancel_fn (and with
 * which extra_state), the status query_fn builds, errors query_fn returns, and generalized
 * requests mixed with point-to-point requests in Waitall / Waitany / Testsome. */
#include "sm_test.h"

struct greq_state {
    char log[32]; /* q = query, f = free, c0 / c1 = cancel (complete flag) */
    int n;
    int query_err;  /* what query_fn returns */
    int cancelled;  /* query_fn reports a cancelled request */
};

static void note(struct greq_state *s, char c)
{
    if (s->n < (int)sizeof s->log - 1)
        s->log[s->n++] = c;
    s->log[s->n] = 0;
}

static int query_fn(void *extra, MPI_Status *st)
{
    struct greq_state *s = extra;
    note(s, 'q');
    st->MPI_SOURCE = 3;
    st->MPI_TAG = 42;
    MPI_Status_set_elements(st, MPI_BYTE, 7);
    MPI_Status_set_cancelled(st, s->cancelled);
    return s->query_err;
}

static int free_fn(void *extra)
{
    note(extra, 'f');
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    struct greq_state *s = extra;
    note(s, complete ? 'C' : 'c');
    s->cancelled = 1;
    return MPI_SUCCESS;
}

static MPI_Request start(struct greq_state *s)
{
    memset(s, 0, sizeof *s);
    MPI_Request r;
    SM_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, s, &r));
    SM_CHECK(r != MPI_REQUEST_NULL, "Grequest_start gave MPI_REQUEST_NULL");
    return r;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &sm_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &sm_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    struct greq_state s, s2;
    MPI_Status st;
    int flag, count;

    /* Test before completion: not complete, no callback; Wait after completion: query, free */
    MPI_Request r = start(&s);
    SM_MPI(MPI_Test(&r, &flag, &st));
    SM_CHECK(!flag && r != MPI_REQUEST_NULL && s.n == 0, "incomplete grequest: flag %d log '%s'",
             flag, s.log);
    SM_MPI(MPI_Grequest_complete(r));
    SM_CHECK(s.n == 0, "Grequest_complete called '%s'", s.log);
    SM_MPI(MPI_Wait(&r, &st));
    SM_CHECK(r == MPI_REQUEST_NULL, "Wait left the request");
    SM_CHECK(strcmp(s.log, "qf") == 0, "Wait: callbacks '%s', expected 'qf'", s.log);
    SM_MPI(MPI_Get_count(&st, MPI_BYTE, &count));
    SM_CHECK(st.MPI_SOURCE == 3 && st.MPI_TAG == 42 && count == 7,
             "status from query_fn: source %d tag %d count %d", st.MPI_SOURCE, st.MPI_TAG, count);

    /* Request_get_status queries without freeing; Wait with MPI_STATUS_IGNORE still queries */
    r = start(&s);
    SM_MPI(MPI_Request_get_status(r, &flag, &st));
    SM_CHECK(!flag && s.n == 0, "get_status before completion: flag %d log '%s'", flag, s.log);
    SM_MPI(MPI_Grequest_complete(r));
    SM_MPI(MPI_Request_get_status(r, &flag, &st));
    SM_CHECK(flag && strcmp(s.log, "q") == 0 && st.MPI_TAG == 42,
             "get_status after completion: flag %d log '%s'", flag, s.log);
    SM_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    SM_CHECK(strcmp(s.log, "qqf") == 0, "get_status then Wait: '%s'", s.log);

    /* Request_free before completion: free_fn at Grequest_complete, query_fn never (the
     * program completes it through a copy of the handle made before freeing) */
    MPI_Request keep;
    r = start(&s);
    keep = r;
    SM_MPI(MPI_Request_free(&r));
    SM_MPI(MPI_Grequest_complete(keep));
    SM_CHECK(strcmp(s.log, "f") == 0, "free then complete: '%s', expected 'f'", s.log);
    /* Request_free after completion: free_fn at once */
    r = start(&s);
    SM_MPI(MPI_Grequest_complete(r));
    SM_MPI(MPI_Request_free(&r));
    SM_CHECK(strcmp(s.log, "f") == 0, "complete then free: '%s', expected 'f'", s.log);

    /* Cancel: cancel_fn with complete = 0 before completion, 1 after; Test_cancelled sees it */
    r = start(&s);
    SM_MPI(MPI_Cancel(&r));
    SM_MPI(MPI_Grequest_complete(r));
    SM_MPI(MPI_Cancel(&r));
    SM_MPI(MPI_Wait(&r, &st));
    SM_CHECK(strcmp(s.log, "cCqf") == 0, "cancel: '%s', expected 'cCqf'", s.log);
    SM_MPI(MPI_Test_cancelled(&st, &flag));
    SM_CHECK(flag, "cancelled generalized request not reported cancelled");

    /* query_fn's error is the request's error: Wait returns it, Waitall reports it in status */
    r = start(&s);
    s.query_err = MPI_ERR_OTHER;
    SM_MPI(MPI_Grequest_complete(r));
    int err = MPI_Wait(&r, &st);
    SM_CHECK(err == MPI_ERR_OTHER && r == MPI_REQUEST_NULL && strcmp(s.log, "qf") == 0,
             "query error: Wait returned %d, log '%s'", err, s.log);

    /* mixed with point-to-point requests: a ring exchange and two generalized requests */
    int right = (sm_rank + 1) % sm_size, left = (sm_rank + sm_size - 1) % sm_size;
    int out = 1000 + sm_rank, in = -1;
    MPI_Request reqs[4];
    MPI_Status sts[4];
    reqs[0] = start(&s);
    SM_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 7, MPI_COMM_WORLD, &reqs[1]));
    SM_MPI(MPI_Isend(&out, 1, MPI_INT, right, 7, MPI_COMM_WORLD, &reqs[2]));
    reqs[3] = start(&s2);
    s2.query_err = MPI_ERR_OTHER;
    SM_MPI(MPI_Grequest_complete(reqs[0]));
    SM_MPI(MPI_Grequest_complete(reqs[3]));
    err = MPI_Waitall(4, reqs, sts);
    SM_CHECK(err == MPI_ERR_IN_STATUS, "Waitall with a failing grequest returned %d", err);
    SM_CHECK(sts[0].MPI_ERROR == MPI_SUCCESS && sts[0].MPI_TAG == 42 &&
                 sts[3].MPI_ERROR == MPI_ERR_OTHER && sts[1].MPI_ERROR == MPI_SUCCESS,
             "Waitall statuses: %d %d %d", sts[0].MPI_ERROR, sts[1].MPI_ERROR, sts[3].MPI_ERROR);
    SM_CHECK(in == 1000 + left && sts[1].MPI_SOURCE == left, "ring value %d", in);
    SM_CHECK(strcmp(s.log, "qf") == 0 && strcmp(s2.log, "qf") == 0, "Waitall logs '%s' '%s'",
             s.log, s2.log);
    for (int i = 0; i < 4; i++)
        SM_CHECK(reqs[i] == MPI_REQUEST_NULL, "Waitall left request %d", i);

    /* Waitany returns the point-to-point request while the grequest is pending, then it */
    reqs[0] = start(&s);
    SM_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 8, MPI_COMM_WORLD, &reqs[1]));
    SM_MPI(MPI_Send(&out, 1, MPI_INT, right, 8, MPI_COMM_WORLD));
    int idx;
    SM_MPI(MPI_Waitany(2, reqs, &idx, &st));
    SM_CHECK(idx == 1 && s.n == 0, "Waitany: index %d, log '%s'", idx, s.log);
    int outcount, indices[2];
    SM_MPI(MPI_Testsome(2, reqs, &outcount, indices, sts));
    SM_CHECK(outcount == 0, "Testsome on an incomplete grequest: %d", outcount);
    SM_MPI(MPI_Grequest_complete(reqs[0]));
    SM_MPI(MPI_Testsome(2, reqs, &outcount, indices, sts));
    SM_CHECK(outcount == 1 && indices[0] == 0 && sts[0].MPI_TAG == 42 &&
                 strcmp(s.log, "qf") == 0,
             "Testsome: outcount %d log '%s'", outcount, s.log);

    /* errors: completing twice, completing a non-generalized request */
    r = start(&s);
    SM_MPI(MPI_Grequest_complete(r));
    err = MPI_Grequest_complete(r);
    SM_CHECK(err == MPI_ERR_REQUEST, "second Grequest_complete returned %d", err);
    SM_MPI(MPI_Wait(&r, MPI_STATUS_IGNORE));
    SM_MPI(MPI_Irecv(&in, 1, MPI_INT, left, 9, MPI_COMM_WORLD, &reqs[0]));
    err = MPI_Grequest_complete(reqs[0]);
    SM_CHECK(err == MPI_ERR_REQUEST, "Grequest_complete of a receive returned %d", err);
    SM_MPI(MPI_Send(&out, 1, MPI_INT, right, 9, MPI_COMM_WORLD));
    SM_MPI(MPI_Wait(&reqs[0], MPI_STATUS_IGNORE));

    MPI_Barrier(MPI_COMM_WORLD);
    if (sm_rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
