/* wildcards — MPI_ANY_SOURCE / MPI_ANY_TAG receives fill the status correctly: every rank r > 0
 * sends rank 0 a set of messages whose tag and length encode (r, i); rank 0 receives them with
 * (ANY_SOURCE, ANY_TAG), (ANY_SOURCE, tag), (source, ANY_TAG) and checks MPI_SOURCE, MPI_TAG,
 * the payload, MPI_Get_count and MPI_Get_elements in several datatypes (including MPI_UNDEFINED
 * when the byte count is not a multiple of the type size), and receives into a larger buffer. */
#include "sm_test.h"

enum { NMSG = 6, TAG_BASE = 1000, TAG_GO = 5 };

static int msg_len(int r, int i) { return 3 * r + i; } /* in ints */
static int msg_tag(int r, int i) { return TAG_BASE + r * 16 + i; }

static void send_set(int r, int phase)
{
    int buf[64];
    for (int i = 0; i < NMSG; i++) {
        int n = msg_len(r, i);
        for (int k = 0; k < n; k++) buf[k] = r * 100000 + phase * 1000 + i * 64 + k;
        MPI_Send(buf, n, MPI_INT, 0, msg_tag(r, i), MPI_COMM_WORLD);
    }
}

/* Checks one received message; returns i (the message number); marks it seen. */
static int check_msg(const int *buf, const MPI_Status *st, int phase, char seen[][NMSG])
{
    const int r = st->MPI_SOURCE;
    SM_CHECK(r > 0 && r < sm_size, "status MPI_SOURCE %d out of range", r);
    const int i = st->MPI_TAG - TAG_BASE - r * 16;
    SM_CHECK(i >= 0 && i < NMSG, "status MPI_TAG %d does not belong to source %d", st->MPI_TAG, r);
    SM_CHECK(!seen[r][i], "message (%d,%d) received twice", r, i);
    seen[r][i] = 1;
    const int n = msg_len(r, i);
    int cnt = -1, elems = -1, bytes = -1;
    MPI_Get_count(st, MPI_INT, &cnt);
    MPI_Get_elements(st, MPI_INT, &elems);
    MPI_Get_count(st, MPI_BYTE, &bytes);
    SM_CHECK(cnt == n && elems == n && bytes == n * (int)sizeof(int),
             "message (%d,%d): Get_count %d Get_elements %d bytes %d, want %d %d %d", r, i, cnt,
             elems, bytes, n, n, n * (int)sizeof(int));
    for (int k = 0; k < n; k++)
        SM_CHECK(buf[k] == r * 100000 + phase * 1000 + i * 64 + k,
                 "message (%d,%d) phase %d: element %d is %d", r, i, phase, k, buf[k]);
    return i;
}

