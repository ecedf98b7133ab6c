/* handles_env_rma.c — c2f / f2c round trips for every handle kind (predefined, null and
 * created handles) and for statuses; the keys of MPI_INFO_ENV; the one-sided constants exist
 * (compile time) and the RMA calls report MPI_ERR_UNSUPPORTED_OPERATION under
 * MPI_ERRORS_RETURN, while window keyvals and error handlers work without a window. */
#include "sm_test.h"

#define ROUND(Kind, h)                                                                           \
    do {                                                                                         \
        MPI_Fint f_ = MPI_##Kind##_c2f(h);                                                       \
        SM_CHECK(MPI_##Kind##_f2c(f_) == (h), #Kind " round trip of " #h " (%d)", (int)f_);    \
        SM_CHECK(MPI_##Kind##_c2f(h) == f_, #Kind " c2f of " #h " not stable");                 \
    } while (0)

static void win_eh(MPI_Win *w, int *e, ...) { (void)w, (void)e; }

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &sm_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &sm_size);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);

    /* null handles are 0, both ways */
    SM_CHECK(MPI_Comm_c2f(MPI_COMM_NULL) == 0 && MPI_Comm_f2c(0) == MPI_COMM_NULL, "comm null");
    SM_CHECK(MPI_Group_c2f(MPI_GROUP_NULL) == 0 && MPI_Group_f2c(0) == MPI_GROUP_NULL, "group");
    SM_CHECK(MPI_Type_c2f(MPI_DATATYPE_NULL) == 0 && MPI_Type_f2c(0) == MPI_DATATYPE_NULL, "type");
    SM_CHECK(MPI_Request_c2f(MPI_REQUEST_NULL) == 0 && MPI_Request_f2c(0) == MPI_REQUEST_NULL,
             "request null");
    SM_CHECK(MPI_Op_c2f(MPI_OP_NULL) == 0 && MPI_Op_f2c(0) == MPI_OP_NULL, "op null");
    SM_CHECK(MPI_Errhandler_c2f(MPI_ERRHANDLER_NULL) == 0 &&
                 MPI_Errhandler_f2c(0) == MPI_ERRHANDLER_NULL, "errhandler null");
    SM_CHECK(MPI_Info_c2f(MPI_INFO_NULL) == 0 && MPI_Info_f2c(0) == MPI_INFO_NULL, "info null");
    SM_CHECK(MPI_Win_c2f(MPI_WIN_NULL) == 0 && MPI_Win_f2c(0) == MPI_WIN_NULL, "win null");
    SM_CHECK(MPI_File_c2f(MPI_FILE_NULL) == 0 && MPI_File_f2c(0) == MPI_FILE_NULL, "file null");
    SM_CHECK(MPI_Message_c2f(MPI_MESSAGE_NULL) == 0 && MPI_Message_f2c(0) == MPI_MESSAGE_NULL,
             "message null");
    /* predefined handles: fixed numbers, the same on every rank */
    SM_CHECK(MPI_Comm_c2f(MPI_COMM_WORLD) == 1 && MPI_Comm_c2f(MPI_COMM_SELF) == 2,
             "predefined communicators %d %d", (int)MPI_Comm_c2f(MPI_COMM_WORLD),
             (int)MPI_Comm_c2f(MPI_COMM_SELF));
    ROUND(Comm, MPI_COMM_WORLD); ROUND(Comm, MPI_COMM_SELF); ROUND(Group, MPI_GROUP_EMPTY);
    MPI_Datatype types[] = {MPI_CHAR, MPI_INT, MPI_DOUBLE, MPI_2INT, MPI_PACKED, MPI_LB,
                            MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_2INTEGER, MPI_CXX_BOOL,
                            MPI_COMPLEX32};
    int nt = (int)(sizeof types / sizeof types[0]);
    MPI_Fint fts[16];
    for (int i = 0; i < nt; i++) {
        ROUND(Type, types[i]);
        fts[i] = MPI_Type_c2f(types[i]);
        for (int j = 0; j < i; j++)
            SM_CHECK(fts[i] != fts[j], "types %d and %d share Fortran handle %d", i, j,
                     (int)fts[i]);
    }
    MPI_Fint fint = MPI_Type_c2f(MPI_INT), all[64];
    SM_MPI(MPI_Allgather(&fint, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD));
    for (int i = 0; i < sm_size && i < 64; i++)
        SM_CHECK(all[i] == fint, "MPI_INT's Fortran handle differs between ranks");
    ROUND(Op, MPI_SUM); ROUND(Op, MPI_MAXLOC); ROUND(Op, MPI_NO_OP);
    ROUND(Errhandler, MPI_ERRORS_ARE_FATAL); ROUND(Errhandler, MPI_ERRORS_RETURN);
    ROUND(Info, MPI_INFO_ENV); ROUND(Message, MPI_MESSAGE_NO_PROC);
    SM_CHECK(MPI_Comm_f2c(12345) == MPI_COMM_NULL && MPI_Comm_f2c(-3) == MPI_COMM_NULL,
             "unknown Fortran handles should give the null handle");

    /* created handles */
    MPI_Comm dup, dup2;
    SM_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    SM_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &dup2));
    ROUND(Comm, dup); ROUND(Comm, dup2);
    SM_CHECK(MPI_Comm_c2f(dup) != MPI_Comm_c2f(dup2) && MPI_Comm_c2f(dup) > 2,
             "two communicators share a Fortran handle");
    int rank;
    SM_MPI(MPI_Comm_rank(MPI_Comm_f2c(MPI_Comm_c2f(dup)), &rank));
    SM_CHECK(rank == sm_rank, "converted communicator is not usable");
    MPI_Group g;
    SM_MPI(MPI_Comm_group(dup, &g));
    ROUND(Group, g);
    MPI_Datatype vec;
    SM_MPI(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    ROUND(Type, vec);
    MPI_Op op;
    SM_MPI(MPI_Op_create((MPI_User_function *)(void (*)(void))win_eh, 1, &op));
    ROUND(Op, op);
    MPI_Errhandler eh;
    SM_MPI(MPI_Win_create_errhandler(win_eh, &eh));
    ROUND(Errhandler, eh);
    MPI_Info info;
    SM_MPI(MPI_Info_create(&info));
    ROUND(Info, info);
    int x = 0, y = 0;
    MPI_Request req;
    SM_MPI(MPI_Irecv(&y, 1, MPI_INT, 0, 5, MPI_COMM_SELF, &req));
    ROUND(Request, req);
    MPI_Request back = MPI_Request_f2c(MPI_Request_c2f(req));
    SM_MPI(MPI_Send(&x, 1, MPI_INT, 0, 5, MPI_COMM_SELF));
    SM_MPI(MPI_Wait(&back, MPI_STATUS_IGNORE));

    /* statuses */
    MPI_Status st, st2;
    st.MPI_SOURCE = 3;
    st.MPI_TAG = 77;
    st.MPI_ERROR = MPI_ERR_TRUNCATE;
    SM_MPI(MPI_Status_set_elements(&st, MPI_INT, 5));
    SM_MPI(MPI_Status_set_cancelled(&st, 1));
    MPI_Fint fst[MPI_F_STATUS_SIZE];
    SM_MPI(MPI_Status_c2f(&st, fst));
    SM_CHECK(fst[0] == 3 && fst[1] == 77 && fst[2] == MPI_ERR_TRUNCATE, "Fortran status fields");
    SM_MPI(MPI_Status_f2c(fst, &st2));
    int count, flag;
    SM_MPI(MPI_Get_count(&st2, MPI_INT, &count));
    SM_MPI(MPI_Test_cancelled(&st2, &flag));
    SM_CHECK(st2.MPI_SOURCE == 3 && st2.MPI_TAG == 77 && count == 5 && flag,
             "status round trip: count %d cancelled %d", count, flag);
    SM_CHECK(MPI_Status_c2f(MPI_STATUS_IGNORE, fst) != MPI_SUCCESS, "c2f of STATUS_IGNORE");
    SM_CHECK(MPI_Status_f2c(MPI_F_STATUS_IGNORE, &st2) != MPI_SUCCESS, "f2c of F_STATUS_IGNORE");
    /* mpi_f08 statuses: C -> f08 -> Fortran -> f08 -> C keeps every field */
    MPI_F08_status f08, f08b;
    MPI_Fint fst2[MPI_F_STATUS_SIZE];
    MPI_Status st3;
    SM_MPI(MPI_Status_c2f08(&st, &f08));
    SM_CHECK(f08.MPI_SOURCE == 3 && f08.MPI_TAG == 77 && f08.MPI_ERROR == MPI_ERR_TRUNCATE,
             "f08 status fields");
    SM_MPI(MPI_Status_f082f(&f08, fst2));
    SM_CHECK(!memcmp(fst2, fst, sizeof fst), "f08 -> Fortran differs from c2f");
    SM_MPI(MPI_Status_f2f08(fst2, &f08b));
    SM_MPI(MPI_Status_f082c(&f08b, &st3));
    SM_MPI(MPI_Get_count(&st3, MPI_INT, &count));
    SM_MPI(MPI_Test_cancelled(&st3, &flag));
    SM_CHECK(st3.MPI_SOURCE == 3 && st3.MPI_TAG == 77 && st3.MPI_ERROR == MPI_ERR_TRUNCATE &&
                 count == 5 && flag,
             "f08 status round trip: count %d cancelled %d", count, flag);
    SM_CHECK(MPI_Status_c2f08(&st, MPI_F08_STATUS_IGNORE) != MPI_SUCCESS, "c2f08 to IGNORE");
    /* session handles */
    MPI_Session ses;
    SM_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &ses));
    MPI_Fint fses = MPI_Session_c2f(ses);
    SM_CHECK(fses > 0 && MPI_Session_f2c(fses) == ses, "session round trip (%d)", (int)fses);
    SM_CHECK(MPI_Session_c2f(MPI_SESSION_NULL) == 0 && MPI_Session_f2c(0) == MPI_SESSION_NULL,
             "session null");
    SM_MPI(MPI_Session_finalize(&ses));

    /* MPI_INFO_ENV */
    char val[MPI_MAX_INFO_VAL + 1], cwd[1024];
    int nkeys;
    SM_MPI(MPI_Info_get_nkeys(MPI_INFO_ENV, &nkeys));
    SM_CHECK(nkeys >= 5, "MPI_INFO_ENV has %d keys", nkeys);
    SM_MPI(MPI_Info_get(MPI_INFO_ENV, "maxprocs", MPI_MAX_INFO_VAL, val, &flag));
    SM_CHECK(flag && atoi(val) == sm_size, "maxprocs '%s'", flag ? val : "");
    SM_MPI(MPI_Info_get(MPI_INFO_ENV, "command", MPI_MAX_INFO_VAL, val, &flag));
    SM_CHECK(flag && strstr(val, "handles_env_rma"), "command '%s'", flag ? val : "");
    SM_MPI(MPI_Info_get(MPI_INFO_ENV, "thread_level", MPI_MAX_INFO_VAL, val, &flag));
    int provided;
    MPI_Query_thread(&provided);
    SM_CHECK(flag && strncmp(val, "MPI_THREAD_", 11) == 0 &&
                 (provided != MPI_THREAD_SINGLE || strcmp(val, "MPI_THREAD_SINGLE") == 0),
             "thread_level '%s'", flag ? val : "");
    SM_MPI(MPI_Info_get(MPI_INFO_ENV, "wdir", MPI_MAX_INFO_VAL, val, &flag));
    SM_CHECK(flag && getcwd(cwd, sizeof cwd) && strcmp(val, cwd) == 0, "wdir '%s'",
             flag ? val : "");
    SM_MPI(MPI_Info_get(MPI_INFO_ENV, "host", MPI_MAX_INFO_VAL, val, &flag));
    SM_CHECK(flag && val[0], "host missing");
    SM_MPI(MPI_Info_get(MPI_INFO_ENV, "arch", MPI_MAX_INFO_VAL, val, &flag));
    SM_CHECK(flag && val[0], "arch missing");
    MPI_Info envdup = MPI_INFO_NULL;
    SM_MPI(MPI_Info_dup(MPI_INFO_ENV, &envdup));
    int nd;
    SM_MPI(MPI_Info_get_nkeys(envdup, &nd));
    SM_CHECK(nd == nkeys, "dup of MPI_INFO_ENV has %d keys, not %d", nd, nkeys);
    SM_MPI(MPI_Info_free(&envdup));
    MPI_Info env = MPI_INFO_ENV;
    SM_CHECK(MPI_Info_free(&env) != MPI_SUCCESS && env == MPI_INFO_ENV,
             "MPI_INFO_ENV could be freed");

    /* RMA constants (compile time) */
    static const int lock[] = {MPI_LOCK_EXCLUSIVE, MPI_LOCK_SHARED};
    static const int modes[] = {MPI_MODE_NOCHECK, MPI_MODE_NOSTORE, MPI_MODE_NOPUT,
                                MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED};
    static const int keys[] = {MPI_WIN_BASE, MPI_WIN_SIZE, MPI_WIN_DISP_UNIT,
                               MPI_WIN_CREATE_FLAVOR, MPI_WIN_MODEL};
    static const int flavors[] = {MPI_WIN_FLAVOR_CREATE, MPI_WIN_FLAVOR_ALLOCATE,
                                  MPI_WIN_FLAVOR_DYNAMIC, MPI_WIN_FLAVOR_SHARED};
    SM_CHECK(lock[0] != lock[1] && MPI_WIN_SEPARATE != MPI_WIN_UNIFIED, "lock / model constants");
    int bits = 0;
    for (int i = 0; i < 5; i++) {
        SM_CHECK((modes[i] & (modes[i] - 1)) == 0 && !(bits & modes[i]), "mode %d not a bit", i);
        bits |= modes[i];
    }
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < i; j++)
            SM_CHECK(keys[i] != keys[j] && keys[i] != MPI_TAG_UB, "window keys collide");
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++)
            SM_CHECK(flavors[i] != flavors[j], "flavors collide");
    MPI_Win_copy_attr_function *cf = MPI_WIN_DUP_FN;
    MPI_Win_delete_attr_function *df = MPI_WIN_NULL_DELETE_FN;
    MPI_Win_errhandler_function *wf = win_eh;
    (void)cf, (void)df, (void)wf;

    /* RMA calls on a window of this rank alone (one-sided communication: tests/osc) */
    MPI_Win win = MPI_WIN_NULL;
    int buf[4] = {0, 0, 0, 0};
    SM_MPI(MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, MPI_COMM_SELF, &win));
    SM_MPI(MPI_Win_set_name(win, "w"));
    x = 21;
    SM_MPI(MPI_Win_lock_all(0, win));
    SM_MPI(MPI_Rput(&x, 1, MPI_INT, 0, 2, 1, MPI_INT, win, &req));
    SM_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    SM_MPI(MPI_Win_flush_local_all(win));
    SM_MPI(MPI_Rget_accumulate(&x, 1, MPI_INT, &y, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, win,
                               &req));
    SM_MPI(MPI_Wait(&req, MPI_STATUS_IGNORE));
    SM_CHECK(y == x && buf[2] == 2 * x, "Rput/Rget_accumulate on self: %d %d", y, buf[2]);
    SM_MPI(MPI_Win_unlock_all(win));
    SM_MPI(MPI_Win_free(&win));
    SM_CHECK(win == MPI_WIN_NULL, "Win_free left a handle");
    /* window keyvals and error handlers need no window */
    int kv;
    SM_MPI(MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, &kv, NULL));
    SM_MPI(MPI_Win_free_keyval(&kv));
    SM_CHECK(kv == MPI_KEYVAL_INVALID, "Win_free_keyval left %d", kv);
    SM_MPI(MPI_Errhandler_free(&eh));
    SM_CHECK(eh == MPI_ERRHANDLER_NULL, "Errhandler_free");

    /* MPI-IO: the default file error handler (MPI_FILE_NULL's) is MPI_ERRORS_RETURN */
    MPI_Errhandler feh;
    SM_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &feh));
    SM_CHECK(feh == MPI_ERRORS_RETURN, "default file error handler");
    SM_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_ARE_FATAL));
    SM_MPI(MPI_File_get_errhandler(MPI_FILE_NULL, &feh));
    SM_CHECK(feh == MPI_ERRORS_ARE_FATAL, "file error handler not set");
    SM_MPI(MPI_File_set_errhandler(MPI_FILE_NULL, MPI_ERRORS_RETURN));
    MPI_File fh = MPI_FILE_NULL;
    int fcls = -1;
    MPI_Error_class(MPI_File_iread_at_all(fh, 0, buf, 1, MPI_INT, &req), &fcls);
    SM_CHECK(fcls == MPI_ERR_FILE, "File_iread_at_all on MPI_FILE_NULL: class %d", fcls);
    MPI_Error_class(MPI_File_seek_shared(fh, 0, MPI_SEEK_SET), &fcls);
    SM_CHECK(fcls == MPI_ERR_FILE, "File_seek_shared on MPI_FILE_NULL: class %d", fcls);

    SM_MPI(MPI_Info_free(&info));
    SM_MPI(MPI_Op_free(&op));
    SM_MPI(MPI_Type_free(&vec));
    SM_MPI(MPI_Group_free(&g));
    SM_MPI(MPI_Comm_free(&dup));
    SM_MPI(MPI_Comm_free(&dup2));
    MPI_Barrier(MPI_COMM_WORLD);
    if (sm_rank == 0)
        printf(" No Errors\n");
    MPI_Finalize();
    return 0;
}
