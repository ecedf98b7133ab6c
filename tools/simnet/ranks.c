/* ranks.c — the simulator's side of the protocol with the ranks (src/transport/sim/
 * sim_proto.h): reading their messages, turning them into events in virtual time, and
 * answering their progress calls with the frames delivered by then and their new virtual
 * time (conservative synchronisation, docs/simulation.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "simnet.h"

static int write_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

static void send_msg(struct sn_sim *s, struct sn_rank *k, const struct sim_msg *m,
                     const void *data)
{
    struct iovec iov[2] = { { (void *)m, sizeof *m }, { (void *)data, m->len } };
    if (k->fd >= 0 && write_all(k->fd, iov, m->len ? 2 : 1) < 0) {
        fprintf(stderr, "simnet: rank %d: write: %s\n", k->rank, strerror(errno));
        s->failed = 1;
    }
}

/* answer a progress call at virtual time now: the frames delivered so far, then WAKE */
static void reply(struct sn_sim *s, struct sn_rank *k)
{
    int64_t count = 0;
    while (k->dh) {
        struct sn_frame *f = k->dh;
        k->dh = f->next;
        uint32_t type = f->failed == 2 ? SIM_SENT : f->failed == 1 ? SIM_FAILED : SIM_DELIVER;
        struct sim_msg m = { type, f->len, f->peer, f->lane, s->now, f->token };
        send_msg(s, k, &m, f->data);
        free(f);
        count++;
        k->frames_out++;
    }
    k->dt = NULL;
    k->ndelivered = 0;
    struct sim_msg w = { SIM_WAKE, 0, -1, 0, s->now, count };
    send_msg(s, k, &w, NULL);
    k->state = SN_RUN;
    k->vt = s->now;
    struct sn_key key = { k->vt, 1, (uint32_t)k->rank, k->next_seq };
    if (!s->woken || sn_key_less(&key, &s->woken_key))
        s->woken_key = key;
    s->woken = 1;
}

void sn_rank_delivered(struct sn_sim *s, int r, struct sn_frame *f)
{
    struct sn_rank *k = &s->ranks[r];
    if (k->state == SN_DONE) {
        free(f);
        return;
    }
    s->last_activity = s->now;
    f->next = NULL;
    if (k->dt)
        k->dt->next = f;
    else
        k->dh = f;
    k->dt = f;
    if (k->ndelivered++ == 0 && k->state == SN_BLOCKED && !k->batch_open)
        s->wake[s->nwake++] = r;
}

void sn_rank_check(struct sn_sim *s, int r, int64_t timeout_ns)
{
    struct sn_rank *k = &s->ranks[r];
    if (k->state == SN_DONE) /* its connection ended while the check was queued */
        return;
    if (k->dh || timeout_ns == 0) {
        reply(s, k);
        return;
    }
    k->state = SN_BLOCKED;
    k->blocked_at = s->now;
    k->wake_gen++;
    if (timeout_ns > 0) {
        struct sn_ev e = { { s->now + (uint64_t)timeout_ns, 2, (uint32_t)r, k->next_seq++ },
                           EV_WAKE,
                           r,
                           k->wake_gen,
                           0,
                           NULL };
        sn_push(s, &e);
    }
}

/* a blocked rank's deadline passed, or a frame arrived for it */
void sn_rank_wake(struct sn_sim *s, int r)
{
    struct sn_rank *k = &s->ranks[r];
    if (k->state == SN_BLOCKED)
        reply(s, k);
}
