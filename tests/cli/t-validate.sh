# tests/cli/t-validate.sh: validate and calibrate: golden reports on a small
# synthetic runs file, malformed runs files, the baseline gate, and (when
# ../shared/data is there) calibration of the A100 sample set. Sourced by
# run.sh.

# expect's conditions are single-quoted, for lib.sh to eval after the run
# (file-wide directive):
# shellcheck disable=SC2016

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
check runs-missing-file 4 "trainplan: error: cannot read '$R/none.csv': No such file or directory" -- validate $R/none.csv
check validate-no-file 2 "trainplan: error: missing the runs file" -- validate
check validate-two-files 2 "trainplan: error: unexpected argument 'b.csv'" -- validate a.csv b.csv
check validate-tolerance 2 "trainplan: error: '--tolerance' must be a number in [0, 100], not 'x'" -- validate $R/small.csv --tolerance x
check validate-format 2 "trainplan: error: '--format' must be table, csv or json, not 'xml'" -- validate $R/small.csv --format xml

# the baseline gate: worse exits 1, same or better exits 0
printf '{"mape_pct": {"alpha": 0.01}}\n' >"$T_TMP/tight.json"
printf '{"mape_pct": {"alpha": 1000}}\n' >"$T_TMP/loose.json"
printf '{"mape_pct": 3}\n' >"$T_TMP/bad.json"
run_tp validate $R/small.csv --baseline "$T_TMP/tight.json" -o "$T_TMP/v"
expect baseline-worse exit=1 'stderr~alpha .*WORSE'
run_tp validate $R/small.csv --baseline "$T_TMP/loose.json" -o "$T_TMP/v"
expect baseline-better exit=0 'stderr~update the baseline'
check baseline-malformed 3 "trainplan: error: $T_TMP/bad.json: missing object 'mape_pct'" -- validate $R/small.csv -o "$T_TMP/v" --baseline "$T_TMP/bad.json"

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
if need_shared calibrate-a100-samples kernel-samples/perlmutter-a100; then
    run_tp calibrate "$T_SHARED/data/kernel-samples/perlmutter-a100" \
        --system perlmutter-a100 -o "$T_TMP/fit.cfg" --report "$T_TMP/rep"
    c_rc=$T_RC
    run_tp predict --system "$T_TMP/fit.cfg" --tp 4 --pp 4 --dp 16 --sp \
        --recompute selective
    T_CMD="calibrate (exit $c_rc), then $T_CMD"
    expect calibrate-a100-samples '[ "$c_rc" = 0 ]' \
        'grep -q "^efficiency.gemm " "$T_TMP/rep"' '[ "$T_RC" -le 1 ]'
fi
