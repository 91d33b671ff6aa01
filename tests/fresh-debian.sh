#!/bin/bash
# tests/fresh-debian.sh: the two commands on a truly fresh Debian 12.
#
# As root: debootstraps a minimal Debian bookworm (--variant=minbase) into a temporary
# directory, adds only git and make, binds /proc, /sys and /dev into it, clones this
# repository's committed HEAD (git clone of the local repository) into an empty directory
# there (no ../shared beside it), and runs `make demo` and `make test` inside the chroot:
# everything else they need, they must install themselves.  Prints the demo's status and
# make test's result line ("N passed, N failed, N skipped") last; exits 0 when both passed.
#
# Needs root, network to the Debian archive (the mirror of this machine's apt sources; or
# MIRROR=URL) and some minutes (the test packages include chromium, clang and rustc).
# The mounts are undone on every exit path; the root is removed unless KEEP=1 (then its
# path is printed).  The full log is $WORK/log (WORK: default a new directory in /tmp).
#
#   sudo tests/fresh-debian.sh            # or: KEEP=1 MIRROR=http://deb.debian.org/debian ...
set -euo pipefail
[ "$(id -u)" = 0 ] || { echo "fresh-debian: run as root (debootstrap, chroot, mounts)" >&2; exit 2; }
repo=$(cd "$(dirname "$0")/.." && pwd)
head=$(git -C "$repo" rev-parse HEAD)
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

# the Debian mirror of this machine's apt sources (deb822 or one-line style)
if [ -z "${MIRROR:-}" ]; then
    MIRROR=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }')
    [ -n "$MIRROR" ] || MIRROR=$(grep -hE '^deb +(\[[^]]*\] +)?https?://' /etc/apt/sources.list 2>/dev/null |
        grep -v security | sed -E 's/^deb +(\[[^]]*\] +)?//' | awk '{ print $1; exit }')
    MIRROR=${MIRROR:-http://deb.debian.org/debian}
fi
command -v debootstrap >/dev/null || { apt-get update -qq && apt-get install -y -qq debootstrap >/dev/null; }

WORK=${WORK:-$(mktemp -d /tmp/fresh-debian.XXXXXX)}
root=$WORK/root
log=$WORK/log
mkdir -p "$root"
: > "$log"

cleanup() {
    local rc=$? m
    # every mount under the root, deepest first (make test mounts tracefs in there)
    for m in $(awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts | sort -r); do
        umount -l "$m" 2>/dev/null || true
    done
    if awk -v r="$root" '$2 == r || index($2, r "/") == 1 { f = 1 } END { exit !f }' /proc/self/mounts; then
        echo "fresh-debian: mounts left under $root; not removing it" >&2
    elif [ "${KEEP:-0}" = 1 ]; then
        echo "fresh-debian: kept $root (log $log)"
    else
        rm -rf --one-file-system "$root"
    fi
    exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "fresh-debian: debootstrap --variant=minbase bookworm $root ($MIRROR), then git and make"
debootstrap --variant=minbase --include=git,make bookworm "$root" "$MIRROR" >>"$log" 2>&1 ||
    { tail -20 "$log"; echo "fresh-debian: debootstrap failed (log $log)"; exit 1; }
# the machine's Debian sources (updates, security) when it has deb822 ones, and its resolver
if ls /etc/apt/sources.list.d/debian.sources >/dev/null 2>&1; then
    cp /etc/apt/sources.list.d/debian.sources "$root/etc/apt/sources.list.d/"
    : > "$root/etc/apt/sources.list"
fi
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true

# the root a mount point of its own (private), as / is on a machine: unshare -m (the ftrace
# cases) changes the propagation of / and fails in a chroot whose / is not a mount point
mount --bind "$root" "$root"
mount --make-private "$root"
mount --bind /proc "$root/proc"
mount --bind /sys "$root/sys"          # not recursive: make test mounts tracefs itself
mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"         # with /dev/pts and /dev/shm
mount --make-rslave "$root/dev"

# the committed HEAD, cloned into an empty directory
git clone -q "$repo" "$root/home/fresh/tr"
git -C "$root/home/fresh/tr" checkout -q "$head"
echo "fresh-debian: $(git -C "$root/home/fresh/tr" log --oneline -1) in /home/fresh/tr (log $log)"

inside() { # run a shell command in the chroot, in the clone, with a clean environment
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 TERM=dumb /bin/bash -c "cd /home/fresh/tr && $1"
}
demo=0 tests=0
echo "fresh-debian: make demo"
inside "make demo" >>"$log" 2>&1 || demo=$?
echo "fresh-debian: make test"
inside "make test" >>"$log" 2>&1 || tests=$?
grep -E '^(failed|   FAIL|   SKIP) ' "$log" || true
result=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -1 || true)
echo "fresh-debian: make demo exit $demo; make test exit $tests: ${result:-no result line}"
[ $demo = 0 ] && [ $tests = 0 ]
