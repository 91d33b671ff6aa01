/* palette.c - frame colours.  The hues and the name hashes are those of
 * flamegraph.pl, so the same name gets the same colour in both; Perl's
 * srand()/rand() (a drand48) is reproduced for the default colouring. */
#include "palette.h"

#include <stdio.h>
#include <string.h>

const char palette_names[] =
    "hot mem io wakeup chain java js perl python rust red green blue aqua yellow purple orange";

int palette_from_name(const char *s)
{
    static const char *const names[] = {"hot", "mem", "io", "wakeup", "chain", "java",
                                        "js", "perl", "python", "rust", "red", "green",
                                        "blue", "aqua", "yellow", "purple", "orange"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i]))
            return (int)i;
    return -1;
}

const char *palette_default_bg(int pal)
{
    switch (pal) {
    case PAL_MEM: return "green";
    case PAL_IO: case PAL_WAKEUP: case PAL_CHAIN: return "blue";
    case PAL_RED: case PAL_GREEN: case PAL_BLUE: case PAL_AQUA: case PAL_YELLOW:
    case PAL_PURPLE: case PAL_ORANGE: return "grey";
    default: return "yellow";
    }
}

/* Perl's drand48 */
static uint64_t rand_state = ((uint64_t)1 << 16) | 0x330E;
static void perl_srand(uint32_t seed) { rand_state = ((uint64_t)seed << 16) | 0x330E; }
static double perl_rand(void)
{
    rand_state = (0x5DEECE66Dull * rand_state + 0xB) & ((1ull << 48) - 1);
    return (double)rand_state / (double)(1ull << 48);
}

/* The next code point of s[*i..len) (the byte value when not UTF-8). */
static uint32_t next_cp(const unsigned char *s, size_t len, size_t *i)
{
    unsigned char c = s[*i];
    int n = c >= 0xc2 && c < 0xe0 ? 1 : c >= 0xe0 && c < 0xf0 ? 2 : c >= 0xf0 && c < 0xf5 ? 3 : 0;
    if (n == 0 || *i + (size_t)n >= len) {
        (*i)++;
        return c;
    }
    uint32_t cp = c & (0x3fu >> n);
    for (int k = 1; k <= n; k++) {
        if ((s[*i + (size_t)k] & 0xc0) != 0x80) {
            (*i)++;
            return c;
        }
        cp = cp << 6 | (s[*i + (size_t)k] & 0x3fu);
    }
    *i += (size_t)n + 1;
    return cp;
}

/* sum of code points, mod 2^32 (Perl's unpack("%32W*")) */
static uint32_t sum_hash(const char *name, size_t len)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < len;)
        sum += next_cp((const unsigned char *)name, len, &i);
    return sum;
}

/* flamegraph.pl's namehash(): the first characters, weighted */
static double name_hash(const uint32_t *cp, size_t n)
{
    double vector = 0, weight = 1, max = 1;
    int mod = 10;
    for (size_t i = 0; i < n; i++) {
        int v = (int)(cp[i] % (uint32_t)mod);
        vector += ((double)v / (mod++ - 1)) * weight;
        max += weight;
        weight *= 0.70;
        if (mod > 12)
            break;
    }
    return 1 - vector / max;
}

static void hash_values(const char *name, size_t len, double *v1, double *v2)
{
    uint32_t cp[64], rev[64];
    size_t n = 0, all = 0;
    /* s/.(.*?)`// : drop up to the first backtick (after the first char) */
    const char *bt = len > 1 ? memchr(name + 1, '`', len - 1) : NULL;
    const char *s = name;
    size_t sl = len;
    if (bt) {
        sl = len - (size_t)(bt + 1 - name);
        s = bt + 1;
    }
    for (size_t i = 0; i < sl && n < 64;)
        cp[n++] = next_cp((const unsigned char *)s, sl, &i);
    *v1 = name_hash(cp, n);
    /* reversed name (the backtick rule applies to the reversed string) */
    uint32_t full[256];
    for (size_t i = 0; i < len && all < 256;)
        full[all++] = next_cp((const unsigned char *)name, len, &i);
    size_t rn = 0;
    for (size_t i = all; i-- > 0 && rn < 64;)
        rev[rn++] = full[i];
    size_t start = 0;
    for (size_t i = 1; i < rn; i++)
        if (rev[i] == '`') {
            start = i + 1;
            break;
        }
    *v2 = name_hash(rev + start, rn - start);
}

static int ends_with(const char *s, size_t n, const char *suf)
{
    size_t m = strlen(suf);
    return n >= m && !memcmp(s + n - m, suf, m);
}
static int has(const char *s, size_t n, const char *sub)
{
    size_t m = strlen(sub);
    for (size_t i = 0; i + m <= n; i++)
        if (!memcmp(s + i, sub, m))
            return 1;
    return 0;
}
static int starts_java(const char *s, size_t n)
{
    static const char *const p[] = {"java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/"};
    if (n > 0 && s[0] == 'L')
        s++, n--;
    for (size_t i = 0; i < sizeof p / sizeof p[0]; i++)
        if (n >= strlen(p[i]) && !memcmp(s, p[i], strlen(p[i])))
            return 1;
    return 0;
}

