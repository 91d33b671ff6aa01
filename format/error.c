/* error.c - the one message table. */
#include "internal.h"

static const char *const messages[] = {
    [0] = "no error",
    [-TR_E_NOMEM] = "out of memory",
    [-TR_E_IO] = "input/output error",
    [-TR_E_INVAL] = "invalid argument",
    [-TR_E_NOT_TRACE] = "not a tr trace",
    [-TR_E_VERSION] = "trace format version is newer than this reader",
    [-TR_E_INCOMPAT] = "trace uses a feature this reader does not know",
    [-TR_E_TRUNCATED] = "truncated: the stream ends without its end frame",
    [-TR_E_CORRUPT_CHUNK] = "corrupt chunk skipped",
    [-TR_E_CORRUPT_FRAME] = "corrupt frame header skipped",
    [-TR_E_TOO_LARGE] = "length field exceeds the format's limits",
    [-TR_E_COMPRESS] = "compression failed",
    [-TR_E_CORRUPT_RECORD] = "malformed record",
    [-TR_E_EPIPE] = "broken pipe: the reader of the output went away",
    [-TR_E_NOSPC] = "no space left on device",
    [-TR_E_FINISHED] = "the stream is already finished",
    [-TR_E_LOST_CHUNKS] = "chunks missing from the stream",
    [-TR_E_GARBAGE] = "bytes that are no part of a trace skipped",
    [-TR_E_STREAM_CUT] = "stream cut short: no end frame before the next stream",
    [-TR_E_EMPTY] = "empty input",
};

const char *tr_strerror(int err)
{
    if (err > 0) err = 0;
    if (err <= TR_E_LAST_ || !messages[-err]) return "unknown error";
    return messages[-err];
}

int tr_error_recoverable(int err)
{
    switch (err) {
    case TR_E_CORRUPT_CHUNK:
    case TR_E_CORRUPT_FRAME:
    case TR_E_CORRUPT_RECORD:
    case TR_E_LOST_CHUNKS:
    case TR_E_GARBAGE:
    case TR_E_STREAM_CUT:
    case TR_E_TOO_LARGE:
        return 1;
    default:
        return 0;
    }
}
