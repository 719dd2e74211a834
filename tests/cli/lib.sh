# tests/cli/lib.sh: helpers for the CLI tests (POSIX sh). run.sh sources this
# file, then each tests/cli/t-*.sh in the same shell, so the counters below
# add up over all of them. Every helper runs "$TRAINPLAN" from the repository
# root and counts one case.
#
#   check NAME EXIT STDERR1 -- ARGS...
#       exit status EXIT and first stderr line STDERR1 (exact). With EXIT 0
#       or 1 stderr must be empty (STDERR1 ""); with EXIT >= 2 stdout must be
#       empty, stderr must start "trainplan: error: " and have one line, or
#       for EXIT 2 (usage) two, the second "try 'trainplan ...--help'".
#   golden NAME FILE [EXIT] -- ARGS...
#       stdout byte for byte equal to tests/data/golden/FILE, exit EXIT
#       (default 0), stderr empty. UPDATE_GOLDEN=1 rewrites FILE instead and
#       says which numbers moved.
#   same_output NAME [--sed SCRIPT] A-ARGS... vs B-ARGS...
#       the two runs give the same exit status (0 or 1), the same non-empty
#       stdout and the same stderr; --sed edits A's stdout first.
#   other_output NAME A-ARGS... vs B-ARGS...
#       both exit 0 or 1 and their stdouts differ.
#   run_tp [VAR=VALUE...] ARGS...
#       run it (with VAR set in its environment): stdout in $T_OUT, stderr
#       in $T_ERR, status $T_RC, the command line in $T_CMD
#   expect NAME CONDITION...
#       every CONDITION holds for the last run_tp or interrupt, else one FAIL
#       line naming the first that does not:
#         exit=N           exit status N
#         stdout= stderr=  nothing on it
#         stdout~ERE stderr~ERE    a line matches (grep -E)
#         stdout!~ERE      no line matches
#         stderr1=TEXT     the first stderr line is TEXT
#         anything else    a shell condition, eval'd ('[ -s "$f" ]')
#   skip NAME REASON     count a case that cannot run here, with its reason
#   need_shared NAME PATH    0 when ../shared/data/PATH exists; else skip
#                        NAME (a failure when CI=true) and return 1
#   pass NAME / fail NAME WHAT   count a case of a test's own making
#   interrupt ARGS...    run ARGS on one thread, SIGINT after a second:
#                        status in $T_RC, output in $T_OUT and $T_ERR
#
# A case run with T_BUG set (T_BUG='what is wrong'; check ...; T_BUG=) states the
# right behaviour of a known program bug: while it fails it prints a
# "KNOWN BUG" line and is not counted (KNOWN_BUGS=fail counts it as failed);
# once it passes it prints a "FIXED" line asking to drop the marker.
#
# With T_RESULTS set, every case also appends "pass NAME", "fail NAME: WHAT"
# or "skip NAME: REASON" to that file, and tests/summary.sh, which reads it,
# prints the skips and the count (make check).
#
# Temporary files go in $T_TMP, which run.sh creates and removes.

: "${TRAINPLAN:=./trainplan}"
: "${T_TMP:?run the tests through tests/cli/run.sh}"
T_DATA=tests/data
T_GOLDEN=$T_DATA/golden
T_OUT=$T_TMP/stdout
T_ERR=$T_TMP/stderr
T_PASSED=${T_PASSED:-0}
T_FAILED=${T_FAILED:-0}
T_KNOWN=${T_KNOWN:-0}
T_SKIPPED=${T_SKIPPED:-0}
T_SHARED=${TRAINPLAN_SHARED:-../shared}

# t_log LINE: one line for tests/summary.sh
t_log()
{
    [ -z "${T_RESULTS:-}" ] || printf '%s\n' "$1" >>"$T_RESULTS"
}

pass()
{
    T_PASSED=$((T_PASSED + 1))
    t_log "pass $1"
    [ -z "${T_BUG:-}" ] ||
        printf 'FIXED %s: known bug (%s) now passes: drop its marker\n' "$1" "$T_BUG"
}

