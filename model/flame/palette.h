/* palette.h - frame colours, compatible with flamegraph.pl's palettes. */
#ifndef TR_FLAME_PALETTE_H
#define TR_FLAME_PALETTE_H

#include <stddef.h>
#include <stdint.h>

enum pal {
    PAL_HOT, PAL_MEM, PAL_IO, PAL_WAKEUP, PAL_CHAIN, PAL_JAVA, PAL_JS, PAL_PERL, PAL_PYTHON,
    PAL_RUST, PAL_RED, PAL_GREEN, PAL_BLUE, PAL_AQUA, PAL_YELLOW, PAL_PURPLE, PAL_ORANGE,
};

/* The palette named s, or -1. */
int palette_from_name(const char *s);
/* The names, space separated (for messages and completion). */
extern const char palette_names[];
/* The default background ("yellow", "green", "blue", "grey") of a palette. */
const char *palette_default_bg(int pal);

struct color_opts {
    int pal;
    int hash;      /* --hash */
    int random;    /* --random (deterministic sequence) */
};

/* "rgb(r,g,b)" for frame name (its annotation still on) into buf.
 * waker: the frame is a waker frame of a chain graph. */
void palette_color(const struct color_opts *o, const char *name, size_t len, int waker,
                   char *buf, size_t size);
/* Differential colour: white for 0, red for growth, blue for shrinkage. */
void palette_delta(double delta, double maxdelta, int negate, char *buf, size_t size);

#endif
