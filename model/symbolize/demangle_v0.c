/*
 * demangle_v0.c - Rust v0 symbol names (_R...), RFC 2603, printed as
 * rustc-demangle's short form: crate::module::Type<T>::method, closures as
 * {closure#N}, impls as <T> / <T as Trait>, hashes and crate
 * disambiguators left out.  Recursion is bounded and back-references must
 * point backwards, so no input can loop; anything malformed gives NULL
 * (the name stays mangled).
 */
#include <stdlib.h>
#include <string.h>

#include "sym_int.h"

#define V0_MAX_DEPTH 64
#define V0_MAX_OUT 4096

typedef struct v0 {
    const char *s; /* after "_R" */
    size_t n, pos;
    char out[V0_MAX_OUT];
    size_t len;
    int depth, bad;
} v0;

static void emit(v0 *d, const char *t, size_t n)
{
    if (d->len + n >= sizeof d->out) {
        d->bad = 1;
        return;
    }
    memcpy(d->out + d->len, t, n);
    d->len += n;
}
static void emits(v0 *d, const char *t) { emit(d, t, strlen(t)); }

static int peek(v0 *d) { return d->pos < d->n ? d->s[d->pos] : 0; }
static int eat(v0 *d, char c)
{
    if (peek(d) == c) {
        d->pos++;
        return 1;
    }
    return 0;
}
static int next(v0 *d)
{
    if (d->pos >= d->n) {
        d->bad = 1;
        return 0;
    }
    return d->s[d->pos++];
}

/* base-62-number: "_" = 0, else digits "_" = value + 1 */
static uint64_t base62(v0 *d)
{
    if (eat(d, '_'))
        return 0;
    uint64_t v = 0;
    for (;;) {
        int c = next(d);
        if (c == '_')
            break;
        int k = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'z' ? c - 'a' + 10
              : c >= 'A' && c <= 'Z' ? c - 'A' + 36 : -1;
        if (k < 0 || v > (UINT64_MAX - 62) / 62) {
            d->bad = 1;
            return 0;
        }
        v = v * 62 + (uint64_t)k;
    }
    return v + 1;
}

static uint64_t decimal(v0 *d)
{
    int c = peek(d);
    if (c < '0' || c > '9') {
        d->bad = 1;
        return 0;
    }
    if (c == '0') {
        d->pos++;
        return 0;
    }
    uint64_t v = 0;
    while ((c = peek(d)) >= '0' && c <= '9') {
        if (v > 100000000) {
            d->bad = 1;
            return 0;
        }
        v = v * 10 + (uint64_t)(c - '0');
        d->pos++;
    }
    return v;
}

static void disambiguator(v0 *d)
{
    if (eat(d, 's'))
        base62(d);
}

/* undisambiguated-identifier: ["u"] decimal ["_"] bytes */
static void ident_raw(v0 *d, const char **p, size_t *n, int *puny)
{
    *puny = eat(d, 'u');
    uint64_t len = decimal(d);
    eat(d, '_');
    if (d->bad || len > d->n - d->pos) {
        d->bad = 1;
        *p = "";
        *n = 0;
        return;
    }
    *p = d->s + d->pos;
    *n = (size_t)len;
    d->pos += (size_t)len;
}

static void print_ident(v0 *d, const char *p, size_t n, int puny)
{
    if (puny) {
        emits(d, "punycode{");
        emit(d, p, n);
        emits(d, "}");
    } else {
        emit(d, p, n);
    }
}

static void path(v0 *d, int in_value);
static void type(v0 *d);

/* Run f at a back-reference's position, then come back. */
static int backref(v0 *d, void (*f)(v0 *, int), int arg)
{
    size_t at = d->pos - 1;
    uint64_t target = base62(d);
    if (d->bad || target >= at) { /* must point backwards */
        d->bad = 1;
        return 0;
    }
    size_t save = d->pos;
    d->pos = (size_t)target;
    f(d, arg);
    d->pos = save;
    return 1;
}

static void path_thunk(v0 *d, int in_value) { path(d, in_value); }
static void type_thunk(v0 *d, int unused) { (void)unused; type(d); }

static void lifetime(v0 *d)
{
    base62(d); /* lifetimes are not printed in the short form */
}

