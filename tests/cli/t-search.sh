# tests/cli/t-search.sh: the search command: golden outputs (the default run
# too), the same output for 1 and 2 threads, sampling, no feasible plan,
# --gpus and list options. Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run,
# so the variables they read (and T_CMD, read by lib.sh) look unused
# (file-wide directive):
# shellcheck disable=SC2016,SC2034

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
# a long sequence: context parallelism and TP overlap in the space (README
# "Long sequences and communication overlap")
golden golden-search-long-seq search-long-seq.expected -- search \
    --model llama3-8b --system dgx-h100 --seq 131072 --gbs 64 --gpus 64,128 --top 3
# Llama 3 405B at 1,024..16,384 H100s (issue 10's "done when", README
# "Capacity planning"): with Megatron's block recompute in the space
# (recompute_layers) the deep pipelines rebuild only some layers
golden golden-search-405b search-405b.expected -- search --model llama3-405b \
    --system dgx-h100 --seq 8192 --gbs 2048 --gpus 1024..16384 --top 3
same_output threads-405b OMP_NUM_THREADS=1 search --model llama3-405b \
    --system dgx-h100 --seq 8192 --gbs 2048 --gpus 1024..16384 --format csv vs \
    OMP_NUM_THREADS=2 search --model llama3-405b --system dgx-h100 --seq 8192 \
    --gbs 2048 --gpus 1024..16384 --format csv
same_output threads-long-seq OMP_NUM_THREADS=1 search --model llama3-8b \
    --system dgx-h100 --seq 131072 --gbs 64 --gpus 64..512 --format csv vs \
    OMP_NUM_THREADS=2 search --model llama3-8b --system dgx-h100 --seq 131072 \
    --gbs 64 --gpus 64..512 --format csv

# mixtures of experts: ep, etp and the all-to-all overlap in the space
# (README "Mixtures of experts"); the same bytes for 1 and 2 threads
golden golden-search-moe search-moe.expected -- search --model deepseek-v3 \
    --system dgx-h100 --seq 4096 --gbs 15360 --gpus 1024,2048 --top 3
golden golden-search-mixtral search-mixtral.expected -- search \
    --model mixtral-8x7b --system dgx-h100 --seq 4096 --gbs 256 \
    --gpus 8,64,512 --top 3
same_output threads-moe OMP_NUM_THREADS=1 search --model qwen3-30b-a3b \
    --system dgx-h100 --seq 4096 --gbs 512 --gpus 8..512 --format csv vs \
    OMP_NUM_THREADS=2 search --model qwen3-30b-a3b --system dgx-h100 \
    --seq 4096 --gbs 512 --gpus 8..512 --format csv

# the same bytes for any thread count, in every format
for s_fmt in table csv json; do
    same_output "threads-$s_fmt" \
        OMP_NUM_THREADS=1 search --gpus 64..512 --format "$s_fmt" vs \
        OMP_NUM_THREADS=2 search --gpus 64..512 --format "$s_fmt"
done

# a sampled search says so and is reproducible for a seed
same_output sampled-reproducible search --budget 5000 --seed 3 vs \
    OMP_NUM_THREADS=1 search --budget 5000 --seed 3 &&
    expect sampled-marked 'stdout~^sampled '

# nothing fits: exit 1 and the nearest miss
run_tp search --model llama3-405b --gpus 8 --gbs 64
expect no-feasible exit=1 'stdout~no feasible plan: nothing fits in memory; nearest: '
# Llama 3 405B's 126 layers: with equal stages only (Megatron-LM 2021) the
# deep pipelines that would fit are the split rule's refusals, and the
# message says so; Megatron-Core's split finds plans (7 + 14 x 8 + 7 ...).
# zero 0: the stack's other mode, SC21's ZeRO-3 baseline, fits without a
# pipeline
run_tp search --model llama3-405b --seq 8192 --gbs 2048 --gpus 1024 --stack megatron-lm-2021 --zero 0
expect no-feasible-split exit=1 'stdout~short by [0-9.]+ GiB\); [0-9]+ plans of other pipeline depths break layers-pp'
run_tp search --model llama3-405b --seq 8192 --gbs 2048 --gpus 1024,16384 --top 1 --format csv
expect uneven-found exit=0 '[ "$(t_lines "$T_OUT")" = 3 ]' 'stdout~\.pf[0-9]+\.pl[0-9]+'

