/* systab.c - the x86_64 syscall table, generated at build time from
 * <asm/unistd_64.h> by gen-syscalls.sh (see tool.mk). */
#include <string.h>

#include "systab.h"

static const struct { uint32_t nr; const char *name; } table[] = {
#include "syscalls_x86_64.h"
};

const char *systab_name(uint32_t nr)
{
    /* the generated table is ordered by number with few gaps: try the index first */
    if (nr < sizeof table / sizeof table[0] && table[nr].nr == nr)
        return table[nr].name;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (table[i].nr == nr)
            return table[i].name;
    return NULL;
}

int systab_nr(const char *name)
{
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0)
            return (int)table[i].nr;
    return -1;
}

size_t systab_count(void) { return sizeof table / sizeof table[0]; }

void systab_entry(size_t i, uint32_t *nr, const char **name)
{
    *nr = table[i].nr;
    *name = table[i].name;
}
