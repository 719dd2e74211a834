# tests/cli/t-search.sh: the search command: golden outputs (the default run
# too), the same output for 1 and 2 threads, sampling, no feasible plan,
# --gpus and list options. Sourced by run.sh.

SMALL='--model llama3-8b --system dgx-a100 --seq 4096 --gbs 256 --gpus 8,16,32 --top 3'

golden golden-default-run default-run.expected -- 
for s_fmt in table csv json; do
    # shellcheck disable=SC2086
    golden "golden-search-small-$s_fmt" "search-small-$s_fmt.expected" -- \
        search $SMALL --format "$s_fmt"
done
# shellcheck disable=SC2086
golden golden-search-lists search-lists.expected -- search $SMALL \
    --tp 2,4 --pp 1,2 --mbs 1,2 --vpp 1 --sp y --recompute none,full --zero 1

# the same bytes for any thread count, in every format
for s_fmt in table csv json; do
    OMP_NUM_THREADS=1 "$TRAINPLAN" search --gpus 64..512 --format "$s_fmt" \
        >"$T_TMP/one" 2>&1
    OMP_NUM_THREADS=2 "$TRAINPLAN" search --gpus 64..512 --format "$s_fmt" \
        >"$T_TMP/two" 2>&1
    if cmp -s "$T_TMP/one" "$T_TMP/two"; then
        pass "threads-$s_fmt"
    else
        fail "threads-$s_fmt" "search --format $s_fmt differs between OMP_NUM_THREADS=1 and 2"
    fi
done

# a sampled search says so and is reproducible for a seed
"$TRAINPLAN" search --budget 5000 --seed 3 >"$T_TMP/a" 2>&1
OMP_NUM_THREADS=1 "$TRAINPLAN" search --budget 5000 --seed 3 >"$T_TMP/b" 2>&1
if cmp -s "$T_TMP/a" "$T_TMP/b" && grep -q '^sampled ' "$T_TMP/a"; then
    pass sampled-reproducible
else
    fail sampled-reproducible "search --budget 5000 --seed 3: not the same twice or not marked sampled"
fi

# nothing fits: exit 1 and the nearest miss
run_tp search --model llama3-405b --gpus 8 --gbs 64
if [ "$T_RC" = 1 ] && grep -q 'no feasible plan: nothing fits in memory; nearest: ' "$T_OUT"; then
    pass no-feasible
else
    fail no-feasible "search --model llama3-405b --gpus 8: exit $T_RC, or no nearest miss"
fi

# --stats: the run's figures on stderr
run_tp search --gpus 64 --stats
if [ "$T_RC" = 0 ] && grep -q '^search: .* combinations/s' "$T_ERR" &&
   grep -q '^evaluated ' "$T_OUT"; then
    pass stats
else
    fail stats "search --stats: exit $T_RC or no figures"
fi

