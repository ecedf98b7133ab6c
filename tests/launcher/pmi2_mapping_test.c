/* pmi2_mapping_test.c — checks the PMI_process_mapping parser the PMI-2 client uses for the
 * ranks on this host (sm_pmi_parse_mapping in src/boot/pmi_select.c) against hand-worked
 * layouts, and that malformed values are refused.  Prints " No Errors" on success. */
#include <stdio.h>

#include "boot/pmi_backend.h"

static int errors;

static void expect(const char *map, int rank, int size, int want_size, int want_rank)
{
    int ls = -9, lr = -9;
    int rc = sm_pmi_parse_mapping(map, rank, size, &ls, &lr);
    if (want_size < 0) {
        if (rc == 0) {
            printf("FAIL: %s accepted (rank %d of %d -> %d of %d)\n", map, rank, size, lr, ls);
            errors++;
        }
        return;
    }
    if (rc != 0 || ls != want_size || lr != want_rank) {
        printf("FAIL: %s rank %d of %d: rc %d local rank %d of %d, want %d of %d\n", map, rank,
               size, rc, lr, ls, want_rank, want_size);
        errors++;
    }
}

int main(void)
{
    /* one node, 4 ranks */
    expect("(vector,(0,1,4))", 3, 4, 4, 3);
    /* 2 nodes x 4 ranks: rank 5 is the second on node 1 */
    expect("(vector,(0,2,4))", 5, 8, 4, 1);
    expect("(vector,(0,2,4))", 3, 8, 4, 3);
    /* uneven blocks: nodes 0-1 hold 4 each, node 2 holds 3 */
    expect("(vector,(0,2,4),(2,1,3))", 10, 11, 3, 2);
    expect("(vector,(0,2,4),(2,1,3))", 7, 11, 4, 3);
    /* round-robin: the pattern repeats (hydra's one-core fork launch says (0,1,1)) */
    expect("(vector,(0,1,1))", 2, 3, 3, 2);
    expect("(vector,(0,2,1))", 3, 4, 2, 1); /* ranks 1 and 3 on node 1 */
    expect("(vector,(0,2,1))", 2, 4, 2, 1); /* ranks 0 and 2 on node 0 */
    /* spaces are tolerated */
    expect(" (vector, (0,1,2), (1,1,2))", 3, 4, 2, 1);
    /* malformed */
    expect("", 0, 1, -1, 0);
    expect("(vector)", 0, 1, -1, 0);
    expect("(vector,(0,1))", 0, 1, -1, 0);
    expect("(vector,(0,1,x))", 0, 1, -1, 0);
    expect("(list,(0,1,1))", 0, 1, -1, 0);
    expect("(vector,(0,1,4))", 4, 4, -1, 0); /* rank out of range */
    if (!errors)
        printf(" No Errors\n");
    return errors != 0;
}