static void konst(v0 *d)
{
    if (eat(d, 'p')) {
        emits(d, "_");
        return;
    }
    if (eat(d, 'B')) {
        /* a back-reference to a const: print it as "_" (rare, short form) */
        base62(d);
        emits(d, "_");
        return;
    }
    int t = next(d); /* the const's type: integers, bool, char */
    int neg = eat(d, 'n');
    uint64_t v = 0;
    int digits = 0;
    for (int c; (c = next(d)) != '_' && !d->bad;) {
        int k = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (k < 0 || ++digits > 16) {
            d->bad = 1;
            return;
        }
        v = v << 4 | (uint64_t)k;
    }
    char buf[32];
    if (t == 'b') {
        emits(d, v ? "true" : "false");
    } else if (t == 'c' && v < 128 && v >= 32) {
        buf[0] = '\'';
        buf[1] = (char)v;
        buf[2] = '\'';
        emit(d, buf, 3);
    } else {
        int i = (int)sizeof buf;
        buf[--i] = '\0';
        do
            buf[--i] = (char)('0' + v % 10);
        while ((v /= 10) && i > 1);
        if (neg)
            buf[--i] = '-';
        emits(d, buf + i);
    }
}

static void generic_args(v0 *d)
{
    emits(d, "<");
    for (int first = 1; !eat(d, 'E') && !d->bad; first = 0) {
        if (!first)
            emits(d, ", ");
        if (eat(d, 'L'))
            { lifetime(d); emits(d, "'_"); }
        else if (eat(d, 'K'))
            konst(d);
        else
            type(d);
    }
    emits(d, ">");
}

static const char *basic_type(int c)
{
    switch (c) {
    case 'a': return "i8";
    case 'b': return "bool";
    case 'c': return "char";
    case 'd': return "f64";
    case 'e': return "str";
    case 'f': return "f32";
    case 'h': return "u8";
    case 'i': return "isize";
    case 'j': return "usize";
    case 'l': return "i32";
    case 'm': return "u32";
    case 'n': return "i128";
    case 'o': return "u128";
    case 's': return "i16";
    case 't': return "u16";
    case 'u': return "()";
    case 'v': return "...";
    case 'x': return "i64";
    case 'y': return "u64";
    case 'z': return "!";
    case 'p': return "_";
    default: return NULL;
    }
}

static void fn_sig(v0 *d)
{
    if (eat(d, 'G'))
        base62(d);
    if (eat(d, 'U'))
        emits(d, "unsafe ");
    if (eat(d, 'K')) {
        emits(d, "extern \"");
        if (eat(d, 'C')) {
            emits(d, "C");
        } else {
            const char *p;
            size_t n;
            int puny;
            ident_raw(d, &p, &n, &puny);
            for (size_t i = 0; i < n; i++)
                emit(d, p[i] == '_' ? "-" : p + i, 1);
        }
        emits(d, "\" ");
    }
    emits(d, "fn(");
    for (int first = 1; !eat(d, 'E') && !d->bad; first = 0) {
        if (!first)
            emits(d, ", ");
        type(d);
    }
    emits(d, ")");
    if (peek(d) == 'u') {
        d->pos++;
    } else {
        emits(d, " -> ");
        type(d);
    }
}

