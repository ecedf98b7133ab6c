/* local_addrs.c — which local IPv4 addresses an SCTP transport (either backend) binds, in this order of
 * precedence: SCTPMPI_SCTP_ADDRS (a comma list, or a file of "host addr addr..." lines like the
 * papers' multihome file, the line picked by NETLAB_HOST or else the host name),
 * SCTPMPI_SCTP_BINDALL=1 (every up, non-loopback IPv4 address of the host), the job's list
 * (SCTPMPI_ADDRS, which `netlab exec` sets, rail 0 first), loopback. */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <strings.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transport/local_addrs.h"
#include "util/util.h"

static int add_addr(char out[][INET_ADDRSTRLEN], int n, int max, const char *a, const char *from)
{
    struct in_addr in;
    if (inet_pton(AF_INET, a, &in) != 1) {
        SM_ERR("%s: '%s' is not an IPv4 address", from, a);
        return -1;
    }
    for (int i = 0; i < n; i++)
        if (!strcmp(out[i], a))
            return n; /* listed twice: bind once */
    if (n >= max) {
        SM_ERR("%s: more than %d addresses, '%s' and later ones ignored", from, max, a);
        return n;
    }
    snprintf(out[n], INET_ADDRSTRLEN, "%s", a);
    return n + 1;
}

static int from_list(const char *list, char out[][INET_ADDRSTRLEN], int max, const char *from)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", list);
    int n = 0;
    for (char *save = NULL, *a = strtok_r(buf, ", \t", &save); a;
         a = strtok_r(NULL, ", \t", &save))
        if ((n = add_addr(out, n, max, a, from)) < 0)
            return -1;
    if (n == 0)
        SM_ERR("%s: no address in '%s'", from, list);
    return n ? n : -1;
}

/* "host addr addr ..." lines; '#' starts a comment */
static int from_file(const char *path, char out[][INET_ADDRSTRLEN], int max)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        SM_ERR("SCTPMPI_SCTP_ADDRS: cannot open '%s'", path);
        return -1;
    }
    char host[256] = "";
    const char *nh = getenv("NETLAB_HOST");
    if (nh && *nh)
        snprintf(host, sizeof host, "%s", nh);
    else if (gethostname(host, sizeof host - 1) != 0)
        host[0] = '\0';
    char line[1024];
    int n = -1;
    while (n < 0 && fgets(line, sizeof line, f)) {
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *save = NULL, *name = strtok_r(line, " \t\r\n", &save);
        if (!name || strcmp(name, host))
            continue;
        n = 0;
        for (char *a = strtok_r(NULL, " \t\r\n,", &save); a;
             a = strtok_r(NULL, " \t\r\n,", &save))
            if ((n = add_addr(out, n, max, a, path)) < 0)
                break;
        if (n == 0) {
            SM_ERR("SCTPMPI_SCTP_ADDRS: the line of host '%s' in %s lists no address", host,
                   path);
            n = -1;
            break;
        }
    }
    fclose(f);
    if (n < 0 && host[0])
        SM_ERR("SCTPMPI_SCTP_ADDRS: no usable line for host '%s' in %s", host, path);
    return n;
}

static int from_interfaces(char out[][INET_ADDRSTRLEN], int max)
{
    struct ifaddrs *ifs;
    if (getifaddrs(&ifs) < 0) {
        SM_ERR("SCTPMPI_SCTP_BINDALL: getifaddrs failed");
        return -1;
    }
    int n = 0;
    for (struct ifaddrs *i = ifs; i && n >= 0; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET || !(i->ifa_flags & IFF_UP) ||
            (i->ifa_flags & IFF_LOOPBACK))
            continue;
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, ip, sizeof ip);
        n = add_addr(out, n, max, ip, "SCTPMPI_SCTP_BINDALL");
    }
    freeifaddrs(ifs);
    if (n == 0)
        SM_ERR("SCTPMPI_SCTP_BINDALL=1: this host has no non-loopback IPv4 address that is up");
    return n > 0 ? n : -1;
}

int sm_local_addrs(const char *const *job, int njob, char out[][INET_ADDRSTRLEN], int max)
{
    const char *spec = getenv("SCTPMPI_SCTP_ADDRS");
    if (spec && *spec) {
        int is_file = strchr(spec, '/') != NULL || access(spec, R_OK) == 0;
        return is_file ? from_file(spec, out, max)
                       : from_list(spec, out, max, "SCTPMPI_SCTP_ADDRS");
    }
    const char *all = getenv("SCTPMPI_SCTP_BINDALL");
    if (all && *all && strcmp(all, "0") && strcasecmp(all, "off") && strcasecmp(all, "no"))
        return from_interfaces(out, max);
    int n = 0;
    for (int i = 0; job && i < njob; i++)
        if ((n = add_addr(out, n, max, job[i], "SCTPMPI_ADDRS")) < 0)
            return -1;
    if (n == 0)
        n = add_addr(out, 0, max, "127.0.0.1", "default");
    return n;
}
