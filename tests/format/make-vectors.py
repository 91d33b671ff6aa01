#!/usr/bin/env python3
"""Make the spec's test vectors and the golden traces from tr-synth output.

Run once per format change (its output is committed):
    python3 tests/format/make-vectors.py build/release/tests/tr-synth
It writes only the files that do not exist: the vectors and golden traces of
earlier versions stay as they were written (every later reader reads them).
Delete a file to make it again.  Every vector is described in
spec/vectors/README.md."""
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
    path = os.path.join(root, d, name)
    if os.path.exists(path): return
    with open(path, 'wb') as f: f.write(data)
    print('wrote', os.path.relpath(path, root))

def varint(data, i):
    """(value, next offset) of the varint at data[i]"""
    v = shift = 0
    while True:
        b = data[i]; i += 1
        v |= (b & 0x7f) << shift; shift += 7
        if b < 0x80: return v, i

def zstd(args, data):
    return subprocess.run(['zstd', '-q', *args], input=data, check=True, stdout=subprocess.PIPE).stdout

def rewrite_first_chunk(data, edit):
    """data with its first chunk's raw records replaced by edit(raw)"""
    c = frames(data, b'TRCH')[0]
    csize, rsize = struct.unpack_from('<II', data, c + 8 + 16)
    raw = bytearray(zstd(['-d', '-c'], bytes(data[c + 48:c + 48 + csize])))
    assert len(raw) == rsize
    edit(raw)
    z = zstd(['-c', '--content-size', '--check'], bytes(raw))
    head = bytearray(data[c:c + 48])
    struct.pack_into('<II', head, 8 + 16, len(z), len(raw))
    recrc(head, 0)
    return bytes(data[:c]) + bytes(head) + z + bytes(data[c + 48 + csize:])

def samples_kept(raw):
    """offsets of the kept varints of the samples that have one (sflags bit 3)"""
    out, i = [], 0
    while i < len(raw):
        t, i = varint(raw, i)
        n, i = varint(raw, i)
        end, j = i + n, i
        if t == 0x30:
            for _ in range(4 + 3): _, j = varint(raw, j)     # prefix; event, period, stack
            fl, j = varint(raw, j)
            if fl & 1:
                _, j = varint(raw, j); mask, j = varint(raw, j)
                for _ in range(bin(mask).count('1')): _, j = varint(raw, j)
            if fl & 2: k, j = varint(raw, j); j += k
            if fl & 4: _, j = varint(raw, j); k, j = varint(raw, j); j += k
            if fl & 8: out.append(j)
        i = end
    return out

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
stacks = run('-d', 'stacks', '24', '160')
put('spec/vectors/pass', 'stack-delta.tr', stacks)
runs = run('-r', '-c', '1024', '-k', '4096', 'samples', '300')
put('spec/vectors/pass', 'stack-runs.tr', runs)
put('spec/vectors/pass', 'stack-addr.tr', run('-a', 'stacks', '24', '160'))
put('spec/vectors/pass', 'switch.tr', run('switch'))
chains = run('-C', '-c', '1024', '-k', '4096', 'samples', '300')
put('spec/vectors/pass', 'stack-chains.tr', chains)
# fail vectors
put('spec/vectors/fail', 'empty.tr', b'')
put('spec/vectors/fail', 'not-a-trace.tr', b'# this is a text file, not a trace\n')
d = bytearray(allt); struct.pack_into('<H', d, 12, 2); recrc(d, 0)
put('spec/vectors/fail', 'newer-major.tr', bytes(d))
d = bytearray(allt); struct.pack_into('<I', d, 20, 0x80000000); recrc(d, 0)
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
def kept_too_long(raw):
    i = samples_kept(raw)[0]
    v, j = varint(raw, i)
    raw[i:j] = bytes([0xff] * (j - i - 1) + [0x7f])  # the largest value of the same length
put('spec/vectors/fail', 'stack-delta-kept-too-long.tr', rewrite_first_chunk(bytearray(stacks), kept_too_long))
def records(raw, rtype):
    """(body offset, body end) of each record of type rtype"""
    out, i = [], 0
    while i < len(raw):
        t, i = varint(raw, i)
        n, i = varint(raw, i)
        if t == rtype: out.append((i, i + n))
        i += n
    return out
def run_parent_not_before(raw):
    i, end = records(raw, 0x05)[1]
    first, j = varint(raw, i)
    parent, k = varint(raw, j)
    assert j - i == k - j  # parent := first, in the same number of bytes
    raw[j:k] = raw[i:j]
put('spec/vectors/fail', 'stack-run-parent-not-before.tr', rewrite_first_chunk(bytearray(runs), run_parent_not_before))
def chain_parent_not_before(raw):
    i, end = records(raw, 0x06)[1]
    _, j = varint(raw, i)
    up, k = varint(raw, j)
    assert k - j == 1  # up := 0: the parent is not below the first node
    raw[j] = 0
put('spec/vectors/fail', 'stack-chain-parent-not-before.tr',
    rewrite_first_chunk(bytearray(chains), chain_parent_not_before))
def sample_relative_without_chains(raw):
    i, end = records(raw, 0x30)[0]
    for _ in range(4 + 3): _, i = varint(raw, i)     # prefix; event, period, stack
    assert raw[i] < 0x20
    raw[i] |= 0x20  # sflags bit 5: a relative stack id, in a stream without STACK_CHAINS
put('spec/vectors/fail', 'stack-relative-without-chains.tr', rewrite_first_chunk(bytearray(allt), sample_relative_without_chains))
# issue 13, 11: diagnostics that name what is there
d = bytearray(samples); c = frames(d, b'TRCH')[1]; struct.pack_into('<I', d, c + 8 + 16, 0xffffffff); recrc(d, c)
put('spec/vectors/fail', 'oversized-zstd-frame.tr', bytes(d))
put('spec/vectors/fail', 'cut-in-end-frame.tr', samples[:-20])
put('spec/vectors/fail', 'cut-in-frame-magic.tr', samples[:frames(samples, b'TREN')[-1] + 2])
d = bytearray(allt); struct.pack_into('<H', d, 12, 2); recrc(d, 0)
put('spec/vectors/fail', 'newer-major-after-good.tr', allt + bytes(d))
