#!/bin/bash
# Normalise tool output for comparison: pids, times and addresses vary.
#   pid=123 / [123] / pid 123 -> PID;  12.345678 timestamps -> T;  0x7fff.... -> ADDR
sed -E \
  -e 's/\b(pid|tid|ppid)[= ]([0-9]+)/\1=PID/g' \
  -e 's/\b[0-9]{1,10}\.[0-9]{6,9}\b/T/g' \
  -e 's/0x[0-9a-f]{9,16}\b/ADDR/g'
