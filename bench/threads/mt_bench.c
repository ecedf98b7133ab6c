/* mt_bench.c — multi-threaded point-to-point benchmark, 2 ranks, T threads each (standard MPI
 * only, so that any MPI builds it).  Thread i of rank 0 works with thread i of rank 1 on its
 * own duplicate of MPI_COMM_WORLD.
 *   rate: every pair sends windows of W 8-byte messages (Isend/Irecv, Waitall) followed by a
 *         0-byte acknowledgement, for a fixed time; prints the messages/s of all pairs together
 *   lat:  every pair runs 0-byte ping-pongs; prints the median one-way latency of the pairs
 * usage: mt_bench rate|lat THREADS [SECONDS]   (prints one line: "<mode> <T> <value>") */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define W 64
static int rank, mode_rate, nthr;
static double secs = 1.0;
static MPI_Comm comms[64];
static double result[64];

static int cmpd(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* rank 0 decides when to stop: a flag sent with every acknowledgement/reply round */
static void *pair(void *arg)
{
    int t = (int)(long)arg, peer = 1 - rank;
    MPI_Comm c = comms[t];
    char buf[W][8], ack = 0;
    MPI_Request rq[W];
    int stop = 0;
    long msgs = 0, rounds = 0;
    double t0 = MPI_Wtime(), el = 0;
    if (mode_rate) {
        while (!stop) {
            if (rank == 0) {
                for (int i = 0; i < W; i++)
                    MPI_Isend(buf[i], 8, MPI_BYTE, peer, 1, c, &rq[i]);
                MPI_Waitall(W, rq, MPI_STATUSES_IGNORE);
                MPI_Recv(&ack, 1, MPI_BYTE, peer, 2, c, MPI_STATUS_IGNORE);
                el = MPI_Wtime() - t0;
                stop = el >= secs;
                MPI_Send(&stop, 1, MPI_INT, peer, 3, c);
            } else {
                for (int i = 0; i < W; i++)
                    MPI_Irecv(buf[i], 8, MPI_BYTE, peer, 1, c, &rq[i]);
                MPI_Waitall(W, rq, MPI_STATUSES_IGNORE);
                MPI_Send(&ack, 1, MPI_BYTE, peer, 2, c);
                MPI_Recv(&stop, 1, MPI_INT, peer, 3, c, MPI_STATUS_IGNORE);
            }
            msgs += W;
        }
        result[t] = msgs / el;
    } else {
        double *lat = malloc(sizeof(double) * 200000);
        while (!stop && rounds < 200000) {
            double s = MPI_Wtime();
            if (rank == 0) {
                MPI_Send(NULL, 0, MPI_BYTE, peer, 1, c);
                MPI_Recv(&stop, 1, MPI_INT, peer, 1, c, MPI_STATUS_IGNORE);
                lat[rounds++] = (MPI_Wtime() - s) / 2 * 1e6;
                stop = MPI_Wtime() - t0 >= secs;
                if (stop)
                    MPI_Send(NULL, 0, MPI_BYTE, peer, 2, c);
            } else {
                MPI_Status st;
                MPI_Recv(NULL, 0, MPI_BYTE, peer, MPI_ANY_TAG, c, &st);
                if (st.MPI_TAG == 2)
                    break;
                MPI_Send(&stop, 1, MPI_INT, peer, 1, c);
                rounds++;
            }
        }
        if (rank == 0) {
            qsort(lat, (size_t)rounds, sizeof *lat, cmpd);
            result[t] = rounds ? lat[rounds / 2] : 0;
        }
        free(lat);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    if (argc < 3) {
        fprintf(stderr, "usage: mt_bench rate|lat THREADS [SECONDS]\n");
        return 2;
    }
    mode_rate = strcmp(argv[1], "rate") == 0;
    nthr = atoi(argv[2]);
    if (argc > 3)
        secs = atof(argv[3]);
    if (nthr < 1 || nthr > 64)
        nthr = 1;
    MPI_Init_thread(&argc, &argv, nthr > 1 ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2 || (nthr > 1 && provided != MPI_THREAD_MULTIPLE)) {
        if (rank == 0)
            fprintf(stderr, "mt_bench: needs 2 ranks and MPI_THREAD_MULTIPLE\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int t = 0; t < nthr; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    pthread_t th[64];
    if (nthr == 1) {
        pair(0);
    } else {
        for (long t = 0; t < nthr; t++)
            pthread_create(&th[t], NULL, pair, (void *)t);
        for (int t = 0; t < nthr; t++)
            pthread_join(th[t], NULL);
    }
    if (rank == 0) {
        double v = 0;
        if (mode_rate) {
            for (int t = 0; t < nthr; t++)
                v += result[t];
        } else {
            qsort(result, (size_t)nthr, sizeof *result, cmpd);
            v = result[nthr / 2];
        }
        printf("%s %d %.2f\n", mode_rate ? "rate" : "lat", nthr, v);
    }
    for (int t = 0; t < nthr; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return 0;
}
