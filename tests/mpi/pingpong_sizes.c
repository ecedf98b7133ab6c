/* pingpong_sizes — blocking ping-pong with data checks over the protocol boundaries:
 * sizes 0, 1, eager limit - 1, eager limit, eager limit + 1 (SCTPMPI_EAGER_LIMIT, default
 * 65536 bytes), 1 MiB and 16 MiB.  Ranks are paired (0,1), (2,3), ...; all pairs run at the same
 * time; an odd last rank only joins the barriers.  Every message is checked for content, source,
 * tag and byte count, and the reply carries different data than the ping. */
#include "sm_test.h"

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    const int eager = sm_eager_limit();
    const size_t sizes[] = {0, 1, (size_t)eager - 1, (size_t)eager, (size_t)eager + 1,
                            1u << 20, 16u << 20};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    const int partner = (sm_rank % 2 == 0) ? sm_rank + 1 : sm_rank - 1;
    const int active = partner < sm_size;
    const int pinger = sm_rank % 2 == 0;

    unsigned char *sbuf = sm_malloc(16u << 20), *rbuf = sm_malloc((16u << 20) + 16);
    for (int s = 0; s < nsizes && active; s++) {
        const size_t n = sizes[s];
        const int iters = n >= (1u << 20) ? 2 : 5;
        for (int it = 0; it < iters; it++) {
            const int tag = 100 + s;
            const uint32_t ping_seed = (uint32_t)(s * 1000 + it * 10 + 1 + sm_rank / 2 * 100000);
            const uint32_t pong_seed = ping_seed + 5;
            MPI_Status st;
            /* poison the receive buffer, including a guard area past the message */
            memset(rbuf, 0xa5, n + 16);
            if (pinger) {
                sm_fill(sbuf, n, ping_seed);
                MPI_Send(sbuf, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD);
                MPI_Recv(rbuf, (int)n + 16, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st);
                SM_CHECK_STATUS(st, partner, tag, n, "pong");
                SM_VERIFY(rbuf, n, pong_seed, "pong of %zu bytes, iteration %d", n, it);
            } else {
                MPI_Recv(rbuf, (int)n + 16, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st);
                SM_CHECK_STATUS(st, partner, tag, n, "ping");
                SM_VERIFY(rbuf, n, ping_seed, "ping of %zu bytes, iteration %d", n, it);
                sm_fill(sbuf, n, pong_seed);
                MPI_Send(sbuf, (int)n, MPI_BYTE, partner, tag, MPI_COMM_WORLD);
            }
            for (int g = 0; g < 16; g++)
                SM_CHECK(rbuf[n + g] == 0xa5, "receive of %zu bytes wrote past the message "
                         "(guard byte %d changed)", n, g);
        }
    }

    /* The same boundary sizes again with a typed buffer (MPI_INT counts) in one direction. */
    if (active) {
        const int counts[] = {0, 1, eager / 4 - 1, eager / 4, eager / 4 + 1, 1 << 18};
        for (int c = 0; c < (int)(sizeof counts / sizeof counts[0]); c++) {
            int *ib = (int *)sbuf;
            int n = counts[c];
            MPI_Status st;
            if (pinger) {
                for (int i = 0; i < n; i++) ib[i] = i * 7 + c;
                MPI_Send(ib, n, MPI_INT, partner, 200 + c, MPI_COMM_WORLD);
            } else {
                int *rb = (int *)rbuf;
                MPI_Recv(rb, n, MPI_INT, partner, 200 + c, MPI_COMM_WORLD, &st);
                int got = -1;
                MPI_Get_count(&st, MPI_INT, &got);
                SM_CHECK(got == n, "MPI_INT message: Get_count %d, want %d", got, n);
                for (int i = 0; i < n; i++)
                    SM_CHECK(rb[i] == i * 7 + c, "MPI_INT message of %d: element %d is %d", n, i,
                             rb[i]);
            }
        }
    }
    free(sbuf);
    free(rbuf);
    return sm_finish();
}
