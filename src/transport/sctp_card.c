/* sctp_card.c — parsing the business card of the SCTP backends:
 * "PREFIX:ADDR[,ADDR...]:PORT[:FLAGS]" (usrsctp: "sctp:", our engine: "sctpn:"). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "transport/sctp_card.h"

int sm_sctp_card_parse(const char *card, const char *prefix, int max, struct sm_sctp_card *out)
{
    size_t pl = strlen(prefix);
    memset(out, 0, sizeof *out);
    if (strncmp(card, prefix, pl) != 0)
        return -1;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", card + pl);
    char *port_s = strchr(buf, ':');
    if (!port_s)
        return -1;
    *port_s++ = '\0';
    char *flags = strchr(port_s, ':');
    if (flags) {
        *flags++ = '\0';
        snprintf(out->flags, sizeof out->flags, "%s", flags);
    }
    char *end;
    long port = strtol(port_s, &end, 10);
    if (*end || port <= 0 || port > 65535)
        return -1;
    out->port = (int)port;
    if (max > (int)(sizeof out->addrs / sizeof out->addrs[0]))
        max = (int)(sizeof out->addrs / sizeof out->addrs[0]);
    for (char *save = NULL, *a = strtok_r(buf, ",", &save); a && out->naddrs < max;
         a = strtok_r(NULL, ",", &save)) {
        if (inet_pton(AF_INET, a, &out->addrs[out->naddrs]) != 1)
            return -1;
        out->naddrs++;
    }
    return out->naddrs > 0 ? 0 : -1;
}
