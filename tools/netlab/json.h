/* netlab: a minimal JSON reader (DOM) for topology files. Owns parsing only. */
#ifndef NETLAB_JSON_H
#define NETLAB_JSON_H
#include <stddef.h>

typedef enum { JS_NULL, JS_BOOL, JS_NUM, JS_STR, JS_ARR, JS_OBJ } js_type;

typedef struct js_val {
    js_type type;
    double num;            /* JS_NUM, JS_BOOL (0/1) */
    char *str;             /* JS_STR */
    size_t n;              /* JS_ARR / JS_OBJ: number of items */
    char **keys;           /* JS_OBJ */
    struct js_val **items; /* JS_ARR / JS_OBJ */
    int line;              /* line where the value starts, for messages */
} js_val;

/* Parse text; on error returns NULL and writes a message into err. */
js_val *js_parse(const char *text, char *err, size_t errlen);
void js_free(js_val *v);
/* Object member by key, or NULL. */
js_val *js_get(const js_val *obj, const char *key);

#endif
