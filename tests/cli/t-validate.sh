# tests/cli/t-validate.sh: validate and calibrate: golden reports on a small
# synthetic runs file, malformed runs files, the baseline gate (the
# hand-written tests/data/validate-baseline-small.json, edited one figure at
# a time) and --write-baseline, and (when ../shared/data is there)
# calibration of the A100 sample set. Sourced by run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run,
# so the variables they read look unused (file-wide directive):
# shellcheck disable=SC2016,SC2034

for v_fmt in table csv json; do
    golden "golden-validate-$v_fmt" "validate-small-$v_fmt.expected" -- \
        validate tests/data/runs/small.csv --format "$v_fmt"
done
golden golden-validate-source validate-source.expected -- \
    validate tests/data/runs/small.csv --source beta --format csv

R=tests/data/runs
check runs-missing-column 3 "trainplan: error: $R/bad-missing-column.csv:1: missing column 'zero'" -- validate $R/bad-missing-column.csv
check runs-extra-comma 3 "trainplan: error: $R/bad-extra-comma.csv:2: 36 fields, the header has 35" -- validate $R/bad-extra-comma.csv
check runs-bad-number 3 "trainplan: error: $R/bad-number.csv:2: column 'pp': must be an integer >= 1, not 'x'" -- validate $R/bad-number.csv
check runs-bad-time 3 "trainplan: error: $R/bad-time.csv:2: column 'measured_iter_s': must be a number > 0 or blank, not '-1'" -- validate $R/bad-time.csv
check runs-duplicate-id 3 "trainplan: error: $R/bad-duplicate-id.csv:3: column 'id': 'T-01' repeats line 2" -- validate $R/bad-duplicate-id.csv
check runs-gpus 3 "trainplan: error: $R/bad-gpus.csv:2: column 'num_gpus': must equal tp*pp*dp*cp (64), not '65'" -- validate $R/bad-gpus.csv
check runs-bad-stack 3 "trainplan: error: $R/bad-stack.csv:2: column 'stack': must be megatron-lm-2021, megatron-deepspeed, megatron-core, torchtitan, nemo-automodel or other, not 'deepspeed'" -- validate $R/bad-stack.csv
# a runs file without the 'stack' column: the default stack, said once;
# the same predictions as small.csv (whose column names megatron-core, and
# 'other' on T-07, which is predicted as megatron-core and says so)
run_tp validate $R/no-stack.csv --format csv
cp "$T_OUT" "$T_TMP/no-stack.csv"
expect runs-no-stack-default exit=0 \
    '[ "$(grep -c "no-stack.csv has no .stack. column: every row is predicted with the default stack, megatron-core" "$T_ERR")" = 1 ]'
run_tp validate $R/small.csv --format csv
expect runs-stack-other exit=0 '[ ! -s "$T_ERR" ]' \
    'grep -q "^T-07,.*,stack .other. predicted as megatron-core,1$" "$T_OUT"' \
    '[ "$(grep -v "^T-07," "$T_OUT")" = "$(grep -v "^T-07," "$T_TMP/no-stack.csv")" ]'
# 'other' under a stack rule of the default (FSDP under a pipeline breaks
# megatron-core's zero-pp): the first preset that runs it, torchtitan, and
# the note says why; a row that names megatron-core keeps it and the rule
run_tp validate $R/other-fallback.csv --format csv
expect runs-other-fallback exit=0 '[ ! -s "$T_ERR" ]' \
    'grep -q "^T-11,.*,stack .other. predicted as torchtitan (megatron-core: zero-pp),1$" "$T_OUT"' \
    'grep -q "^T-12,.*,zero-pp: the stack runs zero 3 only without pipeline parallelism" "$T_OUT"' \
    'grep -q "^T-13,.*,stack .other. predicted as megatron-core,1$" "$T_OUT"'
