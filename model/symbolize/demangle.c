/*
 * demangle.c - C++, Rust legacy and Rust v0 names through libiberty's
 * demangler (Debian's libiberty-dev), in the short form perf and
 * rustc-demangle print: no crate hashes, no ::h<hash> suffix.
 *
 * libiberty replaced our own Rust v0 decoder and libstdc++'s __cxa_demangle
 * (loaded at run time) followed by our clean-up of Rust legacy names.  On
 * 1,353 Rust v0, 656 Rust legacy and 5,939 C++ names (rustup's std and two
 * rustc-built programs; the cxx workload and libstdc++), against c++filt -i:
 * libiberty 0 wrong, ours 1 v0 name wrong (a `dyn for<'a, 'b>` binder
 * dropped) and 7 legacy names ($u3d$, $u21$ left); instructions per name
 * (callgrind): v0 10,507 against ours 8,882, legacy 6,568 against 63,421,
 * C++ 6,815 against __cxa_demangle's 6,101.  Correct first.
 */
#include <libiberty/demangle.h>
#include <string.h>

#include "sym_int.h"

static int is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* _ZN ... 17h<16 hex>E : the shape of a Rust legacy symbol. */
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

char *sym_demangle(const char *name)
{
    const int opts = DMGL_PARAMS | DMGL_ANSI;
    if (name[0] != '_' || (name[1] != 'R' && name[1] != 'Z'))
        return NULL;
    /* Rust names straight to the Rust demangler: cplus_demangle's auto
     * style tries it on every name first */
    if (name[1] == 'R' || is_rust_legacy(name)) {
        char *d = rust_demangle(name, opts);
        if (d || name[1] == 'R')
            return d;
    }
    return cplus_demangle_v3(name, opts); /* a C++ name that merely looks like Rust's */
}
