# Shared by the tr-triage cases: build the workloads, record one with tr-triage, read its findings.
set -eu
unset DEBUGINFOD_URLS
need_perf() {
    [ -e /proc/sys/kernel/perf_event_paranoid ] ||
        { echo "SKIP: the kernel has no perf events (no /proc/sys/kernel/perf_event_paranoid)"; exit 77; }
    [ -e /sys/kernel/tracing/events/raw_syscalls/sys_enter ] ||
        { echo "SKIP: no raw_syscalls tracepoints in tracefs"; exit 77; }
}
build() {
    cp "$CASE/../../workload.c" .
    cc -O1 -g -fno-omit-frame-pointer -pthread -o wl workload.c
}
# triage WORKLOAD: record ./wl WORKLOAD into t.tr, the report in t.html and t.json
triage() {
    tr-triage -q -o t.tr -w t.html --json ./wl "$1" > t.json 2> triage.err || { cat triage.err >&2; exit 1; }
}
# the findings, numbers and durations normalised: "N %", "N samples", T (a duration)
findings() {
    jq -r '.findings[].text' "${1:-t.json}" |
        sed -E 's/[0-9][0-9,.]* (s|ms|us)\b/T/g; s/[0-9][0-9,.]*/N/g'
}
