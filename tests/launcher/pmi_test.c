/* pmi_test.c — exercises the PMI-1 client (src/boot/pmi_client.c) alone, without the MPI
 * library: put/barrier/get across all ranks, then rank 0 prints " No Errors".
 * SM_PMI_TEST_MODE picks a failure for the last rank to commit after the first barrier:
 *   exit3 (exit code 3), abort (PMI abort code 7), nofinalize (exit 0 without finalize),
 *   hang (every rank sleeps forever), print (each rank prints lines; its last stderr line
 *   has no newline).
 * SM_PMI_TEST_PIDDIR: each rank writes rank.R.pid there and forks a sleeping child that
 * writes child.R.pid, so tests can check that nothing of the job survives. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boot/pmi.h"

#define ROUNDS 3

static int errors;

#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            fprintf(stderr, "pmi_test: rank %d: ", my_rank);                                     \
            fprintf(stderr, __VA_ARGS__);                                                        \
            fprintf(stderr, "\n");                                                               \
            errors++;                                                                            \
        }                                                                                        \
    } while (0)

static int my_rank = -1;

static void write_pid(const char *dir, const char *what, int rank, pid_t pid)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%d.pid", dir, what, rank);
    FILE *f = fopen(path, "w");
    if (f) {
        fprintf(f, "%d\n", (int)pid);
        fclose(f);
    }
}

static void record_pids(int rank)
{
    const char *dir = getenv("SM_PMI_TEST_PIDDIR");
    if (!dir || !*dir)
        return;
    write_pid(dir, "rank", rank, getpid());
    pid_t child = fork();
    if (child == 0) {
        for (;;)
            pause(); /* a grandchild of mpiexec: must not outlive the job */
    }
    if (child > 0)
        write_pid(dir, "child", rank, child);
}

static void make_value(char *buf, size_t len, int rank, int round)
{
    int n = snprintf(buf, len, "v-%d-%d-", rank, round);
    for (size_t i = (size_t)n; i + 1 < len; i++)
        buf[i] = (char)('a' + (i * 7 + (size_t)rank) % 26);
    buf[len - 1] = '\0';
}

int main(void)
{
    const char *mode = getenv("SM_PMI_TEST_MODE");
    if (!mode)
        mode = "ok";
    int rank = -1, size = -1;
    if (sm_pmi_init(&rank, &size) != 0) {
        fprintf(stderr, "pmi_test: sm_pmi_init failed\n");
        return 1;
    }
    my_rank = rank;
    CHECK(size >= 1 && rank >= 0 && rank < size, "bad rank %d / size %d", rank, size);
    int expect_singleton = !getenv("PMI_FD") && !getenv("PMI_PORT");
    CHECK(sm_pmi_is_singleton() == expect_singleton, "sm_pmi_is_singleton() = %d",
          sm_pmi_is_singleton());
    record_pids(rank);

    char key[64], value[1024], got[1024];
    for (int round = 0; round < ROUNDS; round++) {
        snprintf(key, sizeof key, "pmi-test-%d-%d", rank, round);
        make_value(value, round == 0 ? 900 : 40 + (size_t)round, rank, round);
        CHECK(sm_pmi_put(key, value) == 0, "put %s failed", key);
        CHECK(sm_pmi_barrier() == 0, "barrier failed");
        if (round == 0 && strcmp(mode, "ok") != 0) {
            if (strcmp(mode, "hang") == 0) {
                for (;;)
                    pause();
            }
            if (strcmp(mode, "print") == 0) {
                printf("hello from %d\n", rank);
                fflush(stdout);
                fprintf(stderr, "warning from %d\n", rank);
            }
            if (rank == size - 1) {
                if (strcmp(mode, "exit3") == 0)
                    exit(3);
                if (strcmp(mode, "nofinalize") == 0)
                    exit(0);
                if (strcmp(mode, "abort") == 0) {
                    sm_pmi_abort(7, "pmi_test asked to abort");
                    for (;;)
                        pause(); /* the launcher must kill us */
                }
            }
        }
        for (int r = 0; r < size; r++) {
            char want[1024];
            snprintf(key, sizeof key, "pmi-test-%d-%d", r, round);
            make_value(want, round == 0 ? 900 : 40 + (size_t)round, r, round);
            memset(got, 0, sizeof got);
            CHECK(sm_pmi_get(key, got, sizeof got) == 0, "get %s failed", key);
            CHECK(strcmp(got, want) == 0, "get %s returned a wrong value '%.40s...'", key, got);
        }
    }
    /* the same values through sm_pmi_get_many (pipelined against our mpiexec and proxies,
     * one by one against hydra and Slurm): more keys than one batch, in a scrambled order */
    {
        int n = 2 * size * ROUNDS + 70;
        char **keys = calloc((size_t)n, sizeof *keys), **vals = calloc((size_t)n, sizeof *vals);
        CHECK(keys && vals, "out of memory");
        for (int i = 0; keys && vals && i < n; i++) {
            int r = (i * 7 + 3) % size, round = (i / size) % ROUNDS;
            keys[i] = malloc(64);
            vals[i] = calloc(1, 1024);
            snprintf(keys[i], 64, "pmi-test-%d-%d", r, round);
        }
        CHECK(keys && vals && sm_pmi_get_many(n, NULL, (const char *const *)keys, vals, 1024) == 0,
              "get_many of %d keys failed", n);
        for (int i = 0; keys && vals && i < n; i++) {
            char want[1024];
            int r = (i * 7 + 3) % size, round = (i / size) % ROUNDS;
            make_value(want, round == 0 ? 900 : 40 + (size_t)round, r, round);
            CHECK(strcmp(vals[i], want) == 0, "get_many %s returned '%.40s...'", keys[i],
                  vals[i]);
            free(keys[i]);
            free(vals[i]);
        }
        free(keys);
        free(vals);
    }
    CHECK(sm_pmi_get("no-such-key", got, sizeof got) == -1, "get of an absent key succeeded");
    if (rank == 0) /* prints one expected complaint on stderr */
        CHECK(sm_pmi_put("bad key", "x") == -1, "put of a key with a space succeeded");
    const char *secret = getenv("SCTPMPI_JOB_SECRET");
    if (secret && !sm_pmi_is_singleton()) {
        CHECK(sm_pmi_get("sctpmpi-secret", got, sizeof got) == 0 && strcmp(got, secret) == 0,
              "sctpmpi-secret from PMI differs from SCTPMPI_JOB_SECRET");
        CHECK(strlen(secret) == 32, "SCTPMPI_JOB_SECRET is not 32 hex chars");
    }
    CHECK(sm_pmi_barrier() == 0, "final barrier failed");
    int total = errors;
    if (sm_pmi_finalize() != 0) {
        fprintf(stderr, "pmi_test: rank %d: finalize failed\n", rank);
        total++;
    }
    if (rank == 0 && total == 0)
        printf(" No Errors\n");
    if (strcmp(mode, "print") == 0)
        fprintf(stderr, "bye from %d", rank); /* no newline: mpiexec -l adds it at EOF */
    return total ? 1 : 0;
}
