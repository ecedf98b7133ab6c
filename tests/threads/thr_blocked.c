/* thr_blocked.c — a thread blocked in MPI_Recv must not stop the others: on every rank one
 * thread waits in MPI_Recv for a message that only this rank's second thread can cause (it
 * sends to the right neighbour, whose main thread sends it back), and a third thread runs
 * ping-pongs on another communicator meanwhile. */
#include <string.h>
#include <unistd.h>

#include "thr_common.h"

#define ROUNDS 10
static MPI_Comm side;

static void *waiter(void *arg)
{
    (void)arg;
    int right = (thr_rank + 1) % thr_size;
    for (int r = 0; r < ROUNDS; r++) {
        int v = -1;
        MPI_Status st;
        THR_MPI(MPI_Recv(&v, 1, MPI_INT, right, 1, MPI_COMM_WORLD, &st));
        THR_CHECK(v == thr_rank * 100 + r, "round %d: echo %d, want %d", r, v,
                  thr_rank * 100 + r);
    }
    return NULL;
}

static void *sender(void *arg)
{
    (void)arg;
    int right = (thr_rank + 1) % thr_size;
    for (int r = 0; r < ROUNDS; r++) {
        usleep(20000); /* the waiter is blocked in MPI_Recv by now */
        int v = thr_rank * 100 + r;
        THR_MPI(MPI_Send(&v, 1, MPI_INT, right, 2, MPI_COMM_WORLD));
    }
    return NULL;
}

static void *echo(void *arg)
{
    (void)arg;
    int left = (thr_rank + thr_size - 1) % thr_size;
    for (int r = 0; r < ROUNDS; r++) {
        int v = -1;
        THR_MPI(MPI_Recv(&v, 1, MPI_INT, left, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        THR_MPI(MPI_Send(&v, 1, MPI_INT, left, 1, MPI_COMM_WORLD));
    }
    return NULL;
}

static void *pinger(void *arg)
{
    (void)arg;
    int peer = thr_rank ^ 1;
    if (peer >= thr_size)
        return NULL;
    for (int i = 0; i < 200; i++) {
        int v = i, got = -1;
        if (thr_rank % 2 == 0) {
            THR_MPI(MPI_Send(&v, 1, MPI_INT, peer, 9, side));
            THR_MPI(MPI_Recv(&got, 1, MPI_INT, peer, 9, side, MPI_STATUS_IGNORE));
        } else {
            THR_MPI(MPI_Recv(&got, 1, MPI_INT, peer, 9, side, MPI_STATUS_IGNORE));
            THR_MPI(MPI_Send(&got, 1, MPI_INT, peer, 9, side));
        }
        THR_CHECK(got == i, "ping %d came back as %d", i, got);
    }
    return NULL;
}

static void *role(void *arg)
{
    long i = (long)arg;
    return i == 0 ? waiter(NULL) : i == 1 ? sender(NULL) : i == 2 ? echo(NULL) : pinger(NULL);
}

int main(int argc, char **argv)
{
    thr_init(&argc, &argv);
    MPI_Comm_dup(MPI_COMM_WORLD, &side);
    thr_run(4, role);
    MPI_Comm_free(&side);
    return thr_finish();
}