# fail NAME WHAT: one line, the case's name and what differed
fail()
{
    f_what=$(printf '%s' "$2" | tr '\n' ' ')
    if [ -n "${T_BUG:-}" ] && [ "${KNOWN_BUGS:-}" != fail ]; then
        T_KNOWN=$((T_KNOWN + 1))
        printf 'KNOWN BUG %s (%s): %s\n' "$1" "$T_BUG" "$f_what"
        return
    fi
    T_FAILED=$((T_FAILED + 1))
    printf 'FAIL %s: %s\n' "$1" "$f_what"
    t_log "fail $1: $f_what"
}

# skip NAME REASON: a case that cannot run here
skip()
{
    T_SKIPPED=$((T_SKIPPED + 1))
    if [ -n "${T_RESULTS:-}" ]; then
        t_log "skip $1: $2"             # tests/summary.sh lists it
    else
        printf 'skip %s: %s\n' "$1" "$2"
    fi
}

# need_shared NAME PATH: true when $T_SHARED/data/PATH exists; otherwise NAME
# is skipped, or failed in CI (CI=true), where the shared data must be there
need_shared()
{
    [ -e "$T_SHARED/data/$2" ] && return 0
    if [ "${CI:-}" = true ]; then
        fail "$1" "$T_SHARED/data/$2 absent (CI=true: the shared data is required)"
    else
        skip "$1" "$T_SHARED/data/$2 absent"
    fi
    return 1
}

# the command line, for messages (leading VAR=VALUE words before it)
t_cmd()
{
    t_in=
    for t_a in "$@"; do
        if [ -z "$t_in" ]; then
            case $t_a in
            [A-Z_]*=*) printf '%s ' "$t_a"; continue ;;
            esac
            printf 'trainplan'
            t_in=1
        fi
        case $t_a in
        ''|*[!A-Za-z0-9_./=@:,+-]*) printf " '%s'" "$t_a" ;;
        *) printf ' %s' "$t_a" ;;
        esac
    done
    [ -n "$t_in" ] || printf 'trainplan'
}

# run_tp [VAR=VALUE...] ARGS...: the leading assignments go to env, the
# program goes in after them
run_tp()
{
    T_CMD=$(t_cmd "$@")
    r_n=$# r_in=
    while [ "$r_n" -gt 0 ]; do
        r_a=$1
        shift
        r_n=$((r_n - 1))
        if [ -z "$r_in" ]; then
            case $r_a in
            [A-Z_]*=*) ;;
            *) set -- "$@" "$TRAINPLAN"; r_in=1 ;;
            esac
        fi
        set -- "$@" "$r_a"
    done
    [ -n "$r_in" ] || set -- "$@" "$TRAINPLAN"
    env "$@" </dev/null >"$T_OUT" 2>"$T_ERR"
    T_RC=$?
}

# t_line FILE N: line N of FILE (empty when absent)
t_line()
{
    sed -n "${2}p" "$1"
}

# t_cols FILE NAME...: the named columns of a CSV file with a header (lines
# starting '#' skipped), comma-separated, one line per row: tests name
# columns instead of counting them, so a new column breaks nothing.
t_cols()
{
    t_f=$1
    shift
    awk -F, -v want="$*" '
        /^#/ { next }
        !head { n = split(want, w, " "); for (i = 1; i <= NF; i++) col[$i] = i
                head = 1; next }
        { for (i = 1; i <= n; i++) printf "%s%s", $(col[w[i]]), i < n ? "," : "\n" }' "$t_f"
}

t_lines()
{
    wc -l <"$1" | tr -d ' '
}

