#!/usr/bin/env python3
"""run-in-pty.py [-o FILE] CMD [ARG...] - run CMD with a pseudo-terminal as its stdin/stdout/stderr
(so that terminal ioctls succeed and isatty holds), write what it prints to FILE as it comes
(with -o; without the terminal's \\r) or discard it, exit with its status."""
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
out = open(keep, 'wb', buffering=0) if keep else None
while True:
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    if out:
        out.write(data.replace(b'\r', b''))
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status) & 0xff)