# --stats: the run's figures on stderr
run_tp search --gpus 64 --stats
expect stats exit=0 'stderr~^search: .* combinations/s' 'stdout~^evaluated '

# --headroom: 0 changes nothing; 20% of the A100's 80 GiB (16 GiB) stays
# free beyond the 3 GiB reserve, so no plan listed takes more than 61 GiB
# and each one's spare (margin_gib) is what is left below that
# shellcheck disable=SC2086
same_output headroom-zero search $SMALL vs search $SMALL --headroom 0
# shellcheck disable=SC2086
run_tp search $SMALL --headroom 20% --format csv
expect headroom-prunes exit=0 'stdout~^1,' \
    't_cols "$T_OUT" memory_gib margin_gib | awk -F, "\$1 > 61.0 || \$1 + \$2 > 61.001 || \$2 < 0 { bad = 1 } END { exit bad }"'
# shellcheck disable=SC2086
run_tp search $SMALL --headroom 16
expect headroom-gib-table exit=0 'stdout~^spare = 77.00 GiB usable less 16.00 GiB headroom - mem; memory model error \+-5.9 %'
for h_cmd in predict export search tradeoff compare; do
    run_tp "$h_cmd" --help
    expect "headroom-help-$h_cmd" exit=0 'stdout~--headroom H +memory to keep free' \
        'stdout~GiB or a percentage of HBM' \
        'stdout~Fujii et al. \(arXiv 2411.06465\)'
done
# the optimizer offloaded (README "Optimizer offload"): Mixtral-8x7B on one
# DGX H100, the memory table saying where the states went; without the
# distributed optimizer the plan breaks offload-zero (exit 1, and why)
run_tp predict --model mixtral-8x7b --seq 4096 --gbs 256 --tp 1 --dp 8 --zero 1 --ep 8 --epo --offload
expect predict-offload exit=0 'stdout~^  plan +tp1\.pp1\.dp8\.mb1\.z1\.ep8\.epo\.offload$' \
    'stdout~^  feasible +yes' \
    'stdout~^  optimizer +0\.00  \(offloaded: in host memory between steps'
run_tp predict --tp 8 --pp 4 --dp 2 --zero 0 --offload
expect predict-offload-zero exit=1 \
    'stdout~^  feasible +no: offload-zero: optimizer offload needs the distributed optimizer \(zero 1\), zero 0$'
# a plan that fits with no headroom but not with 20 %: exit 1, and why
run_tp predict --model llama3-8b --seq 4096 --gbs 256 --pp 2 --dp 4 --mbs 2 --zero 1
expect headroom-fits-without exit=0
run_tp predict --model llama3-8b --seq 4096 --gbs 256 --pp 2 --dp 4 --mbs 2 --zero 1 --headroom 20%
expect headroom-predict exit=1 'stdout~feasible +no: memory: needs 67.69 GiB per GPU, 76.60 GiB usable less 15.92 GiB headroom' \
    'stdout~^  headroom +15.92  \(--headroom\)'
