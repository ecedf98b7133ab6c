/* netlab: control commands for a running forwarder (stats, show, set, down, up, ping) and the
 * client that sends one over the run's control socket. Scheduled events use the same commands. */
#include "fwd.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void stats(nl_fwd *f, nl_sbuf *b, int json, const nl_sel *sel)
{
    const nl_topo *t = f->t;
    if (json)
        nl_sb(b, "{\"links\": [");
    int first = 1;
    for (int r = 0; r < t->nrails; r++)
        for (int s = 0; s < t->nhosts; s++)
            for (int d = 0; d < t->nhosts; d++) {
                if (s == d || (sel && !nl_sel_match(sel, r, s, d)))
                    continue;
                const nl_link *l = &f->m.links[nl_link_index(t, r, s, d)];
                const nl_counters *c = &l->c;
                if (json)
                    nl_sb(b,
                          "%s\n {\"rail\": %d, \"src\": \"%s\", \"dst\": \"%s\", \"up\": %d, "
                          "\"fwd_pkts\": %llu, \"fwd_bytes\": %llu, "
                          "\"drop_loss\": %llu, \"drop_queue\": %llu, \"drop_down\": %llu, "
                          "\"drop_mtu\": %llu, \"drop_other\": %llu, \"queued\": %u}",
                          first ? "" : ",", r, t->hosts[s], t->hosts[d], l->p.up,
                          (unsigned long long)c->fwd_pkts, (unsigned long long)c->fwd_bytes,
                          (unsigned long long)c->drop_loss, (unsigned long long)c->drop_queue,
                          (unsigned long long)c->drop_down, (unsigned long long)c->drop_mtu,
                          (unsigned long long)c->drop_other, l->inflight);
                else
                    nl_sb(b,
                          "link rail=%d src=%s dst=%s up=%d fwd_pkts=%llu fwd_bytes=%llu "
                          "drop_loss=%llu drop_queue=%llu drop_down=%llu drop_mtu=%llu "
                          "drop_other=%llu queued=%u\n",
                          r, t->hosts[s], t->hosts[d], l->p.up, (unsigned long long)c->fwd_pkts,
                          (unsigned long long)c->fwd_bytes, (unsigned long long)c->drop_loss,
                          (unsigned long long)c->drop_queue, (unsigned long long)c->drop_down,
                          (unsigned long long)c->drop_mtu, (unsigned long long)c->drop_other,
                          l->inflight);
                first = 0;
            }
    if (json)
        nl_sb(b, "\n], \"tuns\": [");
    first = 1;
    for (int r = 0; r < t->nrails; r++)
        for (int h = 0; h < t->nhosts; h++) {
            size_t i = (size_t)r * (size_t)t->nhosts + (size_t)h;
            if (sel && sel->rail >= 0 && sel->rail != r)
                continue;
            if (json)
                nl_sb(b,
                      "%s\n {\"rail\": %d, \"host\": \"%s\", \"rx_pkts\": %llu, \"rx_bytes\": "
                      "%llu, "
                      "\"unroutable\": %llu}",
                      first ? "" : ",", r, t->hosts[h], (unsigned long long)f->tun_rx_pkts[i],
                      (unsigned long long)f->tun_rx_bytes[i],
                      (unsigned long long)f->tun_unroutable[i]);
            else
                nl_sb(b, "tun rail=%d host=%s rx_pkts=%llu rx_bytes=%llu unroutable=%llu\n", r,
                      t->hosts[h], (unsigned long long)f->tun_rx_pkts[i],
                      (unsigned long long)f->tun_rx_bytes[i],
                      (unsigned long long)f->tun_unroutable[i]);
            first = 0;
        }
    if (json)
        nl_sb(b, "\n], \"nics\": [");
    first = 1;
    for (int r = 0; r < t->nrails; r++)
        for (int h = 0; h < t->nhosts; h++) {
            size_t i = (size_t)r * (size_t)t->nhosts + (size_t)h;
            if (t->nics[i].rate_mbit <= 0 || (sel && sel->rail >= 0 && sel->rail != r))
                continue;
            if (json)
                nl_sb(b,
                      "%s\n {\"rail\": %d, \"host\": \"%s\", \"egress_drops\": %llu, "
                      "\"ingress_drops\": %llu}",
                      first ? "" : ",", r, t->hosts[h], (unsigned long long)f->m.egress[i].drops,
                      (unsigned long long)f->m.ingress[i].drops);
            else
                nl_sb(b, "nic rail=%d host=%s egress_drops=%llu ingress_drops=%llu\n", r,
                      t->hosts[h], (unsigned long long)f->m.egress[i].drops,
                      (unsigned long long)f->m.ingress[i].drops);
            first = 0;
        }
    if (json)
        nl_sb(b,
              "\n], \"pool_drops\": %llu, \"heap_max\": %llu, \"heap_now\": %u, \"pool_slots\": "
              "%u, "
              "\"late_mean_us\": %.1f, \"late_max_us\": %.1f}\n",
              (unsigned long long)f->pool_drops, (unsigned long long)f->heap_max, f->heap.n,
              f->nslots, f->late_n ? (double)f->late_sum_ns / (double)f->late_n / 1e3 : 0.0,
              (double)f->late_max_ns / 1e3);
    else
        nl_sb(
            b,
            "forwarder pool_drops=%llu heap_max=%llu heap_now=%u pool_slots=%u late_mean_us=%.1f "
            "late_max_us=%.1f\n",
            (unsigned long long)f->pool_drops, (unsigned long long)f->heap_max, f->heap.n,
            f->nslots, f->late_n ? (double)f->late_sum_ns / (double)f->late_n / 1e3 : 0.0,
            (double)f->late_max_ns / 1e3);
}

