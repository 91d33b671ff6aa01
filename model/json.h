/*
 * json.h - JSON output shared by the tools that write it (tr-cat --json,
 * tr-export): a string's body, escaped.  Never exits.
 */
#ifndef MODEL_JSON_H
#define MODEL_JSON_H

#include <stddef.h>
#include <stdio.h>

/* The JSON string body (without quotes) of len bytes: quotes, backslashes
 * and control characters escaped, valid UTF-8 passed through, stray bytes
 * as \u00XX. */
void json_str(FILE *f, const char *s, size_t len);

#endif
