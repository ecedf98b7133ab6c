/* output_forward.c — forwards rank output.  Raw mode copies bytes unchanged (binary-safe);
 * prefix mode emits whole lines as "[rank] line", so lines of different ranks never mix. */
#include "output_forward.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Our stdout may be a closed pipe: SIGPIPE is ignored and the output dropped. */
static void write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return;
        }
        buf += n;
        len -= (size_t)n;
    }
}

static void write_prefixed_line(const struct output_stream *s, const char *line, size_t len)
{
    char prefix[32];
    int pl = snprintf(prefix, sizeof prefix, "[%d] ", s->rank);
    /* one write per line when it fits, so concurrent writers to a shared terminal stay whole */
    char stackbuf[4096];
    if ((size_t)pl + len <= sizeof stackbuf) {
        memcpy(stackbuf, prefix, (size_t)pl);
        memcpy(stackbuf + pl, line, len);
        write_all(s->target_fd, stackbuf, (size_t)pl + len);
    } else {
        write_all(s->target_fd, prefix, (size_t)pl);
        write_all(s->target_fd, line, len);
    }
}

void output_stream_init(struct output_stream *s, int fd, int target_fd, int rank, int prefix)
{
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->target_fd = target_fd;
    s->rank = rank;
    s->prefix = prefix;
}

static void hold_bytes(struct output_stream *s, const char *p, size_t n)
{
    if (s->len + n > s->cap) {
        size_t cap = s->cap ? s->cap : 256;
        while (cap < s->len + n)
            cap *= 2;
        char *nl = realloc(s->line, cap);
        if (!nl) { /* out of memory: forward what we have unprefixed rather than lose it */
            write_all(s->target_fd, s->line, s->len);
            write_all(s->target_fd, p, n);
            s->len = 0;
            return;
        }
        s->line = nl;
        s->cap = cap;
    }
    memcpy(s->line + s->len, p, n);
    s->len += n;
}

static void forward_prefixed(struct output_stream *s, const char *buf, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(buf, '\n', n);
        if (!nl) {
            hold_bytes(s, buf, n);
            return;
        }
        size_t part = (size_t)(nl - buf) + 1;
        if (s->len) {
            hold_bytes(s, buf, part);
            write_prefixed_line(s, s->line, s->len);
            s->len = 0;
        } else {
            write_prefixed_line(s, buf, part);
        }
        buf += part;
        n -= part;
    }
}

void output_stream_close(struct output_stream *s)
{
    if (s->len) {
        hold_bytes(s, "\n", 1);
        write_prefixed_line(s, s->line, s->len);
        s->len = 0;
    }
    free(s->line);
    s->line = NULL;
    s->cap = 0;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
}

int output_stream_pump(struct output_stream *s)
{
    char buf[65536];
    ssize_t n = read(s->fd, buf, sizeof buf);
    if (n < 0) {
        if (errno == EINTR || errno == EAGAIN)
            return 0;
        output_stream_close(s);
        return 1;
    }
    if (n == 0) {
        output_stream_close(s);
        return 1;
    }
    output_stream_feed(s, buf, (size_t)n);
    return 0;
}

void output_stream_feed(struct output_stream *s, const char *buf, size_t n)
{
    if (s->prefix)
        forward_prefixed(s, buf, n);
    else
        write_all(s->target_fd, buf, n);
}
