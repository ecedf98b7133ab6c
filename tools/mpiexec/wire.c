/* wire.c — framing of the mpiexec <-> proxy messages (wire.h): a reader that cuts a byte
 * stream into messages, a non-blocking send queue, a blocking send, and string lists. */
#include "wire.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int grow(char **buf, size_t *cap, size_t need)
{
    if (need <= *cap)
        return 0;
    size_t c = *cap ? *cap : 4096;
    while (c < need)
        c *= 2;
    char *nb = realloc(*buf, c);
    if (!nb)
        return -1;
    *buf = nb;
    *cap = c;
    return 0;
}

long wire_read(struct wire_in *in, int fd)
{
    if (in->consumed) { /* drop the messages already handed out */
        memmove(in->buf, in->buf + in->consumed, in->len - in->consumed);
        in->len -= in->consumed;
        in->consumed = 0;
    }
    if (grow(&in->buf, &in->cap, in->len + 65536) < 0) {
        errno = ENOMEM;
        return -1;
    }
    ssize_t n = read(fd, in->buf + in->len, in->cap - in->len);
    if (n > 0)
        in->len += (size_t)n;
    return (long)n;
}

int wire_next(struct wire_in *in, struct wire_msg *msg)
{
    size_t avail = in->len - in->consumed;
    if (avail < 12)
        return 0;
    uint32_t h[3];
    memcpy(h, in->buf + in->consumed, sizeof h);
    msg->type = ntohl(h[0]);
    msg->rank = ntohl(h[1]);
    msg->len = ntohl(h[2]);
    if (msg->len > WIRE_PAYLOAD_MAX)
        return -1;
    if (avail < 12 + (size_t)msg->len)
        return 0;
    msg->payload = in->buf + in->consumed + 12;
    in->consumed += 12 + (size_t)msg->len;
    return 1;
}

void wire_in_free(struct wire_in *in)
{
    free(in->buf);
    memset(in, 0, sizeof *in);
}

int wire_queue(struct wire_out *out, uint32_t type, uint32_t rank, const void *payload,
               size_t len)
{
    if (len > WIRE_PAYLOAD_MAX)
        return -1;
    if (out->sent == out->len)
        out->sent = out->len = 0;
    if (grow(&out->buf, &out->cap, out->len + 12 + len) < 0)
        return -1;
    uint32_t h[3] = { htonl(type), htonl(rank), htonl((uint32_t)len) };
    memcpy(out->buf + out->len, h, sizeof h);
    if (len)
        memcpy(out->buf + out->len + 12, payload, len);
    out->len += 12 + len;
    return 0;
}

int wire_flush(struct wire_out *out, int fd)
{
    while (out->sent < out->len) {
        ssize_t n = write(fd, out->buf + out->sent, out->len - out->sent);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return 0;
            return -1;
        }
        out->sent += (size_t)n;
    }
    out->sent = out->len = 0;
    return 0;
}

void wire_out_free(struct wire_out *out)
{
    free(out->buf);
    memset(out, 0, sizeof *out);
}

static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int wire_send(int fd, uint32_t type, uint32_t rank, const void *payload, size_t len)
{
    uint32_t h[3] = { htonl(type), htonl(rank), htonl((uint32_t)len) };
    if (len > WIRE_PAYLOAD_MAX || write_all(fd, (const char *)h, sizeof h) < 0)
        return -1;
    return len ? write_all(fd, payload, len) : 0;
}

int strlist_add(struct strlist *l, const char *s)
{
    size_t n = strlen(s) + 1;
    if (grow(&l->buf, &l->cap, l->len + n) < 0)
        return -1;
    memcpy(l->buf + l->len, s, n);
    l->len += n;
    return 0;
}

int strlist_addf(struct strlist *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    int n = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (n < 0)
        return -1;
    int rc = strlist_add(l, s);
    free(s);
    return rc;
}

const char *strlist_next(const char *buf, size_t len, size_t *pos)
{
    if (*pos >= len)
        return NULL;
    const char *s = buf + *pos;
    const char *end = memchr(s, '\0', len - *pos);
    if (!end)
        return NULL; /* unterminated tail: ignored */
    *pos = (size_t)(end - buf) + 1;
    return s;
}
