/* mpit.c — the MPI tool information interface: MPI_T before MPI_Init and after MPI_Finalize
 * (reference counted), every control variable, performance variable and category enumerated
 * and looked up by name, SCTPMPI_EAGER_LIMIT's control variable equal to the environment, the
 * eager and rendezvous counters moving with real traffic only while started, and the error
 * classes of bad indices, names, handles and sessions.  Run with SCTPMPI_EAGER_LIMIT=4096. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int errs;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            errs++;                                                                              \
            fprintf(stderr, "line %d: ", __LINE__);                                              \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fprintf(stderr, "\n");                                                               \
        }                                                                                        \
    } while (0)
#define RC(call, want) CHECK((call) == (want), "%s != %s", #call, #want)

static void check_cvars(void)
{
    int n = 0;
    RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    CHECK(n > 20, "only %d control variables", n);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int nl = sizeof name, dl = sizeof desc, verb, bind, scope, idx = -1;
        MPI_Datatype dt;
        MPI_T_enum en;
        RC(MPI_T_cvar_get_info(i, name, &nl, &verb, &dt, &en, desc, &dl, &bind, &scope),
           MPI_SUCCESS);
        CHECK(strncmp(name, "SCTPMPI_", 8) == 0, "cvar %d is named %s", i, name);
        CHECK(nl == (int)strlen(name) + 1, "cvar %d name_len %d", i, nl);
        CHECK(dl > 1 && dt == MPI_CHAR && en == MPI_T_ENUM_NULL, "cvar %s info", name);
        CHECK(bind == MPI_T_BIND_NO_OBJECT && scope == MPI_T_SCOPE_READONLY, "cvar %s", name);
        CHECK(verb >= MPI_T_VERBOSITY_USER_BASIC && verb <= MPI_T_VERBOSITY_MPIDEV_ALL, "verb");
        RC(MPI_T_cvar_get_index(name, &idx), MPI_SUCCESS);
        CHECK(idx == i, "cvar %s: index %d, expected %d", name, idx, i);
        /* name_len 0: only the length needed */
        int need = 0;
        RC(MPI_T_cvar_get_info(i, NULL, &need, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
           MPI_SUCCESS);
        CHECK(need == nl, "cvar %s: needed length %d", name, need);
    }
    /* a truncated name keeps its NUL */
    char small[5];
    int sl = sizeof small;
    RC(MPI_T_cvar_get_info(0, small, &sl, NULL, NULL, NULL, NULL, NULL, NULL, NULL), MPI_SUCCESS);
    CHECK(sl == 5 && strcmp(small, "SCTP") == 0, "truncated name '%s' %d", small, sl);

    int idx, count;
    RC(MPI_T_cvar_get_index("SCTPMPI_EAGER_LIMIT", &idx), MPI_SUCCESS);
    MPI_T_cvar_handle h;
    RC(MPI_T_cvar_handle_alloc(idx, NULL, &h, &count), MPI_SUCCESS);
    CHECK(count > 1, "count %d", count);
    char *val = calloc((size_t)count, 1);
    RC(MPI_T_cvar_read(h, val), MPI_SUCCESS);
    const char *env = getenv("SCTPMPI_EAGER_LIMIT");
    CHECK(env && strcmp(val, env) == 0, "SCTPMPI_EAGER_LIMIT reads '%s', environment '%s'", val,
          env ? env : "(unset)");
    RC(MPI_T_cvar_write(h, "1"), MPI_T_ERR_CVAR_SET_NEVER);
    RC(MPI_T_cvar_handle_free(&h), MPI_SUCCESS);
    CHECK(h == MPI_T_CVAR_HANDLE_NULL, "handle not reset");
    RC(MPI_T_cvar_read(h, val), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_cvar_handle_free(&h), MPI_T_ERR_INVALID_HANDLE);
    free(val);

    RC(MPI_T_cvar_get_info(-1, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_cvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_cvar_handle_alloc(n, NULL, &h, &count), MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_cvar_get_index("SCTPMPI_NO_SUCH_THING", &idx), MPI_T_ERR_INVALID_NAME);
}

