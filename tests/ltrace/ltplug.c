/* ltplug - the library "ltwork dlopen" loads after its start: its functions are probed once
 * it is mapped (tr-rec-ltrace), or once the dynamic loader reports it (ltrace).  Defined in this
 * order, plug_ready last: see ltwork's wait_probed. */
#include <string.h>

int plug_add(int a, int b)
{
    return a + b;
}

size_t plug_len(const char *s)
{
    return strlen(s);
}

void plug_ready(void)
{
}
