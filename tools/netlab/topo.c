/* netlab: the topology model, the link selector language and topology-file (JSON) loading. */
#include "topo.h"

#include "json.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void nl_params_default(nl_params *p)
{
    memset(p, 0, sizeof *p);
    p->ge_loss_bad = 1.0;
    p->queue_pkts = 1000;
    p->up = 1;
}

static int pnum(const char *val, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(val, &end);
    if (errno || end == val || *end || !(d >= lo && d <= hi))
        return -1;
    *out = d;
    return 0;
}

static int pbool(const char *v, int *out)
{
    if (!strcmp(v, "1") || !strcasecmp(v, "true") || !strcasecmp(v, "on") ||
        !strcasecmp(v, "yes") || !strcasecmp(v, "up"))
        *out = 1;
    else if (!strcmp(v, "0") || !strcasecmp(v, "false") || !strcasecmp(v, "off") ||
             !strcasecmp(v, "no") || !strcasecmp(v, "down"))
        *out = 0;
    else
        return -1;
    return 0;
}

int nl_params_set(nl_params *p, const char *key, const char *val, char *err, size_t errlen)
{
    double d;
    int b;
#define NUM(lo, hi)                                                                              \
    do {                                                                                         \
        if (pnum(val, lo, hi, &d))                                                               \
            goto bad;                                                                            \
    } while (0)
    if (!strcmp(key, "delay_ms")) {
        NUM(0, 1e6);
        p->delay_ms = d;
    } else if (!strcmp(key, "jitter_ms")) {
        NUM(0, 1e6);
        p->jitter_ms = d;
    } else if (!strcmp(key, "reorder")) {
        if (pbool(val, &b))
            goto bad;
        p->reorder = b;
    } else if (!strcmp(key, "loss")) {
        NUM(0, 1);
        p->loss = d;
    } else if (!strcmp(key, "ge")) {
        if (pbool(val, &b))
            goto bad;
        p->ge_on = b;
    } else if (!strcmp(key, "ge_p")) {
        NUM(0, 1);
        p->ge_p = d;
        p->ge_on = 1;
    } else if (!strcmp(key, "ge_r")) {
        NUM(0, 1);
        p->ge_r = d;
        p->ge_on = 1;
    } else if (!strcmp(key, "ge_loss_good")) {
        NUM(0, 1);
        p->ge_loss_good = d;
        p->ge_on = 1;
    } else if (!strcmp(key, "ge_loss_bad")) {
        NUM(0, 1);
        p->ge_loss_bad = d;
        p->ge_on = 1;
    } else if (!strcmp(key, "ge_burst")) {
        /* mean length of a loss burst (in packets): r = 1/burst, losses only in the bad state */
        NUM(1, 1e9);
        p->ge_r = 1.0 / d;
        p->ge_loss_good = 0;
        p->ge_loss_bad = 1;
        p->ge_on = 1;
    } else if (!strcmp(key, "ge_loss")) {
        /* long-run loss rate with the current ge_r: pi_bad = p/(p+r) = loss */
        NUM(0, 0.999);
        if (p->ge_r <= 0)
            p->ge_r = 1.0;
        p->ge_p = d * p->ge_r / (1.0 - d);
        if (p->ge_p > 1)
            p->ge_p = 1;
        p->ge_on = 1;
    } else if (!strcmp(key, "rate_mbit")) {
        NUM(0, 1e7);
        p->rate_mbit = d;
    } else if (!strcmp(key, "queue_pkts")) {
        NUM(0, 1e7);
        p->queue_pkts = (uint32_t)d;
    } else if (!strcmp(key, "queue_bytes")) {
        NUM(0, 1e12);
        p->queue_bytes = (uint64_t)d;
    } else if (!strcmp(key, "mtu")) {
        NUM(0, 65535);
        p->mtu = (uint32_t)d;
    } else if (!strcmp(key, "up")) {
        if (pbool(val, &b))
            goto bad;
        p->up = b;
    } else if (!strcmp(key, "pcap")) {
        if (pbool(val, &b))
            goto bad;
        p->pcap = b;
    } else {
        snprintf(err, errlen, "unknown link parameter '%s'", key);
        return -1;
    }
#undef NUM
    return 0;
bad:
    snprintf(err, errlen, "bad value '%s' for %s", val, key);
    return -1;
}

