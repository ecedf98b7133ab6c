/* hello.h — the first message on every new connection or stream of every transport: the
 * sender's rank, the job size and the job secret.  One check decides for all of them whether
 * the sender belongs to this job (the secret compared in constant time, util/secret.c); a
 * transport only frames the hello on its wire (TCP: 64 bytes on the stream; SCTP: one message
 * with its own PPID, struct sm_hello). */
#ifndef SCTPMPI_HELLO_H
#define SCTPMPI_HELLO_H

#include <stddef.h>
#include <stdint.h>

#define SM_HELLO_SECRET_MAX 128

/* the hello of the SCTP transports, one SCTP message */
struct sm_hello {
    uint32_t magic; /* the transport's hello PPID */
    int32_t rank, size;
    uint32_t streams; /* streams the sender opened (usrsctp; 0 otherwise) */
    char secret[SM_HELLO_SECRET_MAX];
};

void sm_hello_make(struct sm_hello *h, uint32_t magic, int rank, int size, uint32_t streams,
                   const char *secret);

/* The one admission rule: NULL when a hello naming (rank, size) with secret (NUL-terminated
 * within secret_max) may join this job: the secret is the job's, the job size is ours, the
 * rank is another rank of the job and, when expect >= 0, the rank this connection belongs to.
 * Otherwise the reason, for the log. */
const char *sm_hello_admit(int rank, int size, const char *secret, size_t secret_max, int my_rank,
                           int job_size, int expect, const char *job_secret);

/* an SCTP hello of len bytes: its layout and magic, then sm_hello_admit; *out gets it */
const char *sm_hello_check(const void *buf, size_t len, uint32_t magic, int my_rank, int job_size,
                           int expect, const char *job_secret, struct sm_hello *out);

#endif
