/* json.c - JSON string bodies (json.h). */
#include "json.h"

void json_str(FILE *f, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        switch (ch) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        case '\r': fputs("\\r", f); break;
        default:
            if (ch < 0x20 || ch == 0x7f) fprintf(f, "\\u%04x", ch);
            else if (ch < 0x80) fputc(ch, f);
            else {
                /* pass valid UTF-8 through, escape stray bytes */
                size_t n = ch >= 0xf0 ? 4 : ch >= 0xe0 ? 3 : ch >= 0xc0 ? 2 : 0;
                int ok = n && i + n <= len;
                for (size_t k = 1; ok && k < n; k++) ok = ((unsigned char)s[i + k] & 0xc0) == 0x80;
                if (ok) {
                    fwrite(s + i, 1, n, f);
                    i += n - 1;
                } else {
                    fprintf(f, "\\u%04x", ch);
                }
            }
        }
    }
}
