/* test_rdma.c — unit tests of the RDMA layer (src/rdma/): header codec, memory registration,
 * placement tracking, completion queues, RDMA Write / Read / Send / Send with Invalidate /
 * atomics between two queue pairs over a wire that reorders, duplicates and delays segments,
 * every Terminate error class, and a randomized stress test against a model of memory.
 * Usage: test_rdma <codec|write_read|send|errors|atomics|queues|fuzz|stress> [seed] [iterations] */
#include "rdma_internal.h"
#include "wire.h"

#include <string.h>

#define GUARD 64
#define CANARY 0xA5

static void fill_rand(uint64_t *s, uint8_t *b, size_t n) {
  for (size_t i = 0; i < n; i++) b[i] = (uint8_t)rnd(s);
}
static int all_eq(const uint8_t *b, size_t n, uint8_t v) {
  for (size_t i = 0; i < n; i++)
    if (b[i] != v) return 0;
  return 1;
}

/* ---------------------------------------------------------------- codec and tables */
static void test_codec(void) {
  uint8_t b[SM_RDMA_HDR_LEN];
  sm_rdma_hdr h = {.tagged = 1, .last = 1, .dv = 1, .rv = 1, .opcode = SM_RDMA_OP_WRITE,
                   .stag = 0x01020304, .to = 0x1122334455667788ull, .mn = 9, .mo = 0x100};
  sm_rdma_hdr_encode(b, &h);
  CHECK(b[0] == 0xC1 && b[1] == 0x40);
  CHECK(b[2] == 1 && b[5] == 4 && b[6] == 0x11 && b[13] == 0x88);
  sm_rdma_hdr d;
  CHECK(sm_rdma_hdr_decode(b, sizeof b, &d) == 0);
  CHECK(d.tagged && d.last && d.dv == 1 && d.rv == 1 && d.opcode == 0 && d.stag == h.stag &&
        d.to == h.to && d.mn == 9 && d.mo == 0x100);
  sm_rdma_hdr u = {.dv = 1, .rv = 1, .opcode = SM_RDMA_OP_SEND_SE_INV, .inv_stag = 0xdeadbeef,
                   .qn = 0, .msn = 7, .mo = 1400, .mn = 0xfffffffe};
  sm_rdma_hdr_encode(b, &u);
  CHECK(b[0] == 0x01 && b[1] == 0x46);
  CHECK(sm_rdma_hdr_decode(b, sizeof b, &d) == 0);
  CHECK(!d.tagged && !d.last && d.inv_stag == 0xdeadbeef && d.qn == 0 && d.msn == 7 &&
        d.mo == 1400 && d.mn == 0xfffffffe && d.opcode == SM_RDMA_OP_SEND_SE_INV);
  CHECK(sm_rdma_hdr_decode(b, SM_RDMA_HDR_LEN - 1, &d) == -1);

  /* memory registration */
  sm_rdma_pd *pd = sm_rdma_pd_new(4);
  uint8_t mem[100];
  uint32_t s1, s2, s3;
  uint8_t *p;
  CHECK(sm_rdma_reg(pd, mem, sizeof mem, SM_RDMA_REMOTE_WRITE | SM_RDMA_LOCAL_READ, &s1) == 0);
  CHECK((s1 >> 8) != 0);
  CHECK(sm_rdma_resolve(pd, s1, 0, 100, SM_RDMA_REMOTE_WRITE, &p) == 0 && p == mem);
  CHECK(sm_rdma_resolve(pd, s1, 100, 0, SM_RDMA_REMOTE_WRITE, &p) == 0);
  CHECK(sm_rdma_resolve(pd, s1, 99, 2, SM_RDMA_REMOTE_WRITE, &p) == SM_RDMA_EBOUNDS);
  CHECK(sm_rdma_resolve(pd, s1, 101, 0, SM_RDMA_REMOTE_WRITE, &p) == SM_RDMA_EBOUNDS);
  CHECK(sm_rdma_resolve(pd, s1, UINT64_MAX, 2, SM_RDMA_REMOTE_WRITE, &p) == SM_RDMA_EWRAP);
  CHECK(sm_rdma_resolve(pd, s1, 1, UINT64_MAX, SM_RDMA_REMOTE_WRITE, &p) == SM_RDMA_EWRAP);
  CHECK(sm_rdma_resolve(pd, s1, 0, 1, SM_RDMA_REMOTE_READ, &p) == SM_RDMA_EACCESS);
  CHECK(sm_rdma_resolve(pd, s1 ^ 1, 0, 1, SM_RDMA_REMOTE_WRITE, &p) == SM_RDMA_ESTAG);
  CHECK(sm_rdma_resolve(pd, 0, 0, 1, 0, &p) == SM_RDMA_ESTAG);
  CHECK(sm_rdma_resolve(pd, 0xffffff00u, 0, 1, 0, &p) == SM_RDMA_ESTAG);
  CHECK(sm_rdma_invalidate(pd, s1) == 0);
  CHECK(sm_rdma_resolve(pd, s1, 0, 1, SM_RDMA_REMOTE_WRITE, &p) == SM_RDMA_ESTAG);
  CHECK(sm_rdma_invalidate(pd, s1) == SM_RDMA_ESTAG);
  CHECK(sm_rdma_revalidate(pd, s1, &s2) == 0 && s2 != s1 && (s2 >> 8) == (s1 >> 8));
  CHECK(sm_rdma_resolve(pd, s1, 0, 1, SM_RDMA_REMOTE_WRITE, &p) == SM_RDMA_ESTAG);
  CHECK(sm_rdma_resolve(pd, s2, 0, 1, SM_RDMA_REMOTE_WRITE, &p) == 0);
  CHECK(sm_rdma_dereg(pd, s2) == 0);
  CHECK(sm_rdma_dereg(pd, s2) == SM_RDMA_ESTAG);
  CHECK(sm_rdma_reg(pd, mem, 10, SM_RDMA_LOCAL_READ, &s3) == 0);
  CHECK(s3 != s2); /* the reused slot got a new key */
  CHECK(sm_rdma_resolve(pd, s2, 0, 1, 0, &p) == SM_RDMA_ESTAG);
  uint32_t t;
  for (int i = 0; i < 3; i++) CHECK(sm_rdma_reg(pd, mem, 1, 0, &t) == 0);
  CHECK(sm_rdma_reg(pd, mem, 1, 0, &t) == SM_RDMA_ENOMEM);
  CHECK(sm_rdma_reg(pd, mem, 1, 0x40, &t) == SM_RDMA_EINVAL);
  sm_rdma_pd_free(pd);

  /* placement tracking */
  sm_rdma_msg m = {0};
  CHECK(sm_rdma_msg_add(&m, 10, 20) == 10);
  CHECK(sm_rdma_msg_add(&m, 30, 40) == 10);
  CHECK(sm_rdma_msg_covered(&m, 12, 18) && !sm_rdma_msg_covered(&m, 15, 25));
  CHECK(sm_rdma_msg_add(&m, 15, 35) == 10);
  CHECK(m.niv == 1 && m.iv[0].lo == 10 && m.iv[0].hi == 40 && m.placed == 30);
  CHECK(sm_rdma_msg_add(&m, 10, 40) == 0);
  CHECK(sm_rdma_msg_add(&m, 0, 10) == 10 && m.niv == 1 && sm_rdma_msg_end(&m) == 40);
  free(m.iv);

  sm_rdma_msgtab mt;
  bool stale;
  CHECK(sm_rdma_msgtab_init(&mt, 100) == 0);
  mt.base = 0xfffffff0u; /* across the 32-bit wrap */
  CHECK(sm_rdma_msgtab_get(&mt, 0xfffffff0u + 99, &stale) != NULL);
  CHECK(sm_rdma_msgtab_get(&mt, 0xfffffff0u + 100, &stale) == NULL && !stale);
  CHECK(sm_rdma_msgtab_get(&mt, 0xffffffefu, &stale) == NULL && stale);
  sm_rdma_msgtab_free(&mt);

  /* completion queue overflow */
  sm_rdma_cq *cq = sm_rdma_cq_new(2);
  sm_rdma_wc wc = {.wr_id = 1, .flags = SM_RDMA_WC_SOLICITED}, out[4];
  for (int i = 0; i < 3; i++) sm_rdma_cq_push(cq, &wc);
  CHECK(sm_rdma_cq_overflow(cq) == 1 && sm_rdma_cq_solicited(cq) == 2);
  CHECK(sm_rdma_cq_poll(cq, out, 4) == 2);
  CHECK(sm_rdma_cq_poll(cq, out, 4) == 0);
  sm_rdma_cq_free(cq);
}

