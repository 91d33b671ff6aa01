#!/bin/bash
# make demo: record a bundled workload, fold it and render a flame graph;
# where a stage is not built yet, show what there is.
set -eu
export PATH="${TR_BIN:?}:$PATH"
out=${DEMO_OUT:-demo}
mkdir -p "$out"
work="$(dirname "$TR_BIN")/workloads/hot3-fp"
if command -v tr-rec-perf >/dev/null && command -v tr-fold >/dev/null && command -v tr-flame >/dev/null && [ -x "$work" ]; then
    echo "== tr-rec-perf -g $work | tr-fold | tr-flame > $out/demo.svg"
    tr-rec-perf -g -o "$out/demo.tr" "$work"
    tr-fold "$out/demo.tr" | tee "$out/demo.folded" | sort -k2 -n -r | head -5
    tr-flame --title "tr demo: $(basename "$work")" < "$out/demo.folded" > "$out/demo.svg"
    tr-cat --info "$out/demo.tr" | sed -n '1,4p;/^records:/,$p'
    echo "flame graph: $out/demo.svg"
else
    echo "== the recorder or the flame graph is not built yet: a synthetic trace instead"
    synth="$(dirname "$TR_BIN")/tests/tr-synth"
    [ -x "$synth" ] || make -s "$(dirname "$TR_BIN")/tests/tr-synth"
    "$synth" samples 5 > "$out/demo.tr"
    tr-cat "$out/demo.tr" | head -30
    tr-cat --info "$out/demo.tr"
fi