run_tp predict --model llama3-8b --seq 4096 --gbs 256 --pp 2 --dp 4 --mbs 2 --zero 1 --headroom 20% --format json
expect headroom-json exit=1 'stdout~"headroom_gib": 15.92'
run_tp compare --systems dgx-a100,dgx-h100 --gpus 64 --headroom 85%
expect headroom-compare exit=1
run_tp export --gpus 8 --model llama3-8b --seq 4096 --gbs 256 --headroom 95%
expect headroom-export exit=1 'stderr~no feasible plan on 8 GPUs'
check headroom-negative 2 "trainplan: error: '--headroom' must be GiB in [0, 1e6] or a percentage of HBM in [0, 100) such as '20%', not '-1'" -- search --headroom -1
check headroom-all 2 "trainplan: error: '--headroom' must be GiB in [0, 1e6] or a percentage of HBM in [0, 100) such as '20%', not '100%'" -- predict --headroom 100%
check headroom-word 2 "trainplan: error: '--headroom' must be GiB in [0, 1e6] or a percentage of HBM in [0, 100) such as '20%', not '8GB'" -- tradeoff --headroom 8GB

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
check zero-four 2 "trainplan: error: '--zero' must be an integer in [0, 3], not '4'" -- search --zero 0,4
check rc-bad 2 "trainplan: error: '--recompute': 'some' is not none, selective or full" -- search --recompute none,some
check sp-bad 2 "trainplan: error: '--sp' must be y, n or any, not 'yes'" -- search --sp yes
check budget-zero 2 "trainplan: error: '--budget' must be an integer in [1, 9223372036854775807], not '0'" -- search --budget 0
check search-missing-value 2 "trainplan: error: missing value for '--gpus'" -- search --gpus
check search-unknown 2 "trainplan: error: unknown option '--fast'" -- search --fast
check search-format 2 "trainplan: error: '--format' must be table, csv or json, not 'xml'" -- search --format xml

# a value listed twice is one value
same_output repeated-values search --gpus 64 --zero 0,1 --tp 4,8 vs \
    search --gpus 64 --zero 1,0,1,1,1,1,1,1,1 --tp 8,4,8
check gpus-from-scenario 3 "trainplan: error: --set space.gpus: 'gpus' 'abc': expected a GPU count in [1, 1048576]" -- search --set space.gpus=abc
check rc-trailing 2 "trainplan: error: '--recompute': trailing comma in 'none,'" -- search --recompute none,

# Ctrl-C: the best plans so far, marked partial, exit 130. A search of
# about ten seconds on one thread, interrupted after a second.
interrupt search --model gpt3-175b --system selene-a100 --gbs 1536 --seq 2048 \
    --gpus 8..262144:8 --top 1
expect sigint-partial exit=130 'stdout~^partial: interrupted' \
    'sed -n 1p "$T_OUT" | grep -q "^partial: interrupted"' \
    'stdout~^searched part of ' 'stderr~^trainplan: interrupted'

# limits: the largest legal values give an answer or a clear refusal, never
# nan or inf
for s_args in \
    "predict --seq 1048576 --gbs 16777216 --tp 8 --pp 16 --dp 8192 --format json" \
    "predict --set model.layers=16384 --set model.hidden=131072 --set model.ffn_hidden=1048576 --set model.vocab=4194304 --tp 8 --pp 16384 --dp 1 --format json" \
    "search --gpus 1048576 --gbs 16777216 --format json" \
    "search --gpus 1..1048576 --top 1 --format csv" \
    "predict --model llama3-8b --seq 1 --gbs 1 --format json"; do
    # shellcheck disable=SC2086
    run_tp $s_args
    expect "limits: $s_args" '[ "$T_RC" -le 1 ]' \
        '! grep -qiE "nan|inf|null" "$T_OUT" "$T_ERR"'
done

