/* count_wrap.c — a profiling library in the style of mpiP: it defines a few MPI_ functions,
 * counts the program's calls and forwards each to its PMPI_ twin.  Built as a shared library
 * and either linked before libsctpmpi or preloaded.  pmpi_count(name) answers a count; at
 * MPI_Finalize rank 0 prints one "pmpi-count:" line. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

enum { C_INIT, C_SEND, C_RECV, C_SENDRECV, C_BCAST, C_ALLREDUCE, C_REDUCE, C_BARRIER, C_N };
static const char *names[C_N] = {"MPI_Init", "MPI_Send", "MPI_Recv", "MPI_Sendrecv",
                                 "MPI_Bcast", "MPI_Allreduce", "MPI_Reduce", "MPI_Barrier"};
static int counts[C_N];

int pmpi_count(const char *name)
{
    for (int i = 0; i < C_N; i++)
        if (!strcmp(name, names[i]))
            return counts[i];
    return -1;
}

int MPI_Init(int *argc, char ***argv)
{
    counts[C_INIT]++;
    return PMPI_Init(argc, argv);
}

int MPI_Send(const void *buf, int count, MPI_Datatype dt, int dest, int tag, MPI_Comm comm)
{
    counts[C_SEND]++;
    return PMPI_Send(buf, count, dt, dest, tag, comm);
}

int MPI_Recv(void *buf, int count, MPI_Datatype dt, int src, int tag, MPI_Comm comm,
             MPI_Status *st)
{
    counts[C_RECV]++;
    return PMPI_Recv(buf, count, dt, src, tag, comm, st);
}

int MPI_Sendrecv(const void *sbuf, int scount, MPI_Datatype stype, int dest, int stag,
                 void *rbuf, int rcount, MPI_Datatype rtype, int src, int rtag, MPI_Comm comm,
                 MPI_Status *st)
{
    counts[C_SENDRECV]++;
    return PMPI_Sendrecv(sbuf, scount, stype, dest, stag, rbuf, rcount, rtype, src, rtag, comm,
                         st);
}

int MPI_Bcast(void *buf, int count, MPI_Datatype dt, int root, MPI_Comm comm)
{
    counts[C_BCAST]++;
    return PMPI_Bcast(buf, count, dt, root, comm);
}

int MPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op,
                  MPI_Comm comm)
{
    counts[C_ALLREDUCE]++;
    return PMPI_Allreduce(sbuf, rbuf, count, dt, op, comm);
}

int MPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype dt, MPI_Op op, int root,
               MPI_Comm comm)
{
    counts[C_REDUCE]++;
    return PMPI_Reduce(sbuf, rbuf, count, dt, op, root, comm);
}

int MPI_Barrier(MPI_Comm comm)
{
    counts[C_BARRIER]++;
    return PMPI_Barrier(comm);
}

int MPI_Finalize(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        printf("pmpi-count: rank 0");
        for (int i = 0; i < C_N; i++)
            printf(" %s=%d", names[i], counts[i]);
        printf("\n");
        fflush(stdout);
    }
    return PMPI_Finalize();
}
