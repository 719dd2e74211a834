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
#       (default 0), stderr empty. UPDATE_GOLDEN=1 rewrites FILE instead.
#   run_tp ARGS...       run it: stdout in $T_OUT, stderr in $T_ERR, status $T_RC
#   pass NAME / fail NAME WHAT   count a case of a test's own making
#   interrupt ARGS...    run ARGS on one thread, SIGINT after a second:
#                        status in $T_RC, output in $T_OUT and $T_ERR
#
# A case run with T_BUG set (T_BUG='what is wrong'; check ...; T_BUG=) states the
# right behaviour of a known program bug: while it fails it prints a
# "KNOWN BUG" line and is not counted (KNOWN_BUGS=fail counts it as failed);
# once it passes it prints a "FIXED" line asking to drop the marker.
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

pass()
{
    T_PASSED=$((T_PASSED + 1))
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
}

# the command line, for messages
t_cmd()
{
    printf 'trainplan'
    for t_a in "$@"; do
        case $t_a in
        ''|*[!A-Za-z0-9_./=@:,+-]*) printf " '%s'" "$t_a" ;;
        *) printf ' %s' "$t_a" ;;
        esac
    done
}

run_tp()
{
    "$TRAINPLAN" "$@" </dev/null >"$T_OUT" 2>"$T_ERR"
    T_RC=$?
}

# t_line FILE N: line N of FILE (empty when absent)
t_line()
{
    sed -n "${2}p" "$1"
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
    c_cmd=$(t_cmd "$@")
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
    g_cmd=$(t_cmd "$@")
    if [ "$T_RC" != "$g_exit" ]; then
        fail "$g_name" "$g_cmd: exit $T_RC, expected $g_exit (stderr: $(t_line "$T_ERR" 1))"
        return 1
    fi
    if [ -s "$T_ERR" ]; then
        fail "$g_name" "$g_cmd: unexpected stderr '$(t_line "$T_ERR" 1)'"
        return 1
    fi
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
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

interrupt()
{
    OMP_NUM_THREADS=1 "$TRAINPLAN" "$@" >"$T_OUT" 2>"$T_ERR" &
    i_pid=$!
    sleep 1
    kill -INT "$i_pid" 2>/dev/null
    wait "$i_pid"
    T_RC=$?
}
