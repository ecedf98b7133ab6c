/* txq.c — queued frames of the transports: the copy-or-reference rule (txq.h). */
#include "transport/txq.h"

#include <stdlib.h>
#include <string.h>

struct sm_txq_item *sm_txq_item_new(const struct iovec *iov, int iovcnt, void *cookie,
                                    size_t copy_max)
{
    struct sm_txq_item *it = calloc(1, sizeof *it);
    if (!it)
        return NULL;
    size_t len = 0;
    for (int i = 0; i < iovcnt; i++)
        len += iov[i].iov_len;
    it->len = len;
    int copy = !cookie || len <= copy_max || iovcnt > SM_TXQ_IOV || iovcnt < 1 ||
               iov[0].iov_len > sizeof it->hdr;
    if (copy) {
        it->owned = malloc(len ? len : 1);
        if (!it->owned) {
            free(it);
            return NULL;
        }
        size_t off = 0;
        for (int i = 0; i < iovcnt; i++) {
            if (iov[i].iov_len)
                memcpy(it->owned + off, iov[i].iov_base, iov[i].iov_len);
            off += iov[i].iov_len;
        }
        it->iov[0].iov_base = it->owned;
        it->iov[0].iov_len = len;
        it->iovcnt = 1;
        return it;
    }
    memcpy(it->hdr, iov[0].iov_base, iov[0].iov_len);
    it->iov[0].iov_base = it->hdr;
    it->iov[0].iov_len = iov[0].iov_len;
    for (int i = 1; i < iovcnt; i++)
        it->iov[i] = iov[i];
    it->iovcnt = iovcnt;
    it->cookie = cookie;
    return it;
}

void sm_txq_item_free(struct sm_txq_item *it)
{
    if (it) {
        free(it->owned);
        free(it);
    }
}
