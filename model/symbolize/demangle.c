/*
 * demangle.c - C++ names through libstdc++'s __cxa_demangle, loaded at run
 * time (this library stays C; without libstdc++ names stay mangled), and
 * Rust legacy names (_ZN...17h<hash>E) without their hash and escapes.
 * Rust v0 names (_R...) go to demangle_v0.c.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "sym_int.h"

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);

static cxa_demangle_fn load_cxa_demangle(void)
{
    static int tried;
    static cxa_demangle_fn fn;
    if (!tried) {
        tried = 1;
        void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
        if (h)
            fn = (cxa_demangle_fn)(uintptr_t)dlsym(h, "__cxa_demangle");
    }
    return fn;
}

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* _ZN ... 17h<16 hex>E : a Rust legacy symbol. */
static int is_rust_legacy(const char *m)
{
    size_t n = strlen(m);
    if (strncmp(m, "_ZN", 3) != 0 || n < 3 + 20 || m[n - 1] != 'E')
        return 0;
    const char *h = m + n - 1 - 16;
    if (strncmp(h - 3, "17h", 3) != 0)
        return 0;
    for (int i = 0; i < 16; i++)
        if (!is_hex(h[i]))
            return 0;
    return 1;
}

static const struct { const char *esc, *rep; } rust_escapes[] = {
    { "$SP$", "@" }, { "$BP$", "*" }, { "$RF$", "&" }, { "$LT$", "<" }, { "$GT$", ">" },
    { "$LP$", "(" }, { "$RP$", ")" }, { "$C$", "," }, { "$u20$", " " }, { "$u22$", "\"" },
    { "$u27$", "'" }, { "$u2b$", "+" }, { "$u3b$", ";" }, { "$u5b$", "[" }, { "$u5d$", "]" },
    { "$u7b$", "{" }, { "$u7d$", "}" }, { "$u7e$", "~" },
};

/* Rewrite a demangled Rust legacy name in place: drop "::h<hash>", decode
 * the $..$ escapes and ".." (which stands for "::"). */
static void rust_cleanup(char *d)
{
    size_t n = strlen(d);
    if (n > 19 && strncmp(d + n - 19, "::h", 3) == 0) {
        int ok = 1;
        for (int i = 0; i < 16; i++)
            ok &= is_hex(d[n - 16 + i]);
        if (ok)
            d[n - 19] = '\0';
    }
    char *w = d;
    for (const char *r = d; *r;) {
        /* "_$" starts a component that begins with an escape */
        if (r[0] == '_' && r[1] == '$' && (r == d || (w - d >= 2 && w[-1] == ':' && w[-2] == ':'))) {
            r++;
            continue;
        }
        size_t k, nesc = sizeof rust_escapes / sizeof rust_escapes[0];
        for (k = 0; k < nesc; k++) {
            size_t l = strlen(rust_escapes[k].esc);
            if (strncmp(r, rust_escapes[k].esc, l) == 0) {
                *w++ = rust_escapes[k].rep[0];
                r += l;
                break;
            }
        }
        if (k < nesc)
            continue;
        if (r[0] == '.' && r[1] == '.') {
            *w++ = ':';
            *w++ = ':';
            r += 2;
            continue;
        }
        *w++ = *r++;
    }
    *w = '\0';
}

char *sym_demangle(const char *name)
{
    if (strncmp(name, "_R", 2) == 0)
        return sym_demangle_rust_v0(name);
    if (strncmp(name, "_Z", 2) != 0)
        return NULL;
    cxa_demangle_fn fn = load_cxa_demangle();
    if (!fn)
        return NULL;
    int status = 0;
    char *d = fn(name, NULL, NULL, &status);
    if (status != 0 || !d) {
        free(d);
        return NULL;
    }
    if (is_rust_legacy(name))
        rust_cleanup(d);
    return d;
}
