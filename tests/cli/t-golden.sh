# tests/cli/t-golden.sh: predict and list outputs against tests/data/golden,
# -o, the JSON shape, and every preset model on every preset system.
# Sourced by run.sh (lib.sh loaded, working directory the repository root).

# expect's conditions are single-quoted, for lib.sh to eval after the run,
# so the variables they read (and T_CMD, read by lib.sh) look unused
# (file-wide directive):
# shellcheck disable=SC2016,SC2034

DEFAULT_PLAN='--tp 8 --pp 4 --dp 8 --sp --recompute selective --zero 1'
GPT3_PLAN='--model gpt3-175b --system selene-a100 --seq 2048 --gbs 1536 --tp 8 --pp 12 --dp 16 --recompute full --attention unfused --precision fp16'
LLAMA8_PLAN='--model llama3-8b --system dgx-a100 --seq 4096 --gbs 256 --tp 2 --dp 4 --mbs 2 --sp'
OOM_PLAN='--model llama3-405b --system dgx-h100 --tp 8 --pp 1 --dp 1'
RULE_PLAN='--tp 3'
CP_PLAN='--model llama3-8b --system dgx-h100 --seq 131072 --gbs 64 --tp 2 --cp 8 --dp 4 --sp --tpo --zero 1'
FILES_PLAN='--model tests/data/model-ok.cfg --system tests/data/system-ok.cfg --tp 8 --pp 2 --dp 2 --sp --recompute selective'

# ---- golden outputs: name, expected exit, plan ----
while read -r g_base g_rc g_plan; do
    for g_fmt in table csv json; do
        # shellcheck disable=SC2086  # the plans are word lists
        golden "golden-$g_base-$g_fmt" "predict-$g_base-$g_fmt.expected" "$g_rc" \
            -- predict $g_plan --format "$g_fmt"
    done
done <<EOF
default 0 $DEFAULT_PLAN
gpt3-175b 0 $GPT3_PLAN
llama3-8b 1 $LLAMA8_PLAN
405b-oom 1 $OOM_PLAN
tp3-rule 1 $RULE_PLAN
files 0 $FILES_PLAN
cp-tpo 0 $CP_PLAN
EOF

golden golden-list list.expected -- list
golden golden-list-models list-models.expected -- list models
golden golden-list-systems list-systems.expected -- list systems
golden golden-list-scenarios list-scenarios.expected -- list scenarios

# ---- the default command ----
# `trainplan` with no command runs the embedded default scenario's search.
# Options without a command go to it.
same_output no-args search vs
same_output no-command-options search --format csv vs --format csv

# ---- preset and file give the same numbers ----
# tests/data/model-ok.cfg is llama3-8b and tests/data/system-ok.cfg dgx-a100
# under other names.
same_output files-equal-presets --sed 's/"llama3-8b"/"test-8b"/; s/"dgx-a100"/"test-a100"/' \
    predict --model llama3-8b --system dgx-a100 --tp 8 --format json vs \
    predict --model tests/data/model-ok.cfg --system tests/data/system-ok.cfg --tp 8 --format json

# ---- --set to a field's own value changes nothing; to another value it does ----
same_output set-same-value predict --model llama3-8b --tp 8 --format csv vs \
    predict --model llama3-8b --tp 8 --format csv --set model.layers=32 \
    --set gpu.hbm_gib=79.6 --set job.seq=8192
other_output set-changes predict --model llama3-8b --tp 8 --format csv vs \
    predict --model llama3-8b --tp 8 --format csv --set model.layers=16

# ---- -o FILE ----
for o_fmt in table csv json; do
    # shellcheck disable=SC2086
    run_tp predict $DEFAULT_PLAN --format $o_fmt
    cp "$T_OUT" "$T_TMP/o-stdout"
    rm -f "$T_TMP/o-file"
    # shellcheck disable=SC2086
    run_tp predict $DEFAULT_PLAN --format $o_fmt -o "$T_TMP/o-file"
    expect "o-file-$o_fmt" exit=0 stdout= stderr= \
        'cmp -s "$T_TMP/o-file" "$T_TMP/o-stdout"'
done
# an infeasible plan is still written (exit 1)
rm -f "$T_TMP/o-file"
# shellcheck disable=SC2086
run_tp predict $RULE_PLAN -o "$T_TMP/o-file"
expect o-file-infeasible exit=1 stdout= \
    'cmp -s "$T_TMP/o-file" "$T_GOLDEN/predict-tp3-rule-table.expected"'
# "-o -" is stdout
# shellcheck disable=SC2086
same_output o-dash predict $DEFAULT_PLAN vs predict $DEFAULT_PLAN -o -
# unwritable: exit 4, no file
check o-unwritable 4 "trainplan: error: cannot write '/nonexistent-dir/x.json': No such file or directory" \
    -- predict --format json -o /nonexistent-dir/x.json &&
    expect o-unwritable-nofile '[ ! -e /nonexistent-dir/x.json ]'
