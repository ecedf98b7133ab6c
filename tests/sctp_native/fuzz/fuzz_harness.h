/* fuzz_harness.h — the scenario builder of the packet fuzz target (fuzz_packet.c), shared with
 * the corpus generator (gen_corpus.c) and the plain replay driver (replay_corpus.c): two
 * in-memory endpoints (client and server) with a virtual clock, and the mode byte's bits. */
#ifndef FUZZ_HARNESS_H
#define FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "sctp_native/sctpn.h"

enum {
    FZ_STATE_MASK = 3,
    FZ_TARGET_CLIENT = 1 << 2,
    FZ_FIX_HEADER = 1 << 3,
    FZ_FIX_CRC = 1 << 4,
    FZ_MULTI = 1 << 5,
    FZ_IDATA = 1 << 6,
    FZ_FOREIGN_SOURCE = 1 << 7,
};

struct fz_side {
    sctpn_endpoint *ep;
    sctpn_assoc_id assoc;
    struct sctpn_addr addr;
    int server, up, down;
};

struct fz_world {
    struct fz_side client, server;
    uint64_t now;
    unsigned state, moved;
    int idata;
};

/* build the scenario for state (0..3, see fuzz_packet.c); 0 or -1 */
int fz_world_open(struct fz_world *w, unsigned state, int idata);
void fz_world_close(struct fz_world *w);
/* both sides talk for rounds rounds, the clock advancing step_us a round; lose_every > 0 drops
 * every lose_every-th packet moved */
void fz_pump(struct fz_world *w, int rounds, uint64_t step_us, int lose_every);

/* when set, every packet an endpoint sends is shown here first (from_server: who sent it) */
typedef void (*fz_capture_fn)(void *user, const struct fz_world *w, int from_server,
                              const uint8_t *pkt, size_t len);
extern fz_capture_fn fz_capture;
extern void *fz_capture_user;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif
