/* rdma_internal.h — structures shared by the files of the RDMA layer (src/rdma/): the region
 * table, completion queue, wire header codec, per-message placement tracking and the queue pair.
 * Not part of the public interface (rdma.h). */
#ifndef SM_RDMA_INTERNAL_H
#define SM_RDMA_INTERNAL_H

#include "rdma.h"

#include <stdbool.h>

/* ---- wire format (ddp.c); byte diagrams in docs/rdma.md ---- */
#define SM_RDMA_HDR_LEN 22u      /* every segment: DDP + RDMAP header + our 8-byte extension */
#define SM_RDMA_DDP_T 0x80u      /* DDP control: Tagged */
#define SM_RDMA_DDP_L 0x40u      /* DDP control: Last */
#define SM_RDMA_DDP_VERSION 1u   /* DV, low 2 bits of the DDP control byte */
#define SM_RDMA_RDMAP_VERSION 1u /* RV, high 2 bits of the RDMAP control byte */

enum sm_rdma_opcode {
    SM_RDMA_OP_WRITE = 0x0,
    SM_RDMA_OP_READ_REQ = 0x1,
    SM_RDMA_OP_READ_RESP = 0x2,
    SM_RDMA_OP_SEND = 0x3,
    SM_RDMA_OP_SEND_INV = 0x4,
    SM_RDMA_OP_SEND_SE = 0x5,
    SM_RDMA_OP_SEND_SE_INV = 0x6,
    SM_RDMA_OP_TERMINATE = 0x7,
    SM_RDMA_OP_ATOMIC_REQ = 0xA,
    SM_RDMA_OP_ATOMIC_RESP = 0xB
};
/* untagged queue numbers */
enum {
    SM_RDMA_QN_SEND = 0,
    SM_RDMA_QN_READ = 1,
    SM_RDMA_QN_TERM = 2,
    SM_RDMA_QN_ATOMIC_REQ = 3,
    SM_RDMA_QN_ATOMIC_RESP = 4,
    SM_RDMA_NQN = 5
};

#define SM_RDMA_READREQ_LEN 28u  /* sink STag, sink TO, size, source STag, source TO */
#define SM_RDMA_ATOMREQ_LEN 52u  /* op, id, STag, TO, add/swap, add/swap mask, cmp, cmp mask */
#define SM_RDMA_ATOMRESP_LEN 12u /* id, original value */
#define SM_RDMA_TERM_FIXED 4u    /* layer|etype, code, M/D/R bits, reserved */
#define SM_RDMA_TERM_M 0x80u
#define SM_RDMA_TERM_D 0x40u
#define SM_RDMA_TERM_R 0x20u
enum { SM_RDMA_ATOMIC_FETCH_ADD = 0x0, SM_RDMA_ATOMIC_CMP_SWAP = 0x1 };

typedef struct sm_rdma_hdr {
    uint8_t tagged, last, dv, rv, opcode;
    uint32_t stag;     /* tagged: data sink STag */
    uint64_t to;       /* tagged: tagged offset */
    uint32_t inv_stag; /* untagged: STag to invalidate (Send with Invalidate) */
    uint32_t qn, msn;  /* untagged */
    uint32_t mo;       /* message offset (both models; an extension for tagged segments) */
    uint32_t mn;       /* message number on this connection (extension, both models) */
} sm_rdma_hdr;

void sm_rdma_put32(uint8_t *p, uint32_t v);
void sm_rdma_put64(uint8_t *p, uint64_t v);
uint32_t sm_rdma_get32(const uint8_t *p);
uint64_t sm_rdma_get64(const uint8_t *p);
void sm_rdma_hdr_encode(uint8_t *p, const sm_rdma_hdr *h);
/* 0, or -1 if len < SM_RDMA_HDR_LEN.  Versions are decoded, not checked. */
int sm_rdma_hdr_decode(const uint8_t *p, size_t len, sm_rdma_hdr *h);

/* ---- memory regions (stag.c) ---- */
enum { SM_RDMA_MR_FREE = 0, SM_RDMA_MR_VALID, SM_RDMA_MR_INVALID };
typedef struct sm_rdma_mr {
    uint8_t *addr;
    uint64_t len;
    unsigned access;
    uint8_t key;
    uint8_t state;
} sm_rdma_mr;
struct sm_rdma_pd {
    sm_rdma_mr *mr; /* slot 0 unused: STag index 0 is never valid */
    uint32_t n;     /* slots incl. slot 0 */
    uint8_t next_key;
};
/* The region for an STag whatever its state, or NULL (unknown index or wrong key). */
sm_rdma_mr *sm_rdma_mr_lookup(const sm_rdma_pd *pd, uint32_t stag);

/* ---- completion queues (cq.c) ---- */
struct sm_rdma_cq {
    sm_rdma_wc *ring;
    uint32_t depth, head, count;
    uint64_t overflow, solicited;
};
void sm_rdma_cq_push(sm_rdma_cq *cq, const sm_rdma_wc *wc);