static int pvar_index(const char *name, int var_class)
{
    int idx = -1;
    RC(MPI_T_pvar_get_index(name, var_class, &idx), MPI_SUCCESS);
    return idx;
}

static void traffic(int rank, int nsmall, int nlarge)
{
    static char buf[100000];
    int peer = rank ^ 1;
    for (int i = 0; i < nsmall + nlarge; i++) {
        int len = i < nsmall ? 16 : (int)sizeof buf;
        MPI_Sendrecv_replace(buf, len, MPI_CHAR, peer, i, peer, i, MPI_COMM_WORLD,
                             MPI_STATUS_IGNORE);
    }
}

static void check_pvars(int rank)
{
    int n = 0;
    RC(MPI_T_pvar_get_num(&n), MPI_SUCCESS);
    CHECK(n >= 4, "only %d performance variables", n);
    for (int i = 0; i < n; i++) {
        char name[256], desc[1024];
        int nl = sizeof name, dl = sizeof desc, verb, cls, bind, ro, cont, atomic;
        MPI_Datatype dt;
        MPI_T_enum en;
        RC(MPI_T_pvar_get_info(i, name, &nl, &verb, &cls, &dt, &en, desc, &dl, &bind, &ro, &cont,
                               &atomic),
           MPI_SUCCESS);
        CHECK(dt == MPI_UNSIGNED_LONG_LONG && bind == MPI_T_BIND_NO_OBJECT, "pvar %s", name);
        CHECK(pvar_index(name, cls) == i, "pvar %s index", name);
        int idx;
        RC(MPI_T_pvar_get_index(name, MPI_T_PVAR_CLASS_TIMER, &idx), MPI_T_ERR_INVALID_NAME);
    }
    RC(MPI_T_pvar_get_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                           NULL),
       MPI_T_ERR_INVALID_INDEX);

    MPI_T_pvar_session s;
    MPI_T_pvar_handle he, hr, hu;
    int count;
    RC(MPI_T_pvar_session_create(&s), MPI_SUCCESS);
    RC(MPI_T_pvar_handle_alloc(s, pvar_index("sctpmpi_eager_sends", MPI_T_PVAR_CLASS_COUNTER),
                               NULL, &he, &count),
       MPI_SUCCESS);
    CHECK(count == 1, "count %d", count);
    RC(MPI_T_pvar_handle_alloc(s, pvar_index("sctpmpi_rndv_sends", MPI_T_PVAR_CLASS_COUNTER),
                               NULL, &hr, &count),
       MPI_SUCCESS);
    RC(MPI_T_pvar_handle_alloc(s, pvar_index("sctpmpi_unexpected_count", MPI_T_PVAR_CLASS_LEVEL),
                               NULL, &hu, &count),
       MPI_SUCCESS);
    unsigned long long e = 99, r = 99, u = 99;
    /* not started yet: nothing counted */
    traffic(rank, 5, 1);
    RC(MPI_T_pvar_read(s, he, &e), MPI_SUCCESS);
    CHECK(e == 0, "eager counter %llu before start", e);
    RC(MPI_T_pvar_start(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);
    traffic(rank, 10, 3);
    RC(MPI_T_pvar_read(s, he, &e), MPI_SUCCESS);
    RC(MPI_T_pvar_read(s, hr, &r), MPI_SUCCESS);
    CHECK(e >= 10, "eager sends counted %llu, expected >= 10", e);
    CHECK(r >= 3, "rendezvous sends counted %llu, expected >= 3", r);
    RC(MPI_T_pvar_stop(s, he), MPI_SUCCESS);
    traffic(rank, 10, 0);
    unsigned long long e2 = 0;
    RC(MPI_T_pvar_read(s, he, &e2), MPI_SUCCESS);
    CHECK(e2 == e, "stopped counter moved: %llu -> %llu", e, e2);
    RC(MPI_T_pvar_readreset(s, hr, &r), MPI_SUCCESS);
    CHECK(r >= 3, "readreset %llu", r);
    RC(MPI_T_pvar_read(s, hr, &r), MPI_SUCCESS);
    CHECK(r == 0, "after readreset %llu", r);
    unsigned long long w = 7;
    RC(MPI_T_pvar_write(s, he, &w), MPI_SUCCESS);
    RC(MPI_T_pvar_read(s, he, &e2), MPI_SUCCESS);
    CHECK(e2 == 7, "written %llu", e2);
    RC(MPI_T_pvar_reset(s, he), MPI_SUCCESS);
    RC(MPI_T_pvar_read(s, he, &e2), MPI_SUCCESS);
    CHECK(e2 == 0, "reset %llu", e2);
    /* a continuous level: always readable, never started, stopped or written */
    RC(MPI_T_pvar_read(s, hu, &u), MPI_SUCCESS);
    CHECK(u < 1000, "unexpected count %llu", u);
    RC(MPI_T_pvar_start(s, hu), MPI_T_ERR_PVAR_NO_STARTSTOP);
    RC(MPI_T_pvar_stop(s, hu), MPI_T_ERR_PVAR_NO_STARTSTOP);
    RC(MPI_T_pvar_write(s, hu, &w), MPI_T_ERR_PVAR_NO_WRITE);
    RC(MPI_T_pvar_reset(s, hu), MPI_T_ERR_PVAR_NO_WRITE);
    RC(MPI_T_pvar_read(s, MPI_T_PVAR_ALL_HANDLES, &u), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_pvar_stop(s, MPI_T_PVAR_ALL_HANDLES), MPI_SUCCESS);

    /* a handle of another session, a freed handle, a freed session */
    MPI_T_pvar_session s2;
    RC(MPI_T_pvar_session_create(&s2), MPI_SUCCESS);
    RC(MPI_T_pvar_read(s2, he, &e), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_pvar_handle_alloc(s2, n, NULL, &hu, &count), MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_pvar_session_free(&s2), MPI_SUCCESS);
    CHECK(s2 == MPI_T_PVAR_SESSION_NULL, "session not reset");
    RC(MPI_T_pvar_session_free(&s2), MPI_T_ERR_INVALID_SESSION);
    RC(MPI_T_pvar_handle_free(s, &hr), MPI_SUCCESS);
    CHECK(hr == MPI_T_PVAR_HANDLE_NULL, "handle not reset");
    RC(MPI_T_pvar_read(s, hr, &r), MPI_T_ERR_INVALID_HANDLE);
    RC(MPI_T_pvar_session_free(&s), MPI_SUCCESS); /* frees he and hu too */
}

