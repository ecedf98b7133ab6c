/* mpi4_session_only.c — a program of the Sessions Model only (never MPI_Init): session,
 * communicator from the WORLD process set, point-to-point and collective traffic (large
 * messages too), buffered sends charged to the session's buffer, finalize, exit. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    MPI_Session s;
    MPI_Group g;
    MPI_Comm c;
    int errs = 0, me, np;
    MPI_Info env; /* the info functions work before any initialisation */
    char v[16];
    int vl = sizeof v, flag = 0;
    MPI_Info_create_env(0, NULL, &env);
    MPI_Info_get_string(env, "maxprocs", &vl, v, &flag);
    if (!flag || atoi(v) < 1)
        errs++;
    MPI_Info_free(&env);
    MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &s);
    MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
    MPI_Comm_create_from_group(g, "org.example.only", MPI_INFO_NULL, MPI_ERRORS_ARE_FATAL, &c);
    MPI_Group_free(&g);
    MPI_Comm_rank(c, &me);
    MPI_Comm_size(c, &np);
    int n = 200000;
    int *a = malloc(sizeof(int) * (size_t)n), *b = malloc(sizeof(int) * (size_t)n);
    for (int i = 0; i < n; i++)
        a[i] = me + i;
    MPI_Request q;
    MPI_Isendrecv(a, n, MPI_INT, (me + 1) % np, 3, b, n, MPI_INT, (me + np - 1) % np, 3, c, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    for (int i = 0; i < n; i++)
        if (b[i] != (me + np - 1) % np + i) {
            errs++;
            break;
        }
    MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, c);
    for (int i = 0; i < n; i += 997)
        if (b[i] != np * (np - 1) / 2 + np * i)
            errs++;
    /* a session's buffer serves buffered sends on its communicators */
    char *buf = malloc(4096);
    MPI_Session_attach_buffer(s, buf, 4096);
    int x = me, y = -1;
    MPI_Bsend(&x, 1, MPI_INT, (me + 1) % np, 4, c);
    MPI_Recv(&y, 1, MPI_INT, (me + np - 1) % np, 4, c, MPI_STATUS_IGNORE);
    if (y != (me + np - 1) % np)
        errs++;
    MPI_Session_flush_buffer(s);
    void *d;
    int dsz;
    MPI_Session_detach_buffer(s, &d, &dsz);
    if (d != buf || dsz != 4096)
        errs++;
    free(buf);
    int total = 0;
    MPI_Allreduce(&errs, &total, 1, MPI_INT, MPI_SUM, c);
    if (me == 0 && total == 0)
        printf(" No Errors\n");
    if (total)
        printf("sm-test FAILED: %d errors\n", total);
    MPI_Comm_free(&c);
    MPI_Session_finalize(&s);
    free(a);
    free(b);
    return 0;
}
