# tests/cli/t-readme.sh: the README's walk-throughs run as written: every
# './trainplan' command in the sh blocks under "Your first plan", "Bring
# your own model and system" and "A Hugging Face config.json" (continued
# lines joined), run in a scratch folder that sees the repository's tests/.
# Sourced by run.sh.

# shellcheck disable=SC2016,SC2034

R_DIR=$T_TMP/readme
mkdir -p "$R_DIR"
ln -sf "$PWD/tests" "$R_DIR/tests"
awk '/^#+ / { on = ($0 ~ /^### Your first plan$/ || $0 ~ /^### Bring your own model and system$/ ||
                    $0 ~ /^#### A Hugging Face config.json$/) }
     on && /^```sh$/ { code = 1; next }
     /^```$/ { code = 0 }
     on && code { line = line $0; if (line ~ /\\$/) { sub(/\\$/, " ", line); next }
                  print line; line = "" }' README.md | grep '^\./trainplan ' >"$T_TMP/readme.sh"
R_N=0
while IFS= read -r r_line; do
    R_N=$((R_N + 1))
    # the comment after the command, if any, goes; ./trainplan is the build's
    r_cmd=$(printf '%s\n' "$r_line" | sed "s|^\./trainplan|\"\$TRAINPLAN\"|; s|  *#.*||")
    (cd "$R_DIR" && eval "$r_cmd") >/dev/null 2>"$T_TMP/readme.err"
    T_RC=$? T_CMD=$r_line
    expect "readme-$R_N" exit=0
done <"$T_TMP/readme.sh"
T_CMD="README walk-throughs: $R_N commands"
expect readme-found '[ "$R_N" -ge 7 ]'