check runs-missing-file 4 "trainplan: error: cannot read '$R/none.csv': No such file or directory" -- validate $R/none.csv
check validate-no-file 2 "trainplan: error: missing the runs file" -- validate
check validate-two-files 2 "trainplan: error: unexpected argument 'b.csv'" -- validate a.csv b.csv
check validate-tolerance 2 "trainplan: error: '--tolerance' must be a number in [0, 100], not 'x'" -- validate $R/small.csv --tolerance x
check validate-format 2 "trainplan: error: '--format' must be table, csv or json, not 'xml'" -- validate $R/small.csv --format xml

# the baseline gate (fidelity/gate.c): vg_gate NAME EXIT TEXT BASELINE
# [ARGS]: validate small.csv against BASELINE: exit EXIT, TEXT on stderr
vg_gate()
{
    vg_name=$1 vg_exit=$2 vg_text=$3 vg_base=$4
    shift 4
    run_tp validate "$R/small.csv" -o "$T_TMP/v" --baseline "$vg_base" "$@"
    expect "$vg_name" "exit=$vg_exit" 'grep -qF -- "$vg_text" "$T_ERR"'
}
# the baseline in tests/data with one figure replaced (a sed expression)
vg_edit()
{
    sed "$1" "$T_DATA/validate-baseline-small.json" >"$T_TMP/edited.json"
}
B=$T_DATA/validate-baseline-small.json
E=$T_TMP/edited.json
vg_gate baseline-loose 0 '3 sets of figures against the baseline: ok (0 failed)' "$B"
expect baseline-loose-better 'stderr~alpha: MAPE .*better'
vg_edit 's/"mape_pct": 99.1/"mape_pct": 0.01/'
vg_gate baseline-mape-worse 1 'alpha: MAPE' "$E"
expect baseline-mape-worse-line 'stderr~alpha: MAPE .*baseline 0\.01% \(tolerance 0\.5\): WORSE'
vg_gate baseline-tolerance 0 '(0 failed)' "$E" --tolerance 100
vg_edit 's/"oom_agree_rows": 0,/"oom_agree_rows": 4,/'
vg_gate baseline-oom-worse 1 'alpha: OOM agreeing rows 3, baseline 4 (tolerance 0): WORSE' "$E"
vg_edit 's/"spearman": -1.0/"spearman": 1.5/'
vg_gate baseline-spearman-worse 1 'alpha: Spearman 1.000, baseline 1.500 (tolerance 0.02): WORSE' "$E"
vg_edit 's/"mem_mape_pct": 990.0\(,*\)$/"mem_mape_pct": 0.5\1/'
vg_gate baseline-memory-worse 1 'beta: memory MAPE' "$E"
# the held-out figures of validate --cv source are gated too
vg_edit 's/"cv_mape_pct": 99.0/"cv_mape_pct": 0.01/'
vg_gate baseline-cv-worse 1 'alpha: held-out MAPE 56.64%, baseline 0.01% (tolerance 0.5): WORSE' "$E"
vg_edit 's/"timed_rows": 3,/"timed_rows": 4,/'
vg_gate baseline-rows-lost 1 'alpha: timed rows 3, baseline 4 (tolerance 0): WORSE' "$E"
vg_edit 's/"beta"/"gamma"/'
vg_gate baseline-new-source 1 'source beta has no baseline: run `make validate-baseline`' "$E"
vg_gate baseline-gone-source 1 'source gamma of the baseline is not in the data' "$E"
vg_gate baseline-source-option 1 'source beta of the baseline is not in the data' "$B" --source alpha

# --write-baseline: the figures with the command, the same bytes each time,
# and a gate that passes against itself
run_tp validate "$R/small.csv" -o "$T_TMP/v" --write-baseline "$T_TMP/b.json"
vg_cmd="\"command\": \"trainplan validate $R/small.csv -o $T_TMP/v --write-baseline $T_TMP/b.json\""
expect baseline-write exit=0 stderr= 'grep -qF -- "$vg_cmd" "$T_TMP/b.json"'
cp "$T_TMP/b.json" "$T_TMP/b1.json"
run_tp validate "$R/small.csv" -o "$T_TMP/v" --write-baseline "$T_TMP/b.json"
expect baseline-write-again exit=0 'cmp -s "$T_TMP/b.json" "$T_TMP/b1.json"'
vg_gate baseline-self 0 'alpha                        ok (11 figures)' "$T_TMP/b.json"
expect baseline-self-same '! grep -Eq "WORSE|better|LOST|no baseline" "$T_ERR"'
check baseline-write-unwritable 4 "trainplan: error: cannot write '/nonexistent/b.json': No such file or directory" -- validate $R/small.csv -o "$T_TMP/v" --write-baseline /nonexistent/b.json

