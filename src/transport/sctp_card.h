/* sctp_card.h — the business card both SCTP backends publish and parse (sctp_card.c):
 * "PREFIX:ADDR[,ADDR...]:PORT[:FLAGS]" — every local address, one UDP port, backend flags. */
#ifndef SCTPMPI_SCTP_CARD_H
#define SCTPMPI_SCTP_CARD_H

#include <netinet/in.h>
#include <stddef.h>

struct sm_sctp_card {
    struct in_addr addrs[8];
    int naddrs;
    int port;       /* UDP port, 1..65535 */
    char flags[64]; /* text after the port ("" when none), e.g. "nocrc", "mh", "zc" */
};

/* parse a card that starts with prefix (e.g. "sctp:"); at most max addresses (<= 8) are kept.
 * Returns 0, or -1 when it is not such a card or is malformed. */
int sm_sctp_card_parse(const char *card, const char *prefix, int max, struct sm_sctp_card *out);

#endif
