/* mh_timeline.c — failover timeline (multihoming experiment (c); thesis Figs. 6.1-6.3): rank 0
 * streams MSG-byte messages to rank 1 for DURATION seconds (MPI_Send back to back); rank 1
 * counts the bytes it receives in 100 ms bins and prints one line per bin,
 * "t_s mbit_per_s", then the longest stretch of empty bins.  The network events (rail down/up)
 * come from the netlab topology; bench/multihome/mh_failover.sh runs the configurations.
 * A stream that stalls for good (no stop message 10 s after DURATION) still gets its timeline:
 * rank 1 prints it with "# unfinished: ..." and aborts the job (exit status 3).
 *
 *   mh_timeline [DURATION_S (30)] [MSG_BYTES (65536)]
 * Standard MPI only. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TAG_DATA 1
#define TAG_STOP 2
#define BIN_S 0.1
#define GRACE_S 10.0 /* after DURATION: the stream is declared stalled for good */

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double duration = argc > 1 ? atof(argv[1]) : 30.0;
    int msg = argc > 2 ? atoi(argv[2]) : 65536;
    if (size != 2 || duration <= 0 || msg <= 0) {
        if (rank == 0)
            fprintf(stderr, "usage: mh_timeline [DURATION_S] [MSG_BYTES], 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char *buf = calloc(1, (size_t)msg);
    int nbins = (int)(duration / BIN_S) + 2;
    double *bytes = calloc((size_t)nbins, sizeof *bytes);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (rank == 0) {
        int stop = 0;
        while (MPI_Wtime() - t0 < duration)
            MPI_Send(buf, msg, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
        MPI_Send(&stop, 1, MPI_INT, 1, TAG_STOP, MPI_COMM_WORLD);
    } else {
        int unfinished = 0;
        for (;;) {
            MPI_Status st;
            MPI_Request rq;
            int done = 0;
            MPI_Irecv(buf, msg, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &rq);
            while (!done && !(unfinished = MPI_Wtime() - t0 > duration + GRACE_S)) {
                MPI_Test(&rq, &done, &st);
                if (!done)
                    nanosleep(&(struct timespec){0, 100000}, NULL);
            }
            if (unfinished || st.MPI_TAG == TAG_STOP)
                break;
            int b = (int)((MPI_Wtime() - t0) / BIN_S);
            if (b >= nbins)
                b = nbins - 1;
            bytes[b] += msg;
        }
        int longest = 0, run = 0, at = 0;
        printf("# t_s mbit_per_s\n");
        for (int b = 0; b < (int)(duration / BIN_S); b++) {
            printf("%.1f %.1f\n", b * BIN_S, bytes[b] * 8 / BIN_S / 1e6);
            run = bytes[b] == 0 ? run + 1 : 0;
            if (run > longest) {
                longest = run;
                at = b - run + 1;
            }
        }
        printf("# longest stall %.1f s from t=%.1f s\n", longest * BIN_S, at * BIN_S);
        if (unfinished) {
            printf("# unfinished: the stream did not end within %.0f s after %.0f s\n", GRACE_S, duration);
            fflush(stdout);
            MPI_Abort(MPI_COMM_WORLD, 3); /* the sender is stuck in MPI_Send: end the job */
        }
    }
    free(buf);
    free(bytes);
    MPI_Finalize();
    return 0;
}
