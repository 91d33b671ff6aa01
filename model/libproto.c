/* libproto.c - ltrace-style prototypes and their formatting (libproto.h). */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "array.h"
#include "libproto.h"

/* The built-in prototypes, in the -F file's syntax. */
static const char *const builtin_text[] = {
    "addr malloc(ulong);", "void free(addr);", "addr calloc(ulong, ulong);", "addr realloc(addr, ulong);",
    "addr reallocarray(addr, ulong, ulong);", "addr aligned_alloc(ulong, ulong);",
    "int posix_memalign(addr, ulong, ulong);",
    "ulong strlen(string);", "ulong strnlen(string, ulong);", "addr strcpy(addr, string);",
    "addr strncpy(addr, string, ulong);", "addr stpcpy(addr, string);", "addr strcat(addr, string);",
    "addr strncat(addr, string, ulong);", "int strcmp(string, string);",
    "int strncmp(string, string, ulong);", "int strcasecmp(string, string);",
    "int strncasecmp(string, string, ulong);", "addr strdup(string);",
    "addr strndup(string, ulong);", "string strchr(string, char);", "string strrchr(string, char);",
    "string strstr(string, string);", "ulong strspn(string, string);", "ulong strcspn(string, string);",
    "string strtok(string, string);", "string strerror(int);",
    "addr memcpy(addr, addr, ulong);", "addr memmove(addr, addr, ulong);", "addr memset(addr, char, long);",
    "int memcmp(addr, addr, ulong);", "addr memchr(addr, char, ulong);",
    "string getenv(string);", "int setenv(string, string, int);", "int unsetenv(string);",
    "int atoi(string);", "long atol(string);", "long strtol(string, addr, int);",
    "ulong strtoul(string, addr, int);", "long strtoll(string, addr, int);",
    "ulong strtoull(string, addr, int);",
    "int open(string, int, oct);", "int open64(string, int, oct);", "int creat(string, oct);",
    "long read(int, addr, ulong);", "long write(int, addr, ulong);", "int close(int);",
    "long lseek(int, long, int);", "int unlink(string);", "int access(string, int);",
    "int printf(format);", "int fprintf(addr, format);", "int sprintf(addr, format);",
    "int snprintf(addr, ulong, format);", "int dprintf(int, format);",
    "int __printf_chk(int, format);", "int __fprintf_chk(addr, int, format);",
    "int __sprintf_chk(addr, int, ulong, format);", "int __snprintf_chk(addr, ulong, int, ulong, format);",
    "int puts(string);", "int fputs(string, addr);", "int putchar(int);", "int fputc(int, addr);",
    "int getchar();", "addr fopen(string, string);", "int fclose(addr);", "int fflush(addr);",
    "ulong fwrite(addr, ulong, ulong, addr);", "ulong fread(addr, ulong, ulong, addr);",
    "void exit(int);", "void _exit(int);", "void abort();", "int atexit(addr);",
    "uint sleep(uint);", "int usleep(uint);", "long time(addr);", "int rand();", "void srand(uint);",
    "int abs(int);", "addr __errno_location();", "int getpid();", "int isatty(int);", "int toupper(int);", "int tolower(int);",
    "void qsort(addr, ulong, ulong, addr);", "addr bsearch(addr, addr, ulong, ulong, addr);",
    "string setlocale(int, string);", "addr dlopen(string, int);", "addr dlsym(addr, string);",
    "int fork();", "int wait(addr);", "int waitpid(int, addr, int);", "int system(string);",
    "int execlp(string, string, addr, addr, addr);", "int execv(string, addr);",
    /* syscalls as ltrace -S shows them (the others: as an unknown function) */
    "addr SYS_brk(addr);", "int SYS_close(int);", "void SYS_exit(int);", "void SYS_exit_group(int);",
    "int SYS_munmap(addr, ulong);", "int SYS_mprotect(addr, int, int);", "long SYS_read(int, string, ulong);",
    "long SYS_write(int, string, ulong);", "int SYS_access(string, oct);", "int SYS_getpid();",
    "int SYS_getuid();", "int SYS_geteuid();", "int SYS_unlink(string);", "long SYS_lseek(int, long, int);",
    "int SYS_dup(int);", "int SYS_dup2(int, int);", "int SYS_kill(int, int);", "int SYS_fork();",
    "int SYS_execve(string, addr, addr);", "oct SYS_umask(oct);", "int SYS_uname(addr);",
    "int SYS_chdir(string);", "int SYS_mkdir(string, oct);", "int SYS_rmdir(string);",
};

