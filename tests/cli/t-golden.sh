# tests/cli/t-golden.sh: predict and list outputs against tests/data/golden,
# -o, the JSON shape, and every preset model on every preset system.
# Sourced by run.sh (lib.sh loaded, working directory the repository root).

DEFAULT_PLAN='--tp 8 --pp 4 --dp 8 --sp --recompute selective --zero 1'
GPT3_PLAN='--model gpt3-175b --system selene-a100 --seq 2048 --gbs 1536 --tp 8 --pp 12 --dp 16 --recompute full --attention unfused --precision fp16'
LLAMA8_PLAN='--model llama3-8b --system dgx-a100 --seq 4096 --gbs 256 --tp 2 --dp 4 --mbs 2 --sp'
OOM_PLAN='--model llama3-405b --system dgx-h100 --tp 8 --pp 1 --dp 1'
RULE_PLAN='--tp 3'
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
EOF

golden golden-list list.expected -- list
golden golden-list-models list-models.expected -- list models
golden golden-list-systems list-systems.expected -- list systems
golden golden-list-scenarios list-scenarios.expected -- list scenarios

# ---- the default command ----
# `trainplan` with no command runs the embedded default scenario: the search
# once `search` exists (trainplan --help lists it), before that the
# prediction of its reference plan. Options without a command go to it.
if "$TRAINPLAN" --help | grep -q '^  search '; then
    d_ref='search'
else
    d_ref="predict $DEFAULT_PLAN"
fi
# shellcheck disable=SC2086
run_tp $d_ref
cp "$T_OUT" "$T_TMP/default-ref"
d_ref_rc=$T_RC
run_tp
if [ "$T_RC" != 0 ] || [ -s "$T_ERR" ]; then
    fail no-args "trainplan: exit $T_RC, stderr '$(t_line "$T_ERR" 1)'"
elif [ "$d_ref_rc" != 0 ] || ! cmp -s "$T_OUT" "$T_TMP/default-ref"; then
    fail no-args "trainplan: stdout differs from trainplan $d_ref (exit $d_ref_rc)"
else
    pass no-args
fi
# shellcheck disable=SC2086
run_tp $d_ref --format csv
cp "$T_OUT" "$T_TMP/default-ref.csv"
run_tp --format csv
if [ "$T_RC" != 0 ] || ! cmp -s "$T_OUT" "$T_TMP/default-ref.csv"; then
    fail no-command-options "trainplan --format csv: exit $T_RC or stdout differs from trainplan $d_ref --format csv"
else
    pass no-command-options
fi

# ---- preset and file give the same numbers ----
# tests/data/model-ok.cfg is llama3-8b and tests/data/system-ok.cfg dgx-a100
# under other names.
run_tp predict --model llama3-8b --system dgx-a100 --tp 8 --format json
sed 's/"llama3-8b"/"test-8b"/; s/"dgx-a100"/"test-a100"/' "$T_OUT" >"$T_TMP/preset.json"
run_tp predict --model tests/data/model-ok.cfg --system tests/data/system-ok.cfg --tp 8 --format json
if cmp -s "$T_OUT" "$T_TMP/preset.json"; then
    pass files-equal-presets
else
    fail files-equal-presets "trainplan predict --model tests/data/model-ok.cfg --system tests/data/system-ok.cfg --tp 8 --format json: numbers differ from --model llama3-8b --system dgx-a100"
fi

# ---- --set to a field's own value changes nothing; to another value it does ----
run_tp predict --model llama3-8b --tp 8 --format csv
cp "$T_OUT" "$T_TMP/plain.csv"
run_tp predict --model llama3-8b --tp 8 --format csv --set model.layers=32 \
    --set gpu.hbm_gib=79.6 --set job.seq=8192
if [ "$T_RC" = 0 ] && cmp -s "$T_OUT" "$T_TMP/plain.csv"; then
    pass set-same-value
else
    fail set-same-value "trainplan predict --model llama3-8b --tp 8 --format csv --set model.layers=32 --set gpu.hbm_gib=79.6 --set job.seq=8192: exit $T_RC or output differs from the same without --set"
fi
run_tp predict --model llama3-8b --tp 8 --format csv --set model.layers=16
if [ "$T_RC" = 0 ] && ! cmp -s "$T_OUT" "$T_TMP/plain.csv"; then
    pass set-changes
else
    fail set-changes "trainplan predict --model llama3-8b --tp 8 --format csv --set model.layers=16: exit $T_RC or output equal to the one with 32 layers"
fi

