#!/bin/sh
# bench/mutate.sh: the mutation benchmark (make mutate). For each line of
# bench/mutations.tsv (file, exact text, replacement, what it breaks) it
# copies the built tree to a scratch directory once, applies that one
# mutation, rebuilds the unit tests (only the changed object recompiles),
# runs them, and counts the mutant caught when any test fails or the build
# breaks. A mutation whose text is not found exactly once is reported as
# stale (the code moved: fix the list), never silently skipped.
# Prints each survivor and "mutation score: caught/total".
#   sh bench/mutate.sh                 every mutation
#   sh bench/mutate.sh 3 7             only lines 3 and 7 of the list
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
list=$root/bench/mutations.tsv
scratch=$(mktemp -d "${TMPDIR:-/tmp}/trainplan-mutate.XXXXXX") || exit 2
trap 'rm -rf "$scratch"' EXIT
trap 'exit 130' INT TERM

cd "$root" && make --no-print-directory -s build/tests/unit-tests >/dev/null || exit 2
tar -C "$root" --exclude=.git -cf - . | tar -C "$scratch" -xf - || exit 2
export TRAINPLAN_SHARED="$root/../shared"

apply() {       # file old new -> 0 when replaced exactly once
    python3 - "$scratch/$1" "$2" "$3" <<'PY'
import sys
path, old, new = sys.argv[1], sys.argv[2], sys.argv[3]
text = open(path).read()
if text.count(old) != 1:
    sys.exit(1)
open(path, "w").write(text.replace(old, new))
PY
}

n=0 caught=0 total=0 stale=0 survivors=
while IFS='	' read -r file old new what; do
    n=$((n + 1))
    case $file in ''|'#'*) continue ;; esac
    if [ $# -gt 0 ]; then
        want=; for a in "$@"; do [ "$a" = "$n" ] && want=1; done
        [ -n "$want" ] || continue
    fi
    cp "$root/$file" "$scratch/$file.orig"
    if ! apply "$file" "$old" "$new"; then
        echo "stale: line $n: '$old' not found exactly once in $file"
        stale=$((stale + 1)); rm -f "$scratch/$file.orig"; continue
    fi
    total=$((total + 1))
    if (cd "$scratch" && make --no-print-directory -s build/tests/unit-tests \
            >/dev/null 2>&1 && OMP_NUM_THREADS=1 ./build/tests/unit-tests \
            --jobs 2 >/dev/null 2>&1); then
        survivors="$survivors
  line $n: $file: $what"
    else
        caught=$((caught + 1))
    fi
    mv "$scratch/$file.orig" "$scratch/$file"
    touch "$scratch/$file"
done < "$list"
[ -z "$survivors" ] || printf 'survivors:%s\n' "$survivors"
[ "$stale" = 0 ] || echo "$stale stale mutation(s): update bench/mutations.tsv"
echo "mutation score: $caught/$total caught by the unit tests"
[ "$stale" = 0 ]