printf '{"mape_pct": {"alpha": 0.01}}\n' >"$T_TMP/old.json"
check baseline-old-format 3 "trainplan: error: $T_TMP/old.json: missing string 'command' (the command that made the baseline)" -- validate $R/small.csv -o "$T_TMP/v" --baseline "$T_TMP/old.json"
vg_edit 's/"groups": 0/"groups": "none"/'
check baseline-malformed 3 "trainplan: error: $E: 'sources.beta.groups' must be a number" -- validate $R/small.csv -o "$T_TMP/v" --baseline "$E"

# calibrate
check calibrate-no-system 2 "trainplan: error: missing --system NAME|FILE" -- calibrate /tmp
check calibrate-no-dir 4 "trainplan: error: cannot read '/nonexistent-samples/operator': No such file or directory" -- calibrate /nonexistent-samples --system dgx-a100
c_dir=$T_TMP/bad-samples
mkdir -p "$c_dir/operator" "$c_dir/nccl"
: >"$c_dir/operator/GPU.csv"
printf 'b,l,dim,F_dur(us)\n2,1024,4096x,5\n' >"$c_dir/operator/GPU_gelu_fp16.csv"
check calibrate-bad-sample 3 "trainplan: error: $c_dir/operator/GPU_gelu_fp16.csv:2: column 'dim': must be a number > 0, not '4096x'" -- calibrate "$c_dir" --system dgx-a100
printf 'b,l,dim,F_dur(us)\n2,1024,4096,5\n' >"$c_dir/operator/GPU_gelu_fp16.csv"
printf 'nodes,GPUsPerNode,dur(us)\n1,2,679.4\n' >"$c_dir/nccl/GPU_allreduce_fp16_1_2.csv"
check calibrate-nccl-no-shape 3 "trainplan: error: $c_dir/nccl/GPU_allreduce_fp16_1_2.csv:1: missing column 'shape'" -- calibrate "$c_dir" --system dgx-a100
# the memory model's error that predict and search print beside the spare
# memory (PRED_MEM_ERROR_PCT, +-5.9 %) is the peak-memory MAPE validate
# measures on runs-dev.csv, the worse of bloom_prequel's 71 measured peaks
# and torchtitan_2412's 15 (below 5.9)
if need_shared mem-error-measured runs-dev.csv; then
    run_tp validate "$T_SHARED/data/runs-dev.csv"
    expect mem-error-measured \
        'stdout~^  bloom_prequel +[0-9]+ +[0-9.]+% +71 +5\.(8[5-9]|9[0-4])%$'
    expect mem-error-measured-torchtitan \
        'stdout~^  torchtitan_2412 +15 +[0-9.]+% +15 +([0-4]\.[0-9]+|5\.[0-8][0-9])%$'
fi