/* ---------------------------------------------------------------- write and read */
static void one_write_read(uint64_t seed, uint32_t seg, unsigned lanes, int reorder, int dup,
                           size_t n) {
  pair p;
  pair_init(&p, seed, seg, lanes, reorder, dup);
  uint64_t r = seed * 7 + n;
  size_t off = n % 13; /* some misalignment */
  uint8_t *src = malloc(n + 1), *back = malloc(n + 1), *tgt = malloc(n + off + 2 * GUARD);
  fill_rand(&r, src, n);
  memset(tgt, CANARY, n + off + 2 * GUARD);
  memset(back, 0, n + 1);
  uint32_t ls = reg(&p, 0, src, n, SM_RDMA_LOCAL_READ);
  uint32_t lb = reg(&p, 0, back, n, SM_RDMA_LOCAL_WRITE);
  uint32_t rs = reg(&p, 1, tgt + GUARD, n + off, SM_RDMA_REMOTE_WRITE | SM_RDMA_REMOTE_READ);
  sm_rdma_sge sg = {ls, 0, (uint32_t)n};
  sm_rdma_send_wr w = {.wr_id = 11, .opcode = SM_RDMA_WR_WRITE, .sgl = &sg, .nsge = 1,
                       .remote_stag = rs, .remote_to = off};
  CHECK(sm_rdma_post_send(p.qp[0], &w) == 0);
  sm_rdma_sge sb = {lb, 0, (uint32_t)n};
  sm_rdma_send_wr rd = {.wr_id = 12, .opcode = SM_RDMA_WR_READ, .sgl = &sb, .nsge = 1,
                        .remote_stag = rs, .remote_to = off};
  CHECK(sm_rdma_post_send(p.qp[0], &rd) == 0); /* posted at once: ordering makes it see the write */
  pair_pump(&p, 0);
  sm_rdma_wc wc;
  poll1(p.scq[0], &wc);
  CHECK(wc.wr_id == 11 && wc.status == SM_RDMA_WC_SUCCESS && wc.opcode == SM_RDMA_WC_WRITE &&
        wc.byte_len == n);
  poll1(p.scq[0], &wc);
  CHECK(wc.wr_id == 12 && wc.status == SM_RDMA_WC_SUCCESS && wc.opcode == SM_RDMA_WC_READ &&
        wc.byte_len == n);
  CHECK(memcmp(tgt + GUARD + off, src, n) == 0);
  CHECK(memcmp(back, src, n) == 0);
  CHECK(all_eq(tgt, GUARD + off, CANARY) && all_eq(tgt + GUARD + off + n, GUARD, CANARY));
  CHECK(sm_rdma_cq_poll(p.scq[1], &wc, 1) == 0 && sm_rdma_cq_poll(p.rcq[1], &wc, 1) == 0);
  CHECK(p.input_errors[0] == 0 && p.input_errors[1] == 0);
  CHECK(sm_rdma_qp_state(p.qp[0]) == SM_RDMA_QPS_RTS && sm_rdma_qp_state(p.qp[1]) == SM_RDMA_QPS_RTS);
  if (n > 8 * (size_t)seg && lanes > 1) CHECK(p.lanes_seen == (1u << lanes) - 1);
  free(src);
  free(back);
  free(tgt);
  pair_free(&p);
}

static void test_write_read(uint64_t seed) {
  const uint32_t segs[] = {64, 200, 1452};
  for (int s = 0; s < 3; s++) {
    uint32_t P = segs[s] - SM_RDMA_HDR_LEN;
    size_t sizes[] = {0, 1, P - 1, P, P + 1, 3 * P + 7, 1u << 20};
    for (int i = 0; i < 7; i++) {
      if (sizes[i] == 1u << 20 && segs[s] < 1000) continue; /* keep the run short */
      one_write_read(seed + (uint64_t)i, segs[s], 1, 0, 0, sizes[i]);
      one_write_read(seed + (uint64_t)i, segs[s], 4, 1, 0, sizes[i]);
      one_write_read(seed + (uint64_t)i, segs[s], 4, 1, 30, sizes[i]);
    }
  }
}

