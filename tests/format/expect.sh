#!/bin/bash
# tests/format/expect.sh check|update
# What tr-cat makes of the spec's vectors and of the golden traces, against
# the expected files kept beside them.  "update" rewrites the expected files
# (only when a change of output is intended; golden output must never change).
set -u
mode=$1
root=$(cd "$(dirname "$0")/../.." && pwd)
status=0
render() { # file -> what is compared
    local f=$1
    case $f in
    pass/*) tr-synth dump < "$f" 2>&1; tr-cat "$f" >/dev/null; echo "tr-cat exit $?" ;;
    fail/*) tr-cat "$f" 2>&1 >/dev/null; echo "exit $?"; tr-synth dump < "$f" | grep -v '^  ' | cut -d' ' -f1 | sort | uniq -c ;;
    esac
}
check() { # expected-file, then the command's output on stdin
    if [ "$mode" = update ]; then cat > "$1"; echo "updated $1"; return; fi
    if diff -u "$1" - > /tmp/expect.$$; then echo "ok ${1#$root/}"; else
        echo "DIFFERS ${1#$root/}"; head -20 /tmp/expect.$$; status=1; fi
    rm -f /tmp/expect.$$
}
cd "$root/spec/vectors"
for f in pass/*.tr fail/*.tr; do render "$f" | check "$root/spec/vectors/${f%.tr}.txt"; done
cd "$root/tests/golden"
for f in *.tr; do
    tr-synth dump < "$f" | check "$root/tests/golden/${f%.tr}.dump"
    tr-cat --info "$f" | check "$root/tests/golden/${f%.tr}.info"
done
exit $status