int main(int argc, char **argv)
{
    sm_init(&argc, &argv);
    SM_CHECK(sm_size >= 2, "needs at least 2 ranks");
    char(*seen)[NMSG] = sm_malloc((size_t)sm_size * NMSG);
    int buf[128];

    /* Phase 0: everything with (ANY_SOURCE, ANY_TAG) into a buffer larger than any message. */
    if (sm_rank == 0) {
        memset(seen, 0, (size_t)sm_size * NMSG);
        int last[64];
        for (int r = 0; r < sm_size && r < 64; r++) last[r] = -1;
        for (int m = 0; m < (sm_size - 1) * NMSG; m++) {
            MPI_Status st;
            memset(buf, 0xff, sizeof buf);
            MPI_Recv(buf, 128, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            int i = check_msg(buf, &st, 0, seen);
            /* same source, same communicator: ANY_TAG receives see send order */
            if (st.MPI_SOURCE < 64) {
                SM_CHECK(i == last[st.MPI_SOURCE] + 1,
                         "from %d got message %d after %d (non-overtaking violated)",
                         st.MPI_SOURCE, i, last[st.MPI_SOURCE]);
                last[st.MPI_SOURCE] = i;
            }
            SM_CHECK(buf[msg_len(st.MPI_SOURCE, i)] == -1, "receive wrote past the message");
        }
    } else {
        send_set(sm_rank, 0);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase 1: rank 0 asks for each (r,i) by tag with ANY_SOURCE, in reverse order of i, after
     * all messages were sent (senders report with a GO message first). */
    if (sm_rank == 0) {
        memset(seen, 0, (size_t)sm_size * NMSG);
        for (int r = 1; r < sm_size; r++)
            MPI_Recv(NULL, 0, MPI_BYTE, r, TAG_GO, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        for (int r = sm_size - 1; r > 0; r--)
            for (int i = NMSG - 1; i >= 0; i--) {
                MPI_Status st;
                MPI_Recv(buf, 128, MPI_INT, MPI_ANY_SOURCE, msg_tag(r, i), MPI_COMM_WORLD, &st);
                SM_CHECK(st.MPI_SOURCE == r && st.MPI_TAG == msg_tag(r, i),
                         "ANY_SOURCE recv of tag %d: got source %d tag %d", msg_tag(r, i),
                         st.MPI_SOURCE, st.MPI_TAG);
                check_msg(buf, &st, 1, seen);
            }
    } else {
        /* Isend so that the GO message can overtake nothing that matters (different tag). */
        MPI_Request rq[NMSG];
        int sb[NMSG][64];
        for (int i = 0; i < NMSG; i++) {
            int n = msg_len(sm_rank, i);
            for (int k = 0; k < n; k++) sb[i][k] = sm_rank * 100000 + 1000 + i * 64 + k;
            MPI_Isend(sb[i], n, MPI_INT, 0, msg_tag(sm_rank, i), MPI_COMM_WORLD, &rq[i]);
        }
        MPI_Send(NULL, 0, MPI_BYTE, 0, TAG_GO, MPI_COMM_WORLD);
        MPI_Waitall(NMSG, rq, MPI_STATUSES_IGNORE);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase 2: rank 0 receives per source with ANY_TAG, sources in descending order. */
    if (sm_rank == 0) {
        memset(seen, 0, (size_t)sm_size * NMSG);
        for (int r = sm_size - 1; r > 0; r--)
            for (int i = 0; i < NMSG; i++) {
                MPI_Status st;
                MPI_Recv(buf, 128, MPI_INT, r, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
                SM_CHECK(st.MPI_SOURCE == r, "recv from %d: status source %d", r, st.MPI_SOURCE);
                SM_CHECK(check_msg(buf, &st, 2, seen) == i,
                         "ANY_TAG recv from %d got message out of order (wanted %d)", r, i);
            }
    } else {
        send_set(sm_rank, 2);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    /* Phase 3: Get_count / Get_elements for a byte count that is not a multiple of the type
     * size, and for a zero-byte message; statuses from Irecv + Waitany with wildcards. */
    if (sm_rank == 0) {
        MPI_Request rq[2];
        unsigned char b5[16], b0[4];
        MPI_Irecv(b5, 16, MPI_BYTE, MPI_ANY_SOURCE, 77, MPI_COMM_WORLD, &rq[0]);
        MPI_Irecv(b0, 4, MPI_BYTE, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[1]);
        for (int k = 0; k < 2; k++) {
            int idx = -1;
            MPI_Status st;
            MPI_Waitany(2, rq, &idx, &st);
            SM_CHECK(idx == 0 || idx == 1, "Waitany index %d", idx);
            SM_CHECK(rq[idx] == MPI_REQUEST_NULL, "Waitany left the request set");
            SM_CHECK(st.MPI_SOURCE == 1, "Waitany status source %d, want 1", st.MPI_SOURCE);
            int c = -7;
            if (idx == 0) {
                SM_CHECK(st.MPI_TAG == 77, "5-byte message tag %d", st.MPI_TAG);
                MPI_Get_count(&st, MPI_BYTE, &c);
                SM_CHECK(c == 5, "Get_count(BYTE) of 5-byte message: %d", c);
                MPI_Get_count(&st, MPI_INT, &c);
                SM_CHECK(c == MPI_UNDEFINED, "Get_count(INT) of 5-byte message: %d, want "
                         "MPI_UNDEFINED", c);
                MPI_Get_count(&st, MPI_SHORT, &c);
                SM_CHECK(c == MPI_UNDEFINED, "Get_count(SHORT) of 5 bytes: %d", c);
                MPI_Get_count(&st, MPI_CHAR, &c);
                SM_CHECK(c == 5, "Get_count(CHAR) of 5 bytes: %d", c);
                SM_VERIFY(b5, 5, 55, "5-byte message");
            } else {
                SM_CHECK(st.MPI_TAG == 78, "0-byte message tag %d, want 78", st.MPI_TAG);
                MPI_Get_count(&st, MPI_INT, &c);
                SM_CHECK(c == 0, "Get_count of empty message: %d", c);
                MPI_Get_elements(&st, MPI_DOUBLE, &c);
                SM_CHECK(c == 0, "Get_elements of empty message: %d", c);
            }
        }
    } else if (sm_rank == 1) {
        unsigned char b5[5];
        sm_fill(b5, 5, 55);
        MPI_Send(b5, 5, MPI_BYTE, 0, 77, MPI_COMM_WORLD);
        MPI_Send(NULL, 0, MPI_BYTE, 0, 78, MPI_COMM_WORLD);
    }
    free(seen);
    return sm_finish();
}
