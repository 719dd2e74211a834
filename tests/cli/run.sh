#!/bin/sh
# tests/cli/run.sh: the CLI tests. Runs every tests/cli/t-*.sh, in sorted
# order, sourced into this shell after tests/cli/lib.sh, against $TRAINPLAN
# (default ./trainplan, relative to where this is started). Prints one line
# per failing case, one "skip NAME: REASON" line per case that cannot run
# here, and ends with "N passed, N failed, N skipped"; exits 1 if any failed.
# With T_RESULTS=FILE (make check) it logs every case to FILE instead of the
# skips and the count, which tests/summary.sh prints with the unit tests'.
#   TRAINPLAN=build/san/trainplan sh tests/cli/run.sh
#   UPDATE_GOLDEN=1 sh tests/cli/run.sh      rewrite tests/data/golden/*, only
#       while the unit tests pass, saying which numbers moved (or: make
#       update-golden)
#   sh tests/cli/run.sh t-bad-input          only the scripts named
# See lib.sh for the helpers and for known-bug cases (KNOWN_BUGS=fail).

: "${TRAINPLAN:=./trainplan}"
case $TRAINPLAN in
/*) ;;
*/*) TRAINPLAN=$(pwd)/$TRAINPLAN ;;
esac
export TRAINPLAN

root=$(cd "$(dirname "$0")/../.." && pwd) || exit 2
cd "$root" || exit 2
unset OMP_NUM_THREADS
LC_ALL=C
export LC_ALL

if [ ! -x "$TRAINPLAN" ] && ! command -v "$TRAINPLAN" >/dev/null 2>&1; then
    echo "run.sh: no program at '$TRAINPLAN' (build it with make)" >&2
    exit 2
fi

# UPDATE_GOLDEN=1 rewrites the golden files only while every unit test
# passes: a golden file records what the program does, the unit tests check
# that it is right (README "Tests"). $UNIT_TESTS, or the unit-test binary of
# the build $TRAINPLAN comes from (make update-golden builds both).
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    if [ -z "${UNIT_TESTS:-}" ]; then
        UNIT_TESTS=$root/build/tests/unit-tests
        case $TRAINPLAN in
        "$root"/build/*/trainplan) UNIT_TESTS=${TRAINPLAN%/trainplan}/tests/unit-tests ;;
        esac
    fi
    if [ ! -x "$UNIT_TESTS" ]; then
        echo "run.sh: UPDATE_GOLDEN=1 refused: no unit tests at '$UNIT_TESTS' (make update-golden)" >&2
        exit 1
    fi
    u_log=$(TRAINPLAN_SHARED=${TRAINPLAN_SHARED:-$root/../shared} "$UNIT_TESTS" --jobs 2 2>&1)
    u_rc=$?
    if [ "$u_rc" != 0 ]; then
        printf '%s\n' "$u_log" | grep -E '^\[(FAIL|----)\]|Synthesis' >&2
        echo "run.sh: UPDATE_GOLDEN=1 refused: unit tests fail (exit $u_rc); fix them before rewriting golden files" >&2
        exit 1
    fi
fi

T_TMP=$(mktemp -d "${TMPDIR:-/tmp}/trainplan-cli.XXXXXX") || exit 2
trap 'rm -rf "$T_TMP"' EXIT
trap 'exit 130' INT HUP TERM

. tests/cli/lib.sh

for t_script in tests/cli/t-*.sh; do
    if [ $# -gt 0 ]; then
        t_want=
        for t_arg in "$@"; do
            case $t_script in
            *"/$t_arg"|*"/$t_arg.sh") t_want=1 ;;
            esac
        done
        [ -n "$t_want" ] || continue
    fi
    # shellcheck source=/dev/null
    . "./$t_script"
done

[ "$T_KNOWN" = 0 ] || echo "$T_KNOWN known bugs (not counted; see KNOWN BUG lines)"
[ -n "${T_RESULTS:-}" ] ||       # else tests/summary.sh counts
    echo "$T_PASSED passed, $T_FAILED failed, $T_SKIPPED skipped"
[ "$T_FAILED" = 0 ]
