/* clitrace.c - the command-line policy for a damaged trace (cli.h): kept
 * apart from cli.c, which needs no trace library. */
#include "cli.h"
#include "tr.h"

int cli_read_error(tr_reader *r, int rc, const char *shown, int *warned, int *status)
{
    const tr_reader_diag *d = tr_reader_last_diag(r);
    if (tr_error_recoverable(rc)) {
        if (!(*warned)++)
            cli_warn("%s: %s at byte %llu%s%s; continuing", shown, tr_strerror(rc), (unsigned long long)d->offset,
                     d->detail[0] ? ": " : "", d->detail);
        *status = CLI_EXIT_TRUNCATED;
        return 1;
    }
    cli_warn("%s: %s%s%s", shown, tr_strerror(rc), d->detail[0] ? ": " : "", d->detail);
    /* a stream was read before (a later one refused, a read error midway): damaged, not unreadable */
    tr_reader_stats st;
    tr_reader_get_stats(r, &st);
    *status = rc != TR_E_NOMEM && (rc == TR_E_TRUNCATED || st.streams > 0) ? CLI_EXIT_TRUNCATED : CLI_EXIT_FAIL;
    return 0;
}
