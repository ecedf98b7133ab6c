/* mpi4_part.c — partitioned communication (MPI-4): rank 0 sends to rank 1 with partitions
 * readied out of order (Pready, Pready_range, Pready_list), several rounds through
 * MPI_Start; the receiver polls MPI_Parrived; send and receive partition counts differ;
 * a request that is never started is freed; MPI_PROC_NULL. */
#include "sm_test.h"

#define SPART 8
#define RPART 4
#define CNT 1000 /* elements per send partition: the whole buffer is above the eager limit */

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    int me = sm_rank;
    int total = SPART * CNT;
    int *buf = malloc(sizeof(int) * (size_t)total);
    MPI_Request rq;
    if (me == 0)
        SM_MPI(MPI_Psend_init(buf, SPART, CNT, MPI_INT, 1, 7, MPI_COMM_WORLD, MPI_INFO_NULL, &rq));
    else if (me == 1)
        SM_MPI(MPI_Precv_init(buf, RPART, total / RPART, MPI_INT, 0, 7, MPI_COMM_WORLD,
                              MPI_INFO_NULL, &rq));
    /* an ordinary message with the same tag must not be confused with the partitioned one */
    int plain = -1;
    for (int round = 0; round < 4; round++) {
        if (me == 0) {
            SM_MPI(MPI_Start(&rq));
            SM_MPI(MPI_Send(&round, 1, MPI_INT, 1, 7, MPI_COMM_WORLD));
            for (int p = SPART - 1; p >= 0; p--) { /* fill and ready in reverse order */
                for (int i = 0; i < CNT; i++)
                    buf[p * CNT + i] = round * 100000 + p * CNT + i;
                if (round % 3 == 0) {
                    SM_MPI(MPI_Pready(p, rq));
                } else if (round % 3 == 1 && p % 2 == 0) {
                    SM_MPI(MPI_Pready_range(p, p + 1, rq));
                } else if (round % 3 == 2 && p == 0) {
                    int list[SPART];
                    for (int k = 0; k < SPART; k++)
                        list[k] = (k * 3) % SPART; /* a permutation */
                    SM_MPI(MPI_Pready_list(SPART, list, rq));
                }
            }
            SM_MPI(MPI_Wait(&rq, MPI_STATUS_IGNORE));
        } else if (me == 1) {
            memset(buf, 0xff, sizeof(int) * (size_t)total);
            SM_MPI(MPI_Start(&rq));
            int arrived[RPART] = {0}, left = RPART;
            while (left > 0) {
                for (int p = 0; p < RPART; p++) {
                    if (arrived[p])
                        continue;
                    int flag = 0;
                    SM_MPI(MPI_Parrived(rq, p, &flag));
                    if (flag) {
                        arrived[p] = 1;
                        left--;
                        for (int i = 0; i < total / RPART; i++) {
                            int k = p * (total / RPART) + i;
                            SM_CHECK(buf[k] == round * 100000 + k, "round %d [%d]=%d", round, k,
                                     buf[k]);
                        }
                    }
                }
            }
            MPI_Status st;
            SM_MPI(MPI_Wait(&rq, &st));
            SM_CHECK(st.MPI_SOURCE == 0, "status source %d", st.MPI_SOURCE);
            SM_MPI(MPI_Recv(&plain, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            SM_CHECK(plain == round, "plain message %d in round %d", plain, round);
            int flag = 0;
            SM_MPI(MPI_Parrived(rq, 0, &flag)); /* inactive: arrived */
            SM_CHECK(flag == 1, "Parrived on an inactive request");
        }
    }
    if (me < 2)
        SM_MPI(MPI_Request_free(&rq));

    /* three requests, same communicator and tag: they match in the order of the *_init
     * calls, whatever order they are started and readied in */
    if (me < 2) {
        int m[3][16];
        MPI_Request t[3];
        for (int k = 0; k < 3; k++) {
            if (me == 0)
                SM_MPI(MPI_Psend_init(m[k], 4, 4, MPI_INT, 1, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                                      &t[k]));
            else
                SM_MPI(MPI_Precv_init(m[k], 2, 8, MPI_INT, 0, 3, MPI_COMM_WORLD, MPI_INFO_NULL,
                                      &t[k]));
        }
        if (me == 0) {
            int order[3] = {2, 0, 1};
            for (int j = 0; j < 3; j++) {
                int k = order[j];
                SM_MPI(MPI_Start(&t[k]));
                for (int i = 0; i < 16; i++)
                    m[k][i] = k * 100 + i;
                SM_MPI(MPI_Pready_range(0, 3, t[k]));
            }
        } else {
            for (int k = 0; k < 3; k++) {
                memset(m[k], 0xff, sizeof m[k]);
                SM_MPI(MPI_Start(&t[k]));
            }
        }
        SM_MPI(MPI_Waitall(3, t, MPI_STATUSES_IGNORE));
        if (me == 1)
            for (int k = 0; k < 3; k++)
                for (int i = 0; i < 16; i++)
                    SM_CHECK(m[k][i] == k * 100 + i, "init-order matching: req %d [%d]=%d", k, i,
                             m[k][i]);
        for (int k = 0; k < 3; k++)
            SM_MPI(MPI_Request_free(&t[k]));
    }

    /* never started, then freed; and MPI_PROC_NULL */
    MPI_Request a, b;
    SM_MPI(MPI_Psend_init(buf, 2, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, MPI_INFO_NULL, &a));
    SM_MPI(MPI_Precv_init(buf, 2, 1, MPI_INT, (me + 1) % sm_size, 0, MPI_COMM_WORLD,
                          MPI_INFO_NULL, &b));
    SM_MPI(MPI_Request_free(&b));
    SM_MPI(MPI_Start(&a));
    SM_MPI(MPI_Pready_range(0, 1, a));
    SM_MPI(MPI_Wait(&a, MPI_STATUS_IGNORE));
    /* errors: a partition out of range, readied twice */
    SM_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    SM_MPI(MPI_Start(&a));
    SM_CHECK(MPI_Pready(2, a) != MPI_SUCCESS, "partition out of range accepted");
    SM_MPI(MPI_Pready(0, a));
    SM_CHECK(MPI_Pready(0, a) != MPI_SUCCESS, "partition readied twice");
    SM_MPI(MPI_Pready(1, a));
    SM_MPI(MPI_Wait(&a, MPI_STATUS_IGNORE));
    SM_MPI(MPI_Request_free(&a));
    free(buf);
    sm_finish();
    return 0;
}