check()
{
    c_name=$1 c_exit=$2 c_msg=$3
    shift 3
    [ "$1" = -- ] && shift
    run_tp "$@"
    c_cmd=$T_CMD
    c_got=$(t_line "$T_ERR" 1)
    c_why=
    if [ "$T_RC" != "$c_exit" ]; then
        c_why="exit $T_RC, expected $c_exit"
    elif [ "$c_got" != "$c_msg" ]; then
        c_why="stderr '$c_got', expected '$c_msg'"
    elif [ "$c_exit" -ge 2 ]; then
        c_n=$(t_lines "$T_ERR")
        case $c_msg in
        'trainplan: error: '?*) ;;
        *) c_why="stderr does not start 'trainplan: error: '" ;;
        esac
        if [ -n "$c_why" ]; then
            :
        elif [ -s "$T_OUT" ]; then
            c_why="wrote $(wc -c <"$T_OUT" | tr -d ' ') bytes to stdout on error"
        elif [ "$c_exit" = 2 ]; then
            c_try=$(t_line "$T_ERR" 2)
            case $c_try in
            "try 'trainplan "*"--help'") [ "$c_n" = 2 ] ||
                c_why="usage error has $c_n stderr lines, expected 2" ;;
            *) c_why="usage error: second stderr line '$c_try', expected \"try 'trainplan ...--help'\"" ;;
            esac
        elif [ "$c_n" != 1 ]; then
            c_why="$c_n stderr lines, expected 1"
        fi
    elif [ -s "$T_ERR" ]; then
        c_why="unexpected stderr '$c_got'"
    fi
    if [ -n "$c_why" ]; then
        fail "$c_name" "$c_cmd: $c_why"
        return 1
    fi
    pass "$c_name"
}

golden()
{
    g_name=$1 g_file=$T_GOLDEN/$2 g_exit=0
    shift 2
    if [ "$1" != -- ]; then
        g_exit=$1
        shift
    fi
    [ "$1" = -- ] && shift
    run_tp "$@"
    g_cmd=$T_CMD
    if [ "$T_RC" != "$g_exit" ]; then
        fail "$g_name" "$g_cmd: exit $T_RC, expected $g_exit (stderr: $(t_line "$T_ERR" 1))"
        return 1
    fi
    if [ -s "$T_ERR" ]; then
        fail "$g_name" "$g_cmd: unexpected stderr '$(t_line "$T_ERR" 1)'"
        return 1
    fi
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        if [ -f "$g_file" ] && ! cmp -s "$T_OUT" "$g_file"; then
            g_moved "$g_file" "$T_OUT"
        elif [ ! -f "$g_file" ]; then
            echo "golden $g_file: new, $(t_lines "$T_OUT") lines"
        fi
        mkdir -p "$T_GOLDEN" && cp "$T_OUT" "$g_file"
        pass "$g_name"
        return 0
    fi
    if [ ! -f "$g_file" ]; then
        fail "$g_name" "$g_cmd: no $g_file (make it with UPDATE_GOLDEN=1)"
        return 1
    fi
    if ! cmp -s "$T_OUT" "$g_file"; then
        g_n=$(t_lines "$g_file")
        g_got=$(t_lines "$T_OUT")
        g_at=$(cmp "$g_file" "$T_OUT" 2>/dev/null | sed -n 's/.*line \([0-9][0-9]*\).*/\1/p')
        if cmp "$g_file" "$T_OUT" 2>&1 | grep -q 'EOF'; then
            g_at=$((g_n < g_got ? g_n : g_got))
            g_at=$((g_at + 1))
        fi
        fail "$g_name" "$g_cmd: stdout ($g_got lines) differs from $g_file ($g_n lines) at line ${g_at:-?}: got '$(t_line "$T_OUT" "${g_at:-1}")', expected '$(t_line "$g_file" "${g_at:-1}")'"
        return 1
    fi
    pass "$g_name"
}