# ---- -o FILE ----
for o_fmt in table csv json; do
    # shellcheck disable=SC2086
    run_tp predict $DEFAULT_PLAN --format $o_fmt
    cp "$T_OUT" "$T_TMP/o-stdout"
    rm -f "$T_TMP/o-file"
    # shellcheck disable=SC2086
    run_tp predict $DEFAULT_PLAN --format $o_fmt -o "$T_TMP/o-file"
    if [ "$T_RC" != 0 ] || [ -s "$T_OUT" ] || [ -s "$T_ERR" ]; then
        fail "o-file-$o_fmt" "trainplan predict ... --format $o_fmt -o FILE: exit $T_RC, stdout $(wc -c <"$T_OUT" | tr -d ' ') bytes, stderr '$(t_line "$T_ERR" 1)'"
    elif ! cmp -s "$T_TMP/o-file" "$T_TMP/o-stdout"; then
        fail "o-file-$o_fmt" "trainplan predict ... --format $o_fmt -o FILE: FILE differs from stdout"
    else
        pass "o-file-$o_fmt"
    fi
done
# an infeasible plan is still written (exit 1)
rm -f "$T_TMP/o-file"
# shellcheck disable=SC2086
run_tp predict $RULE_PLAN -o "$T_TMP/o-file"
if [ "$T_RC" = 1 ] && [ ! -s "$T_OUT" ] &&
    cmp -s "$T_TMP/o-file" "$T_GOLDEN/predict-tp3-rule-table.expected"; then
    pass o-file-infeasible
else
    fail o-file-infeasible "trainplan predict $RULE_PLAN -o FILE: exit $T_RC (expected 1) or FILE differs from predict-tp3-rule-table.expected"
fi
# "-o -" is stdout
# shellcheck disable=SC2086
run_tp predict $DEFAULT_PLAN
cp "$T_OUT" "$T_TMP/default-plan"
# shellcheck disable=SC2086
run_tp predict $DEFAULT_PLAN -o -
if [ "$T_RC" = 0 ] && cmp -s "$T_OUT" "$T_TMP/default-plan"; then
    pass o-dash
else
    fail o-dash "trainplan predict $DEFAULT_PLAN -o -: exit $T_RC or stdout differs"
fi
# unwritable: exit 4, no file
check o-unwritable 4 "trainplan: error: cannot write '/nonexistent-dir/x.json': No such file or directory" \
    -- predict --format json -o /nonexistent-dir/x.json &&
    if [ -e /nonexistent-dir/x.json ]; then
        fail o-unwritable-nofile "trainplan predict --format json -o /nonexistent-dir/x.json: the file exists"
    else
        pass o-unwritable-nofile
    fi
# a directory: exit 4
mkdir "$T_TMP/o-dir"
run_tp predict -o "$T_TMP/o-dir"
if [ "$T_RC" = 4 ] && [ "$(t_line "$T_ERR" 1)" = "trainplan: error: cannot write '$T_TMP/o-dir': Is a directory" ] &&
    [ -z "$(ls -A "$T_TMP/o-dir")" ] && [ ! -s "$T_OUT" ]; then
    pass o-directory
else
    fail o-directory "trainplan predict -o DIR: exit $T_RC (expected 4), stderr '$(t_line "$T_ERR" 1)'"
fi
# a failing run leaves an existing file as it was, and no temporary file
mkdir "$T_TMP/o-keep"
printf 'keep me\n' >"$T_TMP/o-keep/out.json"
run_tp predict --model no-such-model --format json -o "$T_TMP/o-keep/out.json"
if [ "$T_RC" != 3 ]; then
    fail o-keep "trainplan predict --model no-such-model -o FILE: exit $T_RC, expected 3"
elif [ "$(cat "$T_TMP/o-keep/out.json")" != "keep me" ]; then
    fail o-keep "trainplan predict --model no-such-model -o FILE: FILE changed"
elif [ "$(ls -A "$T_TMP/o-keep")" != out.json ]; then
    fail o-keep "trainplan predict --model no-such-model -o FILE: left: $(cd "$T_TMP/o-keep" && echo .* *)"
else
    pass o-keep
fi
run_tp predict --tp 0 -o "$T_TMP/o-keep/out.json"
if [ "$T_RC" = 2 ] && [ "$(cat "$T_TMP/o-keep/out.json")" = "keep me" ]; then
    pass o-keep-usage
else
    fail o-keep-usage "trainplan predict --tp 0 -o FILE: exit $T_RC (expected 2) or FILE changed"
fi
# a successful run replaces it, and leaves no temporary file
# shellcheck disable=SC2086
run_tp predict $DEFAULT_PLAN --format csv -o "$T_TMP/o-keep/out.json"
if [ "$T_RC" = 0 ] && [ "$(ls -A "$T_TMP/o-keep")" = out.json ] &&
    [ "$(head -c 4 "$T_TMP/o-keep/out.json")" = "key," ]; then
    pass o-replace
else
    fail o-replace "trainplan predict --format csv -o FILE over an existing FILE: exit $T_RC, directory: $(cd "$T_TMP/o-keep" && echo .* *)"
