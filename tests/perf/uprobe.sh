# Sourced by the user probe cases (cases/uprobe-*): skip rules, the probe list, perf's probes.
. "$TR_ROOT/tests/tracefs.sh"
need_uprobes() { need_uprobe_events "user probe" probed probed-O2; }

# perf probe, the anchor, in a group of this case's own (trcase<pid>), removed at the end;
# perf's build-id cache (HOME/.debug: perf 6.1 ignores PERF_BUILDID_DIR) in the case's
# directory, not shared with other runs; perf record with -B: its build-id processing aborts
# now and then ("assertion failed at util/build-id.c:1010").
perf() { HOME=$PWD command perf "$@"; }
PERF_GROUP=trcase$$
trap 'perf probe -q -d "$PERF_GROUP:*" 2>/dev/null || true' EXIT

# tr-cat's sample lines as "EVENT FIELDS", without the task, time and address columns.
fields() {
    tr-cat --type sample "$1" |
        sed -E 's/^.* ([A-Za-z0-9_]+:[A-Za-z0-9_]+): \([0-9a-f <-]+\)(.*)$/\1\2/; s/ +[0-9a-f]+ [^ ]+ \([^)]*\)$//'
}
