/* sendrecv_replace_ring — ring shifts with MPI_Sendrecv and MPI_Sendrecv_replace: every rank
 * sends to (rank + d) % size and receives from (rank - d) % size, for shift distances d = 1 ..
 * size-1 and sizes 0, 1, 1000, eager limit - 1, eager limit + 1, 4 x eager limit and 1 MiB;
 * the data identify sender, distance and size.  Also a non-periodic chain where the ends talk to
 * MPI_PROC_NULL (status source MPI_PROC_NULL, count 0, buffer untouched). */
#include "sm_test.h"

static uint32_t seed_of(int src, int d, int s) { return (uint32_t)(src * 7919 + d * 131 + s * 7 + 1); }

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    const int eager = sm_eager_limit();
    const size_t sizes[] = {0, 1, 1000, (size_t)eager - 1, (size_t)eager + 1, (size_t)eager * 4,
                            1u << 20};
    const int nsizes = (int)(sizeof sizes / sizeof sizes[0]);
    const size_t maxn = 1u << 20 > (size_t)eager * 4 ? 1u << 20 : (size_t)eager * 4;
    unsigned char *a = sm_malloc(maxn + 8), *b = sm_malloc(maxn + 8);
    const int dmax = sm_size > 1 ? sm_size - 1 : 1;

    for (int s = 0; s < nsizes; s++) {
        const size_t n = sizes[s];
        /* large sizes only with the nearest shift, to keep the run short */
        const int dlim = n > 100000 ? 1 : dmax;
        for (int d = 1; d <= dlim; d++) {
            const int to = (sm_rank + d) % sm_size, from = (sm_rank - d + sm_size) % sm_size;
            MPI_Status st;
            int cnt;

            /* Sendrecv with separate buffers */
            sm_fill(a, n, seed_of(sm_rank, d, s));
            memset(b, 0x5a, n + 8);
            MPI_Sendrecv(a, (int)n, MPI_BYTE, to, 100 + d, b, (int)n + 8, MPI_BYTE, from, 100 + d,
                         MPI_COMM_WORLD, &st);
            SM_CHECK_STATUS(st, from, 100 + d, n, "Sendrecv");
            SM_VERIFY(b, n, seed_of(from, d, s), "Sendrecv of %zu bytes, shift %d", n, d);
            SM_VERIFY(a, n, seed_of(sm_rank, d, s), "Sendrecv changed its send buffer");
            SM_CHECK(b[n] == 0x5a, "Sendrecv wrote past the message");

            /* Sendrecv_replace in place, different send and receive tags */
            sm_fill(a, n, seed_of(sm_rank, d, s) + 1);
            MPI_Sendrecv_replace(a, (int)n, MPI_BYTE, to, 200 + sm_rank, from, 200 + from,
                                 MPI_COMM_WORLD, &st);
            SM_CHECK_STATUS(st, from, 200 + from, n, "Sendrecv_replace");
            SM_VERIFY(a, n, seed_of(from, d, s) + 1, "Sendrecv_replace of %zu bytes, shift %d", n,
                      d);

            /* Sendrecv_replace with a typed buffer and ANY_SOURCE receive */
            if (n % sizeof(double) == 0 && n > 0) {
                double *x = (double *)a;
                const int cntd = (int)(n / sizeof(double));
                for (int i = 0; i < cntd; i++) x[i] = sm_rank * 1e6 + i * 0.5;
                /* (the tag is unique to this step: a later step's message cannot match) */
                const int tag = 1000 + s * 64 + d;
                MPI_Sendrecv_replace(x, cntd, MPI_DOUBLE, to, tag, MPI_ANY_SOURCE, tag,
                                     MPI_COMM_WORLD, &st);
                MPI_Get_count(&st, MPI_DOUBLE, &cnt);
                SM_CHECK(st.MPI_SOURCE == from && st.MPI_TAG == tag && cnt == cntd,
                         "wildcard Sendrecv_replace: source %d tag %d count %d", st.MPI_SOURCE,
                         st.MPI_TAG, cnt);
                for (int i = 0; i < cntd; i++)
                    SM_CHECK(x[i] == from * 1e6 + i * 0.5, "double %d is %g", i, x[i]);
            }
        }
    }

    /* Non-periodic chain: rank 0 receives from PROC_NULL, the last rank sends to PROC_NULL. */
    {
        const int to = sm_rank + 1 < sm_size ? sm_rank + 1 : MPI_PROC_NULL;
        const int from = sm_rank > 0 ? sm_rank - 1 : MPI_PROC_NULL;
        const size_t n = (size_t)eager + 100;
        MPI_Status st;
        sm_fill(a, n, 4242u + (uint32_t)sm_rank);
        MPI_Sendrecv_replace(a, (int)n, MPI_BYTE, to, 9, from, 9, MPI_COMM_WORLD, &st);
        if (from == MPI_PROC_NULL) {
            int cnt = -1;
            MPI_Get_count(&st, MPI_BYTE, &cnt);
            SM_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && cnt == 0,
                     "receive from PROC_NULL: source %d tag %d count %d", st.MPI_SOURCE,
                     st.MPI_TAG, cnt);
            SM_VERIFY(a, n, 4242u + (uint32_t)sm_rank, "buffer after a PROC_NULL receive");
        } else {
            SM_CHECK_STATUS(st, from, 9, n, "chain Sendrecv_replace");
            SM_VERIFY(a, n, 4242u + (uint32_t)from, "chain Sendrecv_replace");
        }
        memset(b, 0x77, 16);
        MPI_Sendrecv(a, 4, MPI_BYTE, from, 10, b, 16, MPI_BYTE, to, 10, MPI_COMM_WORLD, &st);
        if (to == MPI_PROC_NULL) {
            SM_CHECK(st.MPI_SOURCE == MPI_PROC_NULL && b[0] == 0x77,
                     "Sendrecv from PROC_NULL: source %d, buffer touched", st.MPI_SOURCE);
        } else {
            SM_CHECK_STATUS(st, to, 10, 4, "backward chain Sendrecv");
        }
    }
    free(a);
    free(b);
    return sm_finish();
}
