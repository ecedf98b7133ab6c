/* wire.c — the in-memory wire between two queue pairs used by the RDMA layer tests. */
#include "wire.h"

#include <string.h>

int test_failures;

uint64_t rnd(uint64_t *s) { /* splitmix64 */
  uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static void push(wdir *d, const uint8_t *b, size_t len, unsigned lane) {
  if (d->n == d->cap) {
    d->cap = d->cap ? d->cap * 2 : 64;
    d->q = realloc(d->q, d->cap * sizeof *d->q);
    if (!d->q) abort();
  }
  uint8_t *c = malloc(len ? len : 1);
  if (!c) abort();
  memcpy(c, b, len);
  d->q[d->n++] = (wseg){c, len, lane};
}

static void out(void *ctx, const uint8_t *seg, size_t len, unsigned lane) {
  struct { pair *p; int side; } *o = ctx;
  o->p->lanes_seen |= 1u << (lane & 31u);
  push(&o->p->dir[o->side], seg, len, lane);
}

int wire_gather;
uint64_t wire_gathered;

/* the gathering output: the pieces joined into one queued segment, exactly as the transport
 * would put them on the wire */
static void outv(void *ctx, const struct iovec *iov, int iovcnt, size_t len, unsigned lane) {
  uint8_t *b = malloc(len ? len : 1);
  if (!b) abort();
  size_t at = 0;
  for (int i = 0; i < iovcnt; i++) {
    memcpy(b + at, iov[i].iov_base, iov[i].iov_len);
    at += iov[i].iov_len;
  }
  CHECK(at == len);
  wire_gathered++;
  out(ctx, b, len, lane);
  free(b);
}

void pair_init(pair *p, uint64_t seed, uint32_t max_segment, unsigned lanes, int reorder, int dup_pct) {
  memset(p, 0, sizeof *p);
  p->rng = seed;
  p->reorder = reorder;
  p->dup_pct = dup_pct;
  for (int i = 0; i < 2; i++) {
    p->pd[i] = sm_rdma_pd_new(64);
    p->scq[i] = sm_rdma_cq_new(4096);
    p->rcq[i] = sm_rdma_cq_new(4096);
    p->octx[i].p = p;
    p->octx[i].side = i;
    sm_rdma_qp_attr a = {.pd = p->pd[i], .send_cq = p->scq[i], .recv_cq = p->rcq[i],
                         .qp_num = (uint32_t)i + 1, .max_segment = max_segment, .lanes = lanes,
                         .max_send_wr = 256, .max_recv_wr = 256, .output = out,
                         .outputv = wire_gather ? outv : NULL, .output_ctx = &p->octx[i]};
    p->qp[i] = sm_rdma_qp_new(&a);
    if (!p->pd[i] || !p->scq[i] || !p->rcq[i] || !p->qp[i]) abort();
  }
}

void pair_free(pair *p) {
  for (int i = 0; i < 2; i++) {
    sm_rdma_qp_free(p->qp[i]);
    sm_rdma_cq_free(p->scq[i]);
    sm_rdma_cq_free(p->rcq[i]);
    sm_rdma_pd_free(p->pd[i]);
    for (size_t k = 0; k < p->dir[i].n; k++) free(p->dir[i].q[k].b);
    free(p->dir[i].q);
  }
}

void pair_pump(pair *p, size_t max) {
  size_t done = 0;
  while ((p->dir[0].n || p->dir[1].n) && (!max || done < max)) {
    int s = p->dir[0].n && p->dir[1].n ? (int)(rnd(&p->rng) & 1) : (p->dir[0].n ? 0 : 1);
    wdir *d = &p->dir[s];
    size_t k = p->reorder ? rnd(&p->rng) % d->n : 0;
    wseg g = d->q[k];
    if (p->reorder) d->q[k] = d->q[--d->n];
    else memmove(&d->q[0], &d->q[1], (--d->n) * sizeof *d->q);
    int dup = p->dup_pct && (int)(rnd(&p->rng) % 100) < p->dup_pct;
    if (dup) push(d, g.b, g.len, g.lane); /* delivered again later */
    int rc = sm_rdma_qp_input(p->qp[1 - s], g.b, g.len);
    if (rc) p->input_errors[1 - s]++;
    free(g.b);
    p->segs++;
    done++;
  }
}

uint32_t reg(pair *p, int side, void *addr, size_t len, unsigned access) {
  uint32_t stag = 0;
  int rc = sm_rdma_reg(p->pd[side], addr, len, access, &stag);
  if (rc) {
    fprintf(stderr, "reg failed %d\n", rc);
    abort();
  }
  return stag;
}

int poll1(sm_rdma_cq *cq, sm_rdma_wc *wc) {
  int n = sm_rdma_cq_poll(cq, wc, 1);
  CHECK(n == 1);
  return n;
}