/* ---------------------------------------------------------------- send */
static void test_send(uint64_t seed) {
  for (int mode = 0; mode < 3; mode++) {
    pair p;
    pair_init(&p, seed + (uint64_t)mode, 300, 3, mode > 0, mode == 2 ? 25 : 0);
    uint64_t r = seed;
    enum { N = 40, BUF = 5000 };
    static uint8_t src[N][BUF], dst[N][BUF + GUARD], wbuf[8192], wtgt[8192];
    uint32_t lsrc = reg(&p, 0, src, sizeof src, SM_RDMA_LOCAL_READ);
    uint32_t ldst = reg(&p, 1, dst, sizeof dst, SM_RDMA_LOCAL_WRITE);
    uint32_t lw = reg(&p, 0, wbuf, sizeof wbuf, SM_RDMA_LOCAL_READ);
    uint32_t rw = reg(&p, 1, wtgt, sizeof wtgt, SM_RDMA_REMOTE_WRITE);
    uint32_t inv = reg(&p, 1, wtgt, 16, SM_RDMA_REMOTE_WRITE | SM_RDMA_REMOTE_INVALIDATE);
    memset(dst, CANARY, sizeof dst);
    memset(wtgt, 0, sizeof wtgt);
    fill_rand(&r, wbuf, sizeof wbuf);
    size_t len[N];
    for (int i = 0; i < N; i++) {
      /* two-element scatter list: the buffer split unevenly */
      sm_rdma_sge sg[2] = {{ldst, (uint64_t)i * (BUF + GUARD), 1000},
                           {ldst, (uint64_t)i * (BUF + GUARD) + 1000, BUF - 1000}};
      CHECK(sm_rdma_post_recv(p.qp[1], 100 + (uint64_t)i, sg, 2) == 0);
    }
    for (int i = 0; i < N; i++) {
      len[i] = i == 0 ? 0 : i == 1 ? BUF : rnd(&r) % BUF;
      fill_rand(&r, src[i], len[i]);
      if (i == 20) { /* a Write, then a Send: the Send's completion proves the Write placed */
        sm_rdma_sge ws = {lw, 0, sizeof wbuf};
        sm_rdma_send_wr w = {.wr_id = 99, .opcode = SM_RDMA_WR_WRITE, .sgl = &ws, .nsge = 1,
                             .remote_stag = rw, .remote_to = 0};
        CHECK(sm_rdma_post_send(p.qp[0], &w) == 0);
      }
      sm_rdma_sge sg = {lsrc, (uint64_t)i * BUF, (uint32_t)len[i]};
      sm_rdma_send_wr w = {.wr_id = (uint64_t)i, .opcode = SM_RDMA_WR_SEND, .sgl = &sg, .nsge = 1};
      if (i % 7 == 3) w.flags = SM_RDMA_WR_SOLICITED;
      if (i == N - 1) {
        w.opcode = SM_RDMA_WR_SEND_INV;
        w.invalidate_stag = inv;
      }
      CHECK(sm_rdma_post_send(p.qp[0], &w) == 0);
    }
    /* pump one segment at a time, checking completion semantics as they appear */
    int got = 0;
    while (p.dir[0].n || p.dir[1].n) {
      pair_pump(&p, 1);
      sm_rdma_wc wc;
      while (sm_rdma_cq_poll(p.rcq[1], &wc, 1) == 1) {
        CHECK(wc.status == SM_RDMA_WC_SUCCESS && wc.opcode == SM_RDMA_WC_RECV);
        CHECK(wc.wr_id == 100 + (uint64_t)got); /* in MSN order */
        CHECK(wc.byte_len == len[got]);
        CHECK(memcmp(dst[got], src[got], len[got]) == 0);
        CHECK(all_eq(dst[got] + len[got], BUF + GUARD - len[got], CANARY));
        CHECK(!!(wc.flags & SM_RDMA_WC_SOLICITED) == (got % 7 == 3));
        if (got >= 20) CHECK(memcmp(wtgt, wbuf, sizeof wbuf) == 0);
        if (got == N - 1) CHECK((wc.flags & SM_RDMA_WC_INVALIDATED) && wc.invalidated_stag == inv);
        got++;
      }
    }
    CHECK(got == N);
    CHECK(sm_rdma_cq_solicited(p.rcq[1]) == 6);
    sm_rdma_wc wc;
    for (int i = 0; i < N + 1; i++) {
      poll1(p.scq[0], &wc);
      CHECK(wc.status == SM_RDMA_WC_SUCCESS);
    }
    CHECK(p.input_errors[0] == 0 && p.input_errors[1] == 0);
    /* the invalidated STag now refuses the peer's Write */
    uint8_t *q;
    CHECK(sm_rdma_resolve(p.pd[1], inv, 0, 1, SM_RDMA_REMOTE_WRITE, &q) == SM_RDMA_ESTAG);
    sm_rdma_sge ws = {lw, 0, 8};
    sm_rdma_send_wr w = {.wr_id = 7, .opcode = SM_RDMA_WR_WRITE, .sgl = &ws, .nsge = 1,
                         .remote_stag = inv, .remote_to = 0};
    uint8_t before[16];
    memcpy(before, wtgt, 16);
    CHECK(sm_rdma_post_send(p.qp[0], &w) == 0);
    pair_pump(&p, 0);
    sm_rdma_term t;
    CHECK(sm_rdma_qp_error(p.qp[1], &t) == 0 && t.layer == SM_RDMA_LAYER_DDP &&
          t.etype == SM_RDMA_DDP_TAGGED && t.ecode == SM_RDMA_DT_INV_STAG && !t.remote);
    CHECK(sm_rdma_qp_error(p.qp[0], &t) == 0 && t.remote && t.ecode == SM_RDMA_DT_INV_STAG);
    CHECK(memcmp(before, wtgt, 16) == 0);
    pair_free(&p);
  }
}

/* ---------------------------------------------------------------- errors */
enum { E_BADSTAG, E_BADKEY, E_BOUNDS, E_RIGHTS, E_INVALIDATED, E_WRAP, E_READ_BADSTAG,
       E_READ_BOUNDS, E_READ_RIGHTS, E_NORECV, E_OVERSIZE, E_NOINV, E_INV_BADSTAG,
       E_ATOMIC_RIGHTS, E_BADVER, E_BADRV, E_BADOP, E_SHORT, E_BADQN, E_NCASES };

