/* netlab: the topology model (hosts, rails, directed links and their emulation parameters),
 * the link selector language ("a-b@0", "a>b", "h0@1", "*") and topology-file loading. */
#ifndef NETLAB_TOPO_H
#define NETLAB_TOPO_H
#include <stddef.h>
#include <stdint.h>

#define NL_MAX_HOSTS 250
#define NL_MAX_RAILS 64
#define NL_NAME_MAX 32

/* Emulation parameters of one directed link (one direction of a host pair on one rail). */
typedef struct {
    double delay_ms;      /* one-way propagation delay */
    double jitter_ms;     /* uniform in [-jitter, +jitter] added to the delay */
    int reorder;          /* 0: jitter never reorders (release times kept monotonic) */
    double loss;          /* Bernoulli loss probability */
    int ge_on;            /* Gilbert-Elliott enabled */
    double ge_p;          /* P(good -> bad) per packet */
    double ge_r;          /* P(bad -> good) per packet */
    double ge_loss_good;  /* loss probability in the good state */
    double ge_loss_bad;   /* loss probability in the bad state */
    double rate_mbit;     /* serialisation rate, 0 = unlimited */
    uint32_t queue_pkts;  /* drop-tail limit on packets waiting for serialisation, 0 = none */
    uint64_t queue_bytes; /* same in bytes, 0 = none */
    uint32_t mtu;         /* packets larger than this are dropped; 0 = rail MTU */
    int up;               /* link state */
    int pcap;             /* capture delivered packets of this link */
} nl_params;

/* A host's interface on one rail (its NIC and the switch port facing it): an optional rate
 * shared by all of the host's traffic on that rail, separately in each direction. */
typedef struct {
    double rate_mbit;    /* 0 = no NIC limit (only the pair links' own rules) */
    uint32_t queue_pkts; /* drop-tail limit of the NIC queue and of the switch port queue */
    uint64_t queue_bytes;
} nl_nic;

typedef struct {
    int at_ms; /* time since the network came up */
    char *cmd; /* a control command, e.g. "down h0-h1@0" */
} nl_event;

typedef struct {
    int nhosts, nrails;
    char hosts[NL_MAX_HOSTS][NL_NAME_MAX];
    uint32_t rail_mtu[NL_MAX_RAILS];
    uint64_t seed;
    nl_params *links; /* [rail][src][dst], see nl_link_index */
    nl_nic *nics;     /* [rail][host] */
    nl_event *events;
    int nevents;
} nl_topo;

static inline size_t nl_link_index(const nl_topo *t, int rail, int src, int dst)
{
    return ((size_t)rail * (size_t)t->nhosts + (size_t)src) * (size_t)t->nhosts + (size_t)dst;
}

/* A parsed selector: which directed links a command or a "links" entry applies to. */
typedef struct {
    int rail; /* -1 = every rail */
    int a, b; /* host indices, -1 = any */
    int kind; /* 0 all, 1 single host (a as src or dst), 2 pair both ways, 3 one way a->b */
} nl_sel;

void nl_params_default(nl_params *p);
/* Set one parameter by name from a string value; returns 0 or -1 with a message in err. */
int nl_params_set(nl_params *p, const char *key, const char *val, char *err, size_t errlen);
/* Print parameters as "key=value ..." */
int nl_params_format(const nl_params *p, char *buf, size_t len);

int nl_sel_parse(const nl_topo *t, const char *spec, nl_sel *s, char *err, size_t errlen);
int nl_sel_match(const nl_sel *s, int rail, int src, int dst);

/* Check an event command ("down SEL", "up SEL", "set SEL k=v...") against the topology. */
int nl_cmd_check(const nl_topo *t, const char *cmd, char *err, size_t errlen);
int nl_host_index(const nl_topo *t, const char *name);
/* Load a topology file; returns 0, or -1 with a message. */
int nl_topo_load(nl_topo *t, const char *path, char *err, size_t errlen);
void nl_topo_free(nl_topo *t);

#endif
