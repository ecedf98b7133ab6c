/* test_util.c — the shared helpers every layer relies on: the secret comparisons (equal only
 * for equal inputs, whatever the lengths) and the tunable parser (suffixes, junk falls back to
 * the default). */
#include <stdio.h>
#include <stdlib.h>

#include "transport/hello.h"
#include "util/util.h"

static int errs;
#define CHECK(c, ...)                                                                            \
    do {                                                                                         \
        if (!(c)) {                                                                              \
            printf("FAILED %s:%d: ", __FILE__, __LINE__);                                      \
            printf(__VA_ARGS__);                                                                 \
            printf("\n");                                                                        \
            errs++;                                                                              \
        }                                                                                        \
    } while (0)

int main(void)
{
    char a[16] = "abcdef", b[16] = "abcdef", c[16] = "abcdeg", d[16] = "abcde", e[16] = "";
    CHECK(sm_secret_equal(a, b, sizeof a), "equal secrets");
    CHECK(!sm_secret_equal(a, c, sizeof a), "last byte differs");
    CHECK(!sm_secret_equal(a, d, sizeof a) && !sm_secret_equal(d, a, sizeof a), "prefix");
    CHECK(!sm_secret_equal(a, e, sizeof a), "empty");
    CHECK(sm_secret_equal(e, e, sizeof e), "both empty");
    char full1[4] = {'w', 'x', 'y', 'z'}, full2[4] = {'w', 'x', 'y', 'z'};
    CHECK(sm_secret_equal(full1, full2, 4), "unterminated within max, equal");
    full2[3] = 'q';
    CHECK(!sm_secret_equal(full1, full2, 4), "unterminated within max, different");
    CHECK(sm_bytes_equal("12345678", "12345678", 8) && !sm_bytes_equal("12345678", "12345679", 8),
          "bytes");
    CHECK(sm_bytes_equal("x", "y", 0), "zero bytes");

    setenv("SCTPMPI_TEST_SIZE", "4k", 1);
    CHECK(sm_env_size("SCTPMPI_TEST_SIZE", 1) == 4096, "4k");
    setenv("SCTPMPI_TEST_SIZE", "2M", 1);
    CHECK(sm_env_size("SCTPMPI_TEST_SIZE", 1) == 2 * 1024 * 1024, "2M");
    setenv("SCTPMPI_TEST_SIZE", "12junk", 1);
    CHECK(sm_env_size("SCTPMPI_TEST_SIZE", 77) == 77, "junk falls back to the default");
    setenv("SCTPMPI_TEST_SIZE", "lots", 1);
    CHECK(sm_env_size("SCTPMPI_TEST_SIZE", 77) == 77, "no number");
    unsetenv("SCTPMPI_TEST_SIZE");
    CHECK(sm_env_size("SCTPMPI_TEST_SIZE", 5) == 5, "unset");
    setenv("SCTPMPI_TEST_BOOL", "maybe", 1);
    CHECK(sm_env_bool("SCTPMPI_TEST_BOOL", 1) == 1, "junk bool keeps the default");
    /* ranges, keywords and the table parser the transports share */
    setenv("SCTPMPI_TEST_SIZE", "64k", 1);
    CHECK(sm_env_range("SCTPMPI_TEST_SIZE", 1, 0, 1 << 20) == 65536, "in range");
    CHECK(sm_env_range("SCTPMPI_TEST_SIZE", 9, 0, 1000) == 9, "out of range keeps the default");
    setenv("SCTPMPI_TEST_WORD", "LAN", 1);
    static const char *const words[] = {"none", "wan", "lan"};
    CHECK(sm_env_choice("SCTPMPI_TEST_WORD", words, 3, 0) == 2, "keyword, any case");
    setenv("SCTPMPI_TEST_WORD", "moon", 1);
    CHECK(sm_env_choice("SCTPMPI_TEST_WORD", words, 3, 1) == 1, "unknown keyword: default");
    struct tu { int n; size_t sz; int on; } tu = {0, 0, 0};
    static const struct sm_tunable tab[] = {
        SM_TUNABLE(SM_TU_INT, "SCTPMPI_TEST_UNSET", struct tu, n, -1, 0, 10),
        SM_TUNABLE(SM_TU_SIZE, "SCTPMPI_TEST_SIZE", struct tu, sz, 0, 0, 1 << 20),
        SM_TUNABLE(SM_TU_BOOL, "SCTPMPI_TEST_ON", struct tu, on, 0, 0, 1),
    };
    unsetenv("SCTPMPI_TEST_UNSET");
    setenv("SCTPMPI_TEST_ON", "yes", 1);
    sm_tunables_load(&tu, tab, 3);
    CHECK(tu.n == -1 && tu.sz == 65536 && tu.on == 1, "table: %d %zu %d", tu.n, tu.sz, tu.on);
    /* the hello admission rule every transport applies */
    struct sm_hello h, got;
    sm_hello_make(&h, 0x534d4831u, 1, 4, 0, "s3cret");
    CHECK(!sm_hello_check(&h, sizeof h, 0x534d4831u, 0, 4, -1, "s3cret", &got) && got.rank == 1,
          "good hello");
    CHECK(sm_hello_check(&h, sizeof h, 0x534d4831u, 0, 4, -1, "s3cres", &got) != NULL,
          "wrong secret");
    CHECK(sm_hello_check(&h, sizeof h - 1, 0x534d4831u, 0, 4, -1, "s3cret", &got) != NULL,
          "short hello");
    CHECK(sm_hello_check(&h, sizeof h, 0x11111111u, 0, 4, -1, "s3cret", &got) != NULL,
          "wrong magic");
    CHECK(sm_hello_check(&h, sizeof h, 0x534d4831u, 1, 4, -1, "s3cret", &got) != NULL,
          "our own rank");
    CHECK(sm_hello_check(&h, sizeof h, 0x534d4831u, 0, 3, -1, "s3cret", &got) != NULL,
          "other job size");
    CHECK(sm_hello_check(&h, sizeof h, 0x534d4831u, 0, 4, 2, "s3cret", &got) != NULL,
          "not the rank expected on this connection");
    printf(errs ? "%d errors\n" : " No Errors\n", errs);
    return errs != 0;
}
