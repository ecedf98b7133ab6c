/* usct_stats.c — statistics (SCTPMPI_STATS=1) and peer_info(): per association (usrsctp
 * SCTP_STATUS: state, windows, primary path RTT/RTO/cwnd/MTU/state), per stream (messages and
 * bytes each way, counted by us), retransmitted DATA chunks per association (seen in our output
 * callback: a TSN sent twice), and usrsctp's process-wide counters (fast retransmits, T3
 * timeouts).  usrsctp 0.9.5 has no SCTP_GET_ASSOC_STATS, hence the TSN watch. */
#include <arpa/inet.h>
#include <string.h>

#include "transport/usrsctp/usct_internal.h"

void usct_stats_note_output(struct usct_peer *p, const unsigned char *pkt, size_t len)
{
    size_t off = 12;
    while (off + 8 <= len) {
        unsigned type = pkt[off];
        size_t clen = ((size_t)pkt[off + 2] << 8) | pkt[off + 3];
        if (clen < 4)
            break;
        if ((type == 0x00 || type == 0x40) && clen >= 8) { /* DATA / I-DATA: TSN at +4 */
            uint32_t tsn;
            if (type == 0x40)
                p->idata_chunks++;
            else
                p->data_chunks++;
            memcpy(&tsn, pkt + off + 4, 4);
            tsn = ntohl(tsn);
            if (p->tsn_valid && (int32_t)(tsn - p->highest_tsn) <= 0)
                p->retrans_chunks++;
            else {
                p->highest_tsn = tsn;
                p->tsn_valid = 1;
            }
        }
        off += (clen + 3) & ~(size_t)3;
    }
}

static const char *peer_state_name(enum usct_peer_state s)
{
    switch (s) {
    case SCTP_PEER_IDLE: return "idle";
    case SCTP_PEER_CONNECTING: return "connecting";
    case SCTP_PEER_UP: return "up";
    case SCTP_PEER_CLOSED: return "closed";
    case SCTP_PEER_FAILED: return "failed";
    }
    return "?";
}

static const char *path_state_name(int32_t s)
{
    if (s & SCTP_UNCONFIRMED)
        return "unconfirmed";
    if (s & SCTP_ACTIVE)
        return "active";
    if (s & SCTP_INACTIVE)
        return "inactive";
    return "?";
}

/* locked */
static int get_status(struct usct_transport *t, struct usct_peer *p, struct sctp_status *st)
{
    if (!t->sock || !p->assoc_id)
        return -1;
    memset(st, 0, sizeof *st);
    st->sstat_assoc_id = p->assoc_id;
    socklen_t len = sizeof *st;
    return usrsctp_opt_info(t->sock, p->assoc_id, SCTP_STATUS, st, &len);
}

int usct_stats_peer_info(struct sm_transport *handle, int peer, char *buf, size_t len)
{
    struct usct_transport *t = (struct usct_transport *)handle;
    if (peer < 0 || peer >= t->size || !t->peers) {
        snprintf(buf, len, "no such rank %d", peer);
        return -1;
    }
    struct usct_peer *p = &t->peers[peer];
    char ip[INET_ADDRSTRLEN] = "?";
    if (p->naddrs)
        inet_ntop(AF_INET, &p->addrs[0].sin_addr, ip, sizeof ip);
    struct sctp_status st;
    pthread_mutex_lock(&t->stack_lock);
    int have = get_status(t, p, &st) == 0;
    pthread_mutex_unlock(&t->stack_lock);
    int n = snprintf(buf, len, "sctp/udp %s:%u (%d address%s), association %u %s", ip,
                     p->naddrs ? ntohs(p->addrs[0].sin_port) : 0, p->naddrs,
                     p->naddrs == 1 ? "" : "es", p->assoc_id, peer_state_name(p->state));
    if (have && n >= 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, ", path %s srtt %u ms rto %u ms cwnd %u",
                 path_state_name(st.sstat_primary.spinfo_state), st.sstat_primary.spinfo_srtt,
                 st.sstat_primary.spinfo_rto, st.sstat_primary.spinfo_cwnd);
    return 0;
}

