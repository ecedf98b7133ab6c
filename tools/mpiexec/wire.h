/* wire.h — the framed messages between mpiexec and its per-host proxies (sctpmpi_proxy),
 * carried over the launcher connection (ssh's stdin/stdout or a pipe): a 12-byte header
 * (type, rank, payload length, each a big-endian uint32) and the payload.  Lists of strings
 * (the set-up record, key/value pairs) are NUL-terminated strings one after the other. */
#ifndef MPIEXEC_WIRE_H
#define MPIEXEC_WIRE_H

#include <stddef.h>
#include <stdint.h>

#define WIRE_MAGIC "sctpmpi-proxy-1" /* first setup string: protocol version check */
#define WIRE_PAYLOAD_MAX (64u << 20)

enum wire_type {
    /* mpiexec -> proxy */
    W_SETUP = 1,  /* payload: "key=value" strings (see proxy.c) */
    W_KVS = 2,    /* fence done: every pair put since the last fence (key, value, ...) */
    W_SIGNAL = 3, /* rank field = signal number for every rank's process group */
    W_START = 4,  /* every proxy is ready: fork the ranks */
    W_STDIN = 5,  /* bytes of mpiexec's stdin for rank 0; an empty payload is EOF */
    /* proxy -> mpiexec */
    W_OUT = 10,      /* rank's stdout bytes */
    W_ERR = 11,      /* rank's stderr bytes */
    W_INIT = 12,     /* rank said PMI init */
    W_FENCE = 13,    /* every local rank entered the barrier; payload: the pairs put since */
    W_FINALIZE = 14, /* rank said PMI finalize */
    W_ABORT = 15,    /* rank called abort; payload: decimal exit code */
    W_EXIT = 16,     /* rank was reaped; payload: decimal wait status */
    W_DONE = 17,     /* every local rank reaped and its output sent: the proxy exits */
    W_READY = 18,    /* set-up applied; waiting for W_START */
};

struct wire_msg {
    uint32_t type, rank, len;
    char *payload; /* points into the reader's buffer; valid until the next wire_read_next */
};

/* Incoming byte stream, cut into messages. */
struct wire_in {
    char *buf;
    size_t len, cap, consumed;
};

/* Reads what fd has (one read).  Returns bytes read, 0 at EOF, -1 on error (EAGAIN: -1 with
 * errno set; the caller decides). */
long wire_read(struct wire_in *in, int fd);
/* Next complete message: 1 (msg filled), 0 (need more bytes), -1 (corrupt stream). */
int wire_next(struct wire_in *in, struct wire_msg *msg);
void wire_in_free(struct wire_in *in);

/* Outgoing queue (mpiexec's side never blocks on a proxy). */
struct wire_out {
    char *buf;
    size_t len, cap, sent;
};

/* Appends a message; -1 on out of memory. */
int wire_queue(struct wire_out *out, uint32_t type, uint32_t rank, const void *payload,
               size_t len);
/* Writes what the fd takes now (non-blocking fd).  Returns 0, or -1 if the peer is gone. */
int wire_flush(struct wire_out *out, int fd);
static inline int wire_pending(const struct wire_out *out)
{
    return out->sent < out->len;
}
void wire_out_free(struct wire_out *out);

/* Blocking send of one message (the proxy's side).  0 or -1 (peer gone). */
int wire_send(int fd, uint32_t type, uint32_t rank, const void *payload, size_t len);

/* A growable string list ("a\0b\0c\0"). */
struct strlist {
    char *buf;
    size_t len, cap;
};
int strlist_add(struct strlist *l, const char *s);
int strlist_addf(struct strlist *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Iterates: *pos starts at 0; returns the next string or NULL at the end. */
const char *strlist_next(const char *buf, size_t len, size_t *pos);

#endif
