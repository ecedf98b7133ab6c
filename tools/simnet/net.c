/* net.c — the simulated network: one sctpn endpoint per rank, configured as the native SCTP
 * transport (src/transport/sctpn/) configures its own (same SCTPMPI_SCTP_* variables and
 * defaults), one association per pair of ranks, lane L = stream L; the packets the endpoints
 * emit pass through netlab's link model (topology links, rails, NICs, scheduled events) and
 * arrive after their modelled delay; complete messages become frames delivered to the rank. */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pcap.h"
#include "simnet.h"

static long long env_int(const char *name, long long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoll(v, NULL, 0) : dflt;
}

static int env_bool(const char *name, int dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    return !(!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") ||
             !strcasecmp(v, "false"));
}

static size_t env_size(const char *name, size_t dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    char *end;
    double x = strtod(v, &end);
    if (*end == 'k' || *end == 'K')
        x *= 1024;
    else if (*end == 'm' || *end == 'M')
        x *= 1024 * 1024;
    else if (*end == 'g' || *end == 'G')
        x *= 1024.0 * 1024 * 1024;
    return (size_t)x;
}

static struct sctpn_addr rank_addr(const struct sn_sim *s, int r, int rail)
{
    struct sctpn_addr a;
    int h = s->ranks[r].host;
    a.ipv4 = htonl((198u << 24) | (18u << 16) | ((uint32_t)rail << 8) | (uint32_t)(h + 1));
    a.udp_port = (uint16_t)(SN_PORT_BASE + r);
    return a;
}

void sn_push(struct sn_sim *s, struct sn_ev *e)
{
    if (e->k.t < s->now)
        e->k.t = s->now;
    if (sn_heap_push(&s->heap, e)) {
        fprintf(stderr, "simnet: out of memory\n");
        exit(1);
    }
}

/* ---- assoc id -> peer rank ---- */
static void amap_put(struct sn_rank *k, sctpn_assoc_id id, int peer)
{
    if (2 * (k->amap_n + 1) > k->amap_cap) {
        size_t nc = k->amap_cap ? 2 * k->amap_cap : 16;
        sctpn_assoc_id *ni = calloc(nc, sizeof *ni);
        int *nr = calloc(nc, sizeof *nr);
        if (!ni || !nr) {
            fprintf(stderr, "simnet: out of memory\n");
            exit(1);
        }
        for (size_t i = 0; i < k->amap_cap; i++)
            if (k->amap_id[i]) {
                size_t j = (k->amap_id[i] * 2654435761u) & (nc - 1);
                while (ni[j])
                    j = (j + 1) & (nc - 1);
                ni[j] = k->amap_id[i];
                nr[j] = k->amap_rank[i];
            }
        free(k->amap_id);
        free(k->amap_rank);
        k->amap_id = ni;
        k->amap_rank = nr;
        k->amap_cap = nc;
    }
    size_t j = (id * 2654435761u) & (k->amap_cap - 1);
    while (k->amap_id[j] && k->amap_id[j] != id)
        j = (j + 1) & (k->amap_cap - 1);
    if (!k->amap_id[j])
        k->amap_n++;
    k->amap_id[j] = id;
    k->amap_rank[j] = peer;
}

static int amap_get(const struct sn_rank *k, sctpn_assoc_id id)
{
    if (!k->amap_cap)
        return -1;
    size_t j = (id * 2654435761u) & (k->amap_cap - 1);
    while (k->amap_id[j]) {
        if (k->amap_id[j] == id)
            return k->amap_rank[j];
        j = (j + 1) & (k->amap_cap - 1);
    }
    return -1;
}

struct cb_ctx {
    struct sn_sim *s;
    int rank;
};
static struct cb_ctx *cbs;

