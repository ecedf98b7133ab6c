/* netlab: the link model (linkmodel.h) — the per-packet rules of a directed link and the link
 * commands.  Order of rules per packet (as Dummynet/netem): link state, MTU, loss (Bernoulli and
 * Gilbert-Elliott), drop-tail queue + serialisation at the sender's NIC, the link rate and the
 * receiver's NIC, then propagation delay and jitter. */
#include "linkmodel.h"

#include "pcap.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

uint64_t nl_rng_next(uint64_t *s)
{ /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double nl_rng_unit(uint64_t *s)
{
    return (double)(nl_rng_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int stage_resize(nl_stage *q, uint32_t want)
{
    if (want == q->qcap)
        return 0;
    free(q->qring);
    q->qring = NULL;
    q->qcap = q->qhead = q->qcount = 0;
    if (want) {
        q->qring = calloc(want, sizeof *q->qring);
        if (!q->qring)
            return -1;
        q->qcap = want;
    }
    return 0;
}

/* Serialise a packet of len bytes arriving at time at; returns its end of serialisation, or 0
 * if the drop-tail queue is full. */
static uint64_t stage_pass(nl_stage *q, double rate_mbit, uint64_t queue_bytes, uint64_t at,
                           uint32_t len)
{
    while (q->qcount && q->qring[q->qhead] <= at) {
        q->qhead = q->qhead + 1 == q->qcap ? 0 : q->qhead + 1;
        q->qcount--;
    }
    uint64_t backlog =
        q->busy_until > at ? (uint64_t)((double)(q->busy_until - at) * rate_mbit / 8000.0) : 0;
    if ((q->qcap && q->qcount >= q->qcap) || (queue_bytes && backlog + len > queue_bytes)) {
        q->drops++;
        return 0;
    }
    uint64_t start = q->busy_until > at ? q->busy_until : at;
    uint64_t done = start + (uint64_t)((double)len * 8000.0 / rate_mbit);
    q->busy_until = done;
    if (q->qcap) {
        uint32_t tail = q->qhead + q->qcount;
        if (tail >= q->qcap)
            tail -= q->qcap;
        q->qring[tail] = done;
        q->qcount++;
    }
    return done;
}

int nl_model_reconfigure(nl_model *m, size_t idx)
{
    nl_link *l = &m->links[idx];
    if (stage_resize(&l->st, l->p.rate_mbit > 0 ? l->p.queue_pkts : 0))
        return -1;
    if (!l->p.ge_on)
        l->ge_bad = 0;
    const nl_topo *t = m->t;
    size_t hh = (size_t)t->nhosts * (size_t)t->nhosts;
    int rail = (int)(idx / hh), src = (int)(idx % hh / (size_t)t->nhosts),
        dst = (int)(idx % (size_t)t->nhosts);
    if (l->p.pcap && !l->pcap && m->pcap_dir && src != dst) {
        char path[4096];
        snprintf(path, sizeof path, "%s/rail%d-%s-%s.pcap", m->pcap_dir, rail, t->hosts[src],
                 t->hosts[dst]);
        l->pcap = nl_pcap_open(path, m->pcap_snaplen);
        if (!l->pcap)
            fprintf(stderr, "netlab: cannot write %s: %s\n", path, strerror(errno));
    }
    return 0;
}

int nl_model_init(nl_model *m, const nl_topo *t, const char *pcap_dir, uint32_t snaplen)
{
    memset(m, 0, sizeof *m);
    m->t = t;
    m->pcap_dir = pcap_dir;
    m->pcap_snaplen = snaplen;
    m->rng = t->seed * 0x2545F4914F6CDD1Dull + 1;
    size_t ntun = (size_t)t->nrails * (size_t)t->nhosts, nl = ntun * (size_t)t->nhosts;
    m->links = calloc(nl, sizeof *m->links);
    m->egress = calloc(ntun, sizeof *m->egress);
    m->ingress = calloc(ntun, sizeof *m->ingress);
    if (!m->links || !m->egress || !m->ingress)
        return -1;
    for (size_t i = 0; i < nl; i++) {
        m->links[i].p = t->links[i];
        if (nl_model_reconfigure(m, i))
            return -1;
    }
    for (size_t i = 0; i < ntun; i++)
        if (t->nics[i].rate_mbit > 0 && (stage_resize(&m->egress[i], t->nics[i].queue_pkts) ||
                                         stage_resize(&m->ingress[i], t->nics[i].queue_pkts)))
            return -1;
    return 0;
}

void nl_model_free(nl_model *m)
{
    if (!m->t)
        return;
    size_t ntun = (size_t)m->t->nrails * (size_t)m->t->nhosts, nl = ntun * (size_t)m->t->nhosts;
    for (size_t i = 0; m->links && i < nl; i++) {
        free(m->links[i].st.qring);
        if (m->links[i].pcap)
            fclose(m->links[i].pcap);
    }
    for (size_t i = 0; i < ntun; i++) {
        if (m->egress)
            free(m->egress[i].qring);
        if (m->ingress)
            free(m->ingress[i].qring);
    }
    free(m->links);
    free(m->egress);
    free(m->ingress);
    memset(m, 0, sizeof *m);
}

int nl_model_admit(nl_model *m, int rail, int src, int dst, uint32_t len, uint64_t now,
                   uint64_t *release)
{
    const nl_topo *t = m->t;
    size_t li = nl_link_index(t, rail, src, dst);
    nl_link *l = &m->links[li];
    const nl_params *p = &l->p;
    if (!p->up) {
        l->c.drop_down++;
        return NL_DROP_DOWN;
    }
    uint32_t mtu = p->mtu ? p->mtu : t->rail_mtu[rail];
    if (len > mtu) {
        l->c.drop_mtu++;
        return NL_DROP_MTU;
    }
    int lost = p->loss > 0 && nl_rng_unit(&m->rng) < p->loss;
    if (p->ge_on) {
        double lp = l->ge_bad ? p->ge_loss_bad : p->ge_loss_good;
        if (lp > 0 && nl_rng_unit(&m->rng) < lp)
            lost = 1;
        double u = nl_rng_unit(&m->rng);
        if (l->ge_bad) {
            if (u < p->ge_r)
                l->ge_bad = 0;
        } else if (u < p->ge_p)
            l->ge_bad = 1;
    }
    if (lost) {
        l->c.drop_loss++;
        return NL_DROP_LOSS;
    }
    /* the sender's NIC, the link, the receiver's NIC (switch port): each a serialisation stage */
    uint64_t tx_done = now;
    size_t si = (size_t)rail * (size_t)t->nhosts, di = si + (size_t)dst;
    si += (size_t)src;
    const nl_nic *ne = &t->nics[si], *ni = &t->nics[di];
    if ((ne->rate_mbit > 0 &&
         !(tx_done = stage_pass(&m->egress[si], ne->rate_mbit, ne->queue_bytes, tx_done, len))) ||
        (p->rate_mbit > 0 &&
         !(tx_done = stage_pass(&l->st, p->rate_mbit, p->queue_bytes, tx_done, len))) ||
        (ni->rate_mbit > 0 && !(tx_done = stage_pass(&m->ingress[di], ni->rate_mbit,
                                                     ni->queue_bytes, tx_done, len)))) {
        l->c.drop_queue++;
        return NL_DROP_QUEUE;
    }
    double d = p->delay_ms;
    if (p->jitter_ms > 0)
        d += (2.0 * nl_rng_unit(&m->rng) - 1.0) * p->jitter_ms;
    uint64_t rel = tx_done + (d > 0 ? (uint64_t)(d * 1e6) : 0);
    if (!p->reorder) {
        if (rel < l->last_release)
            rel = l->last_release;
        l->last_release = rel;
    }
    *release = rel;
    return NL_PASS;
}

void nl_sb(nl_sbuf *b, const char *fmt, ...)
{
    if (b->len >= b->cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->buf + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
    if (b->len >= b->cap)
        b->len = b->cap - 1;
}

int nl_model_command(nl_model *m, int argc, char **argv, char *out, size_t outlen)
{
    nl_sbuf b = { out, outlen, 0 };
    out[0] = '\0';
    const nl_topo *t = m->t;
    int show = !strcmp(argv[0], "show");
    if (argc < 2 && !show) {
        nl_sb(&b, "error: usage: %s SELECTOR%s\n", argv[0],
              strcmp(argv[0], "set") ? "" : " key=value...");
        return -1;
    }
    nl_sel s;
    char err[160];
    if (nl_sel_parse(t, argc >= 2 ? argv[1] : "*", &s, err, sizeof err)) {
        nl_sb(&b, "error: %s\n", err);
        return -1;
    }
    /* Validate on a scratch copy first, so a bad key changes nothing. */
    nl_params scratch;
    nl_params_default(&scratch);
    for (int i = 2; i < argc && !strcmp(argv[0], "set"); i++) {
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            nl_sb(&b, "error: expected key=value, got '%s'\n", argv[i]);
            return -1;
        }
        *eq = '\0';
        int bad = nl_params_set(&scratch, argv[i], eq + 1, err, sizeof err);
        *eq = '=';
        if (bad) {
            nl_sb(&b, "error: %s\n", err);
            return -1;
        }
    }
    int count = 0;
    for (int r = 0; r < t->nrails; r++)
        for (int src = 0; src < t->nhosts; src++)
            for (int dst = 0; dst < t->nhosts; dst++) {
                if (src == dst || !nl_sel_match(&s, r, src, dst))
                    continue;
                size_t li = nl_link_index(t, r, src, dst);
                nl_params *p = &m->links[li].p;
                count++;
                if (show) {
                    char pb[512];
                    nl_params_format(p, pb, sizeof pb);
                    nl_sb(&b, "link rail=%d src=%s dst=%s %s\n", r, t->hosts[src], t->hosts[dst],
                          pb);
                    continue;
                }
                if (!strcmp(argv[0], "down"))
                    p->up = 0;
                else if (!strcmp(argv[0], "up"))
                    p->up = 1;
                else {
                    for (int pass = 0; pass < 2; pass++) /* ge_loss after ge_burst / ge_r */
                        for (int i = 2; i < argc; i++) {
                            char *eq = strchr(argv[i], '=');
                            *eq = '\0';
                            if ((pass == 1) == !strcmp(argv[i], "ge_loss"))
                                nl_params_set(p, argv[i], eq + 1, err, sizeof err);
                            *eq = '=';
                        }
                }
                if (nl_model_reconfigure(m, li)) {
                    nl_sb(&b, "error: out of memory\n");
                    return -1;
                }
            }
    if (!count) {
        nl_sb(&b, "error: selector '%s' matches no link\n", argv[1]);
        return -1;
    }
    if (!show)
        nl_sb(&b, "ok %d links\n", count);
    return 0;
}