static const struct { const char *name; enum lp_type t; } type_names[] = {
    {"void", LP_VOID}, {"int", LP_INT}, {"uint", LP_UINT}, {"long", LP_LONG}, {"ulong", LP_ULONG},
    {"size_t", LP_ULONG}, {"hex", LP_HEX}, {"oct", LP_OCT}, {"octal", LP_OCT}, {"addr", LP_ADDR},
    {"string", LP_STRING}, {"char", LP_CHAR}, {"format", LP_FORMAT}, {"short", LP_INT},
    {"ushort", LP_UINT}, {"bool", LP_INT}, {"file", LP_ADDR},
};

static const char *skip_ws(const char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

/* enum(NAME[=VALUE], ...) at p (past "enum"), kept in T: the enum, or NULL. */
static const struct lp_enum *parse_enum(struct libprotos *T, const char **s)
{
    const char *p = skip_ws(*s);
    if (!T || *p != '(')
        return NULL;
    size_t n = 1;
    for (const char *q = p; *q && *q != ')'; q++)
        n += *q == ',';
    struct lp_enum *en = calloc(1, sizeof *en + n * sizeof en->e[0]);
    struct lp_enum **nv = en ? realloc(T->enums, (T->nenums + 1) * sizeof *nv) : NULL;
    if (!nv) {
        free(en);
        return NULL;
    }
    T->enums = nv;
    T->enums[T->nenums++] = en;
    int64_t next = 0;
    for (p = skip_ws(p + 1); *p != ')';) {
        const char *b = p;
        while (isalnum((unsigned char)*p) || *p == '_')
            p++;
        if (p == b || (size_t)(p - b) >= sizeof en->e[0].name || en->n == n)
            return NULL;
        memcpy(en->e[en->n].name, b, (size_t)(p - b));
        p = skip_ws(p);
        if (*p == '=') {
            char *end;
            next = strtoll(skip_ws(p + 1), &end, 0);
            p = skip_ws(end);
        }
        en->e[en->n++].v = next++;
        if (*p == ',')
            p = skip_ws(p + 1);
        else if (*p != ')')
            return NULL;
    }
    *s = p + 1;
    return en;
}

/* A type name at *s (a trailing '*' or a [..] length is taken as part of a pointer or string): a
 * built-in one, a typedef of T, or enum(...) (*en set; T NULL: neither). */
static int parse_type(struct libprotos *T, const char **s, enum lp_type *t, const struct lp_enum **en)
{
    const char *p = skip_ws(*s), *b = p;
    while (isalnum((unsigned char)*p) || *p == '_')
        p++;
    size_t n = (size_t)(p - b);
    int found = 0;
    *en = NULL;
    if (n == 4 && !strncmp(b, "enum", 4)) {
        if (!(*en = parse_enum(T, &p)))
            return -1;
        *t = LP_INT;
        found = 1;
    }
    for (size_t i = 0; T && !found && i < T->ntdefs; i++)
        if (strlen(T->tdefs[i].name) == n && !strncmp(T->tdefs[i].name, b, n)) {
            *t = T->tdefs[i].t;
            *en = T->tdefs[i].en;
            found = 1;
        }
    for (size_t i = 0; i < sizeof type_names / sizeof type_names[0]; i++)
        if (strlen(type_names[i].name) == n && !strncmp(type_names[i].name, b, n)) {
            *t = type_names[i].t;
            found = 1;
        }
    if (!found && n > 6 && !strncmp(b, "string", 6) && strspn(b + 6, "0123456789") == n - 6) {
        *t = LP_STRING; /* ltrace's string3: its length in an argument, not used */
        found = 1;
    }
    if (!found)
        return -1;
    p = skip_ws(p);
    if (*p == '[') { /* string[arg2]: the length is not used */
        while (*p && *p != ']')
            p++;
        if (*p)
            p++;
    }
    while (*(p = skip_ws(p)) == '*') {
        if (*t != LP_STRING)
            *t = LP_ADDR;
        p++;
    }
    *s = p;
    return 0;
}

/* A line in T's context (its typedefs; T NULL: none, and no enum): 0 a prototype in *p, 1 a
 * blank line, a comment or a typedef (added to T), -1 malformed. */
static int parse_line(struct libprotos *T, const char *line, struct libproto *p)
{
    const char *s = skip_ws(line);
    if (!*s || *s == '\n' || *s == ';' || *s == '#')
        return 1;
    memset(p, 0, sizeof *p);
    if (T && !strncmp(s, "typedef", 7) && (s[7] == ' ' || s[7] == '\t')) {
        struct lp_typedef d = {0};
        const char *b = s = skip_ws(s + 7);
        while (isalnum((unsigned char)*s) || *s == '_')
            s++;
        size_t n = (size_t)(s - b);
        if (!n || n >= sizeof d.name || *(s = skip_ws(s)) != '=')
            return -1;
        memcpy(d.name, b, n);
        s++;
        if (parse_type(T, &s, &d.t, &d.en) < 0 || *(s = skip_ws(s)) != ';')
            return -1;
        struct lp_typedef *nv = realloc(T->tdefs, (T->ntdefs + 1) * sizeof *nv);
        if (!nv)
            return -1;
        T->tdefs = nv;
        T->tdefs[T->ntdefs++] = d;
        return 1;
    }
    if (parse_type(T, &s, &p->ret, &p->ret_enum) < 0)
        return -1;
    s = skip_ws(s);
    const char *b = s;
    while (isalnum((unsigned char)*s) || *s == '_' || *s == '.' || *s == '@')
        s++;
    if (s == b || (size_t)(s - b) >= sizeof p->name)
        return -1;
    memcpy(p->name, b, (size_t)(s - b));
    s = skip_ws(s);
    if (*s++ != '(')
        return -1;
    s = skip_ws(s);
    if (!strncmp(s, "void", 4) && *skip_ws(s + 4) == ')')
        s = skip_ws(s + 4);
    while (*s != ')') {
        if (!strncmp(s, "...", 3)) {
            s = skip_ws(s + 3);
            continue;
        }
        enum lp_type t;
        const struct lp_enum *en;
        if (p->nargs == LP_MAX_ARGS || parse_type(T, &s, &t, &en) < 0 || t == LP_VOID)
            return -1;
        p->arg_enum[p->nargs] = en;
        p->args[p->nargs++] = t;
        s = skip_ws(s);
        if (*s == ',')
            s = skip_ws(s + 1);
        else if (*s != ')')
            return -1;
    }
    s = skip_ws(s + 1);
    return (*s == ';' || !*s || *s == '\n') ? 0 : -1;
}

int libproto_parse(const char *line, struct libproto *p)
{
    return parse_line(NULL, line, p);
}

int libprotos_add_text(struct libprotos *t, const char *text, size_t len, unsigned *bad_line)
{
    unsigned lineno = 0;
    for (size_t i = 0; i < len;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        char line[512];
        size_t n = e - i < sizeof line - 1 ? e - i : sizeof line - 1;
        memcpy(line, text + i, n);
        line[n] = 0;
        lineno++;
        i = e + 1;
        struct libproto p;
        int r = parse_line(t, line, &p);
        if (r < 0) {
            *bad_line = lineno;
            return -1;
        }
        if (r > 0)
            continue;
        if (array_reserve(&t->v, &t->cap, t->n + 1, sizeof *t->v, 16) < 0)
            return -1;
        t->v[t->n++] = p;
    }
    return 0;
}

void libprotos_free(struct libprotos *t)
{
    for (size_t i = 0; i < t->nenums; i++)
        free(t->enums[i]);
    free(t->enums);
    free(t->tdefs);
    free(t->v);
    memset(t, 0, sizeof *t);
}

static struct libprotos builtin;

static void load_builtin(void)
{
    if (builtin.n)
        return;
    for (size_t i = 0; i < sizeof builtin_text / sizeof builtin_text[0]; i++) {
        unsigned bad;
        libprotos_add_text(&builtin, builtin_text[i], strlen(builtin_text[i]), &bad);
    }
}

const struct libproto *libproto_find(const struct libprotos *t, const char *name)
{
    for (size_t i = t ? t->n : 0; i-- > 0;)
        if (!strcmp(t->v[i].name, name))
            return &t->v[i];
    load_builtin();
    for (size_t i = 0; i < builtin.n; i++)
        if (!strcmp(builtin.v[i].name, name))
            return &builtin.v[i];
    return NULL;
}

const struct libproto *libproto_unknown(void)
{
    static const struct libproto u = {.ret = LP_HEX, .nargs = 4, .args = {LP_HEX, LP_HEX, LP_HEX, LP_HEX}};
    return &u;
}

static const tr_capture *find_cap(const tr_capture *caps, unsigned n, uint32_t arg)
{
    for (unsigned i = 0; i < n; i++)
        if (caps[i].arg == arg && caps[i].kind == TR_CAP_STRING)
            return &caps[i];
    return NULL;
}

static void put_string(struct syscalls_buf *b, const tr_capture *c, uint32_t strsize)
{
    syscalls_buf_putc(b, '"');
    size_t n = c->len;
    int more = (c->flags & TR_CAPF_TRUNCATED) != 0;
    if (n > strsize) {
        n = strsize;
        more = 1;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = c->data[i];
        switch (ch) {
        case '\n': syscalls_buf_puts(b, "\\n"); break;
        case '\t': syscalls_buf_puts(b, "\\t"); break;
        case '\r': syscalls_buf_puts(b, "\\r"); break;
        case '\\': syscalls_buf_puts(b, "\\\\"); break;
        case '"': syscalls_buf_puts(b, "\\\""); break;
        default:
            if (isprint(ch))
                syscalls_buf_putc(b, (char)ch);
            else
                syscalls_buf_printf(b, "\\%03o", ch);
        }
    }
    syscalls_buf_putc(b, '"');
    if (more)
        syscalls_buf_puts(b, "...");
}

static void put_value(struct syscalls_buf *b, enum lp_type t, uint64_t v, const tr_capture *cap,
                      uint32_t strsize, const struct lp_enum *en)
{
    for (size_t i = 0; en && i < en->n; i++)
        if ((int32_t)v == (int32_t)en->e[i].v) {
            syscalls_buf_puts(b, en->e[i].name);
            return;
        }
    switch (t) {
    case LP_VOID: syscalls_buf_puts(b, "<void>"); break;
    case LP_INT: syscalls_buf_printf(b, "%d", (int32_t)v); break;
    case LP_UINT: syscalls_buf_printf(b, "%u", (uint32_t)v); break;
    case LP_LONG: syscalls_buf_printf(b, "%" PRId64, (int64_t)v); break;
    case LP_ULONG: syscalls_buf_printf(b, "%" PRIu64, v); break;
    case LP_OCT: syscalls_buf_printf(b, "0%" PRIo64, v & 0xffffffffu); break;
    case LP_CHAR:
        if (isprint((int)(v & 0xff)) && (v & 0xff) != '\'' && (v & 0xff) != '\\')
            syscalls_buf_printf(b, "'%c'", (char)(v & 0xff));
        else if ((v & 0xff) == 0)
            syscalls_buf_puts(b, "'\\0'");
        else
            syscalls_buf_printf(b, "'\\%03o'", (unsigned)(v & 0xff));
        break;
    case LP_HEX:
        /* ltrace's guess for an unknown argument: up to 10000 either way in decimal */
        if ((int64_t)v >= -10000 && (int64_t)v <= 10000)
            syscalls_buf_printf(b, "%" PRId64, (int64_t)v);
        else
            syscalls_buf_printf(b, "0x%" PRIx64, v);
        break;
    case LP_STRING:
    case LP_FORMAT:
        if (v && cap) {
            put_string(b, cap, strsize);
            break;
        }
        if (v)
            syscalls_buf_printf(b, "0x%" PRIx64, v);
        else
            syscalls_buf_puts(b, "nil");
        break;
    case LP_ADDR: /* as ltrace: free(0), but getenv(...) = nil */
        syscalls_buf_printf(b, v ? "0x%" PRIx64 : "%" PRIu64, v);
        break;
    }
}

/* The variadic arguments of a printf whose format (captured) is argument fi, as ltrace shows
 * them: one per conversion, from the registers after the format, then the stack words
 * (capture 7); a %s's string is capture 8 + its slot.  Floating-point arguments travel in
 * vector registers, which are not read: "?". */
static void put_varargs(struct syscalls_buf *b, const tr_capture *fmt, unsigned fi, const uint64_t *args,
                        unsigned nargs, const tr_capture *caps, unsigned ncaps, uint32_t strsize)
{
    const tr_capture *stack = NULL;
    for (unsigned i = 0; i < ncaps; i++)
        if (caps[i].arg == 7 && caps[i].kind == TR_CAP_BUFFER)
            stack = &caps[i];
    const char *f = (const char *)fmt->data, *end = f + fmt->len;
    unsigned slot = 0;
    while (f < end) {
        if (*f++ != '%' || f == end)
            continue;
        if (*f == '%') {
            f++;
            continue;
        }
        int longs = 0;
        for (; f < end && strchr("-+ #0'123456789.*hlLqjzt", *f); f++) {
            if (*f == '*')
                slot++; /* a width or precision argument, not shown */
            longs += *f == 'l' || *f == 'q' || *f == 'j' || *f == 'z' || *f == 't' || *f == 'L';
        }
        if (f == end)
            break;
        char conv = *f++;
        if (conv == 'm')
            continue;
        syscalls_buf_puts(b, ", ");
        if (strchr("fFeEgGaA", conv)) {
            syscalls_buf_puts(b, "?");
            continue;
        }
        unsigned reg = fi + 1 + slot, k = slot - (6 - fi - 1);
        uint64_t v = 0;
        int have = 1;
        if (reg < 6)
            have = reg < nargs, v = have ? args[reg] : 0;
        else if (stack && (k + 1) * 8 <= stack->len)
            memcpy(&v, stack->data + k * 8, 8);
        else
            have = 0;
        const tr_capture *str = conv == 's' ? find_cap(caps, ncaps, 8 + slot) : NULL;
        slot++;
        if (!have) {
            syscalls_buf_puts(b, "?");
            continue;
        }
        switch (conv) {
        case 'd': case 'i': put_value(b, longs ? LP_LONG : LP_INT, v, NULL, strsize, NULL); break;
        case 'u': put_value(b, longs ? LP_ULONG : LP_UINT, v, NULL, strsize, NULL); break;
        case 'x': case 'X': syscalls_buf_printf(b, "0x%" PRIx64, longs ? v : (v & 0xffffffffu)); break;
        case 'o': put_value(b, LP_OCT, v, NULL, strsize, NULL); break;
        case 'c': put_value(b, LP_CHAR, v, NULL, strsize, NULL); break;
        case 's': put_value(b, LP_STRING, v, str, strsize, NULL); break;
        default: put_value(b, LP_ADDR, v, NULL, strsize, NULL); break; /* %p, %n */
        }
    }
}

void libproto_format_args(struct syscalls_buf *b, const struct libproto *p, const uint64_t *args,
                          unsigned nargs, const tr_capture *caps, unsigned ncaps, uint32_t strsize)
{
    for (unsigned i = 0; i < p->nargs && i < nargs; i++) {
        if (i)
            syscalls_buf_puts(b, ", ");
        const tr_capture *c = find_cap(caps, ncaps, i);
        put_value(b, p->args[i], args[i], c, strsize, p->arg_enum[i]);
        if (p->args[i] == LP_FORMAT && c && args[i])
            put_varargs(b, c, i, args, nargs, caps, ncaps, strsize);
    }
}

void libproto_format_ret(struct syscalls_buf *b, const struct libproto *p, int64_t ret,
                         const tr_capture *caps, unsigned ncaps, uint32_t strsize)
{
    put_value(b, p->ret, (uint64_t)ret, find_cap(caps, ncaps, 6), strsize, p->ret_enum);
}