static void on_data(void *user, const struct sctpn_data *d)
{
    struct cb_ctx *c = user;
    struct sn_sim *s = c->s;
    struct sn_rank *k = &s->ranks[c->rank];
    int peer = amap_get(k, d->assoc);
    if (peer < 0)
        return;
    if (d->first && d->last) {
        struct sn_frame *f = malloc(sizeof *f + d->len);
        if (!f)
            exit(1);
        memset(f, 0, sizeof *f);
        f->peer = peer;
        f->lane = d->stream;
        f->len = (uint32_t)d->len;
        memcpy(f->data, d->data, d->len);
        sn_rank_delivered(s, c->rank, f);
        return;
    }
    size_t i = 0;
    while (i < k->nrx && !(k->rx[i].assoc == d->assoc && k->rx[i].stream == d->stream))
        i++;
    if (i == k->nrx) {
        if (!d->first)
            return;
        if (k->nrx == k->caprx) {
            k->caprx = k->caprx ? 2 * k->caprx : 8;
            k->rx = realloc(k->rx, k->caprx * sizeof *k->rx);
            if (!k->rx)
                exit(1);
        }
        k->rx[k->nrx++] = (struct sn_rx){ d->assoc, d->stream, NULL, 0, 0 };
    }
    struct sn_rx *x = &k->rx[i];
    if (x->len + d->len > x->cap) {
        x->cap = (x->len + d->len) * 2;
        x->buf = realloc(x->buf, x->cap);
        if (!x->buf)
            exit(1);
    }
    memcpy(x->buf + x->len, d->data, d->len);
    x->len += d->len;
    if (!d->last)
        return;
    struct sn_frame *f = malloc(sizeof *f + x->len);
    if (!f)
        exit(1);
    memset(f, 0, sizeof *f);
    f->peer = peer;
    f->lane = d->stream;
    f->len = (uint32_t)x->len;
    memcpy(f->data, x->buf, x->len);
    free(x->buf);
    k->rx[i] = k->rx[--k->nrx];
    sn_rank_delivered(s, c->rank, f);
}

/* tell rank r that the frame with this token is no longer referenced */
static void sent(struct sn_sim *s, int r, int peer, int64_t token)
{
    struct sn_frame *f = calloc(1, sizeof *f);
    if (!f)
        exit(1);
    f->peer = peer;
    f->failed = 2;
    f->token = token;
    sn_rank_delivered(s, r, f);
}

static void on_event(void *user, const struct sctpn_event *ev)
{
    struct cb_ctx *c = user;
    struct sn_sim *s = c->s;
    struct sn_rank *k = &s->ranks[c->rank];
    if (ev->type == SCTPN_EV_ASSOC_UP) {
        int peer = (int)ev->addr.udp_port - SN_PORT_BASE;
        if (peer >= 0 && peer < s->n && amap_get(k, ev->assoc) < 0)
            amap_put(k, ev->assoc, peer);
    } else if (ev->type == SCTPN_EV_SEND_DONE || ev->type == SCTPN_EV_SEND_FAILED) {
        if (ev->cookie)
            sent(s, c->rank, amap_get(k, ev->assoc), (int64_t)(uintptr_t)ev->cookie);
    } else if (ev->type == SCTPN_EV_ASSOC_DOWN) {
        int peer = amap_get(k, ev->assoc);
        if (peer >= 0 && k->tx[peer] == ev->assoc && ev->reason != SCTPN_DOWN_SHUTDOWN) {
            k->tx[peer] = 0;
            struct sn_frame *f = calloc(1, sizeof *f);
            if (!f)
                exit(1);
            f->peer = peer;
            f->failed = 1;
            sn_rank_delivered(s, c->rank, f);
        }
    }
}

/* the endpoint configuration of transport/sctpn (sctpn_transport.c nt_tunables_load and
 * nt_init), read from the same variables with the same defaults */