int nl_params_format(const nl_params *p, char *buf, size_t len)
{
    return snprintf(
        buf, len,
        "up=%d delay_ms=%g jitter_ms=%g reorder=%d loss=%g ge=%d ge_p=%g ge_r=%g ge_loss_good=%g "
        "ge_loss_bad=%g rate_mbit=%g queue_pkts=%u queue_bytes=%llu mtu=%u pcap=%d",
        p->up, p->delay_ms, p->jitter_ms, p->reorder, p->loss, p->ge_on, p->ge_p, p->ge_r,
        p->ge_loss_good, p->ge_loss_bad, p->rate_mbit, p->queue_pkts,
        (unsigned long long)p->queue_bytes, p->mtu, p->pcap);
}

int nl_host_index(const nl_topo *t, const char *name)
{
    for (int i = 0; i < t->nhosts; i++)
        if (!strcmp(t->hosts[i], name))
            return i;
    return -1;
}

static int host_or_any(const nl_topo *t, const char *name, int *out, char *err, size_t errlen)
{
    if (!strcmp(name, "*")) {
        *out = -1;
        return 0;
    }
    *out = nl_host_index(t, name);
    if (*out < 0) {
        snprintf(err, errlen, "no host named '%s'", name);
        return -1;
    }
    return 0;
}

/* Selector grammar:  HOSTS[@RAIL]  with HOSTS one of  *  |  A  |  A-B  |  A>B  ('*' for any host). */
int nl_sel_parse(const nl_topo *t, const char *spec, nl_sel *s, char *err, size_t errlen)
{
    char buf[128];
    if (strlen(spec) >= sizeof buf) {
        snprintf(err, errlen, "selector too long");
        return -1;
    }
    strcpy(buf, spec);
    s->rail = -1;
    s->a = s->b = -1;
    s->kind = 0;
    char *at = strchr(buf, '@');
    if (at) {
        *at++ = '\0';
        char *end;
        long r = strtol(at, &end, 10);
        if (!*at || *end || r < 0 || r >= t->nrails) {
            snprintf(err, errlen, "bad rail in selector '%s' (rails 0..%d)", spec, t->nrails - 1);
            return -1;
        }
        s->rail = (int)r;
    }
    if (!buf[0] || !strcmp(buf, "*"))
        return 0;
    char *sep = strpbrk(buf, "->");
    if (!sep) {
        s->kind = 1;
        return host_or_any(t, buf, &s->a, err, errlen);
    }
    s->kind = *sep == '-' ? 2 : 3;
    *sep = '\0';
    if (host_or_any(t, buf, &s->a, err, errlen) || host_or_any(t, sep + 1, &s->b, err, errlen))
        return -1;
    return 0;
}

int nl_sel_match(const nl_sel *s, int rail, int src, int dst)
{
    if (s->rail >= 0 && s->rail != rail)
        return 0;
#define M(x, h) ((x) < 0 || (x) == (h))
    switch (s->kind) {
    case 0: return 1;
    case 1: return s->a < 0 || src == s->a || dst == s->a;
    case 2: return (M(s->a, src) && M(s->b, dst)) || (M(s->a, dst) && M(s->b, src));
    default: return M(s->a, src) && M(s->b, dst);
    }
#undef M
}

static char *slurp(const char *path, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t r = fread(buf + n, 1, cap - n - 1, f);
        n += r;
        if (n + 1 < cap)
            break;
        cap *= 2;
        char *nb = realloc(buf, cap);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
    }
    fclose(f);
    if (!buf) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

static int valid_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= 16)
        return 0; /* also used in interface-independent netns names */
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_')
            return 0;
    return 1;
}