static void one_error(uint64_t seed, int c) {
  pair p;
  pair_init(&p, seed, 256, 2, 1, 10);
  static uint8_t src[4096], tgt[4096 + 2 * GUARD], sink[4096 + 2 * GUARD], rbuf[1024 + 2 * GUARD];
  uint64_t r = seed;
  fill_rand(&r, src, sizeof src);
  memset(tgt, CANARY, sizeof tgt);
  memset(sink, CANARY, sizeof sink);
  memset(rbuf, CANARY, sizeof rbuf);
  uint32_t ls = reg(&p, 0, src, sizeof src, SM_RDMA_LOCAL_READ);
  uint32_t lk = reg(&p, 0, sink + GUARD, 4096, SM_RDMA_LOCAL_WRITE);
  unsigned acc = SM_RDMA_REMOTE_WRITE | SM_RDMA_REMOTE_READ | SM_RDMA_REMOTE_ATOMIC;
  if (c == E_RIGHTS) acc = SM_RDMA_REMOTE_READ;
  if (c == E_READ_RIGHTS || c == E_ATOMIC_RIGHTS) acc = SM_RDMA_REMOTE_WRITE;
  uint32_t rs = reg(&p, 1, tgt + GUARD, 4096, acc);
  uint32_t rr = reg(&p, 1, rbuf + GUARD, 1024, SM_RDMA_LOCAL_WRITE);
  if (c != E_NORECV) {
    sm_rdma_sge sg = {rr, 0, 1024};
    CHECK(sm_rdma_post_recv(p.qp[1], 5, &sg, 1) == 0);
  }
  if (c == E_INVALIDATED) CHECK(sm_rdma_invalidate(p.pd[1], rs) == 0);
  sm_rdma_sge sg = {ls, 0, 2000};
  sm_rdma_sge sk = {lk, 0, 2000};
  sm_rdma_send_wr w = {.wr_id = 1, .opcode = SM_RDMA_WR_WRITE, .sgl = &sg, .nsge = 1,
                       .remote_stag = rs, .remote_to = 0};
  uint8_t want_layer = SM_RDMA_LAYER_DDP, want_etype = SM_RDMA_DDP_TAGGED, want_code = 0;
  int want_wc = -1; /* expected status of wr 1 if it waits for a response */
  int raw = 0;
  uint8_t seg[SM_RDMA_HDR_LEN + 8] = {0};
  sm_rdma_hdr h = {.dv = 1, .rv = 1, .opcode = SM_RDMA_OP_SEND, .qn = 0, .msn = 1, .last = 1};
  switch (c) {
  case E_BADSTAG: w.remote_stag = 0x7700 | (rs & 0xff); want_code = SM_RDMA_DT_INV_STAG; break;
  case E_BADKEY: w.remote_stag = rs ^ 0x5; want_code = SM_RDMA_DT_INV_STAG; break;
  case E_BOUNDS: w.remote_to = 4096 - 1000; want_code = SM_RDMA_DT_BOUNDS; break;
  case E_WRAP: w.remote_to = UINT64_MAX - 100; want_code = SM_RDMA_DT_TO_WRAP; break;
  case E_RIGHTS:
    want_layer = SM_RDMA_LAYER_RDMAP; want_etype = SM_RDMA_RDMAP_REMOTE_PROT; want_code = SM_RDMA_RP_ACCESS;
    break;
  case E_INVALIDATED: want_code = SM_RDMA_DT_INV_STAG; break;
  case E_READ_BADSTAG: case E_READ_BOUNDS: case E_READ_RIGHTS:
    w.opcode = SM_RDMA_WR_READ;
    w.sgl = &sk;
    if (c == E_READ_BADSTAG) w.remote_stag = rs + 0x100;
    if (c == E_READ_BOUNDS) w.remote_to = 3000;
    want_layer = SM_RDMA_LAYER_RDMAP; want_etype = SM_RDMA_RDMAP_REMOTE_PROT;
    want_code = c == E_READ_BADSTAG ? SM_RDMA_RP_INV_STAG : c == E_READ_BOUNDS ? SM_RDMA_RP_BOUNDS : SM_RDMA_RP_ACCESS;
    want_wc = SM_RDMA_WC_REM_ACCESS_ERR;
    break;
  case E_ATOMIC_RIGHTS:
    w.opcode = SM_RDMA_WR_FETCH_ADD;
    sk.len = 8;
    w.sgl = &sk;
    w.remote_to = 8;
    want_layer = SM_RDMA_LAYER_RDMAP; want_etype = SM_RDMA_RDMAP_REMOTE_PROT; want_code = SM_RDMA_RP_ACCESS;
    want_wc = SM_RDMA_WC_REM_ACCESS_ERR;
    break;
  case E_NORECV: case E_OVERSIZE:
    w.opcode = SM_RDMA_WR_SEND;
    want_etype = SM_RDMA_DDP_UNTAGGED;
    want_code = c == E_NORECV ? SM_RDMA_DU_NO_BUF : SM_RDMA_DU_TOO_LONG;
    break;
  case E_NOINV: case E_INV_BADSTAG:
    w.opcode = SM_RDMA_WR_SEND_INV;
    sg.len = 100;
    w.invalidate_stag = c == E_NOINV ? rs : rs ^ 0x1;
    want_layer = SM_RDMA_LAYER_RDMAP;
    want_etype = c == E_NOINV ? SM_RDMA_RDMAP_REMOTE_OP : SM_RDMA_RDMAP_REMOTE_PROT;
    want_code = c == E_NOINV ? SM_RDMA_RO_NO_INV : SM_RDMA_RP_INV_STAG;
    break;
  case E_BADVER: h.dv = 2; raw = 1; want_etype = SM_RDMA_DDP_UNTAGGED; want_code = SM_RDMA_DU_VERSION; break;
  case E_BADRV:
    h.rv = 0; raw = 1;
    want_layer = SM_RDMA_LAYER_RDMAP; want_etype = SM_RDMA_RDMAP_REMOTE_OP; want_code = SM_RDMA_RO_VERSION;
    break;
  case E_BADOP:
    h.opcode = 0x9; raw = 1;
    want_layer = SM_RDMA_LAYER_RDMAP; want_etype = SM_RDMA_RDMAP_REMOTE_OP; want_code = SM_RDMA_RO_OPCODE;
    break;
  case E_SHORT: raw = 2; want_etype = SM_RDMA_DDP_LOCAL_CATA; want_code = 0; break;
  case E_BADQN: h.qn = 7; raw = 1; want_etype = SM_RDMA_DDP_UNTAGGED; want_code = SM_RDMA_DU_INV_QN; break;
  }
  if (raw) {
    sm_rdma_hdr_encode(seg, &h);
    CHECK(sm_rdma_qp_input(p.qp[1], seg, raw == 2 ? 10 : sizeof seg) == SM_RDMA_EPROTO);
  } else {
    CHECK(sm_rdma_post_send(p.qp[0], &w) == 0);
  }
  pair_pump(&p, 0);
  sm_rdma_term t;
  CHECK(sm_rdma_qp_error(p.qp[1], &t) == 0);
  if (t.layer != want_layer || t.etype != want_etype || t.ecode != want_code || t.remote)
    fprintf(stderr, "case %d: got %u/%u/%u remote %u want %u/%u/%u\n", c, t.layer, t.etype,
            t.ecode, t.remote, want_layer, want_etype, want_code);
  CHECK(t.layer == want_layer && t.etype == want_etype && t.ecode == want_code && !t.remote);
  /* the initiator learnt the same error from the Terminate */
  CHECK(sm_rdma_qp_error(p.qp[0], &t) == 0);
  CHECK(t.layer == want_layer && t.etype == want_etype && t.ecode == want_code && t.remote);
  sm_rdma_wc wc;
  if (!raw) {
    poll1(p.scq[0], &wc);
    CHECK(wc.wr_id == 1);
    if (want_wc >= 0) CHECK(wc.status == want_wc);
  }
  /* the receiver's posted buffer was flushed, not filled */
  if (c != E_NORECV) {
    poll1(p.rcq[1], &wc);
    CHECK(wc.wr_id == 5 && wc.status == SM_RDMA_WC_FLUSH_ERR);
  }
  /* no memory touched outside regions, nothing written anywhere on refusal */
  int partial_ok = c == E_OVERSIZE || c == E_NOINV || c == E_INV_BADSTAG;
  /* (an out-of-bounds Write places its in-bounds segments before the bad one is refused) */
  CHECK(all_eq(tgt, GUARD, CANARY) && all_eq(tgt + GUARD + 4096, GUARD, CANARY));
  if (c != E_BOUNDS) CHECK(all_eq(tgt, sizeof tgt, CANARY));
  CHECK(all_eq(sink, sizeof sink, CANARY));
  CHECK(all_eq(rbuf, GUARD, CANARY) && all_eq(rbuf + GUARD + 1024, GUARD, CANARY));
  if (!partial_ok) CHECK(all_eq(rbuf, sizeof rbuf, CANARY));
  /* both sides refuse further work */
  CHECK(sm_rdma_post_send(p.qp[0], &w) == SM_RDMA_ESTATE);
  CHECK(sm_rdma_qp_input(p.qp[1], seg, sizeof seg) == SM_RDMA_ESTATE);
  pair_free(&p);
}

static void test_post_errors(void) {
  pair p;
  pair_init(&p, 1, 256, 1, 0, 0);
  uint8_t buf[64];
  uint32_t ro = reg(&p, 0, buf, sizeof buf, SM_RDMA_LOCAL_READ);
  sm_rdma_sge sg = {ro, 0, 64};
  sm_rdma_send_wr w = {.wr_id = 1, .opcode = SM_RDMA_WR_READ, .sgl = &sg, .nsge = 1};
  CHECK(sm_rdma_post_send(p.qp[0], &w) == SM_RDMA_EACCESS);      /* sink not locally writable */
  CHECK(sm_rdma_post_recv(p.qp[0], 1, &sg, 1) == SM_RDMA_EACCESS);
  sg.len = 65;
  w.opcode = SM_RDMA_WR_SEND;
  CHECK(sm_rdma_post_send(p.qp[0], &w) == SM_RDMA_EBOUNDS);
  sg.stag ^= 0x10;
  sg.len = 1;
  CHECK(sm_rdma_post_send(p.qp[0], &w) == SM_RDMA_ESTAG);
  w.opcode = 77;
  CHECK(sm_rdma_post_send(p.qp[0], &w) == SM_RDMA_EINVAL);
  w.opcode = SM_RDMA_WR_SEND;
  w.nsge = SM_RDMA_MAX_SGE + 1;
  CHECK(sm_rdma_post_send(p.qp[0], &w) == SM_RDMA_EINVAL);
  uint32_t rw = reg(&p, 0, buf, sizeof buf, SM_RDMA_LOCAL_WRITE);
  sm_rdma_sge a = {rw, 0, 8};
  sm_rdma_send_wr at = {.opcode = SM_RDMA_WR_CMP_SWAP, .sgl = &a, .nsge = 1, .remote_to = 4};
  CHECK(sm_rdma_post_send(p.qp[0], &at) == SM_RDMA_EINVAL); /* unaligned */
  a.len = 4;
  at.remote_to = 8;
  CHECK(sm_rdma_post_send(p.qp[0], &at) == SM_RDMA_EINVAL); /* not 8 bytes */
  CHECK(p.dir[0].n == 0); /* nothing was emitted */
  pair_free(&p);
}