# usage errors
check gpus-empty 2 "trainplan: error: --gpus '': expected a GPU count in [1, 1048576]" -- search --gpus ''
check gpus-zero 2 "trainplan: error: --gpus '0': expected a GPU count in [1, 1048576]" -- search --gpus 0
check gpus-open 2 "trainplan: error: --gpus '64..': expected a range end in [1, 1048576] after '..'" -- search --gpus 64..
check gpus-backwards 2 "trainplan: error: --gpus '64..32': range end is below its start" -- search --gpus 64..32
check gpus-comma 2 "trainplan: error: --gpus '8,,16': expected a GPU count in [1, 1048576]" -- search --gpus 8,,16
check gpus-step 2 "trainplan: error: --gpus '8..64:0': expected a step in [1, 1048576] after ':'" -- search --gpus 8..64:0
check gpus-word 2 "trainplan: error: --gpus 'many': expected a GPU count in [1, 1048576]" -- search --gpus many
check gpus-huge 2 "trainplan: error: --gpus '4000000': expected a GPU count in [1, 1048576]" -- search --gpus 4000000
check gpus-space 2 "trainplan: error: --gpus '64 128': expected N, A..B or A..B:STEP, joined by commas" -- search --gpus '64 128'
check top-zero 2 "trainplan: error: '--top' must be an integer in [1, 1000], not '0'" -- search --top 0
check tp-list 2 "trainplan: error: '--tp' must be an integer in [1, 1048576], not 'x'" -- search --tp 1,x
check tp-trailing 2 "trainplan: error: '--tp': trailing comma in '1,2,'" -- search --tp 1,2,
check zero-two 2 "trainplan: error: '--zero' must be an integer in [0, 1], not '2'" -- search --zero 0,2
check rc-bad 2 "trainplan: error: '--recompute': 'some' is not none, selective or full" -- search --recompute none,some
check sp-bad 2 "trainplan: error: '--sp' must be y, n or any, not 'yes'" -- search --sp yes
check budget-zero 2 "trainplan: error: '--budget' must be an integer in [1, 9223372036854775807], not '0'" -- search --budget 0
check search-missing-value 2 "trainplan: error: missing value for '--gpus'" -- search --gpus
check search-unknown 2 "trainplan: error: unknown option '--fast'" -- search --fast
check search-format 2 "trainplan: error: '--format' must be table, csv or json, not 'xml'" -- search --format xml

# a value listed twice is one value
"$TRAINPLAN" search --gpus 64 --zero 0,1 --tp 4,8 >"$T_TMP/a" 2>&1
"$TRAINPLAN" search --gpus 64 --zero 1,0,1,1,1,1,1,1,1 --tp 8,4,8 >"$T_TMP/b" 2>&1
if cmp -s "$T_TMP/a" "$T_TMP/b"; then
    pass repeated-values
else
    fail repeated-values "search --zero 1,0,1,... --tp 8,4,8 differs from --zero 0,1 --tp 4,8"
fi
check gpus-from-scenario 3 "trainplan: error: --set space.gpus: 'gpus' 'abc': expected a GPU count in [1, 1048576]" -- search --set space.gpus=abc
check rc-trailing 2 "trainplan: error: '--recompute': trailing comma in 'none,'" -- search --recompute none,

# Ctrl-C: the best plans so far, marked partial, exit 130. A search of
# about ten seconds on one thread, interrupted after a second.
interrupt search --model gpt3-175b --system selene-a100 --gbs 1536 --seq 2048 \
    --gpus 8..262144:8 --top 1
s_rc=$T_RC
if [ "$s_rc" = 130 ] && grep -q '^partial: interrupted' "$T_OUT" &&
   grep -q '^searched part of ' "$T_OUT" &&
   grep -q '^trainplan: interrupted' "$T_ERR"; then
    pass sigint-partial
else
    fail sigint-partial "SIGINT during search: exit $s_rc (expected 130), or no 'partial' mark"
fi

# limits: the largest legal values give an answer or a clear refusal, never
# nan or inf
for s_args in \
    "predict --seq 1048576 --gbs 16777216 --tp 8 --pp 16 --dp 8192 --format json" \
    "predict --set model.layers=16384 --set model.hidden=131072 --set model.ffn_hidden=1048576 --set model.vocab=4194304 --tp 8 --pp 16384 --dp 1 --format json" \
    "search --gpus 1048576 --gbs 16777216 --format json" \
    "search --gpus 1..1048576 --top 1 --format csv" \
    "predict --model llama3-8b --seq 1 --gbs 1 --format json"; do
    # shellcheck disable=SC2086
    "$TRAINPLAN" $s_args >"$T_TMP/lim" 2>&1
    s_rc=$?
    if [ "$s_rc" -le 1 ] && ! grep -qiE 'nan|inf|null' "$T_TMP/lim"; then
        pass "limits: $s_args"
    else
        fail "limits: $s_args" "exit $s_rc, or nan/inf/null in the output"
    fi
done