static int engine_config(struct sn_sim *s)
{
    struct sctpn_config *cfg = &s->base;
    sctpn_config_defaults(cfg);
    int streams = (int)env_int("SCTPMPI_SCTP_STREAMS", 10);
    if (streams < 1 || streams > 255 - 1)
        streams = 10;
    int rma = (int)env_int("SCTPMPI_SCTP_RMA_STREAMS", 2);
    if (rma < 1)
        rma = 1;
    if (streams + rma > 255)
        rma = 255 - streams;
    size_t sndbuf = env_size("SCTPMPI_SOCKBUF", 4 << 20);
    if (sndbuf < (64 << 10))
        sndbuf = 64 << 10;
    size_t rwnd = env_size("SCTPMPI_SCTP_RWND", 4 << 20);
    size_t mp = env_size("SCTPMPI_SCTP_MAX_PAYLOAD", 0);
    const size_t hdr = 32; /* sizeof(struct sm_frame_hdr) */
    if (!mp)
        mp = (256u << 10) + hdr;
    if (mp > sndbuf / 4)
        mp = sndbuf / 4;
    if (mp < 4096 + hdr)
        mp = 4096 + hdr;
    s->max_payload = mp - hdr;
    s->nstreams = streams <= 1 ? 1 : streams + 1 + rma;
    s->p2p_lanes = streams <= 1 ? 1 : streams + 1;
    s->rma_lanes = streams <= 1 ? 1 : rma;
    int rto_i = 300, rto_lo = 30, rto_hi = 5000, hb = 30000, pmr = 5;
    const char *fo = getenv("SCTPMPI_SCTP_FAILOVER");
    if (fo && !strcasecmp(fo, "wan"))
        rto_i = 3000, rto_lo = 1000, rto_hi = 60000, hb = 30000, pmr = 5;
    else if (fo && !strcasecmp(fo, "lan"))
        rto_i = 100, rto_lo = 20, rto_hi = 100, hb = 50, pmr = 2;
    long long rto_min = env_int("SCTPMPI_SCTP_RTO_MIN", rto_lo);
    long long rto_max = env_int("SCTPMPI_SCTP_RTO_MAX", rto_hi);
    if (rto_min < 1)
        rto_min = 1;
    if (rto_max < rto_min)
        rto_max = rto_min;
    long long hbi = env_int("SCTPMPI_SCTP_HB_INTERVAL", hb);
    long long pm = env_int("SCTPMPI_SCTP_PATH_MAX_RETRANS", pmr);
    long long pf = env_int("SCTPMPI_SCTP_PF_THRESHOLD", -1);
    long long burst = env_int("SCTPMPI_SCTP_MAX_BURST", 0);
    const char *cmt = getenv("SCTPMPI_SCTP_CMT");
    const char *cc = getenv("SCTPMPI_SCTP_CC");
    uint32_t mtu = 0;
    for (int r = 0; r < s->topo.nrails; r++)
        if (!mtu || s->topo.rail_mtu[r] < mtu)
            mtu = s->topo.rail_mtu[r];
    long long mtu_env = env_int("SCTPMPI_SCTP_MTU", 0);
    cfg->sctp_port = SN_SCTP_PORT;
    cfg->num_ostreams = (uint16_t)s->nstreams;
    cfg->max_instreams = 256;
    cfg->rwnd = (uint32_t)rwnd;
    cfg->sndbuf = (uint32_t)sndbuf;
    cfg->max_msg_size = (uint32_t)(mp + 4096);
    cfg->mtu = (uint16_t)(mtu_env > 0 ? mtu_env : mtu > 28 ? mtu - 28 : 1472);
    cfg->rto_initial_us = (uint64_t)env_int("SCTPMPI_SCTP_RTO_INITIAL", rto_i) * 1000;
    cfg->rto_min_us = (uint64_t)rto_min * 1000;
    cfg->rto_max_us = (uint64_t)rto_max * 1000;
    cfg->hb_interval_us = (uint64_t)(hbi > 0 ? hbi : 0) * 1000;
    cfg->sack_delay_us = (uint64_t)env_int("SCTPMPI_SCTP_SACK_DELAY", 10) * 1000;
    cfg->max_burst = burst > 0 ? (uint16_t)burst : UINT16_MAX;
    cfg->path_max_retrans = (uint16_t)pm;
    cfg->assoc_max_retrans = (uint16_t)env_int("SCTPMPI_SCTP_ASSOC_MAX_RETRANS", 10);
    cfg->pf_threshold = pf >= 0 ? (uint16_t)pf : (uint16_t)pm;
    cfg->idata = (uint8_t)env_bool("SCTPMPI_SCTP_INTERLEAVE", 0);
    cfg->cmt = cmt && (!strcasecmp(cmt, "on") || !strcmp(cmt, "1") || !strcasecmp(cmt, "dac"));
    cfg->cmt_dac = cmt && !strcasecmp(cmt, "dac");
    cfg->zero_checksum = 0; /* the hosts are not on loopback */
    cfg->tlp = (uint8_t)env_bool("SCTPMPI_SCTP_TLP", 1);
    cfg->rack = (uint8_t)env_bool("SCTPMPI_SCTP_RACK", 1);
    cfg->handshake_rtt = (uint8_t)env_bool("SCTPMPI_SCTP_HANDSHAKE_RTT", 1);
    long long iw = env_int("SCTPMPI_SCTP_INIT_CWND", 10);
    cfg->init_cwnd_packets = (uint16_t)(iw < 0 ? 0 : iw > 1000 ? 1000 : iw);
    long long abc = env_int("SCTPMPI_SCTP_ABC_L", 2);
    cfg->abc_l = (uint16_t)(abc < 1 ? 1 : abc > 16 ? 16 : abc);
    cfg->ss_peak = (uint8_t)env_bool("SCTPMPI_SCTP_SS_PEAK", 1);
    long long idle_ms = env_int("SCTPMPI_SCTP_IDLE_CWND_MS", 1000);
    cfg->idle_decay_min_us = idle_ms > 0 ? (uint64_t)idle_ms * 1000 : 0;
    if (!cc || !*cc || !strcasecmp(cc, "reno"))
        cfg->cc = SCTPN_CC_RENO;
    else if (!strcasecmp(cc, "cubic"))
        cfg->cc = SCTPN_CC_CUBIC;
    else if (!strcasecmp(cc, "bbr"))
        cfg->cc = SCTPN_CC_BBR;
    else {
        fprintf(stderr, "simnet: SCTPMPI_SCTP_CC=%s: expected reno, cubic or bbr\n", cc);
        return -1;
    }
    cfg->pace_quantum_us = 2000;
    s->sack_imm = env_bool("SCTPMPI_SCTP_SACK_IMMEDIATELY", 0);
    s->sack_imm_max = env_size("SCTPMPI_SCTP_SACK_IMMEDIATELY_MAX", 16 << 10);
    cfg->accept_incoming = 1;
    cfg->timing = 0;
    cfg->on_data = on_data;
    cfg->on_event = on_event;
    return 0;
}

