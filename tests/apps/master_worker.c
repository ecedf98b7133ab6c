/* master_worker.c — a task farm: the master hands out tasks of varying length, workers
 * answer with results of varying length; the master takes whichever answer comes first
 * (MPI_ANY_SOURCE), sizes its buffer with MPI_Probe + MPI_Get_count, and sends the next task
 * to that worker until none are left, then a stop message (tag STOP).  Task t asks for the
 * squares of t .. t + len - 1.  Built with mpicc; prints " No Errors" when every result is
 * right.  With one process the master does the work itself. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define NTASKS 200
#define WORK 1
#define STOP 2
#define RESULT 3

static int task_len(int t) { return 1 + (t * 37) % 500; }

static void compute(const int *task, long *out)
{
    for (int i = 0; i < task[1]; i++)
        out[i] = (long)(task[0] + i) * (task[0] + i);
}

static int check(int t, const long *res, int n)
{
    if (n != task_len(t) + 1 || res[0] != t)
        return 1;
    for (int i = 0; i < n - 1; i++)
        if (res[1 + i] != (long)(t + i) * (t + i))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    int rank, size, errors = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    if (rank == 0) {
        int next = 0, done = 0, task[2];
        long *res;
        if (size == 1) {
            res = malloc(sizeof(long) * 600);
            for (int t = 0; t < NTASKS; t++) {
                task[0] = t;
                task[1] = task_len(t);
                res[0] = t;
                compute(task, res + 1);
                errors += check(t, res, task[1] + 1);
            }
            free(res);
            done = NTASKS;
        }
        /* prime every worker with one task (or stop it when there are none) */
        for (int w = 1; w < size; w++) {
            if (next < NTASKS) {
                task[0] = next;
                task[1] = task_len(next);
                next++;
                MPI_Send(task, 2, MPI_INT, w, WORK, MPI_COMM_WORLD);
            } else {
                MPI_Send(task, 0, MPI_INT, w, STOP, MPI_COMM_WORLD);
            }
        }
        int *per_worker = calloc(size > 0 ? (size_t)size : 1, sizeof(int));
        while (done < NTASKS) {
            MPI_Status st;
            int n;
            MPI_Probe(MPI_ANY_SOURCE, RESULT, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_LONG, &n);
            if (n < 1 || n > 1000) { /* a result is never empty nor longer than 501 */
                printf("FAILED: result of %d elements\n", n);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
            res = malloc(sizeof(long) * (size_t)n);
            MPI_Recv(res, n, MPI_LONG, st.MPI_SOURCE, RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            errors += check((int)res[0], res, n);
            free(res);
            done++;
            per_worker[st.MPI_SOURCE]++;
            if (next < NTASKS) {
                task[0] = next;
                task[1] = task_len(next);
                next++;
                MPI_Send(task, 2, MPI_INT, st.MPI_SOURCE, WORK, MPI_COMM_WORLD);
            } else {
                MPI_Send(task, 0, MPI_INT, st.MPI_SOURCE, STOP, MPI_COMM_WORLD);
            }
        }
        for (int w = 1; w < size; w++)
            printf("worker %d did %d tasks\n", w, per_worker[w]);
        free(per_worker);
    } else {
        for (;;) {
            int task[2];
            MPI_Status st;
            MPI_Recv(task, 2, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == STOP)
                break;
            long *res = malloc(sizeof(long) * (size_t)(task[1] + 1));
            res[0] = task[0];
            compute(task, res + 1);
            MPI_Send(res, task[1] + 1, MPI_LONG, 0, RESULT, MPI_COMM_WORLD);
            free(res);
        }
    }
    MPI_Bcast(&errors, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        if (errors)
            printf("FAILED: %d wrong results\n", errors);
        else
            printf(" No Errors\n");
    }
    MPI_Finalize();
    return errors ? EXIT_FAILURE : EXIT_SUCCESS;
}
