# tests/cli/t-readme.sh: every example in the README runs as written from a
# fresh clone: each command of every sh block (continued lines joined) calls
# the build's ./trainplan, and each runs in a scratch folder that sees the
# repository's tests/ (and ../shared/ where it exists) and exits 0. An
# Open MPI launch runs without its launcher (the same bytes, README "Sweeps";
# tests/cli/t-sweep.sh runs the ranks). Skipped, with their reason:
# commands that read ../shared/ when it is absent, and the 2,048-count
# sweeps (--gpus 8..16384:8) under the sanitizers (make check runs them).
# Sourced by run.sh.

# shellcheck disable=SC2016,SC2034

R_DIR=$T_TMP/readme
mkdir -p "$R_DIR/bench"                 # where the chart examples write
ln -sf "$PWD/tests" "$R_DIR/tests"
[ ! -d "$T_SHARED" ] || ln -sf "$(cd "$T_SHARED" && pwd)" "$T_TMP/shared"
awk '/^```sh$/ { code = 1; next }
     /^```$/ { code = 0 }
     code { line = line $0; if (line ~ /\\$/) { sub(/\\$/, " ", line); next }
            print line; line = "" }' README.md |
    grep -E '^(\./trainplan|trainplan|mpirun)( |$)' >"$T_TMP/readme.sh"
# the program is ./trainplan after make: no example calls a bare trainplan
r_bare=$(grep -vE '^(\./trainplan|mpirun -np [0-9]+ \./trainplan)( |$)' "$T_TMP/readme.sh")
T_CMD="README commands not calling ./trainplan: $r_bare"
expect readme-build-path '[ -z "$r_bare" ]'
R_N=0
while IFS= read -r r_line; do
    R_N=$((R_N + 1))
    case $r_line in
    mpirun*)        # the launcher's output is the single process's
        r_line=$(printf '%s\n' "$r_line" | sed 's|^mpirun -np [0-9]* ||') ;;
    *../shared/*)
        need_shared "readme-$R_N" README.md || continue ;;
    *16384:8*)
        if [ -n "${ASAN_OPTIONS:-}" ]; then
            skip "readme-$R_N" "a 2,048-count sweep under the sanitizers (make check runs it)"
            continue
        fi ;;
    esac
    # the comment after the command, if any, goes; ./trainplan is the build's
    r_cmd=$(printf '%s\n' "$r_line" | sed "s|^\./trainplan|\"\$TRAINPLAN\"|; s|  *#.*||")
    (cd "$R_DIR" && eval "$r_cmd") >/dev/null 2>"$T_TMP/readme.err"
    T_RC=$? T_CMD=$r_line
    cp "$T_TMP/readme.err" "$T_ERR"
    expect "readme-$R_N" exit=0 '! grep -q "error" "$T_ERR"'
done <"$T_TMP/readme.sh"
T_CMD="README examples: $R_N commands"
expect readme-found '[ "$R_N" -ge 25 ]'
