/* stream_stats.c — the per-stream lines of the SCTP transports' statistics (stream_stats.h). */
#include "transport/stream_stats.h"

void sm_stream_stats_print(FILE *f, const char *prefix, const struct sm_stream_stats *st, int n)
{
    for (int s = 0; s < n; s++) {
        const struct sm_stream_stats *ss = &st[s];
        if (!ss->tx_msgs && !ss->rx_msgs)
            continue;
        fprintf(f, "%s   stream %d: sent %llu msgs %llu bytes, received %llu msgs %llu bytes\n",
                prefix, s, (unsigned long long)ss->tx_msgs, (unsigned long long)ss->tx_bytes,
                (unsigned long long)ss->rx_msgs, (unsigned long long)ss->rx_bytes);
    }
}
