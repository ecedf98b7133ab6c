/* stream_stats.h — messages and bytes each way on each stream of an association, counted by
 * the SCTP transports for SCTPMPI_STATS, and their report: one line per stream that carried
 * anything. */
#ifndef SCTPMPI_STREAM_STATS_H
#define SCTPMPI_STREAM_STATS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sm_stream_stats {
    uint64_t tx_msgs, tx_bytes, rx_msgs, rx_bytes;
};

static inline void sm_stream_sent(struct sm_stream_stats *s, size_t bytes)
{
    s->tx_msgs++;
    s->tx_bytes += bytes;
}

static inline void sm_stream_received(struct sm_stream_stats *s, size_t bytes)
{
    s->rx_msgs++;
    s->rx_bytes += bytes;
}

/* "PREFIX   stream S: sent N msgs B bytes, received N msgs B bytes" for each of st[0..n) */
void sm_stream_stats_print(FILE *f, const char *prefix, const struct sm_stream_stats *st, int n);

#endif
