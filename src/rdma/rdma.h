/* rdma.h — public interface of the RDMA layer ("sm_rdma"): an iWARP-style Direct Data Placement
 * (DDP) and RDMA Protocol (RDMAP) implementation over any reliable message transport whose
 * messages may arrive in any order (several SCTP streams, unordered delivery, or TCP with our
 * own framing).  Sans-IO: no sockets, no threads, no clock.  The caller hands received segments
 * to sm_rdma_qp_input() and receives outgoing segments through the output callback given at
 * queue pair creation.  No MPI knowledge.  Wire format and RFC coverage: docs/rdma.md.
 *
 * Conventions
 *  - Functions returning int return 0 (or a count >= 0) on success, a negative SM_RDMA_E* code
 *    on failure.  No segment content can make the layer touch memory outside a registered
 *    region with the right access, crash or loop.
 *  - Tagged offsets are zero-based: offset 0 is the first byte of the registered region.
 *  - The output callback runs synchronously inside sm_rdma_post_send() and sm_rdma_qp_input()
 *    (an RDMA Read Request is answered from inside input, without the application).  It must
 *    copy or send the bytes before returning and must not call any sm_rdma_* function on the
 *    same queue pair (its segment buffer is in use). */
#ifndef SM_RDMA_H
#define SM_RDMA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- error codes (negative returns) ---- */
enum sm_rdma_err {
    SM_RDMA_OK = 0,
    SM_RDMA_EINVAL = -1,  /* bad argument */
    SM_RDMA_ENOMEM = -2,  /* allocation failed or a table is full */
    SM_RDMA_ESTAG = -3,   /* STag unknown, wrong key or invalidated */
    SM_RDMA_EBOUNDS = -4, /* offset + length outside the region */
    SM_RDMA_EACCESS = -5, /* region lacks the needed access right */
    SM_RDMA_EWRAP = -6,   /* offset + length overflows 64 bits */
    SM_RDMA_ESTATE = -7,  /* queue pair is in the error state */
    SM_RDMA_EPROTO = -8,  /* malformed segment (a Terminate was sent) */
    SM_RDMA_ETOOBIG = -9, /* message longer than the protocol allows */
    SM_RDMA_ENOINV = -10  /* the region may not be invalidated by the peer */
};

/* ---- memory registration (stag.c) ---- */
enum sm_rdma_access {
    SM_RDMA_LOCAL_READ = 1u << 0,       /* source of local gathers (Send, Write, Read Response) */
    SM_RDMA_LOCAL_WRITE = 1u << 1,      /* target of receives, Read sinks, atomic results */
    SM_RDMA_REMOTE_READ = 1u << 2,      /* the peer may RDMA Read it */
    SM_RDMA_REMOTE_WRITE = 1u << 3,     /* the peer may RDMA Write it */
    SM_RDMA_REMOTE_ATOMIC = 1u << 4,    /* the peer may apply atomic operations to it */
    SM_RDMA_REMOTE_INVALIDATE = 1u << 5 /* the peer may invalidate it (Send with Invalidate) */
};

typedef struct sm_rdma_pd sm_rdma_pd; /* protection domain: the table of registered regions */

/* A domain holding at most max_regions regions (STag index is 24 bits). */
sm_rdma_pd *sm_rdma_pd_new(uint32_t max_regions);
void sm_rdma_pd_free(sm_rdma_pd *pd);
/* Register [addr, addr+len) with the given rights; *stag receives index << 8 | key.  A slot
 * reused after deregistration gets a new key, so stale STags are refused. */
int sm_rdma_reg(sm_rdma_pd *pd, void *addr, size_t len, unsigned access, uint32_t *stag);
int sm_rdma_dereg(sm_rdma_pd *pd, uint32_t stag);
/* Local invalidation: the STag stays allocated but every access fails until re-validated. */
int sm_rdma_invalidate(sm_rdma_pd *pd, uint32_t stag);
/* Make an invalidated region valid again under a new key; *stag receives the new STag. */
int sm_rdma_revalidate(sm_rdma_pd *pd, uint32_t old_stag, uint32_t *stag);
/* Validate an access and return the address of offset `to`: STag, key, validity, rights (all
 * bits of `need`), bounds and 64-bit wrap.  len may be 0. */
int sm_rdma_resolve(const sm_rdma_pd *pd, uint32_t stag, uint64_t to, uint64_t len, unsigned need,
                    uint8_t **addr);

