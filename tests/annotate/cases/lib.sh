# Shared by the tr-annotate cases: build the test program, record it, find
# its loop's addresses in its own line table.
set -eu
unset DEBUGINFOD_URLS
SRC="$CASE/../../loop.c"
need_recorder() {
    command -v tr-rec-perf >/dev/null || { echo "tr-rec-perf is not built" >&2; exit 1; }
    [ -e /proc/sys/kernel/perf_event_paranoid ] ||
        { echo "SKIP: the kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)"; exit 77; }
}
build() { # OUT [CFLAGS...]
    local out=$1; shift
    cp "$SRC" loop.c
    cc -O2 -g "$@" -o "$out" loop.c
}
record() { # TRACE [tr-rec-perf options...] -- COMMAND...
    local t=$1; shift
    tr-rec-perf -q -o "$t" "$@" 2>rec.err || { cat rec.err >&2; exit 1; }
}
# loop_range BINARY: "LO HI" (decimal), the addresses whose line-table rows are
# the lines marked LOOP or MIX in loop.c, from the first to the next other row
loop_range() {
    local lines
    lines=$(grep -n 'LOOP\|MIX' loop.c | cut -d: -f1 | tr '\n' ' ')
    objdump --dwarf=decodedline "$1" | awk -v L="$lines" '
        BEGIN { n = split(L, a, " "); for (i = 1; i <= n; i++) inl[a[i]] = 1 }
        $1 == "loop.c" && $2 ~ /^[0-9]+$/ && $3 ~ /^0x/ { addr = $3; line[addr] = $2; if (!(addr in seen)) { seen[addr] = 1; order[++m] = addr } }
        END {
            for (i = 1; i <= m; i++) { a0 = order[i]; if (inl[line[a0]]) { if (lo == "") lo = a0; last = i } }
            hi = order[last + 1]
            print lo, hi }' | { read -r lo hi; echo $((lo)) $((hi)); }
}
