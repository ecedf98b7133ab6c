/* thr_greq.c — a generalized request completed by another thread while this one waits for it
 * in MPI_Wait (the wait must let the completing thread into MPI); in a MPI_THREAD_MULTIPLE
 * process, a session opened without "thread_level" and MPI_Info_create_env both report
 * MPI_THREAD_MULTIPLE. */
#include <string.h>
#include <unistd.h>

#include "thr_common.h"

static MPI_Request greq;
static atomic_int queried;

static int query_fn(void *extra, MPI_Status *st)
{
    (void)extra;
    atomic_fetch_add(&queried, 1);
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}
static int free_fn(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}
static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

static void *completer(void *arg)
{
    (void)arg;
    usleep(100000); /* the main thread is in MPI_Wait by now */
    THR_MPI(MPI_Grequest_complete(greq));
    return NULL;
}

int main(int argc, char **argv)
{
    thr_init(&argc, &argv);
    for (int round = 0; round < 3; round++) {
        THR_MPI(MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &greq));
        pthread_t th;
        pthread_create(&th, NULL, completer, NULL);
        MPI_Status st;
        THR_MPI(MPI_Wait(&greq, &st));
        pthread_join(th, NULL);
        THR_CHECK(greq == MPI_REQUEST_NULL, "round %d: request not freed", round);
    }
    THR_CHECK(atomic_load(&queried) == 3, "query function ran %d times", atomic_load(&queried));

    MPI_Session s = MPI_SESSION_NULL;
    THR_MPI(MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s));
    MPI_Info info = MPI_INFO_NULL;
    THR_MPI(MPI_Session_get_info(s, &info));
    char val[64] = "";
    int flag = 0;
    MPI_Info_get(info, "thread_level", sizeof val - 1, val, &flag);
    THR_CHECK(flag && strcmp(val, "MPI_THREAD_MULTIPLE") == 0, "session thread_level '%s'", val);
    MPI_Info_free(&info);
    THR_MPI(MPI_Session_finalize(&s));

    /* MPI_Info_create_env reports the highest level the library provides */
    THR_MPI(MPI_Info_create_env(0, NULL, &info));
    flag = 0;
    MPI_Info_get(info, "thread_level", sizeof val - 1, val, &flag);
    THR_CHECK(flag && strcmp(val, "MPI_THREAD_MULTIPLE") == 0, "Info_create_env thread_level '%s'",
              val);
    MPI_Info_free(&info);
    return thr_finish();
}
