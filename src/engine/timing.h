/* timing.h — where an MPI message's time goes inside the engine (timing.c): held by the
 * ordering rule (an earlier sequence number still missing), waiting unexpected until the
 * application posts its receive, and the rendezvous handshake (RTS sent -> CTS back at the
 * sender; CTS sent -> last DATA segment at the receiver).  SCTPMPI_TIMING=off|sum|sample:N.
 * A message's clock starts when the engine sees it: one that arrives while the application is
 * outside MPI waits in the transport until the next MPI call, and that wait is not counted. */
#ifndef SCTPMPI_ENGINE_TIMING_H
#define SCTPMPI_ENGINE_TIMING_H

#include <stdint.h>
#include <stdio.h>

struct sm_msg;
struct sm_req;

extern int sm_timing_mode; /* 0 off, else on (read by sm_timing_init) */

void sm_timing_init(void); /* reads SCTPMPI_TIMING */
/* an EAGER / RTS header arrived (stamps m) */
void sm_timing_arrived(struct sm_msg *m);
/* m, held in the early-arrival list, is in order now (ordering-rule hold ends) */
void sm_timing_early_released(struct sm_msg *m);
/* m, held in the early-arrival list, was taken by a receive naming its tag */
void sm_timing_early_taken(struct sm_msg *m);
void sm_timing_unexpected_in(struct sm_msg *m);
void sm_timing_unexpected_out(struct sm_msg *m);
void sm_timing_rts_sent(struct sm_req *r);  /* sender */
void sm_timing_cts_in(struct sm_req *r);    /* sender: handshake done */
void sm_timing_cts_sent(struct sm_req *r);  /* receiver */
void sm_timing_rndv_done(struct sm_req *r); /* receiver: every segment placed */
/* the "where the time went" lines of SCTPMPI_STATS */
void sm_timing_print(FILE *f, int rank);

/* the sums (also for tests) */
struct sm_timing_sums {
    uint64_t order_n, order_us, order_max_us; /* held by the ordering rule */
    uint64_t unexp_n, unexp_us, unexp_max_us; /* unexpected until a receive came */
    uint64_t early_taken;                     /* of those: taken out of the early list */
    uint64_t rts_n, rts_us, rts_max_us;       /* sender: RTS -> CTS */
    uint64_t rdata_n, rdata_us, rdata_max_us; /* receiver: CTS -> last segment */
};
const struct sm_timing_sums *sm_timing_get(void);

#endif
