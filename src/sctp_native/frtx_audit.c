/* frtx_audit.c — which fast retransmissions were spurious: the engine remembers the last
 * FRTX_LOG fast-retransmitted TSNs, and a TSN the peer later reports as a duplicate (RFC 9260
 * 6.2: its SACK lists DATA it received more than once) was not lost, only reordered (or the
 * original was late).  Counted once per TSN in the statistics; RACK (rack.c) widens its
 * reordering window when one is found. */
#include "sctpn_internal.h"

void frtx_note(struct sctpn_assoc *a, uint32_t tsn)
{
    uint32_t i = a->frtx_next++ % FRTX_LOG;
    a->frtx_log[i] = tsn;
    a->frtx_live[i] = 1;
}

int frtx_on_dups(struct sctpn_assoc *a, const uint32_t *dups, int ndups)
{
    int found = 0;
    for (int k = 0; k < ndups; k++)
        for (int i = 0; i < FRTX_LOG; i++)
            if (a->frtx_live[i] && a->frtx_log[i] == dups[k]) {
                a->frtx_live[i] = 0;
                a->spurious_frtx++;
                found++;
            }
    return found;
}