# ---- search and predict agree on the same plan ----
# Every row of a small search (pipeline, interleaving, sequence parallelism
# and selective recompute among them), predicted alone from the row's plan,
# gives the same numbers: in CSV every field but the rank; in JSON the plan,
# times, memory and breakdown (everything before the per-layer operators).
A_JOB='--model llama3-70b --system dgx-h100 --seq 4096 --gbs 128'
# a_blocks DIR FILE: each plan object of a JSON report, from its "key" line
# to its "operators", in DIR/KEY.blk, one field a line
a_blocks()
{
    awk -v dir="$1" '/"key":/ { k = $2; gsub(/[",]/, "", k); f = dir "/" k ".blk"; on = 1 }
        /"operators":/ { on = 0 }
        on { sub(/^ +/, ""); sub(/,$/, ""); print > f }' "$2"
}
mkdir "$T_TMP/agree" "$T_TMP/agree-p"
# shellcheck disable=SC2086
run_tp search $A_JOB --gpus 32,64 --top 3 --pp 2,4 --vpp 1,2 --format json
a_blocks "$T_TMP/agree" "$T_OUT"
# shellcheck disable=SC2086
run_tp search $A_JOB --gpus 32,64 --top 3 --pp 2,4 --vpp 1,2 --format csv
cp "$T_OUT" "$T_TMP/agree.csv"
expect search-predict-rows exit=0 '[ "$(t_lines "$T_TMP/agree.csv")" = 7 ]'
a_head=$(sed -n 1p "$T_TMP/agree.csv")
sed 1d "$T_TMP/agree.csv" >"$T_TMP/agree.rows"
while IFS= read -r a_line; do
    a_row=$(echo "$a_line" | cut -d, -f4-)
    # the plan columns sit between "gpus_per_node" and "gbs" (one per plan
    # dimension, spaces/dims.c): "--NAME VALUE", a true/false switch "--NAME"
    a_plan=$(printf '%s\n%s\n' "$a_head" "$a_line" | awk -F, '
        NR == 1 { for (i = 1; i <= NF; i++) name[i] = $i; next }
        { on = 0
          for (i = 1; i <= NF; i++) {
              if (name[i] == "gbs") on = 0
              if (on && $i == "true") printf " --%s", name[i]
              else if (on && $i != "false") printf " --%s %s", name[i], $i
              if (name[i] == "gpus_per_node") on = 1 } }')
    a_key=$(echo "$a_line" | cut -d, -f4)
    # shellcheck disable=SC2086
    run_tp predict $A_JOB $a_plan --format csv
    expect "search-predict-csv-$a_key" exit=0 \
        '[ "rank,tied_with_best,top_first_pct,$(t_line "$T_OUT" 1)" = "$a_head" ]' \
        '[ "$(t_line "$T_OUT" 2)" = "$a_row" ]'
    # shellcheck disable=SC2086
    run_tp predict $A_JOB $a_plan --format json
    a_blocks "$T_TMP/agree-p" "$T_OUT"
    expect "search-predict-json-$a_key" exit=0 \
        '[ -s "$T_TMP/agree/$a_key.blk" ]' \
        'cmp -s "$T_TMP/agree/$a_key.blk" "$T_TMP/agree-p/$a_key.blk"'
done <"$T_TMP/agree.rows"

# -o FILE.csv / FILE.json picks the format unless --format says otherwise
run_tp search --gpus 64 --top 1 -o "$T_TMP/plans.csv"
expect out-ext-csv exit=0 stdout= 'head -1 "$T_TMP/plans.csv" | grep -q "^rank,.*,key,"'
run_tp search --gpus 64 --top 1 -o "$T_TMP/plans.json"
expect out-ext-json exit=0 'head -1 "$T_TMP/plans.json" | grep -q "^{"'
run_tp search --gpus 64 --top 1 -o "$T_TMP/plans2.json" --format table
expect out-ext-format-wins exit=0 'head -1 "$T_TMP/plans2.json" | grep -q "^llama3-70b on dgx-h100"'

# a count with no plan names nearby batch sizes that have one (results/batches.c)
run_tp search --model llama3-70b --seq 8192 --gbs 512 --gpus 200,256 --top 1
expect search-nearby-gbs exit=0 'stdout~^  no feasible plan: no valid plan; most rejected by rule ' \
    'stdout~^  batch sizes with a plan: 500, 550, 600$'
run_tp search --model llama3-70b --seq 8192 --gbs 512 --gpus 200,256 --top 1 --format json
expect search-nearby-gbs-json exit=0 'stdout~"nearby_gbs": \['
run_tp search --model llama3-70b --seq 8192 --gbs 512 --gpus 1..40:1 --top 1
expect search-nearby-cap exit=0 'stdout~^[0-9]+ GPU counts have no plan: too many to search nearby batch sizes for \(at most 16\)'

# --gbs as a list: per count the batch whose best plan has the most tokens/s
run_tp search --model llama3-70b --seq 8192 --gbs 512..2048 --gpus 200,256 --top 1
expect search-gbs-list exit=0 'stdout~^256 GPUs, gbs 2048$' 'stdout~^  batch sizes with a plan: 500, 550, 600$'
run_tp search --model llama3-70b --seq 8192 --gbs 512,1024 --gpus 256 --top 1 --format csv
expect search-gbs-list-csv exit=0 'stdout~^1,false,[0-9.]+,tp[^,]+,llama3-70b,dgx-h100,megatron-core,256,.*,1024,8192,'
same_output search-gbs-list-threads OMP_NUM_THREADS=1 search --model llama3-70b --seq 8192 --gbs 512..2048 --gpus 64..256 --format csv vs \
    OMP_NUM_THREADS=2 search --model llama3-70b --seq 8192 --gbs 512..2048 --gpus 64..256 --format csv

# the DP overlap is the search's choice, shown in the key where it is off:
# Megatron-LM 2021 overlaps nothing, so its plans read no-ov, and asking
# for the overlap there leaves no plan (rule stack-overlap)
run_tp search --model llama3-8b --system dgx-a100 --seq 4096 --gbs 256 \
    --gpus 16 --top 1 --stack megatron-lm-2021 --format csv
expect overlap-choice-2021 exit=0 'sed -n 2p "$T_OUT" | grep -q "\.no-ov,"'
run_tp search --model llama3-8b --system dgx-a100 --seq 4096 --gbs 256 \
    --gpus 16 --top 1 --format csv
expect overlap-choice-core exit=0 '! sed -n 2p "$T_OUT" | grep -q "no-ov"'
run_tp search --model llama3-8b --system dgx-a100 --seq 4096 --gbs 256 \
    --gpus 16 --top 1 --stack megatron-lm-2021 --overlap y
expect overlap-refused-2021 exit=1 'grep -q "stack-overlap" "$T_OUT"'

# the MoE rules name the numbers that break them (predict: exit 1)
run_tp predict --model mixtral-8x7b --ep 3 --dp 64 --format csv
expect moe-rule-ep-experts exit=1 \
    'stdout~ep-experts: experts \(8\) not divisible by ep \(3\),[0-9]+$'  # reason, then schema_version
run_tp predict --model mixtral-8x7b --tp 2 --ep 8 --dp 32 --format csv
expect moe-rule-ep-sp exit=1 'stdout~ep-sp: expert parallelism with tp \(2\) > 1 needs sequence parallelism'
run_tp predict --model llama3-8b --ep 2 --dp 64 --format csv
expect moe-rule-ep-dense exit=1 "stdout~ep-dense: model 'llama3-8b' has no experts to split over ep \\(2\\) and etp \\(1\\)"
run_tp predict --model qwen3-30b-a3b --ep 8 --dp 8 --epo --stack megatron-lm-2021 --format csv
expect moe-rule-stack-ep exit=1 'stdout~stack-ep: the stack has no expert parallelism'

# ---- long sweeps (README "Long sweeps") ----
# --summary: one line per GPU count, runs of counts without a plan folded
S_SWEEP='--model gpt3-175b --system selene-a100 --gbs 1536 --seq 2048 --gpus 8..256:8'
# shellcheck disable=SC2086
golden golden-search-summary search-summary.expected -- search $S_SWEEP --summary
# shellcheck disable=SC2086
run_tp search $S_SWEEP --summary
s_rows=$(sed -n '/^ *GPUs  best plan/,/^$/p' "$T_OUT" | grep -c '^ *[0-9]')
T_CMD="search $S_SWEEP --summary: $s_rows count lines"
# 32 counts: 8..16 folded into one line (every valid plan misses memory,
# even with the optimizer offloaded), the other 30 a line each
expect search-summary-lines exit=0 '[ "$s_rows" = 31 ]' \
    'stdout~^ +8\.\.16  no feasible plan at any of these counts: nothing fits in memory; nearest: .* on 16 GPUs needs '
# the same best plans as the full table's rank 1, and CSV as --top 1
# shellcheck disable=SC2086
same_output search-summary-csv search $S_SWEEP --summary --format csv vs \
    search $S_SWEEP --top 1 --format csv
# JSON: every count kept (with its reason when it has no plan), at most
# one plan each
# shellcheck disable=SC2086
run_tp search $S_SWEEP --summary --format json
s_json=$(python3 -c '
import json, sys
d = json.load(sys.stdin)
r = d["results"]
print(d["job"]["top"], len(r), max(len(x["plans"]) for x in r),
      sum(1 for x in r if not x["plans"] and x["reason"]))' <"$T_OUT" 2>/dev/null)
T_CMD="search --summary --format json: top, counts, most plans, reasons: $s_json"
if command -v python3 >/dev/null 2>&1; then
    expect search-summary-json exit=0 '[ "$s_json" = "1 32 1 6" ]'
else
    skip search-summary-json "python3 not installed"
fi
check search-summary-top 2 "trainplan: error: --summary shows the best plan of each GPU count: drop '--top'" -- search --summary --top 3
# the table folds the same run into one block, its counts summed
# shellcheck disable=SC2086
run_tp search $S_SWEEP --top 1
expect search-fold-table exit=0 'stdout~^8\.\.16 GPUs \(2 counts\)$' 'stdout!~^(8|16) GPUs$' \
    'stdout~^  no feasible plan: nothing fits in memory; nearest: tp[^ ]+ on 16 GPUs needs ' \
    'stdout~^24 GPUs$'
# one count alone keeps its own block and words
run_tp search --model gpt3-175b --system selene-a100 --gbs 1536 --seq 2048 --gpus 16,24 --top 1
expect search-fold-single exit=0 'stdout~^16 GPUs$' \
    'stdout~^  no feasible plan: nothing fits in memory; nearest: tp[^ ]+ needs '
# rule runs: counts whose plans all break rules fold, naming the rule that
# rejected most over the run
run_tp search --model llama3-8b --gbs 512 --gpus 25..28:1 --summary
expect search-fold-rule exit=0 'stdout~^ +25\.\.27  no feasible plan at any of these counts: no valid plan; most rejected by rule [a-z-]+ \([0-9]+ of [0-9]+\)$'

# progress: nothing on stderr off a terminal (tests' stderr is a file) for
# a sweep long enough to draw (over a second on one thread); --progress
# asks for it there: every line it writes is "search: P%, T so far[, about
# T left]" (how many depends on the machine's speed, not checked)
# shellcheck disable=SC2086
run_tp OMP_NUM_THREADS=1 search $S_SWEEP --summary -o /dev/null
expect progress-not-tty exit=0 stderr=
run_tp OMP_NUM_THREADS=1 search --model gpt3-175b --system selene-a100 --gbs 1536 --seq 2048 --gpus 8..4096:8 --summary --progress -o /dev/null
expect progress-asked exit=0 \
    '[ "$(grep -cvE "^search: +[0-9]+\.[0-9]%, [0-9]+( min [0-9]+)? s so far(, about [0-9 a-z]+ left)?$" "$T_ERR")" = 0 ]'
run_tp OMP_NUM_THREADS=1 tradeoff --model llama3-8b --gpus 8 --progress -o /dev/null
expect progress-tradeoff exit=0
check progress-predict 2 "trainplan: error: unknown option '--progress'" -- predict --progress
# --set on a list field: a bracketed list, or one value for a list of it
run_tp search --model llama3-8b --system dgx-h100 --gpus 64 --top 5 \
    --format csv --set 'space.tp=[1,2]'
expect search-set-list exit=0 \
    '[ "$(tail -n +2 "$T_OUT" | cut -d, -f4 | grep -cv "^tp[12]\.")" = 0 ]' \
    '[ "$(tail -n +2 "$T_OUT" | wc -l)" -ge 2 ]'
run_tp search --model llama3-8b --system dgx-h100 --gpus 64 --top 5 \
    --format csv --set space.tp=8
expect search-set-one-value exit=0 \
    '[ "$(tail -n +2 "$T_OUT" | cut -d, -f4 | grep -cv "^tp8\.")" = 0 ]' \
    '[ "$(tail -n +2 "$T_OUT" | wc -l)" -ge 1 ]'
