/* boot.c — starting a job below the engine: PMI, the job secret, the transport choice and
 * the exchange of business cards (boot.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boot/boot.h"
#include "boot/pmi.h"
#include "util/util.h"

void sm_boot_start(int *rank, int *size)
{
    sm_verbose = (int)sm_env_int("SCTPMPI_VERBOSE", 0);
    if (sm_pmi_init(rank, size))
        sm_die("cannot start: PMI initialisation failed");
    sm_log_rank = *rank;
    int lsize = -1, lrank = -1;
    sm_pmi_local(&lsize, &lrank);
    if (lsize > 0)
        SM_INFO("booted through %s: rank %d of %d, local rank %d of %d", sm_pmi_name(), *rank,
                *size, lrank, lsize);
    else
        SM_INFO("booted through %s: rank %d of %d (the launcher does not say which ranks share "
                "this host)",
                sm_pmi_name(), *rank, *size);
}

/* our mpiexec says how many ranks share this host; other launchers say it through PMI */
int sm_boot_local_ranks(void)
{
    const char *e = getenv("SCTPMPI_LOCAL_RANKS");
    if (e && *e)
        return (int)sm_env_int("SCTPMPI_LOCAL_RANKS", 1);
    int lsize = -1, lrank = -1;
    if (sm_pmi_local(&lsize, &lrank) == 0 && lsize > 0)
        return lsize;
    return 1;
}

static void random_hex(char *out, size_t nbytes)
{
    unsigned char b[32];
    if (nbytes > sizeof b)
        nbytes = sizeof b;
    FILE *f = fopen("/dev/urandom", "rb");
    if (!f || fread(b, 1, nbytes, f) != nbytes)
        sm_die("cannot read /dev/urandom for the job secret");
    fclose(f);
    for (size_t i = 0; i < nbytes; i++)
        sprintf(out + 2 * i, "%02x", b[i]);
}

static void job_secret(int rank, char *secret, size_t len)
{
    const char *e = getenv("SCTPMPI_JOB_SECRET");
    if (e && *e) {
        snprintf(secret, len, "%s", e);
        return;
    }
    /* our mpiexec (it speaks PMI-1) may have put one before the ranks started; PMI-2 servers
     * may fail a get before the first fence (hydra 4.0 does), so only PMI-1 looks */
    if (!strcmp(sm_pmi_name(), "pmi1") && sm_pmi_get_from(0, "sctpmpi-secret", secret, len) == 0)
        return;
    /* launcher without our secret (hydra, srun, mpirun): rank 0 makes one and puts it under
     * another key, so a rank that looks later (a PMIx store may show a put before the fence)
     * cannot take rank 0's for the launcher's and skip the fence the others wait in */
    if (rank == 0) {
        random_hex(secret, 16);
        if (sm_pmi_put("sctpmpi-secret-r0", secret))
            sm_die("PMI put of the job secret failed");
    }
    if (sm_pmi_barrier())
        sm_die("PMI barrier failed");
    if (rank != 0 && sm_pmi_get_from(0, "sctpmpi-secret-r0", secret, len))
        sm_die("cannot get the job secret from PMI");
}

static int parse_addrs(char *list, const char **out, int max)
{
    int n = 0;
    for (char *save = NULL, *a = strtok_r(list, ", ", &save); a && n < max;
         a = strtok_r(NULL, ", ", &save))
        out[n++] = a;
    return n;
}

static const struct sm_transport_ops *choose(const char **tname)
{
#ifdef SCTPMPI_HAVE_SCTP
    *tname = sm_env_str("SCTPMPI_TRANSPORT", "sctp"); /* SCTP is the default */
#else
    *tname = sm_env_str("SCTPMPI_TRANSPORT", "tcp");
#endif
    const struct sm_transport_ops *ops = sm_transport_find(*tname);
    if (!ops)
        sm_die("unknown or unavailable transport '%s' (SCTPMPI_TRANSPORT / mpiexec --transport): "
               "this build has tcp%s",
               *tname,
#ifdef SCTPMPI_HAVE_SCTP
               ", sctp"
#else
               ""
#endif
        );
    return ops;
}

