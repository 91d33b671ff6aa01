/* cat-syscall.c - placeholder until the family's renderer lands: generic output. */
#include "cat.h"

int cat_syscall_record(struct cat_ctx *c, const tr_record *rec) { (void)c; (void)rec; return 0; }
int cat_syscall_account(struct cat_ctx *c, const tr_record *rec) { (void)c; (void)rec; return 0; }
int cat_syscall_summary(struct cat_ctx *c) { (void)c; return 0; }
void cat_syscall_reset(struct cat_ctx *c) { (void)c; }