# g_moved OLD NEW: which numbers moved from golden file OLD to output NEW,
# each with its label (CSV column, JSON key or the line's first word): one
# line per file, then at most 12 numbers; a line whose words changed is
# shown whole
g_moved()
{
    awk -v name="$1" '
    function skel(s) { gsub(NUM, "#", s); gsub(/ +/, " ", s); return s }
    function nums(s, arr,   n) {
        n = 0
        while (match(s, NUM)) {
            arr[++n] = substr(s, RSTART, RLENGTH)
            s = substr(s, RSTART + RLENGTH)
        }
        return n
    }
    function moved(l, label, a, b,   d) {
        d = (a + 0 != 0) ? sprintf(" (%+.3g %%)", (b - a) / (a < 0 ? -a : a) * 100) : ""
        if (++n_moved <= 12)
            shown = shown sprintf("  line %d %s: %s -> %s%s\n", l, label, a, b, d)
    }
    function label_of(s) {
        if (match(s, /"[A-Za-z0-9_]+":/)) return substr(s, RSTART + 1, RLENGTH - 3)
        sub(/^ +/, "", s); sub(/ .*/, "", s)
        return s
    }
    BEGIN { NUM = "-?[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?" }
    NR == FNR { old[FNR] = $0; n_old = FNR; next }
    FNR == 1 && index($0, ",") && $0 !~ / / { csv = 1; split($0, hdr, ",") }
    {
        n_new = FNR
        if (!(FNR in old) || old[FNR] == $0) next
        lines++
        if (csv && FNR > 1) {
            split(old[FNR], fo, ","); k = split($0, fn, ",")
            for (i = 1; i <= k; i++)
                if (fo[i] != fn[i]) moved(FNR, hdr[i], fo[i], fn[i])
            next
        }
        if (skel(old[FNR]) != skel($0)) {
            n_text++
            shown = shown sprintf("  line %d was: %s\n  line %d now: %s\n", FNR,
                                  old[FNR], FNR, $0)
            next
        }
        nums(old[FNR], x); k = nums($0, y)
        for (i = 1; i <= k; i++)
            if (x[i] != y[i]) moved(FNR, label_of($0), x[i], y[i])
    }
    END {
        printf "golden %s: %d numbers moved", name, n_moved
        if (n_text) printf ", %d lines changed words", n_text
        if (n_old != n_new) printf ", %d lines -> %d", n_old, n_new
        printf "\n%s", shown
        if (n_moved > 12) printf "  ... and %d more\n", n_moved - 12
    }' "$1" "$2"
}

interrupt()
{
    T_CMD="OMP_NUM_THREADS=1 $(t_cmd "$@") (SIGINT after 1 s)"
    OMP_NUM_THREADS=1 "$TRAINPLAN" "$@" >"$T_OUT" 2>"$T_ERR" &
    i_pid=$!
    sleep 1
    kill -INT "$i_pid" 2>/dev/null
    wait "$i_pid"
    T_RC=$?
}

# expect NAME CONDITION...: see the top of this file
expect()
{
    ex_name=$1
    shift
    ex_why=
    for ex_c in "$@"; do
        case $ex_c in
        exit=*)
            [ "$T_RC" = "${ex_c#exit=}" ] || ex_why="exit $T_RC, expected ${ex_c#exit=}" ;;
        stdout=)
            [ ! -s "$T_OUT" ] ||
                ex_why="wrote $(wc -c <"$T_OUT" | tr -d ' ') bytes to stdout" ;;
        stderr=)
            [ ! -s "$T_ERR" ] || ex_why="unexpected stderr '$(t_line "$T_ERR" 1)'" ;;
        stderr1=*)
            [ "$(t_line "$T_ERR" 1)" = "${ex_c#stderr1=}" ] ||
                ex_why="stderr '$(t_line "$T_ERR" 1)', expected '${ex_c#stderr1=}'" ;;
        stdout~*)
            grep -Eq -- "${ex_c#stdout~}" "$T_OUT" ||
                ex_why="no stdout line matches '${ex_c#stdout~}'" ;;
        stdout!~*)
            ! grep -Eq -- "${ex_c#stdout!~}" "$T_OUT" ||
                ex_why="stdout has '$(grep -E -m 1 -- "${ex_c#stdout!~}" "$T_OUT")'" ;;
        stderr~*)
            grep -Eq -- "${ex_c#stderr~}" "$T_ERR" ||
                ex_why="no stderr line matches '${ex_c#stderr~}' (stderr '$(t_line "$T_ERR" 1)')" ;;
        *)
            eval "$ex_c" || ex_why="not: $ex_c" ;;
        esac
        [ -z "$ex_why" ] || break
    done
    if [ -n "$ex_why" ]; then
        fail "$ex_name" "${T_CMD:-trainplan}: $ex_why"
        return 1
    fi
    pass "$ex_name"
}

