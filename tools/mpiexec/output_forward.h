/* output_forward.h — copying a rank's stdout/stderr pipe to ours, raw or line-prefixed "[rank] ". */
#ifndef MPIEXEC_OUTPUT_FORWARD_H
#define MPIEXEC_OUTPUT_FORWARD_H

#include <stddef.h>

struct output_stream {
    int fd;        /* read end of the rank's pipe, -1 once at EOF */
    int target_fd; /* 1 or 2 */
    int rank;
    int prefix; /* 1: whole lines, each prefixed with "[rank] " */
    char *line; /* partial line held back while prefixing */
    size_t len, cap;
};

void output_stream_init(struct output_stream *s, int fd, int target_fd, int rank, int prefix);

/* Reads what is available (one read) and forwards it.  Returns 1 at EOF (the stream is then
 * flushed and closed), 0 otherwise. */
int output_stream_pump(struct output_stream *s);

/* Forwards bytes that arrived another way (a proxy's message) as if read from the pipe. */
void output_stream_feed(struct output_stream *s, const char *buf, size_t n);

/* Flushes a held partial line (with a newline added) and closes the pipe. */
void output_stream_close(struct output_stream *s);

#endif