/* ---- completion queues (cq.c) ---- */
enum sm_rdma_wc_opcode {
    SM_RDMA_WC_SEND,
    SM_RDMA_WC_WRITE,
    SM_RDMA_WC_READ,
    SM_RDMA_WC_RECV,
    SM_RDMA_WC_FETCH_ADD,
    SM_RDMA_WC_CMP_SWAP
};
enum sm_rdma_wc_status {
    SM_RDMA_WC_SUCCESS = 0,
    SM_RDMA_WC_LOC_PROT_ERR,   /* a local SGE failed validation */
    SM_RDMA_WC_LOC_LEN_ERR,    /* received message longer than the posted buffer */
    SM_RDMA_WC_REM_ACCESS_ERR, /* the peer refused: STag, bounds or rights (Terminate) */
    SM_RDMA_WC_REM_OP_ERR,     /* the peer refused: no buffer, too long, bad opcode (Terminate) */
    SM_RDMA_WC_FLUSH_ERR       /* the queue pair entered the error state before completion */
};
enum sm_rdma_wc_flags {
    SM_RDMA_WC_SOLICITED = 1u << 0,  /* Send with Solicited Event */
    SM_RDMA_WC_INVALIDATED = 1u << 1 /* Send with Invalidate: invalidated_stag was invalidated */
};
typedef struct sm_rdma_wc {
    uint64_t wr_id;
    uint32_t qp_num;
    uint8_t opcode; /* enum sm_rdma_wc_opcode */
    uint8_t status; /* enum sm_rdma_wc_status */
    uint8_t flags;  /* enum sm_rdma_wc_flags */
    uint32_t byte_len;
    uint32_t invalidated_stag;
} sm_rdma_wc;

typedef struct sm_rdma_cq sm_rdma_cq;
sm_rdma_cq *sm_rdma_cq_new(uint32_t depth);
void sm_rdma_cq_free(sm_rdma_cq *cq);
/* Move up to max completions into wc[]; returns how many. */
int sm_rdma_cq_poll(sm_rdma_cq *cq, sm_rdma_wc *wc, int max);
/* Completions lost because the queue was full (0 if it never overflowed). */
uint64_t sm_rdma_cq_overflow(const sm_rdma_cq *cq);
/* Number of solicited-event completions queued so far (a notification counter). */
uint64_t sm_rdma_cq_solicited(const sm_rdma_cq *cq);

/* ---- queue pairs (qp.c, rdmap.c) ---- */
typedef struct sm_rdma_sge {
    uint32_t stag; /* local region */
    uint64_t to;   /* offset in it */
    uint32_t len;
} sm_rdma_sge;

enum sm_rdma_wr_opcode {
    SM_RDMA_WR_SEND,
    SM_RDMA_WR_SEND_INV,
    SM_RDMA_WR_WRITE,
    SM_RDMA_WR_READ,
    SM_RDMA_WR_FETCH_ADD,
    SM_RDMA_WR_CMP_SWAP
};
enum sm_rdma_wr_flags {
    SM_RDMA_WR_SOLICITED = 1u << 0, /* Send: the peer's completion carries SM_RDMA_WC_SOLICITED */
    SM_RDMA_WR_FENCE = 1u << 1      /* emit only after every earlier Read and atomic completed */
};

typedef struct sm_rdma_send_wr {
    uint64_t wr_id;
    uint8_t opcode;         /* enum sm_rdma_wr_opcode */
    uint8_t flags;          /* enum sm_rdma_wr_flags */
    const sm_rdma_sge *sgl; /* local data: gather list (Send/Write), the single sink (Read),
                                 one 8-byte result buffer (atomics) */
    int nsge;
    uint32_t remote_stag; /* Write, Read, atomics */
    uint64_t remote_to;
    uint32_t invalidate_stag; /* Send with Invalidate: the peer's STag to invalidate */
    uint64_t add_or_swap;     /* Fetch-and-Add: addend; Compare-and-Swap: new value */
    uint64_t compare;         /* Compare-and-Swap: expected value */
} sm_rdma_send_wr;

/* Output callback: one outgoing segment.  lane is a hint in [0, lanes): the segments of one
 * message may ride different lanes (SCTP streams) and arrive in any order. */
typedef void (*sm_rdma_output_fn)(void *ctx, const uint8_t *seg, size_t len, unsigned lane);
/* Optional gathering output: the same segment as pieces, iov[0] the header and the others
 * payload read in place from registered memory (RDMA Write and Read Response data is then
 * never copied into the segment buffer).  Same rules as output: the bytes must be copied or
 * sent before it returns.  When set it is used whenever the payload can be named in place. */
typedef void (*sm_rdma_outputv_fn)(void *ctx, const struct iovec *iov, int iovcnt, size_t len,
                                   unsigned lane);

typedef struct sm_rdma_qp_attr {
    sm_rdma_pd *pd;
    sm_rdma_cq *send_cq; /* may be shared with other queue pairs and with recv_cq */
    sm_rdma_cq *recv_cq;
    uint32_t qp_num;      /* reported in work completions */
    uint32_t max_segment; /* maximum upper-layer PDU: header + payload bytes, >= 64 */
    unsigned lanes;       /* >= 1 */
    uint32_t max_send_wr, max_recv_wr;
    uint32_t max_inflight_msgs; /* incoming messages tracked at once (0 = 65536) */
    sm_rdma_output_fn output;
    sm_rdma_outputv_fn outputv; /* optional (NULL: every segment goes through output) */
    void *output_ctx;
} sm_rdma_qp_attr;