int sn_net_init(struct sn_sim *s)
{
    if (engine_config(s))
        return -1;
    cbs = calloc((size_t)s->n, sizeof *cbs);
    if (!cbs)
        return -1;
    for (int r = 0; r < s->n; r++) {
        struct sn_rank *k = &s->ranks[r];
        struct sctpn_config cfg = s->base;
        cbs[r] = (struct cb_ctx){ s, r };
        cfg.user = &cbs[r];
        cfg.seed = s->topo.seed * 1000003u + (uint64_t)r + 1; /* deterministic vtags, TSNs */
        for (int i = 0; i < s->topo.nrails && i < SCTPN_MAX_PATHS; i++) {
            cfg.local_addrs[i] = rank_addr(s, r, i);
            cfg.n_local_addrs = i + 1;
        }
        k->ep = sctpn_endpoint_new(&cfg);
        k->tx = calloc((size_t)s->n, sizeof *k->tx);
        k->qh = calloc((size_t)s->n, sizeof *k->qh);
        k->qt = calloc((size_t)s->n, sizeof *k->qt);
        k->timer_at = SN_NEVER;
        if (!k->ep || !k->tx || !k->qh || !k->qt) {
            fprintf(stderr, "simnet: cannot create rank %d's SCTP endpoint\n", r);
            return -1;
        }
    }
    return 0;
}

void sn_net_free(struct sn_sim *s)
{
    for (int r = 0; r < s->n; r++) {
        struct sn_rank *k = &s->ranks[r];
        if (k->ep)
            sctpn_endpoint_free(k->ep);
        for (int p = 0; k->qh && p < s->n; p++)
            while (k->qh[p]) {
                struct sn_frame *f = k->qh[p];
                k->qh[p] = f->next;
                free(f);
            }
        for (size_t i = 0; i < k->nrx; i++)
            free(k->rx[i].buf);
        free(k->rx);
        free(k->tx);
        free(k->qh);
        free(k->qt);
        free(k->amap_id);
        free(k->amap_rank);
    }
    free(cbs);
}