# t_half N FIRST|SECOND ARGS...: run_tp on the words before (FIRST) or after
# (SECOND) the word 'vs' at position N + 1
t_half()
{
    th_at=$1 th_which=$2
    shift 2
    th_n=$# th_i=0
    while [ "$th_i" -lt "$th_n" ]; do
        th_a=$1
        shift
        if [ "$th_which" = first ] && [ "$th_i" -lt "$th_at" ]; then
            set -- "$@" "$th_a"
        elif [ "$th_which" = second ] && [ "$th_i" -gt "$th_at" ]; then
            set -- "$@" "$th_a"
        fi
        th_i=$((th_i + 1))
    done
    run_tp "$@"
}

# t_two NAME [--sed SCRIPT] A... vs B...: run both; A's results in
# $T_TMP/a.{out,err}, $S_RC_A and $S_CMD_A, B's in the usual places
t_two()
{
    so_sed=
    if [ "$1" = --sed ]; then
        so_sed=$2
        shift 2
    fi
    so_at=0
    for so_a in "$@"; do
        [ "$so_a" = vs ] && break
        so_at=$((so_at + 1))
    done
    if [ "$so_at" = $# ]; then
        echo "lib.sh: same_output/other_output without 'vs'" >&2
        return 2
    fi
    t_half "$so_at" first "$@"
    S_RC_A=$T_RC S_CMD_A=$T_CMD
    if [ -n "$so_sed" ]; then
        sed "$so_sed" "$T_OUT" >"$T_TMP/a.out"
    else
        cp "$T_OUT" "$T_TMP/a.out"
    fi
    cp "$T_ERR" "$T_TMP/a.err"
    t_half "$so_at" second "$@"
}

same_output()
{
    so_name=$1
    shift
    t_two "$@" || { fail "$so_name" "malformed case"; return 1; }
    so_why=
    if [ "$S_RC_A" -gt 1 ] || [ "$T_RC" -gt 1 ]; then
        so_why="exit $S_RC_A and $T_RC, expected 0 or 1 (stderr '$(t_line "$T_ERR" 1)')"
    elif [ "$S_RC_A" != "$T_RC" ]; then
        so_why="exit $S_RC_A, but $T_RC for $T_CMD"
    elif [ ! -s "$T_TMP/a.out" ]; then
        so_why="no output"
    elif ! cmp -s "$T_TMP/a.out" "$T_OUT"; then
        so_why="stdout differs from $T_CMD's at line $(cmp "$T_TMP/a.out" "$T_OUT" 2>&1 | sed -n 's/.*line \([0-9][0-9]*\).*/\1/p')"
    elif ! cmp -s "$T_TMP/a.err" "$T_ERR"; then
        so_why="stderr differs from $T_CMD's"
    fi
    if [ -n "$so_why" ]; then
        fail "$so_name" "$S_CMD_A: $so_why"
        return 1
    fi
    pass "$so_name"
}

other_output()
{
    so_name=$1
    shift
    t_two "$@" || { fail "$so_name" "malformed case"; return 1; }
    if [ "$S_RC_A" -gt 1 ] || [ "$T_RC" -gt 1 ]; then
        fail "$so_name" "$S_CMD_A: exit $S_RC_A and $T_RC, expected 0 or 1"
    elif cmp -s "$T_TMP/a.out" "$T_OUT"; then
        fail "$so_name" "$S_CMD_A: the same stdout as $T_CMD"
    else
        pass "$so_name"
        return 0
    fi
    return 1
}
