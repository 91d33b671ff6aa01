#!/usr/bin/env python3
"""strace-norm.py [--skip NAME,...] FILE - normalise strace-style output for comparison.

Lines are grouped by pid (ephemeral ports become EPHEMERAL); an "<unfinished ...>" line is joined with its
"<... NAME resumed>" continuation, so that two runs whose threads interleaved
differently compare equal.  Pids are renamed P0, P1, ... in the order the
parent's fork/clone calls returned them; addresses, random bytes and
alignment are normalised.  Syscalls named with --skip are dropped (the test
names what tr prints differently).  Prints one line per event, grouped by
process in order of creation.
"""
import re
import sys

skip = set()
args = sys.argv[1:]
if args and args[0] == '--skip':
    skip = set(args[1].split(','))
    args = args[2:]
lines = open(args[0], errors='replace').read().splitlines()

line_re = re.compile(r'^(\d+)\s+(.*)$')
per_pid = {}
order = []
pending = {}
for raw in lines:
    if raw.startswith('# '):
        continue
    m = line_re.match(raw)
    if m:
        pid, rest = int(m.group(1)), m.group(2)
    else:
        pid, rest = 0, raw
    if pid not in per_pid:
        per_pid[pid] = []
        order.append(pid)
    if rest.endswith(' <unfinished ...>'):
        pending[pid] = rest[:-len(' <unfinished ...>')]
        continue
    r = re.match(r'^<\.\.\. (\w+) resumed>(.*)$', rest)
    if r and pid in pending:
        rest = pending.pop(pid) + r.group(2)
    elif r:
        rest = r.group(1) + '(<resumed>' + r.group(2)
    per_pid[pid].append(rest)
for pid, rest in pending.items():
    per_pid[pid].append(rest + ' <unfinished>')

# pid names: the root, then children in the order fork/clone returned them
names = {}
if order:
    queue = [order[0]]
    names[order[0]] = 'P0'
    while queue:
        pid = queue.pop(0)
        for l in per_pid.get(pid, []):
            m = re.match(r'^(clone3?|fork|vfork)\(.*\)\s+= (\d+)$', l)
            if m and int(m.group(2)) not in names and int(m.group(2)) in per_pid:
                child = int(m.group(2))
                names[child] = 'P%d' % len(names)
                queue.append(child)
    for pid in order:
        if pid not in names:
            names[pid] = 'P%d' % len(names)

def norm(l):
    for pid, n in names.items():
        if pid:
            l = re.sub(r'\b%d\b' % pid, n, l)
    l = re.sub(r'0x[0-9a-f]{5,}', 'ADDR', l)
    l = re.sub(r'"(\\x[0-9a-f]{2})+"', '"RANDOM"', l)
    l = re.sub(r'\)\s+= ', ') = ', l)
    l = re.sub(r'/\* \d+ vars \*/', '/* N vars */', l)
    # epoll data: Python fills only its u32 (the fd); the upper half of the u64 is whatever was
    # in memory, another value in each run
    l = re.sub(r'(data=\{u32=\d+, u64=)(\d+)', lambda m: m.group(1) + (m.group(2) if int(m.group(2)) < 1 << 32 else 'U64'), l)
    # ephemeral ports (the kernel picks them at random)
    l = re.sub(r'htons\((3[2-9]\d{3}|[4-6]\d{4})\)', 'htons(EPHEMERAL)', l)
    return l

for pid in sorted(per_pid, key=lambda p: int(names[p][1:])):
    for l in per_pid[pid]:
        m = re.match(r'^(\w+)\(', l)
        if m and m.group(1) in skip:
            continue
        print('%s %s' % (names[pid], norm(l)))