# issue 14's memory targets on runs-dev.csv: no row that ran is called out
# of memory but the one flagged uncertain (DeepSeek-V3's pre-training row:
# confidence C, recompute / mbs / vpp / cp assumed, DualPipe not modelled);
# out-of-memory agreement >= 95 % on every source with out-of-memory rows;
# peak-memory MAPE <= 8 % on every source with measured peaks
mem_false_oom()         # ids of rows that ran, called out of memory
{
    awk -F, '$10 == "false" && $12 == "false" { print $1 }' "$T_OUT"
}
mem_low_agreement()     # sources with OOM rows agreeing on < 95 % of rows
{
    awk -F, 'NR > 1 { n[$2]++; o[$2] += $12 == "true"
                      a[$2] += ($10 == "true") == ($12 == "false") }
             END { for (s in n) if (o[s] > 0 && a[s] < 0.95 * n[s]) print s }' \
        "$T_OUT"
}
mem_oom_rows()          # rows that ran out of memory
{
    awk -F, '$12 == "true"' "$T_OUT" | wc -l
}
mem_high_mape()         # sources whose peak-memory MAPE is above 8 %
{
    sed -n '/^memory/,$p' "$T_OUT" |
        awk 'NF == 5 && $5 ~ /%$/ && $5 + 0 > 8 { print $1 }'
}
if need_shared memory-targets runs-dev.csv; then
    run_tp validate "$T_SHARED/data/runs-dev.csv" --format csv
    expect memory-targets-false-oom exit=0 '[ "$(mem_false_oom)" = DSV3-PRETRAIN ]'
    expect memory-targets-oom-agreement '[ -z "$(mem_low_agreement)" ]' \
        '[ "$(mem_oom_rows)" -gt 0 ]'
    run_tp validate "$T_SHARED/data/runs-dev.csv"
    expect memory-targets-peak-mape exit=0 '[ -z "$(mem_high_mape)" ]' \
        'stdout~^  torchtitan_2412 +15 +[0-9.]+% +15 +[0-9.]+%$'
fi

if need_shared calibrate-a100-samples kernel-samples/perlmutter-a100; then
    run_tp calibrate "$T_SHARED/data/kernel-samples/perlmutter-a100" \
        --system perlmutter-a100 -o "$T_TMP/fit.cfg" --report "$T_TMP/rep"
    c_rc=$T_RC
    run_tp predict --system "$T_TMP/fit.cfg" --tp 4 --pp 4 --dp 16 --sp \
        --recompute selective
    T_CMD="calibrate (exit $c_rc), then $T_CMD"
    expect calibrate-a100-samples '[ "$c_rc" = 0 ]' \
        'grep -q "^efficiency.gemm " "$T_TMP/rep"' '[ "$T_RC" -le 1 ]'
    # the inter-node samples ran over NCCL's sockets: the report says so in
    # one line and the written file carries the same fitted-as-sampled share
    expect calibrate-a100-socket-fabric \
        'grep -q "^efficiency.network  *0\.048.  *0\.8500  the sampled fabric ran at 4\.8 % of the link rate: NCCL over sockets? check before planning on this file$" "$T_TMP/rep"' \
        'grep -q "^  network = 0\.048" "$T_TMP/fit.cfg"'
    # the report as JSON and CSV: one row per operator and direction
    run_tp calibrate "$T_SHARED/data/kernel-samples/perlmutter-a100" \
        --system perlmutter-a100 -o /dev/null --report - --format json
    expect calibrate-report-json 'exit=0' 'stdout~"mape_extrap_pct"' \
        'stdout~"operator": "layernorm"' 'stdout~"efficiency.gemm_bwd"' \
        'stdout~"mape_extrap_seq_pct"' 'stdout~"not_fitted"' 'stdout~"mape_physical_pct"' \
        'stdout~"file": "operator/NVIDIAA100-SXM4-80GB_optimizer_fp16.csv"'
    run_tp calibrate "$T_SHARED/data/kernel-samples/perlmutter-a100" \
        --system perlmutter-a100 -o /dev/null --report - --format csv
    expect calibrate-report-csv 'exit=0' \
        'stdout~^operator,dir,n,mape_random_pct,p90_random_pct,mape_extrap_pct,mape_extrap_mp_pct,mape_extrap_seq_pct,authors_pct,mape_roofline_pct,mape_physical_pct,failed_runs,note,schema_version$' \
        'stdout~^linear1,bwd,1755,[^"]*,0,,1$'
    # A100 samples fitted to a B200: warned, and the fit describes the
    # sampled GPU on the B200's peaks (GEMMs at ~0.12 of them; it once
    # gave an efficiency of 0, a logistic's underflow, and wrote nothing)
    rm -f "$T_TMP/b200.cfg"
    run_tp calibrate "$T_SHARED/data/kernel-samples/perlmutter-a100" \
        --system dgx-b200 -o "$T_TMP/b200.cfg" --report "$T_TMP/rep"
    expect calibrate-other-gpu exit=0 \
        'stderr~^trainplan: warning: the samples are of NVIDIAA100-SXM4-80GB, the system.s GPU is B200-SXM-180GB' \
        'grep -Eq "^  gemm = 0\.1[0-9]*;" "$T_TMP/b200.cfg"'
    run_tp show system "$T_TMP/b200.cfg"
    expect calibrate-other-gpu-loads exit=0
