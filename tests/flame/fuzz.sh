#!/bin/bash
# fuzz.sh [SECONDS]: fuzz the folded-text parser, tr-flame's model and SVG writer
# (tests/flame/fuzz_folded.c), then the perf script folding (tests/fold/fuzz_perfscript.c),
# SECONDS each, with libFuzzer (clang).  Crashes land in tests/flame/fuzz-regress/,
# which tests/flame/cases/fuzz-regress and the two replay unit tests replay.
set -eu
cd "$(dirname "$0")/../.."
secs=${1:-60}
out=build/fuzz
mkdir -p "$out/corpus" tests/flame/fuzz-regress
bash model/flame/embed.sh model/flame/script.js model/flame/style.css > "$out/script.c"
cflags="-g -O1 -std=c11 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -Iformat -Imodel -Icli"
clang $cflags -Imodel/flame \
    tests/flame/fuzz_folded.c model/flame/flame.c model/flame/svg.c \
    model/flame/palette.c "$out/script.c" cli/cli.c format/*.c model/*.c -lzstd -lm \
    -o "$out/fuzz_folded"
clang $cflags -Imodel/fold \
    tests/fold/fuzz_perfscript.c model/fold/perfscript.c format/*.c model/*.c -lzstd -lm \
    -o "$out/fuzz_perfscript"
# seeds: the regression inputs, the tr-fold quirk captures, small folded files
cp tests/flame/fuzz-regress/* tests/fold/data/quirks.txt "$out/corpus/" 2>/dev/null || true
printf 'a;b;c 1\na;b 2\nx 3\n' > "$out/corpus/seed1"
printf 'a;b 1 2\na;c 3 0\n' > "$out/corpus/seed2"
for target in fuzz_folded fuzz_perfscript; do
    "$out/$target" -max_total_time="$secs" -max_len=8192 -timeout=10 \
        -artifact_prefix=tests/flame/fuzz-regress/ "$out/corpus"
done
