/* timing.c — the engine's time accounting (timing.h): per message, stamps kept in the message
 * (struct sm_msg.t_us) or request (t_us), summed per run, and with sample:N every Nth event
 * kept in a small log printed with the sums.  One clock read per stamp; nothing when off. */
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "engine/timing.h"

int sm_timing_mode = 1;
static unsigned sample_every; /* sample:N */
static struct sm_timing_sums S;

enum { K_ORDER, K_UNEXP, K_RTS, K_RDATA, K_N };
static const char *const kind_name[K_N] = { "order-hold", "unexpected", "rts->cts", "cts->data" };
struct sample {
    int kind, peer, tag;
    uint32_t seq;
    uint64_t us;
};
#define NSAMPLES 32
static struct sample samples[NSAMPLES];
static uint64_t nsamples, nevents[K_N];

void sm_timing_init(void)
{
    const char *v = sm_env_str("SCTPMPI_TIMING", "sum");
    sm_timing_mode = 1;
    sample_every = 0;
    if (!strcmp(v, "off") || !strcmp(v, "0"))
        sm_timing_mode = 0;
    else if (!strncmp(v, "sample:", 7)) {
        char *end;
        long n = strtol(v + 7, &end, 10);
        if (n < 1 || *end)
            sm_die("SCTPMPI_TIMING=%s: expected off, sum or sample:N with N >= 1", v);
        sample_every = (unsigned)n;
    } else if (strcmp(v, "sum") && strcmp(v, "on") && strcmp(v, "1")) {
        sm_die("SCTPMPI_TIMING=%s: expected off, sum or sample:N with N >= 1", v);
    }
    memset(&S, 0, sizeof S);
    nsamples = 0;
    memset(nevents, 0, sizeof nevents);
}

static uint64_t now_us(void)
{
    return sm_now_ns() / 1000;
}

static void add(int kind, uint64_t *n, uint64_t *sum, uint64_t *max, uint64_t us, int peer,
                int tag, uint32_t seq)
{
    ++*n;
    *sum += us;
    if (us > *max)
        *max = us;
    if (sample_every && nevents[kind]++ % sample_every == 0)
        samples[nsamples++ % NSAMPLES] = (struct sample){ kind, peer, tag, seq, us };
}

static uint64_t since(uint64_t t)
{
    uint64_t n = now_us();
    return t && n > t ? n - t : 0;
}

void sm_timing_arrived(struct sm_msg *m)
{
    m->t_us = sm_timing_mode ? now_us() : 0;
}

void sm_timing_early_released(struct sm_msg *m)
{
    if (!sm_timing_mode)
        return;
    uint64_t d = since(m->t_us);
    add(K_ORDER, &S.order_n, &S.order_us, &S.order_max_us, d, m->src, m->tag, m->seq);
    m->t_us = now_us();
}

void sm_timing_early_taken(struct sm_msg *m)
{
    if (!sm_timing_mode)
        return;
    S.early_taken++;
    add(K_UNEXP, &S.unexp_n, &S.unexp_us, &S.unexp_max_us, since(m->t_us), m->src, m->tag,
        m->seq);
}

void sm_timing_unexpected_in(struct sm_msg *m)
{
    if (sm_timing_mode)
        m->t_us = now_us();
}

void sm_timing_unexpected_out(struct sm_msg *m)
{
    if (!sm_timing_mode)
        return;
    add(K_UNEXP, &S.unexp_n, &S.unexp_us, &S.unexp_max_us, since(m->t_us), m->src, m->tag,
        m->seq);
}

void sm_timing_rts_sent(struct sm_req *r)
{
    r->t_us = sm_timing_mode ? now_us() : 0;
}

void sm_timing_cts_in(struct sm_req *r)
{
    if (sm_timing_mode && r->t_us)
        add(K_RTS, &S.rts_n, &S.rts_us, &S.rts_max_us, since(r->t_us), r->wpeer, r->tag, r->seq);
}

void sm_timing_cts_sent(struct sm_req *r)
{
    r->t_us = sm_timing_mode ? now_us() : 0;
}

void sm_timing_rndv_done(struct sm_req *r)
{
    if (sm_timing_mode && r->t_us)
        add(K_RDATA, &S.rdata_n, &S.rdata_us, &S.rdata_max_us, since(r->t_us), r->wpeer,
            r->status.MPI_TAG, 0);
}

const struct sm_timing_sums *sm_timing_get(void)
{
    return &S;
}

static double ms(uint64_t us)
{
    return (double)us / 1000.0;
}

void sm_timing_print(FILE *f, int rank)
{
    if (!sm_timing_mode)
        return;
    fprintf(f,
            "sctpmpi[%d] where the time went (engine): order-hold %llu msgs %.3f ms (max "
            "%.3f), unexpected %llu msgs %.3f ms (max %.3f; %llu taken early), rts->cts %llu "
            "%.3f ms (max %.3f), cts->data %llu %.3f ms (max %.3f)\n",
            rank, (unsigned long long)S.order_n, ms(S.order_us), ms(S.order_max_us),
            (unsigned long long)S.unexp_n, ms(S.unexp_us), ms(S.unexp_max_us),
            (unsigned long long)S.early_taken, (unsigned long long)S.rts_n, ms(S.rts_us),
            ms(S.rts_max_us), (unsigned long long)S.rdata_n, ms(S.rdata_us), ms(S.rdata_max_us));
    uint64_t have = nsamples < NSAMPLES ? nsamples : NSAMPLES;
    for (uint64_t i = 0; i < have; i++) {
        const struct sample *s = &samples[(nsamples - have + i) % NSAMPLES];
        fprintf(f, "sctpmpi[%d] timing sample: %s peer %d tag %d seq %u: %.3f ms\n", rank,
                kind_name[s->kind], s->peer, s->tag, s->seq, ms(s->us));
    }
}
