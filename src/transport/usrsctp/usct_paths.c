/* usct_paths.c — the paths of multihomed associations: usrsctp's path notifications
 * (SCTP_PEER_ADDR_CHANGE: available, unreachable, made primary, confirmed) logged under
 * SCTPMPI_SCTP_DEBUG / SCTPMPI_VERBOSE>=2 and counted per (peer, remote address); per path
 * state, srtt, rto, cwnd for SCTPMPI_STATS (SCTP_GET_PEER_ADDR_INFO); and packets / bytes per
 * local address, from the kernel's counters of the interface holding it (usrsctp 0.9.5 counts
 * nothing per path and sends through its own socket, so that is where we can see them). */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <errno.h>
#include <net/if.h>
#include <string.h>

#include "transport/usrsctp/usct_internal.h"

static const char *const event_names[SCTP_PATH_NEVENTS] = { "available", "unreachable",
                                                            "potentially-failed", "made-primary",
                                                            "confirmed" };

static int path_index(const struct usct_peer *p, const struct sockaddr_in *a)
{
    for (int i = 0; i < p->naddrs; i++)
        if (p->addrs[i].sin_addr.s_addr == a->sin_addr.s_addr)
            return i;
    return -1;
}

/* make path k the association's primary (SCTP_PRIMARY_ADDR); 0 on success */
static int set_primary(struct usct_transport *t, struct usct_peer *p, int k, const char *why)
{
    struct sctp_setprim sp;
    memset(&sp, 0, sizeof sp);
    sp.ssp_assoc_id = p->assoc_id;
    memcpy(&sp.ssp_addr, &p->addrs[k], sizeof p->addrs[k]);
    int rc = usrsctp_setsockopt(t->sock, IPPROTO_SCTP, SCTP_PRIMARY_ADDR, &sp, sizeof sp);
    if (t->tu.debug || rc != 0) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &p->addrs[k].sin_addr, ip, sizeof ip);
        usct_log("rank %d: primary path to rank %d -> %s (%s)%s%s", t->rank, p->rank, ip, why,
                 rc ? ": " : "", rc ? strerror(errno) : "");
    }
    if (rc == 0)
        for (int i = 0; i < p->naddrs; i++)
            p->paths[i].primary = i == k;
    return rc;
}

/* Multihomed mode: usrsctp 0.9.5 left to itself stalled for good when the primary path failed
 * under a full send window (unacknowledged chunks with no T3 timer, a DATA chunk of the idle side
 * never sent: bench/multihome/mh_timeline with rail 0 cut, 3 of 3 runs).  Moving the primary
 * ourselves to a path that is up when the primary becomes unreachable, and back to the first
 * address when it returns, avoids it (docs/transport-sctp.md, "Multihoming"). */
static void steer_primary(struct usct_transport *t, struct usct_peer *p, int i, int ev)
{
    if (!t->inet || !p->assoc_id || p->naddrs < 2)
        return;
    int primary = -1;
    for (int k = 0; k < p->naddrs; k++)
        if (p->paths[k].primary)
            primary = k;
    if (primary < 0)
        primary = 0; /* usrsctp's first address: the one connectx() / the INIT named first */
    if (ev == SCTP_PATH_EV_UNREACHABLE && i == primary) {
        for (int k = 0; k < p->naddrs; k++)
            if (k != i && p->paths[k].state != SCTP_INACTIVE) {
                set_primary(t, p, k, "the primary path is unreachable");
                return;
            }
    } else if (ev == SCTP_PATH_EV_AVAILABLE && i == 0 && primary != 0) {
        set_primary(t, p, 0, "the first path is back");
    }
}

void usct_paths_on_change(struct usct_transport *t, const struct sctp_paddr_change *pc)
{
    const struct sockaddr_in *a = (const struct sockaddr_in *)&pc->spc_aaddr;
    struct usct_peer *p = usct_assoc_peer_of_id(t, pc->spc_assoc_id);
    if (!p && a->sin_family == AF_INET)
        p = usct_udp_peer_of(t, a);
    int i = (p && a->sin_family == AF_INET) ? path_index(p, a) : -1;
    int ev = -1;
    switch (pc->spc_state) {
    case SCTP_ADDR_AVAILABLE: ev = SCTP_PATH_EV_AVAILABLE; break;
    case SCTP_ADDR_UNREACHABLE: ev = SCTP_PATH_EV_UNREACHABLE; break;
    case SCTP_ADDR_MADE_PRIM: ev = SCTP_PATH_EV_PRIMARY; break;
    case SCTP_ADDR_CONFIRMED: ev = SCTP_PATH_EV_CONFIRMED; break;
    case 7: ev = SCTP_PATH_EV_PF; break; /* SCTP_ADDR_POTENTIALLY_FAILED where a stack has it */
    default: break;
    }
    if (i >= 0 && ev >= 0) {
        p->paths[i].events[ev]++;
        if (ev == SCTP_PATH_EV_PRIMARY)
            for (int k = 0; k < p->naddrs; k++)
                p->paths[k].primary = k == i;
        if (ev == SCTP_PATH_EV_AVAILABLE || ev == SCTP_PATH_EV_CONFIRMED)
            p->paths[i].state = SCTP_ACTIVE;
        else if (ev == SCTP_PATH_EV_UNREACHABLE)
            p->paths[i].state = SCTP_INACTIVE;
    }
    if (t->tu.debug) {
        char ip[INET_ADDRSTRLEN] = "?";
        if (a->sin_family == AF_INET)
            inet_ntop(AF_INET, &a->sin_addr, ip, sizeof ip);
        usct_log("rank %d: path to rank %d via %s: %s (state %u, error %u, association %u)",
                 t->rank, p ? p->rank : -1, ip, ev >= 0 ? event_names[ev] : "other",
                 pc->spc_state, pc->spc_error, pc->spc_assoc_id);
    }
    if (i >= 0 && ev >= 0 && !t->tu.keep_primary)
        steer_primary(t, p, i, ev);
}

