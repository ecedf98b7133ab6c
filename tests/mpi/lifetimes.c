/* lifetimes.c — freeing objects that pending operations still use, and the wildcard
 * assertions.
 *   - MPI_Comm_free with point-to-point operations pending on the communicator (eager and
 *     rendezvous, sends and receives, a persistent receive): they complete normally, with the
 *     source translated through the freed communicator's rank map (a reordered split);
 *   - freeing the communicator, a user op and a derived datatype while non-blocking
 *     collectives that use them run (intra- and intercommunicator);
 *   - 300 rounds of dup / post / free / complete (under ASan this shows nothing leaks);
 *   - mpi_assert_no_any_tag / mpi_assert_no_any_source: a wildcard receive or probe on such a
 *     communicator fails with MPI_ERR_TAG / MPI_ERR_RANK, named ones still work.
 * Needs at least 2 ranks.  Standard MPI only. */
#include "sm_test.h"

static void sum_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    (void)dt;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

static void free_with_pending_p2p(void)
{
    /* reversed order: rank r of WORLD is rank size-1-r of rev */
    MPI_Comm rev;
    MPI_Comm_split(MPI_COMM_WORLD, 0, sm_size - sm_rank, &rev);
    int me, n;
    MPI_Comm_rank(rev, &me);
    MPI_Comm_size(rev, &n);
    SM_CHECK(me == sm_size - 1 - sm_rank, "split order");
    const int big = 1 << 20; /* rendezvous */
    char *sb = malloc((size_t)big), *rb = malloc((size_t)big);
    int small_out = 1000 + me, small_in = -1;
    sm_fill(sb, (size_t)big, (unsigned)me);
    int to = (me + 1) % n, from = (me - 1 + n) % n;
    MPI_Request rq[4];
    MPI_Irecv(rb, big, MPI_CHAR, from, 1, rev, &rq[0]);
    MPI_Irecv(&small_in, 1, MPI_INT, MPI_ANY_SOURCE, 2, rev, &rq[1]);
    MPI_Barrier(MPI_COMM_WORLD); /* every receive posted */
    MPI_Isend(sb, big, MPI_CHAR, to, 1, rev, &rq[2]);
    MPI_Isend(&small_out, 1, MPI_INT, to, 2, rev, &rq[3]);
    MPI_Comm_free(&rev);
    SM_CHECK(rev == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");
    MPI_Status st[4];
    MPI_Waitall(4, rq, st);
    SM_VERIFY(rb, (size_t)big, (unsigned)from, "rendezvous data after Comm_free");
    SM_CHECK(small_in == 1000 + from, "eager data after Comm_free: %d", small_in);
    SM_CHECK(st[0].MPI_SOURCE == from && st[1].MPI_SOURCE == from,
             "source after Comm_free: %d %d, want %d", st[0].MPI_SOURCE, st[1].MPI_SOURCE, from);
    int cnt;
    MPI_Get_count(&st[0], MPI_CHAR, &cnt);
    SM_CHECK(cnt == big, "count %d", cnt);

    /* a persistent receive outlives its communicator's handle */
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    int pin = -1, pout = 77 + sm_rank;
    MPI_Request pr;
    MPI_Recv_init(&pin, 1, MPI_INT, (sm_rank - 1 + sm_size) % sm_size, 3, d, &pr);
    MPI_Send_init(&pout, 1, MPI_INT, (sm_rank + 1) % sm_size, 3, d, &rq[0]);
    MPI_Comm_free(&d);
    for (int round = 0; round < 3; round++) {
        pin = -1;
        MPI_Start(&pr);
        MPI_Start(&rq[0]);
        MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
        MPI_Wait(&pr, MPI_STATUS_IGNORE);
        SM_CHECK(pin == 77 + (sm_rank - 1 + sm_size) % sm_size, "persistent round %d", round);
    }
    MPI_Request_free(&pr);
    MPI_Request_free(&rq[0]);
    free(sb);
    free(rb);
}

static void free_during_nbc(void)
{
    MPI_Comm d;
    MPI_Comm_dup(MPI_COMM_WORLD, &d);
    MPI_Op op;
    MPI_Op_create(sum_op, 1, &op);
    MPI_Datatype vec; /* every other int of 2 * 1000 */
    MPI_Type_vector(1000, 1, 2, MPI_INT, &vec);
    MPI_Type_commit(&vec);
    int *in = malloc(sizeof(int) * 30000), *out = malloc(sizeof(int) * 30000);
    int *bc = malloc(sizeof(int) * 2000);
    for (int i = 0; i < 30000; i++)
        in[i] = sm_rank + i;
    for (int i = 0; i < 2000; i++)
        bc[i] = sm_rank == 0 ? i : -1;
    MPI_Request rq[3];
    MPI_Iallreduce(in, out, 30000, MPI_INT, op, d, &rq[0]);
    MPI_Ibcast(bc, 1, vec, 0, d, &rq[1]);
    MPI_Ibarrier(d, &rq[2]);
    MPI_Op_free(&op);
    MPI_Type_free(&vec);
    MPI_Comm_free(&d);
    SM_CHECK(op == MPI_OP_NULL && vec == MPI_DATATYPE_NULL && d == MPI_COMM_NULL, "handles");
    MPI_Waitall(3, rq, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 30000; i++)
        SM_CHECK(out[i] == sm_size * (sm_size - 1) / 2 + sm_size * i, "allreduce [%d]", i);
    for (int i = 0; i < 2000; i++)
        SM_CHECK(bc[i] == (i % 2 == 0 || sm_rank == 0 ? i : -1), "bcast [%d] = %d", i, bc[i]);
    /* the same on an intercommunicator (its hidden local communicator is used by the
     * reduction), the request freed by MPI_Request_free before it completes */
    int g = sm_rank % 2;
    MPI_Comm half, ic;
    MPI_Comm_split(MPI_COMM_WORLD, g, sm_rank, &half);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - g, 9, &ic);
    int rs;
    MPI_Comm_remote_size(ic, &rs);
    int one = sm_rank, sum = -1;
    MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, ic, &rq[0]);
    MPI_Ibarrier(ic, &rq[1]);
    MPI_Comm_free(&ic);
    MPI_Request_free(&rq[1]);
    MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
    int want = 0;
    for (int r = 1 - g; r < sm_size; r += 2)
        want += r;
    SM_CHECK(sum == want, "inter allreduce %d != %d", sum, want);
    MPI_Comm_free(&half);
    MPI_Barrier(MPI_COMM_WORLD);
    free(in);
    free(out);
    free(bc);
}