int nl_ctl_exec(nl_fwd *f, const char *line, char *out, size_t outlen)
{
    nl_sbuf b = { out, outlen, 0 };
    out[0] = '\0';
    char copy[1024];
    snprintf(copy, sizeof copy, "%s", line);
    char *save = NULL, *argv[64];
    int argc = 0;
    for (char *tok = strtok_r(copy, " \t", &save); tok && argc < 64;
         tok = strtok_r(NULL, " \t", &save))
        argv[argc++] = tok;
    const nl_topo *t = f->t;
    if (argc == 0) {
        nl_sb(&b, "error: empty command\n");
        return -1;
    }
    if (!strcmp(argv[0], "ping")) {
        nl_sb(&b, "ok\n");
        return 0;
    }
    if (!strcmp(argv[0], "stats")) {
        int json = 0;
        nl_sel s, *sp = NULL;
        char err[160];
        for (int i = 1; i < argc; i++) {
            if (!strcmp(argv[i], "json"))
                json = 1;
            else if (nl_sel_parse(t, argv[i], &s, err, sizeof err)) {
                nl_sb(&b, "error: %s\n", err);
                return -1;
            } else
                sp = &s;
        }
        stats(f, &b, json, sp);
        return 0;
    }
    if (!strcmp(argv[0], "show") || !strcmp(argv[0], "set") || !strcmp(argv[0], "down") ||
        !strcmp(argv[0], "up")) {
        return nl_model_command(&f->m, argc, argv, out, outlen);
    }
    nl_sb(
        &b,
        "error: unknown command '%s' (stats [json] [SEL], show [SEL], set SEL k=v..., down SEL, "
        "up SEL, ping)\n",
        argv[0]);
    return -1;
}

int nl_ctl_client(const char *sockpath, const char *line)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    if (strlen(sockpath) >= sizeof a.sun_path) {
        fprintf(stderr, "netlab: control socket path too long: %s\n", sockpath);
        return 1;
    }
    strcpy(a.sun_path, sockpath);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a)) {
        fprintf(stderr, "netlab: cannot reach the forwarder at %s: %s\n", sockpath,
                strerror(errno));
        if (fd >= 0)
            close(fd);
        return 1;
    }
    size_t len = strlen(line);
    if (write(fd, line, len) != (ssize_t)len || write(fd, "\n", 1) != 1) {
        perror("netlab: control write");
        close(fd);
        return 1;
    }
    shutdown(fd, SHUT_WR);
    char buf[8192];
    int err = 0, firstchunk = 1;
    ssize_t r;
    while ((r = read(fd, buf, sizeof buf)) > 0) {
        if (firstchunk && r >= 6 && !memcmp(buf, "error:", 6))
            err = 1;
        firstchunk = 0;
        fwrite(buf, 1, (size_t)r, err ? stderr : stdout);
    }
    close(fd);
    if (firstchunk) {
        fprintf(stderr, "netlab: no reply from the forwarder\n");
        return 1;
    }
    return err;
}
