#!/usr/bin/env python3
"""run-in-pty.py [-o FILE] CMD [ARG...] - run CMD with a pseudo-terminal as its stdin/stdout/stderr
(so that terminal ioctls succeed and isatty holds), keep what it prints in FILE (with -o; the
terminal's \\r\\n as \\n) or discard it, exit with its status."""
import os
import pty
import sys

args = sys.argv[1:]
keep = None
if args[:1] == ['-o']:
    keep, args = args[1], args[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execvp(args[0], args)
out = []
while True:
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    out.append(data)
_, status = os.waitpid(pid, 0)
if keep:
    with open(keep, 'wb') as f:
        f.write(b''.join(out).replace(b'\r\n', b'\n'))
sys.exit(os.waitstatus_to_exitcode(status) & 0xff)
