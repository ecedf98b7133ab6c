/* ksctp_stats.c — statistics (SCTPMPI_STATS=1) and peer_info() of the kernel SCTP backend:
 * per association the kernel's SCTP_STATUS (state, windows, queued and unacknowledged data,
 * primary path) and SCTP_GET_ASSOC_STATS (packets, retransmitted chunks, gaps), per remote
 * address SCTP_GET_PEER_ADDR_INFO (state, RTT, RTO, cwnd) and the path events seen, per
 * stream the messages and bytes each way (counted by us). */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "transport/ksctp/ksctp_internal.h"

static const char *state_name(enum ks_peer_state s)
{
    switch (s) {
    case KS_IDLE: return "idle";
    case KS_CONNECTING: return "connecting";
    case KS_UP: return "up";
    case KS_CLOSED: return "closed";
    case KS_FAILED: return "failed";
    }
    return "?";
}

static const char *path_state(int s)
{
    switch (s) {
    case SCTP_ACTIVE: return "active";
    case SCTP_INACTIVE: return "inactive";
    case SCTP_PF: return "potentially-failed";
    case SCTP_UNCONFIRMED: return "unconfirmed";
    default: return "?";
    }
}

int ks_peer_info(struct sm_transport *handle, int peer, char *buf, size_t len)
{
    struct ks_transport *t = (struct ks_transport *)handle;
    if (!t->peers || peer < 0 || peer >= t->size)
        return snprintf(buf, len, "kernel SCTP: no such peer");
    struct ks_peer *p = &t->peers[peer];
    char ip[INET_ADDRSTRLEN] = "?";
    if (p->naddrs)
        inet_ntop(AF_INET, &p->addrs[0].sin_addr, ip, sizeof ip);
    return snprintf(buf, len, "kernel SCTP association %d to %s:%u (%d address(es)), %s%s%s",
                    (int)p->assoc, ip, p->naddrs ? ntohs(p->addrs[0].sin_port) : 0, p->naddrs,
                    state_name(p->state), p->why[0] ? ": " : "", p->why);
}

void ks_stats_print(struct ks_transport *t, FILE *f)
{
    fprintf(f,
            "[rank %d] kernel SCTP: port %u, %d stream(s) (%d point-to-point + %d RMA), "
            "frames up to %zu bytes, rogue messages %llu, aborts sent %llu, send-failed "
            "events %llu, restarts %llu\n",
            t->rank, t->port, t->nstreams, t->p2p_lanes, t->rma_lanes, t->max_payload,
            (unsigned long long)t->rogue_msgs, (unsigned long long)t->aborts_sent,
            (unsigned long long)t->send_failed_events, (unsigned long long)t->restarts);
    for (int r = 0; t->peers && r < t->size; r++) {
        struct ks_peer *p = &t->peers[r];
        if (r == t->rank || p->state == KS_IDLE)
            continue;
        fprintf(f,
                "[rank %d]  peer %d: association %d %s, %u time(s) up; path events: "
                "available %llu, unreachable %llu, potentially-failed %llu, other %llu\n",
                t->rank, r, (int)p->assoc, state_name(p->state), p->assocs,
                (unsigned long long)p->path_events[0], (unsigned long long)p->path_events[1],
                (unsigned long long)p->path_events[2], (unsigned long long)p->path_events[3]);
        if (p->assoc && t->fd >= 0) {
            struct sctp_status st;
            socklen_t len = sizeof st;
            memset(&st, 0, sizeof st);
            st.sstat_assoc_id = p->assoc;
            if (getsockopt(t->fd, IPPROTO_SCTP, SCTP_STATUS, &st, &len) == 0)
                fprintf(f,
                        "[rank %d]   status: rwnd %u, unacked %u, pending %u, streams "
                        "in %u out %u, fragmentation point %u; primary srtt %u ms, rto %u "
                        "ms, cwnd %u, mtu %u\n",
                        t->rank, st.sstat_rwnd, st.sstat_unackdata, st.sstat_penddata,
                        st.sstat_instrms, st.sstat_outstrms, st.sstat_fragmentation_point,
                        st.sstat_primary.spinfo_srtt, st.sstat_primary.spinfo_rto,
                        st.sstat_primary.spinfo_cwnd, st.sstat_primary.spinfo_mtu);
            struct sctp_assoc_stats as;
            len = sizeof as;
            memset(&as, 0, sizeof as);
            as.sas_assoc_id = p->assoc;
            if (getsockopt(t->fd, IPPROTO_SCTP, SCTP_GET_ASSOC_STATS, &as, &len) == 0)
                fprintf(f,
                        "[rank %d]   packets out %llu in %llu, retransmitted chunks %llu, "
                        "gap reports %llu, out-of-sequence TSNs %llu, max rto %llu ms\n",
                        t->rank, (unsigned long long)as.sas_opackets,
                        (unsigned long long)as.sas_ipackets, (unsigned long long)as.sas_rtxchunks,
                        (unsigned long long)as.sas_gapcnt,
                        (unsigned long long)as.sas_outofseqtsns,
                        (unsigned long long)as.sas_maxrto);
            for (int i = 0; i < p->naddrs; i++) {
                struct sctp_paddrinfo pi;
                len = sizeof pi;
                memset(&pi, 0, sizeof pi);
                pi.spinfo_assoc_id = p->assoc;
                memcpy(&pi.spinfo_address, &p->addrs[i], sizeof p->addrs[i]);
                char ip[INET_ADDRSTRLEN];
                inet_ntop(AF_INET, &p->addrs[i].sin_addr, ip, sizeof ip);
                if (getsockopt(t->fd, IPPROTO_SCTP, SCTP_GET_PEER_ADDR_INFO, &pi, &len) == 0)
                    fprintf(f, "[rank %d]   path %s: %s, srtt %u ms, rto %u ms, cwnd %u\n",
                            t->rank, ip, path_state(pi.spinfo_state), pi.spinfo_srtt,
                            pi.spinfo_rto, pi.spinfo_cwnd);
            }
        }
        char prefix[32];
        snprintf(prefix, sizeof prefix, "[rank %d]", t->rank);
        sm_stream_stats_print(f, prefix, p->st, t->nstreams);
    }
}
