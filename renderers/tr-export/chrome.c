#include "export.h"
static void *s0(struct exp *x) { (void)x; return (void *)1; }
static int r0(void *st, struct exp *x, const tr_record *rec) { (void)st; (void)x; (void)rec; return 0; }
static int f0(void *st, struct exp *x) { (void)st; (void)x; return 0; }
static void fr0(void *st) { (void)st; }
const struct exp_format exp_chrome = {s0, r0, f0, fr0}, exp_speedscope = {s0, r0, f0, fr0};
