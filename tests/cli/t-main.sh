# tests/cli/t-main.sh: what main does for every command: -q and -v govern
# stderr, standard output is checked once, options are checked before any
# file is read, and usage texts carry the names from the tables (formats,
# frameworks, plan dimensions).
# Sourced by run.sh.

# -v: the figures of every search on stderr, the report unchanged
run_tp -v search --gpus 64
if [ "$T_RC" = 0 ] && grep -q '^search: .* combinations/s' "$T_ERR" &&
   ! grep -q '^evaluated ' "$T_OUT"; then
    pass verbose-figures
else
    fail verbose-figures "trainplan -v search --gpus 64: exit $T_RC, or no figures on stderr"
fi

# -q: stderr for errors only, even with --stats (its report line stays)
run_tp -q search --gpus 64 --stats
if [ "$T_RC" = 0 ] && [ ! -s "$T_ERR" ] && grep -q '^evaluated ' "$T_OUT"; then
    pass quiet-stats
else
    fail quiet-stats "trainplan -q search --gpus 64 --stats: exit $T_RC, stderr '$(t_line "$T_ERR" 1)'"
fi
check quiet-error 2 "trainplan: error: '--top' must be an integer in [1, 1000], not '0'" \
    -- -q search --top 0

# standard output is checked once for every command, list and help included
if [ -w /dev/full ]; then
    for m_args in "list" "search --help" "tradeoff --gpus 64 --tokens 1e12"; do
        # shellcheck disable=SC2086
        "$TRAINPLAN" $m_args >/dev/full 2>"$T_ERR"
        m_rc=$?
        if [ "$m_rc" = 4 ] &&
           [ "$(t_line "$T_ERR" 1)" = "trainplan: error: cannot write to standard output" ]; then
            pass "stdout-full: $m_args"
        else
            fail "stdout-full: $m_args" "exit $m_rc (expected 4), stderr '$(t_line "$T_ERR" 1)'"
        fi
    done
fi

# a bad option is reported before any file is read, in every command
check first-error-search 2 "trainplan: error: '--tp' must be an integer in [1, 1048576], not 'x'" \
    -- search --model "$T_DATA/bad/model-layers-zero.cfg" --tp 2,x
check first-error-compare 2 "trainplan: error: '--precision' must be bf16, fp16 or fp8, not 'fp4'" \
    -- compare --model "$T_DATA/bad/model-layers-zero.cfg" --precision fp4
check first-error-variant 2 "trainplan: error: --variant 'fast': expected NAME:section.field=value[,...]" \
    -- compare --scenario "$T_DATA/bad/scenario-gbs-zero.cfg" --variant fast
check predict-no-gpus 2 "trainplan: error: unknown option '--gpus'" -- predict --gpus 8
check search-no-dp 2 "trainplan: error: unknown option '--dp'" -- search --dp 8
check compare-format 2 "trainplan: error: '--format' must be table, csv or json, not 'xml'" \
    -- compare --format xml

# usage texts: the format and framework names come from the tables
for m_cmd in search tradeoff compare predict export validate; do
    run_tp "$m_cmd" --help
    if [ "$T_RC" = 0 ] && ! grep -q '{[a-z ]*}' "$T_OUT" &&
       grep -q -e 'table|csv|json' -e 'megatron|nemo|torchtitan' "$T_OUT"; then
        pass "usage-names: $m_cmd"
    else
        fail "usage-names: $m_cmd" "trainplan $m_cmd --help: exit $T_RC, or a placeholder left, or no names"
    fi
done

# the plan's dimensions in predict's and search's usage come from their table
run_tp predict --help
m_p=$(grep -c -e '^  --tp N ' -e '^  --dp N ' -e '^  --sp  ' -e '^  --recompute MODE ' "$T_OUT")
run_tp search --help
m_s=$(grep -c -e '^  --tp LIST ' -e '^  --sp y|n|any ' -e '^  --recompute LIST ' -e '^  --dp ' "$T_OUT")
if [ "$m_p" = 4 ] && [ "$m_s" = 3 ]; then
    pass usage-dims
else
    fail usage-dims "predict --help: $m_p of 4 dimension lines, search --help: $m_s of 3 (and no --dp)"
fi