/* publish this rank's card, then read every rank's (cards[i] malloc'd) */
static char **exchange_cards(int rank, int size, const char *card)
{
    char key[64];
    snprintf(key, sizeof key, "card-%d", rank);
    if (sm_pmi_put(key, card) || sm_pmi_barrier())
        sm_die("PMI exchange of business cards failed");
    char **cards = sm_xcalloc((size_t)size, sizeof *cards);
    char **keys = sm_xcalloc((size_t)size, sizeof *keys);
    int *srcs = sm_xcalloc((size_t)size, sizeof *srcs);
    for (int i = 0; i < size; i++) {
        cards[i] = sm_xmalloc(1024);
        keys[i] = sm_xmalloc(24);
        snprintf(keys[i], 24, "card-%d", i);
        srcs[i] = i;
    }
    if (sm_pmi_get_many(size, srcs, (const char *const *)keys, cards, 1024))
        sm_die("cannot get the business cards of the %d ranks from PMI", size);
    for (int i = 0; i < size; i++)
        free(keys[i]);
    free(keys);
    free(srcs);
    const char *dir = getenv("SCTPMPI_CARD_DIR");
    if (dir && *dir) { /* test hook: lets a test find a rank's ports */
        char path[4096];
        snprintf(path, sizeof path, "%s/card.%d", dir, rank);
        FILE *f = fopen(path, "w");
        if (f) {
            fprintf(f, "%s\n", card);
            fclose(f);
        }
    }
    return cards;
}

/* ---- what connect/accept tells other jobs about this one (boot.h "dynamic processes") ---- */
static struct {
    char secret[80];
    uint32_t job_id;
    char **cards; /* every rank's business card, kept after the exchange */
    int ncards;
    const char *tname;
} dyn;

/* the job's universe identity: 32 bits of a hash of its secret (the secret stays unknown) */
static uint32_t job_id_of(const char *secret)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (const char *p = "sctpmpi-job:"; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    for (const char *p = secret; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ull;
    uint32_t id = (uint32_t)(h ^ (h >> 32));
    return id ? id : 1;
}

const char *sm_boot_secret(void)
{
    return dyn.secret;
}
uint32_t sm_boot_job_id(void)
{
    return dyn.job_id;
}
const char *sm_boot_card(int rank)
{
    return rank >= 0 && rank < dyn.ncards && dyn.cards ? dyn.cards[rank] : "";
}
const char *sm_boot_transport_name(void)
{
    return dyn.tname ? dyn.tname : "";
}
int sm_boot_pmi_command(const char *request, char *reply, size_t len)
{
    return sm_pmi_command(request, reply, len);
}
/* ---- end of dynamic processes ---- */

void sm_boot_transport(int rank, int size, const struct sm_upcalls *up,
                       const struct sm_transport_ops **ops, struct sm_transport **tp)
{
    const char *tname;
    *ops = choose(&tname);
    char *secret = dyn.secret;
    job_secret(rank, secret, sizeof dyn.secret);
    dyn.job_id = job_id_of(secret);
    dyn.tname = tname;
    char *addrlist = strdup(sm_env_str("SCTPMPI_ADDRS", ""));
    const char *addrs[16];
    struct sm_transport_args a = {
        .rank = rank,
        .size = size,
        .secret = secret,
        .addrs = addrs,
        .naddrs = parse_addrs(addrlist, addrs, 16),
        .local_ranks = sm_boot_local_ranks(),
        .up = up,
        .job_id = dyn.job_id,
    };
    char card[1024];
    if ((*ops)->init(&a, tp, card, sizeof card))
        sm_die("the %s transport failed to start", tname);
    free(addrlist);
    char **cards = exchange_cards(rank, size, card);
    if ((*ops)->set_peers(*tp, (const char *const *)cards))
        sm_die("the %s transport rejected the business cards", tname);
    for (int i = 0; i < size; i++) /* kept for connect/accept, trimmed to their length */
    {
        char *c = strdup(cards[i]);
        if (c) {
            free(cards[i]);
            cards[i] = c;
        }
    }
    dyn.cards = cards;
    dyn.ncards = size;
}

int sm_boot_barrier(void)
{
    return sm_pmi_barrier() ? -1 : 0;
}

void sm_boot_finish(void)
{
    for (int i = 0; i < dyn.ncards; i++)
        free(dyn.cards[i]);
    free(dyn.cards);
    dyn.cards = NULL;
    dyn.ncards = 0;
    sm_pmi_finalize();
}
