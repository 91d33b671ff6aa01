/* jitmap.c - JIT perf maps as blobs (jitmap.h). */
#include "jitmap.h"

#include <stdio.h>
#include <stdlib.h>

#include "keys.h"

int jitmap_blob(tr_writer *w, const char *dir, int32_t pid)
{
    char path[4200], name[48];
    snprintf(path, sizeof path, "%s/perf-%d.map", dir, (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    char *data = NULL;
    size_t len = 0, cap = 0, n;
    int rc = 0;
    do {
        if (len == cap) {
            char *d = realloc(data, cap = cap ? cap * 2 : 1 << 16);
            if (!d) {
                rc = TR_E_NOMEM;
                break;
            }
            data = d;
        }
        len += (n = fread(data + len, 1, cap - len, f));
    } while (n);
    fclose(f);
    snprintf(name, sizeof name, BLOB_PERF_MAP_FMT, (int)pid);
    if (!rc)
        rc = tr_writer_blob(w, name, data, len, 0);
    free(data);
    return rc;
}