/* after anything happened on rank r's endpoint: emit its packets, re-arm its timer */
static void flush(struct sn_sim *s, int r)
{
    struct sn_rank *k = &s->ranks[r];
    uint64_t now_us = s->now / 1000;
    uint8_t buf[65536];
    struct sctpn_addr from, to;
    int len;
    while ((len = sctpn_poll_transmit(k->ep, now_us, buf, sizeof buf, &from, &to)) > 0) {
        s->packets++;
        int dst = (int)to.udp_port - SN_PORT_BASE;
        uint32_t fip = ntohl(from.ipv4), tip = ntohl(to.ipv4);
        int rail = (int)((tip >> 8) & 0xff), dhost = (int)(tip & 0xff) - 1;
        if (dst < 0 || dst >= s->n || rail >= s->topo.nrails ||
            ((fip >> 8) & 0xff) != (uint32_t)rail || dhost != s->ranks[dst].host) {
            s->drops++;
            continue;
        }
        uint64_t rel = s->now + s->local_ns;
        if (dhost != k->host && nl_model_admit(&s->model, rail, k->host, dhost,
                                               (uint32_t)len + 28, s->now, &rel) != NL_PASS) {
            s->drops++;
            continue;
        }
        if (dhost != k->host)
            rel +=
                s->hop_ns; /* a forwarder's own per-packet latency (netlab's TUN hop), if asked */
        struct sn_pkt *p = malloc(sizeof *p + (size_t)len);
        if (!p)
            exit(1);
        p->from = from;
        p->to = to;
        p->dst = dst;
        p->rail = rail;
        p->src_host = k->host;
        p->dst_host = dhost;
        p->len = (uint32_t)len;
        memcpy(p->data, buf, (size_t)len);
        struct sn_ev e = { { rel, 0, 0, s->netseq++ }, EV_PKT, dst, 0, 0, p };
        sn_push(s, &e);
    }
    uint64_t d = sctpn_next_deadline(k->ep);
    uint64_t at = d == UINT64_MAX ? SN_NEVER : d * 1000;
    if (at != k->timer_at) {
        k->timer_at = at;
        k->timer_gen++;
        if (at != SN_NEVER) {
            struct sn_ev e = { { at, 0, 0, s->netseq++ }, EV_TIMER, r, k->timer_gen, 0, NULL };
            sn_push(s, &e);
        }
    }
}

/* hand frame f of rank k to its association: a frame with a token gets it as the cookie (the
 * engine only keeps and returns it; SEND_DONE becomes SENT to the rank) and the I-bit, as
 * transport/sctpn's zero-copy frames */
static int send_frame(struct sn_sim *s, struct sn_rank *k, struct sn_frame *f)
{
    struct iovec iov = { f->data, f->len };
    unsigned flags = SCTPN_SEND_COPY;
    if (f->token || (s->sack_imm && f->len <= s->sack_imm_max))
        flags |= SCTPN_SEND_SACK_IMMEDIATELY;
    return sctpn_send(k->ep, k->tx[f->peer], (uint16_t)f->lane, SN_PPID_FRAME, flags, &iov, 1,
                      f->token ? (void *)(uintptr_t)f->token : NULL);
}

/* frames waiting for send-buffer room, in order per peer */
static void retry_queued(struct sn_sim *s, int r)
{
    struct sn_rank *k = &s->ranks[r];
    for (int p = 0; k->nqueued && p < s->n; p++)
        while (k->qh[p]) {
            struct sn_frame *f = k->qh[p];
            int rc = send_frame(s, k, f);
            if (rc == SCTPN_EAGAIN)
                break;
            if (rc < 0 && f->token) /* never sent: the rank must not wait for it */
                sent(s, k->rank, f->peer, f->token);
            k->qh[p] = f->next;
            k->nqueued--;
            free(f);
        }
}

void sn_net_send(struct sn_sim *s, int r, struct sn_frame *f)
{
    struct sn_rank *k = &s->ranks[r];
    int p = f->peer;
    if (p < 0 || p >= s->n || p == r || f->lane >= (uint32_t)s->nstreams) {
        fprintf(stderr, "simnet: rank %d sent a frame to rank %d lane %u: dropped\n", r, p,
                f->lane);
        free(f);
        return;
    }
    uint64_t now_us = s->now / 1000;
    s->last_activity = s->now;
    if (!k->tx[p]) {
        struct sctpn_addr remote[SCTPN_MAX_PATHS], local[SCTPN_MAX_PATHS];
        int nr = s->topo.nrails < SCTPN_MAX_PATHS ? s->topo.nrails : SCTPN_MAX_PATHS;
        for (int i = 0; i < nr; i++) {
            remote[i] = rank_addr(s, p, i);
            local[i] = rank_addr(s, r, i);
        }
        sctpn_assoc_id id = 0;
        if (sctpn_connect(k->ep, SN_SCTP_PORT, remote, nr, local, nr, now_us, &id) < 0) {
            fprintf(stderr, "simnet: rank %d cannot associate with rank %d\n", r, p);
            free(f);
            return;
        }
        k->tx[p] = id;
        amap_put(k, id, p);
    }
    f->next = NULL;
    int rc = SCTPN_EAGAIN;
    if (k->qh[p] || (rc = send_frame(s, k, f)) == SCTPN_EAGAIN) {
        if (k->qh[p])
            k->qt[p]->next = f;
        else
            k->qh[p] = f;
        k->qt[p] = f;
        k->nqueued++;
    } else {
        if (rc < 0 && f->token)
            sent(s, r, p, f->token);
        free(f);
    }
    flush(s, r);
}