static void churn(void)
{
    for (int i = 0; i < 300; i++) {
        MPI_Comm d;
        MPI_Comm_dup(MPI_COMM_WORLD, &d);
        int x = -1, y = i;
        MPI_Request rq[2];
        MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, d, &rq[0]);
        MPI_Isend(&y, 1, MPI_INT, (sm_rank + 1) % sm_size, i, d, &rq[1]);
        MPI_Comm_free(&d);
        MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
        SM_CHECK(x == i, "churn %d: %d", i, x);
    }
}

static MPI_Comm with_info(const char *key)
{
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, key, "true");
    MPI_Comm c;
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, info, &c);
    MPI_Info_free(&info);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

static int err_class(int rc)
{
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    return cls;
}

static void assertions(void)
{
    MPI_Comm nt = with_info("mpi_assert_no_any_tag"), ns = with_info("mpi_assert_no_any_source");
    int x = 0, flag;
    char v[16];
    MPI_Info got;
    MPI_Comm_get_info(nt, &got);
    MPI_Info_get(got, "mpi_assert_no_any_tag", sizeof v - 1, v, &flag);
    SM_CHECK(flag && strcmp(v, "true") == 0, "Comm_get_info lost the assertion");
    MPI_Info_free(&got);
    MPI_Request rq = MPI_REQUEST_NULL;
    SM_CHECK(err_class(MPI_Irecv(&x, 1, MPI_INT, 0, MPI_ANY_TAG, nt, &rq)) == MPI_ERR_TAG,
             "ANY_TAG receive on a no_any_tag communicator");
    SM_CHECK(rq == MPI_REQUEST_NULL, "a request came back from an erroneous receive");
    SM_CHECK(err_class(MPI_Probe(0, MPI_ANY_TAG, nt, MPI_STATUS_IGNORE)) == MPI_ERR_TAG,
             "ANY_TAG probe on a no_any_tag communicator");
    SM_CHECK(err_class(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4, ns, &rq)) == MPI_ERR_RANK,
             "ANY_SOURCE receive on a no_any_source communicator");
    SM_CHECK(err_class(MPI_Iprobe(MPI_ANY_SOURCE, 4, ns, &flag, MPI_STATUS_IGNORE)) ==
                 MPI_ERR_RANK,
             "ANY_SOURCE probe on a no_any_source communicator");
    /* the other wildcard, and named receives, still work on each */
    int to = (sm_rank + 1) % sm_size, from = (sm_rank - 1 + sm_size) % sm_size;
    int a = -1, b = -1, out = sm_rank;
    MPI_Request r2[4];
    SM_CHECK(MPI_Irecv(&a, 1, MPI_INT, MPI_ANY_SOURCE, 4, nt, &r2[0]) == MPI_SUCCESS, "nt");
    SM_CHECK(MPI_Irecv(&b, 1, MPI_INT, from, MPI_ANY_TAG, ns, &r2[1]) == MPI_SUCCESS, "ns");
    MPI_Isend(&out, 1, MPI_INT, to, 4, nt, &r2[2]);
    MPI_Isend(&out, 1, MPI_INT, to, 5, ns, &r2[3]);
    MPI_Waitall(4, r2, MPI_STATUSES_IGNORE);
    SM_CHECK(a == from && b == from, "named receives on asserting communicators: %d %d", a, b);
    /* collectives run over named point-to-point, so they are unaffected */
    int s = 1, t = 0;
    MPI_Allreduce(&s, &t, 1, MPI_INT, MPI_SUM, nt);
    SM_CHECK(t == sm_size, "allreduce on nt");
    MPI_Allreduce(&s, &t, 1, MPI_INT, MPI_SUM, ns);
    SM_CHECK(t == sm_size, "allreduce on ns");
    MPI_Comm_free(&nt);
    MPI_Comm_free(&ns);
}

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    SM_CHECK(sm_size >= 2, "needs at least 2 ranks");
    free_with_pending_p2p();
    free_during_nbc();
    churn();
    assertions();
    return sm_finish();
}
