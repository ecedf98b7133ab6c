/* mpi4_session.c — the Sessions Model (MPI-4) beside the World Model: two sessions at once
 * before MPI_Init, process sets and their info, MPI_Comm_create_from_group with traffic and
 * collectives on the result, session error handlers, a session opened again after all were
 * finalized, then MPI_Init after the sessions, and a session inside the World Model. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs, calls;
#define CHECK(c, ...)                                                                            \
    do {                                                                                         \
        if (!(c)) {                                                                              \
            errs++;                                                                              \
            printf("sm-test FAILED line %d: ", __LINE__);                                        \
            printf(__VA_ARGS__);                                                                 \
            printf("\n");                                                                        \
            fflush(stdout);                                                                      \
        }                                                                                        \
    } while (0)

static void on_error(MPI_Session *s, int *code, ...)
{
    (void)s;
    if (*code == MPI_ERR_OTHER)
        calls++;
}

static MPI_Comm world_from(MPI_Session s, const char *tag)
{
    MPI_Group g;
    MPI_Comm c;
    CHECK(MPI_Group_from_session_pset(s, "mpi://WORLD", &g) == MPI_SUCCESS, "group");
    CHECK(MPI_Comm_create_from_group(g, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &c) ==
              MPI_SUCCESS,
          "create_from_group");
    MPI_Group_free(&g);
    return c;
}

static void traffic(MPI_Comm c)
{
    int me, np;
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &np);
    int s = me * 3 + 1, r = -1, sum = 0;
    MPI_Sendrecv(&s, 1, MPI_INT, (me + 1) % np, 0, &r, 1, MPI_INT, (me + np - 1) % np, 0, c,
                 MPI_STATUS_IGNORE);
    CHECK(r == ((me + np - 1) % np) * 3 + 1, "ring got %d", r);
    MPI_Allreduce(&s, &sum, 1, MPI_INT, MPI_SUM, c);
    CHECK(sum == 3 * np * (np - 1) / 2 + np, "allreduce %d", sum);
    int b = me == 0 ? 1234 : 0;
    MPI_Bcast(&b, 1, MPI_INT, 0, c);
    CHECK(b == 1234, "bcast %d", b);
    MPI_Barrier(c);
}

int main(int argc, char **argv)
{
    MPI_Session s1, s2;
    MPI_Info info;
    MPI_Info_create(&info);
    MPI_Info_set(info, "thread_level", "MPI_THREAD_SINGLE");
    CHECK(MPI_Session_init(info, MPI_ERRORS_RETURN, &s1) == MPI_SUCCESS, "init s1");
    MPI_Info_free(&info);
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s2) == MPI_SUCCESS, "init s2");
    int flag = -1;
    MPI_Initialized(&flag);
    CHECK(flag == 0, "MPI_Initialized is true with sessions only");

    int n = 0;
    MPI_Session_get_num_psets(s1, MPI_INFO_NULL, &n);
    CHECK(n >= 2, "num psets %d", n);
    int have_world = 0, have_self = 0;
    for (int i = 0; i < n; i++) {
        int len = 0;
        MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, NULL);
        char *name = malloc((size_t)len);
        MPI_Session_get_nth_pset(s1, MPI_INFO_NULL, i, &len, name);
        CHECK((int)strlen(name) + 1 == len, "pset name length");
        have_world |= strcmp(name, "mpi://WORLD") == 0;
        have_self |= strcmp(name, "mpi://SELF") == 0;
        free(name);
    }
    CHECK(have_world && have_self, "psets WORLD and SELF");
    char v[64];
    int vl = sizeof v;
    MPI_Info pi;
    MPI_Session_get_pset_info(s1, "mpi://SELF", &pi);
    MPI_Info_get_string(pi, "mpi_size", &vl, v, &flag);
    CHECK(flag && strcmp(v, "1") == 0, "SELF size %s", v);
    MPI_Info_free(&pi);
    MPI_Session_get_info(s1, &pi);
    vl = sizeof v;
    MPI_Info_get_string(pi, "thread_level", &vl, v, &flag);
    CHECK(flag && strcmp(v, "MPI_THREAD_SINGLE") == 0, "thread_level %s", v);
    MPI_Info_free(&pi);

    MPI_Comm c1 = world_from(s1, "org.example.c1"), c2 = world_from(s2, "org.example.c2");
    int me, np;
    MPI_Comm_rank(c1, &me);
    MPI_Comm_size(c1, &np);
    vl = sizeof v;
    MPI_Session_get_pset_info(s1, "mpi://WORLD", &pi);
    MPI_Info_get_string(pi, "mpi_size", &vl, v, &flag);
    CHECK(flag && atoi(v) == np, "WORLD size %s", v);
    MPI_Info_free(&pi);
    traffic(c1);
    traffic(c2);
    MPI_Group gs;
    MPI_Comm cs;
    MPI_Group_from_session_pset(s2, "mpi://SELF", &gs);
    MPI_Comm_create_from_group(gs, "org.example.self", MPI_INFO_NULL, MPI_ERRORS_RETURN, &cs);
    int ss;
    MPI_Comm_size(cs, &ss);
    CHECK(ss == 1, "SELF comm size %d", ss);
    traffic(cs);
    MPI_Comm_free(&cs);
    MPI_Group_free(&gs);

    /* a group without the caller (MPI_GROUP_EMPTY, or WORLD less this rank) gives
     * MPI_COMM_NULL; the others get a working communicator */
    MPI_Comm ce = MPI_COMM_SELF;
    CHECK(MPI_Comm_create_from_group(MPI_GROUP_EMPTY, "org.example.empty", MPI_INFO_NULL,
                                     MPI_ERRORS_RETURN, &ce) == MPI_SUCCESS &&
              ce == MPI_COMM_NULL,
          "empty group");
    if (np > 1) {
        MPI_Group wg, sub;
        MPI_Comm cx;
        int ex = np - 1;
        MPI_Group_from_session_pset(s1, "mpi://WORLD", &wg);
        MPI_Group_excl(wg, 1, &ex, &sub);
        MPI_Comm_create_from_group(sub, "org.example.sub", MPI_INFO_NULL, MPI_ERRORS_RETURN, &cx);
        CHECK((me == np - 1) == (cx == MPI_COMM_NULL), "subgroup communicator");
        if (cx != MPI_COMM_NULL) {
            traffic(cx);
            MPI_Comm_free(&cx);
        }
        MPI_Group_free(&sub);
        MPI_Group_free(&wg);
    }

    /* an intercommunicator between the lower and the upper half */
    if (np > 1) {
        MPI_Group wg, lo, hi;
        MPI_Comm ic;
        int range_lo[1][3] = {{0, np / 2 - 1, 1}}, range_hi[1][3] = {{np / 2, np - 1, 1}};
        MPI_Group_from_session_pset(s2, "mpi://WORLD", &wg);
        MPI_Group_range_incl(wg, 1, range_lo, &lo);
        MPI_Group_range_incl(wg, 1, range_hi, &hi);
        int low = me < np / 2;
        CHECK(MPI_Intercomm_create_from_groups(low ? lo : hi, 0, low ? hi : lo, 0,
                                               "org.example.inter", MPI_INFO_NULL,
                                               MPI_ERRORS_RETURN, &ic) == MPI_SUCCESS,
              "intercomm_create_from_groups");
        int rs = 0, inter = 0;
        MPI_Comm_test_inter(ic, &inter);
        MPI_Comm_remote_size(ic, &rs);
        CHECK(inter && rs == (low ? np - np / 2 : np / 2), "remote size %d", rs);
        int x = low ? 1 : 2, sum = 0;
        MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, ic); /* the remote group's sum */
        CHECK(sum == (low ? 2 * (np - np / 2) : np / 2), "inter allreduce %d", sum);
        MPI_Comm_free(&ic);
        MPI_Group_free(&lo);
        MPI_Group_free(&hi);
        MPI_Group_free(&wg);
    }

    /* error handlers */
    MPI_Errhandler eh;
    MPI_Session_create_errhandler(on_error, &eh);
    MPI_Session_set_errhandler(s1, eh);
    MPI_Session_call_errhandler(s1, MPI_ERR_OTHER);
    CHECK(calls == 1, "session error handler called %d times", calls);
    MPI_Errhandler got;
    MPI_Session_get_errhandler(s1, &got);
    CHECK(got == eh, "Session_get_errhandler");
    MPI_Errhandler_free(&got);
    MPI_Group bad;
    int rc = MPI_Group_from_session_pset(s2, "mpi://NO_SUCH_SET", &bad);
    CHECK(rc != MPI_SUCCESS, "unknown pset accepted");
    MPI_Errhandler_free(&eh);

    MPI_Comm_free(&c1);
    MPI_Comm_free(&c2);
    CHECK(MPI_Session_finalize(&s1) == MPI_SUCCESS && s1 == MPI_SESSION_NULL, "finalize s1");
    CHECK(MPI_Session_finalize(&s2) == MPI_SUCCESS, "finalize s2");

    /* again, after every session was finalized */
    MPI_Session s3;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s3) == MPI_SUCCESS, "init s3");
    MPI_Comm c3 = world_from(s3, "org.example.c3");
    traffic(c3);
    MPI_Comm_free(&c3);
    MPI_Session_finalize(&s3);

    /* the World Model after the sessions, and a session inside it */
    MPI_Init(&argc, &argv);
    MPI_Initialized(&flag);
    CHECK(flag == 1, "MPI_Initialized after MPI_Init");
    traffic(MPI_COMM_WORLD);
    MPI_Session s4;
    CHECK(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s4) == MPI_SUCCESS, "init s4");
    MPI_Comm c4 = world_from(s4, "org.example.c4");
    traffic(c4);
    MPI_Comm_free(&c4);
    MPI_Session_finalize(&s4);
    int total = 0;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (me == 0 && total == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    MPI_Finalized(&flag);
    if (!flag)
        printf("sm-test FAILED: MPI_Finalized false\n");
    return total != 0;
}