/* an IPv4 + UDP header in front of the SCTP packet, as it would be on the wire (pcap) */
static void capture(struct sn_sim *s, const struct sn_pkt *p)
{
    nl_link *l = &s->model.links[nl_link_index(&s->topo, p->rail, p->src_host, p->dst_host)];
    l->c.fwd_pkts++;
    l->c.fwd_bytes += p->len + 28;
    if (!l->pcap)
        return;
    uint8_t h[28] = { 0x45, 0 };
    uint32_t tot = p->len + 28;
    h[2] = (uint8_t)(tot >> 8);
    h[3] = (uint8_t)tot;
    h[8] = 64;
    h[9] = 17;
    memcpy(h + 12, &p->from.ipv4, 4);
    memcpy(h + 16, &p->to.ipv4, 4);
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
        sum += (uint32_t)(h[i] << 8 | h[i + 1]);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    h[10] = (uint8_t)(~sum >> 8);
    h[11] = (uint8_t)~sum;
    h[20] = (uint8_t)(p->from.udp_port >> 8);
    h[21] = (uint8_t)p->from.udp_port;
    h[22] = (uint8_t)(p->to.udp_port >> 8);
    h[23] = (uint8_t)p->to.udp_port;
    h[24] = (uint8_t)((p->len + 8) >> 8);
    h[25] = (uint8_t)(p->len + 8);
    uint8_t buf[65536 + 28];
    memcpy(buf, h, 28);
    memcpy(buf + 28, p->data, p->len);
    nl_pcap_write(l->pcap, s->now, buf, tot, s->model.pcap_snaplen);
}

void sn_net_packet(struct sn_sim *s, struct sn_pkt *p)
{
    struct sn_rank *k = &s->ranks[p->dst];
    if (p->src_host != p->dst_host) {
        nl_link *l = &s->model.links[nl_link_index(&s->topo, p->rail, p->src_host, p->dst_host)];
        if (!l->p.up) { /* the link went down while the packet was on it */
            l->c.drop_down++;
            s->drops++;
            free(p);
            return;
        }
        capture(s, p);
    }
    /* a rank asleep in the kernel (blocked longer than a real rank spins) wakes batch_ns later:
     * its stack takes in everything that arrived by then and answers once, and only then does
     * the rank see its frames */
    if (s->batch_ns && !k->batch_open && k->state == SN_BLOCKED &&
        s->now >= k->blocked_at + SN_SPIN_NS) {
        k->batch_open = 1;
        struct sn_ev e = {
            { s->now + s->batch_ns, 0, 1, s->netseq++ }, EV_BATCH, k->rank, 0, 0, NULL
        };
        sn_push(s, &e);
    }
    sctpn_input(k->ep, p->data, p->len, &p->from, &p->to, s->now / 1000);
    free(p);
    if (k->batch_open)
        return;
    retry_queued(s, k->rank);
    flush(s, k->rank);
}

void sn_net_batch_end(struct sn_sim *s, int r)
{
    struct sn_rank *k = &s->ranks[r];
    k->batch_open = 0;
    retry_queued(s, r);
    flush(s, r);
    if (k->ndelivered && k->state == SN_BLOCKED)
        s->wake[s->nwake++] = r;
}

void sn_net_timer(struct sn_sim *s, int r)
{
    struct sn_rank *k = &s->ranks[r];
    k->timer_at = SN_NEVER;
    sctpn_handle_timeout(k->ep, s->now / 1000);
    retry_queued(s, r);
    flush(s, r);
}

void sn_net_topo_event(struct sn_sim *s, int idx)
{
    char copy[1024], out[4096], *argv[64], *save = NULL;
    int argc = 0;
    snprintf(copy, sizeof copy, "%s", s->topo.events[idx].cmd);
    for (char *tok = strtok_r(copy, " \t", &save); tok && argc < 64;
         tok = strtok_r(NULL, " \t", &save))
        argv[argc++] = tok;
    if (argc && nl_model_command(&s->model, argc, argv, out, sizeof out))
        fprintf(stderr, "simnet: event '%s': %s", s->topo.events[idx].cmd, out);
}