static void check_categories(void)
{
    int ncat = 0, ncv = 0, npv = 0, sumc = 0, sump = 0;
    RC(MPI_T_category_get_num(&ncat), MPI_SUCCESS);
    RC(MPI_T_cvar_get_num(&ncv), MPI_SUCCESS);
    RC(MPI_T_pvar_get_num(&npv), MPI_SUCCESS);
    CHECK(ncat >= 2, "%d categories", ncat);
    for (int c = 0; c < ncat; c++) {
        char name[256], desc[512];
        int nl = sizeof name, dl = sizeof desc, nc, np, nsub, nev, idx = -1;
        RC(MPI_T_category_get_info(c, name, &nl, desc, &dl, &nc, &np, &nsub), MPI_SUCCESS);
        RC(MPI_T_category_get_index(name, &idx), MPI_SUCCESS);
        CHECK(idx == c, "category %s index %d", name, idx);
        RC(MPI_T_category_get_num_events(c, &nev), MPI_SUCCESS);
        CHECK(nev == 0 && nsub == 0, "category %s events %d sub %d", name, nev, nsub);
        int *ci = calloc((size_t)nc + 1, sizeof *ci), *pi = calloc((size_t)np + 1, sizeof *pi);
        RC(MPI_T_category_get_cvars(c, nc, ci), MPI_SUCCESS);
        RC(MPI_T_category_get_pvars(c, np, pi), MPI_SUCCESS);
        for (int k = 0; k < nc; k++)
            CHECK(ci[k] >= 0 && ci[k] < ncv, "category %s cvar %d", name, ci[k]);
        for (int k = 0; k < np; k++)
            CHECK(pi[k] >= 0 && pi[k] < npv, "category %s pvar %d", name, pi[k]);
        RC(MPI_T_category_get_events(c, 0, NULL), MPI_SUCCESS);
        RC(MPI_T_category_get_categories(c, 0, NULL), MPI_SUCCESS);
        free(ci);
        free(pi);
        sumc += nc;
        sump += np;
    }
    CHECK(sumc == ncv && sump == npv, "categories hold %d/%d cvars, %d/%d pvars", sumc, ncv, sump,
          npv);
    int stamp = -1;
    RC(MPI_T_category_changed(&stamp), MPI_SUCCESS);
    CHECK(stamp >= 0, "update number %d", stamp);
    RC(MPI_T_category_get_info(ncat, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       MPI_T_ERR_INVALID_INDEX);
    int idx;
    RC(MPI_T_category_get_index("no such category", &idx), MPI_T_ERR_INVALID_NAME);
}

static void check_events(void)
{
    int n = -1, ns = -1, k;
    RC(MPI_T_event_get_num(&n), MPI_SUCCESS);
    CHECK(n == 0, "%d event types", n);
    RC(MPI_T_source_get_num(&ns), MPI_SUCCESS);
    CHECK(ns == 0, "%d sources", ns);
    RC(MPI_T_event_get_info(0, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
       MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_event_get_index("x", &k), MPI_T_ERR_INVALID_NAME);
    MPI_T_event_registration reg;
    RC(MPI_T_event_handle_alloc(0, NULL, MPI_INFO_NULL, &reg), MPI_T_ERR_INVALID_INDEX);
    RC(MPI_T_event_handle_free(MPI_T_EVENT_REGISTRATION_NULL, NULL, NULL),
       MPI_T_ERR_INVALID_HANDLE);
    MPI_Count ts;
    RC(MPI_T_source_get_timestamp(0, &ts), MPI_T_ERR_INVALID_INDEX);
    int num;
    RC(MPI_T_enum_get_info(MPI_T_ENUM_NULL, &num, NULL, NULL), MPI_T_ERR_INVALID_HANDLE);
    char s[MPI_MAX_ERROR_STRING];
    int sl, cls;
    RC(MPI_Error_string(MPI_T_ERR_INVALID_HANDLE, s, &sl), MPI_SUCCESS);
    CHECK(sl > 0 && strstr(s, "handle"), "error string '%s'", s);
    RC(MPI_Error_class(MPI_T_ERR_NOT_INITIALIZED, &cls), MPI_SUCCESS);
    CHECK(cls == MPI_T_ERR_NOT_INITIALIZED && cls <= MPI_ERR_LASTCODE, "class %d", cls);
}

int main(int argc, char **argv)
{
    int n, provided, rank, size;
    /* before MPI_T_init_thread every call but init reports NOT_INITIALIZED */
    RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    RC(MPI_T_category_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    RC(MPI_T_event_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    /* usable before MPI_Init, reference counted */
    RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    RC(MPI_T_init_thread(MPI_THREAD_SINGLE, &provided), MPI_SUCCESS);
    RC(MPI_T_finalize(), MPI_SUCCESS);
    RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) {
        if (rank == 0)
            fprintf(stderr, "needs an even number of processes\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    check_cvars();
    check_pvars(rank);
    check_categories();
    check_events();
    int v, sv;
    MPI_Get_version(&v, &sv);
    CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION, "version %d.%d", v, sv);

    int all;
    MPI_Allreduce(&errs, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Finalize();
    /* still usable after MPI_Finalize, until the last MPI_T_finalize */
    RC(MPI_T_cvar_get_num(&n), MPI_SUCCESS);
    RC(MPI_T_finalize(), MPI_SUCCESS);
    RC(MPI_T_cvar_get_num(&n), MPI_T_ERR_NOT_INITIALIZED);
    RC(MPI_T_finalize(), MPI_T_ERR_NOT_INITIALIZED);
    if (errs)
        fprintf(stderr, "rank %d: %d errors\n", rank, errs);
    if (rank == 0 && all == 0 && errs == 0)
        printf(" No Errors\n");
    return errs || all;
}
