/* util.h — small shared helpers: logging, tunables from SCTPMPI_* variables, secret
 * comparison, time, lists. */
#ifndef SCTPMPI_UTIL_H
#define SCTPMPI_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* ---- logging: SCTPMPI_VERBOSE=0..3 (0 errors only, 1 warnings, 2 info, 3 debug) ---------- */
extern int sm_verbose;
extern int sm_log_rank;
void sm_log(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
_Noreturn void sm_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
#define SM_ERR(...) sm_log(0, __VA_ARGS__)
#define SM_WARN(...) sm_log(1, __VA_ARGS__)
#define SM_INFO(...) sm_log(2, __VA_ARGS__)
#define SM_DEBUG(...) sm_log(3, __VA_ARGS__)

/* ---- tunables ---------------------------------------------------------------------------- */
/* integer with optional k/K (1024), m/M, g/G suffix; on junk: warn and return dflt */
long long sm_env_size(const char *name, long long dflt);
long long sm_env_int(const char *name, long long dflt);
int sm_env_bool(const char *name, int dflt); /* 1/0, on/off, yes/no, true/false */
const char *sm_env_str(const char *name, const char *dflt);
/* sm_env_size's number, kept only within [lo, hi]; else warn and return dflt */
long long sm_env_range(const char *name, long long dflt, long long lo, long long hi);
/* the index of the value among names[0..n) (any case); unset: dflt; anything else: warn, dflt */
int sm_env_choice(const char *name, const char *const *names, int n, int dflt);

/* A table of tunables parsed into the fields of one struct (a transport's settings): each row
 * names its variable, the field (SM_TU_INT and SM_TU_BOOL: int, SM_TU_SIZE: size_t), the
 * default and, for numbers, the accepted range. */
enum sm_tunable_kind { SM_TU_INT, SM_TU_SIZE, SM_TU_BOOL };
struct sm_tunable {
    const char *name;
    enum sm_tunable_kind kind;
    size_t offset;
    long long dflt, lo, hi;
};
#define SM_TUNABLE(kind, name, type, field, dflt, lo, hi)                                        \
    {                                                                                            \
        name, kind, offsetof(type, field), dflt, lo, hi                                          \
    }
void sm_tunables_load(void *obj, const struct sm_tunable *tab, size_t n);

/* ---- job secret: comparisons whose time does not depend on where the inputs differ ----- */
int sm_bytes_equal(const void *a, const void *b, size_t n);
int sm_secret_equal(const char *a, const char *b, size_t max); /* NUL-terminated within max */

/* ---- time -------------------------------------------------------------------------------- */
/* virtual time (mpiexec --sim): the sim transport installs the rank's virtual clock here
 * (util/clock.c); NULL = CLOCK_MONOTONIC */
extern uint64_t (*sm_clock_hook)(void);
static inline uint64_t sm_now_ns(void)
{
    if (sm_clock_hook)
        return sm_clock_hook();
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- intrusive doubly linked list -------------------------------------------------------- */
struct sm_list {
    struct sm_list *prev, *next;
};
static inline void sm_list_init(struct sm_list *l)
{
    l->prev = l->next = l;
}
static inline int sm_list_empty(const struct sm_list *l)
{
    return l->next == l;
}
static inline void sm_list_insert_before(struct sm_list *pos, struct sm_list *n)
{
    n->next = pos;
    n->prev = pos->prev;
    pos->prev->next = n;
    pos->prev = n;
}
static inline void sm_list_push_back(struct sm_list *l, struct sm_list *n)
{
    sm_list_insert_before(l, n);
}
static inline void sm_list_remove(struct sm_list *n)
{
    n->prev->next = n->next;
    n->next->prev = n->prev;
    n->prev = n->next = n;
}
#define sm_container_of(ptr, type, member) ((type *)((char *)(ptr)-offsetof(type, member)))
#define sm_list_for_each_safe(pos, tmp, head)                                                    \
    for (pos = (head)->next, tmp = pos->next; pos != (head); pos = tmp, tmp = pos->next)

/* ---- open-addressing map from a 64-bit key to a pointer ---------------------------------- */
struct sm_map {
    uint64_t *keys;
    void **vals;
    size_t cap, used;
};
void *sm_map_get(const struct sm_map *m, uint64_t key);
int sm_map_put(struct sm_map *m, uint64_t key, void *val); /* replaces; -1 on ENOMEM */
void sm_map_free(struct sm_map *m);

void *sm_xmalloc(size_t n); /* dies with a clear message when memory is exhausted */
void *sm_xcalloc(size_t n, size_t sz);

#endif
