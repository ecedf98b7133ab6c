/* netlab: a minimal JSON reader (DOM) for topology files. Owns parsing only.
 * Accepts standard JSON plus '#' and '//' line comments for hand-written topologies. */
#include "json.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *s;
    int line;
    char *err;
    size_t errlen;
    int failed;
} jp;

static void fail(jp *p, const char *what)
{
    if (!p->failed)
        snprintf(p->err, p->errlen, "line %d: %s", p->line, what);
    p->failed = 1;
}

static void ws(jp *p)
{
    for (;;) {
        char c = *p->s;
        if (c == '\n') {
            p->line++;
            p->s++;
        } else if (c == ' ' || c == '\t' || c == '\r')
            p->s++;
        else if (c == '#' || (c == '/' && p->s[1] == '/')) {
            while (*p->s && *p->s != '\n')
                p->s++;
        } else
            return;
    }
}

static js_val *mk(jp *p, js_type t)
{
    js_val *v = calloc(1, sizeof *v);
    if (!v) {
        fail(p, "out of memory");
        return NULL;
    }
    v->type = t;
    v->line = p->line;
    return v;
}

static int push(jp *p, js_val *v, char *key, js_val *item)
{
    js_val **ni = realloc(v->items, (v->n + 1) * sizeof *ni);
    if (!ni) {
        fail(p, "out of memory");
        return -1;
    }
    v->items = ni;
    if (v->type == JS_OBJ) {
        char **nk = realloc(v->keys, (v->n + 1) * sizeof *nk);
        if (!nk) {
            fail(p, "out of memory");
            return -1;
        }
        v->keys = nk;
        v->keys[v->n] = key;
    }
    v->items[v->n++] = item;
    return 0;
}

static char *pstring(jp *p)
{
    /* p->s at opening quote */
    p->s++;
    size_t cap = 16, n = 0;
    char *out = malloc(cap);
    if (!out) {
        fail(p, "out of memory");
        return NULL;
    }
    for (;;) {
        char c = *p->s++;
        if (c == '\0' || c == '\n') {
            fail(p, "unterminated string");
            free(out);
            return NULL;
        }
        if (c == '"')
            break;
        if (c == '\\') {
            char e = *p->s++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case '/':
            case '\\':
            case '"': c = e; break;
            case 'u': {
                unsigned cp = 0;
                for (int i = 0; i < 4; i++) {
                    char h = *p->s++;
                    if (!isxdigit((unsigned char)h)) {
                        fail(p, "bad \\u escape");
                        free(out);
                        return NULL;
                    }
                    cp = cp * 16 + (unsigned)(isdigit((unsigned char)h)
                                                  ? h - '0'
                                                  : (tolower((unsigned char)h) - 'a' + 10));
                }
                c = cp < 128 ? (char)cp : '?'; /* topology files are ASCII */
                break;
            }
            default:
                fail(p, "bad escape");
                free(out);
                return NULL;
            }
        }
        if (n + 2 > cap) {
            cap *= 2;
            char *o = realloc(out, cap);
            if (!o) {
                fail(p, "out of memory");
                free(out);
                return NULL;
            }
            out = o;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return out;
}

static js_val *pvalue(jp *p, int depth)
{
    ws(p);
    if (depth > 64) {
        fail(p, "nesting too deep");
        return NULL;
    }
    char c = *p->s;
    js_val *v = NULL;
    if (c == '{' || c == '[') {
        int obj = c == '{';
        v = mk(p, obj ? JS_OBJ : JS_ARR);
        if (!v)
            return NULL;
        p->s++;
        ws(p);
        if (*p->s == (obj ? '}' : ']')) {
            p->s++;
            return v;
        }
        for (;;) {
            char *key = NULL;
            ws(p);
            if (obj) {
                if (*p->s != '"') {
                    fail(p, "expected a \"key\"");
                    break;
                }
                key = pstring(p);
                if (!key)
                    break;
                ws(p);
                if (*p->s != ':') {
                    fail(p, "expected ':'");
                    free(key);
                    break;
                }
                p->s++;
            }
            js_val *item = pvalue(p, depth + 1);
            if (!item) {
                free(key);
                break;
            }
            if (push(p, v, key, item)) {
                free(key);
                js_free(item);
                break;
            }
            ws(p);
            if (*p->s == ',') {
                p->s++;
                continue;
            }
            if (*p->s == (obj ? '}' : ']')) {
                p->s++;
                return v;
            }
            fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
            break;
        }
        js_free(v);
        return NULL;
    }
    if (c == '"') {
        v = mk(p, JS_STR);
        if (!v)
            return NULL;
        v->str = pstring(p);
        if (!v->str) {
            js_free(v);
            return NULL;
        }
        return v;
    }
    if (!strncmp(p->s, "true", 4) || !strncmp(p->s, "false", 5)) {
        v = mk(p, JS_BOOL);
        if (!v)
            return NULL;
        v->num = c == 't';
        p->s += c == 't' ? 4 : 5;
        return v;
    }
    if (!strncmp(p->s, "null", 4)) {
        p->s += 4;
        return mk(p, JS_NULL);
    }
    if (c == '-' || isdigit((unsigned char)c)) {
        char *end;
        double d = strtod(p->s, &end);
        if (end == p->s) {
            fail(p, "bad number");
            return NULL;
        }
        v = mk(p, JS_NUM);
        if (!v)
            return NULL;
        v->num = d;
        p->s = end;
        return v;
    }
    fail(p, c ? "unexpected character" : "unexpected end of input");
    return NULL;
}

js_val *js_parse(const char *text, char *err, size_t errlen)
{
    jp p = { text, 1, err, errlen, 0 };
    js_val *v = pvalue(&p, 0);
    if (!v)
        return NULL;
    ws(&p);
    if (*p.s) {
        fail(&p, "trailing characters after the top-level value");
        js_free(v);
        return NULL;
    }
    return v;
}

void js_free(js_val *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        js_free(v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->str);
    free(v);
}

js_val *js_get(const js_val *obj, const char *key)
{
    if (!obj || obj->type != JS_OBJ)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (!strcmp(obj->keys[i], key))
            return obj->items[i];
    return NULL;
}
