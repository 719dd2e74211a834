# tests/cli/t-bad-input.sh: one check per line of tests/data/bad-input.tsv
# (EXIT<TAB>first stderr line<TAB>arguments; @DATA is tests/data), then the
# cases a table cannot hold. Sourced by run.sh (lib.sh loaded, working
# directory the repository root).

# T_BUG is read by pass and fail in lib.sh (file-wide directive):
# shellcheck disable=SC2034
b_table=$T_DATA/bad-input.tsv
b_tab=$(printf '\t')

# b_subst TEXT: TEXT with every @DATA replaced by $T_DATA
b_subst()
{
    b_s=$1 b_r=
    while :; do
        case $b_s in
        *@DATA*) b_r=$b_r${b_s%%@DATA*}$T_DATA
                 b_s=${b_s#*@DATA} ;;
        *) break ;;
        esac
    done
    printf '%s' "$b_r$b_s"
}

# b_case NAME EXIT MESSAGE ARGS: ARGS split on spaces, no globbing
b_case()
{
    b_cn=$1 b_ce=$2 b_cm=$3
    b_old_ifs=$IFS
    IFS=' '
    set -f
    # shellcheck disable=SC2086  # split on purpose
    set -- $4
    set +f
    IFS=$b_old_ifs
    check "$b_cn" "$b_ce" "$b_cm" -- "$@"
}

if [ ! -r "$b_table" ]; then
    fail bad-input "no $b_table"
else
    b_no=0 b_bug=
    while IFS= read -r b_line || [ -n "$b_line" ]; do
        b_no=$((b_no + 1))
        case $b_line in
        '# BUG: '*) b_bug=${b_line#'# BUG: '}; continue ;;
        '#'*|'') continue ;;
        esac
        b_exit=${b_line%%"$b_tab"*}
        b_rest=${b_line#*"$b_tab"}
        b_msg=${b_rest%%"$b_tab"*}
        b_args=${b_rest#*"$b_tab"}
        if [ "$b_rest" = "$b_line" ] || [ "$b_args" = "$b_rest" ] ||
            [ -z "$b_exit" ] || [ -n "${b_exit#[0-9]}" ]; then
            fail "bad-input.tsv:$b_no" "malformed line '$b_line'"
            b_bug=
            continue
        fi
        T_BUG=$b_bug
        b_case "bad-input.tsv:$b_no" "$b_exit" "$(b_subst "$b_msg")" \
            "$(b_subst "$b_args")"
        T_BUG='' b_bug=''
    done <"$b_table"
fi

# ---- cases a table cannot hold ----

# a file that cannot be read (not testable as root, who reads it anyway)
cp "$T_DATA/model-ok.cfg" "$T_TMP/unreadable.cfg"
chmod 000 "$T_TMP/unreadable.cfg"
if [ -r "$T_TMP/unreadable.cfg" ]; then
    skip unreadable-model "running as a user who can read mode-000 files (root)"
    skip unreadable-system "running as a user who can read mode-000 files (root)"
else
    check unreadable-model 4 \
        "trainplan: error: cannot read '$T_TMP/unreadable.cfg': Permission denied" \
        -- predict --model "$T_TMP/unreadable.cfg"
    check unreadable-system 4 \
        "trainplan: error: cannot read '$T_TMP/unreadable.cfg': Permission denied" \
        -- predict --system "$T_TMP/unreadable.cfg"
fi
chmod 644 "$T_TMP/unreadable.cfg"

# a name that is neither a preset nor a file, but a file by that name exists
# in the working directory: the file is read
cp "$T_DATA/bad/model-layers-zero.cfg" "$T_TMP/my-model"
b_root=$(pwd)
cd "$T_TMP" && run_tp predict --model my-model
cd "$b_root" || exit 2
T_CMD="(in a directory with ./my-model) $T_CMD"
expect model-file-without-slash exit=3 \
    "stderr1=trainplan: error: my-model:5: 'layers' must be an integer in [1, 16384]"

# the first error wins, and a bad flag is reported before any file is read
check first-error-flag 2 "trainplan: error: '--tp' must be an integer in [1, 1048576], not '0'" \
    -- predict --model "$T_DATA/bad/model-layers-zero.cfg" --tp 0
check first-error-model 3 "trainplan: error: $T_DATA/bad/model-layers-zero.cfg:5: 'layers' must be an integer in [1, 16384]" \
    -- predict --model "$T_DATA/bad/model-layers-zero.cfg" --system "$T_DATA/bad/system-gpus-zero.cfg"