fi
# this project's own H100 samples (hardware/samples, in the repository): one
# GPU, so no collectives, and no fused masked softmax; the table says so in a
# row for each, and the fit loads as a system
run_tp calibrate hardware/samples/h100-sxm5 --system dgx-h100 \
    -o "$T_TMP/h100.cfg" --report - --format csv
expect calibrate-h100-samples 'exit=0' \
    'stdout~^masked softmax,-,0,,,,,,,,,0,"no samples in this folder",1$' \
    'stdout~^allgather \(nodes\),-,0,,,,,,,,,0,"no samples in this folder",1$' \
    'stdout~^flash_atten,bwd,400,' 'stdout~^optimizer \(middle\),-,224,'
run_tp predict --system "$T_TMP/h100.cfg" --model llama3-8b --tp 1 --pp 1 --dp 8 --zero 1 --recompute full
expect calibrate-h100-loads 'exit=0' 'stdout~^llama3-8b on dgx-h100 ' 'stdout~feasible +yes'
# the same samples fitted from grandteton-h100 (a clock of 0.729, fitted on
# runs): the samples time the GPU at its own clock, so the compute shares
# are dgx-h100's (the memory-bound ones differ: that base's HBM peak is
# 2.4 TB/s) and the file written carries no clock to apply on top of them
run_tp calibrate hardware/samples/h100-sxm5 --system grandteton-h100 \
    -o "$T_TMP/gt.cfg" --report /dev/null
same_field() {  # field: the two files' values within 1e-6
    awk -v f="$1" '$1 == f && $2 == "=" { v[FILENAME] = $3 + 0 }
        END { n = 0; for (k in v) { a[n++] = v[k] }
              exit !(n == 2 && a[0] > 0 && (a[0] - a[1]) ^ 2 < 1e-12) }' \
        "$T_TMP/h100.cfg" "$T_TMP/gt.cfg"
}
expect calibrate-clocked-base 'exit=0' '! grep -q "clock" "$T_TMP/gt.cfg"' \
    'same_field gemm' 'same_field attn' 'same_field attn_bwd'
# that file has PyTorch 2.7's softmax dispatch (2048); the H200 samples
# fitted from it keep 2048, and a set of the older dispatch (the published
# A100 samples) writes 1024 with no warp slot or wide-row cost left over
# from the base file
run_tp calibrate hardware/samples/h200-sxm --system "$T_TMP/h100.cfg" -o "$T_TMP/h200.cfg" \
    --report /dev/null
expect calibrate-softmax-dispatch-2048 'exit=0' \
    'grep -Eq "^  softmax_fwd_warp_row = 2048\.0;" "$T_TMP/h100.cfg"' \
    'grep -Eq "^  softmax_fwd_warp_row = 2048\.0;" "$T_TMP/h200.cfg"'
if [ -d "$T_SHARED/data/kernel-samples/perlmutter-a100" ]; then
    run_tp calibrate "$T_SHARED/data/kernel-samples/perlmutter-a100" --system "$T_TMP/h100.cfg" \
        -o "$T_TMP/a100.cfg" --report /dev/null
    expect calibrate-softmax-dispatch-1024 'exit=0' \
        'grep -Eq "^  softmax_fwd_warp_row = 1024\.0;" "$T_TMP/a100.cfg"' \
        'grep -Eq "^  softmax_fwd_warp_ps = 0\.0;" "$T_TMP/a100.cfg"' \
        'grep -Eq "^  softmax_fwd_wide_ns = 0\.0;" "$T_TMP/a100.cfg"'
fi
check calibrate-bad-format 2 "trainplan: error: '--format' must be table, csv or json, not 'xml'" -- calibrate /tmp --system dgx-a100 --format xml