static void type(v0 *d)
{
    if (d->bad || ++d->depth > V0_MAX_DEPTH) {
        d->bad = 1;
        return;
    }
    int c = next(d);
    const char *b = basic_type(c);
    if (b) {
        emits(d, b);
    } else if (c == 'A' || c == 'S') {
        emits(d, "[");
        type(d);
        if (c == 'A') {
            emits(d, "; ");
            konst(d);
        }
        emits(d, "]");
    } else if (c == 'T') {
        emits(d, "(");
        int k = 0;
        for (; !eat(d, 'E') && !d->bad; k++) {
            if (k)
                emits(d, ", ");
            type(d);
        }
        if (k == 1)
            emits(d, ",");
        emits(d, ")");
    } else if (c == 'R' || c == 'Q') {
        emits(d, c == 'R' ? "&" : "&mut ");
        if (eat(d, 'L'))
            lifetime(d);
        type(d);
    } else if (c == 'P' || c == 'O') {
        emits(d, c == 'P' ? "*const " : "*mut ");
        type(d);
    } else if (c == 'F') {
        fn_sig(d);
    } else if (c == 'D') {
        emits(d, "dyn ");
        if (eat(d, 'G'))
            base62(d);
        for (int first = 1; !eat(d, 'E') && !d->bad; first = 0) {
            if (!first)
                emits(d, " + ");
            path(d, 0);
            /* associated type bindings go with the trait's generic args:
             * Fn<(A,), Output = R> */
            for (int nb = 0; eat(d, 'p') && !d->bad; nb++) {
                const char *p;
                size_t n;
                int puny;
                ident_raw(d, &p, &n, &puny);
                if (nb == 0 && d->len && d->out[d->len - 1] == '>') {
                    d->len--;
                    emits(d, ", ");
                } else {
                    emits(d, nb == 0 ? "<" : ", ");
                }
                print_ident(d, p, n, puny);
                emits(d, " = ");
                type(d);
                if (peek(d) != 'p')
                    emits(d, ">");
            }
        }
        if (eat(d, 'L'))
            lifetime(d);
    } else if (c == 'B') {
        backref(d, type_thunk, 0);
    } else {
        d->pos--;
        path(d, 0);
    }
    d->depth--;
}

/* in_value: paths in value position print generic args as ::<...> */
static void path(v0 *d, int in_value)
{
    if (d->bad || ++d->depth > V0_MAX_DEPTH) {
        d->bad = 1;
        return;
    }
    int c = next(d);
    const char *p;
    size_t n;
    int puny;
    switch (c) {
    case 'C': /* crate root */
        disambiguator(d);
        ident_raw(d, &p, &n, &puny);
        print_ident(d, p, n, puny);
        break;
    case 'M':   /* <T> */
    case 'X': { /* <T as Trait> */
        disambiguator(d);
        size_t save = d->len; /* the impl path is not printed in the short form */
        path(d, 0);
        d->len = save;
        emits(d, "<");
        type(d);
        if (c == 'X') {
            emits(d, " as ");
            path(d, 0);
        }
        emits(d, ">");
        break;
    }
    case 'Y': /* <T as Trait> in a trait definition */
        emits(d, "<");
        type(d);
        emits(d, " as ");
        path(d, 0);
        emits(d, ">");
        break;
    case 'N': {
        int ns = next(d);
        path(d, in_value);
        uint64_t dis = 0;
        if (eat(d, 's'))
            dis = base62(d) + 1;
        ident_raw(d, &p, &n, &puny);
        if (ns >= 'A' && ns <= 'Z') {
            emits(d, "::{");
            emits(d, ns == 'C' ? "closure" : ns == 'S' ? "shim" : "");
            if (!(ns == 'C' || ns == 'S'))
                emit(d, (const char *)&ns, 1);
            if (n) {
                emits(d, ":");
                print_ident(d, p, n, puny);
            }
            char buf[24];
            int k = (int)sizeof buf;
            buf[--k] = '\0';
            do
                buf[--k] = (char)('0' + dis % 10);
            while ((dis /= 10) && k > 1);
            emits(d, "#");
            emits(d, buf + k);
            emits(d, "}");
        } else if (n) {
            emits(d, "::");
            print_ident(d, p, n, puny);
        }
        break;
    }
    case 'I':
        path(d, in_value);
        if (in_value)
            emits(d, "::");
        generic_args(d);
        break;
    case 'B':
        backref(d, path_thunk, in_value);
        break;
    default:
        d->bad = 1;
    }
    d->depth--;
}

char *sym_demangle_rust_v0(const char *name)
{
    if (strncmp(name, "_R", 2) != 0)
        return NULL;
    v0 *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->s = name + 2;
    d->n = strlen(d->s);
    /* an optional encoding version (decimal) */
    if (peek(d) >= '0' && peek(d) <= '9')
        d->bad = 1; /* only version 0 (no number) exists */
    path(d, 1);
    /* an instantiating crate may follow; a vendor suffix starts with '.' or '$' */
    char *r = NULL;
    if (!d->bad) {
        d->out[d->len] = '\0';
        r = strdup(d->out);
    }
    free(d);
    return r;
}
