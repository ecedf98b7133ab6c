/* cmt_dac.c — delayed ack for CMT (DAC; Iyengar, Amer, Stewart, "Concurrent Multipath Transfer
 * Using SCTP Multihoming Over Independent End-to-End Paths", 2006), wire-compatible with
 * usrsctp (sctp_sack_check / sctp_send_sack / sctp_strike_gap_ack_chunks).
 *
 * Receiver: under CMT, data arriving over paths of different delays is reordered all the time,
 * and RFC 9260 6.7 would SACK every out-of-order packet at once.  With DAC a packet that only
 * has a gap (or reaches sack_freq) does not force a SACK when no delayed SACK is pending: the
 * first data packet after a SACK always starts the delayed-SACK timer, the second sends it.
 * The rules that still force an immediate SACK stay: duplicate TSNs, the I bit (RFC 7053), a
 * full receive window, a gap just filled, SHUTDOWN-SENT.  Each SACK says in its chunk flags
 * how many data packets arrived since the previous one: 0x40 for one, 0x80 for two (usrsctp
 * shifts its packet count by 6; SCTP_SACK_CMT_DAC = 0x80).
 *
 * Sender: split fast retransmit gives a missing TSN one miss indication per SACK that newly
 * acknowledges a later TSN sent to the same destination.  A SACK with the 0x80 flag stands
 * for two packets, so it gives a second indication when (usrsctp's conditions) it is not a
 * "mixed" SACK (its gap blocks newly acknowledge TSNs of one destination only), its cumulative
 * ack acknowledged nothing new, and the missing TSN lies below the lowest TSN its gap blocks
 * newly acknowledge (the two packets both came after the hole). */
#include "sctpn_internal.h"

int dac_may_delay_sack(struct sctpn_endpoint *ep, const struct sctpn_assoc *a, int gap_now)
{
    if (!a->dac || !ep->cfg.sack_delay_us || ep->cfg.sack_freq < 2)
        return 0; /* no delayed SACKs at all: nothing to keep delaying */
    if (a->sack_gap_before && !gap_now)
        return 0;                /* a gap was just filled: tell the sender at once */
    return a->sack_due == NEVER; /* the first data packet since the last SACK */
}

uint8_t dac_sack_flags(const struct sctpn_assoc *a)
{
    if (!a->dac || a->pkts_since_sack <= 0)
        return 0;
    return (uint8_t)((a->pkts_since_sack >= 2 ? 2 : 1) << 6);
}

void dac_sack_begin(const struct sctpn_assoc *a, struct dac_sack *d, uint8_t sack_flags)
{
    memset(d, 0, sizeof *d);
    d->two_packets = a->dac && (sack_flags & 0x80);
}

void dac_gap_acked(struct dac_sack *d, uint32_t tsn, int path)
{
    d->gap_paths |= 1u << path;
    if (!d->have_lowest || tsn_lt(tsn, d->lowest)) {
        d->lowest = tsn;
        d->have_lowest = 1;
    }
}

uint32_t dac_extra_miss(const struct sctpn_assoc *a, const struct dac_sack *d, uint32_t tsn)
{
    if (!a->dac || !d->two_packets || d->cum_new || !d->have_lowest)
        return 0;
    if (d->gap_paths & (d->gap_paths - 1))
        return 0; /* mixed SACK: new acknowledgements for more than one destination */
    return tsn_lt(tsn, d->lowest) ? 1 : 0;
}