static void test_errors(uint64_t seed) {
  for (int c = 0; c < E_NCASES; c++)
    for (int k = 0; k < 3; k++) one_error(seed + (uint64_t)k * 31, c);
  test_post_errors();
}

/* ---------------------------------------------------------------- atomics */
static void test_atomics(uint64_t seed) {
  pair p;
  pair_init(&p, seed, 128, 2, 1, 20);
  uint64_t target[4] = {100, 0, 0, 0};
  uint64_t res[64];
  uint32_t rt = reg(&p, 1, target, sizeof target, SM_RDMA_REMOTE_ATOMIC);
  uint32_t lr = reg(&p, 0, res, sizeof res, SM_RDMA_LOCAL_WRITE);
  /* 32 fetch-and-adds, then compare-and-swaps that succeed and fail */
  for (int i = 0; i < 32; i++) {
    sm_rdma_sge sg = {lr, (uint64_t)i * 8, 8};
    sm_rdma_send_wr w = {.wr_id = (uint64_t)i, .opcode = SM_RDMA_WR_FETCH_ADD, .sgl = &sg,
                         .nsge = 1, .remote_stag = rt, .remote_to = 0, .add_or_swap = (uint64_t)i};
    CHECK(sm_rdma_post_send(p.qp[0], &w) == 0);
  }
  uint64_t expect = 100 + 31 * 32 / 2;
  sm_rdma_sge s1 = {lr, 32 * 8, 8}, s2 = {lr, 33 * 8, 8};
  sm_rdma_send_wr c1 = {.wr_id = 100, .opcode = SM_RDMA_WR_CMP_SWAP, .sgl = &s1, .nsge = 1,
                        .remote_stag = rt, .remote_to = 0, .compare = expect, .add_or_swap = 7};
  sm_rdma_send_wr c2 = c1;
  c2.wr_id = 101;
  c2.sgl = &s2;
  c2.add_or_swap = 9; /* compare fails now: value is 7 */
  CHECK(sm_rdma_post_send(p.qp[0], &c1) == 0);
  CHECK(sm_rdma_post_send(p.qp[0], &c2) == 0);
  pair_pump(&p, 0);
  uint64_t acc = 100;
  sm_rdma_wc wc;
  for (int i = 0; i < 32; i++) {
    poll1(p.scq[0], &wc);
    CHECK(wc.wr_id == (uint64_t)i && wc.status == SM_RDMA_WC_SUCCESS &&
          wc.opcode == SM_RDMA_WC_FETCH_ADD && wc.byte_len == 8);
    CHECK(res[i] == acc);
    acc += (uint64_t)i;
  }
  poll1(p.scq[0], &wc);
  CHECK(wc.wr_id == 100 && wc.opcode == SM_RDMA_WC_CMP_SWAP && res[32] == expect);
  poll1(p.scq[0], &wc);
  CHECK(wc.wr_id == 101 && res[33] == 7);
  CHECK(target[0] == 7 && target[1] == 0);
  CHECK(sm_rdma_cq_poll(p.rcq[1], &wc, 1) == 0 && sm_rdma_cq_poll(p.scq[1], &wc, 1) == 0);
  CHECK(p.input_errors[0] == 0 && p.input_errors[1] == 0);
  pair_free(&p);
}

/* ---------------------------------------------------------------- stress against a model */
#define REG (256 * 1024)
#define LOCAL (1024 * 1024) /* gather sources: never reused within a batch (a fenced request
                               gathers its data later, when it is emitted) */
typedef struct side {
  uint8_t *exposed, *model;  /* memory the peer writes/reads, and its model */
  uint8_t *local;            /* gather sources */
  uint8_t *sinks;            /* read sinks and atomic results */
  uint8_t *recv;             /* receive buffers */
  uint32_t s_exposed, s_local, s_sinks, s_recv;
} side;

typedef struct expect {
  uint64_t wr_id;
  int kind;                  /* 0 write, 1 read, 2 atomic, 3 send */
  uint32_t len;
  uint8_t *check_at;         /* where the result lands */
  uint8_t *want;             /* expected bytes (owned) */
} expect;

