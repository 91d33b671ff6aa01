#!/usr/bin/env python3
"""Make the spec's test vectors and the golden traces from tr-synth output.

Run once per format change (its output is committed):
    python3 tests/format/make-vectors.py build/release/tests/tr-synth
Every vector is described in spec/vectors/README.md."""
import os, struct, subprocess, sys

synth = sys.argv[1]
root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

def crc32c(data):
    crc = 0xffffffff
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xffffffff

def run(*args):
    return subprocess.run([synth, *args], check=True, stdout=subprocess.PIPE).stdout

def frames(data, kind):
    """offsets of tr frames of kind (b'TRCH' ...)"""
    out, i = [], 0
    while True:
        i = data.find(b'\x5e\x2a\x4d\x18', i)
        if i < 0: return out
        if data[i + 8:i + 12] == kind: out.append(i)
        i += 1

def recrc(data, off):
    size = struct.unpack_from('<I', data, off + 4)[0]
    struct.pack_into('<I', data, off + 8 + size - 4, crc32c(bytes(data[off + 8:off + 8 + size - 4])))

def put(d, name, data):
    with open(os.path.join(root, d, name), 'wb') as f: f.write(data)

allt = run('all')
samples = run('-c', '1024', '-k', '4096', 'samples', '300')
# golden traces: read identically by every later version
put('tests/golden', 'all-types.tr', allt)
put('tests/golden', 'samples.tr', samples)
# pass vectors
put('spec/vectors/pass', 'minimal.tr', allt)
put('spec/vectors/pass', 'concatenated.tr', allt + samples[:0] + allt)
d = bytearray(allt); struct.pack_into('<H', d, 14, 7); recrc(d, 0)
put('spec/vectors/pass', 'newer-minor.tr', bytes(d))
d = bytearray(allt); struct.pack_into('<I', d, 16, 0x80000000); recrc(d, 0)
put('spec/vectors/pass', 'unknown-compat-flag.tr', bytes(d))
skip = struct.pack('<II', 0x184D2A50, 5) + b'hello'
put('spec/vectors/pass', 'foreign-skippable-frame.tr', skip[:0] + allt[:36] + skip + allt[36:])
# fail vectors
put('spec/vectors/fail', 'empty.tr', b'')
put('spec/vectors/fail', 'not-a-trace.tr', b'# this is a text file, not a trace\n')
d = bytearray(allt); struct.pack_into('<H', d, 12, 2); recrc(d, 0)
put('spec/vectors/fail', 'newer-major.tr', bytes(d))
d = bytearray(allt); struct.pack_into('<I', d, 20, 1); recrc(d, 0)
put('spec/vectors/fail', 'unknown-incompat-flag.tr', bytes(d))
put('spec/vectors/fail', 'truncated.tr', samples[:len(samples) * 2 // 3])
d = bytearray(samples); c = frames(d, b'TRCH')[2]; d[c + 48 + 30] ^= 0x5a
put('spec/vectors/fail', 'corrupt-chunk.tr', bytes(d))
d = bytearray(samples); c = frames(d, b'TRCH')[2]; d[c + 10] ^= 0x01
put('spec/vectors/fail', 'corrupt-frame-header.tr', bytes(d))
d = bytearray(samples); c = frames(d, b'TRCH')[1]; struct.pack_into('<I', d, c + 8 + 20, 0x7fffffff); recrc(d, c)
put('spec/vectors/fail', 'oversized-chunk.tr', bytes(d))
c1, c2 = frames(samples, b'TRCH')[1:3]
put('spec/vectors/fail', 'lost-chunk.tr', samples[:c1] + samples[c2:])
put('spec/vectors/fail', 'garbage-between-streams.tr', allt + b'\x00garbage\xff' * 3 + allt)
put('spec/vectors/fail', 'killed-then-whole.tr', samples[:len(samples) // 2] + allt)
