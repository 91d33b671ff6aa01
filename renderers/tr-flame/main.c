/* tr-flame - folded stacks to an interactive SVG flame graph. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "flame/flame.h"

enum {
    OPT_TITLE = 256, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTTYPE, OPT_FONTSIZE,
    OPT_FONTWIDTH, OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS, OPT_HASH, OPT_RANDOM,
    OPT_CP, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART, OPT_NEGATE, OPT_FACTOR, OPT_TOTAL,
    OPT_NOTES, OPT_ENCODING, OPT_NAMEATTR, OPT_LENIENT, OPT_MAX_LINE, OPT_CP_FILE,
};

static const struct cli_opt opts[] = {
    {0, "title", "TEXT", "title (default \"Flame Graph\")", OPT_TITLE, NULL},
    {0, "subtitle", "TEXT", "second title line", OPT_SUBTITLE, NULL},
    {0, "width", "PX", "image width (default 1200)", OPT_WIDTH, NULL},
    {0, "height", "PX", "frame height (default 16)", OPT_HEIGHT, NULL},
    {0, "minwidth", "PX[%]", "omit frames narrower than PX pixels or percent (default 0.1)", OPT_MINWIDTH, NULL},
    {0, "fonttype", "FONT", "font family (default Verdana)", OPT_FONTTYPE, NULL},
    {0, "fontsize", "SIZE", "font size (default 12)", OPT_FONTSIZE, NULL},
    {0, "fontwidth", "RATIO", "average character width / font size (default 0.59)", OPT_FONTWIDTH, NULL},
    {0, "countname", "TEXT", "what the counts are (default samples)", OPT_COUNTNAME, NULL},
    {0, "nametype", "TEXT", "what the names are (default Function:)", OPT_NAMETYPE, NULL},
    {0, "colors", "PALETTE", "hot mem io wakeup chain java js perl python rust red green blue aqua yellow purple orange",
     OPT_COLORS, "hot mem io wakeup chain java js perl python rust red green blue aqua yellow purple orange"},
    {0, "bgcolors", "COLOR", "background: yellow blue green grey or #rrggbb", OPT_BGCOLORS, "yellow blue green grey"},
    {0, "hash", NULL, "colours keyed by a hash of the name", OPT_HASH, NULL},
    {0, "random", NULL, "colours from a (fixed-seed) random sequence", OPT_RANDOM, NULL},
    {0, "cp", NULL, "consistent palette: read and update palette.map", OPT_CP, NULL},
    {0, "cp-file", "FILE", "the palette file of --cp (default palette.map)", OPT_CP_FILE, "file"},
    {0, "reverse", NULL, "reverse every stack (leaf at the bottom)", OPT_REVERSE, NULL},
    {0, "inverted", NULL, "icicle graph: root at the top", OPT_INVERTED, NULL},
    {0, "flamechart", NULL, "flame chart: input order is time, stacks are not merged", OPT_FLAMECHART, NULL},
    {0, "negate", NULL, "switch differential hues (blue for growth)", OPT_NEGATE, NULL},
    {0, "factor", "X", "multiply counts by X in the text", OPT_FACTOR, NULL},
    {0, "total", "N", "the 100% total, when larger than the input's", OPT_TOTAL, NULL},
    {0, "notes", "TEXT", "notes in an SVG comment", OPT_NOTES, NULL},
    {0, "encoding", "NAME", "XML encoding declaration", OPT_ENCODING, NULL},
    {0, "nameattr", "FILE", "per-function attributes: name<TAB>attr=value...", OPT_NAMEATTR, "file"},
    {0, "lenient", NULL, "skip malformed lines with a warning instead of failing", OPT_LENIENT, NULL},
    {0, "max-line", "BYTES", "longest accepted line (default 16 MiB)", OPT_MAX_LINE, NULL},
    {0, NULL, NULL, NULL, 0, NULL},
};

static const struct cli_tool tool = {
    .name = "tr-flame",
    .synopsis = {"[OPTIONS] [FILE...]"},
    .summary = "render folded stacks as an interactive SVG flame graph",
    .opts = opts,
    .operands = "file",
};

static double parse_double(const char *s, double min, double max, const char *what)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v) || v < min || v > max) {
        cli_warn("invalid %s '%s': expected a number from %g to %g", what, s, min, max);
        cli_usage_exit();
    }
    return v;
}

int main(int argc, char **argv)
{
    struct flame_opts o;
    flame_opts_init(&o);
    cli_init(&tool, argc, argv);
    int c;
    while ((c = cli_getopt(argc, argv)) != -1) {
        switch (c) {
        case OPT_TITLE: o.title = cli_optarg; break;
        case OPT_SUBTITLE: o.subtitle = cli_optarg; break;
        case OPT_WIDTH: o.width = (int)cli_parse_u64(cli_optarg, 40, 1000000, "--width"); break;
        case OPT_HEIGHT: o.frameheight = (double)cli_parse_u64(cli_optarg, 2, 10000, "--height"); break;
        case OPT_MINWIDTH: {
            size_t n = strlen(cli_optarg);
            char buf[64];
            o.minwidth_pct = n > 0 && cli_optarg[n - 1] == '%';
            snprintf(buf, sizeof buf, "%.*s", (int)(n - (size_t)o.minwidth_pct), cli_optarg);
            o.minwidth = parse_double(buf, 0, o.minwidth_pct ? 100 : 1e9, "--minwidth");
            break;
        }
        case OPT_FONTTYPE: o.fonttype = cli_optarg; break;
        case OPT_FONTSIZE: o.fontsize = parse_double(cli_optarg, 1, 1000, "--fontsize"); break;
        case OPT_FONTWIDTH: o.fontwidth = parse_double(cli_optarg, 0.01, 10, "--fontwidth"); break;
        case OPT_COUNTNAME: o.countname = cli_optarg; break;
        case OPT_NAMETYPE: o.nametype = cli_optarg; break;
        case OPT_COLORS:
            o.color.pal = palette_from_name(cli_optarg);
            if (o.color.pal < 0) {
                cli_warn("unknown palette '%s': choose one of %s", cli_optarg, palette_names);
                cli_usage_exit();
            }
            break;
        case OPT_BGCOLORS: {
            const char *b = cli_optarg;
            int hex = b[0] == '#' && strlen(b) == 7 && strspn(b + 1, "0123456789abcdefABCDEF") == 6;
            if (!hex && strcmp(b, "yellow") && strcmp(b, "blue") && strcmp(b, "green") &&
                strcmp(b, "grey") && strcmp(b, "gray")) {
                cli_warn("unknown background '%s': choose yellow, blue, green, grey or #rrggbb", b);
                cli_usage_exit();
            }
            o.bgcolors = b;
            break;
        }
        case OPT_HASH: o.color.hash = 1; break;
        case OPT_RANDOM: o.color.random = 1; break;
        case OPT_CP: o.cp = 1; break;
        case OPT_CP_FILE: o.cp_file = cli_optarg; o.cp = 1; break;
        case OPT_REVERSE: o.reverse = 1; break;
        case OPT_INVERTED: o.inverted = 1; break;
        case OPT_FLAMECHART: o.flamechart = 1; break;
        case OPT_NEGATE: o.negate = 1; break;
        case OPT_FACTOR: o.factor = parse_double(cli_optarg, 1e-300, 1e300, "--factor"); break;
        case OPT_TOTAL: o.total = parse_double(cli_optarg, 0, 1e300, "--total"); break;
        case OPT_NOTES:
            if (strpbrk(cli_optarg, "<>"))
                cli_die(CLI_EXIT_USAGE, "--notes must not contain < or >");
            o.notes = cli_optarg;
            break;
        case OPT_ENCODING: o.encoding = cli_optarg; break;
        case OPT_NAMEATTR: o.nameattr_file = cli_optarg; break;
        case OPT_LENIENT: o.lenient = 1; break;
        case OPT_MAX_LINE: o.max_line = (size_t)cli_parse_u64(cli_optarg, 64, SIZE_MAX / 4, "--max-line"); break;
        default: cli_usage_exit();
        }
    }
    cli_ignore_sigpipe();
    struct flame f;
    if (flame_init(&f, &o) < 0)
        cli_die(CLI_EXIT_FAIL, "out of memory");
    int status = CLI_EXIT_OK;
    for (int i = cli_optind; status == CLI_EXIT_OK && (i < argc || i == cli_optind); i++) {
        const char *shown;
        int fd = cli_open_input(i < argc ? argv[i] : NULL, &shown);
        status = flame_read(&f, fd, shown);
        if (fd != 0)
            close(fd);
        if (f.skipped)
            cli_warn("%s: skipped %llu malformed lines (first: line %llu)", shown,
                     (unsigned long long)f.skipped, (unsigned long long)f.first_skipped);
        f.skipped = 0;
        if (i >= argc)
            break;
    }
    if (status == CLI_EXIT_OK) {
        static char obuf[1 << 20];
        setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
        status = flame_svg(&f, stdout);
    }
    flame_free(&f);
    return cli_finish_stdout(status);
}