static void test_stress(uint64_t seed, int iters) {
  uint64_t r = seed;
  pair p;
  pair_init(&p, seed, 64 + (uint32_t)(rnd(&r) % 1400), 1 + (unsigned)(rnd(&r) % 8), 1, 15);
  side sd[2];
  for (int i = 0; i < 2; i++) {
    sd[i].exposed = malloc(REG);
    sd[i].model = malloc(REG);
    sd[i].local = malloc(LOCAL);
    sd[i].sinks = malloc(REG);
    sd[i].recv = malloc(REG);
    fill_rand(&r, sd[i].exposed, REG);
    memcpy(sd[i].model, sd[i].exposed, REG);
    sd[i].s_exposed = reg(&p, i, sd[i].exposed, REG,
                          SM_RDMA_REMOTE_WRITE | SM_RDMA_REMOTE_READ | SM_RDMA_REMOTE_ATOMIC);
    sd[i].s_local = reg(&p, i, sd[i].local, LOCAL, SM_RDMA_LOCAL_READ);
    sd[i].s_sinks = reg(&p, i, sd[i].sinks, REG, SM_RDMA_LOCAL_WRITE);
    sd[i].s_recv = reg(&p, i, sd[i].recv, REG, SM_RDMA_LOCAL_WRITE);
  }
  uint64_t ops = 0, bytes = 0, nfenced = 0;
  for (int it = 0; it < iters; it++) {
    expect ex[2][64], rx[2][64];
    int nex[2] = {0, 0}, nrx[2] = {0, 0};
    uint32_t sink_used[2] = {0, 0}, recv_used[2] = {0, 0}, local_used[2] = {0, 0};
    /* remote ranges read, updated atomically or written in this batch, per initiator: the
     * placement order of a Write and an overlapping earlier Write, Read or atomic still in
     * flight is not defined (docs/rdma.md), so Writes avoid those ranges */
    uint64_t rlo[2][128], rhi[2][128];
    int rkind[2][128];
    int nr[2] = {0, 0};
    int nops = 1 + (int)(rnd(&r) % 40);
    for (int k = 0; k < nops; k++) {
      int s = (int)(rnd(&r) & 1), o = 1 - s;
      side *me = &sd[s], *peer = &sd[o];
      int kind = (int)(rnd(&r) % 4);
      uint32_t len = (uint32_t)(rnd(&r) % 5 == 0 ? rnd(&r) % 16 : rnd(&r) % 12000);
      uint64_t to = rnd(&r) % (REG - len + 1);
      expect *e = &ex[s][nex[s]];
      e->wr_id = ((uint64_t)it << 16) | (uint64_t)k;
      e->kind = kind;
      e->want = NULL;
      if (kind == 2) {
        to &= ~(uint64_t)7;
        uint64_t old;
        memcpy(&old, peer->model + to, 8);
        bool cas = rnd(&r) & 1;
        uint64_t v = rnd(&r), cmp = (rnd(&r) & 1) ? old : rnd(&r);
        uint64_t nv = cas ? (old == cmp ? v : old) : old + v;
        rkind[s][nr[s]] = 1;
        rlo[s][nr[s]] = to;
        rhi[s][nr[s]++] = to + 8;
        memcpy(peer->model + to, &nv, 8);
        sm_rdma_sge sg = {me->s_sinks, sink_used[s], 8};
        e->check_at = me->sinks + sink_used[s];
        e->want = malloc(8);
        memcpy(e->want, &old, 8);
        e->len = 8;
        sink_used[s] += 8;
        sm_rdma_send_wr w = {.wr_id = e->wr_id, .opcode = cas ? SM_RDMA_WR_CMP_SWAP : SM_RDMA_WR_FETCH_ADD,
                             .sgl = &sg, .nsge = 1, .remote_stag = peer->s_exposed, .remote_to = to,
                             .add_or_swap = v, .compare = cmp};
        CHECK(sm_rdma_post_send(p.qp[s], &w) == 0);
      } else if (kind == 1) {
        if (sink_used[s] + len > REG) continue;
        sm_rdma_sge sg = {me->s_sinks, sink_used[s], len};
        e->check_at = me->sinks + sink_used[s];
        e->want = malloc(len + 1);
        memcpy(e->want, peer->model + to, len);
        rkind[s][nr[s]] = 1;
        rlo[s][nr[s]] = to;
        rhi[s][nr[s]++] = to + len;
        e->len = len;
        sink_used[s] += len;
        sm_rdma_send_wr w = {.wr_id = e->wr_id, .opcode = SM_RDMA_WR_READ, .sgl = &sg, .nsge = 1,
                             .remote_stag = peer->s_exposed, .remote_to = to};
        CHECK(sm_rdma_post_send(p.qp[s], &w) == 0);
      } else if (kind == 0) {
        bool clash = false, fence = false;
        for (int q = 0; q < nr[s]; q++)
          if (to < rhi[s][q] && rlo[s][q] < to + len) {
            if (rkind[s][q]) fence = true; /* after a Read/atomic: a fence orders it */
            else clash = true;             /* after a Write: no order, avoid */
          }
        if (clash || local_used[s] + len > LOCAL) continue;
        rkind[s][nr[s]] = 0;
        rlo[s][nr[s]] = to;
        rhi[s][nr[s]++] = to + len;
        nfenced += fence;
        uint64_t lo = local_used[s];
        local_used[s] += len;
        fill_rand(&r, me->local + lo, len);
        /* gather from up to three pieces of the local buffer */
        uint32_t a = len ? (uint32_t)(rnd(&r) % (len + 1)) : 0, b = len - a;
        sm_rdma_sge sg[2] = {{me->s_local, lo, a}, {me->s_local, lo + a, b}};
        memcpy(peer->model + to, me->local + lo, len);
        e->len = len;
        e->check_at = NULL;
        sm_rdma_send_wr w = {.wr_id = e->wr_id, .opcode = SM_RDMA_WR_WRITE, .sgl = sg, .nsge = 2,
                             .remote_stag = peer->s_exposed, .remote_to = to,
                             .flags = fence ? SM_RDMA_WR_FENCE : 0};
        CHECK(sm_rdma_post_send(p.qp[s], &w) == 0);
      } else {
        if (recv_used[o] + len > REG || local_used[s] + len > LOCAL) continue;
        uint64_t lo = local_used[s];
        local_used[s] += len;
        fill_rand(&r, me->local + lo, len);
        sm_rdma_sge rg = {peer->s_recv, recv_used[o], len + (uint32_t)(rnd(&r) % 50)};
        if (recv_used[o] + rg.len > REG) rg.len = len;
        expect *x = &rx[o][nrx[o]++];
        x->wr_id = e->wr_id;
        x->len = len;
        x->check_at = peer->recv + recv_used[o];
        x->want = malloc(len + 1);
        memcpy(x->want, me->local + lo, len);
        recv_used[o] += rg.len;
        CHECK(sm_rdma_post_recv(p.qp[o], e->wr_id, &rg, 1) == 0);
        sm_rdma_sge sg = {me->s_local, lo, len};
        sm_rdma_send_wr w = {.wr_id = e->wr_id, .opcode = SM_RDMA_WR_SEND, .sgl = &sg, .nsge = 1};
        CHECK(sm_rdma_post_send(p.qp[s], &w) == 0);
        e->check_at = NULL;
        e->len = len;
      }
      nex[s]++;
      ops++;
      bytes += len;
    }
    pair_pump(&p, 0);
    for (int s = 0; s < 2; s++) {
      sm_rdma_wc wc;
      for (int i = 0; i < nex[s]; i++) {
        expect *e = &ex[s][i];
        if (poll1(p.scq[s], &wc) != 1) break;
        CHECK(wc.wr_id == e->wr_id && wc.status == SM_RDMA_WC_SUCCESS && wc.byte_len == e->len);
        if (e->want) CHECK(memcmp(e->check_at, e->want, e->len) == 0);
        free(e->want);
      }
      for (int i = 0; i < nrx[s]; i++) {
        expect *x = &rx[s][i];
        if (poll1(p.rcq[s], &wc) != 1) break;
        CHECK(wc.wr_id == x->wr_id && wc.status == SM_RDMA_WC_SUCCESS && wc.byte_len == x->len);
        CHECK(memcmp(x->check_at, x->want, x->len) == 0);
        free(x->want);
      }
      CHECK(sm_rdma_cq_poll(p.scq[s], &wc, 1) == 0 && sm_rdma_cq_poll(p.rcq[s], &wc, 1) == 0);
      CHECK(memcmp(sd[s].exposed, sd[s].model, REG) == 0);
    }
    if (test_failures) {
      fprintf(stderr, "stress: failure at iteration %d\n", it);
      break;
    }
  }
  CHECK(p.input_errors[0] == 0 && p.input_errors[1] == 0);
  CHECK(sm_rdma_cq_overflow(p.scq[0]) == 0 && sm_rdma_cq_overflow(p.rcq[1]) == 0);
  printf("stress: %llu operations (%llu fenced writes), %llu bytes, %llu segments\n",
         (unsigned long long)ops, (unsigned long long)nfenced, (unsigned long long)bytes,
         (unsigned long long)p.segs);
  for (int i = 0; i < 2; i++) {
    free(sd[i].exposed); free(sd[i].model); free(sd[i].local); free(sd[i].sinks); free(sd[i].recv);
  }
  pair_free(&p);
}

