/* fix_dims.c — MPI_Dims_create: the free dimensions get the most balanced factorisation
 * (smallest largest-minus-smallest; among equal spreads the one with the larger small values)
 * in non-increasing order, fixed entries are kept, and impossible inputs are errors.  Checked
 * against an independent brute-force search for every n up to 1500 in 2..4 dimensions. */
#include "../common/mpi_test.h"

/* brute force: every non-increasing factorisation of n into k factors, best kept in best[] */
static void search(int n, int k, int i, int *cur, int *best, int *best_spread)
{
    if (i == k - 1) {
        if (i > 0 && n > cur[i - 1])
            return;
        cur[i] = n;
        int spread = cur[0] - cur[k - 1];
        int better = *best_spread < 0 || spread < *best_spread;
        if (!better && spread == *best_spread)
            for (int j = k - 1; j >= 0; j--)
                if (cur[j] != best[j]) {
                    better = cur[j] > best[j];
                    break;
                }
        if (better) {
            memcpy(best, cur, sizeof(int) * (size_t)k);
            *best_spread = spread;
        }
        return;
    }
    int top = i > 0 ? cur[i - 1] : n;
    for (int x = 1; x <= top && x <= n; x++)
        if (n % x == 0) {
            cur[i] = x;
            search(n / x, k, i + 1, cur, best, best_spread);
        }
}

static void expect(int n, int k, const int *in, const int *want)
{
    int d[8];
    memcpy(d, in, sizeof(int) * (size_t)k);
    int rc = MPI_Dims_create(n, k, d);
    CHECK(rc == MPI_SUCCESS, "Dims_create(%d, %d) failed", n, k);
    for (int i = 0; i < k; i++)
        CHECK(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, expected %d", n, k, i, d[i],
              want[i]);
}

int main(int argc, char **argv)
{
    start(&argc, &argv);
    if (rank_ == 0) {
        /* hand-checked cases */
        int z[4] = {0, 0, 0, 0};
        expect(72, 2, z, (int[]){9, 8});
        expect(30, 2, z, (int[]){6, 5});
        expect(24, 3, z, (int[]){4, 3, 2});
        expect(64, 3, z, (int[]){4, 4, 4});
        expect(1024, 3, z, (int[]){16, 8, 8});
        expect(7, 3, z, (int[]){7, 1, 1});
        expect(2147483647, 2, z, (int[]){2147483647, 1});
        expect(1, 4, z, (int[]){1, 1, 1, 1});
        /* fixed entries stay, the rest is split among the free ones */
        expect(72, 3, (int[]){0, 3, 0}, (int[]){6, 3, 4});
        expect(60, 3, (int[]){5, 0, 0}, (int[]){5, 4, 3});
        expect(12, 2, (int[]){3, 4}, (int[]){3, 4});
        /* exhaustive comparison */
        for (int k = 2; k <= 4; k++)
            for (int n = 1; n <= 1500; n++) {
                int *cur = xmalloc(sizeof(int) * 8), *best = cur + 4, spread = -1;
                search(n, k, 0, cur, best, &spread);
                expect(n, k, z, best);
                free(cur);
            }
        /* impossible inputs are errors, not silent results */
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        int d[3] = {0, 5, 0};
        CHECK(MPI_Dims_create(12, 3, d) != MPI_SUCCESS, "12 nodes with a fixed 5 accepted");
        int e[2] = {3, 5};
        CHECK(MPI_Dims_create(12, 2, e) != MPI_SUCCESS, "fixed 3 x 5 for 12 nodes accepted");
        int f[2] = {-1, 0};
        CHECK(MPI_Dims_create(4, 2, f) != MPI_SUCCESS, "negative dims accepted");
        CHECK(MPI_Dims_create(4, -1, f) != MPI_SUCCESS, "negative ndims accepted");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    return finish();
}
