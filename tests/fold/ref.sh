# ref.sh - sourced by cases: $REF is the FlameGraph reference directory
# (README there says how each file was made); shared/ lies beside the checkout
# in the workplace and in CI, so its absence is a failure.
REF=${TR_FLAMEGRAPH_REF:-$TR_ROOT/../shared/reference/flamegraph}
if [ ! -d "$REF/captures" ]; then
    echo "no FlameGraph reference at $REF (set TR_FLAMEGRAPH_REF)" >&2
    exit 1
fi