fi
# stdout that cannot be written: exit 4
if [ -w /dev/full ]; then
    "$TRAINPLAN" predict >/dev/full 2>"$T_ERR"
    T_RC=$?
    if [ "$T_RC" = 4 ] && [ "$(t_line "$T_ERR" 1)" = "trainplan: error: cannot write to standard output" ]; then
        pass stdout-full
    else
        fail stdout-full "trainplan predict >/dev/full: exit $T_RC (expected 4), stderr '$(t_line "$T_ERR" 1)'"
    fi
fi

# ---- JSON: parses, has the keys ----
if command -v python3 >/dev/null 2>&1; then
    for j_plan in "$DEFAULT_PLAN" "$GPT3_PLAN" "$OOM_PLAN" "$RULE_PLAN"; do
        # shellcheck disable=SC2086
        run_tp predict $j_plan --format json
        if ! python3 -m json.tool <"$T_OUT" >/dev/null 2>"$T_TMP/json-err"; then
            fail json-parses "trainplan predict $j_plan --format json: not JSON: $(head -n 1 "$T_TMP/json-err")"
            continue
        fi
        pass json-parses
        j_missing=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
want = ["plan", "iteration_s", "tokens_per_s", "mfu", "hfu", "memory_gib",
        "memory", "fits", "breakdown_s", "operators"]
print(" ".join(k for k in want if k not in d))
' <"$T_OUT")
        if [ -n "$j_missing" ]; then
            fail json-keys "trainplan predict $j_plan --format json: no key $j_missing"
        else
            pass json-keys
        fi
    done
fi

# ---- CSV: a header and one row with as many fields ----
# shellcheck disable=SC2086
run_tp predict $OOM_PLAN --format csv
c_shape=$(awk -F, 'NR == 1 { h = NF } NR == 2 { r = NF }
    END { print (NR == 2 && h == r) ? "ok" : NR " lines, header " h " fields, row " r }' "$T_OUT")
if [ "$T_RC" = 1 ] && [ "$c_shape" = ok ]; then
    pass csv-shape
else
    fail csv-shape "trainplan predict $OOM_PLAN --format csv: exit $T_RC, $c_shape"
fi

# ---- every preset model on every preset system: exit 0 or 1, finite JSON ----
a_models=$("$TRAINPLAN" list models | awk 'NR > 1 { print $1 }')
a_systems=$("$TRAINPLAN" list systems | awk 'NR > 1 { print $1 }')
if [ -z "$a_models" ] || [ -z "$a_systems" ]; then
    fail all-presets "trainplan list models / list systems gave no names"
fi
for a_m in $a_models; do
    for a_s in $a_systems; do
        a_name="all-presets-$a_m-$a_s"
        run_tp predict --model "$a_m" --system "$a_s" --tp 8 --format json
        if [ "$T_RC" != 0 ] && [ "$T_RC" != 1 ]; then
            fail "$a_name" "trainplan predict --model $a_m --system $a_s --tp 8 --format json: exit $T_RC, stderr '$(t_line "$T_ERR" 1)'"
        elif [ -s "$T_ERR" ]; then
            fail "$a_name" "trainplan predict --model $a_m --system $a_s --tp 8 --format json: stderr '$(t_line "$T_ERR" 1)'"
        elif grep -Eiq '(^|[^A-Za-z])(nan|-?inf|infinity|null)([^A-Za-z]|$)' "$T_OUT"; then
            fail "$a_name" "trainplan predict --model $a_m --system $a_s --tp 8 --format json: $(grep -Ei -m 1 '(^|[^A-Za-z])(nan|-?inf|infinity|null)([^A-Za-z]|$)' "$T_OUT" | sed 's/^ *//')"
        elif ! grep -q '"model": "'"$a_m"'"' "$T_OUT" || ! grep -q '"system": "'"$a_s"'"' "$T_OUT"; then
            fail "$a_name" "trainplan predict --model $a_m --system $a_s --tp 8 --format json: the plan does not name the model and system"
        else
            pass "$a_name"
        fi
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
    if [ "$T_RC" != 0 ] || [ -s "$T_ERR" ] || [ ! -s "$T_OUT" ]; then
        # shellcheck disable=SC2086
        fail "$h_name" "$(t_cmd $h_args): exit $T_RC, stdout $(wc -c <"$T_OUT" | tr -d ' ') bytes, stderr '$(t_line "$T_ERR" 1)'"
    elif [ "$h_name" = version ]; then
        if grep -q '^trainplan [0-9]' "$T_OUT"; then pass "$h_name"
        else fail "$h_name" "trainplan --version: '$(t_line "$T_OUT" 1)'"; fi
    elif ! grep -q '^usage: trainplan' "$T_OUT"; then
        # shellcheck disable=SC2086
        fail "$h_name" "$(t_cmd $h_args): no 'usage: trainplan' line"
    else
        pass "$h_name"
    fi
done <"$T_TMP/help-cases"
