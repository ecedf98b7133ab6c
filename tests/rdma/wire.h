/* wire.h — test harness for the RDMA layer: two queue pairs joined by an in-memory wire that
 * can reorder, duplicate and delay segments (seeded random). */
#ifndef RDMA_TEST_WIRE_H
#define RDMA_TEST_WIRE_H

#include "rdma.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct wseg { uint8_t *b; size_t len; unsigned lane; } wseg;
typedef struct wdir { wseg *q; size_t n, cap; } wdir;

typedef struct pair {
  sm_rdma_pd *pd[2];
  sm_rdma_cq *scq[2], *rcq[2];
  sm_rdma_qp *qp[2];
  wdir dir[2];          /* dir[i]: segments emitted by qp[i], for qp[1-i] */
  struct { struct pair *p; int side; } octx[2];
  uint64_t rng;
  int reorder;          /* pick any queued segment, not the oldest */
  int dup_pct;          /* percentage of segments delivered twice */
  int input_errors[2];  /* non-zero returns of sm_rdma_qp_input at side i */
  unsigned lanes_seen;  /* bit mask of lanes used */
  uint64_t segs;        /* segments delivered */
} pair;

extern int test_failures;
/* set before pair_init: the queue pairs get the gathering output (outputv) too, and
 * wire_gathered counts the segments that went through it */
extern int wire_gather;
extern uint64_t wire_gathered;
#define CHECK(c) do { if (!(c)) { fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); test_failures++; } } while (0)

uint64_t rnd(uint64_t *s);
void pair_init(pair *p, uint64_t seed, uint32_t max_segment, unsigned lanes, int reorder, int dup_pct);
void pair_free(pair *p);
/* Deliver queued segments until both directions are empty (or max segments, 0 = no limit). */
void pair_pump(pair *p, size_t max);
/* Register len bytes at side i with the given rights. */
uint32_t reg(pair *p, int side, void *addr, size_t len, unsigned access);
/* Poll exactly one completion (fails the test if none). */
int poll1(sm_rdma_cq *cq, sm_rdma_wc *wc);

#endif
