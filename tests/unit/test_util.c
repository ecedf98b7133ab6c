/* test_util.c — the shared helpers every layer relies on: the secret comparisons (equal only
 * for equal inputs, whatever the lengths) and the tunable parser (suffixes, junk falls back to
 * the default). */
#include <stdio.h>
#include <stdlib.h>

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
    printf(errs ? "%d errors\n" : " No Errors\n", errs);
    return errs != 0;
}