void usct_stats_print(struct usct_transport *t, FILE *f)
{
    fprintf(
        f,
        "sctpmpi[%d] sctp: %d lanes on %d streams, max payload %zu, sockbuf %zu, mtu %d, "
        "crc32c %s, I-DATA %s, progress %s (watchdog steps %llu, thread steps %llu, RMA frames "
        "delivered by the thread %llu)\n",
        t->rank, t->nlanes, t->nstreams, t->max_payload, t->tu.sockbuf, t->tu.mtu,
        t->all_crc32c ? (t->crc_ours ? "on (ours, hardware)" : "on (usrsctp)") : "off",
        t->tu.interleave ? "on" : "off",
        t->tu.progress == SCTP_PROGRESS_THREAD ? "thread" : "caller",
        (unsigned long long)t->watchdog_steps, (unsigned long long)t->thread_steps,
        (unsigned long long)t->rma_thread_frames);
    for (int r = 0; t->peers && r < t->size; r++) {
        struct usct_peer *p = &t->peers[r];
        if (r == t->rank || (!p->tx_datagrams && !p->rx_datagrams && !p->assoc_count))
            continue;
        struct sctp_status st;
        pthread_mutex_lock(&t->stack_lock);
        int have = get_status(t, p, &st) == 0;
        pthread_mutex_unlock(&t->stack_lock);
        fprintf(f, "sctpmpi[%d] sctp assoc to rank %d: id %u %s, set-ups %u", t->rank, r,
                p->assoc_id, peer_state_name(p->state), p->assoc_count);
        if (!t->inet) /* counted in our output callback, which the multihomed mode lacks */
            fprintf(f,
                    ", datagrams out %llu in %llu, DATA chunks out %llu (I-DATA %llu), "
                    "retransmitted %llu, test-dropped %llu",
                    (unsigned long long)p->tx_datagrams, (unsigned long long)p->rx_datagrams,
                    (unsigned long long)(p->data_chunks + p->idata_chunks),
                    (unsigned long long)p->idata_chunks, (unsigned long long)p->retrans_chunks,
                    (unsigned long long)p->tx_dropped_test);
        if (have)
            fprintf(f,
                    ", rwnd %u, unacked %u, pending %u, streams %u in / %u out, path %s srtt %u "
                    "ms rto %u ms cwnd %u mtu %u",
                    st.sstat_rwnd, st.sstat_unackdata, st.sstat_penddata, st.sstat_instrms,
                    st.sstat_outstrms, path_state_name(st.sstat_primary.spinfo_state),
                    st.sstat_primary.spinfo_srtt, st.sstat_primary.spinfo_rto,
                    st.sstat_primary.spinfo_cwnd, st.sstat_primary.spinfo_mtu);
        fputc('\n', f);
        if (t->inet)
            usct_paths_print(t, p, f);
        char prefix[32];
        snprintf(prefix, sizeof prefix, "sctpmpi[%d]", t->rank);
        sm_stream_stats_print(f, prefix, p->st, t->nstreams);
    }
    struct sctpstat gs;
    memset(&gs, 0, sizeof gs);
    pthread_mutex_lock(&t->stack_lock);
    usrsctp_get_stat(&gs);
    pthread_mutex_unlock(&t->stack_lock);
    fprintf(f,
            "sctpmpi[%d] sctp totals: packets out %u in %u, DATA chunks out %u, retransmitted %u "
            "(fast %u), T3 timeouts %u, dup DATA in %u, checksum errors %u, out-of-the-blue %u, "
            "aborted %u, rogue datagrams %llu, our CRC32c drops %llu, udp send errors %llu\n",
            t->rank, gs.sctps_sendpackets, gs.sctps_recvpackets, gs.sctps_senddata,
            gs.sctps_sendretransdata, gs.sctps_sendfastretrans, gs.sctps_timodata,
            gs.sctps_recvdupdata, gs.sctps_checksumerrors, gs.sctps_outoftheblue,
            gs.sctps_aborted, (unsigned long long)t->rogue_datagrams,
            (unsigned long long)t->crc_errors, (unsigned long long)t->udp_send_errors);
    if (t->inet)
        usct_paths_print_interfaces(t, f);
}
