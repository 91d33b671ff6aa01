# ref.sh - sourced by cases: $REF is the FlameGraph reference directory, tests/fold/reference
# (its README says how each file was made; the captures are CDDL 1.0, LICENSE-CDDL-1.0.txt there).
REF=$TR_ROOT/tests/fold/reference
if [ ! -d "$REF/captures" ]; then
    echo "no FlameGraph reference at $REF" >&2
    exit 1
fi
