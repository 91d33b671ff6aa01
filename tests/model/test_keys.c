/* model/keys.h and spec/FORMAT.md agree: every string constant of keys.h
 * (up to its first printf directive) is a name in the key and blob tables of
 * the spec's section 4.2, written `name...`.  Both files are read from the
 * source tree ($TR_ROOT, else the current directory). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "keys.h"

static char *slurp(const char *rel)
{
    const char *root = getenv("TR_ROOT");
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", root && *root ? root : ".", rel);
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *s = malloc(cap);
    size_t got;
    while (s && (got = fread(s + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *t = realloc(s, cap *= 2);
            if (!t) {
                free(s);
                s = NULL;
            }
            s = t;
        }
    }
    fclose(f);
    if (s)
        s[n] = 0;
    return s;
}

/* The spec's section 4.2, where the tables are (a copy). */
static char *key_tables(void)
{
    char *spec = slurp("spec/FORMAT.md");
    assert_non_null(spec);
    char *a = strstr(spec, "\n### 4.2 "), *b = a ? strstr(a, "\n### 4.3 ") : NULL;
    assert_non_null(a);
    assert_non_null(b);
    *b = 0;
    char *t = strdup(a);
    free(spec);
    return t;
}

struct constant {
    char name[64];
    char value[128]; /* up to the first '%' */
};

/* Every `#define NAME "value"` of keys.h. */
static size_t keys_constants(struct constant *out, size_t max)
{
    char *h = slurp("model/keys.h");
    assert_non_null(h);
    size_t n = 0;
    for (char *p = h; (p = strstr(p, "#define ")) && n < max; p++) {
        char name[64], value[128];
        if (sscanf(p, "#define %63s \"%127[^\"]\"", name, value) != 2)
            continue;
        char *pct = strchr(value, '%');
        if (pct)
            *pct = 0;
        snprintf(out[n].name, sizeof out[n].name, "%s", name);
        snprintf(out[n].value, sizeof out[n].value, "%s", value);
        n++;
    }
    free(h);
    return n;
}

static void test_every_constant_is_in_the_spec(void **state)
{
    (void)state;
    char *tables = key_tables();
    static struct constant c[256];
    size_t n = keys_constants(c, 256);
    assert_true(n >= 40);
    size_t missing = 0;
    for (size_t i = 0; i < n; i++) {
        char quoted[140];
        snprintf(quoted, sizeof quoted, "`%s", c[i].value);
        if (!strstr(tables, quoted)) {
            print_error("%s \"%s\" is not in spec/FORMAT.md section 4.2\n", c[i].name, c[i].value);
            missing++;
        }
    }
    assert_int_equal(missing, 0);
    free(tables);
}

/* The parser above reads what the compiler sees. */
static void test_parsed_values_are_the_compiled_ones(void **state)
{
    (void)state;
    static struct constant c[256];
    size_t n = keys_constants(c, 256);
    static const struct { const char *name, *value; } known[] = {
        {"META_PRODUCER", META_PRODUCER},
        {"META_FTRACE_SUBBUF_SIZE", META_FTRACE_SUBBUF_SIZE},
        {"META_VIEW", META_VIEW},
        {"VIEW_TRACEPOINTS", VIEW_TRACEPOINTS},
        {"BLOB_PERF_MAP_FMT", "perf-map:"},
        {"BLOB_FTRACE_FORMAT_PREFIX", BLOB_FTRACE_FORMAT_PREFIX},
        {"BLOB_FTRACE_SAVED_TGIDS", BLOB_FTRACE_SAVED_TGIDS},
    };
    for (size_t k = 0; k < sizeof known / sizeof *known; k++) {
        size_t i = 0;
        while (i < n && strcmp(c[i].name, known[k].name))
            i++;
        assert_true(i < n);
        assert_string_equal(c[i].value, known[k].value);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_constant_is_in_the_spec),
        cmocka_unit_test(test_parsed_values_are_the_compiled_ones),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