static const char *state_name(int32_t s)
{
    if (s & SCTP_UNCONFIRMED)
        return "unconfirmed";
    if (s & SCTP_ACTIVE)
        return "active";
    if (s & SCTP_INACTIVE)
        return "inactive";
    return "?";
}

void usct_paths_print(struct usct_transport *t, struct usct_peer *p, FILE *f)
{
    for (int i = 0; i < p->naddrs; i++) {
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &p->addrs[i].sin_addr, ip, sizeof ip);
        struct sctp_paddrinfo pi;
        memset(&pi, 0, sizeof pi);
        pi.spinfo_assoc_id = p->assoc_id;
        memcpy(&pi.spinfo_address, &p->addrs[i], sizeof p->addrs[i]);
        socklen_t len = sizeof pi;
        pthread_mutex_lock(&t->stack_lock);
        int have =
            t->sock && p->assoc_id &&
            usrsctp_getsockopt(t->sock, IPPROTO_SCTP, SCTP_GET_PEER_ADDR_INFO, &pi, &len) == 0;
        pthread_mutex_unlock(&t->stack_lock);
        const struct usct_path *pa = &p->paths[i];
        fprintf(f, "sctpmpi[%d]   path %d to %s:", t->rank, i, ip);
        if (have)
            fprintf(f, " %s srtt %u ms rto %u ms cwnd %u mtu %u,", state_name(pi.spinfo_state),
                    pi.spinfo_srtt, pi.spinfo_rto, pi.spinfo_cwnd, pi.spinfo_mtu);
        else
            fprintf(f, " (no association now),");
        fprintf(f, " events:");
        for (int e = 0; e < SCTP_PATH_NEVENTS; e++)
            fprintf(f, " %s %llu", event_names[e], (unsigned long long)pa->events[e]);
        fputc('\n', f);
    }
}

/* tx packets, tx bytes, rx packets, rx bytes of the interface holding address a, from
 * /proc/net/dev (getifaddrs leaves TUN devices without a link-layer address out) */
void usct_paths_interface_counters(const struct sockaddr_in *a, uint64_t out[4])
{
    memset(out, 0, 4 * sizeof out[0]);
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) < 0)
        return;
    char name[IFNAMSIZ + 1] = "";
    for (struct ifaddrs *i = ifs; i; i = i->ifa_next)
        if (i->ifa_addr && i->ifa_addr->sa_family == AF_INET &&
            ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == a->sin_addr.s_addr)
            snprintf(name, sizeof name, "%s", i->ifa_name);
    freeifaddrs(ifs);
    FILE *f = name[0] ? fopen("/proc/net/dev", "r") : NULL;
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        char *n = line;
        while (*n == ' ')
            n++;
        if (strcmp(n, name))
            continue;
        unsigned long long v[16] = { 0 };
        if (sscanf(colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1],
                   &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) == 10) {
            out[0] = v[9]; /* tx packets */
            out[1] = v[8]; /* tx bytes */
            out[2] = v[1]; /* rx packets */
            out[3] = v[0]; /* rx bytes */
        }
        break;
    }
    fclose(f);
}

void usct_paths_print_interfaces(struct usct_transport *t, FILE *f)
{
    for (int i = 0; i < t->nudp; i++) {
        uint64_t now[4];
        usct_paths_interface_counters(&t->udp[i].addr, now);
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &t->udp[i].addr.sin_addr, ip, sizeof ip);
        fprintf(f,
                "sctpmpi[%d] sctp local path %d (%s): packets out %llu in %llu, bytes out %llu "
                "in %llu (its interface's counters since start: every protocol)\n",
                t->rank, i, ip, (unsigned long long)(now[0] - t->if_base[i][0]),
                (unsigned long long)(now[2] - t->if_base[i][2]),
                (unsigned long long)(now[1] - t->if_base[i][1]),
                (unsigned long long)(now[3] - t->if_base[i][3]));
    }
}
