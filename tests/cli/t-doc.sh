# tests/cli/t-doc.sh: the manual page renders (man -l, groff without
# warnings) and has a section for every command of 'trainplan help'; the
# completion generated from the program completes commands, options and
# presets. Sourced by run.sh.

# shellcheck disable=SC2016,SC2034

if command -v man >/dev/null 2>&1 && command -v groff >/dev/null 2>&1; then
    d_err=$(MANWIDTH=80 man -l doc/trainplan.1 2>&1 >"$T_TMP/man.txt"; groff -man -ww -z doc/trainplan.1 2>&1)
    T_CMD="man -l doc/trainplan.1: $d_err"
    expect man-renders '[ -z "$d_err" ]' 'grep -q "^EXIT STATUS" "$T_TMP/man.txt"'
else
    skip man-renders "man or groff not installed"
fi
d_missing=
for d_cmd in $("$TRAINPLAN" help | sed -n '/^commands:/,/^$/p' | awk 'NF >= 2 && $1 != "commands:" { print $1 }'); do
    grep -qx "\.B $d_cmd" doc/trainplan.1 || d_missing="$d_missing $d_cmd"
done
T_CMD="doc/trainplan.1 lacks commands:$d_missing"
expect man-every-command '[ -z "$d_missing" ]'

sh doc/completion.sh "$TRAINPLAN" >"$T_TMP/c.bash" 2>"$T_TMP/c.err"
T_RC=$? T_CMD="doc/completion.sh"
expect completion-generates exit=0 'bash -n "$T_TMP/c.bash"'
d_got=$(bash -c '. "$1"; t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _trainplan; echo "${COMPREPLY[*]}"; }
    t trainplan exp; t trainplan export --nea; t trainplan predict --model llama3-7; t trainplan search --recompute-m' _ "$T_TMP/c.bash" | tr '\n' '|')
T_CMD="completion: got '$d_got'"
expect completion-words '[ "$d_got" = "export|--nearest|llama3-70b|--recompute-modules|" ]'
# zsh through bashcompinit: the file loads and registers _trainplan, and
# called as compgen -F calls it (sh emulation, words 0-based) it dispatches
# on the command and the previous word as under bash (zsh's own matching
# then keeps the words that start with the typed prefix)
if command -v zsh >/dev/null 2>&1; then
    d_zsh=$(zsh -f -c 'autoload -U +X compinit && compinit -u -D
        autoload -U +X bashcompinit && bashcompinit
        source "$1"; print -r -- "reg=${_comps[trainplan]}"
        emulate sh -c '\''t() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _trainplan; echo "${COMPREPLY[*]}"; }
            t trainplan exp; t trainplan export --nea; t trainplan predict --model llama3-7'\''' _ "$T_TMP/c.bash" 2>&1)
    T_CMD="zsh completion: got '$d_zsh'"
    expect completion-zsh 'echo "$d_zsh" | grep -qx "reg=_bash_complete -F _trainplan"' \
        'echo "$d_zsh" | sed -n 2p | grep -qw export' \
        'echo "$d_zsh" | sed -n 3p | grep -qw -- --nearest' \
        '! echo "$d_zsh" | sed -n 3p | grep -qw -- --top' \
        'echo "$d_zsh" | sed -n 4p | grep -qw llama3-70b'
else
    skip completion-zsh "zsh is not installed (make test installs it)"
fi
# make install puts the page where man finds it (and the completion): the
# rule as make would run it (-n: nothing built or copied)
if command -v make >/dev/null 2>&1 && [ -f Makefile ]; then
    d_inst=$(make -n install DESTDIR="$T_TMP/inst" PREFIX=/usr 2>/dev/null)
    T_CMD="make -n install: $(printf '%s' "$d_inst" | grep 'install -m' | tr '\n' '|')"
    expect man-installed 'printf "%s\n" "$d_inst" | grep -q "doc/trainplan.1 .*/usr/share/man/man1/trainplan.1$"' \
        'printf "%s\n" "$d_inst" | grep -q "/usr/share/bash-completion/completions/trainplan$"'
else
    skip man-installed "no make here"
fi