/* Apply every parameter key of a JSON object (except skip keys) to params p. ge_loss last. */
static int apply_obj(nl_params *p, const js_val *o, const char *skip, char *err, size_t errlen)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < o->n; i++) {
            const char *k = o->keys[i];
            if (skip && !strcmp(k, skip))
                continue;
            if ((pass == 1) != !strcmp(k, "ge_loss"))
                continue;
            const js_val *v = o->items[i];
            char val[64], e2[160];
            if (v->type == JS_NUM)
                snprintf(val, sizeof val, "%.17g", v->num);
            else if (v->type == JS_BOOL)
                snprintf(val, sizeof val, "%d", (int)v->num);
            else if (v->type == JS_STR && strlen(v->str) < sizeof val)
                strcpy(val, v->str);
            else {
                snprintf(err, errlen, "line %d: value of '%s' must be a number or boolean",
                         v->line, k);
                return -1;
            }
            if (nl_params_set(p, k, val, e2, sizeof e2)) {
                snprintf(err, errlen, "line %d: %s", v->line, e2);
                return -1;
            }
        }
    }
    return 0;
}

int nl_cmd_check(const nl_topo *t, const char *cmd, char *err, size_t errlen)
{
    char copy[1024], *save = NULL;
    snprintf(copy, sizeof copy, "%s", cmd);
    char *verb = strtok_r(copy, " \t", &save), *sel = verb ? strtok_r(NULL, " \t", &save) : NULL;
    if (!verb || (strcmp(verb, "down") && strcmp(verb, "up") && strcmp(verb, "set"))) {
        snprintf(err, errlen,
                 "'%s': commands are down SELECTOR, up SELECTOR, set SELECTOR key=value...", cmd);
        return -1;
    }
    nl_sel s;
    if (!sel) {
        snprintf(err, errlen, "'%s': missing selector", cmd);
        return -1;
    }
    if (nl_sel_parse(t, sel, &s, err, errlen))
        return -1;
    nl_params p;
    nl_params_default(&p);
    for (char *kv = strtok_r(NULL, " \t", &save); kv; kv = strtok_r(NULL, " \t", &save)) {
        char *eq = strchr(kv, '=');
        if (strcmp(verb, "set") || !eq) {
            snprintf(err, errlen, "'%s': unexpected '%s'", cmd, kv);
            return -1;
        }
        *eq = '\0';
        if (nl_params_set(&p, kv, eq + 1, err, errlen))
            return -1;
    }
    return 0;
}

/* Apply NIC keys of object o to host (or every host, -1) on rail (or every rail, -1). */
static int nic_apply(nl_topo *t, const js_val *o, int host, int rail, char *err, size_t errlen)
{
    for (size_t k = 0; k < o->n; k++) {
        const char *key = o->keys[k];
        const js_val *v = o->items[k];
        if (!strcmp(key, "host") || !strcmp(key, "rail"))
            continue;
        if (v->type != JS_NUM || v->num < 0) {
            snprintf(err, errlen, "line %d: '%s' must be a number >= 0", v->line, key);
            return -1;
        }
        for (int r = 0; r < t->nrails; r++)
            for (int h = 0; h < t->nhosts; h++) {
                if ((rail >= 0 && r != rail) || (host >= 0 && h != host))
                    continue;
                nl_nic *n = &t->nics[r * t->nhosts + h];
                if (!strcmp(key, "rate_mbit"))
                    n->rate_mbit = v->num;
                else if (!strcmp(key, "queue_pkts"))
                    n->queue_pkts = (uint32_t)v->num;
                else if (!strcmp(key, "queue_bytes"))
                    n->queue_bytes = (uint64_t)v->num;
                else {
                    snprintf(err, errlen,
                             "unknown NIC parameter '%s' (rate_mbit, queue_pkts, queue_bytes)",
                             key);
                    return -1;
                }
            }
    }
    return 0;
}

