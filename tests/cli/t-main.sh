# tests/cli/t-main.sh: what main does for every command: -q and -v govern
# stderr, standard output is checked once, options are checked before any
# file is read, and usage texts carry the names from the tables (formats,
# frameworks, plan dimensions). Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run
# (file-wide directive):
# shellcheck disable=SC2016,SC2034

# -v: the figures of every search on stderr, the report unchanged
run_tp -v search --gpus 64
expect verbose-figures exit=0 'stderr~^search: .* combinations/s' 'stdout!~^evaluated '

# -q: stderr for errors only, even with --stats (its report line stays)
run_tp -q search --gpus 64 --stats
expect quiet-stats exit=0 stderr= 'stdout~^evaluated '
check quiet-error 2 "trainplan: error: '--top' must be an integer in [1, 1000], not '0'" \
    -- -q search --top 0

# standard output is checked once for every command, list and help included
for m_args in "list" "search --help" "tradeoff --gpus 64 --tokens 1e12"; do
    if [ -w /dev/full ]; then
        # shellcheck disable=SC2086
        "$TRAINPLAN" $m_args >/dev/full 2>"$T_ERR"
        T_RC=$? T_CMD="trainplan $m_args >/dev/full"
        expect "stdout-full: $m_args" exit=4 \
            'stderr1=trainplan: error: cannot write to standard output'
    else
        skip "stdout-full: $m_args" "no writable /dev/full"
    fi
done

# a bad option is reported before any file is read, in every command
check first-error-search 2 "trainplan: error: '--tp' must be an integer in [1, 1048576], not 'x'" \
    -- search --model "$T_DATA/bad/model-layers-zero.cfg" --tp 2,x
check first-error-compare 2 "trainplan: error: '--precision' must be bf16, fp16 or fp8, not 'fp4'" \
    -- compare --model "$T_DATA/bad/model-layers-zero.cfg" --precision fp4
check first-error-variant 2 "trainplan: error: --variant 'fast': expected NAME[=BASE]:section.field=value[,...]" \
    -- compare --scenario "$T_DATA/bad/scenario-gbs-zero.cfg" --variant fast
check predict-no-gpus 2 "trainplan: error: unknown option '--gpus'" -- predict --gpus 8
check search-no-dp 2 "trainplan: error: unknown option '--dp'" -- search --dp 8
check compare-format 2 "trainplan: error: '--format' must be table, csv or json, not 'xml'" \
    -- compare --format xml

# usage texts: no placeholder left, the names come from the tables
for m_cmd in search tradeoff compare predict export validate; do
    run_tp "$m_cmd" --help
    expect "usage-names: $m_cmd" exit=0 'stdout!~\{[a-z ]*\}' \
        'stdout~table\|csv\|json|megatron\|nemo\|torchtitan'
done

# the plan's dimensions in predict's and search's usage come from their table
run_tp predict --help
expect usage-dims-plan exit=0 'stdout~^  --tp N ' 'stdout~^  --dp N ' \
    'stdout~^  --sp  ' 'stdout~^  --recompute MODE '
run_tp search --help
expect usage-dims-space exit=0 'stdout~^  --tp LIST ' 'stdout~^  --sp y\|n\|any ' \
    'stdout~^  --recompute LIST ' 'stdout!~^  --dp '