/* ---- incoming message tracking (msgtrack.c) ---- */
typedef struct sm_rdma_ival {
    uint32_t lo, hi;
} sm_rdma_ival; /* [lo, hi) */
typedef struct sm_rdma_msg {
    uint8_t used, last_seen, tagged, opcode;
    uint32_t total;   /* message length, known once the Last segment arrived */
    uint64_t placed;  /* distinct bytes placed */
    sm_rdma_ival *iv; /* placed ranges, sorted, merged */
    uint32_t niv, cap;
    uint32_t stag, qn, msn, inv_stag; /* from the first segment seen */
    uint64_t to0;                     /* tagged: TO of message offset 0 */
    uint8_t ctl[SM_RDMA_ATOMREQ_LEN]; /* the body of a single-segment control message */
    uint8_t hdr[SM_RDMA_HDR_LEN];     /* a header of this message, for a Terminate */
} sm_rdma_msg;
typedef struct sm_rdma_msgtab {
    sm_rdma_msg *slot;
    uint32_t cap;   /* power of two */
    uint32_t base;  /* message number of the next message to deliver */
    uint32_t limit; /* most messages tracked at once */
} sm_rdma_msgtab;
int sm_rdma_msgtab_init(sm_rdma_msgtab *t, uint32_t limit);
void sm_rdma_msgtab_free(sm_rdma_msgtab *t);
/* The slot for message number mn, growing the table; NULL if mn is before base (already
 * delivered: a duplicate) with *stale set, or beyond the limit / out of memory. */
sm_rdma_msg *sm_rdma_msgtab_get(sm_rdma_msgtab *t, uint32_t mn, bool *stale);
/* Record [lo, hi) as placed; returns the number of bytes not placed before (0: duplicate), or
 * -1 on allocation failure. */
int64_t sm_rdma_msg_add(sm_rdma_msg *m, uint32_t lo, uint32_t hi);
/* true if [lo, hi) is entirely placed already */
bool sm_rdma_msg_covered(const sm_rdma_msg *m, uint32_t lo, uint32_t hi);
/* highest placed offset + 1 (0 if none) */
uint32_t sm_rdma_msg_end(const sm_rdma_msg *m);
/* The message at base, if complete; NULL otherwise. */
sm_rdma_msg *sm_rdma_msgtab_head_complete(sm_rdma_msgtab *t);
/* Release the head slot and advance base. */
void sm_rdma_msgtab_pop(sm_rdma_msgtab *t);

/* ---- queue pair (qp.c, rdmap.c) ---- */
#define SM_RDMA_MAX_SGE 8
typedef struct sm_rdma_swr {
    uint64_t wr_id;
    uint8_t opcode, flags, done, status;
    uint8_t pending; /* held back by a fence, not emitted yet */
    uint32_t byte_len;
    uint32_t mn;  /* message number of the request on the wire */
    uint32_t seq; /* atomic request identifier */
    sm_rdma_sge sge[SM_RDMA_MAX_SGE];
    int nsge;
    uint32_t remote_stag;
    uint64_t remote_to;
    uint32_t inv_stag;
    uint64_t add_or_swap, compare;
} sm_rdma_swr;
typedef struct sm_rdma_rwr {
    uint64_t wr_id;
    sm_rdma_sge sge[SM_RDMA_MAX_SGE];
    int nsge;
    uint64_t total;
} sm_rdma_rwr;

struct sm_rdma_qp {
    sm_rdma_qp_attr a;
    int state;
    sm_rdma_term term;
    /* send side */
    sm_rdma_swr *sq;
    uint32_t sq_head, sq_count;
    uint32_t next_mn;              /* message number of the next outgoing message */
    uint32_t msn_out[SM_RDMA_NQN]; /* next MSN per untagged queue */
    uint32_t next_seq;
    uint8_t *txbuf; /* one segment being built */
    /* receive side */
    sm_rdma_rwr *rq;
    uint32_t rq_head, rq_count;
    uint32_t msn_in[SM_RDMA_NQN]; /* MSN expected at delivery, per queue */
    sm_rdma_msgtab mt;
};

/* rdmap.c */
void sm_rdma_emit_wr(sm_rdma_qp *qp, sm_rdma_swr *w);
int sm_rdma_input(sm_rdma_qp *qp, const uint8_t *seg, size_t len);
/* qp.c */
void sm_rdma_sq_drain(sm_rdma_qp *qp);
/* Emit the work requests a fence held back, as far as the fence now allows. */
void sm_rdma_sq_release(sm_rdma_qp *qp);
void sm_rdma_qp_fail(sm_rdma_qp *qp, uint8_t layer, uint8_t etype, uint8_t ecode, int remote,
                     uint32_t bad_mn, bool have_mn);
sm_rdma_rwr *sm_rdma_rq_at(sm_rdma_qp *qp, uint32_t idx);
sm_rdma_swr *sm_rdma_sq_at(sm_rdma_qp *qp, uint32_t idx);
void sm_rdma_rq_complete_head(sm_rdma_qp *qp, uint32_t byte_len, uint8_t flags, uint32_t inv);

#endif
