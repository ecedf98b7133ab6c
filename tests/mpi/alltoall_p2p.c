/* alltoall_p2p — all-to-all exchange with MPI_Isend / MPI_Irecv: every rank sends a distinct
 * message to every rank (itself included), over several rounds with small and large
 * (> eager limit) messages; each round completes its requests a different way: Waitall,
 * Waitany, Waitsome, Testsome, Testall, Testany.  Checks contents, statuses (source, tag, count),
 * that every request completes exactly once and that completed requests become
 * MPI_REQUEST_NULL. */
#include "sm_test.h"

enum { V_WAITALL, V_WAITANY, V_WAITSOME, V_TESTSOME, V_TESTALL, V_TESTANY, NVARIANTS };
static const char *vname[NVARIANTS] = {"Waitall", "Waitany", "Waitsome", "Testsome", "Testall",
                                       "Testany"};
static const long POLL_MAX = 2000000;

static uint32_t seed_of(int src, int dst, int round) { return (uint32_t)(src * 65599 + dst * 257 + round * 3 + 11); }

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    const int eager = sm_eager_limit();
    const int n = sm_size;
    const size_t sizes[2] = {17, (size_t)eager * 2 + 5};
    unsigned char **sbuf = sm_malloc(sizeof(void *) * (size_t)n);
    unsigned char **rbuf = sm_malloc(sizeof(void *) * (size_t)n);
    for (int i = 0; i < n; i++) {
        sbuf[i] = sm_malloc(sizes[1]);
        rbuf[i] = sm_malloc(sizes[1]);
    }
    MPI_Request *rq = sm_malloc(sizeof(MPI_Request) * 2 * (size_t)n);
    MPI_Status *st = sm_malloc(sizeof(MPI_Status) * 2 * (size_t)n);
    MPI_Status *rst = sm_malloc(sizeof(MPI_Status) * (size_t)n); /* status per receive */
    int *done = sm_malloc(sizeof(int) * 2 * (size_t)n);
    int *idx = sm_malloc(sizeof(int) * 2 * (size_t)n);

    int round = 0;
    for (int rep = 0; rep < 2; rep++)
        for (int si = 0; si < 2; si++)
            for (int v = 0; v < NVARIANTS; v++, round++) {
                const size_t len = sizes[si];
                const int tag = round;
                /* receives first for odd rounds, sends first for even rounds */
                for (int pass = 0; pass < 2; pass++) {
                    if ((pass == 0) == (round % 2 == 1)) {
                        for (int i = 0; i < n; i++) {
                            const int src = (sm_rank - i + n) % n;
                            memset(rbuf[src], 0, len);
                            MPI_Irecv(rbuf[src], (int)len, MPI_BYTE, src, tag, MPI_COMM_WORLD,
                                      &rq[src]);
                        }
                    } else {
                        for (int i = 0; i < n; i++) {
                            const int dst = (sm_rank + i) % n;
                            sm_fill(sbuf[dst], len, seed_of(sm_rank, dst, round));
                            MPI_Isend(sbuf[dst], (int)len, MPI_BYTE, dst, tag, MPI_COMM_WORLD,
                                      &rq[n + dst]);
                        }
                    }
                }
                for (int k = 0; k < 2 * n; k++) done[k] = 0;
                int ndone = 0, outcount, index, flag;
                long polls = 0;
                switch (v) {
                case V_WAITALL:
                    MPI_Waitall(2 * n, rq, st);
                    for (int k = 0; k < 2 * n; k++) done[k] = 1;
                    for (int k = 0; k < n; k++) rst[k] = st[k];
                    ndone = 2 * n;
                    break;
                case V_WAITANY:
                    while (ndone < 2 * n) {
                        MPI_Status s;
                        MPI_Waitany(2 * n, rq, &index, &s);
                        SM_CHECK(index >= 0 && index < 2 * n && !done[index],
                                 "Waitany gave index %d (done before: %d)", index,
                                 index >= 0 && index < 2 * n ? done[index] : -1);
                        done[index] = 1;
                        if (index < n) rst[index] = s;
                        ndone++;
                    }
                    MPI_Waitany(2 * n, rq, &index, MPI_STATUS_IGNORE);
                    SM_CHECK(index == MPI_UNDEFINED, "Waitany on all-null requests: index %d",
                             index);
                    break;
                case V_WAITSOME:
                case V_TESTSOME:
                    while (ndone < 2 * n) {
                        if (v == V_WAITSOME)
                            MPI_Waitsome(2 * n, rq, &outcount, idx, st);
                        else
                            MPI_Testsome(2 * n, rq, &outcount, idx, st);
                        SM_CHECK(outcount >= (v == V_WAITSOME ? 1 : 0) && outcount <= 2 * n - ndone,
                                 "%s: outcount %d with %d requests pending", vname[v], outcount,
                                 2 * n - ndone);
                        for (int k = 0; k < outcount; k++) {
                            SM_CHECK(idx[k] >= 0 && idx[k] < 2 * n && !done[idx[k]],
                                     "%s: index %d reported twice or out of range", vname[v],
                                     idx[k]);
                            done[idx[k]] = 1;
                            if (idx[k] < n) rst[idx[k]] = st[k];
                        }
                        ndone += outcount;
                        if (outcount == 0) {
                            SM_CHECK(++polls < POLL_MAX, "Testsome: no progress");
                            sm_nap();
                        }
                    }
                    if (v == V_WAITSOME)
                        MPI_Waitsome(2 * n, rq, &outcount, idx, st);
                    else
                        MPI_Testsome(2 * n, rq, &outcount, idx, st);
                    SM_CHECK(outcount == MPI_UNDEFINED, "%s on all-null requests: outcount %d",
                             vname[v], outcount);
                    break;
                case V_TESTALL:
                    for (flag = 0; !flag;) {
                        MPI_Testall(2 * n, rq, &flag, st);
                        if (!flag) {
                            SM_CHECK(++polls < POLL_MAX, "Testall: no progress");
                            sm_nap();
                        }
                    }
                    for (int k = 0; k < 2 * n; k++) done[k] = 1;
                    for (int k = 0; k < n; k++) rst[k] = st[k];
                    ndone = 2 * n;
                    break;
                case V_TESTANY:
                    while (ndone < 2 * n) {
                        MPI_Status s;
                        MPI_Testany(2 * n, rq, &index, &flag, &s);
                        if (!flag) {
                            SM_CHECK(index == MPI_UNDEFINED, "Testany: flag 0 but index %d", index);
                            SM_CHECK(++polls < POLL_MAX, "Testany: no progress");
                            sm_nap();
                            continue;
                        }
                        SM_CHECK(index >= 0 && index < 2 * n && !done[index],
                                 "Testany gave index %d with %d requests pending", index,
                                 2 * n - ndone);
                        done[index] = 1;
                        if (index < n) rst[index] = s;
                        ndone++;
                    }
                    MPI_Testany(2 * n, rq, &index, &flag, MPI_STATUS_IGNORE);
                    SM_CHECK(flag && index == MPI_UNDEFINED,
                             "Testany on all-null requests: flag %d index %d", flag, index);
                    break;
                }
                for (int k = 0; k < 2 * n; k++)
                    SM_CHECK(done[k] && rq[k] == MPI_REQUEST_NULL,
                             "%s round %d: request %d not completed/freed", vname[v], round, k);
                for (int src = 0; src < n; src++) {
                    char what[96];
                    snprintf(what, sizeof what, "%s round %d, message from %d", vname[v], round,
                             src);
                    SM_CHECK_STATUS(rst[src], src, tag, len, what);
                    SM_VERIFY(rbuf[src], len, seed_of(src, sm_rank, round), "%s", what);
                }
            }

    for (int i = 0; i < n; i++) {
        free(sbuf[i]);
        free(rbuf[i]);
    }
    free(sbuf);
    free(rbuf);
    free(rq);
    free(st);
    free(rst);
    free(done);
    free(idx);
    return sm_finish();
}