/* ---------------------------------------------------------------- queues, fences, wrap */
static void test_queues(uint64_t seed) {
  /* two queue pairs of side 0 (in two pairs) share one completion queue */
  pair a, b;
  pair_init(&a, seed, 200, 2, 1, 10);
  pair_init(&b, seed + 1, 200, 2, 1, 10);
  sm_rdma_cq *shared = sm_rdma_cq_new(64);
  sm_rdma_qp *old[2] = {a.qp[0], b.qp[0]};
  pair *ps[2] = {&a, &b};
  for (int i = 0; i < 2; i++) { /* replace side 0's queue pair by one on the shared queue */
    sm_rdma_qp_attr at = old[i]->a;
    at.send_cq = at.recv_cq = shared;
    at.qp_num = 10 + (uint32_t)i;
    ps[i]->qp[0] = sm_rdma_qp_new(&at);
    sm_rdma_qp_free(old[i]);
  }
  static uint8_t src[2][3000], dst[2][3000];
  uint32_t rd0 = 0;
  for (int i = 0; i < 2; i++) {
    uint64_t r = seed + (uint64_t)i;
    fill_rand(&r, src[i], sizeof src[i]);
    uint32_t ls = reg(ps[i], 0, src[i], sizeof src[i], SM_RDMA_LOCAL_READ);
    uint32_t rd = reg(ps[i], 1, dst[i], sizeof dst[i], SM_RDMA_REMOTE_WRITE | SM_RDMA_REMOTE_READ);
    if (i == 0) rd0 = rd;
    for (int k = 0; k < 5; k++) {
      sm_rdma_sge sg = {ls, (uint64_t)k * 600, 600};
      sm_rdma_send_wr w = {.wr_id = (uint64_t)(i * 100 + k), .opcode = SM_RDMA_WR_WRITE,
                           .sgl = &sg, .nsge = 1, .remote_stag = rd, .remote_to = (uint64_t)k * 600};
      CHECK(sm_rdma_post_send(ps[i]->qp[0], &w) == 0);
    }
  }
  pair_pump(&a, 0);
  pair_pump(&b, 0);
  sm_rdma_wc wc[16];
  int n = sm_rdma_cq_poll(shared, wc, 16);
  CHECK(n == 10);
  int seen[2] = {0, 0};
  for (int k = 0; k < n; k++) {
    int i = wc[k].qp_num == 10 ? 0 : 1;
    CHECK(wc[k].qp_num == 10 || wc[k].qp_num == 11);
    CHECK(wc[k].wr_id == (uint64_t)(i * 100 + seen[i])); /* in order per queue pair */
    seen[i]++;
  }
  CHECK(memcmp(src[0], dst[0], 3000) == 0 && memcmp(src[1], dst[1], 3000) == 0);
  /* overflow: 70 completions into the (now empty) queue of 64 */
  for (int k = 0; k < 70; k++) {
    sm_rdma_send_wr w = {.wr_id = 1000 + (uint64_t)k, .opcode = SM_RDMA_WR_WRITE, .nsge = 0,
                         .remote_stag = rd0, .remote_to = 0}; /* zero-byte writes */
    CHECK(sm_rdma_post_send(a.qp[0], &w) == 0);
    if (k % 10 == 9) pair_pump(&a, 0);
  }
  CHECK(sm_rdma_cq_overflow(shared) == 70 - 64);
  n = sm_rdma_cq_poll(shared, wc, 16);
  CHECK(n == 16 && wc[0].wr_id == 1000);
  sm_rdma_cq_free(shared);
  /* the pairs' own queues are unused by side 0 now; free them with the pair */
  pair_free(&a);
  pair_free(&b);

  /* a Terminate completes the named request with an error and flushes the rest, in order */
  pair p;
  pair_init(&p, seed, 128, 3, 1, 0);
  static uint8_t sink[4096], tgt[4096];
  uint32_t lk = reg(&p, 0, sink, sizeof sink, SM_RDMA_LOCAL_WRITE);
  uint32_t rt = reg(&p, 1, tgt, sizeof tgt, SM_RDMA_REMOTE_READ);
  for (int k = 0; k < 4; k++) {
    sm_rdma_sge sg = {lk, (uint64_t)k * 1000, 1000};
    sm_rdma_send_wr w = {.wr_id = (uint64_t)k, .opcode = SM_RDMA_WR_READ, .sgl = &sg, .nsge = 1,
                         .remote_stag = rt, .remote_to = k == 1 ? 3500 : 0};
    CHECK(sm_rdma_post_send(p.qp[0], &w) == 0);
  }
  pair_pump(&p, 0);
  sm_rdma_wc one;
  poll1(p.scq[0], &one);
  CHECK(one.wr_id == 0 && one.status == SM_RDMA_WC_SUCCESS && one.byte_len == 1000);
  poll1(p.scq[0], &one);
  CHECK(one.wr_id == 1 && one.status == SM_RDMA_WC_REM_ACCESS_ERR);
  poll1(p.scq[0], &one);
  CHECK(one.wr_id == 2 && one.status == SM_RDMA_WC_FLUSH_ERR);
  poll1(p.scq[0], &one);
  CHECK(one.wr_id == 3 && one.status == SM_RDMA_WC_FLUSH_ERR);
  CHECK(sm_rdma_cq_poll(p.scq[0], &one, 1) == 0);
  pair_free(&p);

  /* fence: a Read then a fenced Write of the same bytes; the Read must see the old bytes */
  for (int k = 0; k < 50; k++) {
    pair f;
    pair_init(&f, seed + (uint64_t)k, 64, 4, 1, 20);
    static uint8_t mem[2048], back[2048], neu[2048];
    uint64_t r = seed * 3 + (uint64_t)k;
    fill_rand(&r, mem, sizeof mem);
    fill_rand(&r, neu, sizeof neu);
    uint8_t orig[2048];
    memcpy(orig, mem, sizeof mem);
    uint32_t rm = reg(&f, 1, mem, sizeof mem, SM_RDMA_REMOTE_READ | SM_RDMA_REMOTE_WRITE);
    uint32_t lb = reg(&f, 0, back, sizeof back, SM_RDMA_LOCAL_WRITE);
    uint32_t ln = reg(&f, 0, neu, sizeof neu, SM_RDMA_LOCAL_READ);
    sm_rdma_sge sb = {lb, 0, 2048}, sn = {ln, 0, 2048};
    sm_rdma_send_wr rd = {.wr_id = 1, .opcode = SM_RDMA_WR_READ, .sgl = &sb, .nsge = 1, .remote_stag = rm};
    sm_rdma_send_wr wr = {.wr_id = 2, .opcode = SM_RDMA_WR_WRITE, .sgl = &sn, .nsge = 1,
                          .remote_stag = rm, .flags = SM_RDMA_WR_FENCE};
    CHECK(sm_rdma_post_send(f.qp[0], &rd) == 0);
    size_t before = f.dir[0].n;
    CHECK(sm_rdma_post_send(f.qp[0], &wr) == 0);
    CHECK(f.dir[0].n == before); /* held back */
    CHECK(sm_rdma_cq_poll(f.scq[0], &one, 1) == 0);
    pair_pump(&f, 0);
    CHECK(memcmp(back, orig, sizeof back) == 0);
    CHECK(memcmp(mem, neu, sizeof mem) == 0);
    poll1(f.scq[0], &one);
    CHECK(one.wr_id == 1 && one.status == SM_RDMA_WC_SUCCESS);
    poll1(f.scq[0], &one);
    CHECK(one.wr_id == 2 && one.status == SM_RDMA_WC_SUCCESS);
    pair_free(&f);
  }

  /* message numbers and MSNs across the 32-bit wrap */
  pair w;
  pair_init(&w, seed, 100, 3, 1, 10);
  w.qp[0]->next_mn = 0xffffffc0u;
  w.qp[1]->mt.base = 0xffffffc0u;
  w.qp[0]->msn_out[SM_RDMA_QN_SEND] = 0xffffffe0u;
  w.qp[1]->msn_in[SM_RDMA_QN_SEND] = 0xffffffe0u;
  static uint8_t ws[64][300], wd[64][300];
  uint32_t lws = reg(&w, 0, ws, sizeof ws, SM_RDMA_LOCAL_READ);
  uint32_t lwd = reg(&w, 1, wd, sizeof wd, SM_RDMA_LOCAL_WRITE);
  uint64_t r = seed;
  fill_rand(&r, &ws[0][0], sizeof ws);
  for (int k = 0; k < 64; k++) {
    sm_rdma_sge rg = {lwd, (uint64_t)k * 300, 300};
    CHECK(sm_rdma_post_recv(w.qp[1], (uint64_t)k, &rg, 1) == 0);
    sm_rdma_sge sg = {lws, (uint64_t)k * 300, 300};
    sm_rdma_send_wr sw = {.wr_id = (uint64_t)k, .opcode = SM_RDMA_WR_SEND, .sgl = &sg, .nsge = 1};
    CHECK(sm_rdma_post_send(w.qp[0], &sw) == 0);
  }
  pair_pump(&w, 0);
  for (int k = 0; k < 64; k++) {
    poll1(w.rcq[1], &one);
    CHECK(one.wr_id == (uint64_t)k && one.status == SM_RDMA_WC_SUCCESS && one.byte_len == 300);
  }
  CHECK(memcmp(ws, wd, sizeof ws) == 0);
  CHECK(w.input_errors[1] == 0 && w.qp[1]->mt.base == 0x0u);
  pair_free(&w);
}

