/* unit_check.h — CHECK for the engine's unit tests: a failed condition is counted and printed
 * with its location, and the test goes on (main prints " No Errors" only when failures is 0). */
#ifndef UNIT_CHECK_H
#define UNIT_CHECK_H
#include <stdio.h>

static int failures;
#define CHECK(cond, ...)                                                                         \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            failures++;                                                                          \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                              \
            printf(__VA_ARGS__);                                                                 \
            printf("\n");                                                                        \
        }                                                                                        \
    } while (0)

#endif