int nl_topo_load(nl_topo *t, const char *path, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    char *text = slurp(path, err, errlen);
    if (!text)
        return -1;
    char e2[200];
    js_val *root = js_parse(text, e2, sizeof e2);
    free(text);
    if (!root) {
        snprintf(err, errlen, "%s: %s", path, e2);
        return -1;
    }
    int rc = -1;
    const js_val *v;
#define FAIL(...)                                                                                \
    do {                                                                                         \
        int o_ = snprintf(err, errlen, "%s: ", path);                                            \
        if (o_ > 0 && (size_t)o_ < errlen)                                                       \
            snprintf(err + o_, errlen - (size_t)o_, __VA_ARGS__);                                \
        goto out;                                                                                \
    } while (0)
    if (root->type != JS_OBJ)
        FAIL("the top level must be an object");
    static const char *known[] = { "hosts",  "rails", "mtu",  "seed", "defaults", "links",
                                   "events", "nic",   "nics", "name", "comment",  NULL };
    for (size_t i = 0; i < root->n; i++) {
        int ok = 0;
        for (int k = 0; known[k]; k++)
            ok |= !strcmp(root->keys[i], known[k]);
        if (!ok)
            FAIL("unknown top-level key '%s'", root->keys[i]);
    }
    v = js_get(root, "hosts");
    if (!v)
        FAIL("missing \"hosts\" (a list of names or a count)");
    if (v->type == JS_NUM) {
        if (v->num < 2 || v->num > NL_MAX_HOSTS)
            FAIL("\"hosts\" must be 2..%d", NL_MAX_HOSTS);
        t->nhosts = (int)v->num;
        for (int i = 0; i < t->nhosts; i++)
            snprintf(t->hosts[i], NL_NAME_MAX, "h%d", i);
    } else if (v->type == JS_ARR) {
        if (v->n < 1 || v->n > NL_MAX_HOSTS)
            FAIL("\"hosts\" must list 1..%d names", NL_MAX_HOSTS);
        t->nhosts = (int)v->n;
        for (size_t i = 0; i < v->n; i++) {
            const js_val *h = v->items[i];
            if (h->type == JS_OBJ)
                h = js_get(h, "name");
            if (!h || h->type != JS_STR || !valid_name(h->str))
                FAIL("host %zu: names are 1-15 characters of [A-Za-z0-9_]", i);
            if (nl_host_index(t, h->str) >= 0)
                FAIL("host '%s' listed twice", h->str);
            snprintf(t->hosts[i], NL_NAME_MAX, "%s", h->str);
        }
    } else
        FAIL("\"hosts\" must be a list of names or a count");
    v = js_get(root, "rails");
    t->nrails = 1;
    if (v) {
        if (v->type != JS_NUM || v->num < 1 || v->num > NL_MAX_RAILS)
            FAIL("\"rails\" must be 1..%d", NL_MAX_RAILS);
        t->nrails = (int)v->num;
    }
    for (int r = 0; r < t->nrails; r++)
        t->rail_mtu[r] = 1500;
    v = js_get(root, "mtu");
    if (v) {
        if (v->type == JS_NUM) {
            for (int r = 0; r < t->nrails; r++)
                t->rail_mtu[r] = (uint32_t)v->num;
        } else if (v->type == JS_ARR && (int)v->n == t->nrails) {
            for (int r = 0; r < t->nrails; r++)
                t->rail_mtu[r] = v->items[r]->type == JS_NUM ? (uint32_t)v->items[r]->num : 0;
        } else
            FAIL("\"mtu\" must be a number or a list with one number per rail");
        for (int r = 0; r < t->nrails; r++)
            if (t->rail_mtu[r] < 576 || t->rail_mtu[r] > 65000)
                FAIL("rail %d: mtu must be 576..65000", r);
    }
    v = js_get(root, "seed");
    t->seed = v && v->type == JS_NUM ? (uint64_t)v->num : 1;
    size_t nl = (size_t)t->nrails * (size_t)t->nhosts * (size_t)t->nhosts;
    t->links = calloc(nl, sizeof *t->links);
    if (!t->links)
        FAIL("out of memory");
    nl_params def;
    nl_params_default(&def);
    v = js_get(root, "defaults");
    if (v) {
        if (v->type != JS_OBJ)
            FAIL("\"defaults\" must be an object of link parameters");
        if (apply_obj(&def, v, NULL, e2, sizeof e2))
            FAIL("defaults: %s", e2);
    }
    for (size_t i = 0; i < nl; i++)
        t->links[i] = def;
    v = js_get(root, "links");
    if (v) {
        if (v->type != JS_ARR)
            FAIL("\"links\" must be a list of {\"link\": SELECTOR, parameters...}");
        for (size_t i = 0; i < v->n; i++) {
            const js_val *o = v->items[i], *l = js_get(o, "link");
            nl_sel s;
            if (o->type != JS_OBJ || !l || l->type != JS_STR)
                FAIL("links[%zu]: needs \"link\": \"a-b@0\" (or a>b, a, *, with optional @rail)",
                     i);
            if (nl_sel_parse(t, l->str, &s, e2, sizeof e2))
                FAIL("links[%zu]: %s", i, e2);
            nl_params tmp;
            nl_params_default(&tmp);
            if (apply_obj(&tmp, o, "link", e2, sizeof e2))
                FAIL("links[%zu]: %s", i, e2);
            for (int r = 0; r < t->nrails; r++)
                for (int a = 0; a < t->nhosts; a++)
                    for (int b = 0; b < t->nhosts; b++)
                        if (a != b && nl_sel_match(&s, r, a, b)) {
                            nl_params *p = &t->links[nl_link_index(t, r, a, b)];
                            if (apply_obj(p, o, "link", e2, sizeof e2))
                                FAIL("links[%zu]: %s", i, e2);
                        }
        }
    }
    t->nics = calloc((size_t)t->nrails * (size_t)t->nhosts, sizeof *t->nics);
    if (!t->nics)
        FAIL("out of memory");
    for (int i = 0; i < t->nrails * t->nhosts; i++)
        t->nics[i].queue_pkts = 1000;
    v = js_get(root, "nic");
    if (v) {
        if (v->type != JS_OBJ)
            FAIL("\"nic\" must be an object {\"rate_mbit\": ..., \"queue_pkts\": ...}");
        if (nic_apply(t, v, -1, -1, e2, sizeof e2))
            FAIL("nic: %s", e2);
    }
    v = js_get(root, "nics");
    if (v) {
        if (v->type != JS_ARR)
            FAIL("\"nics\" must be a list of {\"host\": NAME or \"*\", \"rail\": R (optional), "
                 "\"rate_mbit\": ...}");
        for (size_t i = 0; i < v->n; i++) {
            const js_val *o = v->items[i], *h = js_get(o, "host"), *r = js_get(o, "rail");
            int host = -1, rail = -1;
            if (o->type != JS_OBJ || !h || h->type != JS_STR)
                FAIL("nics[%zu]: needs \"host\"", i);
            if (strcmp(h->str, "*") && (host = nl_host_index(t, h->str)) < 0)
                FAIL("nics[%zu]: no host named '%s'", i, h->str);
            if (r && (r->type != JS_NUM || r->num < 0 || r->num >= t->nrails))
                FAIL("nics[%zu]: bad rail", i);
            if (r)
                rail = (int)r->num;
            if (nic_apply(t, o, host, rail, e2, sizeof e2))
                FAIL("nics[%zu]: %s", i, e2);
        }
    }
    v = js_get(root, "events");
    if (v) {
        if (v->type != JS_ARR)
            FAIL("\"events\" must be a list of {\"at\": seconds, \"do\": command}");
        t->events = calloc(v->n + 1, sizeof *t->events);
        if (!t->events)
            FAIL("out of memory");
        for (size_t i = 0; i < v->n; i++) {
            const js_val *o = v->items[i], *at = js_get(o, "at"), *d = js_get(o, "do");
            if (o->type != JS_OBJ || !at || at->type != JS_NUM || at->num < 0 || !d ||
                d->type != JS_STR)
                FAIL("events[%zu]: needs \"at\": seconds and \"do\": \"down a-b@0\" (or up / set "
                     "...)",
                     i);
            if (nl_cmd_check(t, d->str, e2, sizeof e2))
                FAIL("events[%zu]: %s", i, e2);
            t->events[i].at_ms = (int)(at->num * 1000.0 + 0.5);
            t->events[i].cmd = strdup(d->str);
            t->nevents++;
        }
        /* stable sort by time */
        for (int i = 1; i < t->nevents; i++)
            for (int j = i; j > 0 && t->events[j - 1].at_ms > t->events[j].at_ms; j--) {
                nl_event x = t->events[j];
                t->events[j] = t->events[j - 1];
                t->events[j - 1] = x;
            }
    }
    rc = 0;
#undef FAIL
out:
    js_free(root);
    if (rc)
        nl_topo_free(t);
    return rc;
}

void nl_topo_free(nl_topo *t)
{
    for (int i = 0; i < t->nevents; i++)
        free(t->events[i].cmd);
    free(t->events);
    free(t->links);
    free(t->nics);
    t->events = NULL;
    t->links = NULL;
    t->nics = NULL;
    t->nevents = 0;
}
