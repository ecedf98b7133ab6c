/* mh_stream.c — a checked message stream between rank 0 (sender) and rank 1 (receiver), for the
 * multihoming tests (tests/multihome/test_NAME.sh): every message carries its sequence number, its
 * length and a checksum of its contents; the receiver checks each one arrives once, in order
 * and intact, and measures the longest gap between two deliveries.
 *
 *   mh_stream [-n COUNT] [-p PACE_US] [-g MAX_GAP_S] [-f BOUND_S]
 *     -n  messages (10000)            -p  pause between sends, microseconds (300)
 *     -g  fail when the longest gap between deliveries exceeds this (2.0 s)
 *     -f  failure mode: the network goes away for good; MPI calls must return an error (the
 *         communicator has MPI_ERRORS_RETURN) within BOUND_S seconds of the last delivery /
 *         completed send, and neither rank may hang.
 * Rank 0 prints " No Errors" when every check passed. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define TAG_DATA 1
#define TAG_RESULT 2
#define MAX_LEN (128 * 1024)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* length of message i: mostly small, every 50th one large (rendezvous) */
static size_t length_of(uint32_t i)
{
    uint32_t x = i * 2654435761u;
    if (i % 50 == 49)
        return 64 * 1024 + (x % (MAX_LEN - 64 * 1024));
    return 16 + (x >> 8) % 4000;
}

static uint64_t fill(unsigned char *buf, size_t len, uint32_t seq)
{
    uint64_t h = 1469598103934665603ull;
    uint32_t s = seq * 747796405u + 2891336453u;
    memcpy(buf, &seq, 4);
    uint32_t l32 = (uint32_t)len;
    memcpy(buf + 4, &l32, 4);
    for (size_t k = 16; k < len; k++) {
        s = s * 1664525u + 1013904223u;
        buf[k] = (unsigned char)(s >> 24);
        h = (h ^ buf[k]) * 1099511628211ull;
    }
    memcpy(buf + 8, &h, 8);
    return h;
}

/* 0 when buf is message seq, whole and intact */
static const char *check(const unsigned char *buf, size_t got, uint32_t seq)
{
    uint32_t s, l;
    uint64_t h, hh = 1469598103934665603ull;
    if (got < 16)
        return "shorter than its header";
    memcpy(&s, buf, 4);
    memcpy(&l, buf + 4, 4);
    memcpy(&h, buf + 8, 8);
    if (s != seq)
        return "out of sequence (lost, duplicated or reordered)";
    if (l != got || got != length_of(seq))
        return "wrong length";
    for (size_t k = 16; k < got; k++)
        hh = (hh ^ buf[k]) * 1099511628211ull;
    return hh == h ? NULL : "checksum mismatch (corrupted)";
}

int main(int argc, char **argv)
{
    long count = 10000, pace_us = 300;
    double max_gap = 2.0, fail_bound = 0;
    int opt;
    while ((opt = getopt(argc, argv, "n:p:g:f:")) != -1) {
        switch (opt) {
        case 'n': count = atol(optarg); break;
        case 'p': pace_us = atol(optarg); break;
        case 'g': max_gap = atof(optarg); break;
        case 'f': fail_bound = atof(optarg); break;
        default:
            fprintf(stderr, "usage: mh_stream [-n COUNT] [-p PACE_US] [-g GAP_S] [-f BOUND_S]\n");
            return 2;
        }
    }
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "mh_stream needs exactly 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (fail_bound > 0)
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    unsigned char *buf = malloc(MAX_LEN);
    int errors = 0;
    double t0 = now_s(), last = t0, worst = 0, worst_at = 0;
    long done = 0;
    char why[MPI_MAX_ERROR_STRING] = "";
    int rc = MPI_SUCCESS;
    for (uint32_t i = 0; i < (uint32_t)count; i++) {
        size_t len = length_of(i);
        if (rank == 0) {
            fill(buf, len, i);
            rc = MPI_Send(buf, (int)len, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
            if (pace_us > 0)
                usleep((useconds_t)pace_us);
        } else {
            MPI_Status st;
            memset(buf, 0, 16);
            rc = MPI_Recv(buf, MAX_LEN, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &st);
            if (rc == MPI_SUCCESS) {
                int got;
                MPI_Get_count(&st, MPI_BYTE, &got);
                const char *bad = check(buf, (size_t)got, i);
                if (bad) {
                    if (errors < 10)
                        fprintf(stderr, "rank 1: message %u: %s\n", i, bad);
                    errors++;
                }
            }
        }
        double t = now_s();
        if (rc != MPI_SUCCESS)
            break;
        if (t - last > worst) {
            worst = t - last;
            worst_at = last - t0;
        }
        last = t;
        done++;
    }
    double t_err = now_s();
    if (fail_bound > 0) {
        /* failure mode: the stream must end in an error returned within the bound */
        if (rc == MPI_SUCCESS) {
            printf("rank %d: FAIL: all %ld messages went through; the network never failed\n",
                   rank, done);
            errors++;
        } else {
            int len;
            MPI_Error_string(rc, why, &len);
            double after = t_err - last;
            printf("rank %d: MPI error after %ld messages, %.3f s after the last success "
                   "(bound %.1f s): %s\n", rank, done, after, fail_bound, why);
            if (after > fail_bound) {
                printf("rank %d: FAIL: the error took longer than the bound\n", rank);
                errors++;
            }
        }
        if (rank == 0 && errors == 0)
            printf(" No Errors\n");
        fflush(stdout);
        free(buf);
        /* MPI_Finalize must return too (with an error: the peer is lost), not hang */
        double f0 = now_s();
        int frc = MPI_Finalize();
        printf("rank %d: MPI_Finalize returned %s after %.3f s\n", rank,
               frc == MPI_SUCCESS ? "MPI_SUCCESS" : "an error", now_s() - f0);
        fflush(stdout);
        return errors ? 1 : 0;
    }
    if (rank == 1) {
        /* nothing beyond the stream: a duplicate would be waiting now */
        int extra = 0;
        MPI_Iprobe(0, TAG_DATA, MPI_COMM_WORLD, &extra, MPI_STATUS_IGNORE);
        if (extra) {
            fprintf(stderr, "rank 1: a message beyond the %ld expected\n", count);
            errors++;
        }
        printf("rank 1: %ld of %ld messages intact and in order, %d bad; longest gap between "
               "deliveries %.3f s (at %.2f s of %.2f s)\n", done, count, errors, worst, worst_at,
               last - t0);
        if (worst > max_gap) {
            printf("rank 1: FAIL: longest gap %.3f s above %.1f s\n", worst, max_gap);
            errors++;
        }
        fflush(stdout);
        double res[2] = {(double)errors, worst};
        MPI_Send(res, 2, MPI_DOUBLE, 0, TAG_RESULT, MPI_COMM_WORLD);
    } else {
        double res[2];
        MPI_Recv(res, 2, MPI_DOUBLE, 1, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        errors += (int)res[0];
        printf("rank 0: sent %ld messages in %.2f s; receiver: %d errors, longest gap %.3f s\n",
               done, last - t0, (int)res[0], res[1]);
        if (errors == 0)
            printf(" No Errors\n");
    }
    free(buf);
    MPI_Finalize();
    return errors ? 1 : 0;
}
