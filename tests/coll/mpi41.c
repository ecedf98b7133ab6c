/* mpi41.c — the MPI-4.1 additions: status field accessors, Request_get_status_any/all/some
 * (non-destructive: the requests stay valid and are completed by Wait afterwards), removing
 * user error codes, classes and strings, Get_hw_resource_info and Type_get_value_index. */
#include "../common/mpi_test.h"

static void status_accessors(void)
{
    MPI_Status st;
    int v;
    MPI_Status_set_source(&st, 7);
    MPI_Status_set_tag(&st, 99);
    MPI_Status_set_error(&st, MPI_ERR_TAG);
    CHECK(st.MPI_SOURCE == 7 && st.MPI_TAG == 99 && st.MPI_ERROR == MPI_ERR_TAG, "set_*");
    MPI_Status_get_source(&st, &v);
    CHECK(v == 7, "get_source %d", v);
    MPI_Status_get_tag(&st, &v);
    CHECK(v == 99, "get_tag %d", v);
    MPI_Status_get_error(&st, &v);
    CHECK(v == MPI_ERR_TAG, "get_error %d", v);
}

/* rank r receives from r-1 (ring); the send is posted only after the checks that need the
 * receive to be incomplete */
static void request_status_arrays(void)
{
    int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
    int in[3] = {-1, -1, -1}, out[3] = {rank_, rank_ + 100, rank_ + 200};
    MPI_Request r[4];
    for (int i = 0; i < 3; i++)
        MPI_Irecv(&in[i], 1, MPI_INT, left, 10 + i, MPI_COMM_WORLD, &r[i]);
    r[3] = MPI_REQUEST_NULL;
    int flag = -1, idx = -2, outcount = -3, indices[4];
    MPI_Status sts[4];
    if (size_ > 1) {
        /* nothing sent yet: not complete (our left neighbour waits for the barrier below) */
        MPI_Request_get_status_all(4, r, &flag, MPI_STATUSES_IGNORE);
        CHECK(flag == 0, "get_status_all before any send: flag %d", flag);
        MPI_Request_get_status_any(4, r, &idx, &flag, MPI_STATUS_IGNORE);
        CHECK(flag == 0 && idx == MPI_UNDEFINED, "get_status_any: flag %d idx %d", flag, idx);
        MPI_Request_get_status_some(4, r, &outcount, indices, MPI_STATUSES_IGNORE);
        CHECK(outcount == 0, "get_status_some: outcount %d", outcount);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Send(&out[1], 1, MPI_INT, right, 11, MPI_COMM_WORLD);
    /* wait (non-destructively) until the tag-11 receive is done */
    do {
        MPI_Request_get_status_any(4, r, &idx, &flag, &sts[0]);
    } while (!flag);
    /* the left neighbour may have sent all three by now: any one of them may be first */
    CHECK(idx >= 0 && idx < 3 && sts[0].MPI_TAG == 10 + idx && sts[0].MPI_SOURCE == left,
          "get_status_any: idx %d tag %d source %d", idx, sts[0].MPI_TAG, sts[0].MPI_SOURCE);
    CHECK(r[idx] != MPI_REQUEST_NULL, "get_status_any freed the request");
    MPI_Send(&out[0], 1, MPI_INT, right, 10, MPI_COMM_WORLD);
    MPI_Send(&out[2], 1, MPI_INT, right, 12, MPI_COMM_WORLD);
    do {
        MPI_Request_get_status_all(4, r, &flag, sts);
    } while (!flag);
    for (int i = 0; i < 3; i++)
        CHECK(sts[i].MPI_TAG == 10 + i && sts[i].MPI_SOURCE == left, "get_status_all status %d",
              i);
    MPI_Request_get_status_some(4, r, &outcount, indices, sts);
    CHECK(outcount == 3 && indices[0] == 0 && indices[2] == 2, "get_status_some: %d", outcount);
    for (int i = 0; i < 4; i++)
        CHECK(i == 3 || r[i] != MPI_REQUEST_NULL, "a get_status call freed request %d", i);
    MPI_Waitall(4, r, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 3; i++)
        CHECK(in[i] == left + 100 * i, "received %d, expected %d", in[i], left + 100 * i);
    /* only inactive requests: flag true, index / outcount undefined */
    MPI_Request_get_status_any(4, r, &idx, &flag, MPI_STATUS_IGNORE);
    CHECK(flag == 1 && idx == MPI_UNDEFINED, "all null: any flag %d idx %d", flag, idx);
    MPI_Request_get_status_some(4, r, &outcount, indices, MPI_STATUSES_IGNORE);
    CHECK(outcount == MPI_UNDEFINED, "all null: some outcount %d", outcount);
}

static void remove_errors(void)
{
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int klass, code, len, k;
    char msg[MPI_MAX_ERROR_STRING];
    MPI_Add_error_class(&klass);
    MPI_Add_error_code(klass, &code);
    MPI_Add_error_string(code, "a user error");
    MPI_Error_string(code, msg, &len);
    CHECK(!strcmp(msg, "a user error"), "string '%s'", msg);
    MPI_Error_class(code, &k);
    CHECK(k == klass, "class %d of code %d, expected %d", k, code, klass);
    CHECK(MPI_Remove_error_class(klass) != MPI_SUCCESS, "removed a class that has codes");
    CHECK(MPI_Remove_error_string(code) == MPI_SUCCESS, "remove string");
    CHECK(MPI_Remove_error_string(code) != MPI_SUCCESS, "removed a string twice");
    CHECK(MPI_Remove_error_code(code) == MPI_SUCCESS, "remove code");
    CHECK(MPI_Remove_error_code(code) != MPI_SUCCESS, "removed a code twice");
    CHECK(MPI_Remove_error_class(klass) == MPI_SUCCESS, "remove class");
    CHECK(MPI_Remove_error_class(MPI_ERR_ARG) != MPI_SUCCESS, "removed a predefined class");
    CHECK(MPI_Add_error_code(klass, &code) != MPI_SUCCESS, "added a code to a removed class");
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void hw_and_pairs(void)
{
    MPI_Info info;
    int nkeys, flag, len;
    MPI_Get_hw_resource_info(&info);
    MPI_Info_get_nkeys(info, &nkeys);
    CHECK(nkeys >= 2, "hw info has %d keys", nkeys);
    MPI_Info_get_valuelen(info, "sctpmpi_cpus_online", &len, &flag);
    CHECK(flag && len > 0, "no cpu count");
    MPI_Info_free(&info);
    MPI_Datatype t;
    MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t);
    CHECK(t == MPI_DOUBLE_INT, "double/int");
    MPI_Type_get_value_index(MPI_INT, MPI_INT, &t);
    CHECK(t == MPI_2INT, "int/int");
    MPI_Type_get_value_index(MPI_SHORT, MPI_INT, &t);
    CHECK(t == MPI_SHORT_INT, "short/int");
    MPI_Type_get_value_index(MPI_CHAR, MPI_DOUBLE, &t);
    CHECK(t == MPI_DATATYPE_NULL, "char/double has no pair type");
    /* the pair type works with MAXLOC */
    struct { double v; int i; } mine = {(double)(rank_ % 3), rank_}, best;
    MPI_Type_get_value_index(MPI_DOUBLE, MPI_INT, &t);
    MPI_Allreduce(&mine, &best, 1, t, MPI_MAXLOC, MPI_COMM_WORLD);
    int want_v = size_ >= 3 ? 2 : size_ - 1;
    CHECK(best.v == want_v && best.i == want_v, "maxloc %g at %d", best.v, best.i);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    status_accessors();
    request_status_arrays();
    remove_errors();
    hw_and_pairs();
    return finish();
}