/* which flat hue a multi-palette picks for name */
static int pick_hue(int pal, const char *s, size_t n, int waker)
{
    switch (pal) {
    case PAL_JAVA:
        if (ends_with(s, n, "_[j]")) return PAL_GREEN;
        if (ends_with(s, n, "_[i]")) return PAL_AQUA;
        if (starts_java(s, n)) return PAL_GREEN;
        if (has(s, n, ":::")) return PAL_GREEN;
        if (has(s, n, "::")) return PAL_YELLOW;
        if (ends_with(s, n, "_[k]")) return PAL_ORANGE;
        return PAL_RED;
    case PAL_PERL:
        if (has(s, n, "::")) return PAL_YELLOW;
        if (has(s, n, "Perl") || has(s, n, ".pl")) return PAL_GREEN;
        if (ends_with(s, n, "_[k]")) return PAL_ORANGE;
        return PAL_RED;
    case PAL_JS:
        if (ends_with(s, n, "_[j]")) return memchr(s, '/', n) ? PAL_GREEN : PAL_AQUA;
        if (has(s, n, "::")) return PAL_YELLOW;
        if (memchr(s, '/', n) && has(memchr(s, '/', n), n - (size_t)((const char *)memchr(s, '/', n) - s), ".js")) return PAL_GREEN;
        if (memchr(s, ':', n)) return PAL_AQUA;
        if (n == 1 && s[0] == ' ') return PAL_GREEN;
        if (has(s, n, "_[k]")) return PAL_ORANGE;
        return PAL_RED;
    case PAL_PYTHON: /* tr's own: Python code green, site-packages aqua, native red */
        if (ends_with(s, n, "_[k]")) return PAL_ORANGE;
        if (has(s, n, "site-packages") || has(s, n, "dist-packages")) return PAL_AQUA;
        if (has(s, n, ".py") || has(s, n, "<module>")) return PAL_GREEN;
        if (has(s, n, "::")) return PAL_YELLOW;
        return PAL_RED;
    case PAL_RUST: /* tr's own: std/core/alloc orange, Rust paths aqua, other red */
        if (ends_with(s, n, "_[k]")) return PAL_ORANGE;
        if ((n >= 6 && (!memcmp(s, "core::", 6) || !memcmp(s, "alloc:", 6))) ||
            (n >= 5 && !memcmp(s, "std::", 5)) || has(s, n, "<core::") || has(s, n, "<std::") ||
            has(s, n, "<alloc::"))
            return PAL_ORANGE;
        if (has(s, n, "::")) return PAL_AQUA;
        return PAL_RED;
    case PAL_WAKEUP:
        return PAL_AQUA;
    case PAL_CHAIN:
        return waker || has(s, n, "_[w]") ? PAL_AQUA : PAL_BLUE;
    default:
        return pal;
    }
}

void palette_color(const struct color_opts *o, const char *name, size_t len, int waker,
                   char *buf, size_t size)
{
    double v1, v2, v3;
    if (o->hash) {
        hash_values(name, len, &v1, &v2);
        v3 = v2;
    } else if (o->random) {
        v1 = perl_rand();
        v2 = perl_rand();
        v3 = perl_rand();
    } else {
        perl_srand(sum_hash(name, len));
        v1 = v2 = v3 = perl_rand();
    }
    int r = 0, g = 0, b = 0;
    switch (o->pal) {
    case PAL_HOT:
        r = 205 + (int)(50 * v3), g = (int)(230 * v1), b = (int)(55 * v2);
        break;
    case PAL_MEM:
        r = 0, g = 190 + (int)(50 * v2), b = (int)(210 * v1);
        break;
    case PAL_IO:
        r = g = 80 + (int)(60 * v1), b = 190 + (int)(55 * v2);
        break;
    default:
        switch (pick_hue(o->pal, name, len, waker)) {
        case PAL_RED: r = 200 + (int)(55 * v1), g = b = 50 + (int)(80 * v1); break;
        case PAL_GREEN: g = 200 + (int)(55 * v1), r = b = 50 + (int)(60 * v1); break;
        case PAL_BLUE: b = 205 + (int)(50 * v1), r = g = 80 + (int)(60 * v1); break;
        case PAL_YELLOW: r = g = 175 + (int)(55 * v1), b = 50 + (int)(20 * v1); break;
        case PAL_PURPLE: r = b = 190 + (int)(65 * v1), g = 80 + (int)(60 * v1); break;
        case PAL_AQUA: r = 50 + (int)(60 * v1), g = b = 165 + (int)(55 * v1); break;
        case PAL_ORANGE: r = 190 + (int)(65 * v1), g = 90 + (int)(65 * v1), b = 0; break;
        }
    }
    snprintf(buf, size, "rgb(%d,%d,%d)", r, g, b);
}

void palette_delta(double delta, double maxdelta, int negate, char *buf, size_t size)
{
    int r = 255, g = 255, b = 255;
    if (negate)
        delta = -delta;
    if (maxdelta <= 0)
        maxdelta = 1;
    if (delta > maxdelta)
        delta = maxdelta;
    if (delta < -maxdelta)
        delta = -maxdelta;
    if (delta > 0)
        g = b = (int)(210 * (maxdelta - delta) / maxdelta);
    else if (delta < 0)
        r = g = (int)(210 * (maxdelta + delta) / maxdelta);
    snprintf(buf, size, "rgb(%d,%d,%d)", r, g, b);
}
