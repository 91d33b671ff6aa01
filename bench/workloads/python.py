"""python.py - benchmark workload: pure-Python code for the interpreter (run it with Debian's
/usr/bin/python3): classes and method calls, dicts, recursion, string work.  Fixed seed: every
run does the same work, for SECONDS.

    /usr/bin/python3 python.py SECONDS
"""
import sys
import time


class Node:
    __slots__ = ("key", "left", "right")

    def __init__(self, key):
        self.key = key
        self.left = None
        self.right = None


class Tree:
    def __init__(self):
        self.root = None

    def insert(self, key):
        self.root = self._insert(self.root, key)

    def _insert(self, node, key):
        if node is None:
            return Node(key)
        if key < node.key:
            node.left = self._insert(node.left, key)
        elif key > node.key:
            node.right = self._insert(node.right, key)
        return node

    def depth(self, node=None, top=True):
        if top:
            node = self.root
        if node is None:
            return 0
        return 1 + max(self.depth(node.left, False), self.depth(node.right, False))


def words(seed, n):
    out = []
    for _ in range(n):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        out.append("w%x_%s" % (seed % 4099, "abcdefgh"[seed % 8] * (1 + seed % 5)))
    return seed, out


def count_words(ws):
    counts = {}
    for w in ws:
        counts[w] = counts.get(w, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:20]


def render(items):
    return ";".join("%s=%d" % (k.upper().replace("_", "-"), v) for k, v in items)


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def one_round(seed):
    seed, ws = words(seed, 3000)
    tree = Tree()
    for w in ws:
        tree.insert(w)
    text = render(count_words(ws))
    return seed, tree.depth() + len(text) + fib(16) + len(text.split(";"))


def main():
    secs = float(sys.argv[1]) if len(sys.argv) > 1 else 5.0
    t0 = time.monotonic()
    seed, total, rounds = 1, 0, 0
    while True:
        seed, v = one_round(seed)
        total += v
        rounds += 1
        if time.monotonic() - t0 >= secs:
            break
    print("python: %d rounds (%d)" % (rounds, total))


if __name__ == "__main__":
    main()
