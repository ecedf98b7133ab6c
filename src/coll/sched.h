/* sched.h — the schedules every collective runs on (sched.c): the algorithms (algo.c, move.c,
 * reduce.c, barrier.c, inter.c, neighbor.c) add rounds to a schedule; the blocking
 * call runs it to completion, the non-blocking one returns a request, a persistent one builds
 * it again at each MPI_Start with the tag reserved at *_init.
 *
 * A schedule is a list of rounds built completely when the collective is called (or started).  A round
 * posts its sends and receives, and when all of them have completed runs its local steps
 * (copies, reductions) in order; then the next round starts.  Each step remembers the
 * communicator it was added on (sched->comm at that moment), so an intercommunicator schedule
 * can mix steps on the hidden local intracommunicator with steps between the two groups.  All
 * steps use the collective context of their communicator and the schedule's own tag
 * (0x20000000 | sequence of the user's communicator).  The schedule holds a reference on every
 * derived datatype and user op it uses, so the user may free them while it runs. */
#ifndef SCTPMPI_NBC_SCHED_H
#define SCTPMPI_NBC_SCHED_H

#include "coll/coll_util.h"

struct sm_step;
struct sm_round;

struct sm_sched {
    const struct sm_preq_ops *preq_ops; /* first: a persistent schedule is its request's object */
    int persist; /* built by *_init, run at every MPI_Start, freed with the request */
    struct sm_sched *next;
    MPI_Comm owner; /* the user's communicator (tag sequence, request) */
    MPI_Comm comm;  /* communicator of the steps being added now */
    int tag;
    struct sm_round *rd;
    int nrd, cap;
    int rdinit;      /* rounds whose step arrays exist (kept when the schedule is reused) */
    int cur;         /* round in progress */
    MPI_Request *rq; /* its requests */
    int nrq, rqcap;
    void **mem; /* temporaries to free */
    int nmem, memcap;
    MPI_Datatype *dts; /* derived types retained until the end */
    int ndts, dtcap;
    MPI_Op *ops; /* user ops retained until the end */
    int nops, opcap;
    int err;
    struct sctpmpi_request *user;
};

struct sm_sched *sm_sched_new(MPI_Comm c);                   /* takes the next tag of c */
struct sm_sched *sm_sched_new_seq(MPI_Comm c, uint32_t seq); /* the tag of sequence number seq */
void sm_sched_round(struct sm_sched *s);                     /* start a new round */
void sm_sched_send(struct sm_sched *s, const void *b, int n, MPI_Datatype dt, int peer);
void sm_sched_recv(struct sm_sched *s, void *b, int n, MPI_Datatype dt, int peer);
void sm_sched_copy(struct sm_sched *s, const void *src, int sn, MPI_Datatype st, void *dst,
                   int dn, MPI_Datatype dt);
/* inout = in op inout */
void sm_sched_reduce(struct sm_sched *s, MPI_Op op, const void *in, void *inout, int n,
                     MPI_Datatype dt);
/* acc = acc op higher (higher is clobbered when the op does not commute) */
void sm_sched_combine_higher(struct sm_sched *s, MPI_Op op, void *acc, void *higher, int n,
                             MPI_Datatype dt);
void *sm_sched_tmp(struct sm_sched *s, int count, MPI_Datatype dt); /* freed with s */
void *sm_sched_bytes(struct sm_sched *s, size_t n);                 /* freed with s */
/* start s and hand its request to the user */
int sm_sched_start(struct sm_sched *s, MPI_Request *req);
/* how a collective call runs: blocking (a NULL pointer), non-blocking (req: the user's
 * request) or persistent (init: *req becomes an inactive persistent request that runs the
 * schedule, built once here, at every MPI_Start) */
struct sm_how {
    MPI_Request *req;
    int init;
};
#define SM_NB(r) (&(struct sm_how){ (r), 0 })
#define SM_INIT(r) (&(struct sm_how){ (r), 1 })
/* the checks every *_init call makes before its collective's own (communicator, request
 * pointer, info) */
int sm_coll_check_init(MPI_Comm c, MPI_Info info, MPI_Request *req, const char *fn);

/* run s to completion in the caller and free it; returns the first error class (unreported) */
int sm_sched_wait(struct sm_sched *s);
/* how NULL (a blocking collective): sm_sched_wait, report errors as fn on the owner; else
 * start s and hand its request to the user, or make the persistent request */
int sm_sched_run(struct sm_sched *s, const struct sm_how *how, const char *fn);

#endif