/* ---------------------------------------------------------------- malformed segments */
static void test_fuzz(uint64_t seed, int iters) {
  /* record a normal exchange, then feed mutated copies of its segments to fresh receivers */
  uint64_t r = seed;
  long refused = 0, accepted = 0;
  for (int it = 0; it < iters; it++) {
    pair p;
    pair_init(&p, seed + (uint64_t)it, 80 + (uint32_t)(rnd(&r) % 300), 2, 1, 0);
    static uint8_t src[4096], area[4096 + 2 * GUARD], rbuf[2048 + 2 * GUARD], sink[1024 + 2 * GUARD];
    fill_rand(&r, src, sizeof src);
    memset(area, CANARY, sizeof area);
    memset(rbuf, CANARY, sizeof rbuf);
    memset(sink, CANARY, sizeof sink);
    uint32_t ls = reg(&p, 0, src, sizeof src, SM_RDMA_LOCAL_READ);
    uint32_t lk = reg(&p, 0, sink + GUARD, 1024, SM_RDMA_LOCAL_WRITE);
    uint32_t ra = reg(&p, 1, area + GUARD, 4096,
                      SM_RDMA_REMOTE_WRITE | SM_RDMA_REMOTE_READ | SM_RDMA_REMOTE_ATOMIC |
                          SM_RDMA_REMOTE_INVALIDATE);
    uint32_t rr = reg(&p, 1, rbuf + GUARD, 2048, SM_RDMA_LOCAL_WRITE);
    for (int k = 0; k < 3; k++) {
      sm_rdma_sge rg = {rr, (uint64_t)k * 600, 600};
      sm_rdma_post_recv(p.qp[1], (uint64_t)k, &rg, 1);
    }
    sm_rdma_sge s1 = {ls, 0, 1500}, s2 = {ls, 100, 500}, s3 = {lk, 0, 1000}, s4 = {lk, 1000, 8};
    sm_rdma_send_wr ops[5] = {
        {.opcode = SM_RDMA_WR_WRITE, .sgl = &s1, .nsge = 1, .remote_stag = ra, .remote_to = 1000},
        {.opcode = SM_RDMA_WR_SEND, .sgl = &s2, .nsge = 1},
        {.opcode = SM_RDMA_WR_READ, .sgl = &s3, .nsge = 1, .remote_stag = ra, .remote_to = 3000},
        {.opcode = SM_RDMA_WR_FETCH_ADD, .sgl = &s4, .nsge = 1, .remote_stag = ra, .remote_to = 8, .add_or_swap = 5},
        {.opcode = SM_RDMA_WR_SEND_INV, .sgl = &s2, .nsge = 1, .invalidate_stag = ra}};
    for (int k = 0; k < 5; k++) sm_rdma_post_send(p.qp[0], &ops[k]);
    /* mutate side 0's segments before side 1 sees them, and side 1's before side 0 */
    for (int d = 0; d < 2; d++)
      for (size_t k = 0; k < p.dir[d].n; k++) {
        wseg *g = &p.dir[d].q[k];
        int muts = (int)(rnd(&r) % 4);
        for (int m = 0; m < muts && g->len; m++) {
          size_t at = rnd(&r) % (rnd(&r) % 2 ? (g->len < SM_RDMA_HDR_LEN ? g->len : SM_RDMA_HDR_LEN) : g->len);
          g->b[at] ^= (uint8_t)(1u << (rnd(&r) % 8));
        }
        if (rnd(&r) % 10 == 0) g->len = rnd(&r) % (g->len + 1); /* truncate */
      }
    p.reorder = 1;
    p.dup_pct = 10;
    pair_pump(&p, 0);
    refused += p.input_errors[0] + p.input_errors[1];
    accepted += (long)p.segs;
    CHECK(all_eq(area, GUARD, CANARY) && all_eq(area + GUARD + 4096, GUARD, CANARY));
    CHECK(all_eq(rbuf, GUARD, CANARY) && all_eq(rbuf + GUARD + 2048, GUARD, CANARY));
    CHECK(all_eq(sink, GUARD, CANARY) && all_eq(sink + GUARD + 1024, GUARD, CANARY));
    sm_rdma_wc wc[32];
    while (sm_rdma_cq_poll(p.scq[0], wc, 32) > 0) {}
    pair_free(&p);
  }
  printf("fuzz: %d exchanges, %ld segments fed, %ld refused\n", iters, accepted, refused);
}

int main(int argc, char **argv) {
  /* "gather TEST": the same test with the gathering output; it must have carried segments */
  if (argc > 2 && !strcmp(argv[1], "gather")) {
    wire_gather = 1;
    argv++;
    argc--;
  }
  const char *what = argc > 1 ? argv[1] : "codec";
  uint64_t seed = argc > 2 ? strtoull(argv[2], NULL, 0) : 12345;
  int iters = argc > 3 ? atoi(argv[3]) : 200;
  if (!strcmp(what, "codec")) test_codec();
  else if (!strcmp(what, "write_read")) test_write_read(seed);
  else if (!strcmp(what, "send")) test_send(seed);
  else if (!strcmp(what, "errors")) test_errors(seed);
  else if (!strcmp(what, "atomics")) test_atomics(seed);
  else if (!strcmp(what, "queues")) test_queues(seed);
  else if (!strcmp(what, "fuzz")) test_fuzz(seed, iters);
  else if (!strcmp(what, "stress")) {
    for (int k = 0; k < 4; k++) test_stress(seed + (uint64_t)k * 1000003, iters);
  } else {
    fprintf(stderr, "unknown test %s\n", what);
    return 2;
  }
  if (wire_gather && wire_gathered == 0) {
    fprintf(stderr, "gather: no segment went through the gathering output\n");
    test_failures++;
  }
  if (test_failures) {
    fprintf(stderr, "%d checks failed\n", test_failures);
    return 1;
  }
  printf(" No Errors\n");
  return 0;
}