enum sm_rdma_qp_state { SM_RDMA_QPS_RTS, SM_RDMA_QPS_ERROR };

/* The error that moved a queue pair to the error state (RFC 5040 Terminate fields). */
typedef struct sm_rdma_term {
    uint8_t layer; /* SM_RDMA_LAYER_* */
    uint8_t etype;
    uint8_t ecode;
    uint8_t remote; /* 1: reported by the peer's Terminate; 0: detected here */
} sm_rdma_term;

/* Terminate layers, error types and codes (the RFC 5040 / 5041 registry values). */
enum {
    SM_RDMA_LAYER_RDMAP = 0x0,
    SM_RDMA_LAYER_DDP = 0x1,
    SM_RDMA_LAYER_LLP = 0x2,
    /* RDMAP error types */
    SM_RDMA_RDMAP_LOCAL_CATA = 0x0,
    SM_RDMA_RDMAP_REMOTE_PROT = 0x1,
    SM_RDMA_RDMAP_REMOTE_OP = 0x2,
    /* RDMAP remote protection codes */
    SM_RDMA_RP_INV_STAG = 0x00,
    SM_RDMA_RP_BOUNDS = 0x01,
    SM_RDMA_RP_ACCESS = 0x02,
    SM_RDMA_RP_NOT_ASSOC = 0x03,
    SM_RDMA_RP_TO_WRAP = 0x04,
    SM_RDMA_RP_NO_INV = 0x09,
    SM_RDMA_RP_UNSPEC = 0xff,
    /* RDMAP remote operation codes */
    SM_RDMA_RO_VERSION = 0x05,
    SM_RDMA_RO_OPCODE = 0x06,
    SM_RDMA_RO_CATA_STREAM = 0x07,
    SM_RDMA_RO_CATA_GLOBAL = 0x08,
    SM_RDMA_RO_NO_INV = 0x09,
    SM_RDMA_RO_UNSPEC = 0xff,
    /* DDP error types */
    SM_RDMA_DDP_LOCAL_CATA = 0x0,
    SM_RDMA_DDP_TAGGED = 0x1,
    SM_RDMA_DDP_UNTAGGED = 0x2,
    /* DDP tagged codes */
    SM_RDMA_DT_INV_STAG = 0x00,
    SM_RDMA_DT_BOUNDS = 0x01,
    SM_RDMA_DT_NOT_ASSOC = 0x02,
    SM_RDMA_DT_TO_WRAP = 0x03,
    SM_RDMA_DT_VERSION = 0x04,
    /* DDP untagged codes */
    SM_RDMA_DU_INV_QN = 0x01,
    SM_RDMA_DU_NO_BUF = 0x02,
    SM_RDMA_DU_MSN_RANGE = 0x03,
    SM_RDMA_DU_INV_MO = 0x04,
    SM_RDMA_DU_TOO_LONG = 0x05,
    SM_RDMA_DU_VERSION = 0x06
};

typedef struct sm_rdma_qp sm_rdma_qp;
sm_rdma_qp *sm_rdma_qp_new(const sm_rdma_qp_attr *attr);
void sm_rdma_qp_free(sm_rdma_qp *qp);
int sm_rdma_qp_state(const sm_rdma_qp *qp);
/* 0 and *t filled if the queue pair is in the error state; SM_RDMA_ESTATE otherwise. */
int sm_rdma_qp_error(const sm_rdma_qp *qp, sm_rdma_term *t);
/* Post a send-queue work request.  Its segments are emitted before this returns.  Send and
 * Write complete once emitted (the transport is reliable); Read and atomics complete when the
 * response has been placed.  Send-queue completions are reported in posting order. */
int sm_rdma_post_send(sm_rdma_qp *qp, const sm_rdma_send_wr *wr);
/* Post a receive buffer (scatter list over regions with SM_RDMA_LOCAL_WRITE).  Receives are
 * consumed in posting order: the n-th Send from the peer lands in the n-th receive. */
int sm_rdma_post_recv(sm_rdma_qp *qp, uint64_t wr_id, const sm_rdma_sge *sgl, int nsge);
/* Feed one received segment (any order, duplicates allowed).  Returns 0, or SM_RDMA_EPROTO /
 * SM_RDMA_ESTATE if the segment was refused (the queue pair is then in the error state and a
 * Terminate was emitted, unless the segment was itself a Terminate). */
int sm_rdma_qp_input(sm_rdma_qp *qp, const uint8_t *seg, size_t len);
/* Maximum payload bytes carried in one segment for this queue pair. */
uint32_t sm_rdma_qp_payload(const sm_rdma_qp *qp);

#ifdef __cplusplus
}
#endif
#endif