# a directory: exit 4
mkdir "$T_TMP/o-dir"
run_tp predict -o "$T_TMP/o-dir"
expect o-directory exit=4 stdout= \
    "stderr1=trainplan: error: cannot write '$T_TMP/o-dir': Is a directory" \
    '[ -z "$(ls -A "$T_TMP/o-dir")" ]'
# a failing run leaves an existing file as it was, and no temporary file
mkdir "$T_TMP/o-keep"
printf 'keep me\n' >"$T_TMP/o-keep/out.json"
run_tp predict --model no-such-model --format json -o "$T_TMP/o-keep/out.json"
expect o-keep exit=3 '[ "$(cat "$T_TMP/o-keep/out.json")" = "keep me" ]' \
    '[ "$(ls -A "$T_TMP/o-keep")" = out.json ]'
run_tp predict --tp 0 -o "$T_TMP/o-keep/out.json"
expect o-keep-usage exit=2 '[ "$(cat "$T_TMP/o-keep/out.json")" = "keep me" ]'
# a successful run replaces it, and leaves no temporary file
# shellcheck disable=SC2086
run_tp predict $DEFAULT_PLAN --format csv -o "$T_TMP/o-keep/out.json"
expect o-replace exit=0 '[ "$(ls -A "$T_TMP/o-keep")" = out.json ]' \
    '[ "$(head -c 4 "$T_TMP/o-keep/out.json")" = "key," ]'
# stdout that cannot be written: exit 4
if [ -w /dev/full ]; then
    "$TRAINPLAN" predict >/dev/full 2>"$T_ERR"
    T_RC=$? T_CMD='trainplan predict >/dev/full'
    expect stdout-full exit=4 'stderr1=trainplan: error: cannot write to standard output'
else
    skip stdout-full "no writable /dev/full"
fi

# ---- JSON: parses, has the keys ----
for j_plan in "$DEFAULT_PLAN" "$GPT3_PLAN" "$OOM_PLAN" "$RULE_PLAN"; do
    if ! command -v python3 >/dev/null 2>&1; then
        skip "json-parses: $j_plan" "no python3 to parse JSON"
        continue
    fi
    # shellcheck disable=SC2086
    run_tp predict $j_plan --format json
    expect json-parses 'python3 -m json.tool <"$T_OUT" >/dev/null 2>&1' || continue
    j_missing=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
want = ["plan", "iteration_s", "tokens_per_s", "mfu", "hfu", "memory_gib",
        "memory", "fits", "breakdown_s", "operators"]
print(" ".join(k for k in want if k not in d))
' <"$T_OUT")
    expect json-keys '[ -z "$j_missing" ]'
done

# ---- CSV: a header and one row with as many fields ----
# shellcheck disable=SC2086
run_tp predict $OOM_PLAN --format csv
c_shape=$(awk -F, 'NR == 1 { h = NF } NR == 2 { r = NF }
    END { print (NR == 2 && h == r) ? "ok" : NR " lines, header " h " fields, row " r }' "$T_OUT")
expect csv-shape exit=1 '[ "$c_shape" = ok ]'

# ---- every preset model on every preset system: exit 0 or 1, finite JSON ----
a_models=$("$TRAINPLAN" list models | awk 'NR > 1 { print $1 }')
a_systems=$("$TRAINPLAN" list systems | awk 'NF == 0 { exit } NR > 1 { print $1 }')
if [ -z "$a_models" ] || [ -z "$a_systems" ]; then
    fail all-presets "trainplan list models / list systems gave no names"
fi
for a_m in $a_models; do
    for a_s in $a_systems; do
        a_name="all-presets-$a_m-$a_s"
        run_tp predict --model "$a_m" --system "$a_s" --tp 8 --format json
        expect "$a_name" '[ "$T_RC" -le 1 ]' stderr= \
            'stdout!~(^|[^A-Za-z])([Nn][Aa][Nn]|-?[Ii][Nn][Ff]|[Ii]nfinity|null)([^A-Za-z]|$)' \
            "stdout~\"model\": \"$a_m\"" "stdout~\"system\": \"$a_s\""
    done
done

# ---- help and version: exit 0, on stdout ----
# every command that 'trainplan --help' lists, and the top-level forms
h_cmds=$("$TRAINPLAN" --help | awk '/^commands:/ { on = 1; next }
    on && /^  [a-z]/ { print $1; next } on && !/^  / { on = 0 }')
[ -n "$h_cmds" ] || fail help-commands "trainplan --help lists no commands"
{
    cat <<'EOF'
help-long --help
help-short -h
help-command help
help-after-flags -q --help
help-list-short list -h
version --version
EOF
    for h_c in $h_cmds; do
        [ "$h_c" = help ] || echo "help-$h_c $h_c --help"
    done
} >"$T_TMP/help-cases"
while read -r h_name h_args; do
    # shellcheck disable=SC2086
    run_tp $h_args
    if [ "$h_name" = version ]; then
        expect "$h_name" exit=0 stderr= 'stdout~^trainplan [0-9]'
    else
        expect "$h_name" exit=0 stderr= 'stdout~^usage: trainplan'
    fi
done <"$T_TMP/help-cases"
