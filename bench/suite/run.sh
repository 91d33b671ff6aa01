#!/bin/sh
# bench/suite/run.sh - the benchmark suite: every workload of bench/workloads/, tr side by side with
# perf, in one run (bench/README.md).  Options: run.sh --help.  `make bench-suite` builds what it
# needs first and runs this (SUITE_ARGS="--quick --only deep,python").
#   B=build/release sh bench/suite/run.sh [--quick] [--only W,...] [--section S,...] ...
# Debian's CPython runs the driver (and the python workload), not a python3 found on PATH.
[ -x /usr/bin/python3 ] || { echo "bench-suite: /usr/bin/python3 is missing (apt-get install python3)" >&2; exit 1; }
exec /usr/bin/python3 "$(dirname "$0")/suite.py" "$@"
